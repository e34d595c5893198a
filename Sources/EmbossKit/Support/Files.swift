import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reading inputs with errors that name the file.
public enum InputFile {
  /// Reads a whole file. `what` names the kind of file in errors ("font", "PNG").
  public static func read(_ path: String, what: String) throws -> Data {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw EmbossError("\(what) file '\(path)' does not exist")
    }
    guard !isDirectory.boolValue else {
      throw EmbossError("\(what) file '\(path)' is a directory")
    }
    // An empty file needs no reading (and Foundation's reader leaks a buffer on one).
    if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
      return Data()
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw EmbossError("cannot read \(what) file '\(path)': permission denied or unreadable")
    }
    return data
  }
}

/// Writing to the standard streams without trapping: a closed stream, a full device or a
/// reader that went away (EPIPE, with SIGPIPE ignored) is an error the caller reports or, for
/// standard error, drops. (Foundation's `FileHandle.write(_:)` traps on any of them.)
public enum StandardStream {
  /// Writes all of `data` to file descriptor `fd` (`name` for the message).
  public static func write(_ data: Data, to fd: Int32, name: String) throws {
    if let failure = writeAll(data, to: fd) { throw EmbossError("cannot write to \(name): \(failure)") }
  }

  /// Writes all of `data` to `fd`, retrying on EINTR; the reason when a write fails.
  static func writeAll(_ data: Data, to fd: Int32) -> String? {
    data.withUnsafeBytes { raw -> String? in
      guard let base = raw.baseAddress else { return nil }
      var offset = 0
      while offset < raw.count {
        let n = Glibc.write(fd, base + offset, raw.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          return String(cString: strerror(errno))
        }
        offset += n
      }
      return nil
    }
  }

  public static func writeOutput(_ data: Data) throws {
    try write(data, to: STDOUT_FILENO, name: "standard output")
  }

  /// A line on standard error; nothing can be reported when that fails, so nothing is.
  public static func writeError(_ line: String) {
    try? write(Data((line + "\n").utf8), to: STDERR_FILENO, name: "standard error")
  }
}

/// Writing outputs so that an existing file is never left half-written: bytes go to a
/// temporary file in the same directory, which is then renamed over the target (rename(2)
/// is atomic within a file system). `-` writes to standard output.
public enum OutputFile {
  public static func write(_ data: Data, to path: String) throws {
    if path == "-" {
      try StandardStream.writeOutput(data)
      return
    }
    let url = URL(fileURLWithPath: path)
    // The directory as the user wrote it, for messages; the resolved one for the temp file.
    let written = (path as NSString).deletingLastPathComponent
    let shown = written.isEmpty ? "." : written
    let directory = url.deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw EmbossError("cannot write '\(path)': directory '\(shown)' does not exist")
    }
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      throw EmbossError("cannot write '\(path)': it is a directory")
    }
    let temporary = directory + "/.\(url.lastPathComponent).\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw EmbossError("cannot write '\(path)': \(String(cString: strerror(errno)))")
    }
    var failure = StandardStream.writeAll(data, to: fd)
    if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
    close(fd)
    if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
    if let failure {
      unlink(temporary)
      throw EmbossError("cannot write '\(path)': \(failure)")
    }
  }
}
