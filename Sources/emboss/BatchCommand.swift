import ArgumentParser
import CSupport
import EmbossBatch
import EmbossKit
import Foundation

struct BatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "batch",
    abstract: "Render every row of a CSV or JSON Lines file (emboss batch ROWS --name T ...).",
    discussion: ExitStatus.paragraph("batch"),
    subcommands: [BatchRunCommand.self, BatchMergeCommand.self],
    defaultSubcommand: BatchRunCommand.self)
}

struct BatchRunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Render every row of a CSV or JSON Lines file (the default: 'run' may be left out).",
    discussion: """
      Each row is one render. The column `text` is the text (or give a `mask` column); a \
      column named like a render option (`material`, `font`, `size`, `height`, `dither`, \
      `set`, ... without the dashes) sets that option for its row (several `set` values are \
      separated by `;`; a flag column is true, 1 or yes to turn it on). Render options \
      given on this command line after the rows file are every row's defaults (a row's \
      `size`, `height` or `cap-height` replaces all three). Other columns are for the name \
      templates only.

      Templates: `{column}` is the row's value made a safe file name, `{row}` the row \
      number (`{row:04}` zero-padded). Outputs that two rows would share are refused \
      before anything is rendered.

      The manifest (JSON Lines, default ROWS.manifest.jsonl) records every row: status \
      (rendered, skipped, failed), a hash of its inputs, each output's path and SHA-256, \
      the error and the time. A rerun skips rows whose outputs are still as the manifest \
      says and whose inputs did not change, so a batch stopped at any point resumes. Rows \
      run in parallel on all cores.
      """ + "\n\n" + ExitStatus.paragraph("batch run"))

  @Argument(
    help: ArgumentHelp(
      "The rows: CSV with a header row, or JSON Lines (.jsonl).", valueName: "rows"),
    completion: .file(extensions: ["csv", "jsonl", "ndjson"]))
  var rows: String

  @Option(
    help: ArgumentHelp(
      "Each row's picture: a path template such as 'out/{row:04}-{text}.png'.",
      valueName: "template"))
  var name: String

  @Option(
    help: ArgumentHelp("Each row's 1-bit engrave bitmap (a template).", valueName: "template"))
  var engrave: String?

  @Option(
    help: ArgumentHelp(
      "Each row's SVG with the cut line (a template; needs --dpi).", valueName: "template"))
  var svg: String?

  @Option(
    name: .customLong("depth-map"),
    help: ArgumentHelp("Each row's depth map (a template).", valueName: "template"))
  var depthMap: String?

  @Option(
    help: ArgumentHelp(
      "Each row's 3D model, .stl or .3mf (a template; needs --dpi).", valueName: "template"))
  var mesh: String?

  @Option(
    help: ArgumentHelp(
      "Pack the rows' SVGs (engraving and cut line) onto sheets of this size, as on a laser bed: 600x400mm, 24x12in (needs --svg).",
      valueName: "WxH"), transform: CanvasArgument.argument)
  var sheet: CanvasArgument?

  @Option(
    help: ArgumentHelp(
      "Space between the rows on a sheet and from its edges.", valueName: "length"),
    transform: Length.argument)
  var gap: Length = Length(value: 5, unit: .mm)

  @Option(
    name: .customLong("sheet-name"),
    help: ArgumentHelp(
      "Each sheet's SVG (its PNG preview beside it): a template with {sheet} (and {shard}). Default: sheets/sheet-{sheet:03}.svg, with -{shard} before the number when sharded.",
      valueName: "template"))
  var sheetName: String?

  @Option(
    help: ArgumentHelp("The manifest (default: ROWS.manifest.jsonl).", valueName: "file"),
    completion: manifestCompletion)
  var manifest: String?

  @Option(
    help: ArgumentHelp(
      "Only the rows of shard I of N (0-based): row r when (r - 1) % N == I. 'auto' reads the index from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX.",
      valueName: "I/N|auto"))
  var shard: String?

  @Option(name: .customLong("shard-count"), help: "The number of shards, for --shard auto.")
  var shardCount: Int?

  @Flag(help: "No progress lines.")
  var quiet = false

  @Option(help: "Rows rendered at once (default: all cores).")
  var threads: Int?

  @OptionGroup var cache: CacheOption

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("Render options for every row, as for emboss render.", valueName: "options"))
  var renderOptions: [String] = []

  /// Templates, parsed once (argument errors: exit 64).
  private func templates() throws -> [(option: RenderOption, template: NameTemplate)] {
    var out = [(RenderOption.output, try NameTemplate(name, option: "--name"))]
    for (option, template) in [
      (RenderOption.engrave, engrave), (.svg, svg), (.depthMap, depthMap), (.mesh, mesh),
    ] {
      if let template { out.append((option, try NameTemplate(template, option: "\(option)"))) }
    }
    return out
  }

  /// Every row's defaults: the render options after the rows file, checked as `emboss
  /// render` checks them (they must make a valid render on their own).
  private func defaults() throws -> [RenderRequest.Value] {
    let command: RenderCommand
    do {
      command = try RenderCommand.parse(["x"] + renderOptions + ["-o", "x.png"])
    } catch {
      throw ValidationError("render options: \(RenderCommand.message(for: error))")
    }
    return requestValues(of: command).filter { $0.option.scope == .request }
  }

  func validate() throws {
    do {
      _ = try templates()
      _ = try shard.map {
        try BatchShard($0, count: shardCount, environment: ProcessInfo.processInfo.environment)
      }
    } catch let error as EmbossError {
      throw ValidationError(error.message)
    }
    if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    if sheet != nil {
      guard svg != nil else {
        throw ValidationError("--sheet packs the rows' SVGs: give an --svg template too")
      }
      _ = try sheetSize()
      do { _ = try sheetNames() } catch let error as EmbossError {
        throw ValidationError(error.message)
      }
    } else if sheetName != nil {
      throw ValidationError("--sheet-name needs --sheet")
    }
    for option in [
      "-o", "--output", "--engrave", "--svg", "--depth-map", "--mesh", "--watch", "--save-stages",
    ]
    where renderOptions.contains(option) {
      throw ValidationError(
        "\(option) is per row in a batch: give --name, --engrave, --svg, --depth-map or --mesh templates"
      )
    }
    _ = try defaults()
  }

  /// The sheet's size and the gap, in millimeters.
  private func sheetSize() throws -> (width: Double, height: Double, gap: Double)? {
    guard let sheet else { return nil }
    var (w, h) = (sheet.width, sheet.height)
    // "600x400mm": the unit written once is both sides'.
    if w.unit == .px, h.isPhysical { w.unit = h.unit }
    if h.unit == .px, w.isPhysical { h.unit = w.unit }
    guard w.isPhysical, h.isPhysical, gap.isPhysical || gap.value == 0 else {
      throw ValidationError("--sheet and --gap are lengths on the laser bed: mm, cm, in or pt")
    }
    // At 25.4 "pixels" per inch, a pixel is a millimeter.
    let mm = { (length: Length) in length.pixels(dpi: 25.4) ?? 0 }
    guard mm(gap) >= 0, mm(w) > 2 * mm(gap), mm(h) > 2 * mm(gap) else {
      throw ValidationError("--sheet \(w)x\(h) leaves no room inside its --gap \(gap)")
    }
    return (mm(w), mm(h), mm(gap))
  }

  private func sheetNames() throws -> NameTemplate {
    let sharded = shard != nil
    let template = try NameTemplate(
      sheetName
        ?? (sharded ? "sheets/sheet-{shard}-{sheet:03}.svg" : "sheets/sheet-{sheet:03}.svg"),
      option: "--sheet-name")
    for field in template.fields where field != "sheet" && field != "shard" {
      throw EmbossError("--sheet-name: {\(field)} is not a sheet's field ({sheet}, {shard})")
    }
    guard template.fields.contains("sheet") else {
      throw EmbossError("--sheet-name needs {sheet}: every sheet would write the same file")
    }
    return template
  }

  func run() throws {
    let resources = try Resources.locate()
    let templates = try templates()
    let shard = try shard.map {
      try BatchShard($0, count: shardCount, environment: ProcessInfo.processInfo.environment)
    }
    let workers = threads ?? ProcessInfo.processInfo.activeProcessorCount
    var runner = BatchRunner(
      rowsPath: rows, manifestPath: manifest ?? rows + ".manifest.jsonl", shard: shard,
      workers: workers, version: Emboss.configuration.version)
    runner.ballCache = cache.ballCache
    let reporter = ProgressReporter(quiet: quiet)
    // Any other error is printed by the caller, after the progress line is gone.
    defer { reporter.finish() }
    // The sheets: rows placed in row order as their manifest lines are written.
    let packer = try sheetSize().map {
      GangSheetPacker(
        width: $0.width, height: $0.height, gap: $0.gap, names: try sheetNames(),
        shard: shard?.index)
    }
    // A template naming a column the CSV header lacks fails every row: an argument error,
    // found before any row renders. (A file that cannot be read fails in the run, exit 2;
    // JSON Lines rows name their own keys.)
    if let header = try? BatchRows(path: rows, checkQuoting: false), !header.isJSONLines {
      for (option, template) in templates {
        for field in template.fields where field != "row" && !header.columns.contains(field) {
          throw ValidationError(
            "\(option == .output ? "--name" : "\(option)") '\(template.template)': '{\(field)}' is not a column of '\(rows)' (its columns: \(header.columns.filter { !$0.isEmpty }.joined(separator: ", ")))"
          )
        }
      }
    }
    let svgIndex = templates.firstIndex { $0.option == .svg }
    let requests = try BatchRequests(defaults: try defaults(), templates: templates)
    let counts: (rendered: Int, skipped: Int, failed: Int)
    do {
      counts = try runner.run(
        requests: requests, resources: resources,
        progress: { reporter.report($0) },
        entry: { entry in
          guard entry.status == .failed else { return }
          reporter.printAbove("error: row \(entry.row): \(entry.error ?? "failed")")
        },
        place: packer.map { packer in
          { entry in
            guard let svgIndex, svgIndex < entry.outputs.count else { return }
            do {
              let spot = try packer.place(row: entry.row, svgPath: entry.outputs[svgIndex].path)
              (entry.sheet, entry.x, entry.y) = (spot.sheet, spot.x, spot.y)
            } catch let error as EmbossError {
              entry.status = .failed
              entry.error = "sheet: " + error.message
            } catch {
              entry.status = .failed
              entry.error = "sheet: \(error)"
            }
          }
        })
      try packer?.flush()
    } catch let error as EmbossError {
      reporter.finish()
      printError("error: \(error.message)")
      throw ExitCode(2)
    }
    reporter.finish()
    if !quiet {
      printError(
        "batch: \(counts.rendered) rendered, \(counts.skipped) already there, \(counts.failed) failed; manifest \(manifest ?? rows + ".manifest.jsonl")"
      )
    }
    if counts.failed > 0 { throw ExitCode(1) }
  }
}

