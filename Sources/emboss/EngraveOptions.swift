import ArgumentParser
import EmbossKit

/// `--dpi`: the resolution stored in every PNG and used for physical lengths.
struct ResolutionOption: ParsableArguments {
  @Option(name: .long(.dpi), help: .option(.dpi)) var dpi: String?

  /// The resolution, once the request has checked `dpi`.
  var resolution: Resolution? {
    dpi.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map(Resolution.init(dpi:))
  }
}

/// How the engrave bitmap is made.
struct EngraveArguments: ParsableArguments {
  @Option(
    name: .long(.dither), help: .option(.dither), completion: .option(.dither), transform: { $0 })
  var dither: String = RenderOption.dither.defaultValue ?? "threshold"

  @Option(name: .long(.threshold), help: .option(.threshold))
  var threshold: String = RenderOption.threshold.defaultValue ?? "128"

  @Flag(inversion: .prefixedNo, help: ArgumentHelp(RenderOption.serpentine.help))
  var serpentine = true

  @Option(name: .long(.gamma), help: .option(.gamma))
  var gamma: String = RenderOption.gamma.defaultValue ?? "1.0"

  @Flag(name: .long(.negative), help: .option(.negative)) var negative = false

  @Flag(name: .long(.mirror), help: .option(.mirror)) var mirror = false

  @Option(name: .long(.dotWidth), help: .option(.dotWidth), transform: { $0 })
  var dotWidth: String = RenderOption.dotWidth.defaultValue ?? "0"
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

  /// The engraving's options, checked.
  private func options() throws -> EngraveOptions {
    do {
      return try RenderRequest.engraveOptions(requestValues(of: self))
    } catch {
      throw ValidationError(error.commandLineMessage)
    }
  }

  func validate() throws {
    _ = try options()
    try requirePNG(output, option: "-o")
    if let conflict = OutputConflicts.check(outputs: [("-o", output)], inputs: [("picture", input)])
    {
      throw ValidationError(conflict)
    }
  }

  func run() throws {
    let (bits, stored) = try Engrave.bitmap(
      picture: input, options: try options(), maxPixels: maxPixels)
    if let warning = resolution.resolution?.roundTripWarning { messages.say("warning: \(warning)") }
    let ppm = resolution.resolution?.pixelsPerMeter ?? stored
    try OutputFile.write(try Engrave.png(bits, pixelsPerMeter: ppm), to: output)
  }
}
