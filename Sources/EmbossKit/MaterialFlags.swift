import Foundation

/// The command line's material flags (`--radius`, `--light-angle`, ...), turned into
/// settings on the material's keys so they are read, checked and reported exactly as the
/// same keys in a file or `--set` (see `Parameters` for each flag's key).
public struct MaterialFlags: Sendable, Equatable {
  /// The relief's depth as the command line gives it.
  public enum Depth: Sendable, Equatable {
    /// `1.5x`: a multiple of the radius.
    case multiple(Float)
    /// A height in pixels, or a physical length at the resolution.
    case length(Length)

    /// `1.5x`, or a length; nil for anything else.
    public static func parse(_ text: String) -> Depth? {
      let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
      if trimmed.hasSuffix("x"), !trimmed.hasSuffix("px") {
        guard let value = Float(trimmed.dropLast()), value.isFinite else { return nil }
        return .multiple(value)
      }
      return Length.parse(text).map(Depth.length)
    }
  }

  /// `--radius`: the bevel's width (`relief.radius`).
  public var radius: Length?
  /// `--profile`: the bevel's shape (`relief.profile`).
  public var profile: ReliefProfile?
  /// `--relief-depth`: how deep the relief looks (`relief.depth`).
  public var reliefDepth: Depth?
  /// Core Image's per-pixel slope factor.
  public var scale: Float?
  /// `--soften`: the relief's blur (`relief.soften`).
  public var soften: Length?
  /// `--direction`: raised or lowered (`relief.direction`).
  public var direction: ReliefDirection?
  /// A color or `transparent`.
  public var background: String?
  /// `--shading-size`: the lit ball's size in pixels (`shading.size`).
  public var shadingSize: Int?
  /// The key light (the material's first light) as a distant light from this direction.
  public var lightAngle: Float?
  /// `--light-altitude`: the first light's height above the surface in degrees
  /// (`lights[0].altitude`).
  public var lightAltitude: Float?

  /// No flags given.
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
        "--radius", "\(radius)", Parameters.radius.key,
        try Self.pixels(radius, flag: "--radius", dpi: dpi))
    }
    if let profile { add("--profile", profile.rawValue, Parameters.profile.key, profile.rawValue) }
    switch reliefDepth {
    case .multiple(let value)?:
      add("--relief-depth", "\(formatNumber(value))x", Parameters.depth.key, "\(Self.yaml(value))x")
    case .length(let length)?:
      let pixels = try Self.pixels(length, flag: "--relief-depth", dpi: dpi)
      add("--relief-depth", "\(length)", Parameters.depth.key, pixels + "px")
    case nil:
      break
    }
    if let scale { add("--scale", "", Parameters.scale.key, Self.yaml(scale)) }
    if let soften {
      add(
        "--soften", "\(soften)", Parameters.soften.key,
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

  static func pixels(_ length: Length, flag: String, dpi: Double?) throws -> String {
    let pixels = try length.pixels(dpi: dpi, option: flag)
    // As a Float, the pipeline's precision (no "0.0" or 17 digits in messages).
    return formatNumber(Float(pixels))
  }
}
