import ArgumentParser
import EmbossKit
import Foundation

struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render text embossed in a material.",
    discussion: "A literal \\n in the text starts a new line.")

  @Argument(help: "The text to emboss.")
  var text: String

  @OptionGroup var output: OutputOptions

  @Option(help: ArgumentHelp("A TTF/OTF font file (default: Fonts/DejaVuSans-Bold.ttf).", valueName: "file"))
  var font: String?

  @Option(help: "Text size in pixels (the em size), 1...10000.")
  var size: Float = 160

  @Option(help: "Line alignment: left, center or right.")
  var align: TextAlignment = .center

  @Option(name: .customLong("letter-spacing"), help: "Extra space between letters in pixels.")
  var letterSpacing: Float = 0

  @Option(name: .customLong("line-height"), help: "Baseline distance as a multiple of the font's line spacing.")
  var lineHeight: Float = 1

  @Option(help: "Margin around the ink in pixels (default: 15% of the size plus 2).")
  var padding: Int?

  @Option(help: ArgumentHelp("A fixed canvas WIDTHxHEIGHT with the text centered (default: fit the text).", valueName: "WxH"))
  var canvas: String?

  @OptionGroup var material: MaterialOptions

  @Option(
    name: .customLong("shading-image"),
    help: ArgumentHelp("A matcap PNG to use instead of the material's lit ball (its lights and surface are then unused).", valueName: "file"))
  var shadingImage: String?

  @Option(
    name: .customLong("save-stages"),
    help: ArgumentHelp("Also write mask.png, height.png, normals.png and shading.png here.", valueName: "dir"))
  var saveStages: String?

  @Flag(help: "Re-render whenever the material file (or what it extends) changes; errors keep the last good image.")
  var watch = false

  @Option(name: .customLong("watch-limit"), help: .hidden)
  var watchLimit: Int?

  @Flag(help: "Print each stage's time to standard error.")
  var timings = false

  @Option(name: .customLong("max-pixels"), help: "Refuse images larger than this many pixels.")
  var maxPixels: Int = RenderLimits.default.maxPixels

  func validate() throws {
    guard size.isFinite, size >= 1, size <= 10_000 else {
      throw ValidationError("--size must be in 1...10000 pixels, got \(size)")
    }
    guard letterSpacing.isFinite, abs(letterSpacing) <= 10_000 else {
      throw ValidationError("--letter-spacing must be a finite number of pixels, got \(letterSpacing)")
    }
    guard lineHeight.isFinite, lineHeight > 0, lineHeight <= 100 else {
      throw ValidationError("--line-height must be in (0, 100], got \(lineHeight)")
    }
    if let padding, padding < 0 || padding > 100_000 {
      throw ValidationError("--padding must be in 0...100000, got \(padding)")
    }
    if let canvas, CanvasSize.parse(canvas) == nil {
      throw ValidationError("--canvas must be WIDTHxHEIGHT with positive numbers, got '\(canvas)'")
    }
    if watch, output.output == "-" {
      throw ValidationError("--watch writes a file; give -o a path, not -")
    }
    guard maxPixels > 0 else {
      throw ValidationError("--max-pixels must be positive, got \(maxPixels)")
    }
  }

  func run() throws {
    let resources = try Resources.locate()
    let job = TextRenderJob(
      text: text.replacingOccurrences(of: "\\n", with: "\n"),
      fontPath: font,
      style: TextStyle(
        pixelSize: size, alignment: align, letterSpacing: letterSpacing, lineHeight: lineHeight,
        padding: padding),
      canvas: canvas.flatMap(CanvasSize.parse),
      material: material.material,
      settings: material.settings,
      overrides: material.overrides,
      shadingImagePath: shadingImage,
      depth: output.depth,
      compression: output.compression,
      parallelism: material.parallelism,
      limits: RenderLimits(maxPixels: maxPixels))
    if watch {
      let output = self.output.output
      MaterialWatcher(job: job, resources: resources).run(limit: watchLimit) { result in
        try write(result)
      } report: { event in
        switch event {
        case .rendered(let milliseconds, let stages):
          let line = String(format: "rendered %@ in %.1f ms (%@)", output, milliseconds, stages.joined(separator: ", "))
          FileHandle.standardOutput.write(Data((line + "\n").utf8))
        case .failed(let lines):
          for line in lines { printError(line) }
          printError("waiting for the next change; \(output) keeps the last good render")
        }
      }
      return
    }
    try write(try job.run(resources: resources))
  }

  private func write(_ result: TextRenderJob.Output) throws {
    if let directory = saveStages {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      for file in try result.render.stageFiles(relief: result.material.relief) {
        try OutputFile.write(Data(file.data), to: directory + "/" + file.name)
      }
    }
    var all = result.timings
    try all.measure("write") { try OutputFile.write(result.png, to: output.output) }
    if timings {
      for stage in all.stages {
        printError(String(format: "%-14@ %8.2f ms", stage.name, stage.seconds * 1000))
      }
      printError(String(format: "%-14@ %8.2f ms", "total", all.total * 1000))
    }
  }
}
