import ArgumentParser
import EmbossKit
import Foundation

struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Time the pipeline on standard cases and print per-stage times.",
    discussion: """
      Cases (those of bench/peers.py): A "Hello, World" at 128 px in 1000x200; B "EMBOSS" \
      at 512 px in 2600x700; C "Ag" at 1200 px in 4096x4096. Each case is first run as \
      whole `emboss render` processes (PNG written to a temporary file; median wall time, \
      and peak memory from the kernel), then in this process, stage by stage. Build with \
      -c release for meaningful figures.
      """ + "\n\n" + ExitStatus.paragraph("bench"))

  @Flag(
    help: "Also time a light change re-rendered with the stage cache (case B), as --watch does.")
  var relight = false

  @Flag(
    help:
      "Also time engraving case C's 4096x4096 PNG (read from a file, as emboss engrave does) with threshold and floyd-steinberg, and each case's render with --engrave against without."
  )
  var engrave = false

  @Option(
    name: .customLong("batch"),
    help: ArgumentHelp(
      "Also time N names at 128 px through one emboss batch against N emboss render processes.",
      valueName: "N"))
  var batchRows: Int?

  @Option(help: "Cases to run: any of A, B, C.")
  var cases: String = "ABC"

  @Option(help: "Renders per case; the median is reported.")
  var iterations: Int = 5

  @Option(help: "PNG compression level for the PNG stage (1-3 igzip, 4-9 zlib).")
  var compression: Int = PNGCodec.defaultCompression

  @Option(help: "Threads (default: all cores).")
  var threads: Int?

  func validate() throws {
    guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
    if let batchRows, batchRows < 1 { throw ValidationError("--batch must be at least 1") }
    guard (0...9).contains(compression) else {
      throw ValidationError("--compression must be in 0...9")
    }
  }

  func run() throws {
    let resources = try Resources.locate()
    let parallelism = threads.map { Parallelism(threads: $0) } ?? .allCores
    try printLine(
      "threads: \(parallelism.threads), compression: \(compression), iterations: \(iterations)")
    // Whole processes first, while this one is small (a child's peak counts this process's
    // memory until it executes).
    try wholeProcessBenchmark(threads: parallelism.threads)
    for name in cases.uppercased() {
      let benchCase = try BenchmarkCase.named(String(name))
      let job = benchCase.job(compression: compression, parallelism: parallelism)
      var runs: [StageTimings] = []
      var output: RenderJob.Output? = nil
      for _ in 0..<iterations {
        let result = try job.run(resources: resources)
        runs.append(result.timings)
        output = result
      }
      guard let output else { continue }
      let pixels = output.result.picture.width * output.result.picture.height
      try printLine(
        "\ncase \(name): \(benchCase.title), \(output.result.picture.width)x\(output.result.picture.height), PNG \(output.png.count / 1024) KiB"
      )
      for (index, stage) in runs[0].stages.enumerated() {
        let times = runs.map { $0.stages[index].seconds }.sorted()
        try printLine(String(format: "  %-14@ %8.2f ms", stage.name, times[times.count / 2] * 1000))
      }
      let totals = runs.map(\.total).sorted()
      try printLine(
        String(
          format: "  %-14@ %8.2f ms (median; min %.2f ms)", "total",
          totals[totals.count / 2] * 1000, totals[0] * 1000))
      let peak = peakResidentBytes()
      try printLine(
        String(
          format: "  peak memory so far: %.1f MiB, %.1f bytes per output pixel",
          Double(peak) / 1_048_576, Double(peak) / Double(pixels)))
    }
    if relight { try relightBenchmark(resources: resources, parallelism: parallelism) }
    if engrave { try engraveBenchmark(resources: resources, parallelism: parallelism) }
  }

  /// Case C's render written to a temporary PNG, then engraved from the file as
  /// `emboss engrave` does: decoding, gray, bits and the 1-bit PNG.
  private func engraveBenchmark(resources: Resources, parallelism: Parallelism) throws {
    let job = try BenchmarkCase.named("C").job(compression: compression, parallelism: parallelism)
    let png = try job.run(resources: resources).png
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-bench-\(getpid()).png").path
    try png.write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    try printLine("\nengrave: case C's PNG (4096x4096, \(png.count / 1024) KiB), from the file")
    for method in [DitherMethod.threshold, .floydSteinberg] {
      var bitsTimes: [Double] = []
      var encodeTimes: [Double] = []
      for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        let bits = try Engrave.bitmap(
          png: PNGRowReader(path: path), options: try EngraveOptions(method: method),
          parallelism: parallelism)
        let middle = DispatchTime.now().uptimeNanoseconds
        _ = try Engrave.png(bits, pixelsPerMeter: 0)
        let end = DispatchTime.now().uptimeNanoseconds
        bitsTimes.append(Double(middle - start) / 1e6)
        encodeTimes.append(Double(end - middle) / 1e6)
      }
      bitsTimes.sort()
      encodeTimes.sort()
      try printLine(
        String(
          format: "  %-16@ read and bits %8.2f ms, 1-bit PNG %6.2f ms (medians)",
          method.rawValue, bitsTimes[bitsTimes.count / 2], encodeTimes[encodeTimes.count / 2]))
    }
  }

  /// Case B rendered from scratch, then again after a light change with the stage cache:
  /// only the shading image and the composite should run.
  private func relightBenchmark(resources: Resources, parallelism: Parallelism) throws {
    let benchCase = try BenchmarkCase.named("B")
    var job = benchCase.job(compression: compression, parallelism: parallelism)
    var full: [StageTimings] = []
    var relit: [StageTimings] = []
    // Each iteration starts from an empty cache: a full render, a first light change (which
    // also finds which ball pixels the composite reads) and a second one, as in --watch.
    var first: [StageTimings] = []
    for iteration in 0..<iterations {
      let cache = StageCache()
      job.settings = []
      full.append(try job.run(resources: resources, cache: cache).timings)
      job.settings = [MaterialSetting(set: "lights[0].intensity=\(0.5 + Double(iteration) * 0.01)")]
      first.append(try job.run(resources: resources, cache: cache).timings)
      job.settings = [MaterialSetting(set: "lights[0].intensity=\(0.6 + Double(iteration) * 0.01)")]
      relit.append(try job.run(resources: resources, cache: cache).timings)
    }
    func median(_ runs: [StageTimings], excluding: Set<String>) -> Double {
      let totals = runs.map {
        $0.stages.filter { !excluding.contains($0.name) }.reduce(0) { $0 + $1.seconds }
      }.sorted()
      return totals[totals.count / 2] * 1000
    }
    try printLine("\nrelight: case B, lights[0].intensity changed, stage cache kept")
    try printLine("  stages re-run: \(relit[0].stages.map(\.name).joined(separator: ", "))")
    for (index, stage) in relit[0].stages.enumerated() {
      let times = relit.map { $0.stages[index].seconds }.sorted()
      try printLine(String(format: "    %-14@ %8.2f ms", stage.name, times[times.count / 2] * 1000))
    }
    let io: Set<String> = ["material", "png encode"]
    try printLine(
      String(format: "  first light change (render stages): %.2f ms", median(first, excluding: io)))
    let fullRender = median(full, excluding: io)
    let relitRender = median(relit, excluding: io)
    try printLine(
      String(
        format: "  render stages: full %.2f ms, relight %.2f ms, ratio %.3f", fullRender,
        relitRender, relitRender / fullRender))
    let fullAll = median(full, excluding: [])
    let relitAll = median(relit, excluding: [])
    try printLine(
      String(
        format: "  with material load and PNG encode: full %.2f ms, relight %.2f ms, ratio %.3f",
        fullAll, relitAll, relitAll / fullAll))
  }

  /// Each case as `iterations` runs of `emboss render` (and, with `--engrave`, of `emboss
  /// engrave` on case C's picture): median wall time and peak memory per output pixel.
  private func wholeProcessBenchmark(threads: Int) throws {
    let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let common = ["--compression", "\(compression)", "--threads", "\(threads)"]
    func measure(_ title: String, _ arguments: [String], pixels: Int) throws {
      var runs: [ChildRun] = []
      for _ in 0..<iterations {
        let run = try ChildProcess.run(executable, arguments)
        guard run.status == 0 else {
          throw EmbossError(
            "'emboss \(arguments.joined(separator: " "))' exited with \(run.status)")
        }
        runs.append(run)
      }
      let times = runs.map(\.seconds).sorted()
      let peaks = runs.map(\.peakBytes).sorted()
      let peak = Double(peaks[peaks.count / 2])
      try printLine(
        String(
          format: "  %@ %8.1f ms (median; min %.1f ms), peak %.1f MiB, %.1f bytes per pixel",
          title.padding(toLength: 28, withPad: " ", startingAt: 0), times[times.count / 2] * 1000,
          times[0] * 1000, peak / 1_048_576,
          peak / Double(pixels)))
    }
    try printLine("\nwhole process (emboss render, PNG written to a file):")
    for name in cases.uppercased() {
      let benchCase = try BenchmarkCase.named(String(name))
      let output = directory.appendingPathComponent("\(name).png").path
      try measure(
        "case \(name)", ["render"] + benchCase.arguments + ["-o", output] + common,
        pixels: benchCase.canvas.map { $0.width * $0.height } ?? 1)
    }
    if let batchRows {
      try batchBenchmark(
        rows: batchRows, executable: executable, directory: directory, threads: threads)
    }
    guard engrave else { return }
    // What an engraving beside the picture costs: each case with and without
    // `--engrave`, the runs alternated so that a change in the machine's load falls on both.
    try printLine("\nrender --engrave against render (alternated runs, medians):")
    for name in cases.uppercased() {
      let benchCase = try BenchmarkCase.named(String(name))
      let plain =
        ["render"] + benchCase.arguments + ["-o", directory.appendingPathComponent("p.png").path]
        + common
      let engraved = plain + ["--engrave", directory.appendingPathComponent("e.png").path]
      var times: ([Double], [Double]) = ([], [])
      for _ in 0..<iterations {
        for (index, arguments) in [plain, engraved].enumerated() {
          let run = try ChildProcess.run(executable, arguments)
          guard run.status == 0 else {
            throw EmbossError(
              "'emboss \(arguments.joined(separator: " "))' exited with \(run.status)")
          }
          if index == 0 { times.0.append(run.seconds) } else { times.1.append(run.seconds) }
        }
      }
      let medians = [times.0, times.1].map { $0.sorted()[$0.count / 2] * 1000 }
      try printLine(
        String(
          format: "  case %@: render %.1f ms, with --engrave %.1f ms: %+.0f%%", String(name),
          medians[0], medians[1], (medians[1] / medians[0] - 1) * 100))
    }
    let picture = directory.appendingPathComponent("C.png").path
    let benchCase = try BenchmarkCase.named("C")
    if !FileManager.default.fileExists(atPath: picture) {
      let run = try ChildProcess.run(
        executable, ["render"] + benchCase.arguments + ["-o", picture] + common)
      guard run.status == 0 else { throw EmbossError("rendering case C exited with \(run.status)") }
    }
    let pixels = benchCase.canvas.map { $0.width * $0.height } ?? 1
    for method in [DitherMethod.threshold, .floydSteinberg] {
      try measure(
        "engrave C, \(method.rawValue)",
        [
          "engrave", picture, "--dither", method.rawValue, "-o",
          directory.appendingPathComponent("engraved.png").path,
        ],
        pixels: pixels)
    }
  }

  /// `rows` names at 128 px: one `emboss batch` process against one `emboss render` process
  /// per name, run one after another as a shell loop would.
  private func batchBenchmark(rows: Int, executable: String, directory: URL, threads: Int) throws {
    let names = ["Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Frances", "Niklaus"]
    let csv = "text\n" + (0..<rows).map { "\(names[$0 % names.count]) \($0 + 1)\n" }.joined()
    let rowsPath = directory.appendingPathComponent("names.csv").path
    try Data(csv.utf8).write(to: URL(fileURLWithPath: rowsPath))
    let batchFolder = directory.appendingPathComponent("batch").path
    let batch = try ChildProcess.run(
      executable,
      [
        "batch", rowsPath, "--name", batchFolder + "/{row}.png", "--size", "128", "--quiet",
        "--threads", "\(threads)", "--manifest", directory.appendingPathComponent("m.jsonl").path,
      ])
    guard batch.status == 0 else { throw EmbossError("emboss batch exited with \(batch.status)") }
    let start = DispatchTime.now().uptimeNanoseconds
    for row in 0..<rows {
      let run = try ChildProcess.run(
        executable,
        [
          "render", "\(names[row % names.count]) \(row + 1)", "--size", "128", "-o",
          directory.appendingPathComponent("single.png").path,
        ])
      guard run.status == 0 else { throw EmbossError("emboss render exited with \(run.status)") }
    }
    let separate = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    try printLine(
      String(
        format:
          "  %@ batch %.2f s (%.1f rows/s, peak %.0f MiB); %d render processes %.2f s; batch %.1fx faster",
        "\(rows) names at 128 px:".padding(toLength: 28, withPad: " ", startingAt: 0),
        batch.seconds, Double(rows) / batch.seconds, Double(batch.peakBytes) / 1_048_576, rows,
        separate, separate / batch.seconds))
  }

  private func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
  }
}

