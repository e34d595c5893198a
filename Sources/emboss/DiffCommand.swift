import ArgumentParser
import EmbossKit
import Foundation

struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Compare two images with a tolerance, as snapshot tests do.",
    discussion: """
      Differences are per channel, in 8-bit levels (16-bit files: difference / 257). A pixel \
      is bad when any channel differs by more than the tolerance. Exit status: 0 when the \
      bad fraction is at most --max-bad-fraction, 1 when it is not, 2 when a file cannot be \
      read or written or the sizes differ, 64 for invalid arguments.
      """)

  @Argument(help: "The reference image (any PNG).", completion: pictureCompletion)
  var expected: String

  @Argument(help: "The image to check (any PNG).", completion: pictureCompletion)
  var actual: String

  @Option(help: "Largest channel difference that still matches, in 8-bit levels.")
  var tolerance: Double = 0

  @Option(
    name: .customLong("max-bad-fraction"),
    help: "Fraction of pixels (0...1) allowed beyond the tolerance.")
  var maxBadFraction: Double = 0

  @Option(
    name: .customLong("out"),
    help: ArgumentHelp("Write expected | differences | actual here.", valueName: "file"), completion: .file(extensions: ["png"]))
  var out: String?

  @Option(name: .customLong("max-pixels"), help: "Refuse images larger than this many pixels.")
  var maxPixels: Int = RenderLimits.default.maxPixels

  func validate() throws {
    try requirePNG(out, option: "--out")
    guard tolerance.isFinite, tolerance >= 0 else {
      throw ValidationError("--tolerance must be 0 or more, got \(tolerance)")
    }
    guard maxBadFraction.isFinite, (0...1).contains(maxBadFraction) else {
      throw ValidationError("--max-bad-fraction must be in 0...1, got \(maxBadFraction)")
    }
    if let out,
      let conflict = OutputConflicts.check(
        outputs: [("--out", out)], inputs: [("expected", expected), ("actual", actual)])
    {
      throw ValidationError(conflict)
    }
  }

  func run() throws {
    let expectedSamples: PNGCodec.Samples
    let actualSamples: PNGCodec.Samples
    do {
      expectedSamples = try PictureCodec.readSamples(path: expected, maxPixels: maxPixels)
      actualSamples = try PictureCodec.readSamples(path: actual, maxPixels: maxPixels)
    } catch let error as EmbossError {
      printError("error: \(error.message)")
      throw ExitCode(2)
    }
    guard
      let report = ImageDiff.compare(
        expected: expectedSamples, actual: actualSamples, tolerance: tolerance)
    else {
      printError(
        "error: sizes differ: '\(expected)' is \(expectedSamples.width)x\(expectedSamples.height), '\(actual)' is \(actualSamples.width)x\(actualSamples.height)"
      )
      throw ExitCode(2)
    }
    do {
      try printLine(report.summary)
      if let out {
        try OutputFile.write(
          try ImageDiff.picturePNG(
            expected: expectedSamples, actual: actualSamples, tolerance: tolerance), to: out)
      }
    } catch let error as EmbossError {
      // 1 means "they differ": a write that failed is trouble, like a file that cannot be read.
      printError("error: \(error.message)")
      throw ExitCode(2)
    }
    if report.badFraction > maxBadFraction { throw ExitCode(1) }
  }
}
