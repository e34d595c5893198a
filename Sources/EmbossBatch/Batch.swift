import CSV
import EmbossKit
import Foundation

/// One row of a batch file: its number (1 for the first row after the header) and its
/// values by column name.
public struct BatchRow: Sendable, Equatable {
  /// The row's number: 1 for the first row after the header.
  public var number: Int
  /// The row's values by column name.
  public var values: [String: String]

  /// A row with its number and values.
  public init(number: Int, values: [String: String]) {
    self.number = number
    self.values = values
  }
}

/// The rows of a batch file, read one at a time so that any number of rows takes the same
/// memory: CSV with a header row (RFC 4180: quoted fields with commas, quotes and newlines;
/// UTF-8 with or without a byte-order mark), or JSON Lines (one object per line, `.jsonl` or
/// `.ndjson`), whose values may be strings, numbers or booleans.
public final class BatchRows {
  /// The columns, in the file's order (for JSON Lines: as they are met).
  public private(set) var columns: [String] = []
  private let path: String
  private var csv: CSVReader?
  private var lines: LineReader?
  private var number = 0

  /// The number of the row read last.
  public var rowNumber: Int { number }
  /// Whether the file is JSON Lines (where a bad line fails only its row).
  public var isJSONLines: Bool { lines != nil }

  /// Opens `path`; fails with a message naming it when it cannot be read or has no header,
  /// and (with `checkQuoting`) when a CSV file's quoting is broken (`quotingProblem`, a scan
  /// of the whole file: once per batch is enough).
  public init(path: String, checkQuoting: Bool = true) throws {
    self.path = path
    let lower = path.lowercased()
    if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") {
      guard let handle = FileHandle(forReadingAtPath: path) else {
        throw EmbossError("cannot read rows '\(path)': \(String(cString: strerror(errno)))")
      }
      lines = LineReader(handle)
    } else {
      guard let stream = InputStream(fileAtPath: path) else {
        throw EmbossError("cannot read rows '\(path)'")
      }
      if checkQuoting, let problem = Self.quotingProblem(path) {
        throw EmbossError("rows '\(path)', \(problem)")
      }
      do {
        let reader = try CSVReader(stream: stream, codecType: UTF8.self, hasHeaderRow: true)
        if let error = reader.error { throw error }
        csv = reader
        columns = (reader.headerRow ?? []).map { $0.trimmingCharacters(in: .whitespaces) }
      } catch {
        throw EmbossError("cannot read rows '\(path)': \(Self.describe(error))")
      }
      guard !columns.isEmpty, columns.contains(where: { !$0.isEmpty }) else {
        throw EmbossError("rows '\(path)' have no header row (the first line names the columns)")
      }
      if let duplicate = Dictionary(grouping: columns, by: { $0 }).first(where: {
        $0.value.count > 1 && !$0.key.isEmpty
      }) {
        throw EmbossError("rows '\(path)': column '\(duplicate.key)' appears twice in the header")
      }
    }
  }

  /// The next row, nil at the end.
  ///
  /// A row that cannot be read (bad UTF-8, a line of JSON that
  /// is not an object) throws with its number; reading may go on after it.
  public func next() throws -> BatchRow? {
    if let csv {
      var next = csv.next()
      // A blank line (an editor's last newline, a gap between groups) is no row, as in JSON
      // Lines: it rendered as a row with no text and failed.
      while let fields = next, fields.allSatisfy(\.isEmpty) { next = csv.next() }
      guard let fields = next else {
        // On Linux a file stream says it has bytes at its end, and the reader ends on
        // cannotReadFile there: that is the end, not an error.
        if let error = csv.error, !Self.isEndOfFile(error) {
          throw EmbossError("rows '\(path)', after row \(number): \(Self.describe(error))")
        }
        return nil
      }
      number += 1
      // More fields than the header names: a stray comma or quote, whose values would be
      // dropped without a word.
      if fields.count > columns.count, fields[columns.count...].contains(where: { !$0.isEmpty }) {
        throw EmbossError(
          "rows '\(path)', row \(number): \(fields.count) fields, but the header names \(columns.count)"
        )
      }
      var values: [String: String] = [:]
      for (index, column) in columns.enumerated() where !column.isEmpty && index < fields.count {
        values[column] = fields[index]
      }
      return BatchRow(number: number, values: values)
    }
    guard let lines else { return nil }
    while let line = try lines.next() {
      let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !text.isEmpty else { continue }
      number += 1
      guard
        let object = try? JSONDecoder().decode([String: JSONScalar].self, from: Data(text.utf8))
      else {
        throw EmbossError(
          "rows '\(path)', row \(number): not a JSON object of strings, numbers and booleans")
      }
      var values: [String: String] = [:]
      for (key, value) in object.sorted(by: { $0.key < $1.key }) {
        guard let text = value.text else { continue }
        values[key] = text
        if !columns.contains(key) { columns.append(key) }
      }
      return BatchRow(number: number, values: values)
    }
    return nil
  }

  /// Where the CSV file's quoting breaks RFC 4180, or nil.
  ///
  /// A quoted field never closed (the reader took every row after it into that field) or
  /// text after a field's closing quote (the reader dropped it). Read in chunks, so any size
  /// takes the same memory.
  static func quotingProblem(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let (quote, comma, newline, ret) = (
      UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "\n"), UInt8(ascii: "\r")
    )
    var inQuotes = false
    // A quote inside a quoted field: its end, or the first of two (an escaped quote).
    var pendingQuote = false
    var fieldStart = true
    var (line, column, openedAt) = (1, 0, 1)
    var first = true
    while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
      var bytes = [UInt8](chunk)
      if first, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
      first = false
      for byte in bytes {
        column += 1
        if pendingQuote {
          pendingQuote = false
          if byte == quote {
            inQuotes = true
            continue
          }
          guard byte == comma || byte == newline || byte == ret else {
            return "line \(line), column \(column): text after a field's closing quote"
          }
        }
        if inQuotes {
          if byte == quote {
            inQuotes = false
            pendingQuote = true
          } else if byte == newline {
            (line, column) = (line + 1, 0)
          }
          continue
        }
        if byte == quote && fieldStart {
          (inQuotes, openedAt, fieldStart) = (true, line, false)
          continue
        }
        if byte == newline { (line, column) = (line + 1, 0) }
        fieldStart = byte == comma || byte == newline || byte == ret
      }
    }
    return inQuotes ? "line \(openedAt): a quoted field is never closed" : nil
  }

  private static func isEndOfFile(_ error: Error) -> Bool {
    if case CSVError.cannotReadFile = error { return true }
    return false
  }

  private static func describe(_ error: Error) -> String {
    switch error {
    case CSVError.unicodeDecoding: return "not UTF-8"
    case CSVError.cannotReadHeaderRow: return "no header row"
    case CSVError.cannotOpenFile, CSVError.cannotReadFile: return "cannot read the file"
    case let error as EmbossError: return error.message
    default: return "\(error)"
    }
  }
}

