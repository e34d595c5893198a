import ArgumentParser
import EmbossKit
import Foundation

extension TextAlignment: ExpressibleByArgument {}
extension PictureFormat: ExpressibleByArgument {}
extension CutLine.Join: ExpressibleByArgument {}
extension MeshSpec.Plate: ExpressibleByArgument {}
extension TextDirection: ExpressibleByArgument {}
extension ReliefProfile: ExpressibleByArgument {}
extension ReliefDirection: ExpressibleByArgument {}
extension SVGDocument.InkVectors: ExpressibleByArgument {}

extension BitDepth: ExpressibleByArgument {
  /// `8` or `16`.
  public init?(argument: String) {
    self.init(rawValue: Int(argument) ?? 0)
  }
}

/// The material and `--set` values: every command that renders a material.
struct MaterialOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "A preset name from Materials/ or a material file path.", valueName: "name|file"),
    completion: materialCompletion)
  var material: String = Resources.defaultMaterialName

  @Option(
    name: .customLong("set"),
    help: ArgumentHelp(
      "Override one material value, as in the file: surface.shininess=60, lights[0].intensity=0.5, lights[1].color=#ff8800 (repeatable; keys: emboss parameters).",
      valueName: "key=value"))
  var settings: [String] = []

  var materialSettings: [MaterialSetting] { settings.map(MaterialSetting.init(set:)) }
}

/// The help of a flag that sets a material key: the key's help, range and unit from the
/// parameter table.
func flagHelp(_ parameter: NumberParameter, valueName: String? = nil, lengths: Bool = false)
  -> ArgumentHelp
{
  let unit = parameter.unit.isEmpty ? "" : " \(parameter.unit)"
  let range =
    "\(formatNumber(parameter.range.lowerBound))...\(formatNumber(parameter.range.upperBound))\(unit)"
  let what = lengths ? "a length (px, or mm/cm/in/pt with --dpi), " : ""
  return ArgumentHelp(
    "Sets \(parameter.key): \(parameter.help); \(what)\(range) (default: the material's).",
    valueName: valueName ?? (lengths ? "length" : "number"))
}

func flagHelp<Value>(_ parameter: ChoiceParameter<Value>) -> ArgumentHelp {
  ArgumentHelp(
    "Sets \(parameter.key): \(parameter.names.joined(separator: ", ")) (default: the material's).",
    valueName: parameter.names.joined(separator: "|"))
}

/// The key light's direction: it changes the lit ball.
struct LightOptions: ParsableArguments {
  // Values may be negative without `=` (`--light-angle -30`): the next word is the value.
  @Option(
    name: .customLong("light-angle"), parsing: .unconditional,
    help: flagHelp(Parameters.lightAngle, valueName: "degrees"))
  var lightAngle: Float?

  @Option(
    name: .customLong("light-altitude"), parsing: .unconditional,
    help: ArgumentHelp(
      "Key light height above the surface in degrees, \(formatNumber(Parameters.lightAltitude.range.lowerBound))...\(formatNumber(Parameters.lightAltitude.range.upperBound)) (90: straight on; default with --light-angle: \(formatNumber(Parameters.lightAltitude.value))). Either makes the material's first light a distant light.",
      valueName: "degrees"))
  var lightAltitude: Float?
}

/// The relief and how it is composited: flags of `render`.
struct ReliefOptions: ParsableArguments {
  @Option(help: flagHelp(Parameters.radius, lengths: true), transform: Length.argument)
  var radius: Length?

  @Option(help: flagHelp(Parameters.profile))
  var profile: ReliefProfile?

  @Option(
    name: .customLong("relief-depth"),
    help: ArgumentHelp(
      "Sets \(Parameters.depth.key): the plateau's height, a multiple of the radius such as 1.5x (following the radius, so a design looks the same at any resolution), or a length (px, or mm/cm/in/pt with --dpi) (default: the material's).",
      valueName: "Nx|length"), transform: MaterialFlags.Depth.argument)
  var reliefDepth: MaterialFlags.Depth?

  @Option(help: flagHelp(Parameters.scale))
  var scale: Float?

  @Option(help: flagHelp(Parameters.soften, lengths: true), transform: Length.argument)
  var soften: Length?

  @Option(help: flagHelp(Parameters.direction))
  var direction: ReliefDirection?

  @Option(
    help: ArgumentHelp(
      "Sets \(Parameters.background.key): a color such as '#202020', or 'transparent' (default: the material's).",
      valueName: "color"))
  var background: String?

  @Option(
    name: .customLong("shading-size"),
    help: ArgumentHelp(
      "Sets \(Parameters.shadingSize.key): \(Parameters.shadingSize.help), \(Parameters.shadingSize.range.lowerBound)...\(Parameters.shadingSize.range.upperBound) pixels (default: the material's).",
      valueName: "pixels"))
  var shadingSize: Int?

  func validate() throws {
    if scale != nil && reliefDepth != nil {
      throw ValidationError("give either --relief-depth or --scale, not both")
    }
  }
}

/// Threads.
struct ThreadOptions: ParsableArguments {
  @Option(help: "Threads to use (default: all cores). Output does not depend on it.")
  var threads: Int?

  func validate() throws {
    if let threads, threads < 1 || threads > 1024 {
      throw ValidationError("--threads must be in 1...1024, got \(threads)")
    }
  }

