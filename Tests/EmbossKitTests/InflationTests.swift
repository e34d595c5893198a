import EmbossKit
import EmbossRelief
import XCTest

/// The inflated relief (`profile: inflated`) against Poisson's equation's closed forms: over
/// a disk of radius a, `φ = (a² - r²) / 4`; across a long bar w wide, `φ = x (w - x) / 2`;
/// the swell `sqrt(2φ)` is then a half ellipsoid and a half circle.
final class InflationTests: XCTestCase {
  /// A mask drawn from closed contours, with its exact outline.
  static func mask(width: Int, height: Int, contours: [[Outline.Edge]]) -> CoverageMask {
    let outline = Outline(contours: contours)
    let plane = outline.areaCoverage(region: PixelRect(x: 0, y: 0, width: width, height: height))
    return CoverageMask(plane: plane, inkBounds: plane.bounds(above: 0), outline: outline)
  }

  /// A circle as short chords, each carrying the circle's own tangents at its ends.
  static func circle(_ c: SIMD2<Float>, _ r: Float, steps: Int = 256) -> [Outline.Edge] {
    (0..<steps).map { i in
      let t0 = Float(i) / Float(steps) * 2 * .pi
      let t1 = Float(i + 1) / Float(steps) * 2 * .pi
      return Outline.Edge(
        a: c + r * SIMD2(cos(t0), sin(t0)), b: c + r * SIMD2(cos(t1), sin(t1)),
        ta: SIMD2(-sin(t0), cos(t0)), tb: SIMD2(-sin(t1), cos(t1)))
    }
  }

  /// A polygon's straight sides.
  static func polygon(_ points: [SIMD2<Float>]) -> [Outline.Edge] {
    points.indices.map { i in
      let a = points[i]
      let b = points[(i + 1) % points.count]
      let u = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
      return Outline.Edge(a: a, b: b, ta: u, tb: u)
    }
  }

  /// The swell `sqrt(2φ)` a height came from (the profile inverted: `h = t (2 - t)`, `t` the
  /// swell over the radius).
  static func swell(_ height: Float, radius: Float) -> Float {
    (1 - (1 - min(abs(height), 1)).squareRoot()) * radius
  }

  /// Over a disk, the swell is the half ellipsoid `sqrt((a² - r²) / 2)` to within a tenth of a
  /// pixel, and each slope points to the center with the closed form's steepness.
  func testADiskSwellsIntoAHalfEllipsoid() throws {
    let c = SIMD2<Float>(50.3, 47.6)
    let a: Float = 20
    let mask = Self.mask(width: 100, height: 100, contours: [Self.circle(c, a)])
    // A radius the swell never reaches (a / sqrt(2) = 14.1): no plateau.
    let radius: Float = 40
    let relief = try ReliefSpec(radius: radius, profile: .inflated)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    // Sampled 4 x 4 only near the rim, where the swell steepens without bound.
    XCTAssertGreaterThan(field.samples.count, 100)
    for pixel in field.samples.pixels {
      let (row, column) = Int(pixel).quotientAndRemainder(dividingBy: field.region.width)
      let p =
        SIMD2(Float(field.region.x + column) + 0.5, Float(field.region.y + row) + 0.5) - c
      XCTAssertGreaterThan((p * p).sum().squareRoot(), a - 2.8, "sampled at \(p)")
    }
    var (worstSwell, worstSlope, checked): (Float, Float, Int) = (0, 0, 0)
    var worstAt = ""
    for y in 0..<100 {
      for x in 0..<100 where mask[x, y] == 1 {
        let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - c
        let r = (p * p).sum().squareRoot()
        let expected = ((a * a - r * r) / 2).squareRoot()
        let got = Self.swell(field.height(x: x, y: y), radius: radius)
        worstSwell = max(worstSwell, abs(got - expected))
        // d/dr of t (2 - t), t = S / radius, S = sqrt((a² - r²) / 2): dS/dr = -r / (2 S).
        guard r > 1, r < a - 2 else { continue }
        let t = expected / radius
        let steepness = 2 * (1 - t) * r / (2 * expected * radius)
        let slope = field.slope(x: x, y: y)
        let want = -p / r * steepness
        let off = ((slope - want) * (slope - want)).sum().squareRoot() / steepness
        if off > worstSlope { (worstSlope, worstAt) = (off, "r \(r): \(slope) for \(want)") }
        checked += 1
      }
    }
    XCTAssertGreaterThan(checked, 900)
    XCTAssertLessThan(worstSwell, 0.1, "swell off the closed form, in pixels")
    XCTAssertLessThan(worstSlope, 0.03, "slope off the closed form, relative, at \(worstAt)")
  }

