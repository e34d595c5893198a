import EmbossKit
import XCTest

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
  /// The field is computed in bands of rows with a halo; it must equal one computation over
  /// the whole region.
  func testBandsGiveTheSameFieldAsOneRegion() throws {
    let mask = Fixtures.mask(width: 70, height: 420, samples: 4) { x, y in
      let center = 35 + 18 * sin(y / 40)
      return abs(x - center) < 9 + 4 * cos(y / 23) && y > 4 && y < 414
    }
    for relief in [
      try ReliefSpec(radius: 6, profile: .linear), try ReliefSpec(radius: 3.5, profile: .round),
    ] {
      let field = HeightField.make(mask: mask, relief: relief, parallelism: Parallelism(threads: 3))
      let region = mask.inkBounds.grown(by: 1)
      XCTAssertEqual(field.region, region)
      let whole = EdgeDistance.inside(mask: mask.plane, region: region, parallelism: .serial)
      for i in 0..<whole.pixels.count {
        let d = whole.pixels[i]
        let expected = d > 0 ? relief.profile.height(d / relief.radius) : 0
        XCTAssertEqual(
          field.plane.pixels[i], expected, "pixel \(i % region.width), \(i / region.width)")
      }
    }
  }
}
