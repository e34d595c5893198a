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

  /// The arguments with every negative number that follows a long option joined to it
  /// (`--padding -5` becomes `--padding=-5`), before a bare `--`.
  ///
  /// The argument parser takes `-5` for a short option, so `--radius -3` said "Missing value
  /// for '--radius'" instead of the option's own range error; joined, the option gets its
  /// value and says what is wrong with it (a flag says it takes no value). Options with a
  /// value already (`--padding=-5`) and short ones are left as they are.
  public static func joiningNegativeValues(_ arguments: [String]) -> [String] {
    var joined: [String] = []
    joined.reserveCapacity(arguments.count)
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "--" {
        joined += arguments[index...]
        break
      }
      if argument.hasPrefix("--"), argument.count > 2, !argument.contains("="),
        index + 1 < arguments.count, isNegativeNumber(arguments[index + 1])
      {
        joined.append(argument + "=" + arguments[index + 1])
        index += 2
        continue
      }
      joined.append(argument)
      index += 1
    }
    return joined
  }

  /// Whether an argument reads as a negative number, with or without a unit: a minus sign,
  /// then a digit or a point and a digit (`-5`, `-0.5mm`, `-.5`).
  static func isNegativeNumber(_ argument: String) -> Bool {
    let utf8 = Array(argument.utf8.prefix(3))
    guard utf8.count >= 2, utf8[0] == UInt8(ascii: "-") else { return false }
    let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    if isDigit(utf8[1]) { return true }
    return utf8[1] == UInt8(ascii: ".") && utf8.count == 3 && isDigit(utf8[2])
  }
}