  /// Across a long bar the swell is a half circle: round over the middle, where a bevel
  /// would have a crease, with no step in its slope from one pixel to the next.
  func testABarSwellsIntoAHalfCircleWithoutACrease() throws {
    let (left, right, top, bottom): (Float, Float, Float, Float) = (20.3, 36.3, 10, 190)
    let w = right - left
    let mask = Self.mask(
      width: 60, height: 200,
      contours: [
        Self.polygon([
          SIMD2(left, top), SIMD2(left, bottom), SIMD2(right, bottom), SIMD2(right, top),
        ])
      ])
    let radius: Float = 30
    let field = HeightField.make(
      mask: mask, relief: try ReliefSpec(radius: radius, profile: .inflated),
      parallelism: Parallelism(threads: 3))
    let y = 100
    var slopes: [Float] = []
    for x in 21...35 {
      let u = Float(x) + 0.5 - left
      let expected = (u * (w - u)).squareRoot()
      XCTAssertEqual(
        Self.swell(field.height(x: x, y: y), radius: radius), expected, accuracy: 0.08,
        "x = \(x)")
      slopes.append(field.slope(x: x, y: y).x)
    }
    // Smooth across the middle: the slope falls steadily through zero there, each step
    // between neighbours near the middle as small as the half circle's.
    for k in 5..<9 {
      XCTAssertLessThan(slopes[k + 1], slopes[k], "the slope falls steadily at \(21 + k)")
      XCTAssertLessThan(abs(slopes[k + 1] - slopes[k]), 0.02, "no crease at \(21 + k)")
    }
  }

  /// Near a corner the swell's slope follows the solution's own gradient, not the direction
  /// to the nearest side: on a square's diagonal it points along the diagonal, right up to the
  /// corner.
  func testTheSlopeTurnsAroundACorner() throws {
    let mask = Self.mask(
      width: 60, height: 60,
      contours: [Self.polygon([SIMD2(10, 10), SIMD2(10, 50), SIMD2(50, 50), SIMD2(50, 10)])])
    let field = HeightField.make(
      mask: mask, relief: try ReliefSpec(radius: 30, profile: .inflated), parallelism: .serial)
    for k in 0..<8 {
      let slope = field.slope(x: 10 + k, y: 10 + k)
      let length = (slope * slope).sum().squareRoot()
      XCTAssertGreaterThan(length, 0, "k = \(k)")
      XCTAssertEqual(slope.x, slope.y, accuracy: 0.01 * length, "along the diagonal at \(k)")
    }
  }

