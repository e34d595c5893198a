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
    let x = (0..<mask.width).first { mask[$0, y] > 0.9 } ?? 0
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
    XCTAssertTrue(plain.contains(##"stroke="#ff0000" stroke-width="0.1000""##), plain)
    XCTAssertFalse(plain.contains(#"id="ink""#))
    let filled = SVGDocument.make(
      canvasWidth: 20, canvasHeight: 20, image: nil, cut: [curve], dpi: 254, cutColor: "#00ff00",
      cutWidthMM: 0.3, ink: [curve], inkVectors: .fill)
    XCTAssertTrue(filled.contains(#"<path id="ink" d="M0.0000,0.0000"#), filled)
    XCTAssertTrue(filled.contains(##"fill="#000000""##))
    XCTAssertTrue(filled.contains(##"stroke="#00ff00" stroke-width="0.3000""##), filled)
    let scored = SVGDocument.make(
      canvasWidth: 20, canvasHeight: 20, image: nil, cut: [], dpi: 254, ink: [curve],
      inkVectors: .score)
    XCTAssertTrue(scored.contains(##"fill="none" fill-rule="evenodd" stroke="#0000ff""##), scored)
  }

  func testSVGSizeInMillimetersMatchesTheViewBox() throws {
    let curve = CutLine.smooth([SIMD2(-2, -2), SIMD2(10, -2), SIMD2(10, 10), SIMD2(-2, 10)])
    let svg = SVGDocument.make(
      canvasWidth: 254, canvasHeight: 127, image: Data([1, 2, 3]), cut: [curve], dpi: 254)
    XCTAssertTrue(
      svg.contains(
        #"width="25.6000mm" height="12.9000mm" viewBox="-0.2000 -0.2000 25.6000 12.9000""#), svg)
    XCTAssertTrue(svg.contains(#"<image x="0" y="0" width="25.4000" height="12.7000""#))
    XCTAssertTrue(svg.contains("data:image/png;base64,AQID"))
    XCTAssertTrue(svg.contains(#"fill="none""#))
    XCTAssertTrue(svg.contains("M-0.2000,-0.2000 C"), svg)
  }

  /// The loops of an SVG path's data ("M x,y C x,y x,y x,y L x,y Z ..."), each as its start
  /// and segments (a line as a cubic with its controls at its thirds), in the file's units.
  func loops(_ svg: String, id: String) throws -> [ClosedCurve] {
    let start = try XCTUnwrap(svg.range(of: "<path id=\"\(id)\" d=\""))
    let data = svg[start.upperBound...].prefix { $0 != "\"" }
    var curves: [ClosedCurve] = []
    var command: Character = " "
    var numbers: [Double] = []
    var current: ClosedCurve?
    var pen = SIMD2<Double>.zero
    func flush() {
      switch command {
      case "M":
        pen = SIMD2(numbers[0], numbers[1])
        current = ClosedCurve(start: pen, segments: [])
      case "L":
        let p = SIMD2(numbers[0], numbers[1])
        current?.segments.append(ClosedCurve.line(pen, p))
        pen = p
      case "C":
        let p = SIMD2(numbers[4], numbers[5])
        current?.segments.append(
          (SIMD2(numbers[0], numbers[1]), SIMD2(numbers[2], numbers[3]), p))
        pen = p
      case "Z":
        if let current { curves.append(current) }
        current = nil
      default: break
      }
      numbers = []
    }
    for token in data.split(whereSeparator: { $0 == " " || $0 == "," }) {
      if let c = token.first, "MLCZ".contains(c) {
        flush()
        command = c
        if token.count > 1, let v = Double(token.dropFirst()) { numbers.append(v) }
      } else {
        numbers.append(try XCTUnwrap(Double(token), String(token)))
      }
    }
    flush()
    return curves
  }

  /// Distance from p to segment ab.
  func distance(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
    let ab = b - a
    let l = (ab * ab).sum()
    let t = l > 0 ? min(max(((p - a) * ab).sum() / l, 0), 1) : 0
    let q = a + t * ab - p
    return (q * q).sum().squareRoot()
  }

  /// Distance from p to the outline's pieces, in the outline's pixels.
  func distance(_ p: SIMD2<Double>, to outline: Outline) -> Double {
    var best = Double.infinity
    for k in 0..<outline.count {
      best = min(best, distance(p, SIMD2<Double>(outline.a[k]), SIMD2<Double>(outline.b[k])))
    }
    return best
  }

  /// The exact cut line of "O" (200 px, 254 DPI: 0.1 mm a pixel) as the SVG writes it, its
  /// loops sampled densely, in pixels; and the glyph outline.
  func writtenCut(_ text: String = "O", offset: Double) throws -> (
    loops: [[SIMD2<Double>]], curves: [ClosedCurve], outline: Outline
  ) {
    let mask = try TextLayout(text: text, font: Fixtures.font(), style: TextStyle(pixelSize: 200))
      .rasterize()
    let outline = try XCTUnwrap(mask.outline)
    let cut = CutLine.make(mask: mask, offset: offset, dpi: 254, parallelism: .serial)
    let svg = SVGDocument.make(
      canvasWidth: mask.width, canvasHeight: mask.height, image: nil, cut: cut, dpi: 254)
    let curves = try loops(svg, id: "cut").map { curve in
      ClosedCurve(
        start: curve.start * 10, segments: curve.segments.map { ($0.0 * 10, $0.1 * 10, $0.2 * 10) }
      )
    }
    // Steps short enough that the samples are within 0.0001 mm of the curve between them.
    let sampled = curves.map { $0.flattened(steps: 64) }
    return (sampled, curves, outline)
  }

  /// Largest distance (pixels) from any point of `samples` to the closed polyline `loops`.
  func farthest(_ samples: [SIMD2<Double>], from loops: [[SIMD2<Double>]]) -> Double {
    var worst = 0.0
    for p in samples {
      var best = Double.infinity
      for loop in loops {
        for i in 0..<loop.count {
          best = min(best, distance(p, loop[i], loop[(i + 1) % loop.count]))
        }
      }
      worst = max(worst, best)
    }
    return worst
  }

  /// At --cut-offset 0 the SVG's cut path of a text is its glyph outline: every point of the
  /// written path within 0.01 mm of the outline, every outline vertex within 0.01 mm of the
  /// path, and the "O"'s hole is a loop of the other orientation.
  func testCutPathOfTextIsTheGlyphOutline() throws {
    let (loops, curves, outline) = try writtenCut(offset: 0)
    XCTAssertEqual(loops.count, 2, "the O and its hole")
    for curve in curves {
      let end = try XCTUnwrap(curve.segments.last?.2)
      XCTAssertLessThan(((end - curve.start) * (end - curve.start)).sum().squareRoot(), 0.001)
    }
    XCTAssertEqual(
      Set(curves.map { CutLine.signedArea($0).sign }).count, 2, "opposite orientations")
    let pathToOutline = loops.flatMap { $0 }.map { distance($0, to: outline) }.max() ?? .infinity
    let outlineToPath = farthest(outline.a.map { SIMD2<Double>($0) }, from: loops)
    print(
      "O at offset 0: path to outline \(pathToOutline / 10) mm, outline to path \(outlineToPath / 10) mm"
    )
    XCTAssertLessThan(pathToOutline / 10, 0.01)
    XCTAssertLessThan(outlineToPath / 10, 0.01)
    // Curves stay curves: far fewer segments than the flattened outline has pieces.
    XCTAssertLessThan(curves.map(\.segments.count).reduce(0, +), outline.count / 4)
  }

  /// `--cut-join miter`: an outward offset of "N" turns its convex corners sharp, reaching
  /// past the offset there (a right angle's miter is sqrt(2) offsets from the corner), and
  /// is never nearer the ink than the offset; round joins keep every point at the offset.
  func testMiterJoinsAreSharp() throws {
    let mask = try TextLayout(text: "N", font: Fixtures.font(), style: TextStyle(pixelSize: 200))
      .rasterize()
    let outline = try XCTUnwrap(mask.outline)
    var reach: [CutLine.Join: (near: Double, far: Double)] = [:]
    for join in CutLine.Join.allCases {
      let cut = CutLine.make(mask: mask, offset: 10, join: join, dpi: 254, parallelism: .serial)
      let points = cut.flatMap { $0.flattened(steps: 16) }
      let distances = points.map { distance($0, to: outline) }
      reach[join] = (distances.min() ?? 0, distances.max() ?? 0)
    }
    let round = try XCTUnwrap(reach[.round])
    let miter = try XCTUnwrap(reach[.miter])
    XCTAssertEqual(round.near, 10, accuracy: 0.02)
    XCTAssertEqual(round.far, 10, accuracy: 0.02)
    XCTAssertEqual(miter.near, 10, accuracy: 0.02)
    XCTAssertGreaterThan(miter.far, 13, "mitred corners reach past the offset")
  }

  /// `--cut-region` keeps the exact outline: the region of the "O" in "Og" has the O's two
  /// loops (outside and hole) and none of the g's, and its cut line is the O's outline.
  func testCutRegionKeepsTheRegionsOutline() throws {
    let mask = try TextLayout(text: "Og", font: Fixtures.font(), style: TextStyle(pixelSize: 200))
      .rasterize()
    let outline = try XCTUnwrap(mask.outline)
    // A point on the O's left stroke: the first ink pixel of the middle row.
    let y = mask.inkBounds.y + mask.inkBounds.height / 3
    let x = try XCTUnwrap((0..<mask.width).first { mask[$0, y] >= 0.5 })
    let region = try XCTUnwrap(CutLine.region(of: mask, at: x + 2, y))
    let kept = try XCTUnwrap(region.outline)
    XCTAssertFalse(kept.isTraced)
    XCTAssertGreaterThan(kept.count, 20)
    XCTAssertLessThan(kept.count, outline.count)
    // Every kept piece is the O's (within its region's ink), and the g's region keeps the
    // rest: the two regions share out the whole outline.
    let bounds = region.inkBounds.grown(by: 1)
    for k in 0..<kept.count {
      XCTAssertTrue(
        Float(bounds.x) <= kept.a[k].x && kept.a[k].x <= Float(bounds.maxX), "\(kept.a[k])")
    }
    let gx = try XCTUnwrap((0..<mask.width).last { mask[$0, y] >= 0.5 })
    let other = try XCTUnwrap(CutLine.region(of: mask, at: gx - 1, y)?.outline)
    XCTAssertEqual(kept.count + other.count, outline.count)
    let cut = CutLine.make(mask: region, offset: 0, dpi: 254, parallelism: .serial)
    XCTAssertEqual(cut.count, 2, "the O and its hole")
    // On the outline: every written node within 0.001 mm (0.01 px at 254 dpi) of a piece.
    for curve in cut {
      for (_, _, p) in curve.segments {
        XCTAssertLessThan(distance(p, to: kept), 0.01, "\(p)")
      }
    }
  }

  /// Corners stay sharp: each corner of the outlines of "N3B&" (a joint where the curve's
  /// normal jumps, between straight or curved pieces) is a node of the written path, within
  /// 0.001 mm, where the path turns as the outline does, within a degree.
  func testCornersStaySharp() throws {
    let (_, curves, outline) = try writtenCut("N3B&", offset: 0)
    // Each node, with the unit tangents of the path arriving at it and leaving it.
    var nodes: [(p: SIMD2<Double>, arriving: SIMD2<Double>, leaving: SIMD2<Double>)] = []
    for curve in curves {
      let n = curve.segments.count
      for i in 0..<n {
        let (_, c2, p) = curve.segments[i]
        let (c1, _, _) = curve.segments[(i + 1) % n]
        nodes.append((p, CutLine.unit(p - c2), CutLine.unit(c1 - p)))
      }
    }
    func angle(_ u: SIMD2<Double>, _ v: SIMD2<Double>) -> Double {
      atan2(u.x * v.y - u.y * v.x, (u * v).sum()) * 180 / .pi
    }
    var corners = 0
    for k in 0..<outline.count {
      let j = Int(outline.next[k])
      guard j >= 0, (outline.nb[k] * outline.na[j]).sum() < 0.99 else { continue }
      corners += 1
      let p = SIMD2<Double>(outline.b[k])
      let node = try XCTUnwrap(
        nodes.min { (($0.p - p) * ($0.p - p)).sum() < (($1.p - p) * ($1.p - p)).sum() })
      XCTAssertLessThan(((node.p - p) * (node.p - p)).sum().squareRoot() / 10, 0.001, "\(p)")
      let turn = angle(CutLine.tangent(outline.nb[k]), CutLine.tangent(outline.na[j]))
      XCTAssertEqual(angle(node.arriving, node.leaving), turn, accuracy: 1, "corner at \(p)")
    }
    XCTAssertGreaterThanOrEqual(corners, 20)
  }

  /// A 1 mm offset, outward or inward, is 1 mm from the outline everywhere (round joins
  /// included), within 0.01 mm; every point 1 mm from the outline along a vertex's normal is
  /// on it; the "O"'s hole stays a hole.
  func testOffsetsAreExactOutwardAndInward() throws {
    for offset in [10.0, -10.0] {
      let (loops, curves, outline) = try writtenCut(offset: offset)
      XCTAssertEqual(loops.count, 2, "the O and its hole, offset \(offset)")
      XCTAssertEqual(
        Set(curves.map { CutLine.signedArea($0).sign }).count, 2, "opposite orientations")
      var worst = 0.0
      for p in loops.flatMap({ $0 }) { worst = max(worst, abs(distance(p, to: outline) - 10)) }
      // Points offset along the normal that are 1 mm from the whole outline.
      var targets: [SIMD2<Double>] = []
      for k in stride(from: 0, to: outline.count, by: 3) {
        let p = SIMD2<Double>(outline.a[k]) - SIMD2<Double>(outline.na[k]) * offset
        if abs(distance(p, to: outline) - 10) < 1e-3 { targets.append(p) }
      }
      XCTAssertGreaterThan(targets.count, outline.count / 6)
      let coverage = farthest(targets, from: loops)
      print(
        "O at offset \(offset / 10) mm: error \(worst / 10) mm, targets to path \(coverage / 10) mm"
      )
      XCTAssertLessThan(worst / 10, 0.01, "offset \(offset)")
      XCTAssertLessThan(coverage / 10, 0.01, "offset \(offset)")
    }
  }

  /// Mirrored (engraving the back), the cut line is the mirrored glyph outline's: within
  /// 0.002 mm of the plain line mirrored, both ways.
  func testMirroredCutIsTheMirroredOutline() throws {
    let mask = try TextLayout(text: "Rb", font: Fixtures.font(), style: TextStyle(pixelSize: 120))
      .rasterize()
    let width = Double(mask.width)
    let plain = CutLine.make(mask: mask, offset: 5, dpi: 254, parallelism: .serial)
    let mirrored = CutLine.make(mask: mask.mirrored(), offset: 5, dpi: 254, parallelism: .serial)
    XCTAssertNotNil(mask.mirrored().outline)
    XCTAssertEqual(plain.count, mirrored.count)
    func sample(_ curves: [ClosedCurve], _ steps: Int, mirror: Bool) -> [[SIMD2<Double>]] {
      curves.map { $0.flattened(steps: steps).map { mirror ? SIMD2(width - $0.x, $0.y) : $0 } }
    }
    let actual = sample(mirrored, 8, mirror: false).flatMap { $0 }
    let expected = sample(plain, 8, mirror: true).flatMap { $0 }
    XCTAssertLessThan(farthest(actual, from: sample(plain, 16, mirror: true)) / 10, 0.002)
    XCTAssertLessThan(farthest(expected, from: sample(mirrored, 16, mirror: false)) / 10, 0.002)
  }

  /// SVG numbers are millimeters with a fixed number of decimals: a coordinate 5432.1 px at
  /// 254 DPI (543.21 mm) is written to 0.0001 mm.
  func testSVGCoordinatesAreMillimetersToTheMicron() throws {
    let curve = ClosedCurve(
      start: SIMD2(5432.1234, 10),
      segments: [
        ClosedCurve.line(SIMD2(5432.1234, 10), SIMD2(20, 10)),
        ClosedCurve.line(SIMD2(20, 10), SIMD2(5432.1234, 10)),
      ])
    let svg = SVGDocument.make(
      canvasWidth: 6000, canvasHeight: 100, image: nil, cut: [curve], dpi: 254)
    XCTAssertTrue(svg.contains(#"d="M543.2123,1.0000 L2.0000,1.0000 L543.2123,1.0000 Z""#), svg)
    XCTAssertTrue(
      svg.contains(
        #"width="600.0000mm" height="10.0000mm" viewBox="0.0000 0.0000 600.0000 10.0000""#), svg)
  }

  /// No number in the SVG moves a length by 0.001 mm.
  ///
  /// The SVG's numbers are millimeters with four decimals (1000 px at 300 dpi is 84.6667 mm;
  /// a point 0.12346 px from the edge at 10 dpi is 0.3136 mm), and a gang sheet's lengths
  /// have six (`SVGNumber`).
  func testSVGNumbersKeepLengthsToAMicrometer() throws {
    let svg = SVGDocument.make(canvasWidth: 1000, canvasHeight: 7087, image: nil, cut: [], dpi: 300)
    XCTAssertTrue(svg.contains(#"width="84.6667mm" height="600.0327mm""#), svg)
    let curve = CutLine.smooth([
      SIMD2(0.12346, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0.12346, 10),
    ])
    let coarse = SVGDocument.make(
      canvasWidth: 20, canvasHeight: 20, image: nil, cut: [curve], dpi: 10)
    XCTAssertTrue(coarse.contains("M0.3136,0.0000 C"), coarse)
    XCTAssertEqual(SVGNumber.fixed(-0.0000001, decimals: 6), "0")
    XCTAssertEqual(SVGNumber.fixed(1200, decimals: 6), "1200")
    XCTAssertEqual(SVGNumber.millimeters(25.4 / 300 * 7087), "600.032667")
  }

  func testDPIRoundTrip() throws {
    XCTAssertNil(Resolution(dpi: 254).roundTripWarning)
    // Stored a little over, these read back as themselves (truncated or rounded).
    for dpi in [72.0, 96, 150] {
      XCTAssertNil(Resolution(dpi: dpi).roundTripWarning, "\(dpi)")
      XCTAssertEqual(Resolution(dpi: dpi).storedDPI.rounded(.down), dpi)
    }
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
