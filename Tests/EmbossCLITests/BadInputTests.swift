import EmbossKit
import Foundation
import XCTest

/// The catalogue of bad inputs: each gives one clear `error:` line (or ArgumentParser's
/// usage error for arguments), the documented exit status, no crash, and leaves an existing
/// output file untouched with no temporary file behind.
final class BadInputTests: XCTestCase {
  struct Case {
    var name: String
    var arguments: [String]
    var status: Int32
    /// The whole of stderr, or (when it ends with "...") its beginning.
    var message: String?
    /// When set, the run's peak memory must stay below this many MiB: a limit refused the
    /// request before allocating for it.
    var peakMiB: Int? = nil
  }

  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-bad-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try makeFixtures()
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  func write(_ bytes: [UInt8], _ name: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
  }

  /// Bad files: truncated, corrupt, huge, empty, not PNG, not a font, broken materials.
  func makeFixtures() throws {
    let good = [UInt8](
      try PNGCodec.encode(RGBAImage(width: 16, height: 16, fill: SIMD4(0.5, 0.5, 0.5, 1))))
    try write(Array(good.prefix(good.count - 30)), "truncated.png")
    var corrupt = good
    corrupt[good.count - 20] ^= 0x5a
    try write(corrupt, "corrupt.png")
    var huge = good
    let big: [UInt8] = [0x00, 0x01, 0x86, 0xA0]  // 100000
    huge.replaceSubrange(16..<20, with: big)
    huge.replaceSubrange(20..<24, with: big)
    let crc = Self.crc32(Array(huge[12..<29]))
    huge.replaceSubrange(
      29..<33,
      with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xff), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)])
    try write(huge, "huge.png")
    try write([], "empty.png")
    try write(Array("GIF89a not a png at all".utf8), "gif.png")
    try write(Array("this is not a font".utf8), "font.ttf")
    try FileManager.default.createDirectory(
      atPath: path("folder.png"), withIntermediateDirectories: true)
    try "surface:\n  shininess: .nan\n".write(
      toFile: path("nan.yaml"), atomically: true, encoding: .utf8)
    try "surface: [1, 2\n".write(toFile: path("syntax.yaml"), atomically: true, encoding: .utf8)
    try write(good, "good.png")
    try "relief:\n  radius: 4\n  radius: 5\n".write(
      toFile: path("dup.yaml"), atomically: true, encoding: .utf8)
    try "description: \"open\nrelief:\n  radius: 4\n".write(
      toFile: path("quote.yaml"), atomically: true, encoding: .utf8)
    try "relief:\n\tradius: 4\n".write(toFile: path("tab.yaml"), atomically: true, encoding: .utf8)
    try "surface:\n  base: goldd\n".write(
      toFile: path("color.yaml"), atomically: true, encoding: .utf8)
    try write(Array("relief:\n  radius: 4 ".utf8) + [0xFF, 0x0A], "latin.yaml")
    try FileManager.default.createDirectory(atPath: path("sub"), withIntermediateDirectories: true)
    try "extends: parent.yaml\n".write(
      toFile: path("sub/child.yaml"), atomically: true, encoding: .utf8)
    try "relief:\n  radius: 6\n".write(
      toFile: path("parent.yaml"), atomically: true, encoding: .utf8)
    // A named FIFO nobody writes to.
    _ = mkfifo(path("fifo"), 0o644)
    // 141 bytes: a 16x16 gray PNG whose tEXt chunk claims 2,000,000,000 bytes.
    var claim = Array(good.prefix(33))
    claim += [0x77, 0x35, 0x94, 0x00] + Array("tEXt".utf8) + Array("Comment".utf8) + [0]
    claim += [UInt8](repeating: 0x41, count: 141 - claim.count)
    try write(claim, "text2g.png")
  }

  var catalogue: [Case] {
    let long = String(repeating: "x", count: 100_000)
    let limit = "the limit of 100000000 pixels"
    return [
      Case(
        name: "truncated PNG", arguments: ["render", "A", "--shading-image", "truncated.png"],
        status: 1,
        message: "error: cannot read PNG 'truncated.png': file is truncated\n"),
      Case(
        name: "corrupt PNG", arguments: ["render", "A", "--shading-image", "corrupt.png"],
        status: 1,
        message: "error: cannot read PNG 'corrupt.png': ..."),
      Case(
        name: "truncated PNG to engrave", arguments: ["engrave", "truncated.png", "-o", "e.png"],
        status: 1,
        message: "error: cannot read PNG 'truncated.png': file is truncated\n"),
      Case(
        name: "corrupt PNG to engrave", arguments: ["engrave", "corrupt.png", "-o", "e.png"],
        status: 1,
        message: "error: cannot read PNG 'corrupt.png': ..."),
      Case(
        name: "huge PNG to engrave", arguments: ["engrave", "huge.png", "-o", "e.png"], status: 1,
        message:
          "error: cannot read PNG 'huge.png': image is 100000x100000 (10000000000 pixels), over \(limit)\n"
      ),
      Case(
        name: "PNG claiming 100000x100000",
        arguments: ["render", "A", "--shading-image", "huge.png"], status: 1,
        message:
          "error: cannot read PNG 'huge.png': image is 100000x100000 (10000000000 pixels), over the limit of 16777216 pixels\n"
      ),
      Case(
        name: "huge PNG in diff", arguments: ["diff", "good.png", "huge.png"], status: 2,
        message:
          "error: cannot read PNG 'huge.png': image is 100000x100000 (10000000000 pixels), over \(limit)\n"
      ),
      Case(
        name: "empty PNG", arguments: ["render", "A", "--shading-image", "empty.png"], status: 1,
        message: "error: cannot read picture 'empty.png': file is empty\n"),
      Case(
        name: "not a PNG", arguments: ["render", "A", "--shading-image", "gif.png"], status: 1,
        message:
          "error: cannot read picture 'gif.png': a GIF file; emboss reads PNG, JPEG and WebP\n"),
      Case(
        name: "a directory as PNG", arguments: ["render", "A", "--shading-image", "folder.png"],
        status: 1,
        message: "error: picture file 'folder.png' is a directory\n"),
      Case(
        name: "missing PNG", arguments: ["render", "A", "--shading-image", "nope.png"], status: 1,
        message: "error: picture file 'nope.png' does not exist\n"),
      Case(
        name: "font that is not a font", arguments: ["render", "A", "--font", "font.ttf"],
        status: 1,
        message:
          "error: cannot load font 'font.ttf': unknown file format (not a font FreeType can read)\n"
      ),
      Case(
        name: "missing font", arguments: ["render", "A", "--font", "none.otf"], status: 1,
        message: "error: font file 'none.otf' does not exist\n"),
      Case(
        name: "missing glyph", arguments: ["render", "a\u{0F00}", "--no-fallback"], status: 1,
        message: "error: font 'DejaVu Sans Bold' ..."),
      Case(
        name: "no text at all", arguments: ["render", "-o", "x.png"], status: 64,
        message:
          "Error: no text to emboss: give it as an argument (emboss render \"Hello\" -o hello.png), or --text-file FILE, or a picture with --mask FILE\n..."
      ),
      Case(
        name: "empty text", arguments: ["render", ""], status: 1,
        message: "error: the text renders no ink (it is empty or only spaces)\n"),
      Case(
        name: "control character", arguments: ["render", "a\u{07}b"], status: 1,
        message: "error: text contains the control character U+0007; only line breaks are allowed\n"
      ),
      Case(
        name: "100,000 characters", arguments: ["render", long], status: 1,
        message: "error: text is 100000 characters long; the limit is 10000\n"),
      Case(
        name: "canvas over the pixel limit",
        arguments: ["render", "A", "--canvas", "100000x100000"], status: 1,
        message:
          "error: the image would be 100000x100000 pixels, over \(limit) (raise it with --max-pixels)\n"
      ),
      Case(
        name: "text over the pixel limit",
        arguments: ["render", "W", "--size", "9000", "--max-pixels", "1000000"], status: 1,
        message: "error: the image would be ..."),
      Case(
        name: "NaN in a material", arguments: ["render", "A", "--material", "nan.yaml"], status: 1,
        message: "nan.yaml:2:14: error: \"surface.shininess\": must be a finite number, got .nan\n"),
      Case(
        name: "material syntax error", arguments: ["render", "A", "--material", "syntax.yaml"],
        status: 1,
        message: "syntax.yaml:2:1: error: not valid YAML: ..."),
      Case(
        name: "unknown preset", arguments: ["render", "A", "--material", "goldd"], status: 1,
        message: "error: no material named 'goldd'; did you mean 'gold'? ..."),
      Case(
        name: "output in a missing directory",
        arguments: ["render", "A", "-o", "no/such/dir/x.png"], status: 1,
        message: "error: cannot write 'no/such/dir/x.png': directory 'no/such/dir' does not exist\n"
      ),
      Case(
        name: "output in a read-only place",
        arguments: ["render", "A", "-o", "/proc/emboss-test.png"], status: 1,
        message: "error: cannot write '/proc/emboss-test.png': ..."),
      Case(
        name: "output is a directory", arguments: ["render", "A", "-o", "folder.png"], status: 1,
        message: "error: cannot write 'folder.png': it is a directory\n"),
      Case(name: "size 0", arguments: ["render", "A", "--size", "0"], status: 64, message: nil),
      Case(name: "size -1", arguments: ["render", "A", "--size", "-1"], status: 64, message: nil),
      Case(
        name: "size NaN", arguments: ["render", "A", "--size", "nan"], status: 64, message: nil),
      Case(
        name: "size 1e9", arguments: ["render", "A", "--size", "1e9"], status: 64, message: nil),
      Case(
        name: "radius 0", arguments: ["render", "A", "--radius", "0"], status: 64, message: nil),
      Case(
        name: "radius NaN", arguments: ["render", "A", "--radius", "nan"], status: 64, message: nil),
      Case(
        name: "radius 1e9", arguments: ["render", "A", "--radius", "1e9"], status: 64, message: nil),
      Case(
        name: "scale -1", arguments: ["render", "A", "--scale", "-1"], status: 64, message: nil),
      Case(
        name: "scale inf", arguments: ["render", "A", "--scale", "inf"], status: 64, message: nil),
      Case(
        name: "line height 0", arguments: ["render", "A", "--line-height", "0"], status: 64,
        message: nil),
      Case(
        name: "letter spacing NaN", arguments: ["render", "A", "--letter-spacing", "nan"],
        status: 64, message: nil),
      Case(
        name: "bad color", arguments: ["render", "A", "--background", "#12345"], status: 64,
        message: nil),
      Case(
        name: "compression 10", arguments: ["render", "A", "--compression", "10"], status: 64,
        message: nil),
      Case(
        name: "threads 0", arguments: ["render", "A", "--threads", "0"], status: 64, message: nil),
      Case(
        name: "max pixels 0", arguments: ["render", "A", "--max-pixels", "0"], status: 64,
        message: nil),
      // Settings are arguments: checked (against the parameter table) before any file is read.
      Case(
        name: "bad --set", arguments: ["render", "A", "--set", "relief.radius=-2"], status: 64,
        message: "Error: --set:1:15: \"relief.radius\": must be in 0.5...1000, got -2\n..."),
      Case(
        name: "flag as a located setting",
        arguments: ["render", "A", "--radius", "2000mm", "--dpi", "300"], status: 64,
        message:
          "Error: --radius 2000mm: \"relief.radius\": must be in 0.5...1000, got 23622.047\n..."),
      Case(
        name: "key a light kind does not use",
        arguments: ["render", "A", "--set", "lights[0]={kind: omni, cone: 20}"], status: 64,
        message:
          "Error: --set:1:24: \"lights[0].cone\": an omni light has no \"cone\" (only spot lights do)\n..."
      ),
      Case(
        name: "light index past the material's lights",
        arguments: ["render", "A", "--set", "lights[9].intensity=1"], status: 1,
        message:
          "--set:1:1: error: \"lights[9].intensity\": no light [9]; the material has ... (index ... adds one)\n"
      ),
      Case(
        name: "bad --set on a sheet", arguments: ["sheet", "--set", "surface.shininess=0"],
        status: 64,
        message: "Error: --set:1:19: \"surface.shininess\": must be in 1...2048, got 0\n..."),
      // A negative number after an option is its value (the parser alone took `-5` for an
      // option and said the value was missing).
      Case(
        name: "negative padding", arguments: ["render", "A", "--padding", "-5"], status: 64,
        message: "Error: --padding must be a length of 0 or more, got -5\n..."),
      Case(
        name: "negative radius in mm",
        arguments: ["render", "A", "--radius", "-0.5mm", "--dpi", "300"], status: 64,
        message: "Error: --radius must be a length of 0 or more, got -0.5mm\n..."),
      Case(
        name: "negative number after a flag", arguments: ["render", "A", "--invert-mask", "-5"],
        status: 64,
        message:
          "Error: The option '--invert-mask' does not take any value, but '-5' was specified.\n..."
      ),
      Case(
        name: "relief option on shading", arguments: ["shading", "--radius", "2", "-o", "s.png"],
        status: 64,
        message: "Error: Unknown option '--radius'\n..."),
      // Numbers and limits (issue 9): refused before any work, so peak memory stays small.
      Case(
        name: "dot width 1e300",
        arguments: ["render", "A", "--engrave", "e.png", "--dot-width", "1e300"], status: 64,
        message:
          "Error: --dot-width 1e+300 is 1e+300 pixels; a length can be at most 1048576 pixels\n..."
      ),
      Case(
        name: "cut offset 1e300",
        arguments: ["render", "A", "--svg", "s.svg", "--dpi", "254", "--cut-offset", "1e300"],
        status: 64,
        message:
          "Error: --cut-offset 1e+300 is 1e+300 pixels; a length can be at most 1048576 pixels\n..."
      ),
      Case(
        name: "cut offset 2000mm",
        arguments: ["render", "A", "--svg", "s.svg", "--dpi", "254", "--cut-offset", "2000mm"],
        status: 1,
        message:
          "error: the image would be 40181x40175 pixels, over \(limit) (raise it with --max-pixels)\n",
        peakMiB: 400),
      Case(
        name: "cut offset 1e6 px",
        arguments: ["render", "A", "--svg", "s.svg", "--dpi", "254", "--cut-offset", "1e6"],
        status: 1,
        message:
          "error: the image would be 2000181x2000175 pixels, over \(limit) (raise it with --max-pixels)\n",
        peakMiB: 400),
      Case(
        name: "30 letters at size 10000",
        arguments: ["render", String(repeating: "W", count: 30), "--size", "10000"],
        status: 1, message: "error: the image would be ...", peakMiB: 400),
      Case(
        name: "30 letters at size 10000, pixel limit raised",
        arguments: [
          "render", String(repeating: "W", count: 30), "--size", "10000", "--max-pixels",
          "100000000000", "--max-memory", "4G",
        ],
        status: 1,
        message:
          "error: the image would be ..., which needs about ... of memory, over the budget of 4.0 GiB (raise it with --max-memory)\n",
        peakMiB: 400),
      Case(
        name: "glyphs stacked over each other",
        arguments: [
          "render", String(repeating: "W", count: 400), "--size", "1000", "--letter-spacing=-1000",
        ],
        status: 1, message: "error: the glyphs would need ...", peakMiB: 400),
      Case(
        name: "mask over the memory budget",
        arguments: ["render", "--mask", "good.png", "--max-memory", "10K"],
        status: 1,
        message:
          "error: mask 'good.png' is 16x16 pixels, which needs about 12 KiB of memory, over the budget of 10 KiB (raise it with --max-memory)\n"
      ),
      Case(
        name: "shading image over the pixel limit",
        arguments: ["render", "A", "--shading-size", "4096", "--max-pixels", "1000000"],
        status: 1,
        message:
          "error: the shading image would be 4096x4096 pixels, over the limit of 1000000 pixels (raise it with --max-pixels)\n"
      ),
      Case(
        name: "dense edges over the memory budget",
        arguments: [
          "render", String(repeating: "WM", count: 20), "--size", "24", "--radius", "3",
          "--max-memory", "36M",
        ],
        status: 1,
        message:
          "error: rendering the ... image needs about ... of memory, over the budget of 36 MiB (raise it with --max-memory)\n"
      ),
      Case(
        name: "bad --max-memory", arguments: ["render", "A", "--max-memory", "lots"], status: 64,
        message: nil),
      Case(
        name: "PNG whose tEXt chunk claims 2 GB", arguments: ["render", "--mask", "text2g.png"],
        status: 1,
        message: "error: cannot read PNG 'text2g.png': tEXt: chunk data is too large\n",
        peakMiB: 400),
      // Inputs (issue 9): a FIFO with no writer is empty, never a hang or the defaults.
      Case(
        name: "FIFO as the font", arguments: ["render", "A", "--font", "fifo"], status: 1,
        message: "error: font file 'fifo' is empty\n"),
      Case(
        name: "FIFO as the material", arguments: ["render", "A", "--material", "fifo"], status: 1,
        message:
          "fifo:1:1: error: nothing was written to this pipe or FIFO\n"
      ),
      Case(
        name: "FIFO as the mask", arguments: ["render", "--mask", "fifo"], status: 1,
        message: "error: cannot read picture 'fifo': file is empty\n"),
      Case(
        name: "directory as the font", arguments: ["render", "A", "--font", "."], status: 1,
        message: "error: font file '.' is a directory\n"),
      // Material diagnostics (issue 9): located where the problem is.
      Case(
        name: "duplicate key", arguments: ["render", "A", "--material", "dup.yaml"], status: 1,
        message: "dup.yaml:3:3: error: \"relief.radius\": duplicate key\n"),
      Case(
        name: "unclosed quote", arguments: ["render", "A", "--material", "quote.yaml"], status: 1,
        message: "quote.yaml:1:14: error: not valid YAML: this quoted string is never closed\n"),
      Case(
        name: "tab indentation", arguments: ["render", "A", "--material", "tab.yaml"], status: 1,
        message:
          "tab.yaml:2:1: error: not valid YAML: a tab is used for indentation; YAML indents with spaces only\n"
      ),
      Case(
        name: "misspelled color", arguments: ["render", "A", "--material", "color.yaml"], status: 1,
        message:
          "color.yaml:2:9: error: \"surface.base\": unknown color name \"goldd\"; did you mean \"gold\"?\n"
      ),
      Case(
        name: "non-UTF-8 material", arguments: ["render", "A", "--material", "latin.yaml"],
        status: 1,
        message: "latin.yaml:2:13: error: not UTF-8 text: byte 0xFF (save the file as UTF-8)\n"),
      Case(
        name: "extends next to the file, not the working directory",
        arguments: ["render", "A", "--material", "sub/child.yaml"], status: 1,
        message:
          "sub/child.yaml:1:10: error: \"extends\": file not found: \"parent.yaml\" (looked for sub/parent.yaml, next to the file that extends it)\n"
      ),
      // Conflicting outputs (issue 9): refused before rendering.
      Case(
        name: "output over the mask",
        arguments: ["render", "--mask", "good.png", "-o", "good.png"], status: 64,
        message: "Error: -o 'good.png' is also the --mask input; write the output elsewhere\n..."),
      Case(
        name: "empty output path", arguments: ["render", "A", "-o", ""], status: 64,
        message: "Error: -o is empty; give a file, or - for standard output\n..."),
      Case(
        name: "output path with a trailing slash",
        arguments: ["render", "A", "-o", "new/", "--engrave", "e.png"], status: 64,
        message: "Error: -o 'new/' names a directory; give a file\n..."),
      Case(
        name: "shading output path empty", arguments: ["shading", "-o", ""], status: 64,
        message: "Error: -o is empty; give a file, or - for standard output\n..."),
      Case(
        name: "two outputs on one file",
        arguments: ["render", "A", "-o", "out.png", "--depth-map", "out.png"], status: 64,
        message:
          "Error: -o and --depth-map both write 'out.png'; give each output its own file\n..."),
    ]
  }

  func testCatalogue() throws {
    let precious = Data("an earlier render".utf8)
    for entry in catalogue {
      var arguments = entry.arguments
      if !arguments.contains("-o") && arguments.first != "diff" {
        try precious.write(to: URL(fileURLWithPath: path("out.png")))
        arguments += ["-o", "out.png"]
      }
      let before = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
      let result: CLIRunner.Result
      if let peakMiB = entry.peakMiB {
        let measured = try CLIRunner.runMeasuringPeak(arguments, in: directory)
        result = measured.result
        if let peak = measured.peakKiB {
          XCTAssertLessThan(peak, peakMiB * 1024, "\(entry.name): peak memory")
        } else {
          print("note: \(CLIRunner.time) is missing; peak memory of '\(entry.name)' not checked")
        }
      } else {
        result = try CLIRunner.run(arguments, in: directory)
      }
      XCTAssertEqual(result.status, entry.status, "\(entry.name): \(result.stderr)")
      if let message = entry.message {
        if message.contains("...") {
          XCTAssertTrue(Self.matches(result.stderr, message), "\(entry.name): \(result.stderr)")
        } else {
          XCTAssertEqual(result.stderr, message, entry.name)
        }
      }
      if entry.status == 1 {
        XCTAssertEqual(
          result.stderr.filter { $0 == "\n" }.count, 1, "\(entry.name): one line: \(result.stderr)")
      }
      if arguments.contains("out.png") {
        XCTAssertEqual(
          try Data(contentsOf: URL(fileURLWithPath: path("out.png"))), precious,
          "\(entry.name): output untouched")
      }
      let after = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
      XCTAssertEqual(after, before, "\(entry.name): no file created or left behind")
    }
  }

  /// No command writes over a file its material is read from: the material named, a parent
  /// through `extends` (known only once the material is read), or a preset's file.
  func testOutputsNeverReplaceTheMaterialsFiles() throws {
    let material = Data("surface:\n  shininess: 40\n".utf8)
    try material.write(to: URL(fileURLWithPath: path("base.yaml")))
    try Data("extends: base.yaml\n".utf8).write(to: URL(fileURLWithPath: path("derived.yaml")))
    try Data("extends: ./plain\n".utf8).write(to: URL(fileURLWithPath: path("bare.yaml")))
    try material.write(to: URL(fileURLWithPath: path("plain")))
    let cases: [(arguments: [String], status: Int32, message: String)] = [
      (
        ["render", "A", "--material", "derived.yaml", "-o", "base.yaml", "--format", "png"], 1,
        "error: --output 'base.yaml' is also a file the material is read from ('...base.yaml', through extends); write the output elsewhere\n"
      ),
      (
        ["render", "A", "--material", "bare.yaml", "-o", "plain"], 1,
        "error: --output 'plain' is also a file the material is read from ('...plain', through extends); write the output elsewhere\n"
      ),
      (
        ["sheet", "--materials", "bare.yaml", "-o", "plain"], 1,
        "error: -o 'plain' is also a file the material is read from ('...plain', through extends); write the output elsewhere\n"
      ),
      (
        ["shading", "--material", "derived.yaml", "-o", "base.yaml", "--format", "png"], 1,
        "error: -o 'base.yaml' is also a file the material is read from ('...base.yaml', through extends); write the output elsewhere\n"
      ),
      (
        ["shading", "--material", "base.yaml", "-o", "base.yaml", "--format", "png"], 64,
        "Error: -o 'base.yaml' is also the --material input; write the output elsewhere\n..."
      ),
    ]
    for (arguments, status, message) in cases {
      let result = try CLIRunner.run(arguments, in: directory)
      XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
      XCTAssertTrue(Self.matches(result.stderr, message), "\(arguments): \(result.stderr)")
      XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("base.yaml"))), material)
      XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("plain"))), material)
    }
  }

  /// Whether `text` matches `pattern`, where each "..." stands for any text (a pattern that
  /// ends with "..." matches a beginning).
  static func matches(_ text: String, _ pattern: String) -> Bool {
    let parts = pattern.components(separatedBy: "...")
    guard text.hasPrefix(parts[0]) else { return false }
    var rest = text.dropFirst(parts[0].count)
    for (index, part) in parts.enumerated().dropFirst() {
      if index == parts.count - 1 { return part.isEmpty || rest.hasSuffix(part) }
      guard let range = rest.range(of: part) else { return false }
      rest = rest[range.upperBound...]
    }
    return rest.isEmpty
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}

