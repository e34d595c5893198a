import EmbossKit
import Foundation
import XCTest

/// Paths inside this checkout: tests use only the fonts and materials it ships.
enum Fixtures {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let resources = Resources(root: root.path)
  static let fontPath = resources.defaultFontPath

  static func font() throws -> Font { try Font(path: fontPath) }

  static func material(_ name: String = "default") throws -> MaterialSpec {
    try MaterialLoader.load(name, library: resources.materialLibrary)
  }

  /// A fresh empty directory for one test's files.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A mask from a function giving coverage at each pixel center (supersampled 8x8 when
  /// `inside` is a predicate on continuous coordinates).
  static func mask(width: Int, height: Int, samples: Int = 8, inside: (Double, Double) -> Bool)
    -> CoverageMask
  {
    var plane = Plane(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width {
        var hits = 0
        for sy in 0..<samples {
          for sx in 0..<samples {
            let px = Double(x) + (Double(sx) + 0.5) / Double(samples)
            let py = Double(y) + (Double(sy) + 0.5) / Double(samples)
            if inside(px, py) { hits += 1 }
          }
        }
        plane[x, y] = Float(hits) / Float(samples * samples)
      }
    }
    return CoverageMask(plane: plane)
  }
}

/// A small deterministic random generator (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
