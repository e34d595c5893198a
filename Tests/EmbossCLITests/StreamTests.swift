import Foundation
import XCTest

/// Closed, full and broken standard streams end with an error exit and one `error:` line,
/// never a trap (issue 9, "Standard streams").
///
/// Redirections go through /bin/sh; device nodes
/// are made in a temporary directory, never the machine's /dev.
final class StreamTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-streams-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs `script` in /bin/sh with `$EMBOSS` set to the built binary; standard error of the
  /// script is captured (emboss's, unless the script redirects it).
  func shell(_ script: String, shell: String = "/bin/sh") throws -> (status: Int32, stderr: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: shell)
    process.arguments = ["-c", script]
    var environment = CLIRunner.environment
    environment["EMBOSS"] = CLITests.binary.path
    environment["ROOT"] = Self.root.path
    process.environment = environment
    process.currentDirectoryURL = directory
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
  }

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()

  func read(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }

  // MARK: Inputs (issue 9): streams are read with a cap; a FIFO never hangs.

  /// Process substitution for the font, the material and the mask renders exactly what the
  /// files render.
  func testProcessSubstitutionInputsRenderLikeFiles() throws {
    var result = try shell(
      #""$EMBOSS" render Ab --size 30 --font <(cat "$ROOT/Fonts/DejaVuSans-Bold.ttf") --material <(cat "$ROOT/Materials/gold.yaml") -o a.png"#,
      shell: "/bin/bash")
    XCTAssertEqual(result.status, 0, result.stderr)
    result = try shell(
      #""$EMBOSS" render Ab --size 30 --font "$ROOT/Fonts/DejaVuSans-Bold.ttf" --material "$ROOT/Materials/gold.yaml" -o b.png"#
    )
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(try read("a.png"), try read("b.png"))
    result = try shell(
      #""$EMBOSS" render --mask <(cat b.png) --size 30 -o c.png && "$EMBOSS" render --mask b.png -o d.png"#,
      shell: "/bin/bash")
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(try read("c.png"), try read("d.png"))
  }

  /// A named FIFO nobody writes to reads as empty: an error, never a hang and never the
  /// defaults.
  func testFIFOWithoutWriterIsAnErrorNotAHang() throws {
    guard mkfifo(directory.appendingPathComponent("fifo").path, 0o644) == 0 else {
      throw XCTSkip("no FIFO here")
    }
    let cases: [(String, Int32, String)] = [
      (#""$EMBOSS" render A --font fifo -o x.png"#, 1, "error: font file 'fifo' is empty\n"),
      (
        #""$EMBOSS" render --mask fifo -o x.png"#, 1,
        "error: cannot read picture 'fifo': file is empty\n"
      ),
      (
        #""$EMBOSS" render A --material fifo -o x.png"#, 1,
        "fifo:1:1: error: nothing was written to this pipe or FIFO\n"
      ),
      (
        #""$EMBOSS" check fifo"#, 1,
        "fifo:1:1: error: nothing was written to this pipe or FIFO\n"
      ),
    ]
    for (script, status, message) in cases {
      let result = try shell("timeout 60 " + script)
      XCTAssertEqual(result.status, status, script)
      XCTAssertEqual(result.stderr, message, script)
    }
  }

  /// `check /dev/stdin` reads the material from standard input; a bad one is located there.
  func testMaterialFromStandardInput() throws {
    var result = try shell(#""$EMBOSS" check /dev/stdin < "$ROOT/Materials/gold.yaml""#)
    XCTAssertEqual(result.status, 0, result.stderr)
    result = try shell(#"printf 'surface:\n  shininess: -3\n' | "$EMBOSS" check /dev/stdin"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(
      result.stderr.hasPrefix("/dev/stdin:2:14: error: \"surface.shininess\""), result.stderr)
  }

  /// A stream longer than the cap is refused once it passes the cap (16 MiB for materials).
  func testStreamOverTheCapIsRefused() throws {
    let result = try shell(
      #"head -c 20000000 /dev/zero | tr '\0' '#' | "$EMBOSS" check /dev/stdin"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr,
      "/dev/stdin: error: material file '/dev/stdin' is over the limit of 16777216 bytes\n")
  }

  /// Invalid UTF-8 in the text (or any argument) is an argument error naming the byte.
  func testInvalidUTF8IsAnErrorWithItsOffset() throws {
    var result = try shell(#""$EMBOSS" render --size 20 "$(printf 'ab\377c')" -o x.png"#)
    XCTAssertEqual(result.status, 64)
    XCTAssertEqual(
      result.stderr,
      "error: the text is not valid UTF-8: byte 0xFF at byte offset 2 (\"ab\u{FFFD}c\")\n")
    result = try shell(#""$EMBOSS" render A -o "$(printf 'x\303.png')""#)
    XCTAssertEqual(result.status, 64)
    XCTAssertEqual(
      result.stderr,
      "error: argument 4 is not valid UTF-8: byte 0xC3 at byte offset 1 (\"x\u{FFFD}.png\")\n")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
  }

  // MARK: Text input (issue 11)

  /// A text file (or standard input) renders what the command line renders: a leading BOM
  /// dropped, CRLF and LF both newlines, the final newline not an empty line; `\\` on the
  /// command line is one backslash, so `C:\\new` is the file's `C:\new`.
  func testTextFromAFileOrStandardInputRendersLikeTheCommandLine() throws {
    let run = { (script: String) throws -> Void in
      let result = try self.shell(script)
      XCTAssertEqual(result.status, 0, "\(script): \(result.stderr)")
    }
    try run(#""$EMBOSS" render 'One\nTwo' --size 24 -o line.png"#)
    try run(
      #"printf '\357\273\277One\r\nTwo\n' > crlf.txt && "$EMBOSS" render --text-file crlf.txt --size 24 -o file.png"#
    )
    try run(#"printf 'One\nTwo' | "$EMBOSS" render --text-file - --size 24 -o stdin.png"#)
    XCTAssertEqual(try read("line.png"), try read("file.png"))
    XCTAssertEqual(try read("line.png"), try read("stdin.png"))
    try run(#""$EMBOSS" render 'C:\\new' --size 24 -o escaped.png"#)
    try run(
      #"printf 'C:\\new' > path.txt && "$EMBOSS" render --text-file path.txt --size 24 -o literal.png"#
    )
    XCTAssertEqual(try read("escaped.png"), try read("literal.png"))
    XCTAssertNotEqual(try read("escaped.png"), try read("line.png"))
  }

  func testBadTextFilesAreErrors() throws {
    var result = try shell(#"printf 'ok\nA\351B' | "$EMBOSS" render --text-file - -o x.png"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr,
      "error: text in standard input is not valid UTF-8: byte 0xE9 at byte offset 4\n")
    result = try shell(#""$EMBOSS" render --text-file missing.txt -o x.png"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "error: text file 'missing.txt' does not exist\n")
    result = try shell(#"echo A > a.txt && "$EMBOSS" render B --text-file a.txt -o x.png"#)
    XCTAssertEqual(result.status, 64)
    XCTAssertTrue(result.stderr.contains("give the text or --text-file, not both"), result.stderr)
    // The text file is an input: an output over it is refused, and it stays as it was.
    result = try shell(
      #"echo Name > names && "$EMBOSS" render --text-file names -o names"#)
    XCTAssertEqual(result.status, 64)
    XCTAssertTrue(result.stderr.contains("is also the --text-file input"), result.stderr)
    XCTAssertEqual(try read("names"), Data("Name\n".utf8))
  }

  /// Standard output redirected to a file collides with another output on that file.
  func testStandardOutputRedirectedOverAnotherOutputIsRefused() throws {
    let result = try shell(#""$EMBOSS" render x --size 20 -o - --engrave e.png > e.png"#)
    XCTAssertEqual(result.status, 64)
    XCTAssertTrue(
      result.stderr.hasPrefix("Error: -o and --engrave both write 'e.png'"), result.stderr)
  }

  func testClosedStandardOutputIsAnError() throws {
    let result = try shell(#""$EMBOSS" render x --size 20 -o - >&-"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "error: cannot write to standard output: Bad file descriptor\n")
  }

  func testFullDeviceIsAnError() throws {
    // /dev/full is character device 1, 7 (major 1 << 8 | minor in the old encoding).
    guard
      mknod(directory.appendingPathComponent("full").path, S_IFCHR | 0o666, dev_t((1 << 8) | 7))
        == 0
    else {
      throw XCTSkip("cannot make a device node here (not root)")
    }
    let result = try shell(#""$EMBOSS" render x --size 20 -o - > full"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr, "error: cannot write to standard output: No space left on device\n")
    // Lines of text too (Swift's print would drop them and exit 0); diff says 2, as for a
    // file it cannot read.
    for (script, status) in [
      (#""$EMBOSS" materials > full"#, Int32(1)), (#""$EMBOSS" check gold > full"#, 1),
      (#""$EMBOSS" render x --size 20 -o a.png && "$EMBOSS" diff a.png a.png > full"#, 2),
    ] {
      let text = try shell(script)
      XCTAssertEqual(text.status, status, script)
      XCTAssertEqual(
        text.stderr, "error: cannot write to standard output: No space left on device\n", script)
    }
  }

  /// A reader that exits without reading (EPIPE, also when the caller ignores SIGPIPE) ends
  /// the command quietly with status 0, as Unix tools do (`ls | head -1`), and the command's
  /// other files are still written; `set -o pipefail` scripts keep working.
  func testClosedPipeEndsQuietly() throws {
    for prefix in ["", "trap '' PIPE; "] {
      let result = try shell(
        prefix
          + #"("$EMBOSS" render Hello --size 300 --compression 0 --engrave e.png -o - 2> err; echo $? > status) | true"#
      )
      XCTAssertEqual(result.status, 0, result.stderr)
      let status = try String(
        contentsOf: directory.appendingPathComponent("status"), encoding: .utf8)
      let message = try String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)
      XCTAssertEqual(status, "0\n", prefix)
      XCTAssertEqual(message, "", prefix)
      XCTAssertTrue(
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("e.png").path))
      try FileManager.default.removeItem(at: directory.appendingPathComponent("e.png"))
    }
    // Listings read by `head`: exit 0 and nothing on standard error (they said "error: cannot
    // write to standard output: Broken pipe" and exited 1).
    for command in ["materials", "parameters", "fonts"] {
      let listing = try shell(
        #"set -o pipefail; "$EMBOSS" "# + command + #" 2> err | head -c 1 > /dev/null"#,
        shell: "/bin/bash")
      XCTAssertEqual(listing.status, 0, command)
      let message = try String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)
      XCTAssertEqual(message, "", command)
    }
  }

  /// With standard error closed, a failure still exits 1 (there is nowhere to say why), and a
  /// file output is still written when nothing fails.
  func testClosedStandardErrorKeepsTheExitStatus() throws {
    XCTAssertEqual(try shell(#""$EMBOSS" render x --font missing.ttf -o a.png 2>&-"#).status, 1)
    XCTAssertEqual(try shell(#""$EMBOSS" render x --size 20 -o b.png 2>&- >&-"#).status, 0)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.png").path))
  }
}
