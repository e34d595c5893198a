import EmbossModel
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
///
/// At most `limit` problems are kept: the first ones in file order. Past that the sink only
/// counts, so a file that repeats one mistake a million times costs a counter, not a million
/// messages, and prints `limit` lines and one saying how many more there were.
public struct DiagnosticSink: Sendable {
  /// The most problems kept and printed for one material (one file and what it extends) and
  /// for one run of a command; the rest are counted (`MaterialError.omitted`).
  public static let limit = 20

  /// A kept diagnostic and where it sorts: files in the order they were first reported, then
  /// line, column and the order of reporting.
  private struct Entry: Sendable {
    var diagnostic: Diagnostic
    var file: Int
    var sequence: Int

    func sorts(before other: Entry) -> Bool {
      (file, diagnostic.location.line, diagnostic.location.column, sequence)
        < (
          other.file, other.diagnostic.location.line, other.diagnostic.location.column,
          other.sequence
        )
    }
  }

  /// The first `limit` problems, in order.
  private var kept: [Entry] = []
  /// The files reported, in the order they were first reported.
  private var files: [String] = []
  /// Every problem reported, kept or not.
  public private(set) var errorCount = 0
  /// Files read while parsing (a material and what it extends).
  var sources: [String] = []
  /// Where files are read from, and what was read (a material and what it extends).
  var inputs = InputSnapshot()

  /// An empty sink.
  public init() {}

  /// The first `limit` problems found, file by file (in the order files were first reported),
  /// each file's in reading order.
  public var diagnostics: [Diagnostic] { kept.map(\.diagnostic) }

  /// How many problems were found past the first `limit`.
  public var omitted: Int { errorCount - kept.count }

  /// Records an error at `location`.
  public mutating func error(_ message: String, at location: SourceLocation) {
    errorCount += 1
    let file = files.firstIndex(of: location.file) ?? files.count
    if file == files.count { files.append(location.file) }
    let entry = Entry(
      diagnostic: Diagnostic(location: location, message: message), file: file,
      sequence: errorCount)
    if kept.count == Self.limit, let last = kept.last, !entry.sorts(before: last) { return }
    let index = kept.lastIndex { !entry.sorts(before: $0) }.map { $0 + 1 } ?? 0
    kept.insert(entry, at: index)
    if kept.count > Self.limit { kept.removeLast() }
  }

  /// Records everything `other` found: its diagnostics and the count of those it left out.
  public mutating func append(_ other: DiagnosticSink) {
    for diagnostic in other.diagnostics { error(diagnostic.message, at: diagnostic.location) }
    errorCount += other.omitted
  }

  /// Whether any error was recorded.
  public var hasErrors: Bool { errorCount > 0 }
}

/// A material that could not be loaded: its first diagnostics, one a line, and how many more
/// there were.
public struct MaterialError: Error, Sendable, CustomStringConvertible {
  /// The first problems found (at most `DiagnosticSink.limit`), in file order.
  public var diagnostics: [Diagnostic]
  /// How many more problems were found and are not in `diagnostics`.
  public var omitted: Int

  /// An error made of `diagnostics`: the first `DiagnosticSink.limit` of them are kept, and the
  /// rest are counted in `omitted` with the `omitted` given.
  public init(diagnostics: [Diagnostic], omitted: Int = 0) {
    self.diagnostics = Array(diagnostics.prefix(DiagnosticSink.limit))
    self.omitted = omitted + diagnostics.count - self.diagnostics.count
  }

  /// The error of what `sink` found.
  public init(_ sink: DiagnosticSink) {
    self.init(diagnostics: sink.diagnostics, omitted: sink.omitted)
  }

  /// One error made of several (a command's materials, in order), within the same limit.
  public init(combining errors: [MaterialError]) {
    self.init(
      diagnostics: errors.flatMap(\.diagnostics), omitted: errors.reduce(0) { $0 + $1.omitted })
  }

  /// The lines to print: each diagnostic, then `N more errors not shown` when some were left
  /// out.
  public var lines: [String] {
    diagnostics.map(\.description) + (omitted > 0 ? [Self.omittedLine(omitted)] : [])
  }

  /// The line that ends a report with `count` problems left out: `N more errors not shown`.
  public static func omittedLine(_ count: Int) -> String {
    "\(count) more error\(count == 1 ? "" : "s") not shown"
  }

  /// The lines, one per line.
  public var description: String { lines.joined(separator: "\n") }
}
