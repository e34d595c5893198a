import CZip
import Foundation

/// A zip archive made in memory with libzip: deflated entries in the order given, every
/// entry dated 1980-01-01 00:00 (the format's epoch), so the same entries give the same bytes.
enum ZipArchive {
  /// The archive of `entries` (name, contents), or nil when libzip fails (out of memory).
  static func make(_ entries: [(name: String, data: Data)]) -> Data? {
    var error = zip_error_t()
    zip_error_init(&error)
    defer { zip_error_fini(&error) }
    guard let source = zip_source_buffer_create(nil, 0, 0, &error) else { return nil }
    // The archive owns the source until it is closed; kept, it outlives the close so its
    // bytes can be read back.
    zip_source_keep(source)
    defer { zip_source_free(source) }
    guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else { return nil }
    // libzip reads the added buffers when the archive is closed: they stay alive till then.
    var buffers: [UnsafeMutableRawBufferPointer] = []
    defer { for buffer in buffers { buffer.deallocate() } }
    // The date the entries carry: 1980-01-01 00:00 local time, which is what a DOS date
    // can hold at the earliest.
    var epoch = tm()
    epoch.tm_year = 80
    epoch.tm_mon = 0
    epoch.tm_mday = 1
    epoch.tm_isdst = -1
    let date = mktime(&epoch)
    for (name, data) in entries {
      let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: max(1, data.count), alignment: 1)
      buffers.append(buffer)
      data.withUnsafeBytes { buffer.copyMemory(from: $0) }
      guard let entry = zip_source_buffer(archive, buffer.baseAddress, UInt64(data.count), 0)
      else {
        zip_discard(archive)
        return nil
      }
      let index = zip_file_add(archive, name, entry, zip_flags_t(ZIP_FL_ENC_UTF_8))
      guard index >= 0 else {
        zip_source_free(entry)
        zip_discard(archive)
        return nil
      }
      zip_set_file_compression(archive, UInt64(index), ZIP_CM_DEFLATE, 6)
      zip_file_set_mtime(archive, UInt64(index), date, 0)
    }
    guard zip_close(archive) == 0 else {
      zip_discard(archive)
      return nil
    }
    guard zip_source_open(source) == 0 else { return nil }
    defer { zip_source_close(source) }
    var out = Data()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let read = chunk.withUnsafeMutableBytes {
        zip_source_read(source, $0.baseAddress, UInt64($0.count))
      }
      guard read >= 0 else { return nil }
      if read == 0 { break }
      out.append(contentsOf: chunk[0..<Int(read)])
    }
    return out
  }
}
