import EmbossKit
import XCTest

@testable import EmbossText

final class TextLayoutTests: XCTestCase {
  func testRasterizesAntiAliasedCoverageWithPadding() throws {
    let layout = try TextLayout(
      text: "Hi", font: Fixtures.font(), style: TextStyle(pixelSize: 40, padding: 5))
    let mask = layout.rasterize()
    XCTAssertEqual(mask.inkBounds.x, 5)
    XCTAssertEqual(mask.inkBounds.y, 5)
    XCTAssertEqual(mask.width, mask.inkBounds.width + 10)
    XCTAssertEqual(mask.plane.bounds(above: 0), mask.inkBounds)
    XCTAssertEqual(mask.plane.pixels.max(), 1)
    XCTAssertTrue(mask.plane.pixels.contains { $0 > 0.1 && $0 < 0.9 }, "edges are anti-aliased")
  }

  /// On a large canvas a text mask stores only its glyphs' window: every pixel outside it
  /// reads 0, the canvas's plane made from it holds the same coverage as drawing the glyphs
  /// into the whole canvas would (its ink bounds and its sum), and mirroring keeps it.
  func testTextMaskStoresItsGlyphsWindow() throws {
    let layout = try TextLayout(
      text: "Wavy", font: Fixtures.font(), style: TextStyle(pixelSize: 60),
      canvas: CanvasSize(width: 900, height: 500))
    let mask = layout.rasterize()
    XCTAssertLessThan(mask.window.width * mask.window.height, 900 * 500 / 4)
    XCTAssertEqual(mask.window.intersection(mask.inkBounds), mask.inkBounds)
    let plane = mask.plane
    XCTAssertEqual(plane.width, 900)
    XCTAssertEqual(plane.height, 500)
    XCTAssertEqual(plane.bounds(above: 0), mask.inkBounds)
    XCTAssertEqual(
      plane.pixels.reduce(0, +), mask.windowCoverage.pixels.reduce(0, +), accuracy: 1e-3)
    for (x, y) in [(0, 0), (899, 499), (mask.window.x - 1, mask.window.y), (450, 499)] {
      XCTAssertEqual(mask[x, y], 0, "(\(x), \(y)) lies outside the window")
    }
    for y in stride(from: mask.window.y, to: mask.window.maxY, by: 7) {
      for x in stride(from: mask.window.x, to: mask.window.maxX, by: 5) {
        XCTAssertEqual(mask[x, y], plane[x, y])
      }
    }
    let mirrored = mask.mirrored()
    XCTAssertEqual(mirrored.plane, plane.mirrored())
    XCTAssertEqual(mirrored.mirrored(), mask)
  }

  func testMissingGlyphNamesCharacterAndFont() throws {
    XCTAssertThrowsError(
      try TextLayout(text: "a\u{0F00}", font: Fixtures.font(), style: TextStyle())
    ) { error in
      XCTAssertEqual(
        (error as? EmbossError)?.message,
        "font 'DejaVu Sans Bold' (\(Fixtures.fontPath)) has no glyph for '\u{0F00}' (U+0F00) (fallback fonts are off)"
      )
    }
  }

  func testEmptyOrBlankTextIsAnError() throws {
    for text in ["", "   ", "\n\n"] {
      XCTAssertThrowsError(try TextLayout(text: text, font: Fixtures.font(), style: TextStyle())) {
        error in
        XCTAssertEqual(
          (error as? EmbossError)?.message, "the text renders no ink (it is empty or only spaces)")
      }
    }
  }

  func testAlignmentMovesShortLines() throws {
    let font = try Fixtures.font()
    func firstInkColumnOfLastLine(_ alignment: TextAlignment) throws -> Int {
      let mask = try TextLayout(
        text: "WWWWW\nI", font: font,
        style: TextStyle(pixelSize: 30, alignment: alignment, padding: 4)
      ).rasterize()
      let lastRow = mask.inkBounds.maxY - 3
      return (0..<mask.width).first { mask[$0, lastRow] > 0.5 } ?? -1
    }
    let left = try firstInkColumnOfLastLine(.left)
    let center = try firstInkColumnOfLastLine(.center)
    let right = try firstInkColumnOfLastLine(.right)
    XCTAssertLessThan(left, center)
    XCTAssertLessThan(center, right)
  }

  func testLineHeightAndLetterSpacingGrowTheBlock() throws {
    let font = try Fixtures.font()
    let base = try TextLayout(text: "AB\nCD", font: font, style: TextStyle(pixelSize: 30))
    let spaced = try TextLayout(
      text: "AB\nCD", font: font, style: TextStyle(pixelSize: 30, letterSpacing: 10, lineHeight: 2))
    XCTAssertEqual(spaced.inkBounds.width, base.inkBounds.width + 10, accuracy: 1)
    XCTAssertGreaterThan(spaced.inkBounds.height, base.inkBounds.height + 25)
  }

