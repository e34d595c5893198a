import ArgumentParser
import EmbossKit

// Typed command-line values, each parsed once, when the arguments are parsed. A value that
// does not parse is reported by ArgumentParser as "The value 'X' is invalid for '--option
// <name>': <why>" (exit 64).

/// Why a value did not parse.
struct ArgumentValueError: Error, CustomStringConvertible {
  var description: String
}

extension Length {
  /// `12`, `12px`, `2mm`, `0.5cm`, `0.1in`, `9pt`.
  static func argument(_ text: String) throws -> Length {
    guard let length = Length.parse(text) else {
      throw ArgumentValueError(
        description: "expected a length such as 12, 12px, 2mm, 0.5cm, 0.1in or 9pt")
    }
    return length
  }

  static let zero = Length(value: 0, unit: .px)
}

/// `WIDTHxHEIGHT`, each a positive length (`1000x200`, `100mmx30mm`).
struct CanvasArgument {
  var width: Length
  var height: Length

  static func argument(_ text: String) throws -> CanvasArgument {
    let lowered = text.lowercased()
    // Any "x" may be the separator ("px" holds one too): take the split where both sides are
    // lengths.
    for index in lowered.indices where lowered[index] == "x" {
      guard let width = Length.parse(String(lowered[..<index])),
        let height = Length.parse(String(lowered[lowered.index(after: index)...])),
        width.value > 0, height.value > 0
      else { continue }
      return CanvasArgument(width: width, height: height)
    }
    throw ArgumentValueError(
      description: "expected WIDTHxHEIGHT with positive lengths such as 1000x200 or 100mmx30mm")
  }
}

/// `x,y` in whole pixels.
struct PixelPoint {
  var x: Int
  var y: Int

  static func argument(_ text: String) throws -> PixelPoint {
    let parts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 2, let x = parts[0], let y = parts[1] else {
      throw ArgumentValueError(description: "expected x,y in pixels such as 10,20")
    }
    return PixelPoint(x: x, y: y)
  }
}

/// A size in bytes: `8G`, `512M`, `100000000`.
struct ByteCount {
  var bytes: Int

  static func argument(_ text: String) throws -> ByteCount {
    guard let bytes = RenderLimits.parseBytes(text) else {
      throw ArgumentValueError(description: "expected a size such as 8G, 512M or 100000000 (bytes)")
    }
    return ByteCount(bytes: bytes)
  }
}

extension DitherMethod {
  /// A method's name or a unique beginning of one, with a suggestion when misspelled.
  static func argument(_ text: String) throws -> DitherMethod {
    try DitherMethod.parse(text).get()
  }
}

extension MaterialFlags.Depth {
  /// `1.5x` (a multiple of the radius) or a length.
  static func argument(_ text: String) throws -> MaterialFlags.Depth {
    guard let depth = MaterialFlags.Depth.parse(text) else {
      throw ArgumentValueError(
        description:
          "expected a multiple of the radius such as 1.5x, or a length such as 10, 10px or 0.5mm")
    }
    return depth
  }
}

extension FontFeatures {
  /// `liga=0,smcp,ss01` (HarfBuzz's syntax).
  static func argument(_ text: String) throws -> FontFeatures {
    do { return try FontFeatures(parsing: text) } catch let error as EmbossError {
      throw ArgumentValueError(description: error.message)
    }
  }
}

extension FontVariations {
  /// `wght=650,wdth=80`.
  static func argument(_ text: String) throws -> FontVariations {
    do { return try FontVariations(parsing: text) } catch let error as EmbossError {
      throw ArgumentValueError(description: error.message)
    }
  }
}