/// A JSON Lines value: a string, a number or a boolean (null: no value).
private struct JSONScalar: Decodable {
  let text: String?

  init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      text = nil
    } else if let string = try? container.decode(String.self) {
      text = string
    } else if let bool = try? container.decode(Bool.self) {
      text = bool ? "true" : "false"
    } else if let integer = try? container.decode(Int.self) {
      text = String(integer)
    } else {
      text = String(try container.decode(Double.self))
    }
  }
}

/// Lines of a file, read in blocks.
private final class LineReader {
  private let handle: FileHandle
  private var buffer = Data()
  private var done = false

  init(_ handle: FileHandle) { self.handle = handle }

  func next() throws -> String? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = buffer[buffer.startIndex..<newline]
        buffer.removeSubrange(buffer.startIndex...newline)
        return try decode(line)
      }
      if done {
        guard !buffer.isEmpty else { return nil }
        defer { buffer.removeAll() }
        return try decode(buffer)
      }
      let block = try handle.read(upToCount: 1 << 16) ?? Data()
      if block.isEmpty { done = true } else { buffer += block }
    }
  }

  private func decode(_ bytes: Data) throws -> String {
    var bytes = bytes
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    guard let text = String(data: bytes, encoding: .utf8) else {
      throw EmbossError("a line is not UTF-8")
    }
    return text
  }
}

/// An output path made from a row: literal text with `{column}` fields (`{row}` is the row
/// number; `{row:04}` pads it with zeros to 4 digits).
///
/// A field's value is made a safe file-name part: letters and digits (of any script), `-`,
/// `_` and `.` are kept, every other run of characters becomes one `-`, and leading or
/// trailing `-` and `.` are dropped (no hidden files, no `..`), so a value can never add a
/// directory or leave the template's. An empty result is `_`; parts are cut to 100 bytes.
public struct NameTemplate: Sendable, Equatable {
  enum Part: Sendable, Equatable {
    case literal(String)
    case field(String, width: Int)
  }

