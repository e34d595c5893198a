import EmbossKit
import XCTest

@testable import EmbossText

/// Shaping by real properties of the bundled fonts (Fonts/README.md): GPOS kerning values
/// read from the fonts' tables, the glyphs HarfBuzz picks for ligatures, Arabic joining
/// forms and Devanagari conjuncts, visual order of mixed lines, marks over their base.
final class ShapingTests: XCTestCase {
  static func font(_ name: String, index: Int = 0) throws -> Font {
    try Font(path: Fixtures.root.appendingPathComponent("Fonts/\(name)").path, index: index)
  }

  /// One line shaped in `font` alone (no fallback).
  func shape(_ text: String, _ font: Font, style: TextStyle = TextStyle(pixelSize: 100)) throws
    -> ShapedLine
  {
    let fonts = try FontSet(primary: font, fallback: nil, style: style)
    let line = try HarfBuzzShaper().shape(Substring(text), fonts: fonts, style: style)
    XCTAssertTrue(fonts.missing.isEmpty, "missing \(fonts.missing)")
    return line
  }

  func names(_ line: ShapedLine) -> [String] {
    line.glyphs.map { $0.font.glyphName($0.glyph) ?? "?" }
  }

  /// Noto Serif kerns only through GPOS (no `kern` table): "AV" is -80 units and "To" -30
  /// units of its 1000-unit em (read from its GPOS pair table), so at 100 px the pair is 8 px
  /// and 3 px narrower than its advances, and `kern=0` sets it by advances alone.
  func testGPOSKerningMatchesTheFontsPairValues() throws {
    let serif = try Self.font("NotoSerif-Bold.ttf")
    XCTAssertFalse(serif.hasKerning, "no legacy kern table")
    for (pair, units) in [("AV", -80.0), ("To", -30.0)] {
      let kerned = try shape(pair, serif).width
      let first = try shape(String(pair.first!), serif).width
      let second = try shape(String(pair.last!), serif).width
      XCTAssertEqual(kerned - (first + second), units / 10, accuracy: 1e-6, pair)
      let off = try shape(
        pair, serif,
        style: TextStyle(pixelSize: 100, features: try FontFeatures(parsing: "kern=0")))
      XCTAssertEqual(off.width, first + second, accuracy: 1e-6, pair)
    }
  }

  /// The legacy `kern` table still kerns fonts that have no GPOS kerning for a pair.
  func testLegacyKerningStillApplies() throws {
    let font = try Fixtures.font()
    let pair = try shape("AV", font).width
    let apart = try shape("A", font).width + shape("V", font).width
    XCTAssertLessThan(pair, apart - 4)
  }

  /// `ffi` becomes the font's one `f_f_i` glyph; `liga=0` keeps the three letters, and letter
  /// spacing turns optional ligatures off as browsers do.
  func testLigatureGlyphReplacesItsLetters() throws {
    let serif = try Self.font("NotoSerif-Bold.ttf")
    XCTAssertEqual(names(try shape("office", serif)), ["o", "f_f_i", "c", "e"])
    let off = try shape(
      "office", serif,
      style: TextStyle(pixelSize: 100, features: try FontFeatures(parsing: "liga=0")))
    XCTAssertEqual(names(off), ["o", "f", "f", "i", "c", "e"])
    let spaced = try shape("office", serif, style: TextStyle(pixelSize: 100, letterSpacing: 5))
    XCTAssertEqual(spaced.glyphs.count, 6)
    XCTAssertEqual(spaced.width, off.width + 5 * 5, accuracy: 1e-6)
    let small = try shape(
      "a", serif, style: TextStyle(pixelSize: 100, features: try FontFeatures(parsing: "smcp")))
    XCTAssertEqual(names(small), ["a.sc"])
  }

  /// Arabic joins: seen-meem-ain takes the initial, medial and final forms (the font's
  /// presentation-form glyphs), laid out right to left: the final form is leftmost.
  func testArabicJoiningForms() throws {
    let arabic = try Self.font("NotoSansArabic-Bold.ttf")
    let line = try shape("سمع", arabic)
    XCTAssertTrue(line.rightToLeft)
    XCTAssertEqual(names(line), ["uniFECA", "uniFEE4", "uniFEB3"])
    XCTAssertEqual(line.glyphs.map(\.x), line.glyphs.map(\.x).sorted())
    // Each letter alone is its isolated form.
    XCTAssertEqual(names(try shape("س", arabic)), ["uni0633"])
  }

