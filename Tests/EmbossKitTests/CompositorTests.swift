import EmbossKit
import Foundation
import Synchronization
import XCTest

@testable import EmbossCompositing

final class CompositorTests: XCTestCase {
  let square = Fixtures.mask(width: 60, height: 60) { x, y in
    x >= 10 && x <= 50 && y >= 10 && y <= 50
  }

  func render(lights: [Light], background: Background = .transparent) throws -> RGBAImage {
    let height = HeightField.make(
      mask: square, relief: try ReliefSpec(radius: 8), parallelism: .serial)
    let shading = ShadingImage.render(
      surface: try Surface(base: SIMD3(repeating: 0.5), specular: .zero, ambient: 0),
      lights: lights,
      size: 128, parallelism: .serial)
    return ShadedMaterial.composite(
      height: height, mask: square, shading: shading, scale: 10, background: background,
      parallelism: .serial
    ).flattened()
  }

  /// A render stores nothing in the storage every empty array shares.
  ///
  /// The render makes its empty arrays (no shape kept) beside another thread that reads an
  /// empty array's count. The standard library's uninitialized-capacity initializer stores the
  /// count, a 0 over a 0, there; ThreadSanitizer, which runs this test in CI, reported it as a
  /// race beside `emboss batch`'s CSV reader (see `Array.init(uninitializedCount:)`). With
  /// that initializer back in the compositor, ThreadSanitizer fails this test.
  func testARenderStoresNothingInTheSharedEmptyArray() throws {
    let material = try MaterialSpec.builtIn.replacing(
      relief: try ReliefSpec(radius: 6), background: .color(SIMD3(0.1, 0.1, 0.1)))
    let input = RenderInput(mask: square, material: material, parallelism: .serial)
    // The other thread reads empty arrays' counts until the render is done.
    let reader = EmptyArrayReader()
    let thread = Thread { reader.run() }
    thread.start()
    reader.started.wait()
    // (Many renders: the other thread's reads must still be in ThreadSanitizer's few
    // records of that storage when a render stores there, among the render's own reads.)
    var width = 0
    for _ in 0..<40 { width = Pipeline.render(input).image.width }
    reader.done.store(true, ordering: .releasing)
    reader.finished.wait()
    XCTAssertEqual(width, 60)
    XCTAssertGreaterThan(reader.reads, 0)
    XCTAssertEqual(reader.total, 0)
  }

  /// Core Image's y points up and ours down: a light at the top-left must brighten the
  /// top and left bevels of a letter, not the bottom ones.
  func testLightAtTopLeftBrightensTopLeftSlopes() throws {
    let image = try render(lights: [Light.distant(try DistantLight(direction: SIMD3(-1, 1, 0.5)))])
    let top = image[30, 13].x
    let bottom = image[30, 47].x
    let left = image[13, 30].x
    let right = image[47, 30].x
    XCTAssertGreaterThan(top, bottom + 0.1)
    XCTAssertGreaterThan(left, right + 0.1)
  }

  func testLightAtBottomRightBrightensBottomRightSlopes() throws {
    let image = try render(lights: [Light.distant(try DistantLight(direction: SIMD3(1, -1, 0.5)))])
    XCTAssertGreaterThan(image[30, 47].x, image[30, 13].x + 0.1)
    XCTAssertGreaterThan(image[47, 30].x, image[13, 30].x + 0.1)
  }

  func testPlateauTakesTheShadingCenterAndAlphaIsCoverage() throws {
    let image = try render(lights: [Light.distant(try DistantLight(direction: SIMD3(0, 0, 1)))])
    // Flat top: normal (0, 0, 1), the center of the ball: diffuse 0.5 * 1.
    XCTAssertEqual(image[30, 30].x, 0.5, accuracy: 0.01)
    XCTAssertEqual(image[30, 30].w, 1)
    XCTAssertEqual(image[2, 2].w, 0)
  }

