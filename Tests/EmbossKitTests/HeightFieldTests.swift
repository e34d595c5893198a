import EmbossKit
import XCTest

@testable import EmbossRelief

final class HeightFieldTests: XCTestCase {
  /// A straight edge at a fractional position: distances are exact to a small fraction of a
  /// pixel, which only the anti-aliased (sub-pixel) correction can give.
  func testSubPixelDistanceToAStraightEdge() throws {
    for edge in [10.0, 10.3, 10.5, 10.85] {
      // Exact area coverage of the half-plane x >= edge, inside a box.
      var plane = Plane(width: 60, height: 60)
      for y in 5..<55 {
        for x in 0..<50 { plane[x, y] = Float(min(max(Double(x + 1) - edge, 0), 1)) }
      }
      let mask = CoverageMask(plane: plane)
      let distance = EdgeDistance.inside(
        mask: mask.plane, region: mask.inkBounds.grown(by: 1), parallelism: .serial)
      let region = mask.inkBounds.grown(by: 1)
      for x in Int(edge.rounded(.up))..<25 {
        let expected = Double(x) + 0.5 - edge
        let got = Double(distance[x - region.x, 30 - region.y])
        XCTAssertEqual(got, expected, accuracy: 0.02, "edge \(edge), x \(x)")
      }
    }
  }

  func testSubPixelDistanceToADiagonalEdge() throws {
    // Edge through (20, 0) at 30 degrees from vertical; inside to its right.
    let angle = 30.0 * Double.pi / 180
    let normal = (cos(angle), -sin(angle))
    let mask = Fixtures.mask(width: 100, height: 100, samples: 16) { x, y in
      (x - 20) * normal.0 + y * normal.1 >= 0 && x < 95 && y >= 5 && y < 95
    }
    let region = mask.inkBounds.grown(by: 1)
    let distance = EdgeDistance.inside(mask: mask.plane, region: region, parallelism: .serial)
    var worst = 0.0
    for y in 20..<80 {
      for x in 0..<90 {
        let expected = (Double(x) + 0.5 - 20) * normal.0 + (Double(y) + 0.5) * normal.1
        guard expected > 0.6, expected < 10 else { continue }
        let got = Double(distance[x - region.x, y - region.y])
        worst = max(worst, abs(got - expected))
      }
    }
    XCTAssertLessThan(worst, 0.08)
  }