/// Progress on standard error, as progress bars do it.
///
/// On a terminal: one line redrawn in place (a carriage return and an erase of the line),
/// cut to the terminal's width so it never wraps, taken off the screen before any other
/// line (an error, drawn above it) and at the end, so the summary starts on a clean line.
/// Elsewhere (a pipe, a job's log): no control characters, a plain `batch: ...` line every
/// two seconds and nothing more. Nothing with --quiet (errors are still printed).
final class ProgressReporter: @unchecked Sendable {
  /// Back to the start of the line and erase it: a carriage return and ANSI's erase in line.
  static let clearLine = "\r\u{1B}[K"

  private let quiet: Bool
  private let terminal: Bool
  /// The terminal's width, when known.
  private let columns: Int?
  private let write: @Sendable (String) -> Void
  private let lock = NSLock()
  private var lastLine = 0.0
  /// The progress line as last drawn, while it is on the screen.
  private var drawn: String?

  /// A reporter that writes with `write` (standard error), drawing in place when `terminal`
  /// (standard error is one) on lines of at most `columns` (the terminal's width) characters.
  init(
    quiet: Bool, terminal: Bool = isatty(STDERR_FILENO) == 1,
    columns: Int? = ProgressReporter.standardErrorColumns,
    write: @escaping @Sendable (String) -> Void = {
      StandardStream.writeError($0, newline: false)
    }
  ) {
    self.quiet = quiet
    self.terminal = terminal
    self.columns = columns
    self.write = write
  }

