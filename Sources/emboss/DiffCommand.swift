import ArgumentParser
import EmbossKit
import Foundation

struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Compare two images with a tolerance, as snapshot tests do.",
    discussion: """
      Differences are per channel, in 8-bit levels (16-bit files: difference / 257). A pixel \
      is bad when any channel differs by more than the tolerance; two fully transparent \
      pixels are equal whatever color they hide. The pictures may be PNG, JPEG or WebP.
      """ + "\n\n" + ExitStatus.paragraph("diff"))

  @Argument(help: "The reference image (PNG, JPEG or WebP).", completion: pictureCompletion)
  var expected: String

  @Argument(help: "The image to check (PNG, JPEG or WebP).", completion: pictureCompletion)
  var actual: String

  @Option(help: "Largest channel difference that still matches, in 8-bit levels.")
  var tolerance: Double = 0

  @Option(
    name: .customLong("max-bad-fraction"),
    help: "Fraction of pixels (0...1) allowed beyond the tolerance.")
  var maxBadFraction: Double = 0

  @Option(
    name: .customLong("out"),
    help: ArgumentHelp("Write expected | differences | actual here.", valueName: "file"),
    completion: .file(extensions: ["png"]))
  var out: String?

  @Option(
    name: .customLong("difference"),
    help: ArgumentHelp(
      "Write the differences alone, at the images' size: red beyond the tolerance, yellow forgiven as anti-aliasing, dark orange within it, blue ignored.",
      valueName: "file"), completion: .file(extensions: ["png"]))
  var difference: String?

  @Flag(
    help:
      "Forgive a pixel beyond the tolerance when it looks anti-aliased in either image, by pixelmatch's test: at most 2 neighbors as bright as it, darker and brighter ones, and the darkest or brightest in a flat patch (3 identical neighbors) in both images. An edge anti-aliased differently passes; a picture moved by a pixel does not. --json lists the first 1000 forgiven pixels and why."
  )
  var antialiasing = false

  @Option(
    help: ArgumentHelp(
      "Leave a rectangle out of the comparison (repeatable).", valueName: "x,y,w,h"),
    transform: DiffCommand.rectangle)
  var ignore: [PixelRect] = []

  @Flag(help: "Print the result as one JSON object instead of a sentence.")
  var json = false

  @Option(name: .customLong("max-pixels"), help: "Refuse images larger than this many pixels.")
  var maxPixels: Int = RenderLimits.default.maxPixels

  func validate() throws {
    try requirePNG(out, option: "--out")
    try requirePNG(difference, option: "--difference")
    guard tolerance.isFinite, tolerance >= 0 else {
      throw ValidationError("--tolerance must be 0 or more, got \(tolerance)")
    }
    guard maxBadFraction.isFinite, (0...1).contains(maxBadFraction) else {
      throw ValidationError("--max-bad-fraction must be in 0...1, got \(maxBadFraction)")
    }
    if let out,
      let conflict = OutputConflicts.check(
        outputs: [("--out", out)] + (difference.map { [("--difference", $0)] } ?? []),
        inputs: [("expected", expected), ("actual", actual)])
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
    let options = ImageDiff.Options(
      tolerance: tolerance, antialiasing: antialiasing, ignore: ignore)
    guard
      let report = ImageDiff.compare(
        expected: expectedSamples, actual: actualSamples, options: options)
    else {
      printError(
        "error: sizes differ: '\(expected)' is \(expectedSamples.width)x\(expectedSamples.height), '\(actual)' is \(actualSamples.width)x\(actualSamples.height)"
      )
      // A script reading the JSON gets an object saying why there is no comparison.
      if json {
        try printLine(
          ImageDiff.sizeMismatchJSON(
            expected: (expectedSamples.width, expectedSamples.height),
            actual: (actualSamples.width, actualSamples.height)))
      }
      throw ExitCode(2)
    }
    do {
      var files: [(path: String, data: Data)] = []
      if let out {
        files.append(
          (
            out,
            try ImageDiff.picturePNG(
              expected: expectedSamples, actual: actualSamples, options: options)
          ))
      }
      if let difference {
        files.append(
          (
            difference,
            try ImageDiff.differencesPNG(
              expected: expectedSamples, actual: actualSamples, options: options)
          ))
      }
      if !files.isEmpty { try OutputFile.write(files) }
      try printLine(
        json ? report.json(options: options, maxBadFraction: maxBadFraction) : report.summary)
    } catch let error as EmbossError {
      // 1 means "they differ": a write that failed is trouble, like a file that cannot be read.
      printError("error: \(error.message)")
      throw ExitCode(2)
    }
    if report.badFraction > maxBadFraction { throw ExitCode(1) }
  }

  /// `x,y,w,h` in pixels.
  static func rectangle(_ text: String) throws -> PixelRect {
    let parts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2],
      let h = parts[3], x >= 0, y >= 0, w > 0, h > 0
    else {
      throw ValidationError("--ignore takes x,y,w,h in pixels (w and h positive), got \(text)")
    }
    return PixelRect(x: x, y: y, width: w, height: h)
  }
}