  let parts: [Part]
  /// The template as written.
  public let template: String

  /// Parses `template`; `option` names it in messages.
  public init(_ template: String, option: String) throws {
    self.template = template
    var parts: [Part] = []
    var literal = ""
    var index = template.startIndex
    while index < template.endIndex {
      let character = template[index]
      if character == "}" {
        throw EmbossError("\(option) '\(template)': '}' without '{' (write a field as {column})")
      }
      guard character == "{" else {
        literal.append(character)
        index = template.index(after: index)
        continue
      }
      guard let close = template[index...].firstIndex(of: "}") else {
        throw EmbossError("\(option) '\(template)': '{' is not closed")
      }
      let body = String(template[template.index(after: index)..<close])
      let pieces = body.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(pieces[0]).trimmingCharacters(in: .whitespaces)
      guard !name.isEmpty, !name.contains("{") else {
        throw EmbossError("\(option) '\(template)': '{\(body)}' names no column")
      }
      var width = 0
      if pieces.count == 2 {
        guard let parsed = Int(pieces[1]), parsed >= 0, parsed <= 12 else {
          throw EmbossError(
            "\(option) '\(template)': '{\(body)}': the part after ':' is a width, 0...12 (as in {row:04})"
          )
        }
        width = parsed
      }
      if !literal.isEmpty { parts.append(.literal(literal)) }
      literal = ""
      parts.append(.field(name, width: width))
      index = template.index(after: close)
    }
    if !literal.isEmpty { parts.append(.literal(literal)) }
    guard parts.contains(where: { if case .field = $0 { true } else { false } }) else {
      throw EmbossError(
        "\(option) '\(template)' has no field: every row would write the same file (use {row} or a column, as in out/{row:04}-{text}.png)"
      )
    }
    self.parts = parts
  }

  /// The columns the template reads (`row` included when used).
  public var fields: [String] {
    parts.compactMap { if case .field(let name, _) = $0 { name } else { nil } }
  }

  /// The path for `row`; fails when a column the template names is missing from it.
  public func path(for row: BatchRow) throws -> String {
    var out = ""
    for part in parts {
      switch part {
      case .literal(let text): out += text
      case .field(let name, let width):
        let value: String
        if name == "row" && row.values["row"] == nil {
          value = String(row.number)
        } else if let cell = row.values[name] {
          value = cell
        } else {
          throw EmbossError("'{\(name)}' in '\(template)': the row has no column '\(name)'")
        }
        var safe = Self.slug(value)
        if width > 0, safe.count < width, value.allSatisfy(\.isNumber) {
          safe = String(repeating: "0", count: width - safe.count) + safe
        }
        out += safe
      }
    }
    return out
  }

  /// `value` as a safe part of a file name (see the type's summary).
  public static func slug(_ value: String) -> String {
    var out = ""
    var pendingDash = false
    for character in value {
      let keep =
        character.isLetter || character.isNumber || character == "-" || character == "_"
        || character == "."
      if keep {
        if pendingDash && !out.isEmpty { out.append("-") }
        pendingDash = false
        out.append(character)
      } else {
        pendingDash = true
      }
    }
    while let first = out.first, first == "-" || first == "." { out.removeFirst() }
    while let last = out.last, last == "-" || last == "." { out.removeLast() }
    while out.utf8.count > 100 { out.removeLast() }
    return out.isEmpty ? "_" : out
  }
}

/// One line of a batch's manifest (JSON Lines): what a row was given, what it wrote.
public struct BatchManifestEntry: Codable, Sendable, Equatable {
  /// What became of a row.
  public enum Status: String, Codable, Sendable {
    /// Rendered by this run.
    case rendered
    /// Its outputs were there as a previous run wrote them, its inputs unchanged.
    case skipped
    /// It failed: the entry's `error` says why.
    case failed
  }

  /// A file a row wrote, and its digest.
  public struct Output: Codable, Sendable, Equatable {
    /// The file's path as written in the manifest.
    public var path: String
    /// The SHA-256 digest of the file's bytes, in hexadecimal.
    public var sha256: String
  }

