import EmbossKit
import Foundation
import XCTest

/// Runs the built `emboss` binary: output files, exit codes and messages.
final class CLITests: XCTestCase {
  /// The `emboss` built beside the test bundle (SwiftPM puts both in the products folder).
  static let binary: URL = {
    let bundle = Bundle(for: CLITests.self).bundleURL
    let candidates = [bundle, bundle.deletingLastPathComponent()].map {
      $0.appendingPathComponent("emboss")
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
      ?? candidates[0]
  }()

  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  func testRenderWritesAValidPNG() throws {
    let result = try run(["render", "Hi", "--size", "48", "-o", "hi.png"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(result.stderr, "")
    let samples = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("hi.png"))))
    let padding = Int((48 * 0.15 as Float).rounded()) + 2
    XCTAssertGreaterThan(samples.width, 2 * padding + 40)
    XCTAssertGreaterThan(samples.height, 2 * padding + 30)
  }

  func testFixedCanvasSixteenBitAndStages() throws {
    let result = try run([
      "render", "A", "--size", "40", "--canvas", "120x80", "--depth", "16", "--background",
      "transparent",
      "--profile", "linear", "--radius", "4", "--save-stages", "stages", "-o", "a.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let samples = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("a.png"))))
    XCTAssertEqual(samples.width, 120)
    XCTAssertEqual(samples.height, 80)
    XCTAssertEqual(samples.rgba[3], 0, "corner is transparent")
    for stage in ["mask.png", "height.png", "normals.png", "shading.png"] {
      XCTAssertNoThrow(
        try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("stages/" + stage)))),
        stage)
    }
  }

  /// A 16-bit PNG over a transparent background has 16 bits of alpha.
  ///
  /// Each edge pixel's alpha is the exact area of ink in it, from the outline (it had
  /// FreeType's 256 levels). On straight edges
  /// it is within a level of the 8-bit render's; on curves FreeType's flattening under-covers
  /// by up to about a tenth, which the exact area does not.
  func testSixteenBitAlphaHasSixteenBits() throws {
    func alphas(_ text: String, _ depth: String) throws -> (width: Int, alpha: [Int]) {
      let name = "\(text)\(depth).png"
      let result = try run([
        "render", text, "--size", "160", "--background", "transparent", "--depth", depth, "-o",
        name,
      ])
      XCTAssertEqual(result.status, 0, result.stderr)
      let samples = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path(name))))
      return (
        samples.width, stride(from: 3, to: samples.rgba.count, by: 4).map { Int(samples.rgba[$0]) }
      )
    }
    for (text, tolerance) in [("H", 2 * 257), ("Og", 8000)] {
      let (eight, sixteen) = (try alphas(text, "8"), try alphas(text, "16"))
      XCTAssertEqual(eight.width, sixteen.width)
      let levels = Set(sixteen.alpha.filter { $0 > 0 && $0 < 65535 })
      let worst = zip(eight.alpha, sixteen.alpha).map { abs($0 - $1) }.max() ?? 0
      XCTAssertTrue(levels.contains { $0 % 257 != 0 }, "\(text): values an 8-bit alpha cannot have")
      XCTAssertLessThanOrEqual(worst, tolerance, text)
      if text == "Og" { XCTAssertGreaterThan(levels.count, 256, "alpha values between 0 and 1") }
    }
  }

  func testDashWritesToStandardOutput() throws {
    let result = try run(["render", "x", "--size", "30", "-o", "-"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      Array(result.stdout.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    XCTAssertNoThrow(try PNGCodec.decodeSamples(result.stdout))
  }

  /// `shading` with a length option once trapped in swift-argument-parser (a hand-built
  /// option group read outside parsing); it has no relief options at all now, and its help
  /// lists only what it uses.
  func testShadingTakesOnlyTheOptionsItUses() throws {
    for arguments in [
      ["shading", "--radius", "2", "-o", "s.png"], ["shading", "--soften", "1mm", "-o", "t.png"],
    ] {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
      XCTAssertTrue(result.stderr.contains("Unknown option '\(arguments[1])'"), result.stderr)
    }
    let help = String(decoding: try run(["shading", "--help"]).stdout, as: UTF8.self)
    for unused in [
      "--profile", "--scale", "--direction", "--background", "--radius", "--shading-size",
    ] {
      XCTAssertFalse(help.contains(unused), "shading --help lists \(unused)")
    }
    for used in ["--material", "--set", "--light-angle", "--size", "--threads"] {
      XCTAssertTrue(help.contains(used), "shading --help lacks \(used)")
    }
    let lit = try run(["shading", "--size", "32", "--light-angle", "45", "-o", "lit.png"])
    XCTAssertEqual(lit.status, 0, lit.stderr)
  }

  func testShadingCommand() throws {
    let result = try run(["shading", "--size", "64", "-o", "ball.png"])
    XCTAssertEqual(result.status, 0, result.stderr)
    let samples = try PNGCodec.decodeSamples(
      Data(contentsOf: URL(fileURLWithPath: path("ball.png"))))
    XCTAssertEqual(samples.width, 64)
    XCTAssertEqual(samples.height, 64)
  }

  func testMissingFontFailsWithoutWriting() throws {
    let result = try run(["render", "Hi", "--font", "nope.ttf", "-o", "out.png"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "error: font file 'nope.ttf' does not exist\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.png")))
  }

  func testFailureLeavesAnExistingOutputUntouched() throws {
    try Data("precious".utf8).write(to: URL(fileURLWithPath: path("out.png")))
    let result = try run(["render", "\u{0F00}", "--no-fallback", "-o", "out.png"])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.stderr.hasPrefix("error: font 'DejaVu Sans Bold'"), result.stderr)
    XCTAssertEqual(try String(contentsOfFile: path("out.png"), encoding: .utf8), "precious")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    XCTAssertEqual(leftovers, ["out.png"], "no temporary file left behind")
  }

  func testArgumentErrorsExit64() throws {
    for arguments in [
      ["render", "Hi", "--size", "0", "-o", "x.png"],
      ["render", "Hi", "--size", "-1", "-o", "x.png"],
      ["render", "Hi", "--size", "nan", "-o", "x.png"],
      ["render", "Hi", "--radius", "1e9", "-o", "x.png"],
      ["render", "Hi", "--background", "#ggg", "-o", "x.png"],
      ["render", "Hi", "--depth", "12", "-o", "x.png"],
      ["render", "Hi", "--canvas", "10by10", "-o", "x.png"],
      ["render", "Hi"],
    ] {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
      XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.png")))
    }
  }

  func testRuntimeErrorsAreOneLine() throws {
    let cases: [([String], String)] = [
      (
        ["render", "", "-o", "x.png"],
        "error: the text renders no ink (it is empty or only spaces)\n"
      ),
      (
        ["render", "Hi", "-o", "missing/dir/x.png"],
        "error: cannot write 'missing/dir/x.png': directory 'missing/dir' does not exist\n"
      ),
      (["render", "Hi", "--size", "5000", "--max-pixels", "1000", "-o", "x.png"], ""),
    ]
    for (arguments, expected) in cases {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 1, "\(arguments)")
      if expected.isEmpty {
        XCTAssertTrue(
          result.stderr.hasPrefix("error: ") && result.stderr.contains("--max-pixels"),
          result.stderr)
      } else {
        XCTAssertEqual(
          result.stderr.replacingOccurrences(of: directory.path + "/", with: ""), expected)
      }
      XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1)
    }
  }

  func testMaterialTypoIsLocated() throws {
    try "surface:\n  shinyness: 40\n".write(
      toFile: path("bad.yaml"), atomically: true, encoding: .utf8)
    let result = try run(["render", "Hi", "--material", "bad.yaml", "-o", "x.png"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr,
      "bad.yaml:2:3: error: \"surface.shinyness\": unknown key; did you mean \"shininess\"?\n")
  }

  func testHelpExplainsOptionsAndDefaults() throws {
    let result = try run(["render", "--help"])
    XCTAssertEqual(result.status, 0)
    // Words as they read, whatever the help's line breaks.
    let help = String(decoding: result.stdout, as: UTF8.self)
      .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for option in [
      "--font", "--size", "--cap-height", "--material", "--radius", "--profile", "--scale",
      "--background", "--depth", "--align", "--save-stages", "1...10000 pixels (default: 160)",
    ] {
      XCTAssertTrue(help.contains(option), "help lacks \(option)")
    }
  }

  func testMaterialsListsPresetsWithDescriptions() throws {
    let result = try run(["materials"])
    XCTAssertEqual(result.status, 0, result.stderr)
    let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
    XCTAssertGreaterThanOrEqual(lines.count, 8)
    for name in ["chrome", "gold", "copper", "mercury", "stone", "default"] {
      XCTAssertTrue(lines.contains { $0.hasPrefix(name + " ") && !$0.contains("invalid") }, name)
    }
  }

  /// A preset's description is one line whatever it holds: a line break, a tab or an escape
  /// code (which a terminal would act on) is shown as a space.
  func testMaterialsListsADescriptionOnOneLine() throws {
    let root = directory.appendingPathComponent("resources")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("Materials"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("Fonts"),
      withDestinationURL: FontTests.root.appendingPathComponent("Fonts"))
    try "description: \"two\\nlines\\tand \\u001b[31mred\"\n".write(
      to: root.appendingPathComponent("Materials/odd.yaml"), atomically: true, encoding: .utf8)
    // (A resources folder needs the default material.)
    try "description: plain\n".write(
      to: root.appendingPathComponent("Materials/default.yaml"), atomically: true,
      encoding: .utf8)
    let result = try CLIRunner.launch(
      CLITests.binary, ["materials"], in: directory, adding: ["EMBOSS_RESOURCES": root.path])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      String(decoding: result.stdout, as: UTF8.self),
      "default  plain\nodd      two lines and  [31mred\n")
  }

  func testCheckReportsEveryProblemAndExitCode() throws {
    try "surface:\n  shininess: 0\n  base: \"#ggg\"\nrelief:\n  radus: 3\n".write(
      toFile: path("bad.yaml"), atomically: true, encoding: .utf8)
    try "surface:\n  shininess: 90\n".write(
      toFile: path("good.yaml"), atomically: true, encoding: .utf8)
    let result = try run(["check", "good.yaml", "bad.yaml", "gold"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(String(decoding: result.stdout, as: UTF8.self), "good.yaml: ok\ngold: ok\n")
    XCTAssertEqual(
      result.stderr,
      """
      bad.yaml:2:14: error: "surface.shininess": must be in 1...2048, got 0
      bad.yaml:3:9: error: "surface.base": expected a color like "#rrggbb", "#rgb", "#rrggbbaa", rgb(...), hsl(...) or a CSS name, got "#ggg"
      bad.yaml:5:3: error: "relief.radus": unknown key; did you mean "radius"?

      """)
    XCTAssertEqual(try run(["check", "good.yaml"]).status, 0)
  }

  /// `emboss studio` runs its server (`emboss-studio`, built beside it) in its own place:
  /// what the server finds wrong reaches the caller as emboss's own errors do, located, exit 1.
  func testStudioRunsItsServerWhoseErrorsAreEmbosss() throws {
    try "surface:\n  shininess: abc\n".write(
      toFile: path("bad.yaml"), atomically: true, encoding: .utf8)
    let result = try run(["studio", "bad.yaml"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr,
      path("bad.yaml")
        + ":2:14: error: \"surface.shininess\": expected a number, got \"abc\"\n"
    )
    let font = try run(["studio", "default", "--font", path("missing.ttf")])
    XCTAssertEqual(font.status, 1)
    XCTAssertTrue(font.stderr.hasPrefix("error: font file"), font.stderr)
    // The server alone is not a command.
    let server = Process()
    server.executableURL = Self.binary.deletingLastPathComponent()
      .appendingPathComponent("emboss-studio")
    server.standardError = FileHandle.nullDevice
    try server.run()
    server.waitUntilExit()
    XCTAssertEqual(server.terminationStatus, 64)
  }

  func testEveryPresetIsValid() throws {
    let materials = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Materials")
    let presets = try FileManager.default.contentsOfDirectory(atPath: materials.path)
      .filter { $0.hasSuffix(".yaml") }
    XCTAssertGreaterThanOrEqual(presets.count, 8)
    let result = try run(["check"] + presets.map { String($0.dropLast(5)) })
    XCTAssertEqual(result.status, 0, result.stderr)
  }

  func testSheetHasOneTilePerMaterial() throws {
    let result = try run([
      "sheet", "--text", "A", "--size", "40", "--columns", "2", "--materials", "gold", "stone",
      "chrome", "-o", "sheet.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let samples = try PNGCodec.decodeSamples(
      Data(contentsOf: URL(fileURLWithPath: path("sheet.png"))))
    // The same three in one row give the tile's size (labels included): in two columns they
    // are 2 x 2 tiles.
    let row = try run([
      "sheet", "--text", "A", "--size", "40", "--columns", "3", "--materials", "gold", "stone",
      "chrome", "-o", "row.png",
    ])
    XCTAssertEqual(row.status, 0, row.stderr)
    let strip = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("row.png"))))
    XCTAssertEqual(strip.width % 3, 0, "three equal tiles")
    XCTAssertGreaterThan(strip.width / 3, 40)
    XCTAssertEqual(samples.width, 2 * strip.width / 3, "two columns")
    XCTAssertEqual(samples.height, 2 * strip.height, "two rows")
    // The fourth place is empty: the sheet's gray at its center.
    let center = ((samples.height * 3 / 4) * samples.width + samples.width * 3 / 4) * 4
    let gray = UInt16((SRGB.encode(0.2) * 255).rounded()) * 257  // 8-bit, read as 16
    XCTAssertEqual(Array(samples.rgba[center..<center + 3]), [gray, gray, gray], "no fourth tile")
  }

  /// A sheet of lights: one material under six angles and two altitudes (a tile each, six
  /// a row); `--set` reaches every tile and is checked like render's.
  func testSheetOfLightsAndSettings() throws {
    let lights = try run([
      "sheet", "--lights", "--text", "A", "--size", "40", "--materials", "gold", "-o", "lights.png",
    ])
    XCTAssertEqual(lights.status, 0, lights.stderr)
    let strip = try run([
      "sheet", "--lights", "--columns", "12", "--text", "A", "--size", "40", "--materials",
      "gold", "-o", "strip.png",
    ])
    XCTAssertEqual(strip.status, 0, strip.stderr)
    let sheet = try PNGCodec.decodeSamples(
      Data(contentsOf: URL(fileURLWithPath: path("lights.png"))))
    let row = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("strip.png"))))
    XCTAssertEqual(row.width % 12, 0, "twelve equal tiles")
    XCTAssertEqual(sheet.width, row.width / 2, "six angles a row")
    XCTAssertEqual(sheet.height, 2 * row.height, "two altitudes")
    // A setting changes every tile: gold's plate, made white, is white at the corner.
    let white = try run([
      "sheet", "--text", "A", "--size", "40", "--materials", "gold", "stone", "--set",
      "background=\"#ffffff\"", "-o", "white.png",
    ])
    XCTAssertEqual(white.status, 0, white.stderr)
    let plate = try PNGCodec.decodeSamples(
      Data(contentsOf: URL(fileURLWithPath: path("white.png"))))
    XCTAssertEqual(Array(plate.rgba[0..<3]), [65535, 65535, 65535])
    let bad = try run([
      "sheet", "--materials", "gold", "--set", "shadow.opacity=2", "-o", "bad.png",
    ])
    // An argument error (64), said once, not once per tile.
    XCTAssertEqual(bad.status, 64)
    XCTAssertEqual(
      bad.stderr.components(separatedBy: "\"shadow.opacity\": must be in 0...1, got 2").count, 2,
      bad.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad.png")))
    let two = try run(["sheet", "--lights", "--materials", "gold", "stone", "-o", "x.png"])
    XCTAssertEqual(two.status, 64)
  }

  /// Polls `condition` every 50 ms for up to `seconds`.
  func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return condition()
  }

  /// `render W --material m.yaml -o w.png --watch --watch-limit 2` (and `extra`), started,
  /// its standard output in out.txt and its errors in err.txt.
  func watch(_ extra: [String] = []) throws -> Process {
    XCTAssertTrue(FileManager.default.createFile(atPath: path("out.txt"), contents: nil))
    XCTAssertTrue(FileManager.default.createFile(atPath: path("err.txt"), contents: nil))
    let process = Process()
    process.executableURL = Self.binary
    process.arguments =
      [
        "render", "W", "--size", "30", "--material", "m.yaml", "-o", "w.png", "--watch",
        "--watch-limit", "2",
      ] + extra
    process.environment = CLIRunner.environment
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle(forWritingAtPath: path("out.txt"))
    process.standardError = FileHandle(forWritingAtPath: path("err.txt"))
    try process.run()
    return process
  }

  /// A file of the test's folder as text ("" when unreadable).
  func text(_ name: String) -> String {
    (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? ""
  }

  func testWatchSurvivesABrokenSaveAndReusesStages() throws {
    let material = path("m.yaml")
    try "surface:\n  shininess: 40\n".write(toFile: material, atomically: true, encoding: .utf8)
    // Without the ball cache: the stages a relight re-runs are then always the same (a
    // ball read from the cache leaves the geometry to be marched on the relight).
    let process = try watch(["--no-cache"])
    defer { if process.isRunning { process.terminate() } }

    XCTAssertTrue(eventually(20) { text("out.txt").contains("rendered w.png") }, "first render")
    let first = try Data(contentsOf: URL(fileURLWithPath: path("w.png")))
    try "surface:\n  shininess: 0\n".write(toFile: material, atomically: true, encoding: .utf8)
    XCTAssertTrue(
      eventually(20) { text("err.txt").contains("m.yaml:2:14: error") }, text("err.txt"))
    XCTAssertEqual(
      try Data(contentsOf: URL(fileURLWithPath: path("w.png"))), first, "the last good image stays")
    XCTAssertTrue(process.isRunning, "an error does not end watching")
    try "surface:\n  shininess: 90\n".write(toFile: material, atomically: true, encoding: .utf8)
    XCTAssertTrue(eventually(20) { !process.isRunning }, "stops after --watch-limit changes")
    let lines = text("out.txt").split(separator: "\n")
    XCTAssertEqual(lines.count, 2, text("out.txt"))
    XCTAssertTrue(
      lines[1].hasSuffix("(material, shading image, composite, png encode)"), String(lines[1]))
    XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: path("w.png"))), first)
  }

  /// An editor that saves the parent by writing a new file and renaming it, or a parent
  /// deleted and written again: the child is followed throughout.
  func testWatchFollowsAParentThatComesBack() throws {
    try "surface:\n  shininess: 40\n".write(
      toFile: path("parent.yaml"), atomically: true, encoding: .utf8)
    try "extends: parent.yaml\n".write(toFile: path("m.yaml"), atomically: true, encoding: .utf8)
    let process = try watch()
    defer { if process.isRunning { process.terminate() } }
    XCTAssertTrue(eventually(20) { text("out.txt").contains("rendered w.png") }, "first render")
    let first = try Data(contentsOf: URL(fileURLWithPath: path("w.png")))
    try FileManager.default.removeItem(atPath: path("parent.yaml"))
    XCTAssertTrue(eventually(20) { text("err.txt").contains("file not found") }, text("err.txt"))
    // Written again, as an editor's save-by-rename does.
    try "surface:\n  shininess: 90\n".write(
      toFile: path("parent.yaml.tmp"), atomically: false, encoding: .utf8)
    XCTAssertEqual(rename(path("parent.yaml.tmp"), path("parent.yaml")), 0)
    XCTAssertTrue(eventually(20) { !process.isRunning }, "renders again: " + text("err.txt"))
    XCTAssertEqual(text("out.txt").split(separator: "\n").count, 2, text("out.txt"))
    XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: path("w.png"))), first)
  }

  func testDiffExitCodesAndReport() throws {
    XCTAssertEqual(try run(["render", "A", "--size", "30", "-o", "a.png"]).status, 0)
    XCTAssertEqual(
      try run(["render", "A", "--size", "30", "--set", "lights[0].intensity=1.3", "-o", "b.png"])
        .status, 0)
    XCTAssertEqual(try run(["render", "AB", "--size", "30", "-o", "c.png"]).status, 0)
    let same = try run(["diff", "a.png", "a.png"])
    XCTAssertEqual(same.status, 0)
    XCTAssertTrue(
      String(decoding: same.stdout, as: UTF8.self).hasPrefix("0 of "),
      String(decoding: same.stdout, as: UTF8.self))
    XCTAssertTrue(String(decoding: same.stdout, as: UTF8.self).contains("PSNR inf dB"))
    let different = try run(["diff", "a.png", "b.png", "--out", "d.png"])
    XCTAssertEqual(different.status, 1)
    let picture = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("d.png"))))
    let a = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path("a.png"))))
    XCTAssertEqual(picture.width, 3 * a.width, "expected | diff | actual")
    XCTAssertEqual(try run(["diff", "a.png", "b.png", "--tolerance", "255"]).status, 0)
    XCTAssertEqual(try run(["diff", "a.png", "b.png", "--max-bad-fraction", "1"]).status, 0)
    let sizes = try run(["diff", "a.png", "c.png"])
    XCTAssertEqual(sizes.status, 2)
    XCTAssertTrue(sizes.stderr.hasPrefix("error: sizes differ"), sizes.stderr)
    // With --json, standard output still holds one JSON object, saying why.
    let sizesJSON = try run(["diff", "a.png", "c.png", "--json"])
    XCTAssertEqual(sizesJSON.status, 2)
    let object = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: sizesJSON.stdout) as? [String: Any])
    XCTAssertEqual(object["match"] as? Bool, false)
    XCTAssertEqual(object["error"] as? String, "sizes differ")
    XCTAssertEqual((object["expected"] as? [String: Int])?["width"], a.width)
    XCTAssertEqual((object["actual"] as? [String: Int])?["height"], a.height)
    try Data("not a png".utf8).write(to: URL(fileURLWithPath: path("bad.png")))
    let unreadable = try run(["diff", "a.png", "bad.png"])
    XCTAssertEqual(unreadable.status, 2)
    XCTAssertEqual(
      unreadable.stderr,
      "error: cannot read picture 'bad.png': not a PNG, JPEG or WebP file (unknown signature)\n")
  }
}

extension CLITests {
  /// `emboss bench` times whole `emboss render` processes (wall time, peak memory) and then
  /// each stage in-process.
  func testBenchTimesWholeProcessesAndStages() throws {
    let result = try run(["bench", "--cases", "A", "--iterations", "1"])
    XCTAssertEqual(result.status, 0, result.stderr)
    let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
    let whole = try XCTUnwrap(lines.first { $0.hasPrefix("  case A") }, "\(lines)")
    XCTAssertTrue(whole.contains(" ms (median; min "), String(whole))
    XCTAssertTrue(whole.contains("MiB"), String(whole))
    XCTAssertTrue(whole.contains("bytes per pixel"), String(whole))
    XCTAssertTrue(lines.contains { $0.contains("height field") }, "\(lines)")
    XCTAssertTrue(lines.contains { $0.hasPrefix("case A: \"Hello, World\" at 128 px in 1000x200") })
  }
}