  /// Inside a disk the distance to the rim is R - r: within 0.08 px up to 12 px in (a curved
  /// edge is modelled by pixel-long tangent segments).
  func testDistanceInsideADisk() throws {
    let (cx, cy, radius) = (32.3, 30.7, 24.6)
    let mask = Fixtures.mask(width: 66, height: 64, samples: 32) { x, y in
      (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius
    }
    let region = mask.inkBounds.grown(by: 1)
    let distance = EdgeDistance.inside(mask: mask.plane, region: region, parallelism: .serial)
    var worst = 0.0
    for y in 0..<64 {
      for x in 0..<66 {
        let r =
          ((Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx) + (Double(y) + 0.5 - cy)
            * (Double(y) + 0.5 - cy))
          .squareRoot()
        let expected = radius - r
        guard expected > 0.6, expected < 12 else { continue }
        let error = abs(Double(distance[x - region.x, y - region.y]) - expected)
        worst = max(worst, error)
      }
    }
    XCTAssertLessThan(worst, 0.08)
  }

  func testHeightsFollowTheProfileAndReachThePlateau() throws {
    let mask = Fixtures.mask(width: 80, height: 80) { x, y in
      x >= 10 && x <= 70 && y >= 10 && y <= 70
    }
    for profile in ReliefProfile.allCases {
      let field = HeightField.make(
        mask: mask, relief: try ReliefSpec(radius: 10, profile: profile), parallelism: .serial)
      XCTAssertEqual(field.height(x: 5, y: 40), 0, "outside is 0")
      XCTAssertEqual(field.height(x: 40, y: 40), 1, "plateau is 1")
      // Along a row through the middle, heights rise monotonically over the radius.
      var previous: Float = 0
      for x in 10..<22 {
        let h = field.height(x: x, y: 40)
        XCTAssertGreaterThanOrEqual(h, previous, "\(profile) at x \(x)")
        previous = h
      }
      // (An inflated relief's heights follow the swell, not the distance: InflationTests.)
      guard profile != .inflated else { continue }
      let t: Float = (15.5 - 10) / 10
      XCTAssertEqual(field.height(x: 15, y: 40), profile.height(t), accuracy: 0.01, "\(profile)")
    }
  }

  func testProfilesHaveTheirShapes() throws {
    XCTAssertEqual(ReliefProfile.linear.height(0.25), 0.25)
    XCTAssertEqual(ReliefProfile.round.height(0.5), (0.75 as Float).squareRoot(), accuracy: 1e-6)
    XCTAssertEqual(ReliefProfile.smooth.height(0.5), 0.5, accuracy: 1e-6)
    for profile in ReliefProfile.allCases {
      XCTAssertEqual(profile.height(0), 0)
      XCTAssertEqual(profile.height(1), 1)
      XCTAssertEqual(profile.height(7), 1)
    }
  }

  func testLoweredDirectionNegatesHeights() throws {
    let mask = Fixtures.mask(width: 40, height: 40) { x, y in x >= 5 && x <= 35 && y >= 5 && y <= 35
    }
    let raised = HeightField.make(
      mask: mask, relief: try ReliefSpec(direction: .raised), parallelism: .serial)
    let lowered = HeightField.make(
      mask: mask, relief: try ReliefSpec(direction: .lowered), parallelism: .serial)
    XCTAssertEqual(raised.plane.pixels.map { -$0 }, lowered.plane.pixels)
  }

  func testEmptyMaskGivesEmptyField() throws {
    let field = HeightField.make(
      mask: CoverageMask(plane: Plane(width: 10, height: 10)), relief: try ReliefSpec())
    XCTAssertTrue(field.region.isEmpty)
    XCTAssertEqual(field.height(x: 3, y: 3), 0)
  }

  func testSameFieldOnAnyThreadCount() throws {
    let mask = Fixtures.mask(width: 90, height: 70) { x, y in
      ((x - 45) * (x - 45)) / 1600 + ((y - 35) * (y - 35)) / 900 <= 1
    }
    let one = HeightField.make(
      mask: mask, relief: try ReliefSpec(), parallelism: Parallelism(threads: 1))
    let seven = HeightField.make(
      mask: mask, relief: try ReliefSpec(), parallelism: Parallelism(threads: 7))
    XCTAssertEqual(one, seven)
  }

  /// A relief made a band of rows at a time (as a render that writes codes makes it) has the
  /// whole field's heights, slopes and sub-samples on those rows, for any rows: at the top,
  /// across the whole field's own bands, a single row, the bottom; text and a traced picture.
  func testBandsAreTheWholeFieldsRows() throws {
    let text = try TextLayout(
      text: "Wavy&4", font: Fixtures.font(), style: TextStyle(pixelSize: 90)
    ).rasterize()
    let picture = Fixtures.mask(width: 90, height: 70, samples: 8) { x, y in
      ((x - 45) * (x - 45)) / 1600 + ((y - 35) * (y - 35)) / 900 <= 1
    }
    // A W whose bottom notch's mitre runs up past the top of its middle peak's walls.
    let w = ExactDistanceTests.outlineMask(ExactDistanceTests.w, width: 122, height: 100)
    for (name, mask) in [("text", text), ("picture", picture), ("W", w)] {
      for relief in [
        try ReliefSpec(), try ReliefSpec(radius: 6, profile: .chiselHard),
        // Mitres reach far along their bisectors, into bands far from their corners.
        try ReliefSpec(radius: 12, profile: .linear, insideCorners: .mitre),
      ] {
        let whole = HeightField.make(mask: mask, relief: relief)
        let bands = HeightField.Bands(mask: mask, relief: relief)
        let h = whole.region.height
        for rows in [0..<5, 7..<40, 12..<17, 31..<33, 40..<41, (h - 9)..<h] {
          let band = bands.field(rows: rows)
          let w = whole.region.width
          let range = (rows.lowerBound * w)..<(rows.upperBound * w)
          let label = "\(name), radius \(relief.radius), \(relief.insideCorners), rows \(rows)"
          XCTAssertEqual(
            band.region,
            PixelRect(
              x: whole.region.x, y: whole.region.y + rows.lowerBound, width: w,
              height: rows.count), label)
          XCTAssertEqual(band.plane.pixels, Array(whole.plane.pixels[range]), label)
          XCTAssertEqual(band.slopes, Array(whole.slopes[range]), label)
          // The whole field's sub-samples on those rows, their pixels counted from the band.
          var pixels: [Int32] = []
          var offsets: [Int32] = [0]
          var slopes: [SIMD2<Float>] = []
          var weights: [Float] = []
          for k in 0..<whole.samples.count where range.contains(Int(whole.samples.pixels[k])) {
            let part = Int(whole.samples.offsets[k])..<Int(whole.samples.offsets[k + 1])
            pixels.append(whole.samples.pixels[k] - Int32(range.lowerBound))
            slopes += whole.samples.slopes[part]
            weights += whole.samples.weights[part]
            offsets.append(Int32(slopes.count))
          }
          XCTAssertGreaterThan(whole.samples.count, 0, label)
          XCTAssertEqual(band.samples.pixels, pixels, "\(label): sub-sampled pixels")
          XCTAssertEqual(band.samples.offsets, offsets, "\(label): sub-sample offsets")
          XCTAssertTrue(band.samples.slopes == slopes, "\(label): sub-sample slopes")
          XCTAssertTrue(band.samples.weights == weights, "\(label): sub-sample weights")
        }
      }
    }
  }

  /// Acute notches get rebuilt tips from the walls around them: a band boundary just below
  /// one (row 100 of this region on 3 threads) must still see the same walls, so any thread
  /// count gives the same field, sub-samples included.
  func testNotchTipsDoNotDependOnBands() throws {
    let mask = try TextLayout(
      text: "NWMVAK4", font: Fixtures.font(), style: TextStyle(pixelSize: 200)
    ).rasterize()
    for relief in [try ReliefSpec(), try ReliefSpec(radius: 4, profile: .linear)] {
      let one = HeightField.make(mask: mask, relief: relief, parallelism: Parallelism(threads: 1))
      for threads in [2, 3, 5] {
        let other = HeightField.make(
          mask: mask, relief: relief, parallelism: Parallelism(threads: threads))
        XCTAssertTrue(one == other, "\(threads) threads, radius \(relief.radius)")
      }
    }
  }
}

extension HeightFieldTests {
  /// Brute force: the distance from `p` to the nearest piece of `outline`.
  static func distance(_ p: SIMD2<Float>, to outline: Outline) -> Float {
    var best = Float.infinity
    for k in 0..<outline.count {
      let a = outline.a[k]
      let v = outline.b[k] - a
      let t = min(max(((p - a) * v).sum() / max((v * v).sum(), 1e-12), 0), 1)
      let c = p - (a + v * t)
      best = min(best, (c * c).sum().squareRoot())
    }
    return best
  }

