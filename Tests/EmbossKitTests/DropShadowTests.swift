import EmbossKit
import XCTest

@testable import EmbossCompositing

/// The letters' shadow against what it must be on simple shapes: where a hard shadow falls,
/// that the blur is a Gaussian of the asked spread that keeps the shadow's mass, that the
/// letters' own pixels are left alone, and the same bytes on any number of threads.
final class DropShadowTests: XCTestCase {
  /// A canvas with a filled square of ink.
  func square(canvas: Int = 40, at origin: Int = 15, side: Int = 10) -> CoverageMask {
    var plane = Plane(width: canvas, height: canvas)
    for y in origin..<(origin + side) {
      for x in origin..<(origin + side) { plane[x, y] = 1 }
    }
    return CoverageMask(plane: plane)
  }

  /// The picture of `mask`: red letters over `background` (straight alpha when transparent).
  func picture(_ mask: CoverageMask, background: Background) -> CanvasImage {
    var image = RGBAImage(width: mask.width, height: mask.height, fill: .zero)
    for y in 0..<mask.height {
      for x in 0..<mask.width {
        let a = mask[x, y]
        switch background {
        case .transparent: image[x, y] = SIMD4(1, 0, 0, a)
        case .color(let c): image[x, y] = SIMD4(SIMD3(1, 0, 0) * a + c * (1 - a), 1)
        case .translucent: XCTFail("not drawn here")
        }
      }
    }
    return CanvasImage(image)
  }

  func testAHardShadowFallsAwayFromTheLightByItsDistance() throws {
    let mask = square()
    let white = Background.color(SIMD3(repeating: 1))
    // Light from the right (angle 0): the shadow falls 5 pixels to the left.
    let shadow = try ShadowSpec(opacity: 1, distance: 5, softness: 0, angle: 0)
    let direction = shadow.offsetDirection(lights: [])
    XCTAssertEqual(direction.x, -1, accuracy: 1e-6)
    XCTAssertEqual(direction.y, 0, accuracy: 1e-6)
    let out = DropShadow.apply(
      to: picture(mask, background: white), mask: mask, shadow: shadow, direction: direction,
      lowered: false, background: white, parallelism: .serial
    ).flattened()
    for y in 0..<40 {
      for x in 0..<40 {
        let inSquare = (15..<25).contains(x) && (15..<25).contains(y)
        let inShadow = (10..<20).contains(x) && (15..<25).contains(y)
        let expected: SIMD4<Float> =
          inSquare ? SIMD4(1, 0, 0, 1) : inShadow ? SIMD4(0, 0, 0, 1) : SIMD4(1, 1, 1, 1)
        XCTAssertEqual(out[x, y], expected, "pixel \(x), \(y)")
      }
    }
  }

  func testTheBlurIsAGaussianOfTheAskedSpreadAndKeepsTheMass() {
    for sigma: Float in [1, 2.5, 4, 9, 16, 40] {
      let radii = DropShadow.boxRadii(sigma: sigma)
      XCTAssertEqual(radii.count, 3)
      // A box of width w has variance (w^2 - 1) / 12; three in a row add theirs.
      let variance = radii.reduce(Float(0)) {
        let w = Float(2 * $1 + 1)
        return $0 + (w * w - 1) / 12
      }
      XCTAssertEqual(variance.squareRoot(), sigma, accuracy: 0.5, "sigma \(sigma)")
    }
    XCTAssertEqual(DropShadow.boxRadii(sigma: 0), [])
    // One bright pixel in the middle of a field: the blur spreads it and keeps its mass,
    // symmetric about the pixel, with the asked standard deviation.
    let size = 101
    var values = [Float](repeating: 0, count: size * size)
    values[50 * size + 50] = 1
    let radii = DropShadow.boxRadii(sigma: 6)
    DropShadow.blur(&values, width: size, height: size, radii: radii, parallelism: .serial)
    XCTAssertEqual(values.reduce(0, +), 1, accuracy: 1e-4)
    var spread: Float = 0
    for x in 0..<size { spread += values[50 * size + x] * Float((x - 50) * (x - 50)) }
    let row = (0..<size).reduce(Float(0)) { $0 + values[50 * size + $1] }
    XCTAssertEqual((spread / row).squareRoot(), 6, accuracy: 0.5)
    XCTAssertEqual(values[50 * size + 40], values[50 * size + 60], accuracy: 1e-7)
    XCTAssertEqual(values[40 * size + 50], values[50 * size + 40], accuracy: 1e-6)
  }

