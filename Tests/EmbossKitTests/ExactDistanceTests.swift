import EmbossKit
import Foundation
import XCTest

/// Distances against shapes written out here, with exact (area) coverage: the height field is
/// only as good as these.
final class ExactDistanceTests: XCTestCase {
  /// A W: the outline of a bold W with four acute notches (inside corners of about 26 and 40
  /// degrees) and sharp outer corners, in pixels, clockwise on screen.
  static let w: [SIMD2<Double>] = [
    SIMD2(6.3, 8.2), SIMD2(26.1, 8.2), SIMD2(37.4, 60.5), SIMD2(52.2, 8.2), SIMD2(68.9, 8.2),
    SIMD2(83.6, 60.5), SIMD2(94.8, 8.2), SIMD2(114.6, 8.2), SIMD2(93.5, 90.7), SIMD2(74.1, 90.7),
    SIMD2(60.4, 38.1), SIMD2(46.8, 90.7), SIMD2(27.4, 90.7),
  ]

  /// Area of the polygon inside pixel (x, y): the polygon clipped to the pixel's square
  /// (Sutherland-Hodgman), then the shoelace formula.
  static func coverage(of polygon: [SIMD2<Double>], x: Int, y: Int) -> Double {
    var points = polygon
    let bounds: [(SIMD2<Double>) -> Double] = [
      { $0.x - Double(x) }, { Double(x + 1) - $0.x }, { $0.y - Double(y) },
      { Double(y + 1) - $0.y },
    ]
    for inside in bounds {
      var out: [SIMD2<Double>] = []
      for (i, p) in points.enumerated() {
        let q = points[(i + 1) % points.count]
        let (a, b) = (inside(p), inside(q))
        if a >= 0 { out.append(p) }
        if (a >= 0) != (b >= 0) { out.append(p + (q - p) * (a / (a - b))) }
      }
      points = out
      if points.isEmpty { return 0 }
    }
    var area = 0.0
    for (i, p) in points.enumerated() {
      let q = points[(i + 1) % points.count]
      area += p.x * q.y - q.x * p.y
    }
    return abs(area) / 2
  }

  static func mask(_ polygon: [SIMD2<Double>], width: Int, height: Int) -> CoverageMask {
    var plane = Plane(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width { plane[x, y] = Float(coverage(of: polygon, x: x, y: y)) }
    }
    return CoverageMask(plane: plane)
  }

  /// The polygon's exact coverage with the polygon itself as the mask's outline (as a glyph's
  /// outline is), so no tracing stands between the shape and the relief.
  static func outlineMask(_ polygon: [SIMD2<Double>], width: Int, height: Int) -> CoverageMask {
    let outline = Outline(
      contours: [
        polygon.indices.map { i in
          let a = SIMD2<Float>(polygon[i])
          let b = SIMD2<Float>(polygon[(i + 1) % polygon.count])
          let u = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
          return Outline.Edge(a: a, b: b, ta: u, tb: u)
        }
      ])
    let covered = mask(polygon, width: width, height: height)
    return CoverageMask(plane: covered.plane, inkBounds: covered.inkBounds, outline: outline)
  }

  /// Distance from `p` to the polygon's outline.
  static func distance(_ p: SIMD2<Double>, to polygon: [SIMD2<Double>]) -> Double {
    var best = Double.infinity
    for (i, a) in polygon.enumerated() {
      let b = polygon[(i + 1) % polygon.count]
      let v = b - a
      let t = min(max(((p - a) * v).sum() / (v * v).sum(), 0), 1)
      let d = p - (a + v * t)
      best = min(best, (d * d).sum().squareRoot())
    }
    return best
  }

