import EmbossKit
import Foundation
import SnapshotTesting

extension Snapshotting where Value == RGBAImage, Format == Data {
  /// Snapshots an image as an 8-bit PNG.
  ///
  /// Two PNGs match when no channel of any pixel differs
  /// by more than `tolerance` 8-bit levels (`ImageDiff`). On a mismatch the picture
  /// expected | differences | actual is written to $SNAPSHOT_ARTIFACTS (or the temporary
  /// directory) and named in the failure message. Record with SNAPSHOT_TESTING_RECORD=all.
  static func png(tolerance: Double = 2) -> Snapshotting {
    SimplySnapshotting<Data>(pathExtension: "png", diffing: .png(tolerance: tolerance)).pullback {
      image in
      do {
        return try PNGCodec.encode(image, parallelism: .serial)
      } catch {
        // A pullback cannot throw: the failure travels as text the diffing reports.
        return Data((PNGComparison.encodeFailure + "\(error)").utf8)
      }
    }
  }
}

extension Diffing where Value == Data {
  static func png(tolerance: Double) -> Diffing<Data> {
    .diff(
      toData: { $0 }, fromData: { $0 },
      diffV2: { expectedData, actualData in
        guard let message = PNGComparison.mismatch(expectedData, actualData, tolerance: tolerance)
        else {
          return nil
        }
        return (message, [])
      })
  }
}

enum PNGComparison {
  /// nil when the two PNGs match within the tolerance, else a message (and a diff picture
  /// written to disk).
  ///
  /// How an image that could not be encoded shows in place of its PNG.
  static let encodeFailure = "emboss snapshot: the image could not be encoded as PNG: "

  static func mismatch(_ expectedData: Data, _ actualData: Data, tolerance: Double) -> String? {
    let prefix = Data(encodeFailure.utf8)
    if actualData.starts(with: prefix) { return String(decoding: actualData, as: UTF8.self) }
    guard let expected = try? PNGCodec.decodeSamples(expectedData),
      let actual = try? PNGCodec.decodeSamples(actualData)
    else {
      return "snapshot is not a readable PNG"
    }
    guard let report = ImageDiff.compare(expected: expected, actual: actual, tolerance: tolerance)
    else {
      return
        "size differs: expected \(expected.width)x\(expected.height), got \(actual.width)x\(actual.height)"
    }
    guard report.badPixels > 0 else { return nil }
    let directory =
      ProcessInfo.processInfo.environment["SNAPSHOT_ARTIFACTS"]
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("emboss-snapshot-diffs").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/diff-\(UUID().uuidString.prefix(8)).png"
    if let png = try? ImageDiff.picturePNG(
      expected: expected, actual: actual, options: ImageDiff.Options(tolerance: tolerance))
    {
      try? png.write(to: URL(fileURLWithPath: path))
    }
    return
      "images differ (tolerance \(tolerance) levels): \(report.summary); expected | diff | actual written to \(path)"
  }
}
