import Foundation
import ArgumentParser
import EmbossKit

extension TextAlignment: ExpressibleByArgument {}
extension ReliefProfile: ExpressibleByArgument {}
extension ReliefDirection: ExpressibleByArgument {}

extension BitDepth: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(rawValue: Int(argument) ?? 0)
  }
}

/// Material choice and the material values the command line can override.
struct MaterialOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "A preset name from Materials/ or a material file path.", valueName: "name|file"))
  var material: String = Resources.defaultMaterialName

  @Option(
    name: .customLong("set"),
    help: ArgumentHelp(
      "Override one material value, as in the file: surface.shininess=60, lights[0].intensity=0.5, lights[1].color=#ff8800 (repeatable).",
      valueName: "key=value"))
  var settings: [String] = []

  @Option(help: ArgumentHelp("Bevel width: pixels, or mm/cm/in with --dpi; 0.5...1000 px (material default: 10).", valueName: "length"))
  var radius: String?

  @Option(help: "Bevel shape: round, linear, smooth, chisel-hard or chisel-soft (material default: round).")
  var profile: ReliefProfile?

  @Option(
    name: .customLong("relief-depth"),
    help: ArgumentHelp(
      "Height of the plateau above the edge: a length (px, or mm/cm/in/pt with --dpi), or a multiple of the radius such as 1.5x (material default: 1x, following the radius, so a design looks the same at any resolution).",
      valueName: "length|Nx"))
  var reliefDepth: String?

  @Option(help: "Core Image's inputScale: a per-pixel slope factor, 0...1000, instead of --relief-depth (steeper at lower resolution).")
  var scale: Float?

  @Option(help: ArgumentHelp("Blur of the relief (rounds creases and the bevel's top edge): px, or mm/cm/in/pt with --dpi (material default: 0).", valueName: "length"))
  var soften: String?

  @Option(name: .customLong("light-angle"), help: ArgumentHelp("Key light direction around the view axis in degrees, counterclockwise from the right (120: top left); makes the material's first light a distant light.", valueName: "degrees"))
  var lightAngle: Float?

  @Option(name: .customLong("light-altitude"), help: ArgumentHelp("Key light height above the surface in degrees (90: straight on; default with --light-angle: 30).", valueName: "degrees"))
  var lightAltitude: Float?

  @Option(help: "raised or lowered (debossed) (material default: raised).")
  var direction: ReliefDirection?

  @Option(
    help: ArgumentHelp(
      "Background: a color such as '#202020' or 'transparent' (material default).",
      valueName: "color"))
  var background: String?

  @Option(name: .customLong("shading-size"), help: "Side of the shading image in pixels, 16...4096 (material default: 512).")
  var shadingSize: Int?

  @Option(help: "Threads to use (default: all cores). Output does not depend on it.")
  var threads: Int?

  func validate() throws {
    if let radius, let length = Length.parse(radius), !length.isPhysical,
      !ReliefSpec.radiusRange.contains(Float(length.value))
    {
      throw ValidationError("--radius must be in 0.5...1000 pixels, got \(radius)")
    }
    if let radius, Length.parse(radius) == nil {
      throw ValidationError("--radius must be a length such as 10, 10px or 0.5mm, got '\(radius)'")
    }
    if let scale, !(scale.isFinite && ReliefSpec.scaleRange.contains(scale)) {
      throw ValidationError("--scale must be in 0...1000, got \(scale)")
    }
    if scale != nil && reliefDepth != nil {
      throw ValidationError("give either --relief-depth or --scale, not both")
    }
    if let reliefDepth, Self.depthMultiple(reliefDepth) == nil, Length.parse(reliefDepth) == nil {
      throw ValidationError("--relief-depth must be a length such as 10, 10px or 0.5mm, or a multiple of the radius such as 1.5x, got '\(reliefDepth)'")
    }
    if let multiple = reliefDepth.flatMap(Self.depthMultiple), !ReliefSpec.depthMultipleRange.contains(multiple) {
      throw ValidationError("--relief-depth must be 0x...100x the radius, got \(reliefDepth ?? "")")
    }
    if let soften, Length.parse(soften) == nil {
      throw ValidationError("--soften must be a length such as 2, 2px or 0.2mm, got '\(soften)'")
    }
    if let lightAngle, !(lightAngle.isFinite && MaterialSpec.degreesRange.contains(lightAngle)) {
      throw ValidationError("--light-angle must be in -360...360 degrees, got \(lightAngle)")
    }
    if let lightAltitude, !(lightAltitude.isFinite && MaterialSpec.altitudeRange.contains(lightAltitude)) {
      throw ValidationError("--light-altitude must be in -90...90 degrees, got \(lightAltitude)")
    }
    if let shadingSize, !MaterialSpec.shadingSizeRange.contains(shadingSize) {
      throw ValidationError("--shading-size must be in 16...4096, got \(shadingSize)")
    }
    if let background, case .failure(let error) = Background.parse(background) {
      throw ValidationError("--background: \(error.message)")
    }
    if let threads, threads < 1 || threads > 1024 {
      throw ValidationError("--threads must be in 1...1024, got \(threads)")
    }
  }

  /// The explicit options as overrides; a physical radius becomes pixels at `resolution`.
  func overrides(resolution: ResolutionOption? = nil) throws -> MaterialOverrides {
    var background: Background? = nil
    if let text = self.background, case .success(let value) = Background.parse(text) {
      background = value
    }
    var pixels: Float? = nil
    if let radius {
      let value = Float(try ResolutionOption.pixels(radius, option: "--radius", dpi: resolution?.dpi))
      guard ReliefSpec.radiusRange.contains(value) else {
        throw ValidationError("--radius \(radius) is \(value) pixels; it must be 0.5...1000 pixels")
      }
      pixels = value
    }
    let dpi = resolution?.dpi
    var depth: ReliefDepth? = nil
    if let reliefDepth {
      if let multiple = Self.depthMultiple(reliefDepth) {
        depth = .radiusMultiple(multiple)
      } else {
        let value = Float(try ResolutionOption.pixels(reliefDepth, option: "--relief-depth", dpi: dpi))
        guard ReliefSpec.scaleRange.contains(value) else {
          throw ValidationError("--relief-depth \(reliefDepth) is \(value) pixels; it must be 0...1000 pixels")
        }
        depth = .pixels(value)
      }
    }
    var softenPixels: Float? = nil
    if let soften {
      let value = Float(try ResolutionOption.pixels(soften, option: "--soften", dpi: dpi))
      guard ReliefSpec.softenRange.contains(value) else {
        throw ValidationError("--soften \(soften) is \(value) pixels; it must be 0...1000 pixels")
      }
      softenPixels = value
    }
    var overrides = MaterialOverrides(
      radius: pixels, profile: profile, scale: scale, depth: depth, soften: softenPixels,
      direction: direction, background: background, shadingSize: shadingSize)
    overrides.lightAngle = lightAngle
    overrides.lightAltitude = lightAltitude
    return overrides
  }

  /// The material with `--set` values and then the explicit options applied.
  func load(from library: MaterialLibrary) throws -> MaterialSpec {
    let file = try MaterialLoader.load(material, library: library)
    return try overrides().applied(to: try MaterialLoader.apply(settings: settings, to: file))
  }

  /// `1.5x`: a multiple of the radius; nil for anything else.
  static func depthMultiple(_ text: String) -> Float? {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    guard trimmed.hasSuffix("x"), let value = Float(trimmed.dropLast()), value.isFinite else { return nil }
    return value
  }

  var parallelism: Parallelism {
    threads.map { Parallelism(threads: $0) } ?? .allCores
  }
}

/// PNG output options.
struct OutputOptions: ParsableArguments {
  @Option(name: .shortAndLong, help: ArgumentHelp("Output PNG path, or - for standard output.", valueName: "file"))
  var output: String

  @Option(help: "Bits per channel: 8 or 16.")
  var depth: BitDepth = .eight

  @Option(help: "zlib compression level, 0 (fastest) ... 9 (smallest).")
  var compression: Int = PNGCodec.defaultCompression

  func validate() throws {
    guard (0...9).contains(compression) else {
      throw ValidationError("--compression must be in 0...9, got \(compression)")
    }
  }
}
