import CSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reading inputs with errors that name the file.
///
/// Any kind of file that can be read is read as a stream, up to a size cap: a regular file,
/// a FIFO, a pipe from process substitution (`<(...)`, `/dev/stdin`) or a character device.
/// The open never blocks (a FIFO with no writer reads as empty, it does not hang), a regular
/// file over the cap is refused from its size before reading, and a stream is refused as
/// soon as it passes the cap.
public enum InputFile {
  /// The most bytes any input may have: 1 GiB.
  public static let defaultLimit = 1 << 30

  /// Reads a whole file.
  ///
  /// `what` names the kind of file in errors ("font", "PNG").
  public static func read(_ path: String, what: String, limit: Int = defaultLimit) throws -> Data {
    try contents(path, what: what, limit: limit).data
  }

  /// What `contents` read: the bytes, and whether they came through a pipe or FIFO.
  public struct Contents: Sendable {
    /// The file's bytes.
    public var data: Data
    /// Whether the file is a pipe or a FIFO (or a socket): empty, it may be a writer that
    /// never came or failed, where an empty regular file or `/dev/null` is empty on purpose.
    public var isPipe: Bool
  }

  /// Reads a whole file, as `read` does, and says whether it was a pipe or FIFO.
  public static func contents(_ path: String, what: String, limit: Int = defaultLimit) throws
    -> Contents
  {
    var fd: Int32
    repeat {
      fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    } while fd < 0 && errno == EINTR
    guard fd >= 0 else {
      let error = errno
      switch error {
      case ENOENT: throw EmbossError("\(what) file '\(path)' does not exist")
      case EISDIR: throw EmbossError("\(what) file '\(path)' is a directory")
      default:
        throw EmbossError("cannot read \(what) file '\(path)': \(String(cString: strerror(error)))")
      }
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      throw EmbossError("cannot read \(what) file '\(path)': \(String(cString: strerror(errno)))")
    }
    let kind = status.st_mode & S_IFMT
    if kind == S_IFDIR { throw EmbossError("\(what) file '\(path)' is a directory") }
    if kind == S_IFREG, Int(status.st_size) > limit {
      throw EmbossError(
        "\(what) file '\(path)' is \(status.st_size) bytes, over the limit of \(limit) bytes")
    }
    // From here reads wait for data, as a stream's reader should.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    var data = Data()
    if kind == S_IFREG { data.reserveCapacity(Int(status.st_size)) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw EmbossError("cannot read \(what) file '\(path)': \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      guard data.count + n <= limit else {
        throw EmbossError("\(what) file '\(path)' is over the limit of \(limit) bytes")
      }
      data.append(contentsOf: chunk[0..<n])
    }
    return Contents(data: data, isPipe: kind == S_IFIFO || kind == S_IFSOCK)
  }
}

/// The files a render reads, each read once: a request resolves its files into a snapshot
/// (`RenderRequest.resolve`), its content digest is made from the snapshot's bytes, and the
/// render reads the same bytes from it, so what was hashed is what was rendered.
public struct InputSnapshot: Sendable {
  /// A file read: its path as named, its bytes and their SHA-256.
  public struct File: Sendable {
    /// The path, as the request or the file that names it spells it.
    public let path: String
    /// What was read.
    public let contents: InputFile.Contents
    /// The SHA-256 of `contents.data`, as 64 lowercase hexadecimal digits.
    public let sha256: String
  }

  /// Every file read, in the order first read.
  public private(set) var files: [File] = []
  private var index: [String: Int] = [:]

  /// An empty snapshot: every read goes to the file system.
  public init() {}

  /// Reads `path` into the snapshot (once: reading it again gives the bytes first read).
  ///
  /// Errors are `InputFile.contents`'s, naming the file as `what`.
  @discardableResult
  public mutating func read(_ path: String, what: String, limit: Int = InputFile.defaultLimit)
    throws -> InputFile.Contents
  {
    if let kept = file(path) { return try Self.checked(kept, what: what, limit: limit) }
    let contents = try InputFile.contents(path, what: what, limit: limit)
    index[path] = files.count
    files.append(File(path: path, contents: contents, sha256: SHA256Digest.hex(contents.data)))
    return contents
  }

