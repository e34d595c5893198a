import Foundation

/// The command line's material flags (`--radius`, `--light-angle`, ...), turned into
/// settings on the material's keys so they are read, checked and reported exactly as the
/// same keys in a file or `--set` (see `Parameters` for each flag's key).
public struct MaterialFlags: Sendable, Equatable {
  /// A length (`10`, `10px`, `0.5mm` with a resolution).
  public var radius: String?
  public var profile: ReliefProfile?
  /// A length, or a multiple of the radius (`1.5x`).
  public var reliefDepth: String?
  /// Core Image's per-pixel slope factor.
  public var scale: Float?
  /// A length.
  public var soften: String?
  public var direction: ReliefDirection?
  /// A color or `transparent`.
  public var background: String?
  public var shadingSize: Int?
  /// The key light (the material's first light) as a distant light from this direction.
  public var lightAngle: Float?
  public var lightAltitude: Float?

  public init() {}

  /// The settings, in a fixed order, lengths converted to pixels at `dpi`.
  ///
  /// Throws
  /// `EmbossError` for a value that is not a length or a physical length without a
  /// resolution; ranges are checked when the settings are applied (`MaterialLoader.problems`).
  public func settings(dpi: Double?) throws -> [MaterialSetting] {
    var settings: [MaterialSetting] = []
    func add(_ flag: String, _ written: String, _ key: String, _ value: String) {
      settings.append(MaterialSetting(flag: flag, written: written, key: key, value: value))
    }
    if let radius {
      add(
        "--radius", radius, Parameters.radius.key,
        try Self.pixels(radius, flag: "--radius", dpi: dpi))
    }
    if let profile { add("--profile", profile.rawValue, Parameters.profile.key, profile.rawValue) }
    if let reliefDepth {
      let trimmed = reliefDepth.trimmingCharacters(in: .whitespaces).lowercased()
      if trimmed.hasSuffix("x"), Float(trimmed.dropLast()) != nil {
        add("--relief-depth", reliefDepth, Parameters.depth.key, trimmed)
      } else {
        guard Length.parse(reliefDepth) != nil else {
          throw EmbossError(
            "--relief-depth must be a length such as 10, 10px or 0.5mm, or a multiple of the radius such as 1.5x, got '\(reliefDepth)'"
          )
        }
        let pixels = try Self.pixels(reliefDepth, flag: "--relief-depth", dpi: dpi)
        add("--relief-depth", reliefDepth, Parameters.depth.key, pixels + "px")
      }
    }
    if let scale { add("--scale", "", Parameters.scale.key, Self.yaml(scale)) }
    if let soften {
      add(
        "--soften", soften, Parameters.soften.key,
        try Self.pixels(soften, flag: "--soften", dpi: dpi))
    }
    if let direction {
      add("--direction", direction.rawValue, Parameters.direction.key, direction.rawValue)
    }
    if let background {
      add(
        "--background", background, Parameters.background.key,
        background.hasPrefix("#") ? "\"\(background)\"" : background)
    }
    if let shadingSize {
      add("--shading-size", String(shadingSize), Parameters.shadingSize.key, String(shadingSize))
    }
    if lightAngle != nil || lightAltitude != nil {
      let angle = lightAngle ?? Parameters.lightAngle.value
      let altitude = lightAltitude ?? Parameters.lightAltitude.value
      let flag = lightAngle != nil ? "--light-angle" : "--light-altitude"
      add(
        flag, Self.yaml(lightAngle ?? lightAltitude ?? 0), "lights[0]",
        "{kind: distant, angle: \(Self.yaml(angle)), altitude: \(Self.yaml(altitude))}")
    }
    return settings
  }

  /// A number as YAML reads it back exactly (NaN and infinity stay recognizable, and are
  /// refused as a file's would be).
  static func yaml(_ value: Float) -> String {
    if value.isNaN { return ".nan" }
    if value.isInfinite { return value > 0 ? ".inf" : "-.inf" }
    return "\(value)"
  }

  static func pixels(_ text: String, flag: String, dpi: Double?) throws -> String {
    guard let length = Length.parse(text) else {
      throw EmbossError(
        "\(flag) must be a length such as 12, 12px, 2mm, 0.5cm, 0.1in or 9pt, got '\(text)'")
    }
    guard let pixels = length.pixels(dpi: dpi) else {
      throw EmbossError("\(flag) \(text) is a physical length: give --dpi too")
    }
    // As a Float, the pipeline's precision (no "0.0" or 17 digits in messages).
    guard pixels.isFinite, abs(pixels) < 1e30 else { return "\(pixels)" }
    return formatNumber(Float(pixels))
  }
}
