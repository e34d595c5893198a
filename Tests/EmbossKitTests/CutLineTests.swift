import EmbossKit
import XCTest

@testable import EmbossEngrave

final class CutLineTests: XCTestCase {
  /// Even-odd fill of the flattened curves at each pixel center.
  func rasterize(_ curves: [ClosedCurve], width: Int, height: Int) -> [Bool] {
    let polygons = curves.map { $0.flattened(steps: 16) }
    var inside = [Bool](repeating: false, count: width * height)
    for y in 0..<height {
      let py = Double(y) + 0.5
      for x in 0..<width {
        let px = Double(x) + 0.5
        var crossings = 0
        for polygon in polygons {
          for i in 0..<polygon.count {
            let a = polygon[i]
            let b = polygon[(i + 1) % polygon.count]
            if (a.y > py) != (b.y > py), px < a.x + (py - a.y) / (b.y - a.y) * (b.x - a.x) {
              crossings += 1
            }
          }
        }
        inside[y * width + x] = crossings % 2 == 1
      }
    }
    return inside
  }

  /// The traced path, filled, is the mask: every pixel more than half a pixel from the edge
  /// agrees, holes included (the inside of "o", "B", "8").
  func testPathRasterizesToTheMask() throws {
    let mask = try TextLayout(text: "oB8", font: Fixtures.font(), style: TextStyle(pixelSize: 60))
      .rasterize()
    let curves = CutLine.trace(mask: mask, parallelism: .serial)
    XCTAssertEqual(curves.count, 2 + 3 + 3, "outer borders and holes")
    let filled = rasterize(curves, width: mask.width, height: mask.height)
    let sdf = CutLine.signedDistance(
      mask: mask.plane, region: mask.plane.bounds, within: 4, parallelism: .serial)
    var disagreements = 0
    for i in 0..<filled.count where filled[i] != (mask.plane.pixels[i] >= 0.5) {
      disagreements += 1
      XCTAssertLessThan(
        abs(sdf.pixels[i]), 0.5,
        "pixel \(i % mask.width), \(i / mask.width) is \(sdf.pixels[i]) from the edge")
    }
    XCTAssertLessThan(disagreements, 40)
  }

  func testOffsetCutsAroundTheInkAtTheDistance() throws {
    let mask = Fixtures.mask(width: 60, height: 60) { x, y in
      (x - 30) * (x - 30) + (y - 30) * (y - 30) <= 10 * 10
    }
    let curves = CutLine.trace(mask: mask, offset: 5, parallelism: .serial)
    XCTAssertEqual(curves.count, 1)
    for p in curves[0].flattened() {
      let r = ((p.x - 30) * (p.x - 30) + (p.y - 30) * (p.y - 30)).squareRoot()
      XCTAssertEqual(r, 15, accuracy: 0.25)
    }
  }

  func testRegionPicksOneShapeAndKeepsItsHoles() throws {
    let mask = try TextLayout(text: "o i", font: Fixtures.font(), style: TextStyle(pixelSize: 60))
      .rasterize()
    // A point on the ring of the "o": its left side, half way down.
    let y = mask.inkBounds.y + mask.inkBounds.height * 2 / 3
    let x = (0..<mask.width).first { mask.plane[$0, y] > 0.9 } ?? 0
    let region = try XCTUnwrap(CutLine.region(of: mask, at: x + 2, y))
    XCTAssertEqual(
      CutLine.trace(mask: region, parallelism: .serial).count, 2, "the o's outline and its hole")
    XCTAssertNil(CutLine.region(of: mask, at: 0, 0), "background")
    XCTAssertNil(CutLine.region(of: mask, at: -1, 5), "outside the image")
  }

  /// A negative offset cuts inside the ink: every point of the line is on ink about that far
  /// from the edge.
  func testANegativeOffsetCutsInside() throws {
    let mask = try TextLayout(text: "I", font: Fixtures.font(), style: TextStyle(pixelSize: 120))
      .rasterize()
    let curves = CutLine.trace(mask: mask, offset: -3, parallelism: .serial)
    XCTAssertEqual(curves.count, 1)
    let sdf = CutLine.signedDistance(
      mask: mask.plane, region: mask.plane.bounds, within: 8, parallelism: .serial)
    for p in curves[0].flattened(steps: 4) {
      let d = sdf[Int(p.x - 0.5 + 0.5), Int(p.y - 0.5 + 0.5)]
      XCTAssertEqual(Double(d), -3, accuracy: 1.0, "\(p)")
    }
  }