  /// The bytes kept for `path`, or (for a file not in the snapshot) read from the file
  /// system.
  public func contents(_ path: String, what: String, limit: Int = InputFile.defaultLimit) throws
    -> InputFile.Contents
  {
    if let kept = file(path) { return try Self.checked(kept, what: what, limit: limit) }
    return try InputFile.contents(path, what: what, limit: limit)
  }

  /// `contents(_:what:limit:)`'s bytes.
  public func data(_ path: String, what: String, limit: Int = InputFile.defaultLimit) throws
    -> Data
  {
    try contents(path, what: what, limit: limit).data
  }

  /// The snapshot without `paths`: they are read from the file system again (a watch's
  /// edited material).
  public func removing(_ paths: some Sequence<String>) -> InputSnapshot {
    let dropped = Set(paths)
    var kept = InputSnapshot()
    for file in files where !dropped.contains(file.path) {
      kept.index[file.path] = kept.files.count
      kept.files.append(file)
    }
    return kept
  }

  /// The file kept for `path`, if any.
  public func file(_ path: String) -> File? {
    index[path].map { files[$0] }
  }

  /// The same limit a read from the file system would apply.
  private static func checked(_ file: File, what: String, limit: Int) throws
    -> InputFile.Contents
  {
    guard file.contents.data.count <= limit else {
      throw EmbossError(
        "\(what) file '\(file.path)' is \(file.contents.data.count) bytes, over the limit of \(limit) bytes"
      )
    }
    return file.contents
  }
}

/// Writing to the standard streams without trapping: a closed stream, a full device or a
/// reader that went away (EPIPE, with SIGPIPE ignored) is an error the caller reports or, for
/// standard error, drops. (Foundation's `FileHandle.write(_:)` traps on any of them.)
public enum StandardStream {
  /// Writes all of `data` to file descriptor `fd` (`name` for the message).
  public static func write(_ data: Data, to fd: Int32, name: String) throws {
    if let failure = writeAll(data, to: fd) {
      throw EmbossError("cannot write to \(name): \(failure)")
    }
  }

  /// Writes all of `data` to `fd`, retrying on EINTR; the reason when a write fails.
  static func writeAll(_ data: Data, to fd: Int32) -> String? {
    writeAllFailing(data, to: fd).map { String(cString: strerror($0)) }
  }

  /// Writes all of `data` to `fd`, retrying on EINTR; the errno when a write fails.
  static func writeAllFailing(_ data: Data, to fd: Int32) -> Int32? {
    data.withUnsafeBytes { raw -> Int32? in
      guard let base = raw.baseAddress else { return nil }
      var offset = 0
      while offset < raw.count {
        let n = Glibc.write(fd, base + offset, raw.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += n
      }
      return nil
    }
  }

  /// Writes `data` to standard output, all of it or an error; `OutputClosed` when the reader
  /// went away (EPIPE), which is no error: the reader has what it wanted (`head`).
  public static func writeOutput(_ data: Data) throws {
    if let code = writeAllFailing(data, to: STDOUT_FILENO) {
      if code == EPIPE { throw OutputClosed() }
      throw EmbossError("cannot write to standard output: \(String(cString: strerror(code)))")
    }
  }

  /// Standard output's reader went away (a closed pipe): the command stops quietly, exit 0,
  /// as `ls | head -1` does.
  public struct OutputClosed: Error {}

  /// A line on standard error; nothing can be reported when that fails, so nothing is.
  public static func writeError(_ line: String, newline: Bool = true) {
    try? write(Data((line + (newline ? "\n" : "")).utf8), to: STDERR_FILENO, name: "standard error")
  }
}