  func testSoftShadowsUnderTheLettersAndInsideALoweredReliefOnAnyThreads() throws {
    let mask = square(canvas: 64, at: 20, side: 20)
    let shadow = try ShadowSpec(opacity: 0.8, distance: 4.5, softness: 3.3, angle: 120)
    let direction = shadow.offsetDirection(lights: [])
    for background in [Background.transparent, .color(SIMD3(0.2, 0.4, 0.9))] {
      let image = picture(mask, background: background)
      let serial = DropShadow.apply(
        to: image, mask: mask, shadow: shadow, direction: direction, lowered: false,
        background: background, parallelism: .serial)
      let threaded = DropShadow.apply(
        to: image, mask: mask, shadow: shadow, direction: direction, lowered: false,
        background: background, parallelism: Parallelism(threads: 3))
      XCTAssertEqual(serial, threaded)
      let flat = serial.flattened()
      let before = image.flattened()
      // Full-coverage ink is untouched; the shadow is below and to the right of the ink
      // (light from the top left), not above it.
      XCTAssertEqual(flat[30, 30], before[30, 30])
      XCTAssertNotEqual(flat[41, 38], before[41, 38])
      XCTAssertEqual(flat[30, 12], before[30, 12])
      if case .transparent = background {
        XCTAssertGreaterThan(flat[41, 38].w, 0.2)
        XCTAssertEqual(SIMD3(flat[41, 38].x, flat[41, 38].y, flat[41, 38].z), .zero)
      }
      // Lowered: the walls' shadow falls inside the letters, near their top-left edges,
      // and nothing changes outside them.
      let inner = DropShadow.apply(
        to: image, mask: mask, shadow: shadow, direction: direction, lowered: true,
        background: background, parallelism: .serial
      ).flattened()
      XCTAssertEqual(inner[41, 38], before[41, 38])
      XCTAssertEqual(inner[10, 10], before[10, 10])
      XCTAssertLessThan(inner[21, 21].x, before[21, 21].x)
      XCTAssertEqual(inner[32, 34], before[32, 34])
    }
  }

  func testWithoutOpacityThePictureIsUnchanged() throws {
    let mask = square()
    let image = picture(mask, background: .transparent)
    XCTAssertEqual(
      DropShadow.apply(
        to: image, mask: mask, shadow: .none, direction: SIMD2(1, 0), lowered: false,
        background: .transparent), image)
  }
}