  /// The largest error of the field's inside distances against `expected` (at pixel centers,
  /// x + 0.5, y + 0.5), over pixels at least `margin` inside, and where it is.
  func worstError(
    _ mask: CoverageMask, margin: Double = 0.6, expected: (SIMD2<Double>) -> Double
  ) -> (error: Double, x: Int, y: Int) {
    let region = mask.inkBounds.grown(by: 1)
    let field = EdgeDistance.field(mask: mask.plane, region: region)
    var worst = (error: 0.0, x: 0, y: 0)
    for y in 0..<region.height {
      for x in 0..<region.width {
        let cx = x + region.x
        let cy = y + region.y
        let truth = expected(SIMD2(Double(cx) + 0.5, Double(cy) + 0.5))
        guard truth >= margin else { continue }
        let error = abs(Double(field.distance[y * region.width + x]) - truth)
        if error > worst.error { worst = (error, cx, cy) }
      }
    }
    return worst
  }

  /// Inside a polygon with acute notches every distance is within 0.25 px of the truth,
  /// right into the notches, past their tips and along the mitres between the walls.
  func testDistancesInsideAWWithAcuteNotches() throws {
    let polygon = Self.w
    let mask = Self.mask(polygon, width: 122, height: 100)
    let inside = { (p: SIMD2<Double>) -> Bool in
      // Even-odd rule.
      var hit = false
      for (i, a) in polygon.enumerated() {
        let b = polygon[(i + 1) % polygon.count]
        if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
          hit.toggle()
        }
      }
      return hit
    }
    let worst = worstError(mask) { p in inside(p) ? Self.distance(p, to: polygon) : -1 }
    print(
      "W with acute notches: largest distance error \(worst.error) px at \(worst.x), \(worst.y)")
    XCTAssertLessThanOrEqual(worst.error, 0.25)
  }

  /// A picture with anti-aliased edges, in threshold mode (the default for `--mask`), keeps
  /// smooth edges: its gray's iso-line at the threshold is traced with sub-pixel vertices
  /// into the mask's outline, and the pixels along it are anti-aliased from that line instead
  /// of being cut to 0 or 1 (which made stair steps of every slanted edge).
  func testThresholdedPictureTracesTheAntiAliasedEdge() throws {
    let polygon = Self.w
    let exact = Self.mask(polygon, width: 122, height: 100)
    // The W as an anti-aliased 8-bit logo: black ink on white.
    let gray = Plane(
      width: exact.width, height: exact.height, pixels: exact.plane.pixels.map { 1 - $0 })
    let file = try Fixtures.temporaryDirectory().appendingPathComponent("w.png")
    try PNGCodec.encodeGray(gray).write(to: file)
    let mask = try ImageMask.read(path: file.path, mode: .threshold, invert: false, threshold: 128)
    let outline = try XCTUnwrap(mask.outline, "the traced iso-line is the mask's outline")
    // Vertices away from the W's corners lie on its edges.
    var worstVertex = 0.0
    for k in 0..<outline.count {
      let p = SIMD2<Double>(outline.a[k])
      let nearCorner = polygon.contains { q in ((p - q) * (p - q)).sum() < 2.5 * 2.5 }
      guard !nearCorner else { continue }
      worstVertex = max(worstVertex, Self.distance(p, to: polygon))
    }
    // Edge pixels are anti-aliased close to their exact area coverage.
    var worstCoverage = 0.0
    var partial = 0
    for i in 0..<mask.plane.pixels.count {
      let truth = Double(exact.plane.pixels[i])
      let c = Double(mask.plane.pixels[i])
      if c > 0, c < 1 { partial += 1 }
      guard truth > 0, truth < 1 else { continue }
      let (y, x) = i.quotientAndRemainder(dividingBy: exact.width)
      let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
      guard !polygon.contains(where: { q in ((p - q) * (p - q)).sum() < 2.5 * 2.5 }) else {
        continue
      }
      worstCoverage = max(worstCoverage, abs(c - truth))
    }
    print(
      "thresholded W: vertices within \(worstVertex) px of the edge, coverage within"
        + " \(worstCoverage), \(partial) anti-aliased pixels")
    XCTAssertLessThanOrEqual(worstVertex, 0.05)
    XCTAssertLessThanOrEqual(worstCoverage, 0.06)
    XCTAssertGreaterThan(partial, 300)
  }

  /// A traced outline is closed and has the shape's corners.
  ///
  /// The iso-line rounds a corner off and stops short of an acute notch's tip (no sample there reaches 0.5), so where two
  /// straight runs meet, the tracer's vertices are replaced by the runs' crossing. At 1x and
  /// at 4x, where the two cells beside a side once put its crossing a bit apart and left
  /// the contour open (no straight runs, no sharp corners: a fan of small mitres at each
  /// notch's tip).
  func testTracedOutlinesAreClosedWithSharpCorners() throws {
    for scale in [1.0, 4.0] {
      let polygon = Self.w.map { $0 * scale }
      let exact = Self.mask(polygon, width: Int(122 * scale), height: Int(100 * scale))
      let outline = Outline(
        traced: EdgeDistance.isoline(mask: exact.plane, region: exact.inkBounds.grown(by: 1)))
      XCTAssert(
        (0..<outline.count).allSatisfy { outline.spur[$0] || outline.next[$0] >= 0 },
        "closed at \(scale)x")
      var worst = 0.0
      for corner in polygon {
        let nearest =
          (0..<outline.count).map { k -> Double in
            let d = SIMD2<Double>(outline.a[k]) - corner
            return (d * d).sum().squareRoot()
          }.min() ?? .infinity
        worst = max(worst, nearest)
      }
      print("traced W at \(scale)x: every corner within \(worst) px of a vertex")
      XCTAssertLessThanOrEqual(worst, 0.1, "at \(scale)x")
    }
  }

  /// A light logo on a transparent background, inverted (`--invert-mask`), is its shape.
  ///
  /// Its alpha, in both modes. The gray counted transparent as white, so inverted the whole
  /// picture was ink (a slab) and not inverted none was.
  func testALightLogoOnTransparencyInvertedIsItsShape() throws {
    let (width, height) = (60, 40)
    // A white disk of radius 12 at (20, 20), anti-aliased by its alpha; transparent around.
    let disk = Self.mask(
      (0..<64).map { i in
        let t = Double(i) / 64 * 2 * .pi
        return SIMD2(20 + 12 * cos(t), 20 + 12 * sin(t))
      }, width: width, height: height)
    let image = RGBAImage(
      width: width, height: height,
      pixels: disk.plane.pixels.map { SIMD4(1, 1, 1, $0) })
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("white-logo.png")
    try PNGCodec.encode(image).write(to: file)
    for mode in MaskMode.allCases {
      let mask = try ImageMask.read(path: file.path, mode: mode, invert: true, threshold: 128)
      XCTAssertEqual(mask.inkBounds, PixelRect(x: 8, y: 8, width: 24, height: 24), "\(mode)")
      var ink: Float = 0
      for y in 0..<height { for x in 0..<width { ink += mask[x, y] } }
      XCTAssertEqual(ink, Float.pi * 144, accuracy: 2, "\(mode): the disk's area")
    }
  }

  /// A picture drawn without anti-aliasing (two grays) is read as the smooth shape its
  /// pixels sample: a tilted square's slanted sides, which are staircases of pixels, each
  /// take one normal, the side's, so each bevel is a plane.
  ///
  /// Traced as it was, each pixel step was a corner between a flat run and a 45-degree
  /// chamfer, and a bevel showed a tick at every step.
  func testAliasedPictureSidesAreStraight() throws {
    let (width, height) = (100, 100)
    let angle = 20.0 * Double.pi / 180
    let corners = (0..<4).map { i -> SIMD2<Double> in
      let t = angle + Double(i) * Double.pi / 2
      return SIMD2(50 + 36 * cos(t), 50 + 36 * sin(t))
    }
    // Inside by each pixel's center: ink 0, paper 1.
    func inside(_ p: SIMD2<Double>) -> Bool {
      (0..<4).allSatisfy { i in
        let (a, b) = (corners[i], corners[(i + 1) % 4])
        return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) > 0
      }
    }
    var pixels = [Float](repeating: 1, count: width * height)
    for y in 0..<height {
      for x in 0..<width where inside(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) {
        pixels[y * width + x] = 0
      }
    }
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("aliased-square.png")
    try PNGCodec.encodeGray(Plane(width: width, height: height, pixels: pixels)).write(to: file)
    let mask = try ImageMask.read(path: file.path, mode: .threshold, invert: false, threshold: 128)
    let outline = try XCTUnwrap(mask.outline)
    var checked = 0
    var worst: Float = 0
    for k in 0..<outline.count {
      let m = SIMD2<Double>((outline.a[k] + outline.b[k]) * 0.5)
      // Away from the corners: on one side, whose inward normal the piece must take.
      guard corners.allSatisfy({ (($0 - m) * ($0 - m)).sum().squareRoot() > 6 }) else { continue }
      let side = (0..<4).min { i, j in
        Self.distance(m, to: [corners[i], corners[(i + 1) % 4]])
          < Self.distance(m, to: [corners[j], corners[(j + 1) % 4]])
      }!
      let u = corners[(side + 1) % 4] - corners[side]
      let n = SIMD2<Float>(SIMD2(-u.y, u.x) / (u * u).sum().squareRoot())
      for normal in [outline.na[k], outline.nb[k]] {
        worst = max(worst, acos(min(1, (normal * n).sum())) * 180 / .pi)
      }
      checked += 1
    }
    print("aliased square: worst normal off its side by \(worst) degrees over \(checked) pieces")
    XCTAssertGreaterThan(checked, 60)
    XCTAssertLessThan(worst, 2)
  }

  /// A picture mask keeps its own frame unless asked: `--padding` cuts the canvas to its
  /// ink plus that margin, `--canvas` centers its ink on a canvas of that size (refused
  /// when the ink does not fit), and the traced outline moves with the ink.
  func testPaddingAndCanvasFrameAPictureMask() throws {
    // A black 20 x 10 block at (30, 12) in a 100 x 40 white picture.
    var pixels = [Float](repeating: 1, count: 100 * 40)
    for y in 12..<22 { for x in 30..<50 { pixels[y * 100 + x] = 0 } }
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("block.png").path
    try PNGCodec.encodeGray(Plane(width: 100, height: 40, pixels: pixels)).write(
      to: URL(fileURLWithPath: file))
    func mask(padding: Float? = nil, canvas: CanvasSize? = nil) throws -> CoverageMask {
      var timings = StageTimings()
      return try Pipeline.mask(
        .picture(PictureMask(path: file, padding: padding, canvas: canvas)),
        resources: Fixtures.resources, timings: &timings
      ).coverage
    }
    let plain = try mask()
    XCTAssertEqual([plain.width, plain.height], [100, 40])
    let padded = try mask(padding: 5)
    XCTAssertEqual([padded.width, padded.height], [30, 20])
    XCTAssertEqual(padded.inkBounds, PixelRect(x: 5, y: 5, width: 20, height: 10))
    let outline = try XCTUnwrap(padded.outline)
    XCTAssertEqual(outline.a.map(\.x).min() ?? 0, 5, accuracy: 0.01)
    XCTAssertEqual(outline.a.map(\.y).max() ?? 0, 15, accuracy: 0.01)
    let centered = try mask(padding: 5, canvas: CanvasSize(width: 60, height: 31))
    XCTAssertEqual([centered.width, centered.height], [60, 31])
    XCTAssertEqual(centered.inkBounds, PixelRect(x: 20, y: 10, width: 20, height: 10))
    XCTAssertThrowsError(try mask(canvas: CanvasSize(width: 10, height: 10)))
  }

  /// A picture whose traced iso-line leaves a crumb at the canvas's border makes a finite
  /// relief.
  ///
  /// The crumb was a piece about 1e-22 px long at the left border, whose squared length
  /// underflowed: its scan polygon was infinite and the render trapped. Found by a
  /// random-mask run.
  func testACrumbAtTheBorderMakesAFiniteRelief() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/pictures/border-crumb.png").path
    let mask = try ImageMask.read(path: path, mode: .threshold, invert: true, threshold: 128)
    let relief = try ReliefSpec(radius: 12.45, profile: .chiselHard, insideCorners: .mitre)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    XCTAssertGreaterThan(field.region.width, 0)
    XCTAssert(field.plane.pixels.allSatisfy(\.isFinite))
    XCTAssert(field.slopes.allSatisfy { $0.x.isFinite && $0.y.isFinite })
  }

  /// An outline's area coverage is the exact area of ink in each pixel.
  ///
  /// Checked against the W's polygon clipped to each pixel, in floats: 16 bits of alpha, not
  /// FreeType's 8. Two squares over
  /// part of it (overlapping contours, unioned) count once where they overlap.
  func testAreaCoverageIsExact() throws {
    let polygon = Self.w
    func edges(_ points: [SIMD2<Double>]) -> [Outline.Edge] {
      points.indices.map { i in
        let a = SIMD2<Float>(points[i])
        let b = SIMD2<Float>(points[(i + 1) % points.count])
        let u = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
        return Outline.Edge(a: a, b: b, ta: u, tb: u)
      }
    }
    // Two squares over the W's left arm, overlapping it and each other (a font's overlaps).
    let square: [SIMD2<Double>] = [
      SIMD2(10.25, 20.5), SIMD2(30.75, 20.5), SIMD2(30.75, 40.25), SIMD2(10.25, 40.25),
    ]
    let other = square.map { $0 + SIMD2(3.3, 2.1) }
    let outline = Outline(contours: [edges(polygon), edges(square), edges(other)])
    let region = PixelRect(x: -2, y: -1, width: 126, height: 103)
    let coverage = outline.areaCoverage(region: region)
    var worst = 0.0
    var total = (ink: 0.0, truth: 0.0)
    for y in 0..<region.height {
      for x in 0..<region.width {
        let (cx, cy) = (x + region.x, y + region.y)
        // The union's area in the pixel, by inclusion and exclusion.
        func area(_ shape: [SIMD2<Double>]) -> Double {
          shape.isEmpty ? 0 : Self.coverage(of: shape, x: cx, y: cy)
        }
        let ws = Self.clip(polygon, to: square)
        let truth =
          area(polygon) + area(square) + area(other) - area(ws)
          - area(Self.clip(polygon, to: other)) - area(Self.clip(square, to: other))
          + area(Self.clip(ws, to: other))
        let got = Double(coverage.pixels[y * region.width + x])
        worst = max(worst, abs(got - truth))
        total.ink += got
        total.truth += truth
      }
    }
    print("area coverage: largest error \(worst), ink \(total.ink) of \(total.truth)")
    XCTAssertLessThanOrEqual(worst, 1e-3)
  }

  /// `polygon` clipped to the convex `window` (Sutherland-Hodgman).
  static func clip(_ polygon: [SIMD2<Double>], to window: [SIMD2<Double>]) -> [SIMD2<Double>] {
    var points = polygon
    for i in window.indices {
      let a = window[i]
      let b = window[(i + 1) % window.count]
      // Inside: left of a -> b in y-down coordinates for a clockwise-on-screen window.
      func side(_ p: SIMD2<Double>) -> Double {
        (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
      }
      var out: [SIMD2<Double>] = []
      for (j, p) in points.enumerated() {
        let q = points[(j + 1) % points.count]
        let (sp, sq) = (side(p), side(q))
        if sp >= 0 { out.append(p) }
        if (sp >= 0) != (sq >= 0) { out.append(p + (q - p) * (sp / (sp - sq))) }
      }
      points = out
      if points.isEmpty { return [] }
    }
    return points
  }

  /// Inside a disk the distance to the rim is R - r.
  func testDistancesInsideADisk() throws {
    let (cx, cy, radius) = (40.3, 38.7, 31.6)
    let mask = Fixtures.mask(width: 82, height: 80, samples: 32) { x, y in
      (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius
    }
    let worst = worstError(mask) { p in
      radius - ((p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy)).squareRoot()
    }
    print("disk: largest distance error \(worst.error) px at \(worst.x), \(worst.y)")
    XCTAssertLessThanOrEqual(worst.error, 0.1)
  }

  /// In a ring 5 px wide the distance is the nearer of the two rims: both walls are found,
  /// and the fold between them runs along the middle circle.
  func testDistancesInsideAThinRing() throws {
    let (cx, cy, inner, outer) = (30.4, 29.8, 19.3, 24.3)
    let mask = Fixtures.mask(width: 62, height: 61, samples: 32) { x, y in
      let r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy)
      return r2 <= outer * outer && r2 >= inner * inner
    }
    let worst = worstError(mask) { p in
      let r = ((p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy)).squareRoot()
      return min(r - inner, outer - r)
    }
    print("thin ring: largest distance error \(worst.error) px at \(worst.x), \(worst.y)")
    XCTAssertLessThanOrEqual(worst.error, 0.1)
  }

  /// The search (transform, walk, sweeps) finds exactly the nearest segment of the edge
  /// polygon, checked by brute force over every segment on random blobs.
  func testSearchFindsTheNearestSegment() throws {
    var generator = SeededGenerator(state: 7)
    for _ in 0..<6 {
      let blobs = (0..<7).map { _ in
        (
          Double.random(in: 5...55, using: &generator),
          Double.random(in: 5...45, using: &generator),
          Double.random(in: 2...11, using: &generator)
        )
      }
      let mask = Fixtures.mask(width: 60, height: 50, samples: 4) { x, y in
        blobs.contains { (x - $0.0) * (x - $0.0) + (y - $0.1) * (y - $0.1) <= $0.2 * $0.2 }
      }
      let field = EdgeDistance.field(mask: mask.plane, region: mask.plane.bounds)
      // Every segment, in pixel coordinates.
      var segments: [SIMD4<Float>] = []
      for k in 0..<(field.cellStart.count - 1) {
        let (cy, cx) = k.quotientAndRemainder(dividingBy: field.cellWidth)
        let origin = SIMD4(Float(cx - 1), Float(cy - 1), Float(cx - 1), Float(cy - 1))
        for j in Int(field.cellStart[k])..<Int(field.cellStart[k + 1]) {
          segments.append(field.segments[j] + origin)
        }
      }
      for y in 0..<50 {
        for x in 0..<60 where mask[x, y] >= 0.5 {
          let p = SIMD2(Float(x), Float(y))
          let truth =
            segments.map { EdgeDistance.nearest(to: p, on: $0).distance }.min() ?? .infinity
          XCTAssertEqual(field.distance[y * 60 + x], truth, accuracy: 1e-4, "pixel \(x), \(y)")
        }
      }
    }
  }

  /// Every ink pixel near the edge gets a distance.
  ///
  /// None is left as plateau (height 1) within two pixels of the ink's edge. A reflex corner where a curve meets a stem (the crotch of
  /// "n" at 140 px, radius 8.75) had left a pixel a pixel inside untouched by every slab and
  /// wedge: a plateau pixel on the bevel, looked up at the ball's center (a hot pixel).
  func testNoPixelNearTheEdgeIsLeftAsPlateau() throws {
    let font = try Fixtures.font()
    for (text, size) in [("Lantern Pier 58", Float(140)), ("nmhru anm", 97), ("nnnn", 123)] {
      for shift in 0..<4 {
        let mask = try TextLayout(
          text: text, font: font, style: TextStyle(pixelSize: size + Float(shift) * 0.37)
        ).rasterize()
        let relief = try ReliefSpec(
          radius: size / 16, profile: .round, depth: .radiusMultiple(1), direction: .raised,
          insideCorners: .mitre)
        let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
        var stray: [String] = []
        for y in 1..<(mask.height - 1) {
          for x in 1..<(mask.width - 1) where field.height(x: x, y: y) >= 1 {
            // A plateau pixel two pixels or less from a pixel with less than full ink.
            var nearEdge = false
            for dy in -2...2 {
              for dx in -2...2 where mask[x + dx, y + dy] < 1 { nearEdge = true }
            }
            if nearEdge { stray.append("(\(x), \(y))") }
          }
        }
        XCTAssertEqual(stray, [], "\(text) at \(size + Float(shift) * 0.37) px")
      }
    }
  }
}
