import EmbossKit
import Foundation
import XCTest

/// `--mesh`: one command from text to a model a slicer takes as it is, checked by the
/// consumers themselves (PrusaSlicer's `--info`, admesh) where Debian's packages are installed.
final class MeshCLITests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-mesh-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  /// A program's output (both streams), or nil when it is not installed.
  func tool(_ name: String, _ arguments: [String]) throws -> String? {
    guard
      let found = ["/usr/bin", "/usr/local/bin", "/bin"].map({ $0 + "/" + name }).first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: found)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let log = path(name + ".log")
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    process.waitUntilExit()
    try handle.close()
    // Lossy: admesh prints the STL's 80-byte header as a C string, so whatever follows it in
    // admesh's memory (not always UTF-8) comes out too.
    return String(decoding: try Data(contentsOf: URL(fileURLWithPath: log)), as: UTF8.self)
  }

  /// `key = value` lines of PrusaSlicer's `--info`.
  static func info(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { continue }
      out[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(
        in: .whitespaces)
    }
    return out
  }

  func testTextGivesAModelTheSlicerAndAdmeshAccept() throws {
    // 254 dpi: 0.1 mm a pixel.
    let result = try run([
      "render", "Hey!", "--size", "160", "--canvas", "700x260", "--dpi", "254", "--mesh", "m.stl",
      "--mesh-height", "1.5mm", "--mesh-base", "2mm", "-o", "m.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      try run([
        "render", "Hey!", "--size", "160", "--canvas", "700x260", "--dpi", "254", "--mesh", "m.3mf",
        "--mesh-height", "1.5mm", "--mesh-base", "2mm", "-o", "m.png",
      ]).status, 0)
    var checked = false
    for file in ["m.stl", "m.3mf"] {
      guard let text = try tool("prusa-slicer", ["--info", file]) else { continue }
      let info = Self.info(text)
      XCTAssertEqual(info["manifold"], "yes", "\(file): \(text)")
      XCTAssertEqual(info["number_of_parts"], "1", file)
      XCTAssertEqual(Double(info["size_x"] ?? "") ?? 0, 70, accuracy: 0.01, file)
      XCTAssertEqual(Double(info["size_y"] ?? "") ?? 0, 26, accuracy: 0.01, file)
      XCTAssertEqual(Double(info["size_z"] ?? "") ?? 0, 3.5, accuracy: 0.01, file)
      // The plate (70 x 26 x 2 mm) and the letters on it.
      let volume = Double(info["volume"] ?? "") ?? 0
      XCTAssertGreaterThan(volume, 70 * 26 * 2 + 10, file)
      XCTAssertLessThan(volume, 70 * 26 * 3.5, file)
      checked = true
    }
    if let text = try tool("admesh", ["m.stl"]) {
      for line in [
        "Total disconnected facets", "Degenerate facets", "Edges fixed", "Facets removed",
        "Facets added", "Facets reversed", "Backwards edges", "Normals fixed",
      ] {
        let found = text.split(separator: "\n").first { $0.hasPrefix(line) }
        XCTAssertNotNil(found, line)
        let numbers = found.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
        XCTAssertTrue(numbers.allSatisfy { $0 == 0 }, "\(line): \(found ?? "")")
      }
      XCTAssertTrue(text.contains("Number of parts       :     1"), text)
      checked = true
    }
    if !checked {
      throw XCTSkip(
        "neither prusa-slicer nor admesh is installed (apt install prusa-slicer admesh): the model's own checks are in MeshTests"
      )
    }
  }

  func testBadCombinationsAreOneClearErrorEach() throws {
    let cases: [(arguments: [String], status: Int32, message: String)] = [
      (["--mesh", "m.stl"], 64, "--mesh needs --dpi"),
      (["--dpi", "254", "--mesh", "m.obj"], 64, "must end in .stl or .3mf"),
      (
        ["--dpi", "254", "--mesh", "m.stl", "--mesh-height", "0"], 64,
        "--mesh-height must be more than 0"
      ),
      (
        ["--dpi", "254", "--mesh", "m.stl", "--mesh-base=-1mm"], 64,
        "--mesh-base must not be negative"
      ),
      (["--dpi", "254", "--mesh", "m.stl", "--mesh-split"], 64, "--mesh-split needs a .3mf"),
      (
        ["--dpi", "254", "--mesh", "m.stl", "--mesh-plate", "outline", "--cut-offset=-1mm"], 64,
        "needs a --cut-offset of 0 or more"
      ),
      (["--dpi", "254", "--mesh", "m.stl", "--mesh-plate", "oval"], 64, "oval"),
      (
        ["--dpi", "254", "--mesh", "m.stl", "--direction", "lowered", "--mesh-base", "0"], 1,
        "lowered text is carved into a plate"
      ),
      (
        ["--dpi", "254", "--mesh", "m.stl", "--mesh-plate", "outline", "--cut-offset", "30mm"], 1,
        "reaches past the canvas"
      ),
      (["--dpi", "254", "--mesh-height", "1mm"], 64, "need --mesh"),
      (["--dpi", "254", "--mesh-wall", "1mm"], 64, "need --mesh"),
      (
        ["--dpi", "254", "--mesh", "m.stl", "--direction", "lowered", "--mesh-height", "2mm"], 1,
        "must be thicker than the lowered relief is deep"
      ),
    ]
    try Data("keep".utf8).write(to: URL(fileURLWithPath: path("m.stl")))
    for (arguments, status, message) in cases {
      let result = try run(["render", "Hi", "-o", "x.png"] + arguments)
      XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
      // Argument errors (64) are the argument parser's, with the usage after them.
      let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
      XCTAssertTrue(first.hasPrefix(status == 64 ? "Error: " : "error: "), result.stderr)
      XCTAssertTrue(first.contains(message), "\(arguments): \(result.stderr)")
      if status == 1 {
        XCTAssertEqual(
          result.stderr.split(separator: "\n").count, 1, "one line: \(result.stderr)")
      }
    }
    XCTAssertEqual(
      try Data(contentsOf: URL(fileURLWithPath: path("m.stl"))), Data("keep".utf8),
      "an existing file is not replaced on an error")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: path("x.png")), "nothing written on an error")
  }

  /// A binary STL's enclosed volume (the sum of its triangles' signed tetrahedra).
  static func stlVolume(_ data: Data) -> Double {
    let bytes = [UInt8](data)
    func float(_ at: Int) -> Double {
      Double(
        Float(
          bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
            | UInt32(bytes[at + 3]) << 24))
    }
    let count = Int(UInt32(bytes[80]) | UInt32(bytes[81]) << 8 | UInt32(bytes[82]) << 16)
    var volume = 0.0
    for t in 0..<count {
      let base = 84 + 50 * t + 12
      let v = (0..<3).map { k in SIMD3((0..<3).map { float(base + 12 * k + 4 * $0) }) }
      volume +=
        (v[0]
        * SIMD3(
          v[1].y * v[2].z - v[1].z * v[2].y, v[1].z * v[2].x - v[1].x * v[2].z,
          v[1].x * v[2].y - v[1].y * v[2].x)).sum() / 6
    }
    return volume
  }

  /// An outline plate turns round the ink's corners as the SVG's cut line does.
  ///
  /// The same `--cut-join` at the same offset, so the printed tag and the laser's outline
  /// agree; the plate was always round.
  func testAnOutlinePlateFollowsTheCutJoin() throws {
    var volumes: [String: Double] = [:]
    for join in ["round", "miter"] {
      let result = try run([
        "render", "I", "--height", "10mm", "--dpi", "254", "--mesh", "\(join).stl",
        "--mesh-plate", "outline", "--cut-offset", "2mm", "--cut-join", join, "-o", "t.png",
      ])
      XCTAssertEqual(result.status, 0, result.stderr)
      volumes[join] = Self.stlVolume(
        try Data(contentsOf: URL(fileURLWithPath: path("\(join).stl"))))
    }
    // Each of the I's four square corners gains the corner of a 2 mm square that a quarter
    // circle leaves out, (1 - pi / 4) * 4 mm^2, times the 2 mm plate: 6.9 mm^3 in all.
    let gain = try XCTUnwrap(volumes["miter"]) - XCTUnwrap(volumes["round"])
    XCTAssertEqual(gain, 4 * (1 - Double.pi / 4) * 4 * 2, accuracy: 0.7, "\(volumes)")
  }

  /// Ink that touches the canvas's edge cannot have its outline cut there: the message says
  /// so and asks for padding (it blamed an outline plate's --cut-offset nobody gave).
  func testInkAtTheCanvasEdgeAsksForPadding() throws {
    var pixels = [Float](repeating: 1, count: 200 * 100)
    for y in 20..<80 { for x in 0..<60 { pixels[y * 200 + x] = 0 } }
    try PNGCodec.encodeGray(Plane(width: 200, height: 100, pixels: pixels))
      .write(to: URL(fileURLWithPath: path("edge.png")))
    for extra in [["--mesh-base", "0"], ["--mesh-wall", "0.5mm"]] {
      let result = try CLIRunner.run(
        ["render", "--mask", "edge.png", "--dpi", "254", "--mesh", "e.stl", "-o", "e.png"]
          + extra, in: directory)
      XCTAssertEqual(result.status, 1, result.stderr)
      XCTAssertEqual(
        result.stderr,
        "error: --mesh e.stl: the ink reaches the edge of the canvas, where this model's outline is cut; give some --padding\n"
      )
    }
    let padded = try CLIRunner.run(
      [
        "render", "--mask", "edge.png", "--dpi", "254", "--mesh", "e.stl", "--mesh-base", "0",
        "--padding", "10", "-o", "e.png",
      ], in: directory)
    XCTAssertEqual(padded.status, 0, padded.stderr)
  }

  func testABatchWritesAModelPerRow() throws {
    try "text\nAda\nBo\n".write(toFile: path("rows.csv"), atomically: true, encoding: .utf8)
    let result = try run([
      "batch", "rows.csv", "--name", "out/{text}.png", "--mesh", "out/{text}.stl", "--quiet",
      "--dpi", "300", "--size", "60",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    for name in ["Ada", "Bo"] {
      let data = try Data(contentsOf: URL(fileURLWithPath: path("out/\(name).stl")))
      let count = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 80, as: UInt32.self) }
      XCTAssertGreaterThan(count, 100, name)
      XCTAssertEqual(data.count, 84 + 50 * Int(count), name)
    }
  }

  func testLettersAloneAreOnePartEachAndATagIsOne() throws {
    let checks: [(arguments: [String], file: String, parts: [String])] = [
      (["--mesh-base", "0"], "a.stl", ["3"]),
      (["--mesh-plate", "outline", "--cut-offset", "3mm", "--mesh-wall", "0.6mm"], "t.stl", ["1"]),
      (["--mesh-split"], "s.3mf", ["1", "3"]),
    ]
    var checked = false
    for (arguments, file, parts) in checks {
      let result = try run(
        ["render", "Ada", "--size", "120", "--padding", "40", "--dpi", "254", "--mesh", file]
          + arguments + ["-o", "x.png"])
      XCTAssertEqual(result.status, 0, result.stderr)
      guard let text = try tool("prusa-slicer", ["--info", file]) else { continue }
      // One section per object.
      let lines = text.split(separator: "\n")
      let values = { (key: String) in
        lines.filter { $0.hasPrefix(key + " =") }.map {
          $0.split(separator: "=")[1].trimmingCharacters(in: .whitespaces)
        }
      }
      XCTAssertEqual(values("manifold"), parts.map { _ in "yes" }, "\(arguments): \(text)")
      // A, d, a; the tag; the plate, then the three letters.
      XCTAssertEqual(values("number_of_parts"), parts, "\(arguments)")
      checked = true
    }
    if !checked { throw XCTSkip("prusa-slicer is not installed (apt install prusa-slicer)") }
  }
}