/// Brushed lines: none without brushing, the same pattern for a seed and another for
/// another seed, long along the grain and short across it, the same lines at four times
/// the size with four times the width, and a brightness that changes across the grain.
final class BrushingTests: XCTestCase {
  func testBrushedLines() throws {
    XCTAssertNil(Brushing(.none))
    let detail = try DetailSpec(brushed: 0.5, brushedAngle: 30, brushedWidth: 2, seed: 7)
    let brushing = try XCTUnwrap(Brushing(detail))
    let again = try XCTUnwrap(Brushing(detail))
    let other = try XCTUnwrap(
      Brushing(try DetailSpec(brushed: 0.5, brushedAngle: 30, brushedWidth: 2, seed: 8)))
    let large = try XCTUnwrap(
      Brushing(try DetailSpec(brushed: 0.5, brushedAngle: 30, brushedWidth: 8, seed: 7)))
    var alongChange: Float = 0
    var acrossChange: Float = 0
    var seedChange: Float = 0
    for i in 0..<400 {
      let p = SIMD2(Float(i % 20) * 3.7 + 11, Float(i / 20) * 5.3 + 7)
      let v = brushing.lines(at: p)
      XCTAssertEqual(v, again.lines(at: p))
      XCTAssertLessThanOrEqual(abs(v), 1)
      XCTAssertEqual(v, large.lines(at: p * 4), accuracy: 1e-3)
      alongChange += abs(brushing.lines(at: p + brushing.along * 2) - v)
      acrossChange += abs(brushing.lines(at: p + brushing.across * 2) - v)
      seedChange += abs(other.lines(at: p) - v)
    }
    XCTAssertLessThan(alongChange * 5, acrossChange)
    XCTAssertGreaterThan(seedChange, 40)
    // The tilt is across the grain.
    let offset = brushing.normalOffset(x: 10, y: 20)
    XCTAssertLessThanOrEqual(abs(offset.tilt), 0.12 * 0.5)
    XCTAssertGreaterThanOrEqual(offset.spread, 0.2 * 0.5)
    // The lines change the brightness, within their bound, from line to line across the
    // grain far more than along it (horizontal grain: rows differ, columns barely).
    let flat = try XCTUnwrap(Brushing(try DetailSpec(brushed: 1, brushedWidth: 1.5, seed: 3)))
    var rowChange: Float = 0
    var columnChange: Float = 0
    var low: Float = 2
    var high: Float = 0
    for y in 0..<40 {
      for x in 0..<40 {
        let t = flat.tint(x: x, y: y)
        XCTAssertLessThanOrEqual(abs(t - 1), flat.shade)
        (low, high) = (min(low, t), max(high, t))
        rowChange += abs(flat.tint(x: x, y: y + 1) - t)
        columnChange += abs(flat.tint(x: x + 1, y: y) - t)
      }
    }
    XCTAssertGreaterThan(high - low, flat.shade)
    XCTAssertLessThan(columnChange * 10, rowChange)
  }

  /// `detail.brushed-length` sets how far a line runs: longer lines change less along the
  /// grain, at the same spacing and strength; the default is the lines of before the key.
  func testBrushedLengthStretchesTheLinesAlongTheGrain() throws {
    func brushing(length: Float?) throws -> Brushing {
      var v = DetailSpec.Values()
      (v.brushed, v.brushedWidth, v.seed) = (1, 1.5, 3)
      if let length { v.brushedLength = length }
      let detail = try DetailSpec(v)
      return try XCTUnwrap(Brushing(detail))
    }
    let (short, long) = (try brushing(length: 25), try brushing(length: 100))
    XCTAssertEqual(try brushing(length: nil), short)
    func change(_ b: Brushing) -> Float {
      var sum: Float = 0
      for k in 0..<400 {
        let p = SIMD2(Float(k % 20) * 7.3, Float(k / 20) * 3.1)
        sum += abs(b.lines(at: p + b.along * 10) - b.lines(at: p))
      }
      return sum
    }
    XCTAssertLessThan(change(long) * 2, change(short))
    XCTAssertThrowsError(try brushing(length: 1))
  }
}