  /// The row's number in the rows file (1 for the first row after the header).
  public var row: Int
  /// `rendered`, `skipped` (its outputs were already there, as a previous run wrote them)
  /// or `failed`.
  public var status: Status
  /// SHA-256 of the row's render arguments and emboss's version.
  public var inputs: String
  /// The files the row wrote (or, when skipped, found as a previous run wrote them).
  public var outputs: [Output]
  /// Why the row failed: the message emboss would print; nil when it did not.
  public var error: String?
  /// How long the row took, in milliseconds.
  public var milliseconds: Double
  /// With gang sheets: the sheet the row is on, and its top-left corner there in mm.
  public var sheet: Int?
  /// The left edge of the row's place on its gang sheet, in mm.
  public var x: Double?
  /// The top edge of the row's place on its gang sheet, in mm.
  public var y: Double?
  /// The shard that rendered the row, 0-based (0 without sharding).
  ///
  /// With `shardCount` and `batchRows`, `batch merge` checks that every row of every shard is
  /// there. Absent in manifests of emboss before 2026-11.
  public var shardIndex: Int?
  /// How many shards share the batch's rows.
  public var shardCount: Int?
  /// The number of rows in the batch's rows file (all shards').
  public var batchRows: Int?

  /// An entry with no gang sheet place.
  public init(
    row: Int, status: Status, inputs: String, outputs: [Output], error: String?,
    milliseconds: Double
  ) {
    self.row = row
    self.status = status
    self.inputs = inputs
    self.outputs = outputs
    self.error = error
    self.milliseconds = milliseconds
  }

  /// The entry as one line of JSON (keys sorted, no newline).
  public func line() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding a struct of strings and numbers cannot fail.
    let data = (try? encoder.encode(self)) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// Every entry of a manifest file, in its order, or an error naming the first line that
  /// is not an entry (`file:line: ...`) or the file that cannot be read.
  public static func readAll(_ path: String) throws(EmbossError) -> [BatchManifestEntry] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw EmbossError("cannot read manifest '\(path)'")
    }
    let decoder = JSONDecoder()
    var entries: [BatchManifestEntry] = []
    for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      .enumerated()
    {
      guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else {
        continue
      }
      do {
        entries.append(try decoder.decode(BatchManifestEntry.self, from: Data(line)))
      } catch {
        let text = String(decoding: line.prefix(60), as: UTF8.self)
        throw EmbossError(
          "\(path):\(index + 1): not a manifest entry: '\(text)\(line.count > 60 ? "..." : "")'")
      }
    }
    return entries
  }

  /// The entries of a manifest file by row (the last entry of a row wins).
  ///
  /// Empty when there is no such file. Lines that do not parse are ignored (a run killed mid-line).
  public static func read(_ path: String) -> [Int: BatchManifestEntry] {
    guard let data = FileManager.default.contents(atPath: path) else { return [:] }
    var entries: [Int: BatchManifestEntry] = [:]
    let decoder = JSONDecoder()
    for line in data.split(separator: UInt8(ascii: "\n")) {
      if let entry = try? decoder.decode(BatchManifestEntry.self, from: Data(line)) {
        entries[entry.row] = entry
      }
    }
    return entries
  }
}

/// Which rows of a batch a machine takes: row r (1-based) when (r - 1) % count == index.
public struct BatchShard: Sendable, Equatable {
  /// This machine's index, 0-based.
  public var index: Int
  /// How many machines share the rows.
  public var count: Int

  /// Shard `index` of `count`.
  ///
  /// - Throws: `EmbossError` when `count` is less than 1 or `index` is not in 0..<count.
  public init(index: Int, count: Int) throws {
    guard count >= 1, (0..<count).contains(index) else {
      throw EmbossError("shard \(index)/\(count): the index must be in 0...count-1")
    }
    self.index = index
    self.count = count
  }

