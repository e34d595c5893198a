import CCrypto
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
  public static func bytes(_ data: Data) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let ok = data.withUnsafeBytes { bytes in
      EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
    }
    precondition(ok == 1 && length == 32, "SHA-256 failed")
    return digest
  }

  /// The digest of the file at `path`, nil when it cannot be read.
  public static func hex(file path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return hex(data)
  }
}
