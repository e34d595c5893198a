import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

/// Lit balls kept on disk between processes, so a render in a material seen before skips
/// marching and shading the ball (`$XDG_CACHE_HOME/emboss`, `--no-cache` to skip it).
///
/// A file is named by the SHA-256 of everything the ball depends on: the material's surface,
/// lights and environment (after `extends` and every override), the ball's size, emboss's
/// version and the running executable's identity (its size and modification time, so a
/// rebuilt emboss never reads a ball an older build shaded). It holds the ball's exact
/// 32-bit floats, so a render with the cache is byte for byte the render without it.
///
/// Every read is checked (magic, key, size, length, checksum): a truncated, corrupt or
/// foreign file is ignored and replaced. Writes go to a temporary file renamed into place,
/// so concurrent renders (a sharded batch) never see half a file. The folder keeps at most
/// `capacity` balls: the least recently written go first. Failures to read or write are
/// silent: the cache only ever saves time.
public struct BallCache: Sendable {
  /// The cache's folder.
  public let directory: String
  /// Balls kept at most.
  public static let capacity = 32

  static let magic = Array("emboss-ball\u{1}".utf8)
  /// Magic, key digest, width, height, checksum.
  static let headerSize = 12 + 32 + 4 + 4 + 8

  /// A cache in `directory` (created when first written).
  public init(directory: String) {
    self.directory = directory
  }

  /// The user's cache: `$XDG_CACHE_HOME/emboss`, else `$HOME/.cache/emboss`; nil when
  /// neither is set (or is not an absolute path, which the XDG specification says to
  /// ignore), or when the running executable cannot be identified.
  public static func user(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> BallCache?
  {
    // A build that cannot be told from another cannot trust what another shaded.
    guard EmbossBuild.identity != "unknown" else { return nil }
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
      return BallCache(directory: xdg + "/emboss")
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return BallCache(directory: home + "/.cache/emboss")
    }
    return nil
  }

  /// The key of the ball of `surface`, `lights` and `environment` at `size`.
  static func key(
    surface: Surface, lights: [Light], environment: Environment, size: Int
  ) -> [UInt8] {
    let text =
      "emboss ball 1\n\(EmbossBuild.identity)\n\(size)\n\(String(reflecting: surface))\n"
      + "\(String(reflecting: lights))\n\(String(reflecting: environment))"
    return SHA256Digest.bytes(Data(text.utf8))
  }

  private func path(_ key: [UInt8]) -> String {
    directory + "/" + SHA256Digest.hex(bytes: key) + ".ball"
  }

  /// The ball stored under `key`, when a whole and intact one is there.
  func load(_ key: [UInt8], size: Int) -> RGBAImage? {
    let count = size * size
    let fd = open(path(key), O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, Int(status.st_size) == Self.headerSize + count * 16 else {
      return nil
    }
    var header = [UInt8](repeating: 0, count: Self.headerSize)
    let sum: UInt64? = header.withUnsafeMutableBytes { raw in
      guard Self.read(fd, into: raw), Array(raw[0..<12]) == Self.magic,
        Array(raw[12..<44]) == key,
        Int(raw.loadUnaligned(fromByteOffset: 44, as: UInt32.self).littleEndian) == size,
        Int(raw.loadUnaligned(fromByteOffset: 48, as: UInt32.self).littleEndian) == size
      else { return nil }
      return raw.loadUnaligned(fromByteOffset: 52, as: UInt64.self).littleEndian
    }
    guard let sum else { return nil }
    // The payload is read straight into the pixels (no copy of the file is held).
    var intact = false
    let pixels = [SIMD4<Float>](uninitializedCount: count) { buffer, initialized in
      let raw = UnsafeMutableRawBufferPointer(buffer)
      guard Self.read(fd, into: raw), Self.checksum(UnsafeRawBufferPointer(raw)) == sum else {
        initialized = 0
        return
      }
      #if _endian(big)
      let words = raw.bindMemory(to: UInt32.self)
      for i in 0..<words.count { words[i] = UInt32(littleEndian: words[i]) }
      #endif
      intact = true
      initialized = count
    }
    return intact ? RGBAImage(width: size, height: size, pixels: pixels) : nil
  }

  /// Reads exactly `buffer.count` bytes from `fd` into `buffer`.
  private static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
    guard let base = buffer.baseAddress else { return buffer.isEmpty }
    var done = 0
    while done < buffer.count {
      let n = Glibc.read(fd, base + done, buffer.count - done)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      done += n
    }
    return true
  }

  /// Stores `ball` (whole, square) under `key`, replacing what was there.
  func store(_ ball: RGBAImage, key: [UInt8]) {
    guard ball.width == ball.height, ball.width > 0 else { return }
    var data = Data(capacity: Self.headerSize + ball.pixels.count * 16)
    data.append(contentsOf: Self.magic)
    data.append(contentsOf: key)
    var header = [UInt32(ball.width).littleEndian, UInt32(ball.height).littleEndian]
    data.append(Data(bytes: &header, count: 8))
    var payload = Data(count: ball.pixels.count * 16)
    payload.withUnsafeMutableBytes { out in
      ball.pixels.withUnsafeBytes { out.copyMemory(from: $0) }
      let words = out.bindMemory(to: UInt32.self)
      for i in 0..<words.count { words[i] = words[i].littleEndian }
    }
    var sum = payload.withUnsafeBytes { Self.checksum($0) }.littleEndian
    data.append(Data(bytes: &sum, count: 8))
    data.append(payload)
    let target = path(key)
    let temporary = directory + "/.\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp"
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
      guard FileManager.default.createFile(atPath: temporary, contents: data) else { return }
      guard rename(temporary, target) == 0 else {
        unlink(temporary)
        return
      }
    } catch {
      return
    }
    prune()
  }

  /// Removes the least recently written balls beyond `capacity`.
  private func prune() {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return
    }
    let balls = names.filter { $0.hasSuffix(".ball") }
    guard balls.count > Self.capacity else { return }
    var dated: [(time: Date, name: String)] = []
    for name in balls {
      let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
      // One another process removed in between is simply skipped.
      guard let time = attributes?[.modificationDate] as? Date else { continue }
      dated.append((time, name))
    }
    dated.sort { ($0.time, $0.name) < ($1.time, $1.name) }
    for entry in dated.prefix(max(0, dated.count - Self.capacity)) {
      unlink(directory + "/" + entry.name)
    }
  }

  /// A 64-bit checksum of `bytes` (FNV-1a over 64-bit words, then the tail's bytes).
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    let words = bytes.count / 8
    for i in 0..<words {
      hash =
        (hash ^ bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
        &* 0x0000_0100_0000_01b3
    }
    for i in (words * 8)..<bytes.count {
      hash = (hash ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}

/// What tells one build of emboss from another.
enum EmbossBuild {
  /// The running executable's path, size and modification time (nanoseconds), or "unknown".
  static let identity: String = {
    var info = stat()
    let path = Resources.executablePath()
    guard path.hasPrefix("/"), stat(path, &info) == 0 else { return "unknown" }
    return "\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }()
}