  /// Devanagari: ka + virama + ssa is the one conjunct glyph; a pre-base matra (i) is drawn
  /// before its consonant.
  func testDevanagariConjunctAndReordering() throws {
    let devanagari = try Self.font("NotoSansDevanagari-Bold.ttf")
    XCTAssertEqual(names(try shape("क्ष", devanagari)), ["kassadeva"])
    let ki = names(try shape("कि", devanagari))
    XCTAssertEqual(ki.count, 2)
    XCTAssertEqual(ki.last, "kadeva")
    XCTAssertTrue(ki.first?.hasPrefix("ivowelsign") ?? false, "\(ki)")
  }

  /// A mixed line in visual order (UAX #9), in the bundled font.
  ///
  /// In a left-to-right paragraph the Hebrew word and the number after it form one right-to-left sequence, so
  /// the digits come right after the Latin word, then the Hebrew letters from last to first.
  /// In a right-to-left paragraph the number comes first and the Latin word last.
  func testMixedLineVisualOrder() throws {
    let font = try Fixtures.font()
    let text = "ab שלום 12"
    func visual(_ direction: TextDirection) throws -> String {
      let line = try shape(text, font, style: TextStyle(pixelSize: 100, direction: direction))
      XCTAssertEqual(line.rightToLeft, direction == .rtl)
      XCTAssertEqual(line.glyphs.map(\.x), line.glyphs.map(\.x).sorted())
      let byGlyph = Dictionary(
        text.unicodeScalars.map { (font.glyphIndex(for: $0)!, Character($0)) },
        uniquingKeysWith: { a, _ in a })
      return String(line.glyphs.map { byGlyph[$0.glyph] ?? "?" })
    }
    XCTAssertEqual(try visual(.auto), "ab 12 םולש")
    XCTAssertEqual(try visual(.ltr), "ab 12 םולש")
    XCTAssertEqual(try visual(.rtl), "12 םולש ab")
    // auto: the first strong letter decides.
    XCTAssertTrue(try shape("שלום ab", font).rightToLeft)
    XCTAssertFalse(try shape("ab שלום", font).rightToLeft)
    XCTAssertFalse(try shape("123", font).rightToLeft)
  }

  /// A combining accent sits over its letter (X has no precomposed form with it, so the
  /// font's mark attachment places it): it adds no advance and its ink lies above the X's.
  func testMarkIsPositionedOverItsBase() throws {
    let serif = try Self.font("NotoSerif-Bold.ttf")
    let line = try shape("X\u{0301}", serif)
    XCTAssertEqual(line.glyphs.count, 2)
    let e = try shape("X", serif)
    XCTAssertEqual(line.width, e.width, accuracy: 1e-6, "the mark adds no advance")
    let layout = try TextLayout(
      text: "X\u{0301}", font: serif, style: TextStyle(pixelSize: 100, padding: 0))
    let plain = try TextLayout(text: "X", font: serif, style: TextStyle(pixelSize: 100, padding: 0))
    // Same width of ink (the accent lies within the E's span), taller by the accent.
    XCTAssertLessThanOrEqual(
      layout.exactInk.maxX - layout.exactInk.minX, plain.exactInk.maxX - plain.exactInk.minX)
    XCTAssertGreaterThan(
      layout.exactInk.maxY - layout.exactInk.minY, plain.exactInk.maxY - plain.exactInk.minY + 10)
  }

  /// Alignment `start`/`end` follows each line's direction; `left`/`right` stay literal.
  func testStartAndEndFollowTheLineDirection() throws {
    let font = try Fixtures.font()
    func lineInk(_ alignment: TextAlignment) throws -> Double {
      let layout = try TextLayout(
        text: "aaaaaaaa\nשש", font: font,
        style: TextStyle(pixelSize: 40, alignment: alignment, padding: 0))
      // The second line's ink: its leftmost inked column, below the first line's baseline.
      let mask = layout.rasterize()
      var left = mask.width
      for y in (layout.firstBaseline + 15)..<mask.height {
        for x in 0..<mask.width where mask[x, y] > 0.5 { left = min(left, x) }
      }
      return Double(left)
    }
    XCTAssertGreaterThan(try lineInk(.start), try lineInk(.left) + 100)
    XCTAssertEqual(try lineInk(.start), try lineInk(.right), accuracy: 1)
    XCTAssertEqual(try lineInk(.end), try lineInk(.left), accuracy: 1)
  }