  /// Every plateau pixel of a chisel (a linear bevel) is the flat face's color, those beside
  /// the plateau's edge too: a footprint is not taken across the kink, where the neighbour's
  /// lookup is the bevel's (it spread a plateau pixel's lookup halfway down the bevel, and a
  /// shiny ball's highlight at its center dimmed along every top edge).
  func testPlateauBesideAChiselsTopEdgeIsTheFlatColor() throws {
    // Edges 0.7 px into a pixel: the plateau's edge lies 0.2 px past the center of the pixel
    // that holds it, whose center lookup is the bevel's.
    let square = ExactDistanceTests.mask(
      [SIMD2(10.7, 10.7), SIMD2(49.3, 10.7), SIMD2(49.3, 49.3), SIMD2(10.7, 49.3)], width: 60,
      height: 60)
    let height = HeightField.make(
      mask: square, relief: try ReliefSpec(radius: 8, profile: .linear), parallelism: .serial)
    let shading = ShadingImage.render(
      surface: try Surface(
        base: SIMD3(repeating: 0.3), specular: SIMD3(repeating: 0.4), shininess: 2000,
        ambient: 0),
      lights: [Light.distant(try DistantLight(direction: SIMD3(0, 0, 1)))], size: 256,
      parallelism: .serial)
    let image = ShadedMaterial.composite(
      height: height, mask: square, shading: shading, scale: 2, background: .transparent,
      parallelism: .serial
    ).flattened()
    let flat = image[30, 30]
    func difference(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
      let d = a - b
      return max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w)))
    }
    var plateau = 0
    var beside = 0
    for y in 0..<60 {
      for x in 0..<60 where height.height(x: x, y: y) >= 1 {
        plateau += 1
        if height.height(x: x - 1, y: y) < 1 || height.height(x: x + 1, y: y) < 1 { beside += 1 }
        XCTAssertLessThan(difference(image[x, y], flat), 1e-4, "pixel \(x), \(y)")
      }
    }
    XCTAssertGreaterThan(plateau, 400)
    XCTAssertGreaterThan(beside, 30)
    // The bevel is another color: the test can tell.
    XCTAssertGreaterThan(difference(image[14, 30], flat), 0.05)
  }

  func testBackgroundColorMakesEveryPixelOpaque() throws {
    let image = try render(
      lights: [Light.distant(try DistantLight(direction: SIMD3(0, 0, 1)))],
      background: .color(SIMD3(1, 0, 0)))
    XCTAssertEqual(image[2, 2], SIMD4(1, 0, 0, 1))
    XCTAssertTrue(image.pixels.allSatisfy { $0.w == 1 })
  }

  func testLookupFollowsCoreImageConvention() throws {
    // (normal.xy + 1) / 2 * size, with Core Image's y up = our row counted from the top for -y.
    XCTAssertEqual(ShadedMaterial.lookup(SIMD3(0, 0, 1), width: 100, height: 100), SIMD2(50, 50))
    XCTAssertEqual(ShadedMaterial.lookup(SIMD3(-1, 0, 0), width: 100, height: 100), SIMD2(0, 50))
    // A normal tilted up in the picture (image y < 0) reads the upper half of the ball.
    XCTAssertEqual(ShadedMaterial.lookup(SIMD3(0, -1, 0), width: 100, height: 100), SIMD2(50, 0))
  }

  func testExternalShadingImageRimIsExtended() throws {
    // A white disk on a black square: after extending, the corners are white too.
    var image = RGBAImage(width: 32, height: 32, fill: SIMD4(0, 0, 0, 1))
    for y in 0..<32 {
      for x in 0..<32 {
        let dx = Float(x) + 0.5 - 16
        let dy = Float(y) + 0.5 - 16
        if dx * dx + dy * dy < 15 * 15 { image[x, y] = SIMD4(1, 1, 1, 1) }
      }
    }
    let extended = ShadingImage.extendingRim(image)
    XCTAssertEqual(extended[0, 0].x, 1, accuracy: 0.01)
    XCTAssertEqual(extended[31, 16].x, 1, accuracy: 0.01)
    XCTAssertEqual(extended[16, 16], image[16, 16])
  }
}

/// A thread that reads empty arrays' counts from their storage until `done`.
private final class EmptyArrayReader: @unchecked Sendable {
  let done = Atomic<Bool>(false)
  let started = DispatchSemaphore(value: 0)
  let finished = DispatchSemaphore(value: 0)
  /// Empty, and read from this object at each step: its count is read from the storage
  /// every empty array shares, in this module's code, which ThreadSanitizer instruments.
  var array: [Int] = []
  /// Written by the reader, read after `finished`.
  var reads = 0
  var total = 0

  func run() {
    started.signal()
    while !done.load(ordering: .acquiring) {
      total += array.count
      reads += 1
    }
    finished.signal()
  }
}
