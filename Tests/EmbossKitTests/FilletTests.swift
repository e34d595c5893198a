import EmbossGeometry
import EmbossRaster
import XCTest

/// Rounded corners (`Outline.filleted`) against their exact areas: a corner of turn θ
/// rounded to radius r loses (convex) or gains (concave) `r² (tan(θ/2) - θ/2)`.
final class FilletTests: XCTestCase {
  static func mask(_ points: [SIMD2<Float>], size: Int = 100) -> CoverageMask {
    InflationTests.mask(
      width: size, height: size, contours: [InflationTests.polygon(points)])
  }

  static func area(_ mask: CoverageMask) -> Double {
    mask.windowCoverage.pixels.reduce(0) { $0 + Double($1) }
  }

  /// A square's four right angles each lose `r² (1 - π/4)`.
  func testASquaresCornersTurnIntoQuarterCircles() {
    let square = Self.mask([
      SIMD2(20.3, 20.1), SIMD2(20.3, 60.1), SIMD2(60.3, 60.1), SIMD2(60.3, 20.1),
    ])
    let r: Float = 8
    let rounded = square.filleted(radius: r)
    let expected = 1600 - 4 * Double(r * r) * (1 - .pi / 4)
    XCTAssertEqual(Self.area(rounded), expected, accuracy: 0.05)
    // The corner pixel is empty, the middle of each side still full.
    XCTAssertEqual(rounded[20, 20], 0, accuracy: 1e-3)
    XCTAssertEqual(rounded[40, 20], square[40, 20], accuracy: 1e-4)
    XCTAssertEqual(rounded.outline?.chains().allSatisfy(\.closed), true)
  }

  /// A bar's square ends become half circles, however large the radius: the fillets reach
  /// at most half the way to the next corner, so no stroke vanishes.
  func testABarsEndsBecomeHalfCircles() {
    for width: Float in [10, 2] {
      let bar = Self.mask([
        SIMD2(40.2, 20.1), SIMD2(40.2, 80.1), SIMD2(40.2 + width, 80.1),
        SIMD2(40.2 + width, 20.1),
      ])
      let rounded = bar.filleted(radius: 30)
      let half = Double(width) / 2
      let expected = Double(width) * 60 - 2 * (Double(width) * half - .pi * half * half / 2)
      XCTAssertEqual(Self.area(rounded), expected, accuracy: 0.05, "width \(width)")
      XCTAssertGreaterThan(rounded[40, 50], 0.5 * bar[40, 50], "the stroke stays")
    }
  }

  /// An L's inside corner fills in by `r² (1 - π/4)` as its five outside corners lose as
  /// much each.
  func testAnInsideCornerFillsIn() {
    let l = Self.mask([
      SIMD2(20.2, 20.1), SIMD2(20.2, 80.1), SIMD2(80.2, 80.1), SIMD2(80.2, 60.1),
      SIMD2(40.2, 60.1), SIMD2(40.2, 20.1),
    ])
    let r: Float = 6
    let rounded = l.filleted(radius: r)
    let expected = Self.area(l) - 4 * Double(r * r) * (1 - .pi / 4)
    XCTAssertEqual(Self.area(rounded), expected, accuracy: 0.05)
    // Just inside the inside corner's bisector, the background is now ink.
    XCTAssertGreaterThan(rounded[41, 58], l[41, 58] + 0.3)
  }
}
