import Foundation
import XCTest

/// Outputs never clobber (issue 9, "Outputs"): special files are written in place, symlinks
/// are followed, modes are kept, temporary files are exclusive and removed on SIGINT, SIGTERM
/// and SIGHUP, several outputs are written all or nothing, and conflicting paths are refused
/// before rendering.
///
/// Device nodes are made in a temporary directory, never the real /dev.
final class OutputTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-out-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  func names() throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
  }

  func status(_ name: String) -> stat? {
    var s = stat()
    return lstat(path(name), &s) == 0 ? s : nil
  }

  /// A character device node like /dev/null (1, 3) or /dev/full (1, 7), or a skip when
  /// nodes cannot be made here.
  func makeDevice(_ name: String, minor: UInt32) throws {
    guard mknod(path(name), S_IFCHR | 0o666, dev_t((1 << 8) | minor)) == 0 else {
      throw XCTSkip("cannot make a device node here (not root)")
    }
  }

  static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

  func testDeviceIsWrittenInPlaceNotReplaced() throws {
    try makeDevice("null", minor: 3)
    let result = try run(["render", "A", "--size", "20", "-o", "null"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(status("null").map { $0.st_mode & S_IFMT }, S_IFCHR, "still a device")
    XCTAssertEqual(try names(), ["null"], "no temporary file left")
  }

  func testFullDeviceIsAnErrorAndNothingElseIsWritten() throws {
    try makeDevice("full", minor: 7)
    try Data("an earlier render".utf8).write(to: URL(fileURLWithPath: path("out.png")))
    let result = try run([
      "render", "A", "--size", "20", "-o", "out.png", "--engrave", "full", "--depth-map", "d.png",
    ])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "error: cannot write 'full': No space left on device\n")
    XCTAssertEqual(
      try String(contentsOfFile: path("out.png"), encoding: .utf8), "an earlier render")
    XCTAssertEqual(try names(), ["full", "out.png"], "no depth map, no temporary file")
  }

  func testFIFOReaderGetsThePicture() throws {
    guard mkfifo(path("fifo"), 0o644) == 0 else { throw XCTSkip("cannot make a FIFO here") }
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/bin/cat")
    reader.arguments = [path("fifo")]
    let pipe = Pipe()
    reader.standardOutput = pipe
    try reader.run()
    let result = try run(["render", "A", "--size", "20", "-o", "fifo"])
    let bytes = pipe.fileHandleForReading.readDataToEndOfFile()
    reader.waitUntilExit()
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(Array(bytes.prefix(4)), Self.png)
    XCTAssertEqual(status("fifo").map { $0.st_mode & S_IFMT }, S_IFIFO, "still a FIFO")
  }

  /// `-o /dev/stdout` (and `/dev/fd/N`) with standard output a pipe sends the picture down it.
  ///
  /// The link's target, "pipe:[N]", is no path, and was looked up as one.
  func testDevStdoutIntoAPipeGetsThePicture() throws {
    let result = try run(["render", "A", "--size", "20", "-o", "/dev/stdout"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(Array(result.stdout.prefix(4)), Self.png)
  }

  func testSymlinkIsFollowedAndTargetKeepsItsMode() throws {
    try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: true)
    try Data("old".utf8).write(to: URL(fileURLWithPath: path("real/target.png")))
    chmod(path("real/target.png"), 0o640)
    // As root the owner can be kept too.
    let root = getuid() == 0
    if root { chown(path("real/target.png"), 1234, 2345) }
    try FileManager.default.createSymbolicLink(
      atPath: path("link.png"), withDestinationPath: "real/target.png")
    let result = try run(["render", "A", "--size", "20", "-o", "link.png"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(status("link.png").map { $0.st_mode & S_IFMT }, S_IFLNK, "the link stays a link")
    XCTAssertEqual(
      Array(try Data(contentsOf: URL(fileURLWithPath: path("real/target.png"))).prefix(4)), Self.png
    )
    XCTAssertEqual(status("real/target.png").map { $0.st_mode & 0o7777 }, 0o640, "mode kept")
    if root {
      XCTAssertEqual(
        status("real/target.png").map { [$0.st_uid, $0.st_gid] }, [1234, 2345], "owner kept")
    }
    XCTAssertEqual(
      Set(try FileManager.default.contentsOfDirectory(atPath: path("real"))), ["target.png"])
  }

  /// A link whose target's directory is missing: the message names that directory, not
  /// the link's.
  func testALinkIntoAMissingDirectoryNamesIt() throws {
    try FileManager.default.createSymbolicLink(
      atPath: path("link.png"), withDestinationPath: "gone/target.png")
    let result = try run(["render", "A", "--size", "20", "-o", "link.png"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr,
      "error: cannot write 'link.png': it is a link to './gone/target.png', and directory './gone' does not exist\n"
    )
  }

  /// A new file gets 0666 less the umask, as `open` would give it.
  func testNewFileFollowsTheUmask() throws {
    let old = umask(0o027)
    defer { umask(old) }
    let result = try run(["render", "A", "--size", "20", "-o", "new.png"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(status("new.png").map { $0.st_mode & 0o7777 }, 0o640)
  }

  /// A failure on any output writes none: a missing directory for the depth map leaves no
  /// picture, no engrave bitmap and no stage directory.
  func testAllOrNothing() throws {
    let result = try run([
      "render", "A", "--size", "20", "-o", "out.png", "--engrave", "e.png", "--save-stages",
      "stages/a",
      "--depth-map", "missing/d.png",
    ])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr, "error: cannot write 'missing/d.png': directory 'missing' does not exist\n")
    XCTAssertEqual(try names(), [])
    let written = try run([
      "render", "A", "--size", "20", "-o", "out.png", "--engrave", "e.png", "--save-stages",
      "stages/a",
    ])
    XCTAssertEqual(written.status, 0, written.stderr)
    XCTAssertEqual(try names(), ["out.png", "e.png", "stages"])
    XCTAssertEqual(
      Set(try FileManager.default.contentsOfDirectory(atPath: path("stages/a"))),
      ["mask.png", "height.png", "normals.png", "shading.png"])
  }

  func testConflictingPathsAreRefusedBeforeRendering() throws {
    try Data("mask".utf8).write(to: URL(fileURLWithPath: path("m.png")))
    try FileManager.default.createSymbolicLink(
      atPath: path("alias.png"), withDestinationPath: "m.png")
    let cases: [([String], String)] = [
      (
        ["render", "A", "-o", "x.png", "--engrave", "./x.png"],
        "-o and --engrave both write './x.png'"
      ),
      (
        ["render", "A", "-o", "-", "--depth-map", "-"],
        "-o and --depth-map both write to standard output"
      ),
      (["render", "--mask", "m.png", "-o", "m.png"], "-o 'm.png' is also the --mask input"),
      (
        ["render", "--mask", "m.png", "-o", "alias.png"], "-o 'alias.png' is also the --mask input"
      ),
      (
        ["render", "A", "-o", "o.png", "--save-stages", ".", "--svg", "mask.png", "--dpi", "300"],
        "--svg and --save-stages both write './mask.png'"
      ),
      (["engrave", "m.png", "-o", "alias.png"], "-o 'alias.png' is also the picture input"),
      (["diff", "m.png", "m.png", "--out", "m.png"], "--out 'm.png' is also the expected input"),
    ]
    for (arguments, message) in cases {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 64, arguments.joined(separator: " "))
      XCTAssertTrue(result.stderr.hasPrefix("Error: " + message), "\(arguments): \(result.stderr)")
    }
    XCTAssertEqual(try String(contentsOfFile: path("m.png"), encoding: .utf8), "mask")
    XCTAssertEqual(try names(), ["m.png", "alias.png"])
  }

  /// SIGINT, SIGTERM or SIGHUP while emboss waits in its final write (a FIFO with no reader
  /// yet, after the regular outputs are staged): the process dies of the signal and no
  /// temporary file is left; the existing output keeps its bytes.
  func testSignalDuringTheWriteRemovesTemporaryFiles() throws {
    guard mkfifo(path("fifo"), 0o644) == 0 else { throw XCTSkip("cannot make a FIFO here") }
    try Data("an earlier render".utf8).write(to: URL(fileURLWithPath: path("out.png")))
    var temporaryNames: Set<String> = []
    for signal in [SIGINT, SIGTERM, SIGHUP] {
      let process = Process()
      process.executableURL = CLITests.binary
      process.arguments = [
        "render", "A", "--size", "40", "-o", "out.png", "--depth-map", "d.png", "--engrave", "fifo",
      ]
      process.environment = CLIRunner.environment
      process.currentDirectoryURL = directory
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      // Staged: both temporary files exist, and the process blocks opening the FIFO.
      let deadline = Date().addingTimeInterval(120)
      while try names().filter({ $0.hasSuffix(".tmp") }).count < 2, Date() < deadline,
        process.isRunning
      {
        usleep(20_000)
      }
      let staged = try names().filter { $0.hasSuffix(".tmp") }
      XCTAssertEqual(staged.count, 2, "staged before the FIFO")
      // Unpredictable names: 96 random bits each, never the same twice.
      for name in staged {
        XCTAssertNotNil(name.wholeMatch(of: /\.(out|d)\.png\.[0-9a-f]{24}\.tmp/), name)
        XCTAssertTrue(temporaryNames.insert(name).inserted, name)
      }
      usleep(100_000)
      kill(process.processIdentifier, signal)
      // A process that ignored the signal would block on the FIFO for ever: after a minute,
      // open the FIFO to let it go, so the test fails instead of hanging.
      let killed = Date().addingTimeInterval(60)
      while process.isRunning, Date() < killed { usleep(20_000) }
      if process.isRunning {
        let fd = open(path("fifo"), O_RDONLY | O_NONBLOCK)
        process.waitUntilExit()
        close(fd)
      }
      process.waitUntilExit()
      XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(signal)")
      XCTAssertEqual(process.terminationStatus, signal)
      XCTAssertEqual(
        try names(), ["fifo", "out.png"], "signal \(signal): no temporary file, no depth map")
      XCTAssertEqual(
        try String(contentsOfFile: path("out.png"), encoding: .utf8), "an earlier render")
    }
  }

  /// The same while blocked writing to a full pipe on standard output.
  func testSignalWhileStandardOutputIsBlocked() throws {
    let process = Process()
    process.executableURL = CLITests.binary
    process.arguments = [
      "render", "Hello", "--size", "400", "--compression", "0", "-o", "-", "--depth-map", "d.png",
    ]
    process.environment = CLIRunner.environment
    process.currentDirectoryURL = directory
    let pipe = Pipe()  // never read: the write blocks once the pipe's buffer is full
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(120)
    while try names().isEmpty, Date() < deadline, process.isRunning { usleep(20_000) }
    usleep(300_000)
    XCTAssertTrue(process.isRunning, "blocked on the pipe")
    process.interrupt()
    // If the signal were ignored, reading the pipe lets the process finish: a failure, not a
    // hang.
    let interrupted = Date().addingTimeInterval(60)
    while process.isRunning, Date() < interrupted { usleep(20_000) }
    if process.isRunning { _ = pipe.fileHandleForReading.readDataToEndOfFile() }
    process.waitUntilExit()
    XCTAssertEqual(process.terminationReason, .uncaughtSignal)
    XCTAssertEqual(try names(), [], "no temporary file, no depth map")
    try? pipe.fileHandleForReading.close()
  }
}