  /// Heights follow the profile at the exact distance to the traced outline, computed by
  /// brute force over every piece, on 3 threads (bands).
  func testHeightsAreTheProfileOfTheExactDistanceToTheOutline() throws {
    let mask = Fixtures.mask(width: 70, height: 420, samples: 4) { x, y in
      let center = 35 + 18 * sin(y / 40)
      return abs(x - center) < 9 + 4 * cos(y / 23) && y > 4 && y < 414
    }
    let region = mask.inkBounds.grown(by: 1)
    let outline = Outline(traced: EdgeDistance.isoline(mask: mask.plane, region: region))
    XCTAssertGreaterThan(outline.count, 100)
    for relief in [
      try ReliefSpec(radius: 6, profile: .linear), try ReliefSpec(radius: 3.5, profile: .round),
    ] {
      let field = HeightField.make(mask: mask, relief: relief, parallelism: Parallelism(threads: 3))
      XCTAssertEqual(field.region, region)
      var worst: Float = 0
      var at = ""
      for y in 0..<region.height {
        for x in 0..<region.width {
          let cx = region.x + x
          let cy = region.y + y
          guard cx >= 0, cy >= 0, cx < mask.width, cy < mask.height else { continue }
          let coverage = mask[cx, cy]
          // Every fourth pixel in a diagonal pattern (brute force is slow under sanitizers).
          guard coverage == 1 || coverage == 0, (x + 2 * y) % 4 == 0 else { continue }
          let d = Self.distance(SIMD2(Float(cx) + 0.5, Float(cy) + 0.5), to: outline)
          let expected = coverage == 1 ? relief.profile.height(d / relief.radius) : 0
          if abs(field.plane[x, y] - expected) > worst {
            worst = abs(field.plane[x, y] - expected)
            at =
              "\(cx), \(cy): \(field.plane[x, y]) for \(expected), coverage \(coverage), distance \(d)"
          }
        }
      }
      XCTAssertLessThan(worst, 1e-4, "radius \(relief.radius), worst at \(at)")
    }
  }

  /// Text: distances to the glyphs' own outline (FreeType's, flattened), brute force.
  func testTextHeightsFollowTheGlyphOutline() throws {
    let mask = try TextLayout(
      text: "Qy&", font: Fixtures.font(), style: TextStyle(pixelSize: 60)
    ).rasterize()
    let outline = try XCTUnwrap(mask.outline)
    let relief = try ReliefSpec(radius: 5, profile: .linear)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: Parallelism(threads: 2))
    var worst: Float = 0
    var checked = 0
    for y in 0..<mask.height {
      for x in 0..<mask.width where mask[x, y] == 1 {
        let d = Self.distance(SIMD2(Float(x) + 0.5, Float(y) + 0.5), to: outline)
        worst = max(worst, abs(field.height(x: x, y: y) - min(d / 5, 1)))
        checked += 1
      }
    }
    XCTAssertGreaterThan(checked, 500)
    XCTAssertLessThan(worst, 1e-4)
  }

