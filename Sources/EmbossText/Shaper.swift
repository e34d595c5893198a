import CHarfBuzz
import EmbossSupport
import Foundation

/// A glyph placed by a shaper: a glyph of a font and its pen position on the line, in
/// pixels: x to the right of the line's start, y up from the baseline (mark offsets).
public struct ShapedGlyph: Sendable, Equatable {
  /// The font the glyph is from.
  public var font: Font
  /// The glyph's index in the font.
  public var glyph: UInt32
  /// The pen position, in pixels to the right of the line's start.
  public var x: Double
  /// The offset up from the baseline, in pixels (marks).
  public var y: Double

  /// A glyph placed at (x, y).
  public init(font: Font, glyph: UInt32, x: Double, y: Double = 0) {
    self.font = font
    self.glyph = glyph
    self.x = x
    self.y = y
  }

  /// Whether both are the same glyph of the same font object at the same place.
  public static func == (a: ShapedGlyph, b: ShapedGlyph) -> Bool {
    a.font === b.font && a.glyph == b.glyph && a.x == b.x && a.y == b.y
  }
}

/// One line of text, shaped: its glyphs in visual order (left to right), its advance width
/// and its paragraph direction.
public struct ShapedLine: Sendable, Equatable {
  /// The glyphs in visual order, left to right.
  public var glyphs: [ShapedGlyph]
  /// The line's advance width in pixels.
  public var width: Double
  /// Whether the paragraph direction is right to left.
  public var rightToLeft: Bool

  /// A shaped line.
  public init(glyphs: [ShapedGlyph], width: Double, rightToLeft: Bool = false) {
    self.glyphs = glyphs
    self.width = width
    self.rightToLeft = rightToLeft
  }
}

/// Turns one line of text into positioned glyphs: the seam between shaping (which glyphs of
/// which font, where) and rasterizing (drawing them at their exact sub-pixel positions,
/// `TextLayout`).
///
/// The fonts are already set to the style's size. A shaper throws for a character it cannot
/// set (a control character); characters no font has are recorded in `fonts.missing`.
public protocol Shaper: Sendable {
  func shape(_ line: Substring, fonts: FontSet, style: TextStyle) throws -> ShapedLine
}

/// Shaping as browsers do it, with HarfBuzz: the line is split into runs of one direction
/// (the Unicode Bidirectional Algorithm, FriBidi), one script and one font (fallback per
/// grapheme cluster), each run shaped with its neighbours as context (Arabic joins across a
/// font change), and the runs placed in visual order.
///
/// GPOS kerning and mark positioning, GSUB ligatures and contextual forms, the complex
/// scripts' reordering and the style's font features all come from HarfBuzz; the legacy
/// `kern` table is used where a font has no GPOS kerning.
public struct HarfBuzzShaper: Shaper {
  /// A shaper; it holds no state.
  public init() {}

  /// A maximal range of characters with one level, script and font.
  private struct Run {
    var start: Int
    var end: Int
    var level: Int
    var script: hb_script_t
    var font: Int
  }