  func testKerningTightensPairsTheFontKerns() throws {
    let font = try Fixtures.font()
    XCTAssertTrue(font.hasKerning, "DejaVu ships a kern table")
    // "AV" is kerned in DejaVu Sans Bold: its ink is narrower than A and V set apart by advances.
    let kerned = try TextLayout(text: "AV", font: font, style: TextStyle(pixelSize: 100)).inkBounds
      .width
    let spaced = try TextLayout(text: "A V", font: font, style: TextStyle(pixelSize: 100)).inkBounds
      .width
    let space = try TextLayout(text: "A\u{00A0}V", font: font, style: TextStyle(pixelSize: 100))
      .inkBounds.width
    XCTAssertEqual(spaced, space)
    let a = try TextLayout(text: "A", font: font, style: TextStyle(pixelSize: 100)).inkBounds.width
    XCTAssertLessThan(kerned, a * 2)
    // A real margin: "A V" less the space's advance ("A A" less "AA") is the pair set by
    // advances alone; DejaVu Sans Bold kerns AV by about 6 px at 100 px.
    let width = { (text: String) in
      try TextLayout(text: text, font: font, style: TextStyle(pixelSize: 100)).inkBounds.width
    }
    let unkerned = spaced - (try width("A A") - width("AA"))
    XCTAssertLessThanOrEqual(kerned, unkerned - 4, "kerned \(kerned), by advances \(unkerned)")
  }

  func testFixedCanvasCentersTheInk() throws {
    let layout = try TextLayout(
      text: "O", font: Fixtures.font(), style: TextStyle(pixelSize: 40),
      canvas: CanvasSize(width: 200, height: 100))
    XCTAssertEqual(layout.canvasWidth, 200)
    XCTAssertEqual(layout.canvasHeight, 100)
    let ink = layout.inkBounds
    XCTAssertEqual(Double(ink.x) + Double(ink.width) / 2, 100, accuracy: 1)
    XCTAssertEqual(Double(ink.y) + Double(ink.height) / 2, 50, accuracy: 1)
    XCTAssertThrowsError(
      try TextLayout(
        text: "WIDE TEXT", font: Fixtures.font(), style: TextStyle(pixelSize: 40),
        canvas: CanvasSize(width: 50, height: 50)))
  }

  func testFontErrors() throws {
    XCTAssertThrowsError(try Font(path: "/nonexistent/font.ttf")) { error in
      XCTAssertEqual(
        (error as? EmbossError)?.message, "font file '/nonexistent/font.ttf' does not exist")
    }
    let notAFont = Fixtures.root.appendingPathComponent("Package.swift").path
    XCTAssertThrowsError(try Font(path: notAFont)) { error in
      XCTAssertEqual(
        (error as? EmbossError)?.message,
        "cannot load font '\(notAFont)': unknown file format (not a font FreeType can read)")
    }
  }

  func testAbsurdSizesAreRefused() throws {
    let font = try Fixtures.font()
    for size: Float in [0, -1, .nan, .infinity, 1e9] {
      XCTAssertThrowsError(
        try TextLayout(text: "A", font: font, style: TextStyle(pixelSize: size)), "\(size)")
    }
    XCTAssertThrowsError(
      try TextLayout(
        text: "A", font: font, style: TextStyle(pixelSize: 2000),
        limits: RenderLimits(maxPixels: 1000))
    ) { error in
      XCTAssertTrue((error as? EmbossError)?.message.contains("--max-pixels") ?? false)
    }
  }

  /// `--height` is exact, to a fraction of a pixel: the ink's outline box is that tall.
  func testFittingIsExact() throws {
    let font = try Fixtures.font()
    for height in [37.3, 80.0, 151.6] {
      let layout = try TextLayout.fitting(
        inkHeight: height, text: "Hxg", font: font, style: TextStyle())
      XCTAssertEqual(layout.exactInk.maxY - layout.exactInk.minY, height, accuracy: 0.01)
    }
  }

