import ArgumentParser
import EmbossKit

extension MaskMode: ExpressibleByArgument {}

/// `--dpi`: the resolution stored in every PNG and used for physical lengths.
struct ResolutionOption: ParsableArguments {
  @Option(
    help:
      "Resolution in dots per inch, stored in the PNGs (pHYs) and used for lengths in mm, cm or in. 254, 508 or 1016 are stored exactly."
  )
  var dpi: Double?

  func validate() throws {
    if let dpi, !(dpi.isFinite && Resolution.range.contains(dpi)) {
      throw ValidationError("--dpi must be in 1...100000, got \(dpi)")
    }
  }

  var resolution: Resolution? { dpi.map(Resolution.init(dpi:)) }

  /// A length option in pixels; physical units need --dpi.
  func pixels(_ length: Length, option: String, allowNegative: Bool = false) throws -> Double {
    try Self.pixels(length, option: option, dpi: dpi, allowNegative: allowNegative)
  }

  /// The same for a command without --dpi (nil) or with one.
  static func pixels(_ length: Length, option: String, dpi: Double?, allowNegative: Bool = false)
    throws -> Double
  {
    do {
      return try length.pixels(dpi: dpi, option: option, allowNegative: allowNegative)
    } catch let error as EmbossError {
      throw ValidationError(error.message)
    }
  }
}

/// How the engrave bitmap is made.
struct EngraveArguments: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "threshold, floyd-steinberg, atkinson, jarvis-judice-ninke, stucki, burkes, sierra, sierra-2row, sierra-lite, bayer2, bayer4, bayer8 or blue-noise.",
      valueName: "method"),
    completion: .list(DitherMethod.allCases.map(\.rawValue)), transform: DitherMethod.argument)
  var dither: DitherMethod = .threshold

  @Option(help: "0...255: gray at or above threshold/255 stays white (unburned).")
  var threshold: Int = 128

  @Flag(inversion: .prefixedNo, help: "Error diffusion alternates direction row by row.")
  var serpentine = true

  @Option(help: "Gray is raised to this power before dithering (2.2: linear light).")
  var gamma: Float = 1

  @Flag(help: "Burn the light parts (slate, glass, anodized aluminum).")
  var negative = false

  @Flag(help: "Mirror left to right (engraving the back of acrylic).")
  var mirror = false

  @Option(
    name: .customLong("dot-width"),
    help: ArgumentHelp(
      "Beam width (px, or mm with --dpi): burned runs are shortened by it in all (whole pixels), half at each end.",
      valueName: "length"),
    transform: Length.argument)
  var dotWidth: Length = .zero

  func validate() throws {
    guard (0...255).contains(threshold) else {
      throw ValidationError("--threshold must be in 0...255, got \(threshold)")
    }
    guard gamma.isFinite, gamma >= 0.1, gamma <= 10 else {
      throw ValidationError("--gamma must be in 0.1...10, got \(gamma)")
    }
  }

  func options(resolution: ResolutionOption) throws -> EngraveOptions {
    try EngraveOptions(
      method: dither, threshold: threshold,
      serpentine: serpentine, gamma: gamma, negative: negative, mirror: mirror,
      dotWidth: Float(try resolution.pixels(dotWidth, option: "--dot-width")))
  }
}

struct EngraveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "engrave",
    abstract:
      "Turn a picture (PNG, JPEG, WebP) into a 1-bit engrave bitmap (black = burn) with its DPI.",
    discussion: ExitStatus.paragraph("engrave"))

  @Argument(
    help: "The picture: a PNG, JPEG or WebP (a photo, a logo, an emboss render).",
    completion: pictureCompletion)
  var input: String

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp("Output 1-bit PNG, or - for standard output.", valueName: "file"),
    completion: .file(extensions: ["png"]))
  var output: String

  @OptionGroup var engrave: EngraveArguments

  @OptionGroup var resolution: ResolutionOption

  @OptionGroup var messages: QuietOption

  @Option(name: .customLong("max-pixels"), help: "Refuse images larger than this many pixels.")
  var maxPixels: Int = RenderLimits.default.maxPixels

  func validate() throws {
    try requirePNG(output, option: "-o")
    if let conflict = OutputConflicts.check(outputs: [("-o", output)], inputs: [("picture", input)])
    {
      throw ValidationError(conflict)
    }
  }

  func run() throws {
    let (bits, stored) = try Engrave.bitmap(
      picture: input, options: try engrave.options(resolution: resolution), maxPixels: maxPixels)
    if let warning = resolution.resolution?.roundTripWarning { messages.say("warning: \(warning)") }
    let ppm = resolution.resolution?.pixelsPerMeter ?? stored
    try OutputFile.write(try Engrave.png(bits, pixelsPerMeter: ppm), to: output)
  }
}