  /// `I/N`, or `auto`: the index from the job runner's environment (Kubernetes Indexed Jobs'
  /// `JOB_COMPLETION_INDEX`, Slurm arrays' `SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN`
  /// with `SLURM_ARRAY_TASK_COUNT`, AWS Batch's `AWS_BATCH_JOB_ARRAY_INDEX`) and the count
  /// from `count` where the environment has none.
  public init(_ text: String, count: Int?, environment: [String: String]) throws {
    if text == "auto" {
      func number(_ key: String) -> Int? { environment[key].flatMap { Int($0) } }
      if let id = number("SLURM_ARRAY_TASK_ID") {
        let total = number("SLURM_ARRAY_TASK_COUNT") ?? count
        guard let total else {
          throw EmbossError("--shard auto: SLURM_ARRAY_TASK_COUNT is not set; give --shard-count")
        }
        try self.init(index: id - (number("SLURM_ARRAY_TASK_MIN") ?? 0), count: total)
        return
      }
      for key in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
        guard let id = number(key) else { continue }
        guard let count else { throw EmbossError("--shard auto (\(key)): give --shard-count") }
        try self.init(index: id, count: count)
        return
      }
      throw EmbossError(
        "--shard auto: none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX is set"
      )
    }
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let total = Int(parts[1]) else {
      throw EmbossError("--shard '\(text)': expected I/N (0-based index I of N shards) or auto")
    }
    if let count, count != total {
      throw EmbossError("--shard \(text) and --shard-count \(count) disagree")
    }
    try self.init(index: index, count: total)
  }

  /// Whether this shard renders row `row` (1-based).
  public func takes(_ row: Int) -> Bool { (row - 1) % count == index }
}

/// Runs a batch: each row of a rows file rendered by `render`, in parallel, reusing a stage
/// cache per worker, every row reported in a manifest written in row order.
public struct BatchRunner {
  /// What a row renders: its request and the paths it writes (checked for collisions
  /// before anything is rendered).
  public struct Plan: Sendable {
    /// The row's request.
    public var request: RenderRequest
    /// The files the row writes, as paths.
    public var outputs: [String]

    /// A row's request and outputs.
    public init(request: RenderRequest, outputs: [String]) {
      self.request = request
      self.outputs = outputs
    }
  }

  /// A planned row ready to render: the digest of everything its outputs depend on, and the
  /// render itself.
  struct Prepared {
    /// `ResolvedRequest.digest`: the row's inputs, files by content.
    var digest: String
    /// Renders the row with a worker's cache and writes its files.
    var render: (StageCache) throws -> Void
  }

  /// Progress after each row.
  public struct Progress: Sendable {
    /// Rows done so far.
    public var done: Int
    /// Rows that failed so far (each reported in the manifest with its message).
    public var failed: Int
    /// Rows skipped so far: their outputs were there as a previous run wrote them.
    public var skipped: Int
    /// Rows this run took (all rows, or this shard's).
    public var total: Int
    /// Seconds since the batch started.
    public var seconds: Double

    /// A report of `done` rows of `total` (`failed` and `skipped` among them) after `seconds`.
    public init(done: Int, failed: Int, skipped: Int, total: Int, seconds: Double) {
      self.done = done
      self.failed = failed
      self.skipped = skipped
      self.total = total
      self.seconds = seconds
    }
  }

  /// The rows file (CSV or JSON Lines).
  public var rowsPath: String
  /// Where the manifest is written (JSON Lines, one entry per row).
  public var manifestPath: String
  /// The rows this machine takes; nil for all of them.
  public var shard: BatchShard?
  /// How many rows are rendered at once.
  public var workers: Int
  /// emboss's version, part of each row's input digest.
  public var version: String
  /// Lit balls kept between processes (shared by shards); nil: none.
  public var ballCache: BallCache? = nil

  /// A batch over `rowsPath` with its manifest, shard, workers and version.
  public init(
    rowsPath: String, manifestPath: String, shard: BatchShard?, workers: Int, version: String
  ) {
    self.rowsPath = rowsPath
    self.manifestPath = manifestPath
    self.shard = shard
    self.workers = max(1, workers)
    self.version = version
  }

