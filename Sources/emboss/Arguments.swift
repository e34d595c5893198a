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
    if let (width, height) = Length.parseSize(text) {
      return CanvasArgument(width: width, height: height)
    }
    throw ArgumentValueError(
      description: "expected WIDTHxHEIGHT with positive lengths such as 1000x200 or 100mmx30mm")
  }
}