  /// Variations reach both shaping and outlines: Inter at wght=900 is wider and darker than
  /// at 100.
  func testVariationsChangeAdvancesAndOutlines() throws {
    let inter = try Self.font("Inter-Variable.ttf")
    XCTAssertEqual(inter.axes.map(\.tag), ["wght"])
    func render(_ weight: String) throws -> (width: Double, ink: Float) {
      let style = TextStyle(pixelSize: 60, variations: try FontVariations(parsing: weight))
      let layout = try TextLayout(
        text: "Hamburg", font: try Self.font("Inter-Variable.ttf"), style: style)
      return (
        try shape("Hamburg", try Self.font("Inter-Variable.ttf"), style: style).width,
        layout.rasterize().plane.pixels.reduce(0, +)
      )
    }
    let thin = try render("wght=100")
    let black = try render("wght=900")
    XCTAssertGreaterThan(black.width, thin.width * 1.05)
    XCTAssertGreaterThan(black.ink, thin.ink * 2)
  }

  /// A font's weight as set, which picks a bold or regular fallback font: a variable font's
  /// `wght` (Inter is flagged regular at any weight), else the OS/2 weight class.
  func testWeightIsTheWeightTheFontIsSetAt() throws {
    let inter = try Self.font("Inter-Variable.ttf")
    XCTAssertEqual(inter.weight, 400, accuracy: 0.5)
    inter.apply(try FontVariations(parsing: "wght=900"))
    XCTAssertEqual(inter.weight, 900, accuracy: 0.5)
    XCTAssertFalse(inter.isBold, "the style flag stays regular")
    XCTAssertEqual(try Self.font("DejaVuSans-Bold.ttf").weight, 700)
    XCTAssertEqual(try Self.font("NotoSerif-Bold.ttf").weight, 700)
  }

  func testFeatureAndVariationErrors() throws {
    let serif = try Self.font("NotoSerif-Bold.ttf")
    func message(_ style: TextStyle, font: Font) -> String? {
      do {
        _ = try TextLayout(text: "a", font: font, style: style)
        return nil
      } catch { return (error as? EmbossError)?.message }
    }
    let typo =
      message(
        TextStyle(features: try FontFeatures(parsing: "smcq")), font: serif) ?? ""
    XCTAssertTrue(
      typo.hasPrefix("font 'Noto Serif Bold' has no OpenType feature 'smcq'; did you mean 'smcp'?"),
      typo)
    // Turning off a feature the font lacks is harmless.
    XCTAssertNil(message(TextStyle(features: try FontFeatures(parsing: "ss20=0")), font: serif))
    XCTAssertEqual(
      message(TextStyle(variations: try FontVariations(parsing: "wght=500")), font: serif),
      "font 'Noto Serif Bold' is not a variable font; it has no axes to set")
    let inter = try Self.font("Inter-Variable.ttf")
    XCTAssertEqual(
      message(TextStyle(variations: try FontVariations(parsing: "wdth=80")), font: inter),
      "font 'Inter' has no variation axis 'wdth' (its axes: wght 100...900)")
    XCTAssertEqual(
      message(TextStyle(variations: try FontVariations(parsing: "wght=1000")), font: inter),
      "wght=1000 is outside font 'Inter''s range 100...900")
    XCTAssertThrowsError(try FontFeatures(parsing: "liga=,"))
    XCTAssertThrowsError(try FontVariations(parsing: "wght"))
    XCTAssertEqual(
      try FontFeatures(parsing: "-liga, smcp,ss01=1").items, ["-liga", "smcp", "ss01"])
  }

  /// A collection's faces by index; an index past the end is named as such.
  func testCollectionFaces() throws {
    XCTAssertEqual(try Self.font("Collection.ttc").name, "Noto Serif Bold")
    XCTAssertEqual(try Self.font("Collection.ttc", index: 1).name, "Noto Sans Hebrew Bold")
    XCTAssertThrowsError(try Self.font("Collection.ttc", index: 2)) { error in
      XCTAssertEqual(
        (error as? EmbossError)?.message,
        "font '\(Fixtures.root.path)/Fonts/Collection.ttc' has 2 faces (index 0...1); there is no face 2"
      )
    }
  }
}