  /// Runs every row this shard takes, streaming the rows file twice.
  ///
  /// The first pass plans every row and checks that no two rows write one file; the second
  /// renders them in parallel, handing rows to the workers in order. `plan` turns a row into
  /// its request and outputs (it throws for a bad row); `prepare` reads a planned row's files
  /// once and gives their digest and the render (which writes its files with a worker's
  /// cache), skipped when the last run's entry has the digest and its outputs are
  /// untouched; `entry` gets each row's manifest entry in row
  /// order. Memory does not grow with the rows, but for the output names of the first pass.
  /// Fails (before rendering) only when the rows cannot be read at all.
  func run(
    plan: @escaping (BatchRow) throws -> Plan,
    prepare: @escaping @Sendable (Plan) throws -> Prepared,
    progress: @escaping @Sendable (Progress) -> Void,
    entry: @escaping @Sendable (BatchManifestEntry) -> Void,
    place: ((inout BatchManifestEntry) -> Void)? = nil
  ) throws -> (rendered: Int, skipped: Int, failed: Int) {
    // The manifest's place, checked before any row renders.
    var manifestStatus = stat()
    if stat(manifestPath, &manifestStatus) == 0, manifestStatus.st_mode & S_IFMT == S_IFDIR {
      throw EmbossError("cannot write the manifest '\(manifestPath)': it is a directory")
    }
    // The batch's own files, which no row may write over.
    let own = [
      (OutputConflicts.identity(rowsPath), "the rows file"),
      (OutputConflicts.identity(manifestPath), "the manifest"),
      (OutputConflicts.identity(manifestPath + ".partial"), "the manifest's partial file"),
    ]
    // First pass: collisions between rows' outputs; rows that fail to plan fail again below.
    var owners: [String: Int] = [:]
    var collisions: [Int: EmbossError] = [:]
    var total = 0
    var allRows = 0
    let first = try BatchRows(path: rowsPath)
    while true {
      let row: BatchRow?
      do {
        row = try first.next()
      } catch is EmbossError where first.isJSONLines {
        allRows += 1
        if shard?.takes(first.rowNumber) ?? true { total += 1 }
        continue
      }
      guard let row else { break }
      allRows += 1
      if let shard, !shard.takes(row.number) { continue }
      total += 1
      guard let planned = try? plan(row) else { continue }
      for output in planned.outputs {
        let identity = OutputConflicts.identity(output)
        if let file = own.first(where: { $0.0 == identity }) {
          collisions[row.number] = EmbossError("'\(output)' is \(file.1) of this batch")
          break
        }
        let key = URL(fileURLWithPath: output).standardizedFileURL.path
        if let owner = owners[key] {
          collisions[row.number] = EmbossError("'\(output)' is also row \(owner)'s output")
          break
        }
        owners[key] = row.number
      }
    }
    owners = [:]
    let partial = manifestPath + ".partial"
    // The last run's entries, read forward as rows are handed out (manifests are in row
    // order); a killed run's partial manifest is newer. Both are opened before the new
    // partial manifest replaces the old one.
    let previous = [ManifestCursor(path: partial), ManifestCursor(path: manifestPath)]
    unlink(partial)
    guard FileManager.default.createFile(atPath: partial, contents: nil),
      let handle = FileHandle(forWritingAtPath: partial)
    else {
      throw EmbossError("cannot write the manifest '\(partial)'")
    }
    let state = BatchState(
      rows: try BatchRows(path: rowsPath, checkQuoting: false), shard: shard, plan: plan,
      collisions: collisions,
      previous: previous, total: total, handle: handle, entry: entry, place: place)
    let batchRows = allRows
    let shard = self.shard
    let caches = CachePool(count: workers, disk: ballCache)
    let start = DispatchTime.now().uptimeNanoseconds
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      let cache = caches.take()
      defer { caches.give(cache) }
      while let work = state.next() {
        let rowStart = DispatchTime.now().uptimeNanoseconds
        var result: BatchManifestEntry
        switch work.plan {
        case .failure(let error):
          result = BatchManifestEntry(
            row: work.row, status: .failed, inputs: "", outputs: [],
            error: error.commandLineMessage,
            milliseconds: 0)
        case .success(let plan):
          // The request's files read once: their bytes are what the digest covers and what
          // the render takes.
          var inputs = ""
          do {
            let prepared = try prepare(plan)
            inputs = prepared.digest
            if let old = work.previous, old.status != .failed, old.inputs == inputs,
              old.outputs.map(\.path) == plan.outputs,
              old.outputs.allSatisfy({ SHA256Digest.hex(file: $0.path) == $0.sha256 })
            {
              result = old
              result.status = .skipped
            } else {
              try prepared.render(cache)
              result = BatchManifestEntry(
                row: work.row, status: .rendered, inputs: inputs,
                outputs: plan.outputs.map {
                  .init(path: $0, sha256: SHA256Digest.hex(file: $0) ?? "")
                }, error: nil, milliseconds: 0)
            }
          } catch {
            result = BatchManifestEntry(
              row: work.row, status: .failed, inputs: inputs, outputs: [],
              error: (error as? EmbossError)?.commandLineMessage ?? Self.describe(error),
              milliseconds: 0)
          }
        }
        result.milliseconds =
          (Double(DispatchTime.now().uptimeNanoseconds - rowStart) / 1e4).rounded() / 100
        result.shardIndex = shard?.index ?? 0
        result.shardCount = shard?.count ?? 1
        result.batchRows = batchRows
        let counts = state.finish(work.index, result)
        progress(
          Progress(
            done: counts.done, failed: counts.failed, skipped: counts.skipped, total: state.total,
            seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
      }
    }
    try handle.close()
    if let error = state.readError { throw error }
    // The finished manifest replaces the last one.
    if rename(partial, manifestPath) != 0 {
      throw EmbossError(
        "cannot write the manifest '\(manifestPath)': \(String(cString: strerror(errno)))")
    }
    return state.counts
  }

  /// A render error's message: EmbossError's text, a material's diagnostics, or the error.
  static func describe(_ error: Error) -> String {
    if let error = error as? MaterialError {
      return error.lines.joined(separator: "; ")
    }
    return "\(error)"
  }
}

/// A manifest read forward: the entry of a row, for rows asked in increasing order.
private final class ManifestCursor: @unchecked Sendable {
  private var reader: LineReader?
  private var pending: BatchManifestEntry?