  /// Around inside corners, where φ's gradient grows without bound, and at a slit narrower
  /// than a pixel that no pixel center falls in, each pixel's mean slope (over its
  /// sub-samples) agrees with the mean over its 4 x 4 pixels of the field made at 4 times the
  /// size: the relief there is solved on a grid 4 times finer.
  func testInsideCornersAgreeWithFourTimesTheSize() throws {
    // An L with a slit 0.4 px wide and 10 px deep up from its foot.
    let points: [SIMD2<Float>] = [
      SIMD2(10.2, 10.1), SIMD2(10.2, 50.1), SIMD2(20.55, 50.1), SIMD2(20.55, 40.3),
      SIMD2(20.95, 40.3), SIMD2(20.95, 50.1), SIMD2(50.2, 50.1), SIMD2(50.2, 30.27),
      SIMD2(30.37, 30.27), SIMD2(30.37, 10.1),
    ]
    func field(_ scale: Int) throws -> (CoverageMask, HeightField) {
      let f = Float(scale)
      let mask = Self.mask(
        width: 60 * scale, height: 60 * scale, contours: [Self.polygon(points.map { $0 * f })])
      let relief = try ReliefSpec(radius: 12 * f, profile: .inflated)
      return (mask, HeightField.make(mask: mask, relief: relief, parallelism: .serial))
    }
    let (mask, one) = try field(1)
    let (_, four) = try field(4)
    // Each sampled pixel's weighted mean slope.
    var means: [Int: SIMD2<Float>] = [:]
    for (k, pixel) in one.samples.pixels.enumerated() {
      let range = Int(one.samples.offsets[k])..<Int(one.samples.offsets[k + 1])
      var (sum, total) = (SIMD2<Float>.zero, Float(0))
      for j in range {
        sum += one.samples.weights[j] * one.samples.slopes[j]
        total += one.samples.weights[j]
      }
      means[Int(pixel)] = sum / total
    }
    // Relative error of each full pixel's mean slope within 3 pixels of `corner`.
    func errors(around corner: SIMD2<Float>) -> (mean: Float, worst: Float, at: String) {
      var (worst, sum, count): (Float, Float, Int) = (0, 0, 0)
      var worstAt = ""
      for y in (Int(corner.y) - 3)...(Int(corner.y) + 3) {
        for x in (Int(corner.x) - 3)...(Int(corner.x) + 3) where mask[x, y] == 1 {
          let i = (y - one.region.y) * one.region.width + x - one.region.x
          let got = means[i] ?? one.slope(x: x, y: y)
          var want = SIMD2<Float>.zero
          for v in 0..<4 {
            for u in 0..<4 { want += four.slope(x: 4 * x + u, y: 4 * y + v) }
          }
          // A slope per pixel at 4x is a quarter of one per pixel at 1x.
          want *= 4.0 / 16
          let off =
            ((got - want) * (got - want)).sum().squareRoot()
            / max((want * want).sum().squareRoot(), 0.05)
          if off > worst { (worst, worstAt) = (off, "(\(x), \(y)): \(got) for \(want)") }
          sum += off
          count += 1
        }
      }
      XCTAssertGreaterThan(count, 30)
      return (sum / Float(count), worst, worstAt)
    }
    for corner in [SIMD2<Float>(30.37, 30.27), SIMD2(20.75, 40.3)] {
      let (mean, worst, at) = errors(around: corner)
      print("inside corner \(corner): relative slope error mean \(mean), worst \(worst)")
      XCTAssertLessThan(mean, 0.02, "mean relative slope error around \(corner)")
      XCTAssertLessThan(worst, 0.1, "worst relative slope error at \(at)")
    }
  }

  /// The same field on any thread count, and a lowered one is its negative.
  func testSameOnAnyThreadCountAndLoweredIsNegated() throws {
    let mask = try TextLayout(
      text: "Lo", font: Fixtures.font(), style: TextStyle(pixelSize: 48)
    ).rasterize()
    let raised = try ReliefSpec(radius: 6, profile: .inflated)
    let one = HeightField.make(mask: mask, relief: raised, parallelism: .serial)
    let three = HeightField.make(mask: mask, relief: raised, parallelism: Parallelism(threads: 3))
    XCTAssertEqual(one, three)
    let lowered = HeightField.make(
      mask: mask, relief: try ReliefSpec(radius: 6, profile: .inflated, direction: .lowered),
      parallelism: .serial)
    XCTAssertEqual(lowered.plane.pixels, one.plane.pixels.map { -$0 })
    XCTAssertEqual(lowered.slopes, one.slopes.map { -$0 })
    XCTAssertGreaterThan(one.plane.pixels.max() ?? 0, 0.9, "wide strokes reach the plateau")
  }
}
