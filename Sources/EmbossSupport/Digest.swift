import CGLib
import Foundation

/// SHA-256 digests, as lowercase hexadecimal.
public enum SHA256Digest {
  /// The SHA-256 digest of `data`, as 64 lowercase hexadecimal digits.
  public static func hex(_ data: Data) -> String {
    hex(bytes: bytes(data))
  }

  /// `bytes` as lowercase hexadecimal, two digits each.
  ///
  /// Written out rather than with `String(format:)`, whose first call costs a process
  /// milliseconds of Foundation's set-up.
  public static func hex(bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(2 * bytes.count)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The SHA-256 digest of `data`: 32 bytes.
  ///
  /// GLib's (`GChecksum`), which the process has loaded anyway (HarfBuzz links it): libcrypto
  /// cost every render about 1 ms and 3 MiB of memory to load and set up its providers for
  /// the ball cache's one digest.
  public static func bytes(_ data: Data) -> [UInt8] {
    guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else {
      preconditionFailure("SHA-256 is not available")
    }
    defer { g_checksum_free(checksum) }
    data.withUnsafeBytes { bytes in
      // (`g_checksum_update` takes a signed length: feed large data in pieces.)
      var rest = UnsafeRawBufferPointer(bytes)
      while let base = rest.baseAddress, !rest.isEmpty {
        let count = min(rest.count, 1 << 30)
        g_checksum_update(checksum, base.assumingMemoryBound(to: UInt8.self), gssize(count))
        rest = UnsafeRawBufferPointer(rebasing: rest[count...])
      }
    }
    var digest = [UInt8](repeating: 0, count: 32)
    var length = gsize(32)
    g_checksum_get_digest(checksum, &digest, &length)
    precondition(length == 32, "SHA-256 failed")
    return digest
  }

  /// The digest of the file at `path`, nil when it cannot be read.
  public static func hex(file path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return hex(data)
  }
}