  init(path: String) {
    reader = FileHandle(forReadingAtPath: path).map(LineReader.init)
  }

  /// The entry of `row`, passing over earlier rows' entries (the last of a row's wins).
  func entry(row: Int) -> BatchManifestEntry? {
    var found: BatchManifestEntry?
    while true {
      if pending == nil {
        guard let reader, let line = try? reader.next() else { return found }
        pending = try? JSONDecoder().decode(BatchManifestEntry.self, from: Data(line.utf8))
        if pending == nil { continue }
      }
      guard let next = pending, next.row <= row else { return found }
      if next.row == row { found = next }
      pending = nil
    }
  }
}

/// Stage caches for the workers: each render takes one and gives it back.
private final class CachePool: @unchecked Sendable {
  private var caches: [StageCache]
  private let lock = NSLock()

  private let disk: BallCache?

  init(count: Int, disk: BallCache?) {
    self.disk = disk
    caches = (0..<count).map { _ in StageCache(disk: disk, keepsLookupMap: false) }
  }

  func take() -> StageCache {
    lock.lock()
    defer { lock.unlock() }
    return caches.popLast() ?? StageCache(disk: disk, keepsLookupMap: false)
  }

  func give(_ cache: StageCache) {
    lock.lock()
    caches.append(cache)
    lock.unlock()
  }
}

/// One row handed to a worker: its place in the run, number, plan and last entry.
private struct BatchWork {
  var index: Int
  var row: Int
  var plan: Result<BatchRunner.Plan, EmbossError>
  var previous: BatchManifestEntry?
}

/// The rows handed out (read from the file under the lock, in order) and finished; finished
/// entries are written to the manifest in row order as soon as every row before them is.
private final class BatchState: @unchecked Sendable {
  private let lock = NSLock()
  private let rows: BatchRows
  private let shard: BatchShard?
  private let plan: (BatchRow) throws -> BatchRunner.Plan
  private let collisions: [Int: EmbossError]
  private let previous: [ManifestCursor]
  private let handle: FileHandle
  private let entry: @Sendable (BatchManifestEntry) -> Void
  private let place: ((inout BatchManifestEntry) -> Void)?
  private var handedOut = 0
  private var finished: [Int: BatchManifestEntry] = [:]
  private var written = 0
  private var done = 0
  private(set) var counts = (rendered: 0, skipped: 0, failed: 0)
  private(set) var readError: EmbossError?
  let total: Int

  init(
    rows: BatchRows, shard: BatchShard?, plan: @escaping (BatchRow) throws -> BatchRunner.Plan,
    collisions: [Int: EmbossError], previous: [ManifestCursor], total: Int, handle: FileHandle,
    entry: @escaping @Sendable (BatchManifestEntry) -> Void,
    place: ((inout BatchManifestEntry) -> Void)?
  ) {
    self.place = place
    self.rows = rows
    self.shard = shard
    self.plan = plan
    self.collisions = collisions
    self.previous = previous
    self.total = total
    self.handle = handle
    self.entry = entry
  }

