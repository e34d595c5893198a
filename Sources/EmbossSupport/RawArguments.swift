#if canImport(Glibc)
import Glibc
#endif

/// The command line as the process received it, before Swift decoded it: `CommandLine`
/// replaces invalid UTF-8 with U+FFFD, which would render replacement glyphs.
public enum RawArguments {
  /// Where a byte sequence stops being UTF-8: the offset and value of the first bad byte.
  public static func firstInvalidUTF8(_ bytes: [UInt8]) -> (offset: Int, byte: UInt8)? {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded): offset += encoded.count
      case .emptyInput: return nil
      case .error: return (offset, bytes[offset])
      }
    }
  }

  /// The first argument (after the program name) that is not UTF-8: its index (1 is the
  /// first argument), its text as Swift decoded it, and where it goes wrong.
  public static func firstInvalid() -> (index: Int, decoded: String, offset: Int, byte: UInt8)? {
    for index in 1..<Int(CommandLine.argc) {
      guard let pointer = CommandLine.unsafeArgv[index] else { continue }
      let bytes = Array(
        UnsafeBufferPointer(
          start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
          count: strlen(pointer)))
      if let bad = firstInvalidUTF8(bytes) {
        return (index, String(decoding: bytes, as: UTF8.self), bad.offset, bad.byte)
      }
    }
    return nil
  }
}
