import CSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writing a command's outputs, all or nothing, without ever clobbering what a path names.
///
/// Every output is encoded in memory before `write` is called. Then:
/// 1. Each regular-file output (new, or an existing regular file) is staged in a temporary
///    file in its target's directory: created exclusively under an unpredictable name, written,
///    flushed with fsync and given the old file's mode and owner (a new file gets 0666 less the
///    umask, as `open` would). A symlink is followed: its target is what gets replaced, and the
///    link stays a link.
/// 2. Standard output (`-`) and special files (character and block devices, FIFOs, sockets
///    that can be opened) are written in place: they are never renamed over, and they cannot
///    be taken back, so they come after every staged file succeeded.
/// 3. Only then are the staged files renamed over their targets (atomic within a file system)
///    and each directory is flushed, so a crash or power loss leaves the old file or the new
///    one.
/// A failure before step 3 removes every staged file and leaves every regular file as it was.
/// SIGINT, SIGTERM and SIGHUP remove staged files too (see `emboss_temp_create`).
public enum OutputFile {
  /// Writes one file, atomically, as `write(_:)` writes several.
  public static func write(_ data: Data, to path: String) throws {
    try write([(path, data)])
  }

  /// Writes `files` as described above.
  ///
  /// `directories` are created first when missing (with
  /// their parents), and removed again when the write fails.
  public static func write(
    _ files: [(path: String, data: Data)], creating directories: [String] = []
  ) throws {
    var created: [String] = []
    var staged: [(temp: String, target: String, shown: String)] = []
    var readerGone = false
    func undo() {
      for file in staged { emboss_temp_discard(file.temp) }
      for directory in created.reversed() { rmdir(directory) }
    }
    do {
      for directory in directories { try createDirectory(directory, created: &created) }
      // Messages name each path as the user wrote it, not the file a link leads to.
      let targets = try files.map { file in (try Target.resolve(file.path), file.data, file.path) }
      for (target, data, shown) in targets {
        if case .regular(let path, let existing) = target {
          staged.append((try stage(data, for: path, existing: existing, shown: shown), path, shown))
        }
      }
      for (target, data, shown) in targets {
        switch target {
        case .standardOutput:
          // A reader that went away ends the command quietly, but the files are still written.
          do { try StandardStream.writeOutput(data) } catch is StandardStream.OutputClosed {
            readerGone = true
          }
        case .special(let path): try writeInPlace(data, to: path, shown: shown)
        case .regular: break
        }
      }
      var directoriesToSync = Set<String>()
      while let file = staged.first {
        guard emboss_temp_commit(file.temp, file.target) == 0 else {
          throw EmbossError("cannot write '\(file.shown)': \(String(cString: strerror(errno)))")
        }
        staged.removeFirst()
        directoriesToSync.insert(parent(of: file.target))
      }
      for directory in directoriesToSync.sorted() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
          fsync(fd)
          close(fd)
        }
      }
    } catch {
      undo()
      throw error
    }
    if readerGone { throw StandardStream.OutputClosed() }
  }

  /// Where an output path leads.
  enum Target {
    case standardOutput
    /// Written in place; `path` as given.
    case special(path: String)
    /// Replaced by rename; `path` is the final target with symlinks followed, `existing` its
    /// status when it exists.
    case regular(path: String, existing: stat?)

    static func resolve(_ path: String) throws -> Target {
      if path == "-" { return .standardOutput }
      guard !path.isEmpty else { throw EmbossError("an output path is empty") }
      // A trailing slash names a directory: checked here, not found at the rename.
      guard !path.hasSuffix("/") else {
        throw EmbossError("cannot write '\(path)': it names a directory")
      }
      // What the path leads to, the kernel following every link: a pipe or socket reached
      // through /dev/stdout or /dev/fd/N (a link to "pipe:[N]", no path) is written in place
      // as it is found, not looked up by its link's text.
      var reached = stat()
      if stat(path, &reached) == 0 {
        let kind = reached.st_mode & S_IFMT
        if kind != S_IFREG && kind != S_IFDIR { return .special(path: path) }
      }
      let final = try followLinks(path)
      var status = stat()
      if stat(final, &status) == 0 {
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular(path: final, existing: status)
        case S_IFDIR: throw EmbossError("cannot write '\(path)': it is a directory")
        default: return .special(path: path)
        }
      }
      let error = errno
      guard error == ENOENT else {
        throw EmbossError("cannot write '\(path)': \(String(cString: strerror(error)))")
      }
      let directory = parent(of: final)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        // Through a link, the directory that is missing is the link target's.
        let through = final == path ? "" : "it is a link to '\(final)', and "
        throw EmbossError(
          "cannot write '\(path)': \(through)directory '\(final == path ? parent(of: path) : directory)' does not exist"
        )
      }
      return .regular(path: final, existing: nil)
    }

    /// The path a chain of symlinks ends at (the path itself when it is not a link); a
    /// relative link is read against the link's own directory.
    static func followLinks(_ path: String) throws -> String {
      var current = path
      for _ in 0..<40 {
        var status = stat()
        guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else {
          return current
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(current, &buffer, Int(PATH_MAX))
        guard length > 0 else { return current }
        let target = cString(Array(buffer[0..<length]))
        current = target.hasPrefix("/") ? target : parent(of: current) + "/" + target
      }
      throw EmbossError("cannot write '\(path)': too many levels of symbolic links")
    }
  }

  /// The directory part of a path ("." when there is none).
  ///
  /// Written out: Foundation's
  /// `deletingLastPathComponent` traps on some one-letter paths.
  static func parent(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    let directory = trimmed[..<slash]
    return directory.isEmpty ? "/" : String(directory)
  }

  /// The last part of a path.
  static func name(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
    return String(trimmed[trimmed.index(after: slash)...])
  }

  /// A temporary file next to `target` holding `data`, flushed, with the final mode and
  /// owner; its path.
  static func stage(_ data: Data, for target: String, existing: stat?, shown: String) throws
    -> String
  {
    let name = name(of: target)
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let fd = emboss_temp_create(parent(of: target), String(name.prefix(64)), &buffer, buffer.count)
    guard fd >= 0 else {
      throw EmbossError("cannot write '\(shown)': \(String(cString: strerror(errno)))")
    }
    let temp = cString(buffer)
    var failure = StandardStream.writeAll(data, to: fd)
    if failure == nil {
      if let existing {
        // The owner first: changing it may clear set-id bits that the mode then restores.
        _ = fchown(fd, existing.st_uid, existing.st_gid)
        if fchmod(fd, existing.st_mode & 0o7777) != 0 { failure = String(cString: strerror(errno)) }
      } else if fchmod(fd, 0o666 & ~currentUmask) != 0 {
        failure = String(cString: strerror(errno))
      }
    }
    if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
    if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
    if let failure {
      emboss_temp_discard(temp)
      throw EmbossError("cannot write '\(shown)': \(failure)")
    }
    return temp
  }

  /// A device, FIFO or other special file, opened and written where it is.
  static func writeInPlace(_ data: Data, to path: String, shown: String) throws {
    var fd: Int32
    repeat { fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) } while fd < 0 && errno == EINTR
    guard fd >= 0 else {
      throw EmbossError("cannot write '\(shown)': \(String(cString: strerror(errno)))")
    }
    var failure = StandardStream.writeAll(data, to: fd)
    if close(fd) != 0, failure == nil, errno != EINTR { failure = String(cString: strerror(errno)) }
    if let failure { throw EmbossError("cannot write '\(shown)': \(failure)") }
  }

  /// The process's umask (read by setting it and putting it back).
  static var currentUmask: mode_t {
    let mask = umask(0o022)
    umask(mask)
    return mask
  }

  static func createDirectory(_ path: String, created: inout [String]) throws {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw EmbossError("cannot make directory '\(path)': a file is in the way")
      }
      return
    }
    let above = parent(of: path)
    if above != path, above != ".", above != "/" { try createDirectory(above, created: &created) }
    guard mkdir(path, 0o777) == 0 || errno == EEXIST else {
      throw EmbossError("cannot make directory '\(path)': \(String(cString: strerror(errno)))")
    }
    created.append(path)
  }
}

