import EmbossBatch
import EmbossKit
import Foundation
import XCTest

@testable import emboss

/// `emboss batch`'s progress line, as progress bars people know draw it: redrawn in place on a
/// terminal and always taken off the screen before another line; plain lines elsewhere.
final class ProgressReporterTests: XCTestCase {
  /// What a reporter wrote, in order.
  final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []

    func write(_ text: String) { lock.withLock { parts.append(text) } }

    var text: String { lock.withLock { parts.joined() } }
  }

  func progress(_ done: Int, of total: Int, failed: Int = 0, at seconds: Double)
    -> BatchRunner.Progress
  {
    BatchRunner.Progress(done: done, failed: failed, skipped: 0, total: total, seconds: seconds)
  }

  let clear = "\r\u{1B}[K"

  /// On a terminal each drawing erases the line first; an error is printed on a cleared line
  /// with the bar drawn again under it; the end clears the bar, so the summary that follows
  /// starts on an empty line.
  func testTerminalRedrawsInPlaceAndClearsAtTheEnd() {
    let output = Output()
    let reporter = ProgressReporter(quiet: false, terminal: true, columns: nil, write: output.write)
    reporter.report(progress(1, of: 4, at: 0.5))
    reporter.report(progress(2, of: 4, at: 0.55))  // within 0.1 s: not drawn
    reporter.printAbove("error: row 2: bad")
    reporter.report(progress(4, of: 4, failed: 1, at: 1))
    reporter.finish()
    let bar1 = "[#######.......................] 1/4 rows, 0 failed, 2.0 rows/s, ETA 2 s"
    let bar4 = "[##############################] 4/4 rows, 1 failed, 4.0 rows/s, ETA 0 s"
    XCTAssertEqual(
      output.text,
      clear + bar1 + clear + "error: row 2: bad\n" + clear + bar1 + clear + bar4 + clear)
    reporter.finish()
    XCTAssertTrue(output.text.hasSuffix(bar4 + clear), "a second finish writes nothing")
  }

  /// The line is cut to the terminal's width less one column, so it never wraps (a wrapped
  /// line cannot be redrawn in place).
  func testTerminalLineFitsTheWidth() {
    let output = Output()
    let reporter = ProgressReporter(quiet: false, terminal: true, columns: 40, write: output.write)
    reporter.report(progress(1, of: 4, at: 0.5))
    XCTAssertEqual(output.text, clear + "[#######.......................] 1/4 ro")
  }

  /// Elsewhere (a pipe, a log): whole lines with no control characters, one every two seconds
  /// and none for the end (the summary says it); errors as plain lines; finish writes nothing.
  func testPipeGetsPlainLines() {
    let output = Output()
    let reporter = ProgressReporter(
      quiet: false, terminal: false, columns: nil, write: output.write)
    reporter.report(progress(1, of: 9, at: 1))
    reporter.report(progress(2, of: 9, at: 2.5))
    reporter.printAbove("error: row 2: bad")
    reporter.report(progress(9, of: 9, at: 3))
    reporter.finish()
    XCTAssertEqual(
      output.text, "batch: 2/9 rows, 0 failed, 0.8 rows/s, ETA 9 s\nerror: row 2: bad\n")
  }

  /// --quiet: errors only.
  func testQuietPrintsErrorsOnly() {
    let output = Output()
    let reporter = ProgressReporter(quiet: true, terminal: true, columns: nil, write: output.write)
    reporter.report(progress(1, of: 4, at: 0.5))
    reporter.printAbove("error: row 1: bad")
    reporter.finish()
    XCTAssertEqual(output.text, "error: row 1: bad\n")
  }
}
