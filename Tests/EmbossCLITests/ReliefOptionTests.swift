import EmbossKit
import Foundation
import XCTest

/// The relief and light options added for resolution-independent designs.
final class ReliefOptionTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-relief-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  func data(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }

  /// The bit depth a PNG's header gives (byte 24 of the file).
  func bitDepth(_ name: String) throws -> UInt8 {
    try data(name)[24]
  }

  /// The default padding and the material's radius are fractions of the em: the same look
  /// at any size, today's values at the default size; a value given is used as given.
  func testDefaultsScaleWithTheText() throws {
    func png(_ name: String, _ arguments: [String]) throws -> PNGCodec.Samples {
      let result = try run(
        ["render", "Emboss"] + arguments + ["--shading-size", "64", "-o", name])
      XCTAssertEqual(result.status, 0, result.stderr)
      return try PNGCodec.decodeSamples(data(name))
    }
    let small = try png("160.png", [])
    let large = try png("320.png", ["--size", "320"])
    XCTAssertEqual([large.width, large.height], [2 * small.width, 2 * small.height])
    // At the default size: the radius and padding of before (10 px, 26 px).
    _ = try png("160-given.png", ["--radius", "10", "--padding", "26"])
    XCTAssertEqual(try data("160.png"), try data("160-given.png"))
    // At twice the size the material's 10 px radius is 20 px; a radius given is not scaled.
    _ = try png("320-20.png", ["--size", "320", "--radius", "20"])
    XCTAssertEqual(try data("320.png"), try data("320-20.png"))
    _ = try png("320-10.png", ["--size", "320", "--radius", "10"])
    XCTAssertNotEqual(try data("320.png"), try data("320-10.png"))
    // Fitting to a height scales them as the size it comes to.
    // The ink of the 320 px render is 352 - 2 * 52 px tall: fitted to it, the same canvas.
    let fitted = try png("fitted.png", ["--height", "248"])
    XCTAssertEqual(fitted.height, large.height, accuracy: 2)
  }

  func testSaveStagesWritesEveryStageAtSixteenBits() throws {
    let result = try run([
      "render", "A", "--size", "24", "--depth", "16", "--save-stages", "s", "--shading-size", "64",
      "-o", "a.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    for stage in ["mask.png", "height.png", "normals.png", "shading.png"] {
      XCTAssertEqual(try bitDepth("s/" + stage), 16, stage)
    }
    let eight = try run([
      "render", "A", "--size", "24", "--save-stages", "t", "--shading-size", "64", "-o", "b.png",
    ])
    XCTAssertEqual(eight.status, 0, eight.stderr)
    XCTAssertEqual(try bitDepth("t/normals.png"), 8)
  }

  func testCanvasPaddingAndSpacingTakeLengths() throws {
    let result = try run([
      "render", "Ab", "--dpi", "254", "--canvas", "50mmx20mm", "--letter-spacing", "0.5mm", "-o",
      "c.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let samples = try PNGCodec.decodeSamples(try data("c.png"))
    XCTAssertEqual(samples.width, 500)
    XCTAssertEqual(samples.height, 200)
    let padded = try run([
      "render", "Ab", "--size", "40", "--padding", "1in", "--dpi", "100", "-o", "p.png",
    ])
    XCTAssertEqual(padded.status, 0, padded.stderr)
    XCTAssertGreaterThan(try PNGCodec.decodeSamples(try data("p.png")).height, 200)
    let bad = try run(["render", "Ab", "--canvas", "50mmx20mm", "-o", "x.png"])
    XCTAssertEqual(bad.status, 64)
    XCTAssertTrue(
      bad.stderr.contains("--canvas 50mm is a physical length: give --dpi too"), bad.stderr)
  }

  func testDepthOptions() throws {
    let base = ["render", "W", "--size", "24", "--radius", "3"]
    XCTAssertEqual(try run(base + ["-o", "follow.png"]).status, 0)
    XCTAssertEqual(try run(base + ["--relief-depth", "3px", "-o", "six.png"]).status, 0)
    XCTAssertEqual(try run(base + ["--scale", "3", "-o", "scale.png"]).status, 0)
    XCTAssertEqual(try run(base + ["--relief-depth", "2x", "-o", "double.png"]).status, 0)
    // Depth 1x the radius, 3 px and Core Image's scale 3 are the same relief at radius 3.
    XCTAssertEqual(try data("follow.png"), try data("six.png"))
    XCTAssertEqual(try data("follow.png"), try data("scale.png"))
    XCTAssertNotEqual(try data("follow.png"), try data("double.png"))
    let both = try run(base + ["--relief-depth", "2x", "--scale", "3", "-o", "x.png"])
    XCTAssertEqual(both.status, 64)
    XCTAssertTrue(both.stderr.contains("give either --relief-depth or --scale"), both.stderr)
    let bad = try run(base + ["--relief-depth", "deep", "-o", "x.png"])
    XCTAssertEqual(bad.status, 64)
  }

  func testLightAngleAndAltitude() throws {
    let base = ["render", "O", "--size", "28", "--material", "matte-plastic"]
    XCTAssertEqual(try run(base + ["-o", "a.png"]).status, 0)
    XCTAssertEqual(
      try run(base + ["--light-angle=-60", "--light-altitude", "20", "-o", "b.png"]).status, 0)
    XCTAssertNotEqual(try data("a.png"), try data("b.png"))
    let bad = try run(base + ["--light-altitude", "120", "-o", "c.png"])
    XCTAssertEqual(bad.status, 64)
  }

  func testSoftenAndChiselProfiles() throws {
    let base = ["render", "M", "--size", "28", "--radius", "4"]
    XCTAssertEqual(try run(base + ["--profile", "chisel-hard", "-o", "h.png"]).status, 0)
    XCTAssertEqual(try run(base + ["--profile", "linear", "-o", "l.png"]).status, 0)
    XCTAssertEqual(try data("h.png"), try data("l.png"), "chisel-hard is the linear bevel")
    XCTAssertEqual(try run(base + ["--profile", "chisel-soft", "-o", "s.png"]).status, 0)
    XCTAssertEqual(try run(base + ["--soften", "2", "-o", "f.png"]).status, 0)
    XCTAssertNotEqual(try data("h.png"), try data("s.png"))
  }
}
