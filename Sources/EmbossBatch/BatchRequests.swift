import EmbossKit
import Foundation

/// How a batch makes each row's request: the batch's options are every row's defaults, a
/// column named like a request option (`RenderOption`, without the dashes) sets it for its
/// row, and the templates name each row's outputs.
///
/// A `text` column is the row's text (`\n` starts a line, as on the command line); a `set`
/// column holds `;`-separated settings; a flag's column is true, 1 or yes to turn it on. A
/// row that sets its size (`size`, `height` or `cap-height`) drops the defaults' others.
/// Columns that are not an option are for the templates only.
public struct BatchRequests: Sendable {
  /// Every row's values, unless the row sets its own.
  public let defaults: [RenderRequest.Value]
  /// Each output's template, by the option that writes it (`output`, `engrave`, ...).
  public let templates: [(option: RenderOption, template: NameTemplate)]

  /// Rows with these defaults and templates.
  ///
  /// Throws when a default names an output (outputs are per row: templates), or a template
  /// is for an option that is not an output; the picture's template (`output`) is needed.
  public init(
    defaults: [RenderRequest.Value], templates: [(option: RenderOption, template: NameTemplate)]
  ) throws(EmbossError) {
    let outputs = RenderOption.all.filter { $0.scope == .output }
    if let output = defaults.first(where: { $0.option.scope == .output }) {
      throw EmbossError(
        "\(output.option) is per row in a batch: give "
          + outputs.map { "--\($0 == .output ? "name" : $0.key)" }.joined(separator: ", ")
          + " templates")
    }
    if let wrong = templates.first(where: { $0.option.scope != .output }) {
      throw EmbossError("\(wrong.option) is not an output: it cannot have a template")
    }
    guard templates.contains(where: { $0.option == .output }) else {
      throw EmbossError("a batch needs the picture's template")
    }
    self.defaults = defaults
    self.templates = templates
  }

  /// The values a row gives: the defaults (less the sizing ones when the row sizes itself),
  /// then its columns in the order of their names, then its outputs.
  public func values(for row: BatchRow) throws -> [RenderRequest.Value] {
    let sized = RenderOption.sizing.contains {
      !(row.values[$0.key]?.trimmingCharacters(in: .whitespaces).isEmpty ?? true)
    }
    var values = defaults.filter { !sized || !RenderOption.sizing.contains($0.option) }
    for (column, value) in row.values.sorted(by: { $0.key < $1.key }) where column != "text" {
      values += try Self.values(column: column, value: value)
    }
    for (option, template) in templates {
      values.append(RenderRequest.Value(option, try template.path(for: row)))
    }
    return values
  }

  /// The row's request, checked.
  public func request(for row: BatchRow) throws -> RenderRequest {
    let values = try values(for: row)
    do {
      return try RenderRequest(text: row.values["text"].map(TextMask.unescaped), values: values)
    } catch {
      throw EmbossError(error.description)
    }
  }

  /// The values a column gives its row: none for a data column (one that is not an option)
  /// or an empty value.
  public static func values(column: String, value: String) throws(EmbossError)
    -> [RenderRequest.Value]
  {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if ["o", "watch"].contains(column) || RenderOption.named(column)?.scope == .output {
      throw EmbossError("column '\(column)' cannot set a row's outputs (use the batch's templates)")
    }
    guard let option = RenderOption.named(column) else { return [] }
    switch option.kind {
    case .list:
      return trimmed.split(separator: ";").map {
        RenderRequest.Value(option, $0.trimmingCharacters(in: .whitespaces))
      }
    case .flag:
      guard let on = RenderOption.flagValue(trimmed) else {
        throw EmbossError(
          "column '\(column)' is a flag: true/false, 1/0 or yes/no, got '\(value)'")
      }
      return trimmed.isEmpty ? [] : [RenderRequest.Value(option, String(on))]
    case .value:
      return trimmed.isEmpty ? [] : [RenderRequest.Value(option, value)]
    }
  }
}

extension BatchRunner {
  /// Runs every row as a request: each row's request is checked (a bad row fails alone),
  /// its files named by the templates, its inputs hashed with the contents of every file it
  /// reads, and rendered with a worker's cache; the rows' directories are made as needed.
  ///
  /// `entry` gets each row's manifest entry in row order; `place` may fill in an entry's
  /// placement (a gang sheet's) before it is written.
  public func run(
    requests: BatchRequests, resources: Resources,
    progress: @escaping @Sendable (Progress) -> Void,
    entry: @escaping @Sendable (BatchManifestEntry) -> Void,
    place: ((inout BatchManifestEntry) -> Void)? = nil
  ) throws -> (rendered: Int, skipped: Int, failed: Int) {
    let version = self.version
    return try run(
      plan: { row in
        let request = try requests.request(for: row)
        return Plan(
          request: request, outputs: requests.templates.compactMap { request.value($0.option) })
      },
      prepare: { plan in
        let resolved = try plan.request.resolve(resources: resources, parallelism: .serial)
        return Prepared(digest: resolved.digest(version: version)) { cache in
          for output in plan.outputs {
            let directory = URL(fileURLWithPath: output).deletingLastPathComponent()
            try FileManager.default.createDirectory(
              at: directory, withIntermediateDirectories: true)
          }
          let job = resolved.job
          try job.write(try job.run(resources: resources, cache: cache))
        }
      },
      progress: progress, entry: entry, place: place)
  }
}