  /// Shapes one line (no newline) in `fonts` and `style`.
  ///
  /// - Throws: `EmbossError` when a character is in no font.
  public func shape(_ line: Substring, fonts: FontSet, style: TextStyle) throws -> ShapedLine {
    let scalars = Array(line.unicodeScalars)
    for scalar in scalars
    where scalar == "\t" || scalar.properties.generalCategory == .control {
      throw EmbossError(
        "text contains the control character U+\(hex(scalar)); only line breaks are allowed")
    }
    let codes = scalars.map(\.value)
    let (levels, rightToLeft) = Bidi.levels(codes, direction: style.direction)
    guard !scalars.isEmpty else {
      return ShapedLine(glyphs: [], width: 0, rightToLeft: rightToLeft)
    }

    // The font of each character, chosen per grapheme cluster.
    var fontOf = [Int](repeating: 0, count: scalars.count)
    var offset = 0
    for cluster in line {
      let count = cluster.unicodeScalars.count
      let font = fonts.font(for: cluster) ?? 0
      for i in offset..<offset + count { fontOf[i] = font }
      offset += count
    }
    let scripts = Self.scripts(codes)

    var runs: [Run] = []
    for i in scalars.indices {
      if let last = runs.last, last.level == levels[i], last.script == scripts[i],
        last.font == fontOf[i]
      {
        runs[runs.count - 1].end = i + 1
      } else {
        runs.append(
          Run(start: i, end: i + 1, level: levels[i], script: scripts[i], font: fontOf[i]))
      }
    }

    // Letter spacing breaks ligatures apart, as in browsers: the optional ones are off.
    var features: [hb_feature_t] = []
    if style.letterSpacing != 0 {
      for tag in ["liga", "clig", "dlig", "hlig"] {
        features.append(hb_feature_t(tag: FontTag.tag(tag), value: 0, start: 0, end: UInt32.max))
      }
    }
    features += style.features.harfBuzz

    var glyphs: [ShapedGlyph] = []
    var penX = 0.0
    var previousCluster: (run: Int, cluster: UInt32)? = nil
    let buffer = hb_buffer_create()
    defer { hb_buffer_destroy(buffer) }
    for runIndex in Bidi.visualOrder(levels: runs.map(\.level)) {
      let run = runs[runIndex]
      let font = fonts.fonts[run.font]
      hb_buffer_clear_contents(buffer)
      hb_buffer_add_utf32(
        buffer, codes, Int32(codes.count), UInt32(run.start), Int32(run.end - run.start))
      hb_buffer_set_direction(buffer, run.level % 2 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
      hb_buffer_set_script(buffer, run.script)
      var flags = HB_BUFFER_FLAG_DEFAULT.rawValue
      if run.start == 0 { flags |= HB_BUFFER_FLAG_BOT.rawValue }
      if run.end == codes.count { flags |= HB_BUFFER_FLAG_EOT.rawValue }
      hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: flags))
      hb_shape(font.shapingFont, buffer, features, UInt32(features.count))
      var count: UInt32 = 0
      guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
        let positions = hb_buffer_get_glyph_positions(buffer, &count)
      else { continue }
      let scale = Double(style.pixelSize) / font.shapingScale
      for g in 0..<Int(count) {
        let info = infos[g]
        let position = positions[g]
        // Letter spacing goes between clusters (a ligature or a letter with its marks is one).
        if let previous = previousCluster,
          previous.run != runIndex || previous.cluster != info.cluster
        {
          penX += Double(style.letterSpacing)
        }
        previousCluster = (runIndex, info.cluster)
        glyphs.append(
          ShapedGlyph(
            font: font, glyph: info.codepoint, x: penX + Double(position.x_offset) * scale,
            y: Double(position.y_offset) * scale))
        penX += Double(position.x_advance) * scale
      }
    }
    return ShapedLine(glyphs: glyphs, width: penX, rightToLeft: rightToLeft)
  }

  /// Each character's script, with Common and Inherited characters (spaces, digits,
  /// punctuation, marks) taking the script of the text around them: the previous real
  /// script, or for leading ones the first.
  static func scripts(_ codes: [UInt32]) -> [hb_script_t] {
    let funcs = hb_unicode_funcs_get_default()
    var scripts = codes.map { hb_unicode_script(funcs, $0) }
    let neutral: Set<UInt32> = [
      HB_SCRIPT_COMMON.rawValue, HB_SCRIPT_INHERITED.rawValue, HB_SCRIPT_UNKNOWN.rawValue,
    ]
    var current = scripts.first { !neutral.contains($0.rawValue) } ?? HB_SCRIPT_COMMON
    for i in scripts.indices {
      if neutral.contains(scripts[i].rawValue) {
        scripts[i] = current
      } else {
        current = scripts[i]
      }
    }
    return scripts
  }
}

/// A scalar's code point as at least four hex digits.
func hex(_ scalar: Unicode.Scalar) -> String {
  let s = String(scalar.value, radix: 16, uppercase: true)
  return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
