import EmbossKit
import Foundation
import XCTest

/// `emboss diff` for other projects' snapshot tests: hidden colors under full transparency,
/// anti-aliasing, ignored regions, JSON, and the difference image.
final class DiffOptionsTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  /// A 24 x 16 RGBA picture from a function of (x, y).
  func write(_ name: String, _ pixel: (Int, Int) -> [UInt8]) throws {
    var rgba: [UInt8] = []
    for y in 0..<16 { for x in 0..<24 { rgba += pixel(x, y) } }
    let png = try PNGCodec.encodeRaw(
      rgba, width: 24, height: 16, channels: 4, bitDepth: 8, compression: 1, pixelsPerMeter: 0,
      srgb: true)
    try png.write(to: directory.appendingPathComponent(name))
  }

  func json(_ result: CLIRunner.Result) throws -> [String: Any] {
    try XCTUnwrap(
      try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
      String(decoding: result.stdout, as: UTF8.self))
  }

  func testFullyTransparentPixelsAreEqualWhateverTheyHide() throws {
    try write("a.png") { x, _ in x < 12 ? [255, 0, 0, 0] : [10, 20, 30, 255] }
    try write("b.png") { x, _ in x < 12 ? [0, 255, 0, 0] : [10, 20, 30, 255] }
    let result = try run(["diff", "a.png", "b.png", "--json"])
    XCTAssertEqual(result.status, 0, result.stderr)
    let report = try json(result)
    XCTAssertEqual(report["badPixels"] as? Int, 0)
    XCTAssertTrue(report["psnr"] is NSNull, "identical: psnr is null")
    XCTAssertEqual(report["match"] as? Bool, true)
  }

  func testAnEdgeMovedByAPixelIsForgivenAsAntialiasing() throws {
    // A soft edge at x = 10 against the same edge at x = 11.
    func edge(_ at: Int) -> (Int, Int) -> [UInt8] {
      { x, _ in x < at ? [0, 0, 0, 255] : x == at ? [128, 128, 128, 255] : [255, 255, 255, 255] }
    }
    try write("a.png", edge(10))
    try write("b.png", edge(11))
    let strict = try run(["diff", "a.png", "b.png", "--json"])
    XCTAssertEqual(strict.status, 1)
    XCTAssertEqual(try json(strict)["badPixels"] as? Int, 32, "two columns of 16")
    let lenient = try run(["diff", "a.png", "b.png", "--json", "--antialiasing"])
    XCTAssertEqual(lenient.status, 0, String(decoding: lenient.stdout, as: UTF8.self))
    let report = try json(lenient)
    XCTAssertEqual(report["antialiasedPixels"] as? Int, 32)
    // Each changed pixel is the gray step of one of the images, beside flat black and white.
    let forgiven = try XCTUnwrap(report["forgivenPixels"] as? [[String: Any]])
    XCTAssertEqual(forgiven.count, 32)
    XCTAssertEqual(report["forgivenPixelsOmitted"] as? Int, 0)
    XCTAssertEqual(forgiven.first?["x"] as? Int, 10)
    XCTAssertEqual(forgiven.first?["y"] as? Int, 0)
    XCTAssertEqual(forgiven.first?["reason"] as? String, "antialiased in expected")
    XCTAssertEqual(forgiven.filter { $0["reason"] as? String == "antialiased in actual" }.count, 16)
    // A real change is not forgiven: a spot with nothing like it nearby.
    try write("c.png") { x, y in x == 3 && y == 3 ? [255, 0, 0, 255] : edge(10)(x, y) }
    let spot = try run(["diff", "a.png", "c.png", "--json", "--antialiasing"])
    XCTAssertEqual(spot.status, 1)
    XCTAssertEqual(try json(spot)["badPixels"] as? Int, 1)
  }

  func testATextRenderShiftedByAPixelIsNotForgiven() throws {
    XCTAssertEqual(try run(["render", "Hi", "--size", "48", "-o", "a.png"]).status, 0)
    let a = try PictureCodec.readSamples(path: directory.appendingPathComponent("a.png").path)
    // The same render moved one pixel right (the first column repeated).
    var shifted: [UInt8] = []
    for y in 0..<a.height {
      for x in 0..<a.width {
        let i = 4 * (y * a.width + max(0, x - 1))
        shifted += a.rgba[i..<(i + 4)].map { UInt8($0 >> 8) }
      }
    }
    try PNGCodec.encodeRaw(
      shifted, width: a.width, height: a.height, channels: 4, bitDepth: 8, compression: 1,
      pixelsPerMeter: 0, srgb: true
    ).write(to: directory.appendingPathComponent("b.png"))
    let result = try run(["diff", "a.png", "b.png", "--json", "--antialiasing"])
    let text = String(decoding: result.stdout, as: UTF8.self)
    XCTAssertEqual(result.status, 1, text)
    let report = try json(result)
    XCTAssertGreaterThan(try XCTUnwrap(report["badPixels"] as? Int), 100, text)
    XCTAssertEqual(report["match"] as? Bool, false)
  }

  func testIgnoredRegionsAndTheDifferenceImage() throws {
    try write("a.png") { _, _ in [200, 200, 200, 255] }
    try write("b.png") { x, y in x >= 20 && y < 4 ? [0, 0, 0, 255] : [200, 200, 200, 255] }
    XCTAssertEqual(try run(["diff", "a.png", "b.png"]).status, 1)
    let ignored = try run(["diff", "a.png", "b.png", "--ignore", "20,0,4,4", "--json"])
    XCTAssertEqual(ignored.status, 0)
    XCTAssertEqual(try json(ignored)["ignoredPixels"] as? Int, 16)
    XCTAssertEqual(try json(ignored)["pixels"] as? Int, 24 * 16 - 16)
    let picture = try run(["diff", "a.png", "b.png", "--difference", "d.png", "--out", "o.png"])
    XCTAssertEqual(picture.status, 1)
    let d = try PictureCodec.readSamples(path: directory.appendingPathComponent("d.png").path)
    XCTAssertEqual(d.width, 24)
    XCTAssertEqual(d.height, 16)
    let red = 4 * (0 * 24 + 22)
    XCTAssertEqual(Array(d.rgba[red..<(red + 3)]).map { $0 >> 8 }, [255, 0, 0])
    let o = try PictureCodec.readSamples(path: directory.appendingPathComponent("o.png").path)
    XCTAssertEqual(o.width, 72, "expected | differences | actual")
    let bad = try run(["diff", "a.png", "b.png", "--ignore", "1,2,3"])
    XCTAssertEqual(bad.status, 64)
    XCTAssertTrue(bad.stderr.contains("--ignore takes x,y,w,h"), bad.stderr)
  }
}
