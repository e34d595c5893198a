import ArgumentParser
import EmbossKit
import Foundation

struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render text embossed in a material.",
    discussion:
      "In the text, \\n starts a new line and \\\\ is one backslash (C:\\\\new is C:\\new). A text file's newlines are real.\n\n"
      + ExitStatus.paragraph("render")
  )

  @Argument(help: "The text to emboss (ignored with --mask).")
  var text: String?

  @Option(name: .long(.textFile), help: .option(.textFile), completion: .option(.textFile))
  var textFile: String?

  @OptionGroup var output: OutputOptions

  @Option(name: .long(.font), help: .option(.font), completion: .option(.font))
  var font: String?

  @Option(name: .long(.faceIndex), help: .option(.faceIndex)) var faceIndex: String?

  @Option(name: .long(.features), help: .option(.features)) var features: String?

  @Option(name: .long(.variations), help: .option(.variations)) var variations: String?

  @Option(
    name: .long(.textDirection), help: .option(.textDirection))
  var textDirection: TextDirection = .auto

  @Option(name: .long(.textCase), help: .option(.textCase), completion: .option(.textCase))
  var textCase: String?

  @Flag(name: .long(.noFallback), help: .option(.noFallback)) var noFallback = false

  @Option(name: .long(.size), help: .option(.size)) var size: String?

  @Option(name: .long(.height), help: .option(.height)) var height: String?

  @Option(name: .long(.capHeight), help: .option(.capHeight)) var capHeight: String?

  @OptionGroup var resolution: ResolutionOption

  @Option(name: .long(.mask), help: .option(.mask), completion: .option(.mask))
  var mask: String?

  @Option(name: .long(.maskMode), help: .option(.maskMode))
  var maskMode: MaskMode = .threshold

  @Option(name: .long(.maskThreshold), help: .option(.maskThreshold))
  var maskThreshold: String = RenderOption.maskThreshold.defaultValue ?? "128"

  @Flag(name: .long(.invertMask), help: .option(.invertMask)) var invertMask = false

  @Option(name: .long(.align), help: .option(.align))
  var align: TextAlignment = .center

  @Option(
    name: .long(.letterSpacing), parsing: .unconditional, help: .option(.letterSpacing),
    transform: { $0 })
  var letterSpacing: String = RenderOption.letterSpacing.defaultValue ?? "0"

  @Option(name: .long(.lineHeight), help: .option(.lineHeight))
  var lineHeight: String = RenderOption.lineHeight.defaultValue ?? "1.0"

  @Option(name: .long(.padding), help: .option(.padding)) var padding: String?

  @Option(name: .long(.canvas), help: .option(.canvas)) var canvas: String?

  @OptionGroup(title: "Material") var material: MaterialOptions

  @OptionGroup(title: "Relief and composite") var relief: ReliefOptions

  @OptionGroup(title: "Key light") var light: LightOptions

  @OptionGroup var threads: ThreadOptions

  @OptionGroup var cache: CacheOption

  @Option(
    name: .long(.shadingImage), help: .option(.shadingImage),
    completion: .option(.shadingImage))
  var shadingImage: String?

  @Option(name: .long(.engrave), help: .option(.engrave), completion: .option(.engrave))
  var engrave: String?

  @OptionGroup(title: "Engrave bitmap") var engraving: EngraveArguments

  @OptionGroup var messages: QuietOption

  @Option(name: .long(.depthMap), help: .option(.depthMap), completion: .option(.depthMap))
  var depthMap: String?

  @Option(name: .long(.depthMapBits), help: .option(.depthMapBits))
  var depthMapBits: BitDepth = .sixteen

  @Flag(name: .long(.depthMapInvert), help: .option(.depthMapInvert)) var depthMapInvert = false

  @Option(name: .long(.svg), help: .option(.svg), completion: .option(.svg)) var svg: String?

  @Option(
    name: .long(.cutOffset), parsing: .unconditional, help: .option(.cutOffset), transform: { $0 })
  var cutOffset: String = RenderOption.cutOffset.defaultValue ?? "0"

  @Option(name: .long(.cutJoin), help: .option(.cutJoin))
  var cutJoin: CutLine.Join = .round

  @Flag(name: .long(.cutOuter), help: .option(.cutOuter)) var cutOuter = false

  @Option(name: .long(.cutMinSize), help: .option(.cutMinSize), transform: { $0 })
  var cutMinSize: String = RenderOption.cutMinSize.defaultValue ?? "0"

  @Option(name: .long(.cutColor), help: .option(.cutColor))
  var cutColor: String = RenderOption.cutColor.defaultValue ?? SVGDocument.cutColor

  @Option(name: .long(.cutWidth), help: .option(.cutWidth)) var cutWidth: String?

  @Option(
    name: .long(.inkVectors), help: .option(.inkVectors))
  var inkVectors: SVGDocument.InkVectors?

  @Option(name: .long(.cutRegion), help: .option(.cutRegion)) var cutRegion: String?

  @Option(name: .long(.mesh), help: .option(.mesh), completion: .option(.mesh)) var mesh: String?

  @Option(name: .long(.meshHeight), help: .option(.meshHeight)) var meshHeight: String?

  @Option(name: .long(.meshBase), help: .option(.meshBase)) var meshBase: String?

  @Option(name: .long(.meshWall), help: .option(.meshWall)) var meshWall: String?

  @Option(name: .long(.meshPlate), help: .option(.meshPlate)) var meshPlate: MeshSpec.Plate?

  @Flag(name: .long(.meshSplit), help: .option(.meshSplit)) var meshSplit = false

  @Option(
    name: .long(.saveStages), help: .option(.saveStages), completion: .option(.saveStages))
  var saveStages: String?

  @Flag(
    help:
      "Re-render whenever the material file (or what it extends) changes; errors keep the last good image."
  )
  var watch = false

  @Option(name: .customLong("watch-limit"), help: .hidden)
  var watchLimit: Int?

  @Flag(help: "Print each stage's time to standard error.")
  var timings = false

  @Option(name: .long(.maxPixels), help: .option(.maxPixels))
  var maxPixels: String = RenderOption.maxPixels.defaultValue ?? "0"

  @Option(name: .long(.maxMemory), help: .option(.maxMemory)) var maxMemory: String?

  /// The request `validate()` built and checked, kept for `run()`: building it walks every
  /// option by reflection, a few milliseconds of a small render's start.
  var checked = CheckedRequest()

  /// The text as given: `\n` starts a new line (`TextMask.unescaped`).
  var requestText: String? { text.map(TextMask.unescaped) }

  /// The request: every option the table has, checked by the library.
  func request() throws -> RenderRequest {
    do {
      return try RenderRequest(text: requestText, values: requestValues(of: self))
    } catch {
      throw ValidationError(error.commandLineMessage)
    }
  }

  mutating func validate() throws {
    checked.request = try request()
    if watch, output.output == "-" {
      throw ValidationError("--watch writes a file; give -o a path, not -")
    }
  }

  /// The job, every argument turned into library values (all checked in `validate`).
  func job(resources: Resources) throws -> RenderJob {
    try (checked.request ?? request()).job(resources: resources, parallelism: threads.parallelism)
  }

  func run() throws {
    let resources = try Resources.locate()
    // The warning is about PNG's pixels per meter: a JPEG stores a whole DPI exactly.
    let writesPNG =
      (try? RenderRequest.picture(requestValues(of: output)))?.format == .png || engrave != nil
      || depthMap != nil || saveStages != nil
    if writesPNG, let warning = resolution.resolution?.roundTripWarning {
      messages.say("warning: \(warning)")
    }
    let job = try job(resources: resources)
    if watch {
      let output = self.output.output
      var watcher = MaterialWatcher(job: job, resources: resources)
      watcher.ballCache = cache.ballCache
      watcher.run(limit: watchLimit) { result in
        try write(result, job: job)
      } report: { event in
        switch event {
        case .rendered(let milliseconds, let stages):
          let line = String(
            format: "rendered %@ in %.1f ms (%@)", output, milliseconds,
            stages.joined(separator: ", "))
          // Watching goes on when standard output has gone away; the file is the output.
          try? StandardStream.writeOutput(Data((line + "\n").utf8))
        case .failed(let lines):
          for line in lines { printError(line) }
          printError("waiting for the next change; \(output) keeps the last good render")
        }
      }
      return
    }
    try write(
      try job.run(
        resources: resources, cache: StageCache(disk: cache.ballCache, keepsLookupMap: false)),
      job: job)
  }

  private func write(_ result: RenderJob.Output, job: RenderJob) throws {
    // Fallback fonts make the picture depend on the machine's fonts: say which were used.
    for use in result.fallbackFonts {
      messages.say("note: '\(use.characters)' set in fallback font \(use.name) (\(use.path))")
    }
    var all = result.timings
    try all.measure("write") { try job.write(result) }
    if timings {
      for stage in all.stages {
        printError(String(format: "%-14@ %8.2f ms", stage.name, stage.seconds * 1000))
      }
      printError(String(format: "%-14@ %8.2f ms", "total", all.total * 1000))
    }
  }
}

/// A request kept between `validate()` and `run()`; not an option: parsing leaves it empty.
struct CheckedRequest: Decodable {
  var request: RenderRequest?

  init() {}

  init(from decoder: any Decoder) throws {}
}
