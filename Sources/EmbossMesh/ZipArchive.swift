import CZip
import EmbossSupport
import Foundation

/// A zip archive made in memory with libzip (loaded on first use: `emboss_zip_make`):
/// deflated entries in the order given, every entry dated 1980-01-01 00:00 (the format's
/// epoch), so the same entries give the same bytes.
enum ZipArchive {
  /// The archive of `entries` (name, contents).
  ///
  /// - Throws: `EmbossError` when libzip cannot be loaded or fails (out of memory).
  static func make(_ entries: [(name: String, data: Data)]) throws(EmbossError) -> Data {
    // The date the entries carry: 1980-01-01 00:00 local time, which is what a DOS date
    // can hold at the earliest.
    var epoch = tm()
    epoch.tm_year = 80
    epoch.tm_mon = 0
    epoch.tm_mday = 1
    epoch.tm_isdst = -1
    let date = mktime(&epoch)
    // The names and contents, held for the call.
    let names = entries.map { strdup($0.name) }
    defer { for name in names { free(name) } }
    let contents = entries.map { entry in
      let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: max(1, entry.data.count), alignment: 1)
      entry.data.withUnsafeBytes { buffer.copyMemory(from: $0) }
      return buffer
    }
    defer { for buffer in contents { buffer.deallocate() } }
    let list = zip(names, zip(contents, entries)).map { name, content in
      emboss_zip_entry(
        name: UnsafePointer(name), data: UnsafeRawPointer(content.0.baseAddress),
        size: content.1.data.count)
    }
    var bytes: UnsafeMutablePointer<UInt8>? = nil
    var size = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = emboss_zip_make(list, list.count, date, &bytes, &size, &message, message.count)
    defer { free(bytes) }
    guard status == 0, let bytes else {
      throw EmbossError(
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return Data(bytes: bytes, count: size)
  }
}
