import EmbossKit
import Foundation
import SnapshotTesting

extension Snapshotting where Value == RGBAImage, Format == Data {
  /// Snapshots an image as an 8-bit PNG, matching within 2 levels per channel.
  ///
  /// The same as `.png(tolerance: 2)`: see `png(tolerance:antialiasing:ignore:maxBadFraction:)`.
  public static var png: Snapshotting { png() }

  /// Snapshots an image as an 8-bit PNG, compared with a tolerance (the comparison of
  /// `emboss diff`).
  ///
  /// A pixel matches when no channel differs by more than `tolerance` 8-bit levels; fully
  /// transparent pixels match whatever color they hide. The snapshot matches when the
  /// fraction of pixels that do not is at most `maxBadFraction`.
  ///
  /// On a mismatch the failure message gives the count, the worst difference and where it
  /// is, and the PSNR. `expected.png`, `actual.png` and `difference.png` (red beyond the
  /// tolerance, yellow forgiven as anti-aliasing, blue ignored, a dimmed copy where equal)
  /// are attached to the failure where the test runner keeps attachments (Xcode), and
  /// written to a new folder under `$SNAPSHOT_ARTIFACTS` (or the temporary directory) that
  /// the message names, so they can be looked at on Linux and kept by CI.
  ///
  /// - Parameters:
  ///   - tolerance: The largest channel difference that still matches, in 8-bit levels.
  ///   - antialiasing: Forgives a pixel beyond the tolerance when it looks anti-aliased in
  ///     the expected or the actual image, by pixelmatch's test
  ///     (`ImageDiff.isAntialiased(x:y:in:other:)`): an edge anti-aliased differently
  ///     matches, an image moved by a pixel does not.
  ///   - ignore: Rectangles left out of the comparison (a date, a version number).
  ///   - maxBadFraction: The fraction of compared pixels (0...1) allowed to differ.
  /// - Returns: A strategy that stores the image as `.png` next to the test file, in
  ///   `__Snapshots__`.
  public static func png(
    tolerance: Double = 2, antialiasing: Bool = false, ignore: [PixelRect] = [],
    maxBadFraction: Double = 0
  ) -> Snapshotting {
    let comparison = ImageComparison(
      options: ImageDiff.Options(tolerance: tolerance, antialiasing: antialiasing, ignore: ignore),
      maxBadFraction: maxBadFraction)
    return SimplySnapshotting<Data>(pathExtension: "png", diffing: comparison.diffing).pullback {
      image in comparison.encode { try PNGCodec.encode(image, parallelism: .serial) }
    }
  }
}

extension Snapshotting where Value == CanvasImage, Format == Data {
  /// Snapshots a render's picture (`RenderResult.image`) as an 8-bit PNG, matching within
  /// 2 levels per channel.
  public static var png: Snapshotting { png() }

  /// Snapshots a render's picture as an 8-bit PNG, compared with a tolerance.
  ///
  /// The parameters are those of the `RGBAImage` strategy of the same name.
  public static func png(
    tolerance: Double = 2, antialiasing: Bool = false, ignore: [PixelRect] = [],
    maxBadFraction: Double = 0
  ) -> Snapshotting {
    Snapshotting<RGBAImage, Data>.png(
      tolerance: tolerance, antialiasing: antialiasing, ignore: ignore,
      maxBadFraction: maxBadFraction
    ).pullback { $0.flattened() }
  }
}

extension Snapshotting where Value == RenderResult, Format == Data {
  /// Snapshots a render's picture as an 8-bit PNG, matching within 2 levels per channel.
  public static var png: Snapshotting { png() }

  /// Snapshots a render's picture as an 8-bit PNG, compared with a tolerance.
  ///
  /// The parameters are those of the `RGBAImage` strategy of the same name.
  public static func png(
    tolerance: Double = 2, antialiasing: Bool = false, ignore: [PixelRect] = [],
    maxBadFraction: Double = 0
  ) -> Snapshotting {
    Snapshotting<CanvasImage, Data>.png(
      tolerance: tolerance, antialiasing: antialiasing, ignore: ignore,
      maxBadFraction: maxBadFraction
    ).pullback(\.image)
  }
}

/// The comparison behind the strategies: PNG bytes in, a message and three pictures out.
struct ImageComparison: Sendable {
  var options: ImageDiff.Options
  var maxBadFraction: Double

  /// How an image that could not be encoded shows in place of its PNG (a pullback cannot
  /// throw, so the failure travels as bytes that the diffing reports).
  static let encodeFailure = "emboss snapshot: the image could not be encoded as PNG: "

  func encode(_ body: () throws -> Data) -> Data {
    do {
      return try body()
    } catch {
      return Data((Self.encodeFailure + "\(error)").utf8)
    }
  }

  var diffing: Diffing<Data> {
    .diff(toData: { $0 }, fromData: { $0 }, diffV2: { mismatch(expected: $0, actual: $1) })
  }

  /// nil when the PNGs match; else the failure message and the pictures attached.
  func mismatch(expected expectedData: Data, actual actualData: Data)
    -> (String, [DiffAttachment])?
  {
    if actualData.starts(with: Data(Self.encodeFailure.utf8)) {
      return (String(decoding: actualData, as: UTF8.self), [])
    }
    let expected: PNGCodec.Samples
    let actual: PNGCodec.Samples
    do {
      expected = try PNGCodec.decodeSamples(expectedData)
    } catch {
      return ("the recorded snapshot is not a readable PNG (\(error)); record it again", [])
    }
    do {
      actual = try PNGCodec.decodeSamples(actualData)
    } catch {
      return ("the image's PNG could not be read back (\(error))", [])
    }
    let message: String
    var attachments = [
      DiffAttachment.data(expectedData, name: "expected.png"),
      DiffAttachment.data(actualData, name: "actual.png"),
    ]
    if let report = ImageDiff.compare(expected: expected, actual: actual, options: options) {
      guard report.badFraction > maxBadFraction else { return nil }
      var allowed = String(format: "tolerance %g levels", options.tolerance)
      if maxBadFraction > 0 {
        allowed += String(format: ", %g%% of the pixels allowed to differ", maxBadFraction * 100)
      }
      message = "images differ (\(allowed)): \(report.summary)"
      if let difference = try? ImageDiff.differencesPNG(
        expected: expected, actual: actual, options: options)
      {
        attachments.append(.data(difference, name: "difference.png"))
      }
      // expected | difference | actual side by side, for a quick look.
      if let picture = try? ImageDiff.picturePNG(
        expected: expected, actual: actual, options: options)
      {
        attachments.append(.data(picture, name: "comparison.png"))
      }
    } else {
      message =
        "sizes differ: expected \(expected.width)x\(expected.height), got"
        + " \(actual.width)x\(actual.height)"
    }
    return (message + written(attachments), attachments)
  }

  /// Writes the attachments to a new folder and says where, for runners that do not keep
  /// attachments (swift test on Linux).
  private func written(_ attachments: [DiffAttachment]) -> String {
    let root =
      ProcessInfo.processInfo.environment["SNAPSHOT_ARTIFACTS"]
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("emboss-snapshots").path
    let directory = root + "/" + UUID().uuidString.prefix(8).lowercased()
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
      for case .data(let data, let name) in attachments {
        try data.write(to: URL(fileURLWithPath: directory + "/" + name))
      }
    } catch {
      return "; the pictures could not be written to \(directory): \(error)"
    }
    let names = attachments.compactMap { attachment -> String? in
      if case .data(_, let name) = attachment { return name }
      return nil
    }
    return "; \(names.joined(separator: ", ")) written to \(directory)"
  }
}