  /// Two overlapping disks drawn the same way round (as fonts with overlapping contours draw
  /// them), with a hole in the first drawn the other way: the union by the nonzero rule
  /// keeps only the ink's boundary, oriented, linked, and distances are to it.
  func testOverlappingContoursAreUnioned() throws {
    func circle(_ c: SIMD2<Float>, _ r: Float, clockwise: Bool) -> [Outline.Edge] {
      let steps = 96
      let points = (0..<steps).map { i -> SIMD2<Float> in
        let t = Float(i) / Float(steps) * 2 * .pi * (clockwise ? -1 : 1)
        return c + r * SIMD2(cos(t), sin(t))
      }
      return points.indices.map { i in
        let a = points[i]
        let b = points[(i + 1) % steps]
        let u = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
        return Outline.Edge(a: a, b: b, ta: u, tb: u)
      }
    }
    let c1 = SIMD2<Float>(40, 50)
    let c2 = SIMD2<Float>(66, 50)
    // The hole turns against the first disk (nonzero: winding 0 inside it).
    let outline = Outline(contours: [
      circle(c1, 20, clockwise: false), circle(c2, 20, clockwise: false),
      circle(c1, 5, clockwise: true),
    ])
    func length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }
    XCTAssertGreaterThan(outline.count, 150)
    for k in 0..<outline.count {
      let m = (outline.a[k] + outline.b[k]) * 0.5
      let r1 = length(m - c1)
      let r2 = length(m - c2)
      // On the union's boundary: on one circle and outside the other disk, or on the hole.
      let onBoundary =
        (abs(r1 - 20) < 0.1 && r2 > 19.9) || (abs(r2 - 20) < 0.1 && r1 > 19.9) || abs(r1 - 5) < 0.1
      XCTAssertTrue(onBoundary, "piece \(k) at \(m)")
      // Its normal points into the ink.
      let v = outline.b[k] - outline.a[k]
      let n = SIMD2(-v.y, v.x) / length(v)
      let inkward = m + n * 0.5
      let inInk =
        (length(inkward - c1) < 20 && length(inkward - c1) > 5) || length(inkward - c2) < 20
      XCTAssertTrue(inInk, "piece \(k) at \(m) faces away from the ink")
      XCTAssertGreaterThanOrEqual(outline.next[k], 0, "piece \(k) links to the next")
    }
    // Where the disks overlap, the hidden arc of the second (4 pixels away) is gone: the
    // nearest boundary is the hole's, 5 pixels away.
    XCTAssertEqual(Self.distance(SIMD2(50, 50), to: outline), 5, accuracy: 0.01)
  }

  /// Contours that only touch or run together, as neighbouring glyphs do, are unioned.
  ///
  /// As in Devanagari's headline or letters set tight: two bars on one line whose top and
  /// bottom edges overlap, a stem whose top lies along the second bar's bottom, and a triangle
  /// whose apex sits on the first bar's top. The union's boundary is kept whole and once: nothing inside the
  /// ink (the bars' inner ends, where a groove ran across the headline), nothing missing
  /// (where whole letters lost their bevel), no edge twice.
  func testContoursThatTouchOrRunTogetherAreUnioned() throws {
    func polygon(_ points: [SIMD2<Float>]) -> [Outline.Edge] {
      points.indices.map { i in
        let (a, b) = (points[i], points[(i + 1) % points.count])
        let u = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
        return Outline.Edge(a: a, b: b, ta: u, tb: u)
      }
    }
    func rect(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> [SIMD2<Float>] {
      [SIMD2(x0, y0), SIMD2(x1, y0), SIMD2(x1, y1), SIMD2(x0, y1)]
    }
    let triangle: [SIMD2<Float>] = [SIMD2(14, 5), SIMD2(26, 5), SIMD2(20, 20)]
    let outline = Outline(contours: [
      polygon(rect(10, 20, 40, 30)), polygon(rect(35, 20, 70, 30)),
      polygon(rect(50, 30, 56, 60)), polygon(triangle),
    ])
    func inInk(_ p: SIMD2<Float>) -> Bool {
      let inBar = p.x > 10 && p.x < 70 && p.y > 20 && p.y < 30
      let inStem = p.x > 50 && p.x < 56 && p.y > 30 && p.y < 60
      // Above the top side, under the two slanted ones.
      let inTriangle = p.y > 5 && p.y < 20 && abs(p.x - 20) < (20 - p.y) * 0.4
      return inBar || inStem || inTriangle
    }
    var total: Float = 0
    for k in 0..<outline.count {
      let v = outline.b[k] - outline.a[k]
      let length = (v * v).sum().squareRoot()
      total += length
      let m = (outline.a[k] + outline.b[k]) * 0.5
      let n = SIMD2(-v.y, v.x) / length
      XCTAssertTrue(inInk(m + n * 0.01), "piece \(k) at \(m): ink on its normal's side")
      XCTAssertFalse(inInk(m - n * 0.01), "piece \(k) at \(m): none on the other")
    }
    // The union's perimeter: the bar 60 + 10 + 10 + 60 less the stem's 6, the stem's three
    // sides 66, the triangle's 12 + 2 sqrt(6^2 + 15^2).
    let perimeter = 200 + 12 + 2 * (Float(6 * 6 + 15 * 15)).squareRoot()
    XCTAssertEqual(total, perimeter, accuracy: 1e-3)
    // Where the bars overlap, the nearest boundary is their top and bottom, 5 px away.
    XCTAssertEqual(Self.distance(SIMD2(40, 25), to: outline), 5, accuracy: 1e-4)
    XCTAssertEqual(Self.distance(SIMD2(36, 25), to: outline), 5, accuracy: 1e-4)
  }

  /// A tilted convex heptagon of radius 40 centered in a 100 x 100 canvas.
  static let heptagon: [SIMD2<Double>] = (0..<7).map { (i: Int) -> SIMD2<Double> in
    let angle = (17 + 360 * Double(i) / 7) * Double.pi / 180
    return SIMD2(50 + 40 * cos(angle), 50 + 40 * sin(angle))
  }

  /// A linear bevel on a straight edge is a plane: every pixel of a face (away from its
  /// edges and mitres) has the same slope, exactly, on a tilted convex polygon.
  func testPlanarFacesHaveOneSlope() throws {
    let polygon = Self.heptagon
    let mask = ExactDistanceTests.mask(polygon, width: 100, height: 100)
    for direction in [ReliefDirection.raised, .lowered] {
      let relief = try ReliefSpec(radius: 14, profile: .linear, direction: direction)
      let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
      var faces = [[SIMD2<Float>]](repeating: [], count: 7)
      for y in 0..<100 {
        for x in 0..<100 {
          let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
          // Distances to each edge's line (inside: positive).
          var distances: [Double] = []
          for i in 0..<7 {
            let a = polygon[i]
            let b = polygon[(i + 1) % 7]
            let u = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
            distances.append(abs(u.x * (p.y - a.y) - u.y * (p.x - a.x)))
          }
          let sorted = distances.sorted()
          // Inside, past the edge, off the plateau, well away from any mitre.
          guard mask[x, y] == 1, sorted[0] > 1.5, sorted[0] < 12.5,
            sorted[1] - sorted[0] > 1.5
          else { continue }
          faces[distances.firstIndex(of: sorted[0]) ?? 0].append(field.slope(x: x, y: y))
        }
      }
      for (i, slopes) in faces.enumerated() {
        XCTAssertGreaterThan(slopes.count, 50)
        let first = try XCTUnwrap(slopes.first)
        let spread = slopes.map { (($0 - first) * ($0 - first)).sum().squareRoot() }.max() ?? 0
        print(
          "face \(i) \(direction): \(slopes.count) pixels, slope spread \(spread * 14) of the slope"
        )
        XCTAssertLessThan(spread * 14, 1e-3, "face \(i), \(direction)")
      }
    }
  }

  /// A strip weighs its bins by the share of the pixel at their distances: the area of the
  /// unit square below a line at `u` from its center, across directions, against a count of
  /// points on a fine grid.
  func testPixelShareIsTheAreaBelowADistance() {
    let n = 400
    for degrees in [0.0, 7, 22.5, 45, 61, 90, 133, 200, 315] {
      let angle = Float(degrees * .pi / 180)
      let g = SIMD2(cos(angle), sin(angle))
      for u: Float in [-0.8, -0.6, -0.45, -0.2, -0.05, 0, 0.1, 0.33, 0.5, 0.69, 0.9] {
        var below = 0
        for j in 0..<n {
          for i in 0..<n {
            let p = SIMD2((Float(i) + 0.5) / Float(n) - 0.5, (Float(j) + 0.5) / Float(n) - 0.5)
            if (p * g).sum() <= u { below += 1 }
          }
        }
        XCTAssertEqual(
          Bevel.pixelShare(below: u, direction: g), Float(below) / Float(n * n), accuracy: 0.004,
          "\(degrees) degrees, u \(u)")
      }
    }
  }

  /// The ink's edge along a straight side is sampled as strips (a bin per step of distance,
  /// then the turn), whose weights add up to the pixel's ink (one side bounds it, even beside
  /// a corner); pixels that hold a corner keep their 4 x 4 samples.
  func testStraightEdgesAreStripsAndCornersAreNot() throws {
    let polygon = Self.heptagon
    let mask = ExactDistanceTests.outlineMask(polygon, width: 100, height: 100)
    let relief = try ReliefSpec(radius: 14, profile: .round)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    let samples = field.samples
    var (strips, corners) = (0, 0)
    for k in 0..<samples.count {
      let (row, column) = Int(samples.pixels[k]).quotientAndRemainder(
        dividingBy: field.region.width)
      let (x, y) = (column + field.region.x, row + field.region.y)
      let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
      let count = Int(samples.offsets[k + 1] - samples.offsets[k])
      // A corner inside the pixel: two sides bound its ink.
      let nearCorner = polygon.contains { abs($0.x - p.x) < 0.55 && abs($0.y - p.y) < 0.55 }
      if nearCorner {
        XCTAssertNotEqual(count, SubSamples.stripCount, "corner pixel (\(x), \(y))")
        corners += 1
        continue
      }
      guard count == SubSamples.stripCount else { continue }
      strips += 1
      let start = Int(samples.offsets[k])
      let ink = samples.weights[start..<(start + SubSamples.stripBins)].reduce(0, +)
      XCTAssertEqual(ink, mask[x, y], accuracy: 0.01, "ink of strip (\(x), \(y))")
      XCTAssertEqual(samples.weights[start + SubSamples.stripBins], 0)
      // A straight side does not turn.
      XCTAssertEqual(samples.slopes[start + SubSamples.stripBins].x, 0, accuracy: 1e-4)
    }
    // Every side's edge pixels, away from the corners, are strips.
    XCTAssertGreaterThan(strips, 7 * 2 * 30)
    XCTAssertGreaterThanOrEqual(corners, 7)
  }

  /// An inflated relief's pixels along a straight edge are strips too (the swell near the
  /// outline, a function of the distance along one direction, in 8 bins with their exact
  /// shares of the pixel), each with its ink's coverage, steepest nearest the outline.
  func testInflatedEdgesAreStrips() throws {
    let polygon = Self.heptagon
    let mask = ExactDistanceTests.outlineMask(polygon, width: 100, height: 100)
    let relief = try ReliefSpec(radius: 30, profile: .inflated)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    let samples = field.samples
    var strips = 0
    for k in 0..<samples.count {
      let count = Int(samples.offsets[k + 1] - samples.offsets[k])
      guard count == SubSamples.stripCount else { continue }
      strips += 1
      let (row, column) = Int(samples.pixels[k]).quotientAndRemainder(
        dividingBy: field.region.width)
      let (x, y) = (column + field.region.x, row + field.region.y)
      let start = Int(samples.offsets[k])
      let bins = start..<(start + SubSamples.stripBins)
      let ink = samples.weights[bins].reduce(0, +)
      XCTAssertEqual(ink, mask[x, y], accuracy: 0.01, "ink of strip (\(x), \(y))")
      let steepness = samples.slopes[bins].map { ($0 * $0).sum() }
      XCTAssertGreaterThanOrEqual(steepness[0], steepness[SubSamples.stripBins - 1])
    }
    XCTAssertGreaterThan(strips, 7 * 30, "the edge pixels along the sides are strips")
  }

  /// An inflated stroke about a pixel wide is a dome across that pixel: the sub-samples on
  /// either side of its crest slope toward their own side.
  ///
  /// A vertical bar 1.7 px wide (x 20.5...22.2) has its crest at x = 21.35, inside the
  /// pixel of column 21. Modelled as rising on at the pixel's own rate (or flat past the
  /// crest), every sub-sample sloped one way and the pixel looked up one side of the ball.
  func testAThinInflatedStrokeTurnsOverAtItsCrest() throws {
    let bar: [SIMD2<Double>] = [SIMD2(20.5, 10), SIMD2(22.2, 10), SIMD2(22.2, 60), SIMD2(20.5, 60)]
    let mask = ExactDistanceTests.outlineMask(bar, width: 40, height: 70)
    let relief = try ReliefSpec(radius: 30, profile: .inflated)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    let samples = field.samples
    var checked = 0
    for k in 0..<samples.count {
      let (row, column) = Int(samples.pixels[k]).quotientAndRemainder(
        dividingBy: field.region.width)
      let (x, y) = (column + field.region.x, row + field.region.y)
      guard x == 21, (20..<50).contains(y) else { continue }
      let range = Int(samples.offsets[k])..<Int(samples.offsets[k + 1])
      let sloped = range.filter { samples.weights[$0] > 0 }.map { samples.slopes[$0].x }
      XCTAssertLessThan(sloped.min() ?? 0, -1e-3, "a sub-sample past the crest at row \(y)")
      XCTAssertGreaterThan(sloped.max() ?? 0, 1e-3, "a sub-sample before the crest at row \(y)")
      checked += 1
    }
    XCTAssertEqual(checked, 30, "the crest's pixels are sub-sampled")
  }

  /// With `inside-corners: mitre`, each face of a linear bevel runs on as a plane past an
  /// inside corner to the corner's bisector.
  ///
  /// In the W's acute notches every height is the
  /// profile of the mitred distance (past a reflex vertex, on each edge's side of the
  /// bisector, that edge's line distance) within 0.25 px, and every pixel of a face, seams
  /// and edges aside, has that face's slope, exactly. The round field there follows the
  /// corner instead.
  func testMitredInsideCornersRunEachFaceToTheBisector() throws {
    let polygon = ExactDistanceTests.w
    let count = polygon.count
    let mask = ExactDistanceTests.outlineMask(polygon, width: 122, height: 100)
    // Orientation: inward normals from the signed area.
    var area = 0.0
    for i in 0..<count {
      let (a, b) = (polygon[i], polygon[(i + 1) % count])
      area += a.x * b.y - b.x * a.y
    }
    let inward: [SIMD2<Double>] = (0..<count).map { i in
      let v = polygon[(i + 1) % count] - polygon[i]
      let u = v / (v * v).sum().squareRoot()
      return area > 0 ? SIMD2(-u.y, u.x) : SIMD2(u.y, -u.x)
    }
    // A vertex is an inside corner where the outline turns away from the ink.
    let reflex: [Bool] = (0..<count).map { i in
      let prev = (i + count - 1) % count
      return (inward[prev] * (polygon[(i + 1) % count] - polygon[i])).sum() < 0
    }
    let radius = 14.0
    /// The mitred distance at `p` and the edge it comes from.
    func mitred(_ p: SIMD2<Double>) -> (distance: Double, edge: Int, margin: Double) {
      var best = (distance: Double.infinity, edge: -1, margin: 0.0)
      var values: [Double] = []
      for e in 0..<count {
        let (a, b) = (polygon[e], polygon[(e + 1) % count])
        let v = b - a
        let t = ((p - a) * v).sum() / (v * v).sum()
        let line = ((p - a) * inward[e]).sum()
        var d: Double
        if t >= 0 && t <= 1 {
          d = abs(line)
        } else {
          let (corner, other) = t > 1 ? (b, (e + 1) % count) : (a, (e + count - 1) % count)
          let vertex = t > 1 ? (e + 1) % count : e
          let c = p - corner
          if reflex[vertex] && line >= 0 && (c * (inward[e] - inward[other])).sum() >= 0 {
            d = line
          } else {
            d = (c * c).sum().squareRoot()
          }
        }
        values.append(d)
        if d < best.distance { best = (d, e, 0) }
      }
      let sorted = values.sorted()
      best.margin = sorted[1] - sorted[0]
      return best
    }
    let relief = try ReliefSpec(radius: Float(radius), profile: .linear, insideCorners: .mitre)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    let round = HeightField.make(
      mask: mask, relief: try ReliefSpec(radius: Float(radius), profile: .linear),
      parallelism: .serial)
    var worst = 0.0
    var faces = [[SIMD2<Float>]](repeating: [], count: count)
    var changed = 0
    for y in 0..<100 {
      for x in 0..<122 where mask[x, y] == 1 {
        let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
        let expected = mitred(p)
        guard expected.distance > 0.6, expected.distance < radius - 0.6 else { continue }
        let height = Double(field.height(x: x, y: y))
        worst = max(worst, abs(height * radius - expected.distance))
        if abs(Double(round.height(x: x, y: y)) - height) * radius > 0.5 { changed += 1 }
        if expected.margin > 1.5 { faces[expected.edge].append(field.slope(x: x, y: y)) }
      }
    }
    print("mitred W: largest distance error \(worst) px; \(changed) pixels differ from round")
    XCTAssertLessThanOrEqual(worst, 0.25)
    XCTAssertGreaterThan(changed, 100, "the notches are mitred, not round")
    for (e, slopes) in faces.enumerated() where !slopes.isEmpty {
      let expected = SIMD2<Float>(inward[e]) / Float(radius)
      let spread = slopes.map { (($0 - expected) * ($0 - expected)).sum().squareRoot() }.max() ?? 0
      XCTAssertLessThan(spread * Float(radius), 1e-3, "face \(e)")
    }
  }

  /// A softened relief's slopes at 1x are the mean of its slopes at 4x (lengths x4) over
  /// each pixel's 4 x 4 block.
  ///
  /// The slopes blurred are each pixel's (and each sub-sample cell's) mean over the
  /// distances it spans, the rise of the profile across it: a round bevel's slope grows
  /// without bound at the edge, so its slope at the middle of the span (as before) missed
  /// much of that rise, and the softened bevel came out flatter at 1x than at 4x (mercury's
  /// faces tilted too little near the edge; 33.7 dB against its 4x render on small text).
  /// Whole pixels only: an edge pixel's block holds 4x pixels without ink.
  func testSoftenedSlopesAgreeWithFourTimesTheSize() throws {
    let (cx, cy, disk) = (30.3, 28.6, 19.7)
    func field(_ k: Double) throws -> (HeightField, CoverageMask) {
      let mask = Fixtures.mask(width: Int(64 * k), height: Int(60 * k), samples: 8) { x, y in
        let (dx, dy) = (x - cx * k, y - cy * k)
        // A disk with a bar across it: curved and straight edges, and inside corners.
        return dx * dx + dy * dy <= disk * disk * k * k && abs(dy) > 3.1 * k
      }
      return (
        HeightField.make(
          mask: mask,
          relief: try ReliefSpec(radius: Float(6 * k), profile: .round, soften: Float(2 * k)),
          parallelism: .serial), mask
      )
    }
    let ((one, mask), (four, _)) = (try field(1), try field(4))
    var (difference, magnitude, total) = (Float(0), Float(0), Float(0))
    for y in 2..<58 {
      for x in 2..<62 {
        let s = one.slope(x: x, y: y)
        // Whole pixels: an edge pixel's 4 x 4 block holds pixels without ink.
        guard s != .zero, mask[x, y] == 1 else { continue }
        var mean = SIMD2<Float>.zero
        for j in 0..<4 {
          for i in 0..<4 { mean += four.slope(x: 4 * x + i, y: 4 * y + j) }
        }
        // A 4x pixel's slope is per quarter pixel: four times the 1x rise per pixel.
        mean *= 4 / 16
        let d = s - mean
        difference += (d * d).sum().squareRoot()
        magnitude += (mean * mean).sum().squareRoot() - (s * s).sum().squareRoot()
        total += (mean * mean).sum().squareRoot()
      }
    }
    // Not flatter at 1x (0.4%; it was 4.0%), and within 2.3% of the 4x mean on average (it
    // was 5.1%).
    XCTAssertLessThan(abs(magnitude / total), 0.015)
    XCTAssertLessThan(difference / total, 0.035)
  }

  /// A wide softening is Deriche's recursive Gaussian: against a Gaussian sampled out to six
  /// sigma (in Double, here) on a plane holding a step and a ridge with zero outside, it
  /// stays within 0.0005 of a unit height, the same on any thread count.
  func testWideSofteningIsAGaussian() throws {
    let (w, h) = (260, 240)
    var pixels = [Float](repeating: 0, count: w * h)
    for y in 0..<h {
      for x in 0..<w {
        let inside = x > 60 && x < 200 && y > 50 && y < 190
        let ridge = abs(x - 3 * y / 2) < 3
        pixels[y * w + x] = inside ? 1 : (ridge ? 0.5 : 0)
      }
    }
    let plane = Plane(width: w, height: h, pixels: pixels)
    /// The plane convolved with a Gaussian out to six sigma, zero outside.
    func reference(_ sigma: Double) -> [Double] {
      let radius = Int((6 * sigma).rounded(.up))
      var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
      let total = kernel.reduce(0, +)
      kernel = kernel.map { $0 / total }
      var rows = [Double](repeating: 0, count: w * h)
      for y in 0..<h {
        for x in 0..<w {
          var sum = 0.0
          for k in max(-radius, -x)...min(radius, w - 1 - x) {
            sum += kernel[k + radius] * Double(pixels[y * w + x + k])
          }
          rows[y * w + x] = sum
        }
      }
      var out = [Double](repeating: 0, count: w * h)
      for y in 0..<h {
        for x in 0..<w {
          var sum = 0.0
          for k in max(-radius, -y)...min(radius, h - 1 - y) {
            sum += kernel[k + radius] * rows[(y + k) * w + x]
          }
          out[y * w + x] = sum
        }
      }
      return out
    }
    for sigma: Float in [24.5, 30] {
      let recursive = GaussianBlur.recursive(plane, sigma: sigma, parallelism: .serial)
      let exact = reference(Double(sigma))
      var worst = 0.0
      for i in 0..<(w * h) { worst = max(worst, abs(Double(recursive.pixels[i]) - exact[i])) }
      XCTAssertLessThan(worst, 0.0005, "sigma \(sigma)")
      // The same on any thread count.
      XCTAssertEqual(
        GaussianBlur.recursive(plane, sigma: sigma, parallelism: .allCores).pixels,
        recursive.pixels)
    }
  }
}