/// Ambient occlusion from the height field: the foot of a raised square darkens, less with
/// distance and not at all past the radius' reach; its plateau and its convex top edge keep
/// their light; the same bytes on any number of threads.
final class AmbientOcclusionTests: XCTestCase {
  func testTheFootDarkensAndConvexPlacesDoNot() throws {
    var plane = Plane(width: 80, height: 80)
    for y in 20..<60 {
      for x in 20..<60 { plane[x, y] = 1 }
    }
    let mask = CoverageMask(plane: plane)
    let relief = try ReliefSpec(radius: 6, profile: .round, depth: .radiusMultiple(1))
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    let gray = SIMD4<Float>(0.5, 0.5, 0.5, 1)
    let image = CanvasImage(RGBAImage(width: 80, height: 80, fill: gray))
    let occlusion = try OcclusionSpec(strength: 1, radius: 4)
    let out = AmbientOcclusion.apply(
      to: image, height: field, mask: mask, occlusion: occlusion, scale: relief.scale,
      parallelism: .serial)
    let threaded = AmbientOcclusion.apply(
      to: image, height: field, mask: mask, occlusion: occlusion, scale: relief.scale,
      parallelism: Parallelism(threads: 3))
    XCTAssertEqual(out, threaded)
    let flat = out.flattened()
    // Beside the middle of the left edge, darker nearer the wall.
    XCTAssertLessThan(flat[19, 40].x, 0.45)
    XCTAssertLessThan(flat[19, 40].x, flat[16, 40].x)
    XCTAssertLessThan(flat[16, 40].x, flat[13, 40].x + 1e-6)
    // Far from the relief: untouched.
    XCTAssertEqual(flat[2, 2], gray)
    // The plateau and the bevel's top edge (convex) keep their light.
    XCTAssertEqual(flat[40, 40].x, 0.5, accuracy: 1e-3)
    XCTAssertEqual(flat[27, 40].x, 0.5, accuracy: 1e-3)
    // No occlusion, no change.
    XCTAssertEqual(
      AmbientOcclusion.apply(
        to: image, height: field, mask: mask, occlusion: .none, scale: relief.scale),
      image)
  }

  /// Drawn in place on a picture whose content is the canvas (letters over a plate), the
  /// occlusion gives the pixels it gives drawn on a copy: its edge pixels read their ground
  /// from before it, across the bands' rows, on one thread and on several; a picture whose
  /// content it grows is drawn on a copy as before.
  func testInPlaceEqualsACopy() throws {
    let mask = try TextLayout(
      text: "Hwy8", font: try Fixtures.font(), style: TextStyle(pixelSize: 60)
    ).rasterize()
    let relief = try ReliefSpec(radius: 5, profile: .round, depth: .radiusMultiple(1))
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    XCTAssertGreaterThan(mask.height, 70, "rows in more than two bands")
    var pixels = RGBAImage(width: mask.width, height: mask.height, fill: .zero)
    for y in 0..<mask.height {
      for x in 0..<mask.width {
        let v = Float((x * 7 + y * 13) % 17) / 17
        pixels[x, y] = SIMD4(0.2 + 0.5 * v, 0.3, 0.9 - 0.6 * v, 1)
      }
    }
    let occlusion = try OcclusionSpec(strength: 1, radius: 3)
    for fill in [SIMD4<Float>(0.1, 0.1, 0.1, 1), .zero] {
      let image = CanvasImage(
        width: mask.width, height: mask.height, fill: fill,
        contentRect: PixelRect(x: 0, y: 0, width: mask.width, height: mask.height),
        content: pixels)
      let copy = AmbientOcclusion.apply(
        to: image, height: field, mask: mask, occlusion: occlusion, scale: relief.scale,
        relief: relief, parallelism: .serial)
      XCTAssertNotEqual(copy, image)
      for parallelism in [Parallelism.serial, Parallelism(threads: 3)] {
        var inPlace = image
        AmbientOcclusion.apply(
          toInPlace: &inPlace, height: field, mask: mask, occlusion: occlusion,
          scale: relief.scale, relief: relief, parallelism: parallelism)
        XCTAssertEqual(inPlace, copy, "fill \(fill), \(parallelism)")
      }
    }
    // Content the occlusion grows: drawn on a copy, the same.
    let small = CanvasImage(RGBAImage(width: 20, height: 20, fill: SIMD4(0.5, 0.5, 0.5, 1)))
    let grown = CanvasImage(
      width: mask.width, height: mask.height, fill: SIMD4(0.2, 0.2, 0.2, 1),
      contentRect: PixelRect(x: 10, y: 10, width: 20, height: 20), content: small.content)
    var inPlace = grown
    AmbientOcclusion.apply(
      toInPlace: &inPlace, height: field, mask: mask, occlusion: occlusion, scale: relief.scale,
      parallelism: .serial)
    XCTAssertEqual(
      inPlace,
      AmbientOcclusion.apply(
        to: grown, height: field, mask: mask, occlusion: occlusion, scale: relief.scale,
        parallelism: .serial))
  }

