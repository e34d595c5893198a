import EmbossSupport

/// The fonts one text is set in: the chosen font first, then fallback fonts found for the
/// characters it lacks, each loaded once, at the style's size and variations.
///
/// Text the chosen font can set is set in it alone; a fallback font is asked for only for
/// a character it lacks, so it never changes what the chosen font renders.
public final class FontSet {
  /// The chosen font.
  public let primary: Font
  let fallback: FontCatalog.Fallback?
  let style: TextStyle
  /// The primary font, then each fallback font in the order first needed.
  private(set) var fonts: [Font]
  /// The characters each font set, by index in `fonts`.
  private(set) var characters: [[Unicode.Scalar]]
  /// Characters no font has, in order of first appearance.
  private(set) var missing: [Unicode.Scalar] = []
  private var chosen: [Character: Int?] = [:]
  private var loaded: [String: Int] = [:]

  /// Sets `primary` to the style's size and variations.
  ///
  /// - Throws: `EmbossError` for features or variations the primary font refuses.
  init(primary: Font, fallback: FontCatalog.Fallback?, style: TextStyle) throws {
    try style.features.check(against: primary)
    try style.variations.check(against: primary)
    try primary.setPixelSize(style.pixelSize)
    primary.apply(style.variations)
    self.primary = primary
    self.fallback = fallback
    self.style = style
    fonts = [primary]
    characters = [[]]
  }

  /// The font for one grapheme cluster (a letter with its marks): the first font loaded that
  /// has all its characters, else the best fallback; nil when none has them (the characters
  /// are then recorded in `missing`).
  func font(for cluster: Character) -> Int? {
    if let known = chosen[cluster] { return known }
    let needed = Array(
      cluster.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint })
    var found: Int? = needed.isEmpty ? 0 : fonts.firstIndex { $0.covers(needed) }
    if found == nil, let fallback,
      // Bold from the weight the text is set at (a variable font's `wght` too), not only
      // the face's style flag: Inter at wght=900 is flagged regular.
      let entry = fallback.face(
        covering: needed, bold: primary.weight >= 600, italic: primary.isItalic)
    {
      let key = "\(entry.index):\(entry.path)"
      if let index = loaded[key] {
        found = index
      } else if let font = try? Font(path: entry.path, index: entry.index),
        (try? font.setPixelSize(style.pixelSize)) != nil, font.covers(needed)
      {
        font.apply(style.variations)
        fonts.append(font)
        characters.append([])
        loaded[key] = fonts.count - 1
        found = fonts.count - 1
      }
    }
    if let found {
      for scalar in needed where !characters[found].contains(scalar) {
        characters[found].append(scalar)
      }
    } else {
      for scalar in needed where !primary.covers([scalar]) && !missing.contains(scalar) {
        missing.append(scalar)
      }
    }
    chosen[cluster] = found
    return found
  }

  /// The fallback fonts used, with the characters each set.
  var fallbackUses: [FontUse] {
    fonts.indices.dropFirst().compactMap { i in
      characters[i].isEmpty
        ? nil
        : FontUse(
          name: fonts[i].name, path: fonts[i].path, index: fonts[i].index,
          characters: String(String.UnicodeScalarView(characters[i])))
    }
  }

  /// The error for characters no font has: every one of them, and the chosen font.
  func missingError() -> EmbossError? {
    guard !missing.isEmpty else { return nil }
    let shown = missing.prefix(12).map { "'\(Character($0))' (U+\(hex($0)))" }
    var list = shown.joined(separator: ", ")
    if missing.count > shown.count { list += " and \(missing.count - shown.count) more" }
    let glyphs = missing.count == 1 ? "glyph" : "glyphs"
    let reason =
      fallback == nil
      ? " (fallback fonts are off)"
      : "; no installed font has \(missing.count == 1 ? "it" : "them") either (emboss fonts lists the fonts)"
    return EmbossError(
      "font '\(primary.name)' (\(primary.path)) has no \(glyphs) for \(list)\(reason)")
  }
}

/// A fallback font and the characters it set.
public struct FontUse: Sendable, Equatable {
  /// The font's family and style, as listed.
  public var name: String
  /// The font file's path.
  public var path: String
  /// The face in the file.
  public var index: Int
  /// The characters it set, each once, in order of appearance.
  public var characters: String
}
