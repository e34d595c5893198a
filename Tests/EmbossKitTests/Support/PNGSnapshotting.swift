import EmbossKit
import Foundation
import SnapshotTesting

extension Snapshotting where Value == RGBAImage, Format == Data {
  /// Snapshots an image as an 8-bit PNG. Two PNGs match when no channel of any pixel differs
  /// by more than `tolerance` 8-bit levels (`ImageDiff`). On a mismatch the picture
  /// expected | differences | actual is written to $SNAPSHOT_ARTIFACTS (or the temporary
  /// directory) and named in the failure message. Record with SNAPSHOT_TESTING_RECORD=all.
  static func png(tolerance: Double = 2) -> Snapshotting {
    SimplySnapshotting<Data>(pathExtension: "png", diffing: .png(tolerance: tolerance)).pullback {
      image in
      (try? PNGCodec.encode(image, parallelism: .serial)) ?? Data()
    }
  }
}

extension Diffing where Value == Data {
  static func png(tolerance: Double) -> Diffing<Data> {
    .diff(toData: { $0 }, fromData: { $0 }) { expectedData, actualData in
      guard let message = PNGComparison.mismatch(expectedData, actualData, tolerance: tolerance) else {
        return nil
      }
      return (message, [])
    }
  }
}

enum PNGComparison {
  /// nil when the two PNGs match within the tolerance, else a message (and a diff picture
  /// written to disk).
  static func mismatch(_ expectedData: Data, _ actualData: Data, tolerance: Double) -> String? {
    guard let expected = try? PNGCodec.decodeSamples(expectedData),
      let actual = try? PNGCodec.decodeSamples(actualData)
    else {
      return "snapshot is not a readable PNG"
    }
    guard let report = ImageDiff.compare(expected: expected, actual: actual, tolerance: tolerance) else {
      return "size differs: expected \(expected.width)x\(expected.height), got \(actual.width)x\(actual.height)"
    }
    guard report.badPixels > 0 else { return nil }
    let directory = ProcessInfo.processInfo.environment["SNAPSHOT_ARTIFACTS"]
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("emboss-snapshot-diffs").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/diff-\(UUID().uuidString.prefix(8)).png"
    if let png = try? ImageDiff.picturePNG(expected: expected, actual: actual, tolerance: tolerance) {
      try? png.write(to: URL(fileURLWithPath: path))
    }
    return "images differ (tolerance \(tolerance) levels): \(report.summary); expected | diff | actual written to \(path)"
  }
}