  var parallelism: Parallelism {
    threads.map { Parallelism(threads: $0) } ?? .allCores
  }
}

/// The lit-ball cache.
struct CacheOption: ParsableArguments {
  @Flag(
    name: .customLong("no-cache"),
    help: ArgumentHelp(
      "Do not read or write lit balls in the cache ($XDG_CACHE_HOME/emboss, else ~/.cache/emboss).",
      discussion: "The cache only saves time: output is the same byte for byte without it."))
  var noCache = false

  /// The cache to use: the user's, unless --no-cache.
  var ballCache: BallCache? { noCache ? nil : BallCache.user() }
}

/// `--set` values, then the flags, as settings on the material's keys, each checked as a
/// file's keys are (an invalid one is an argument error: exit 64).
func materialSettings(
  _ material: MaterialOptions, relief: ReliefOptions? = nil, light: LightOptions? = nil,
  dpi: Double? = nil
) throws -> [MaterialSetting] {
  var flags = MaterialFlags()
  if let relief {
    flags.radius = relief.radius
    flags.profile = relief.profile
    flags.reliefDepth = relief.reliefDepth
    flags.scale = relief.scale
    flags.soften = relief.soften
    flags.direction = relief.direction
    flags.background = relief.background
    flags.shadingSize = relief.shadingSize
  }
  if let light {
    flags.lightAngle = light.lightAngle
    flags.lightAltitude = light.lightAltitude
  }
  let settings: [MaterialSetting]
  do {
    settings = material.materialSettings + (try flags.settings(dpi: dpi))
  } catch let error as EmbossError {
    throw ValidationError(error.message)
  }
  if let problems = MaterialLoader.problems(in: settings) {
    let lines = problems.diagnostics.map { "\($0.location): \($0.message)" }
    let omitted = problems.omitted > 0 ? [MaterialError.omittedLine(problems.omitted)] : []
    throw ValidationError((lines + omitted).joined(separator: "\n"))
  }
  return settings
}

/// PNG output options.
struct OutputOptions: ParsableArguments {
  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Output picture: .png, or .jpg / .webp for previews (chosen by the extension); - for PNG on standard output.",
      valueName: "file"), completion: pictureCompletion)
  var output: String

  @Option(
    help: ArgumentHelp(
      "The picture's format, whatever the output's name (a FIFO, a device); default: from the extension.",
      valueName: "png|jpeg|webp"))
  var format: PictureFormat?

  @Option(help: "Bits per channel: 8 or 16 (PNG).")
  var depth: BitDepth = .eight

  @Option(help: "zlib compression level, 0 (fastest) ... 9 (smallest).")
  var compression: Int = PNGCodec.defaultCompression

  func validate() throws {
    guard (0...9).contains(compression) else {
      throw ValidationError("--compression must be in 0...9, got \(compression)")
    }
    let format = try outputFormat()
    if format != .png, depth == .sixteen {
      throw ValidationError("--depth 16 needs a PNG output; \(format.name) has 8 bits")
    }
  }

  /// The picture's format: `--format`, or from the output's extension.
  func outputFormat() throws -> PictureFormat {
    if let format { return format }
    do {
      return try PictureFormat.forOutput(output)
    } catch {
      throw ValidationError(error.message + " (or name the format with --format)")
    }
  }
}

/// Refuses an output path whose extension asks for a format this output cannot be (an
/// engraving or depth map is a PNG: `--engrave e.jpg` would be lossy).
func requirePNG(_ path: String?, option: String) throws {
  guard let path else { return }
  do {
    _ = try PictureFormat.forOutput(path, option: option, allowed: [.png])
  } catch {
    throw ValidationError(error.message)
  }
}

/// `--quiet`: warnings and notes are not printed (errors still are).
struct QuietOption: ParsableArguments {
  @Flag(
    name: [.customShort("q"), .long],
    help: "Print no warnings or notes on standard error (errors are still printed).")
  var quiet = false

  /// Prints `line` (a warning or a note) unless quiet.
  func say(_ line: String) {
    if !quiet { printError(line) }
  }
}

/// Shell completion for a picture path (read or written).
let pictureCompletion = CompletionKind.file(extensions: ["png", "jpg", "jpeg", "webp"])

/// Shell completion for `--font`: font files (a fontconfig name is typed).
let fontCompletion = CompletionKind.file(extensions: ["ttf", "otf", "ttc", "otc"])

/// Shell completion for a batch's manifest (JSON Lines).
let manifestCompletion = CompletionKind.file(extensions: ["jsonl"])

/// Shell completion for `--material`, `check` and `studio`: the preset names and the material files under the
/// word typed so far.
let materialCompletion = CompletionKind.custom { _, _, typed in
  var out = (try? Resources.locate().materialLibrary.presetNames) ?? []
  let folder =
    typed.range(of: "/", options: .backwards).map { String(typed[..<$0.upperBound]) } ?? ""
  let listed =
    (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
  for name in listed.sorted() where !name.hasPrefix(".") {
    var isDirectory: ObjCBool = false
    let path = folder + name
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
    if isDirectory.boolValue {
      out.append(path + "/")
    } else if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
      out.append(path)
    }
  }
  return out.filter { $0.hasPrefix(typed) }
}
