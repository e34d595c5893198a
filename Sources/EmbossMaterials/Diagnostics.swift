import EmbossModel
import EmbossRaster
import EmbossSupport

/// Where something is in a source file: 1-based line and column (columns count Unicode
/// scalars, as libyaml does).
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
  /// The file's path as the user gave it.
  public var file: String
  /// The line, 1-based.
  public var line: Int
  /// The column, 1-based, in characters.
  public var column: Int

  /// A location in `file`.
  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line:column`; just the name for a command-line flag (line 0).
  public var description: String { line == 0 ? file : "\(file):\(line):\(column)" }
}

/// One problem found in an input file, printed as `file:line:column: error: message`.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
  /// Where the problem is.
  public var location: SourceLocation
  /// What is wrong, and what would be right.
  public var message: String

  /// A problem at `location`.
  public init(location: SourceLocation, message: String) {
    self.location = location
    self.message = message
  }

  /// `file:line:column: error: message`, as compilers print it.
  public var description: String { "\(location): error: \(message)" }

  /// The first line of `text`, cut to `limit` characters with an ellipsis: no message ever
  /// repeats more than a line of the input.
  public static func shortened(_ text: String, to limit: Int = 200) -> String {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let firstLine = trimmed.prefix { $0 != "\n" && $0 != "\r" }
    var result = String(firstLine.prefix(limit))
    if firstLine.count > limit || firstLine.count < trimmed.count { result += " ..." }
    return result
  }
}

/// Collects diagnostics, so a parser can report every problem in a file rather than the first.
public struct DiagnosticSink: Sendable {
  private var found: [Diagnostic] = []
  /// Files read while parsing (a material and what it extends).
  var sources: [String] = []

  /// An empty sink.
  public init() {}

  /// Everything found, file by file (in the order files were first reported), each file's in
  /// reading order.
  public var diagnostics: [Diagnostic] {
    var files: [String] = []
    for d in found where !files.contains(d.location.file) { files.append(d.location.file) }
    return files.flatMap { file in
      found.filter { $0.location.file == file }.enumerated().sorted {
        ($0.element.location.line, $0.element.location.column, $0.offset)
          < ($1.element.location.line, $1.element.location.column, $1.offset)
      }.map(\.element)
    }
  }

  /// Records an error at `location`.
  public mutating func error(_ message: String, at location: SourceLocation) {
    found.append(Diagnostic(location: location, message: message))
  }

  /// Whether any error was recorded.
  public var hasErrors: Bool { !found.isEmpty }
}

/// A material that could not be loaded: all its diagnostics, one a line.
public struct MaterialError: Error, Sendable, CustomStringConvertible {
  /// Every problem found, in file order.
  public var diagnostics: [Diagnostic]

  /// An error made of `diagnostics`.
  public init(diagnostics: [Diagnostic]) {
    self.diagnostics = diagnostics
  }

  /// The diagnostics, one per line.
  public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