  /// The next row this shard takes, planned; nil at the end.
  func next() -> BatchWork? {
    lock.lock()
    defer { lock.unlock() }
    while readError == nil {
      let row: BatchRow
      do {
        guard let next = try rows.next() else { return nil }
        row = next
      } catch let error as EmbossError {
        guard rows.isJSONLines else {
          readError = error
          return nil
        }
        guard shard?.takes(rows.rowNumber) ?? true else { continue }
        handedOut += 1
        return BatchWork(
          index: handedOut - 1, row: rows.rowNumber, plan: .failure(error), previous: nil)
      } catch {
        readError = EmbossError("\(error)")
        return nil
      }
      guard shard?.takes(row.number) ?? true else { continue }
      handedOut += 1
      let planned: Result<BatchRunner.Plan, EmbossError>
      if let collision = collisions[row.number] {
        planned = .failure(collision)
      } else {
        do {
          planned = .success(try plan(row))
        } catch let error as EmbossError {
          planned = .failure(error)
        } catch {
          planned = .failure(EmbossError("\(error)"))
        }
      }
      // Every cursor passes the row; the partial manifest's entry wins.
      let entries = previous.map { $0.entry(row: row.number) }
      let old = entries.compactMap { $0 }.first
      return BatchWork(index: handedOut - 1, row: row.number, plan: planned, previous: old)
    }
    return nil
  }

  func finish(_ index: Int, _ result: BatchManifestEntry) -> (
    done: Int, failed: Int, skipped: Int
  ) {
    lock.lock()
    defer { lock.unlock() }
    finished[index] = result
    done += 1
    while var ready = finished.removeValue(forKey: written) {
      if ready.status != .failed { place?(&ready) }
      switch ready.status {
      case .failed: counts.failed += 1
      case .skipped: counts.skipped += 1
      case .rendered: counts.rendered += 1
      }
      handle.write(Data((ready.line() + "\n").utf8))
      entry(ready)
      written += 1
    }
    return (done, counts.failed, counts.skipped)
  }
}

extension BatchManifestEntry {
  /// The entries of a sharded batch's manifests (each shard's given once), in row order.
  ///
  /// Throws when a row is in two manifests, when the manifests are of different batches
  /// (other row or shard counts, other inputs for a row), and when a row of the batch is in
  /// none (naming the missing shards).
  public static func merge(_ manifests: [String]) throws -> [BatchManifestEntry] {
    var merged: [Int: (entry: BatchManifestEntry, path: String)] = [:]
    // The batch's shard count and row count, as the first manifest that records them says.
    var batch: (shards: Int, rows: Int, path: String)? = nil
    for path in manifests {
      for entry in try readAll(path) {
        if let shards = entry.shardCount, let rows = entry.batchRows {
          if let batch, batch.shards != shards || batch.rows != rows {
            throw EmbossError(
              "'\(path)' is of a batch of \(rows) rows in \(shards) shards, '\(batch.path)' of \(batch.rows) rows in \(batch.shards): not the same batch"
            )
          }
          batch = batch ?? (shards, rows, path)
        }
        if let other = merged[entry.row] {
          if other.entry.inputs != entry.inputs, !other.entry.inputs.isEmpty, !entry.inputs.isEmpty
          {
            throw EmbossError(
              "row \(entry.row) has other inputs in '\(path)' than in '\(other.path)': not the same batch"
            )
          }
          throw EmbossError(
            "row \(entry.row) is in '\(other.path)' and again in '\(path)': give each shard's manifest once"
          )
        }
        merged[entry.row] = (entry, path)
      }
    }
    if let batch {
      let missing = batch.rows > 0 ? (1...batch.rows).filter { merged[$0] == nil } : []
      if !missing.isEmpty {
        let shards = Set(missing.map { ($0 - 1) % batch.shards }).sorted()
        let rows = missing.prefix(10).map(String.init).joined(separator: ", ")
        throw EmbossError(
          "\(missing.count) of \(batch.rows) rows are in no manifest (rows \(rows)\(missing.count > 10 ? ", ..." : "")): "
            + "missing shard\(shards.count > 1 ? "s" : "") "
            + shards.map { "\($0)/\(batch.shards)" }.joined(separator: ", "))
      }
      if let extra = merged.keys.first(where: { $0 < 1 || $0 > batch.rows }) {
        throw EmbossError(
          "row \(extra) of '\(merged[extra]?.path ?? "")' is past the batch's \(batch.rows) rows: not the same batch"
        )
      }
    }
    return merged.sorted { $0.key < $1.key }.map(\.value.entry)
  }
}