  /// An opaque edge pixel's ink darkens by the surface's occlusion and its ground by the
  /// ground's, the ground's color read beside it; over an opaque picture on a see-through
  /// fill (a plate laid under the letters) as over an opaque background.
  ///
  /// The whole pixel darkened by the mean of the two gave 0.45 here instead of 0.39; over a
  /// plate the ground's occlusion was dropped (0.36).
  func testAnEdgePixelsInkAndGroundDarkenByTheirOwnOcclusion() {
    var plane = Plane(width: 5, height: 5)
    plane[2, 2] = 0.5
    plane[3, 2] = 1
    let mask = CoverageMask(plane: plane)
    // White ink; a ground of 0.2: the edge pixel is half of each.
    var pixels = RGBAImage(width: 5, height: 5, fill: SIMD4(0.2, 0.2, 0.2, 1))
    pixels[2, 2] = SIMD4(0.6, 0.6, 0.6, 1)
    pixels[3, 2] = SIMD4(1, 1, 1, 1)
    let field = PixelRect(x: 0, y: 0, width: 5, height: 5)
    for fill in [SIMD4<Float>(0.2, 0.2, 0.2, 1), .zero] {
      let image = CanvasImage(
        width: 5, height: 5, fill: fill, contentRect: field, content: pixels)
      let layer = AmbientOcclusion.Layer(
        field: field, surface: (0..<25).map { mask[$0 % 5, $0 / 5] > 0 ? 0.4 : 0 },
        ground: [Float](repeating: 0.1, count: 25), mask: mask)
      let out = layer.apply(to: image, parallelism: .serial).flattened()
      // 0.6 - (0.6 - 0.5 * 0.2) * 0.4 - 0.5 * 0.2 * 0.1.
      XCTAssertEqual(out[2, 2].x, 0.39, accuracy: 1e-5, "fill \(fill)")
      XCTAssertEqual(out[3, 2].x, 0.6, accuracy: 1e-5)
      XCTAssertEqual(out[0, 0].x, 0.18, accuracy: 1e-5)
    }
  }

  /// A softened relief's heights spill past the ink's edge: the ground there is still ground.
  ///
  /// Beside a softened square the foot darkens steadily toward the wall, with no step
  /// back up where the height field's region ends (it did, a hard line a few pixels out).
  func testTheFootOfASoftenedReliefDarkensSteadily() throws {
    var plane = Plane(width: 120, height: 120)
    for y in 40..<80 {
      for x in 40..<80 { plane[x, y] = 1 }
    }
    let mask = CoverageMask(plane: plane)
    let relief = try ReliefSpec(
      radius: 8, profile: .round, depth: .radiusMultiple(1), soften: 4)
    let field = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
    // The softened heights do reach outside the ink: what the occlusion must not count.
    XCTAssertGreaterThan(field.height(x: 39, y: 60), 0)
    let gray = SIMD4<Float>(0.5, 0.5, 0.5, 1)
    let image = CanvasImage(RGBAImage(width: 120, height: 120, fill: gray))
    let occlusion = try OcclusionSpec(strength: 1, radius: 8)
    let flat = AmbientOcclusion.apply(
      to: image, height: field, mask: mask, occlusion: occlusion, scale: relief.scale,
      parallelism: .serial
    ).flattened()
    // Along the row through the middle, from far out to the wall: never lighter nearer it.
    for x in 2..<39 {
      XCTAssertLessThanOrEqual(flat[x + 1, 60].x, flat[x, 60].x + 1e-6, "at x = \(x + 1)")
    }
    XCTAssertLessThan(flat[39, 60].x, 0.45)
  }
}
