import EmbossKit
import Foundation
import XCTest

/// What people type: dither names from other software, CSS colors, negative numbers without
/// `=`, and `--quiet`.
final class NamesPeopleTypeTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-names-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }
  func bytes(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }

  func testDitherAliasesNameTheSameMethods() throws {
    XCTAssertEqual(try run(["render", "Dots", "--size", "40", "-o", "p.png"]).status, 0)
    for (alias, method) in [
      ("fs", "floyd-steinberg"), ("jarvis", "jarvis-judice-ninke"), ("bayer", "bayer8"),
      ("ordered", "bayer8"), ("FS", "floyd-steinberg"),
    ] {
      XCTAssertEqual(try run(["engrave", "p.png", "--dither", alias, "-o", "a.png"]).status, 0)
      XCTAssertEqual(try run(["engrave", "p.png", "--dither", method, "-o", "m.png"]).status, 0)
      XCTAssertEqual(try bytes("a.png"), try bytes("m.png"), alias)
    }
    let wrong = try run(["engrave", "p.png", "--dither", "jarvs", "-o", "x.png"])
    XCTAssertEqual(wrong.status, 64)
    XCTAssertTrue(wrong.stderr.contains("did you mean 'jarvis-judice-ninke'?"), wrong.stderr)
  }

  func testCSSColorsRgbAndHsl() throws {
    let same: [[String]] = [
      [
        "#6495ed", "cornflowerblue", "rgb(100, 149, 237)", "rgb(100 149 237)",
        "rgba(100,149,237,1)",
      ],
      ["#ff0000", "red", "rgb(100% 0% 0%)", "hsl(0, 100%, 50%)", "hsl(0deg 100% 50% / 1)"],
      ["#663399", "rebeccapurple", "hsl(270, 50%, 40%)"],
    ]
    for group in same {
      var first: Data?
      for (i, color) in group.enumerated() {
        let result = try run([
          "render", "C", "--size", "24", "--background", color, "-o", "\(i).png",
        ])
        XCTAssertEqual(result.status, 0, "\(color): \(result.stderr)")
        let data = try bytes("\(i).png")
        if let first {
          XCTAssertEqual(data, first, "\(color) is \(group[0])")
        } else {
          first = data
        }
      }
    }
    // A material file takes them too, and a near miss is named.
    let wrong = try run(["render", "C", "--background", "cornflowerblu", "-o", "x.png"])
    XCTAssertEqual(wrong.status, 64)
    XCTAssertTrue(wrong.stderr.contains("did you mean \"cornflowerblue\"?"), wrong.stderr)
    let bad = try run(["render", "C", "--background", "rgb(1, 2)", "-o", "x.png"])
    XCTAssertEqual(bad.status, 64)
    XCTAssertTrue(bad.stderr.contains("rgb() takes three values"), bad.stderr)
    let over = try run(["render", "C", "--background", "rgb(300,0,0,0)", "-o", "x.png"])
    XCTAssertEqual(over.status, 64)
    XCTAssertTrue(over.stderr.contains("the channel 300 is out of range"), over.stderr)
    XCTAssertEqual(
      try run(["render", "C", "--set", "surface.base=hsl(30, 80%, 50%)", "-o", "s.png"]).status, 0)
  }

  func testNegativeNumbersWithoutEquals() throws {
    XCTAssertEqual(try run(["render", "AV", "--letter-spacing", "-4", "-o", "a.png"]).status, 0)
    XCTAssertEqual(try run(["render", "AV", "--letter-spacing=-4", "-o", "b.png"]).status, 0)
    XCTAssertEqual(try bytes("a.png"), try bytes("b.png"))
    XCTAssertEqual(
      try run(["render", "AV", "--light-angle", "-30", "--light-altitude", "-10", "-o", "c.png"])
        .status, 0)
    XCTAssertEqual(
      try run(["render", "AV", "--light-angle=-30", "--light-altitude=-10", "-o", "d.png"]).status,
      0)
    XCTAssertEqual(try bytes("c.png"), try bytes("d.png"))
  }

  func testQuietSilencesWarningsAndNotes() throws {
    let loud = try run(["render", "A", "--dpi", "300", "-o", "a.png"])
    XCTAssertTrue(loud.stderr.hasPrefix("warning: 300 DPI"), loud.stderr)
    let quiet = try run(["render", "A", "--dpi", "300", "-o", "a.png", "--quiet"])
    XCTAssertEqual(quiet.status, 0)
    XCTAssertEqual(quiet.stderr, "")
    XCTAssertEqual(try run(["engrave", "a.png", "--dpi", "300", "-o", "e.png", "-q"]).stderr, "")
    // Errors still show.
    let error = try run(["render", "A", "--material", "nope", "-o", "b.png", "-q"])
    XCTAssertEqual(error.status, 1)
    XCTAssertTrue(error.stderr.hasPrefix("error: "))
  }
}
