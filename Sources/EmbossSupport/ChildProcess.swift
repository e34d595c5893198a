import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A finished child process: its exit status, wall time and peak resident memory.
package struct ChildRun: Sendable {
  /// The exit status, or 128 + the signal number for a child that a signal ended.
  package var status: Int32
  package var seconds: Double
  /// The kernel's maximum resident set size of the child, in bytes.
  package var peakBytes: Int
}

/// Runs other programs (the benchmark's whole-process runs).
package enum ChildProcess {
  /// Runs the program at `path` with `arguments` (its standard streams are this process's)
  /// and waits for it.
  ///
  /// The peak counts this process's resident memory at the spawn too (the child shares it
  /// until it executes the program), so measure before this process grows.
  package static func run(_ path: String, _ arguments: [String]) throws -> ChildRun {
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    let start = DispatchTime.now().uptimeNanoseconds
    let spawned = argv.withUnsafeBufferPointer { argv -> Int32 in
      guard let base = argv.baseAddress else { return EINVAL }
      return posix_spawn(&pid, path, nil, nil, base, environ)
    }
    guard spawned == 0 else {
      throw EmbossError("cannot run '\(path)': \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
      guard errno == EINTR else {
        throw EmbossError("cannot wait for '\(path)': \(String(cString: strerror(errno)))")
      }
    }
    let end = DispatchTime.now().uptimeNanoseconds
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
    let signal = status & 0x7f
    let exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    return ChildRun(
      status: exit, seconds: Double(end - start) / 1e9, peakBytes: usage.ru_maxrss * 1024)
  }
}
