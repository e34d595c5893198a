import EmbossKit
import XCTest

final class DistanceTransformTests: XCTestCase {
  /// The transform is exact: every squared distance equals brute force's, and the reported
  /// nearest seed is at that distance.
  func testMatchesBruteForceOnRandomMasks() throws {
    var random = SeededGenerator(state: 42)
    for trial in 0..<40 {
      let width = Int.random(in: 1...37, using: &random)
      let height = Int.random(in: 1...29, using: &random)
      let density = [0.02, 0.1, 0.5, 0.9][trial % 4]
      let seeds = (0..<(width * height)).map { _ in
        Double.random(in: 0..<1, using: &random) < density
      }
      for threads in [1, 3] {
        let result = DistanceTransform.compute(
          width: width, height: height, parallelism: Parallelism(threads: threads)
        ) { seeds[$0] }
        for y in 0..<height {
          for x in 0..<width {
            var best = Int.max
            for sy in 0..<height {
              for sx in 0..<width where seeds[sy * width + sx] {
                best = min(best, (sx - x) * (sx - x) + (sy - y) * (sy - y))
              }
            }
            let i = y * width + x
            XCTAssertEqual(result.squaredDistance(i), best, "trial \(trial) at (\(x), \(y))")
            if best == Int.max {
              XCTAssertEqual(result.nearestSeed[i], -1)
            } else {
              let s = Int(result.nearestSeed[i])
              XCTAssertTrue(seeds[s])
              let dx = s % width - x
              let dy = s / width - y
              XCTAssertEqual(dx * dx + dy * dy, best)
            }
          }
        }
      }
    }
  }

  func testSingleSeedGivesSquaredEuclideanDistances() throws {
    let result = DistanceTransform.compute(width: 7, height: 5) { $0 == 2 * 7 + 3 }
    XCTAssertEqual(result.squaredDistance(0), 9 + 4)
    XCTAssertEqual(result.squaredDistance(2 * 7 + 3), 0)
    XCTAssertEqual(result.squaredDistance(4 * 7 + 6), 9 + 4)
  }
}