struct BenchmarkCase {
  var title: String
  var text: String
  var size: Float
  var canvas: CanvasSize?

  /// The case as `emboss render` arguments (before `-o`).
  var arguments: [String] {
    [text, "--size", "\(Int(size))"]
      + (canvas.map { ["--canvas", "\($0.width)x\($0.height)"] } ?? [])
  }

  /// The case's render, its PNG written to standard output (kept in memory by the bench).
  func job(compression: Int, parallelism: Parallelism) -> RenderJob {
    RenderJob(
      mask: .text(TextMask(text: text, style: TextStyle(pixelSize: size), canvas: canvas)),
      output: OutputPlan(image: "-", compression: compression), parallelism: parallelism)
  }

  static func named(_ name: String) throws -> BenchmarkCase {
    switch name {
    case "A":
      return BenchmarkCase(
        title: "\"Hello, World\" at 128 px in 1000x200", text: "Hello, World", size: 128,
        canvas: CanvasSize(width: 1000, height: 200))
    case "B":
      return BenchmarkCase(
        title: "\"EMBOSS\" at 512 px in 2600x700", text: "EMBOSS", size: 512,
        canvas: CanvasSize(width: 2600, height: 700))
    case "C":
      return BenchmarkCase(
        title: "\"Ag\" at 1200 px in 4096x4096", text: "Ag", size: 1200,
        canvas: CanvasSize(width: 4096, height: 4096))
    default: throw ValidationError("unknown case '\(name)'; cases are A, B and C")
    }
  }
}