  /// A sticker's outline: only the outermost loops; and loops too small to cut are dropped.
  func testOutermostAndSmallLoops() throws {
    let mask = try TextLayout(text: "o.", font: Fixtures.font(), style: TextStyle(pixelSize: 80))
      .rasterize()
    let curves = CutLine.trace(mask: mask, parallelism: .serial)
    XCTAssertEqual(curves.count, 3, "the o, its hole, the dot")
    let outer = CutLine.outermost(curves)
    XCTAssertEqual(outer.count, 2, "the o and the dot, no hole")
    let sign = CutLine.signedArea(outer[0]).sign
    XCTAssertTrue(outer.allSatisfy { CutLine.signedArea($0).sign == sign })
    // The dot is about 12 px wide, the o's hole about 25, the o about 45.
    XCTAssertEqual(CutLine.dropping(curves, smallerThan: 16).count, 2, "the dot dropped")
    XCTAssertEqual(CutLine.dropping(curves, smallerThan: 30).count, 1, "the hole dropped too")
  }

  func testCutStyleAndInkVectors() throws {
    let curve = CutLine.smooth([SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0, 10)])
    let plain = SVGDocument.make(
      canvasWidth: 20, canvasHeight: 20, image: nil, cut: [curve], dpi: 254)
    XCTAssertTrue(plain.contains(#"id="cut""#))
    XCTAssertTrue(plain.contains(##"stroke="#ff0000" stroke-width="1""##), plain)
    XCTAssertFalse(plain.contains(#"id="ink""#))
    let filled = SVGDocument.make(
      canvasWidth: 20, canvasHeight: 20, image: nil, cut: [curve], dpi: 254, cutColor: "#00ff00",
      cutWidthMM: 0.3, ink: [curve], inkVectors: .fill)
    XCTAssertTrue(filled.contains(#"<path id="ink" d="M0,0"#), filled)
    XCTAssertTrue(filled.contains(##"fill="#000000""##))
    XCTAssertTrue(filled.contains(##"stroke="#00ff00" stroke-width="3""##), filled)
    let scored = SVGDocument.make(
      canvasWidth: 20, canvasHeight: 20, image: nil, cut: [], dpi: 254, ink: [curve],
      inkVectors: .score)
    XCTAssertTrue(scored.contains(##"fill="none" fill-rule="evenodd" stroke="#0000ff""##), scored)
  }

  func testSVGSizeInMillimetersMatchesTheViewBox() throws {
    let curve = CutLine.smooth([SIMD2(-2, -2), SIMD2(10, -2), SIMD2(10, 10), SIMD2(-2, 10)])
    let svg = SVGDocument.make(
      canvasWidth: 254, canvasHeight: 127, image: Data([1, 2, 3]), cut: [curve], dpi: 254)
    XCTAssertTrue(svg.contains(#"width="25.6mm" height="12.9mm" viewBox="-2 -2 256 129""#), svg)
    XCTAssertTrue(svg.contains(#"<image x="0" y="0" width="254" height="127""#))
    XCTAssertTrue(svg.contains("data:image/png;base64,AQID"))
    XCTAssertTrue(svg.contains(#"fill="none""#))
    XCTAssertTrue(svg.contains("M-2,-2 C"), svg)
  }

  func testDPIRoundTrip() throws {
    XCTAssertNil(Resolution(dpi: 254).roundTripWarning)
    XCTAssertEqual(Resolution(dpi: 254).pixelsPerMeter, 10000)
    XCTAssertEqual(Resolution(dpi: 600).pixelsPerMeter, 23622)
    XCTAssertEqual(
      Resolution(dpi: 600).roundTripWarning,
      "600 DPI is stored in the PNG as 23622 pixels per meter, 599.9988 DPI, which some software reads as 599; 508 or 635 DPI are stored exactly"
    )
    XCTAssertEqual(Length.parse("20mm"), Length(value: 20, unit: .mm))
    XCTAssertEqual(Length.parse("12"), Length(value: 12, unit: .px))
    XCTAssertEqual(Length.parse("0.5in")?.pixels(dpi: 300), 150)
    XCTAssertNil(Length.parse("nanmm"))
    XCTAssertNil(Length.parse("12 furlongs"))
  }
}
