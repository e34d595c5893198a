import CSupport
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