  /// Fitting the cap height makes an H exactly that tall, whatever the text.
  ///
  /// The cap height is OS/2's `sCapHeight` (Noto Serif Bold: 714 of 1000 units), else the top
  /// of the H's outline (DejaVu Sans Bold's OS/2 table is version 1, without one).
  func testCapHeightFittingIsExact() throws {
    let serif = try Font(path: Fixtures.resources.fontsDirectory + "/NotoSerif-Bold.ttf")
    XCTAssertEqual(serif.capHeight, 0.714)
    let sans = try Fixtures.font()
    let perEm = try XCTUnwrap(sans.capHeight)
    let h = try TextLayout(text: "H", font: sans, style: TextStyle(pixelSize: 100))
    XCTAssertEqual(h.exactInk.maxY - h.exactInk.minY, 100 * perEm, accuracy: 0.01)
    for font in [serif, sans] {
      for capHeight in [23.7, 60.0, 151.6] {
        let layout = try TextLayout.fitting(
          capHeight: capHeight, text: "H", font: font, style: TextStyle())
        XCTAssertEqual(
          layout.exactInk.maxY - layout.exactInk.minY, capHeight, accuracy: 0.01, font.name)
      }
      // Any text with a capital: its top is the cap height above the (whole-pixel) baseline.
      for text in ["Hag", "Hace"] {
        let layout = try TextLayout.fitting(
          capHeight: 60, text: text, font: font, style: TextStyle())
        XCTAssertEqual(
          Double(layout.firstBaseline) - layout.exactInk.minY, 60, accuracy: 0.5, text)
      }
    }
    XCTAssertThrowsError(
      try TextLayout.fitting(capHeight: 0.5, text: "H", font: sans, style: TextStyle()))
    XCTAssertThrowsError(
      try TextLayout.fitting(capHeight: 9000, text: "H", font: sans, style: TextStyle())
    ) { error in
      XCTAssertTrue(
        (error as? EmbossError)?.message.contains("sizes must be 1...10000") ?? false, "\(error)")
    }
  }

  /// Twice the size is exactly twice the layout: the ink's outline box and its padding scale,
  /// with no snapping to whole pixels.
  func testTwiceTheSizeIsTwiceTheLayout() throws {
    let font = try Fixtures.font()
    let one = try TextLayout(
      text: "Wave", font: font, style: TextStyle(pixelSize: 41.3, padding: 7.7))
    let two = try TextLayout(
      text: "Wave", font: font, style: TextStyle(pixelSize: 82.6, padding: 15.4))
    XCTAssertEqual(two.exactInk.minX, 2 * one.exactInk.minX, accuracy: 0.02)
    XCTAssertEqual(two.exactInk.minY, 2 * one.exactInk.minY, accuracy: 0.02)
    XCTAssertEqual(two.exactInk.maxX, 2 * one.exactInk.maxX, accuracy: 0.04)
    XCTAssertEqual(two.exactInk.maxY, 2 * one.exactInk.maxY, accuracy: 0.04)
  }

  /// Command-line escapes: `\n` is a newline, `\\` one backslash, any other backslash itself.
  func testCommandLineEscapes() {
    XCTAssertEqual(TextMask.unescaped(#"One\nTwo"#), "One\nTwo")
    XCTAssertEqual(TextMask.unescaped(#"C:\\new"#), #"C:\new"#)
    XCTAssertEqual(TextMask.unescaped(#"a\b\"#), #"a\b\"#)
    XCTAssertEqual(TextMask.unescaped(#"\\\n"#), "\\\n")
  }

  /// The layout draws what the shaper placed, where it placed it.
  ///
  /// This is the seam between shaping and rasterizing: a shaper that raises the second glyph
  /// by 10 px moves its ink up 10 px.
  func testLayoutDrawsTheShapersPositions() throws {
    struct Raised: Shaper {
      func shape(_ line: Substring, fonts: FontSet, style: TextStyle) throws -> ShapedLine {
        var shaped = try HarfBuzzShaper().shape(line, fonts: fonts, style: style)
        if shaped.glyphs.count > 1 { shaped.glyphs[1].y += 10 }
        return shaped
      }
    }
    let font = try Fixtures.font()
    let style = TextStyle(pixelSize: 40, padding: 4)
    let plain = try TextLayout(text: "II", font: font, style: style)
    let raised = try TextLayout(text: "II", font: font, style: style, shaper: Raised())
    let plainInk = plain.exactInk
    let raisedInk = raised.exactInk
    XCTAssertEqual(
      (raisedInk.maxY - raisedInk.minY) - (plainInk.maxY - plainInk.minY), 10, accuracy: 1e-9)
    XCTAssertEqual(raisedInk.maxX - raisedInk.minX, plainInk.maxX - plainInk.minX, accuracy: 1e-9)
    // Both letters are drawn, one 10 px above the other.
    let mask = raised.rasterize()
    XCTAssertEqual(mask.height, plain.rasterize().height + 10)
  }
}
