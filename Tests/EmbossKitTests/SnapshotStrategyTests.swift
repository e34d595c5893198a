import EmbossKit
import EmbossSnapshotTesting
import Foundation
import SnapshotTesting
import XCTest

/// The `EmbossSnapshotTesting` strategies that other packages use: the comparison, the
/// message, the pictures attached and written, and a whole record-then-verify cycle.
final class SnapshotStrategyTests: XCTestCase {
  let gray = RGBAImage(width: 4, height: 4, fill: SIMD4(0.5, 0.5, 0.5, 1))

  func diff(
    _ expected: RGBAImage, _ actual: RGBAImage,
    _ strategy: Snapshotting<RGBAImage, Data> = .png
  ) throws -> (String, [DiffAttachment])? {
    let expectedData = strategy.diffing.toData(try XCTUnwrap(syncSnapshot(expected, strategy)))
    let actualData = strategy.diffing.toData(try XCTUnwrap(syncSnapshot(actual, strategy)))
    return strategy.diffing.diffV2(expectedData, actualData)
  }

  func syncSnapshot(_ image: RGBAImage, _ strategy: Snapshotting<RGBAImage, Data>) -> Data? {
    var result: Data?
    strategy.snapshot(image).run { result = $0 }
    return result
  }

  func named(_ attachments: [DiffAttachment]) -> [String: Data] {
    var byName: [String: Data] = [:]
    for case .data(let data, let name) in attachments { byName[name] = data }
    return byName
  }

  func testMatchesWithinTheToleranceOnly() throws {
    var close = gray
    close[1, 1].x += 1.0 / 255
    XCTAssertNil(try diff(gray, gray, .png(tolerance: 0)))
    XCTAssertNil(try diff(gray, close, .png(tolerance: 2)))
    var far = gray
    far[2, 3] = SIMD4(0.9, 0.5, 0.5, 1)
    let (message, attachments) = try XCTUnwrap(try diff(gray, far, .png(tolerance: 2)))
    XCTAssertTrue(message.contains("1 of 16 pixels differ"), message)
    XCTAssertTrue(message.contains("at (2, 3)"), message)
    // The difference picture marks the one bad pixel red and no other.
    let pictures = named(attachments)
    XCTAssertEqual(
      Set(pictures.keys), ["expected.png", "actual.png", "difference.png", "comparison.png"])
    let difference = try PNGCodec.decodeSamples(try XCTUnwrap(pictures["difference.png"]))
    for y in 0..<4 {
      for x in 0..<4 {
        let i = 4 * (y * 4 + x)
        let red = difference.rgba[i] == 65535 && difference.rgba[i + 1] == 0
        XCTAssertEqual(red, x == 2 && y == 3, "(\(x), \(y))")
      }
    }
    // The message names the folder where the same pictures were written.
    let folder = try XCTUnwrap(message.components(separatedBy: " written to ").last)
    for (name, data) in pictures {
      XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)), data, name)
    }
    try? FileManager.default.removeItem(atPath: folder)
  }

  func testBadFractionIgnoredRegionsAndTransparentPixels() throws {
    var far = gray
    far[2, 3] = SIMD4(0.9, 0.5, 0.5, 1)
    XCTAssertNil(try diff(gray, far, .png(maxBadFraction: 1.0 / 16)))
    XCTAssertNotNil(try diff(gray, far, .png(maxBadFraction: 0.9 / 16)))
    XCTAssertNil(try diff(gray, far, .png(ignore: [PixelRect(x: 2, y: 3, width: 1, height: 1)])))
    let clear = RGBAImage(width: 2, height: 1, fill: SIMD4(1, 0, 0, 0))
    let clearOtherColor = RGBAImage(width: 2, height: 1, fill: SIMD4(0, 0, 1, 0))
    XCTAssertNil(try diff(clear, clearOtherColor, .png(tolerance: 0)))
  }

  func testSizesAndUnreadableReferencesAreReported() throws {
    let wide = RGBAImage(width: 5, height: 4, fill: SIMD4(0.5, 0.5, 0.5, 1))
    let (message, _) = try XCTUnwrap(try diff(gray, wide))
    XCTAssertTrue(message.hasPrefix("sizes differ: expected 4x4, got 5x4"), message)
    let strategy = Snapshotting<RGBAImage, Data>.png
    let actual = try XCTUnwrap(syncSnapshot(gray, strategy))
    let (unreadable, attachments) = try XCTUnwrap(
      strategy.diffing.diffV2(Data("not a png".utf8), actual))
    XCTAssertTrue(unreadable.contains("recorded snapshot is not a readable PNG"), unreadable)
    XCTAssertTrue(attachments.isEmpty)
  }

  /// Records a render, verifies it again, then verifies a changed render against it, in a
  /// folder of its own: what a user's test does.
  func testRecordsThenVerifiesARender() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-strategy-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    func render(_ material: String) throws -> RenderResult {
      let job = RenderJob(
        mask: .text(TextMask(text: "Ag", style: TextStyle(pixelSize: 40))), material: material,
        settings: [MaterialSetting(set: "shading.size=128")],
        output: OutputPlan(image: "unused.png"), parallelism: .serial)
      return try job.run(resources: Fixtures.resources).result
    }
    let gold = try render("gold")
    func verify(_ result: RenderResult, record: SnapshotTestingConfiguration.Record) -> String? {
      verifySnapshot(
        of: result, as: .png, named: "gold", record: record, snapshotDirectory: directory,
        testName: "render")
    }
    let recorded = verify(gold, record: .missing)
    XCTAssertTrue(recorded?.contains("No reference was found") ?? false, recorded ?? "nil")
    XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/render.gold.png"))
    XCTAssertNil(verify(gold, record: .never))
    XCTAssertNil(verify(try render("gold"), record: .never), "renders are deterministic")
    let failure = try XCTUnwrap(verify(try render("copper"), record: .never))
    XCTAssertTrue(failure.contains("pixels differ beyond tolerance"), failure)
  }
}
