import Foundation
import XCTest

/// Closed, full and broken standard streams end with an error exit and one `error:` line,
/// never a trap (issue 9, "Standard streams"). Redirections go through /bin/sh; device nodes
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
  func shell(_ script: String) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    var environment = CLIRunner.environment
    environment["EMBOSS"] = CLITests.binary.path
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

  func testClosedStandardOutputIsAnError() throws {
    let result = try shell(#""$EMBOSS" render x --size 20 -o - >&-"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "error: cannot write to standard output: Bad file descriptor\n")
  }

  func testFullDeviceIsAnError() throws {
    // /dev/full is character device 1, 7 (major 1 << 8 | minor in the old encoding).
    guard mknod(directory.appendingPathComponent("full").path, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0 else {
      throw XCTSkip("cannot make a device node here (not root)")
    }
    let result = try shell(#""$EMBOSS" render x --size 20 -o - > full"#)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "error: cannot write to standard output: No space left on device\n")
  }

  /// A reader that exits without reading: EPIPE, also when the caller ignores SIGPIPE.
  func testBrokenPipeIsAnError() throws {
    for prefix in ["", "trap '' PIPE; "] {
      let result = try shell(
        prefix + #"("$EMBOSS" render Hello --size 300 --compression 0 -o - 2> err; echo $? > status) | true"#)
      XCTAssertEqual(result.status, 0, result.stderr)
      let status = try String(contentsOf: directory.appendingPathComponent("status"), encoding: .utf8)
      let message = try String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)
      XCTAssertEqual(status, "1\n", prefix)
      XCTAssertEqual(message, "error: cannot write to standard output: Broken pipe\n", prefix)
    }
  }

  /// With standard error closed, a failure still exits 1 (there is nowhere to say why), and a
  /// file output is still written when nothing fails.
  func testClosedStandardErrorKeepsTheExitStatus() throws {
    XCTAssertEqual(try shell(#""$EMBOSS" render x --font missing.ttf -o a.png 2>&-"#).status, 1)
    XCTAssertEqual(try shell(#""$EMBOSS" render x --size 20 -o b.png 2>&- >&-"#).status, 0)
    XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.png").path))
  }
}