/// Runs the built `emboss` binary.
enum CLIRunner {
  struct Result {
    var status: Int32
    var stdout: Data
    var stderr: String
  }

  /// The environment the binary runs in.
  ///
  /// Under `swift test --sanitize=address` the test
  /// process itself runs without leak detection (XCTest holds objects at exit), but every
  /// run of the binary checks for leaks, less the known leaks of libraries in .ci/lsan.supp.
  static var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent()
      .deletingLastPathComponent()
    environment["ASAN_OPTIONS"] = "detect_leaks=1"
    environment["LSAN_OPTIONS"] = "suppressions=\(root.path)/.ci/lsan.supp"
    // The lit-ball cache in a folder of the tests' own, never the user's.
    environment["XDG_CACHE_HOME"] = NSTemporaryDirectory() + "emboss-tests-cache"
    return environment
  }

  static func run(_ arguments: [String], in directory: URL) throws -> Result {
    try launch(CLITests.binary, arguments, in: directory)
  }

  /// Runs `executable` (the binary, or a program that runs it) in `directory`.
  static func launch(
    _ executable: URL, _ arguments: [String], in directory: URL,
    adding extra: [String: String] = [:]
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment.merging(extra) { $1 }
    process.currentDirectoryURL = directory
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Standard error is read on another thread: a run that prints more than a pipe's buffer
    // there (a regression) must not block on it while standard output is read here.
    let stderr = Collected()
    Thread { stderr.finish(err.fileHandleForReading.readDataToEndOfFile()) }.start()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: stdout,
      stderr: String(decoding: stderr.wait(), as: UTF8.self))
  }

  /// Bytes read on another thread, handed over once all are read.
  final class Collected: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    /// Hands over what was read.
    func finish(_ data: Data) {
      self.data = data
      done.signal()
    }

    /// What was read, once it is all there.
    func wait() -> Data {
      done.wait()
      return data
    }
  }
}

extension CLIRunner {
  /// GNU time, which measures a run's peak memory (installed by .ci/install-deps).
  static let time = "/usr/bin/time"

  /// Runs the binary under GNU time and also returns its peak resident memory in KiB, or nil
  /// when GNU time is missing. (`wait4` on a child spawned from this process would not do:
  /// posix_spawn's child shares this process's memory until it execs, and the kernel counts
  /// that memory in the child's peak.)
  static func runMeasuringPeak(_ arguments: [String], in directory: URL) throws -> (
    result: Result, peakKiB: Int?
  ) {
    guard FileManager.default.isExecutableFile(atPath: time) else {
      return (try run(arguments, in: directory), nil)
    }
    let report = directory.appendingPathComponent(".peak-\(UUID().uuidString)").path
    defer { unlink(report) }
    let result = try launch(
      URL(fileURLWithPath: time), ["-f", "%M", "-o", report, CLITests.binary.path] + arguments,
      in: directory)
    // GNU time writes "Command exited with non-zero status N" before the figure.
    let lines = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(
      separator: "\n")
    return (result, lines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
  }
}
