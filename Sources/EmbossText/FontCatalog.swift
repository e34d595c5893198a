import CFontconfig
import EmbossSupport
import Foundation

/// Installed fonts by name, through fontconfig.
///
/// `--font "DejaVu Serif:bold"` and `emboss fonts` use it. The bundled font stays the
/// default, so a plain render never asks.
public enum FontCatalog {
  /// One face of an installed font file.
  public struct Entry: Sendable, Hashable, Comparable {
    /// The family name (`DejaVu Serif`).
    public var family: String
    /// The style name (`Bold`).
    public var style: String
    /// The font file's path.
    public var path: String
    /// The face in the file (collections hold several).
    public var index: Int

    /// Orders entries by family, style, path and face, ignoring case.
    public static func < (a: Entry, b: Entry) -> Bool {
      (a.family.lowercased(), a.style.lowercased(), a.path, a.index)
        < (b.family.lowercased(), b.style.lowercased(), b.path, b.index)
    }
  }

  /// Whether a `--font` value names a file rather than a pattern: it exists, holds a `/`, or
  /// ends in a font file's extension.
  public static func isPath(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return text.contains("/") || FileManager.default.fileExists(atPath: text)
      || [".ttf", ".otf", ".ttc", ".otc", ".pfb", ".pfa", ".woff", ".woff2"].contains {
        lowered.hasSuffix($0)
      }
  }

  /// The installed face that best matches a fontconfig pattern (`"DejaVu Serif:bold"`,
  /// `"Noto Sans:style=Light"`).
  ///
  /// Fontconfig always answers with something; a match whose families do not include the
  /// pattern's family is refused, so a misspelled name is an error rather than a surprise
  /// font.
  public static func match(_ pattern: String, bundled: String? = nil) throws -> Entry {
    try withConfig(bundled: bundled) { config in
      guard let parsed = FcNameParse(pattern), !pattern.isEmpty else {
        throw EmbossError(
          "--font '\(pattern)' is not a font file or a fontconfig pattern such as 'DejaVu Serif:bold'"
        )
      }
      defer { FcPatternDestroy(parsed) }
      let wanted = strings(parsed, FC_FAMILY)
      let wantedStyles = strings(parsed, FC_STYLE)
      FcConfigSubstitute(config, parsed, FcMatchPattern)
      FcDefaultSubstitute(parsed)
      var result = FcResultNoMatch
      guard let found = FcFontMatch(config, parsed, &result), result == FcResultMatch else {
        throw EmbossError("no installed font matches '\(pattern)' (see emboss fonts)")
      }
      defer { FcPatternDestroy(found) }
      let families = strings(found, FC_FAMILY).map { $0.lowercased() }
      if let family = wanted.first, !families.contains(family.lowercased()) {
        var message = "no installed font family '\(family)'"
        let known = try list(nil, bundled: bundled).map(\.family)
        if let close = suggestion(for: family, among: Array(Set(known)).sorted()) {
          message += "; did you mean '\(close)'?"
        }
        throw EmbossError(message + " (emboss fonts lists them)")
      }
      // Fontconfig answers a style the family lacks with another face: a misspelled style
      // is an error too.
      let styles = strings(found, FC_STYLE).map { $0.lowercased() }
      if let style = wantedStyles.first, !styles.contains(style.lowercased()) {
        let family = strings(found, FC_FAMILY).first ?? wanted.first ?? pattern
        var message = "no style '\(style)' in the font family '\(family)'"
        let known = try list(family, bundled: bundled).map(\.style)
        if let close = suggestion(for: style, among: Array(Set(known)).sorted()) {
          message += "; did you mean '\(close)'?"
        } else if !known.isEmpty {
          message += " (it has: \(Array(Set(known)).sorted().joined(separator: ", ")))"
        }
        throw EmbossError(message)
      }
      guard let entry = entry(found) else {
        throw EmbossError("the font fontconfig found for '\(pattern)' has no file")
      }
      return entry
    }
  }

  /// Every installed face matching a pattern (nil: every face), sorted by family and style.
  public static func list(_ pattern: String?, bundled: String? = nil) throws -> [Entry] {
    try withConfig(bundled: bundled) { config in
      guard let parsed = FcNameParse(pattern ?? "") else {
        throw EmbossError(
          "'\(pattern ?? "")' is not a fontconfig pattern such as 'DejaVu Serif:bold'")
      }
      defer { FcPatternDestroy(parsed) }
      guard let objects = FcObjectSetCreate() else { return [] }
      defer { FcObjectSetDestroy(objects) }
      for name in [FC_FAMILY, FC_STYLE, FC_FILE, FC_INDEX, FC_FONTFORMAT] {
        _ = FcObjectSetAdd(objects, name)
      }
      guard let set = FcFontList(config, parsed, objects) else { return [] }
      defer { FcFontSetDestroy(set) }
      var entries: [Entry] = []
      for i in 0..<Int(set.pointee.nfont) {
        if let font = set.pointee.fonts[i], isOpenType(font), let entry = entry(font) {
          entries.append(entry)
        }
      }
      return Array(Set(entries)).sorted()
    }
  }

