import CFreeType
import EmbossSupport
import Foundation

/// A glyph placed by a shaper: a glyph of the font and its pen position on the line, in
/// pixels: x to the right of the line's start, y up from the baseline (mark offsets).
public struct ShapedGlyph: Sendable, Equatable {
  public var glyph: UInt32
  public var x: Double
  public var y: Double

  public init(glyph: UInt32, x: Double, y: Double = 0) {
    self.glyph = glyph
    self.x = x
    self.y = y
  }
}

/// One line of text, shaped: its glyphs in drawing order and its advance width.
public struct ShapedLine: Sendable, Equatable {
  public var glyphs: [ShapedGlyph]
  public var width: Double

  public init(glyphs: [ShapedGlyph], width: Double) {
    self.glyphs = glyphs
    self.width = width
  }
}

/// Turns one line of text into positioned glyphs: the seam between shaping (which glyphs,
/// where) and rasterizing (drawing them at their exact sub-pixel positions, `TextLayout`).
///
/// The font is already set to the style's pixel size. A shaper throws for a character it
/// cannot set (a control character, a glyph the font lacks).
public protocol Shaper: Sendable {
  func shape(_ line: Substring, font: Font, style: TextStyle) throws -> ShapedLine
}

/// One glyph per character from the font's character map, each placed at the previous one's
/// advance plus the letter spacing and the pair's kerning from the legacy `kern` table.
public struct KernTableShaper: Shaper {
  public init() {}

  public func shape(_ line: Substring, font: Font, style: TextStyle) throws -> ShapedLine {
    let face = font.face
    var glyphs: [ShapedGlyph] = []
    var penX = 0.0
    var previous: UInt32? = nil
    for scalar in line.unicodeScalars {
      if scalar == "\t" || scalar.properties.generalCategory == .control {
        throw EmbossError(
          "text contains the control character U+\(hex(scalar)); only line breaks are allowed")
      }
      guard let index = font.glyphIndex(for: scalar) else {
        throw EmbossError(
          "font '\(font.name)' (\(font.path)) has no glyph for '\(Character(scalar))' (U+\(hex(scalar)))"
        )
      }
      if let previous, font.hasKerning {
        var kern = FT_Vector()
        if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_UNFITTED.rawValue), &kern) == 0
        {
          penX += Double(kern.x) / 64
        }
      }
      let status = FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP))
      guard status == 0, let slot = face.pointee.glyph else {
        throw EmbossError(
          "cannot load glyph for '\(Character(scalar))' from '\(font.path)': \(FreeTypeError.message(status))"
        )
      }
      glyphs.append(ShapedGlyph(glyph: index, x: penX))
      penX += Double(slot.pointee.linearHoriAdvance) / 65536 + Double(style.letterSpacing)
      previous = index
    }
    if !glyphs.isEmpty { penX -= Double(style.letterSpacing) }
    return ShapedLine(glyphs: glyphs, width: penX)
  }
}

/// A scalar's code point as at least four hex digits.
func hex(_ scalar: Unicode.Scalar) -> String {
  let s = String(scalar.value, radix: 16, uppercase: true)
  return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