  /// Standard error's terminal width, when it is a terminal that says.
  static var standardErrorColumns: Int? {
    let columns = Int(emboss_terminal_columns(STDERR_FILENO))
    return columns > 0 ? columns : nil
  }

  /// Shows `progress`: at most ten times a second on a terminal (and the last row), every two
  /// seconds elsewhere (where the summary tells the end).
  func report(_ progress: BatchRunner.Progress) {
    guard !quiet else { return }
    lock.withLock {
      let last = progress.done == progress.total && terminal
      guard last || progress.seconds - lastLine >= (terminal ? 0.1 : 2) else { return }
      lastLine = progress.seconds
      if terminal {
        draw(Self.bar(progress) + " " + Self.text(progress))
      } else {
        write("batch: \(Self.text(progress))\n")
      }
    }
  }

  /// A line (an error) printed above the progress line, which is drawn again under it.
  func printAbove(_ line: String) {
    lock.withLock {
      guard let drawn else {
        write(line + "\n")
        return
      }
      write(Self.clearLine + line + "\n")
      draw(drawn)
    }
  }

  /// Takes the progress line off the screen, for the summary or an error.
  ///
  /// The cursor is left at the start of the empty line. Does nothing when no line is drawn.
  func finish() {
    lock.withLock {
      if drawn != nil { write(Self.clearLine) }
      drawn = nil
    }
  }