  /// Whether fontconfig says a face is TrueType or OpenType (CFF outlines in an OpenType
  /// file), the fonts emboss shapes: Type 1, PFR and bitmap fonts are left out of listings
  /// and fallbacks (`Font` refuses them by name).
  static func isOpenType(_ font: OpaquePointer) -> Bool {
    var value: UnsafeMutablePointer<FcChar8>?
    guard FcPatternGetString(font, FC_FONTFORMAT, 0, &value) == FcResultMatch, let value else {
      return true
    }
    let format = String(cString: value)
    return format == "TrueType" || format == "CFF"
  }

  /// Runs `body` with a fontconfig configuration of its own (the environment's
  /// `FONTCONFIG_FILE` applies), destroyed afterwards.
  private static func withConfig<T>(bundled: String?, _ body: (OpaquePointer) throws -> T)
    throws -> T
  {
    let config = try loadConfig(bundled: bundled)
    defer { FcConfigDestroy(config) }
    return try body(config)
  }

  /// The machine's fontconfig configuration, plus the bundled fonts' folder (so they are
  /// found by name and as fallback fonts on any machine).
  fileprivate static func loadConfig(bundled: String?) throws -> OpaquePointer {
    guard let config = FcInitLoadConfigAndFonts() else {
      throw EmbossError("cannot read the fontconfig configuration; give --font a font file")
    }
    if let bundled { _ = FcConfigAppFontAddDir(config, bundled) }
    return config
  }

  /// Finds fonts for characters the chosen font lacks, through fontconfig, as browsers do:
  /// the best installed match (the chosen font's weight and slant preferred) that has every
  /// one of them.
  ///
  /// Fontconfig is read on the first question only, so text the chosen font covers never
  /// depends on the machine's fonts. The faces are sorted once per weight and slant; each
  /// question then walks that list and checks coverage.
  public final class Fallback: @unchecked Sendable {
    private let bundled: String?
    private var config: OpaquePointer?
    private var failed = false
    /// Fontconfig's sorted faces for each (bold, italic): the set and its scalable faces'
    /// entries and character sets (owned by the set).
    private var sorted:
      [Int: (set: UnsafeMutablePointer<FcFontSet>, faces: [(Entry, OpaquePointer)])] =
        [:]
    private let lock = NSLock()

    /// `bundled`: the bundled fonts' folder, searched too.
    public init(bundled: String?) { self.bundled = bundled }

    deinit {
      for (set, _) in sorted.values { FcFontSetSortDestroy(set) }
      if let config { FcConfigDestroy(config) }
    }

    /// The best face with a glyph for every character of `scalars`, or nil.
    func face(covering scalars: [Unicode.Scalar], bold: Bool, italic: Bool) -> Entry? {
      lock.lock()
      defer { lock.unlock() }
      let faces = self.faces(bold: bold, italic: italic)
      return faces.first { _, charset in
        scalars.allSatisfy { FcCharSetHasChar(charset, $0.value) != 0 }
      }?.0
    }

    /// The scalable faces in fontconfig's order of preference for this weight and slant.
    private func faces(bold: Bool, italic: Bool) -> [(Entry, OpaquePointer)] {
      let key = (bold ? 1 : 0) + (italic ? 2 : 0)
      if let known = sorted[key] { return known.faces }
      if config == nil, !failed {
        config = try? FontCatalog.loadConfig(bundled: bundled)
        failed = config == nil
      }
      guard let config, let pattern = FcPatternCreate() else { return [] }
      defer { FcPatternDestroy(pattern) }
      _ = FcPatternAddBool(pattern, FC_SCALABLE, 1)
      _ = FcPatternAddInteger(pattern, FC_WEIGHT, bold ? Int32(FC_WEIGHT_BOLD) : 80)
      _ = FcPatternAddInteger(pattern, FC_SLANT, italic ? Int32(FC_SLANT_ITALIC) : 0)
      FcConfigSubstitute(config, pattern, FcMatchPattern)
      FcDefaultSubstitute(pattern)
      var result = FcResultNoMatch
      guard let set = FcFontSort(config, pattern, 0, nil, &result) else { return [] }
      var faces: [(Entry, OpaquePointer)] = []
      for i in 0..<Int(set.pointee.nfont) {
        guard let font = set.pointee.fonts[i] else { continue }
        var scalable: FcBool = 0
        var charset: OpaquePointer?
        guard FcPatternGetBool(font, FC_SCALABLE, 0, &scalable) == FcResultMatch, scalable != 0,
          FontCatalog.isOpenType(font),
          FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) == FcResultMatch, let charset,
          let entry = FontCatalog.entry(font)
        else { continue }
        faces.append((entry, charset))
      }
      sorted[key] = (set, faces)
      return faces
    }
  }

  private static func entry(_ pattern: OpaquePointer) -> Entry? {
    guard let path = strings(pattern, FC_FILE).first else { return nil }
    var index: Int32 = 0
    _ = FcPatternGetInteger(pattern, FC_INDEX, 0, &index)
    return Entry(
      family: strings(pattern, FC_FAMILY).first ?? "",
      style: strings(pattern, FC_STYLE).first ?? "",
      path: path, index: Int(index))
  }

  /// Every value of a string property.
  private static func strings(_ pattern: OpaquePointer, _ object: String) -> [String] {
    var values: [String] = []
    var n: Int32 = 0
    while true {
      var value: UnsafeMutablePointer<FcChar8>?
      guard FcPatternGetString(pattern, object, n, &value) == FcResultMatch, let value else {
        break
      }
      values.append(String(cString: value))
      n += 1
    }
    return values
  }
}
