import ArgumentParser
import EmbossKit

// The command line's render options come from the library's table (`RenderOption`): each
// flag's name, help, value name, default and completion. The parsed values go to the
// library as they were written (`RenderRequest.Value`), which checks them all, the same way
// as a batch's columns and a request's JSON.

extension NameSpecification {
  /// `--key`.
  static func long(_ option: RenderOption) -> NameSpecification { .customLong(option.key) }

  /// `-o` and `--output`.
  static func shortAndLong(_ option: RenderOption) -> NameSpecification {
    guard let short = option.short else { return .customLong(option.key) }
    return [.customLong(option.key), .customShort(short)]
  }
}

extension ArgumentHelp {
  /// The option's help and value name from the table.
  static func option(_ option: RenderOption) -> ArgumentHelp {
    ArgumentHelp(
      option.help, valueName: option.valueName, visibility: option.hidden ? .hidden : .default)
  }
}

extension CompletionKind {
  /// The option's completion from the table.
  static func option(_ option: RenderOption) -> CompletionKind? {
    let words = option.completion.words
    switch option.completion.kind {
    case .none: return nil
    case .files: return .file(extensions: words)
    case .directory: return .directory
    case .choices: return .list(words)
    case .material: return materialCompletion
    }
  }
}

/// A parsed option's values as written: an option that takes a value, a list or a flag.
protocol RequestArgumentValue {
  var written: [String] { get }
}

extension String: RequestArgumentValue {
  var written: [String] { [self] }
}

extension Optional: RequestArgumentValue where Wrapped: RequestArgumentValue {
  var written: [String] { map(\.written) ?? [] }
}

/// A choice parsed by the command line as its type (its help lists the values), written as
/// its name.
protocol RequestChoice: RequestArgumentValue, ExpressibleByArgument, RawRepresentable
where RawValue == String {}

extension RequestChoice {
  var written: [String] { [rawValue] }
}

extension TextAlignment: RequestChoice {}
extension PictureFormat: RequestChoice {}
extension CutLine.Join: RequestChoice {}
extension MeshSpec.Plate: RequestChoice {}
extension TextDirection: RequestChoice {}
extension ReliefProfile: RequestChoice {}
extension ReliefDirection: RequestChoice {}
extension SVGDocument.InkVectors: RequestChoice {}
extension MaskMode: RequestChoice {}

extension BitDepth: RequestArgumentValue {
  var written: [String] { [String(rawValue)] }
}

extension Array: RequestArgumentValue where Element == String {
  var written: [String] { self }
}

extension Bool: RequestArgumentValue {
  var written: [String] { [String(self)] }
}

/// A property wrapper whose value may be a request's.
protocol RequestArgument {
  var written: [String] { get }
}

extension Option: RequestArgument where Value: RequestArgumentValue {
  var written: [String] { wrappedValue.written }
}

extension Flag: RequestArgument where Value == Bool {
  var written: [String] { wrappedValue.written }
}

/// An option group, whose options may be a request's.
protocol RequestArgumentGroup {
  var group: Any { get }
}

extension OptionGroup: RequestArgumentGroup {
  var group: Any { wrappedValue }
}

/// The request values of a parsed command: each property named as a table option
/// (`cutOffset` is `cut-offset`), in option groups too.
///
/// Properties that are not a table's option (the text, threads, messages) are the command's
/// own. A test gives `render` every option of the table and finds each in its request.
func requestValues(of command: Any) -> [RenderRequest.Value] {
  var values: [RenderRequest.Value] = []
  for child in Mirror(reflecting: command).children {
    if let group = child.value as? RequestArgumentGroup {
      values += requestValues(of: group.group)
      continue
    }
    guard let label = child.label, let argument = child.value as? RequestArgument,
      let option = RenderOption.named(kebabCase(label.drop { $0 == "_" }))
    else { continue }
    values += argument.written.map { RenderRequest.Value(option, $0) }
  }
  return values
}

/// `cutOffset` as `cut-offset`.
func kebabCase<S: StringProtocol>(_ name: S) -> String {
  var out = ""
  for character in name {
    if character.isUppercase {
      out += "-" + character.lowercased()
    } else {
      out.append(character)
    }
  }
  return out
}

extension RequestError {
  /// The message naming each option as the command line does: `--size`, `-o`.
  var commandLineMessage: String {
    message { $0.short.map { "-\($0)" } ?? "--" + $0.key }
  }
}
