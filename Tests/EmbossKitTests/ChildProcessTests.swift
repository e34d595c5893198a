import EmbossKit
import XCTest

final class ChildProcessTests: XCTestCase {
  /// The exit status comes back as the child gave it, a signal as 128 + its number, and the
  /// peak memory is the child's (a process that touches 64 MiB peaks above that).
  func testStatusSignalAndPeak() throws {
    XCTAssertEqual(try ChildProcess.run("/bin/sh", ["-c", "exit 3"]).status, 3)
    XCTAssertEqual(try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"]).status, 128 + 9)
    // dd reads 64 MiB of zeros into one buffer, touching every page of it.
    let big = try ChildProcess.run(
      "/bin/dd", ["if=/dev/zero", "of=/dev/null", "bs=64M", "count=1", "status=none"])
    XCTAssertEqual(big.status, 0)
    XCTAssertGreaterThan(big.peakBytes, 64 * 1024 * 1024)
    XCTAssertGreaterThan(big.seconds, 0)
  }

  func testMissingProgramIsAnError() {
    XCTAssertThrowsError(try ChildProcess.run("/nonexistent/program", [])) { error in
      XCTAssertTrue("\(error)".contains("cannot run '/nonexistent/program'"), "\(error)")
    }
  }
}