  /// Draws `line` over the one on the screen, cut to the terminal's width less a column (a
  /// line that fills the last column wraps on some terminals).
  private func draw(_ line: String) {
    let fitted = columns.map { String(line.prefix(max($0 - 1, 0))) } ?? line
    write(Self.clearLine + fitted)
    drawn = fitted
  }

  /// `[#######.......]`: the rows done, out of 30.
  static func bar(_ progress: BatchRunner.Progress) -> String {
    let width = 30
    let filled = progress.total > 0 ? width * progress.done / progress.total : width
    return "[" + String(repeating: "#", count: filled)
      + String(repeating: ".", count: width - filled) + "]"
  }

  /// `12/40 rows, 1 failed, 6.0 rows/s, ETA 5 s`.
  static func text(_ progress: BatchRunner.Progress) -> String {
    let rate = progress.seconds > 0 ? Double(progress.done) / progress.seconds : 0
    let left = rate > 0 ? Double(progress.total - progress.done) / rate : 0
    return String(
      format: "%d/%d rows, %d failed, %.1f rows/s, ETA %.0f s", progress.done, progress.total,
      progress.failed, rate, left)
  }
}

struct BatchMergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge the manifests of a batch's shards into one, in row order.",
    discussion: """
      Every shard's manifest must be given, each once: merge checks that every row of the \
      batch is there exactly once (manifests record their shard and the batch's row count).
      """ + "\n\n" + ExitStatus.paragraph("batch merge"))

  @Argument(
    help: ArgumentHelp("The shards' manifests.", valueName: "manifest"),
    completion: manifestCompletion)
  var manifests: [String]

  @Option(
    name: .shortAndLong, help: ArgumentHelp("The merged manifest.", valueName: "file"),
    completion: manifestCompletion)
  var output: String

  func validate() throws {
    guard !manifests.isEmpty else { throw ValidationError("give at least one manifest") }
  }

  func run() throws {
    let merged = try BatchManifestEntry.merge(manifests)
    let text = merged.map { $0.line() + "\n" }.joined()
    try OutputFile.write(Data(text.utf8), to: output)
  }
}