/// The checks made on a command's paths before any work: two outputs on one file, an output
/// over one of the command's inputs, or two outputs to standard output.
public enum OutputConflicts {
  /// A message for the first conflict, or nil.
  ///
  /// `outputs` and `inputs` are (option, path).
  public static func check(
    outputs: [(option: String, path: String)], inputs: [(option: String, path: String)]
  ) -> String? {
    var seen: [String: (option: String, path: String)] = [:]
    for output in outputs {
      if output.path.isEmpty {
        return "\(output.option) is empty; give a file, or - for standard output"
      }
      if output.path.hasSuffix("/") {
        return "\(output.option) '\(output.path)' names a directory; give a file"
      }
      let key = identity(output.path)
      if let earlier = seen[key] {
        if output.path == "-" && earlier.path == "-" {
          return
            "\(earlier.option) and \(output.option) both write to standard output; give one of them a file"
        }
        let shown = output.path == "-" ? earlier.path : output.path
        return
          "\(earlier.option) and \(output.option) both write '\(shown)'; give each output its own file"
      }
      seen[key] = output
    }
    // Only inputs that exist: a preset name is not a file.
    for input in inputs
    where input.path != "-" && FileManager.default.fileExists(atPath: input.path) {
      if let output = seen[identity(input.path)] {
        return
          "\(output.option) '\(output.path)' is also the \(input.option) input; write the output elsewhere"
      }
    }
    return nil
  }

  /// A message when an output would replace one of the files a material was read from (its
  /// own file, a parent named by `extends`, a preset's file), else nil.
  ///
  /// Those files are known only once the material is read, after the arguments' own check
  /// (`check`), which sees the file named on the command line alone.
  public static func overwritesMaterial(
    outputs: [(option: String, path: String)], sources: [String]
  ) -> String? {
    let outputs = outputs.filter { $0.path != "-" }
    guard !outputs.isEmpty else { return nil }
    let keyed = outputs.map { (identity($0.path), $0) }
    for (index, source) in sources.enumerated()
    where FileManager.default.fileExists(atPath: source) {
      let key = identity(source)
      if let (_, output) = keyed.first(where: { $0.0 == key }) {
        // The first source is the material's own file; the others are its parents.
        let how = index == 0 ? "" : ", through extends"
        return
          "\(output.option) '\(output.path)' is also a file the material is read from ('\(source)'\(how)); write the output elsewhere"
      }
    }
    return nil
  }

  /// The same string for two paths that lead to the same file: its device and inode when it
  /// exists, else its absolute path with links and `.`/`..` resolved in the directory part.
  package static func identity(_ path: String) -> String {
    var status = stat()
    // Standard output is the file it is redirected to (`> x.png` and `--engrave x.png`
    // collide).
    if path == "-" {
      return fstat(STDOUT_FILENO, &status) == 0 ? "inode \(status.st_dev) \(status.st_ino)" : "-"
    }
    if stat(path, &status) == 0 { return "inode \(status.st_dev) \(status.st_ino)" }
    let final = (try? OutputFile.Target.followLinks(path)) ?? path
    let directory = OutputFile.parent(of: final)
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let resolved = realpath(directory, &buffer) != nil ? cString(buffer) : directory
    return "path " + resolved + "/" + OutputFile.name(of: final)
  }
}
