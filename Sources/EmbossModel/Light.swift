import EmbossSupport
import Foundation

/// The kinds of light a material can hold.
public enum LightKind: String, Sendable, CaseIterable {
  /// A point light radiating in all directions from its position.
  case omni
  /// A light infinitely far away in one direction (like the sun).
  case distant
  /// A point light shining toward a target within a cone.
  case spot
}

/// One light, in hemisphere space: x right, y up, z toward the viewer, in units of the
/// sphere's radius (the sphere is centered at the origin).
///
/// Colors are linear light. Each
/// kind holds only its own values, each checked against `Parameters` when it is made.
public enum Light: Sendable, Equatable {
  case omni(OmniLight)
  case distant(DistantLight)
  case spot(SpotLight)

  /// The material files' default light: an omni light at the upper left, in front.
  public static let standard = Light.omni(OmniLight())

  /// Which kind of light this is.
  public var kind: LightKind {
    switch self {
    case .omni: .omni
    case .distant: .distant
    case .spot: .spot
    }
  }

  /// Where the light is; for a distant light, the direction it comes from.
  public var position: SIMD3<Float> {
    switch self {
    case .omni(let light): light.position
    case .distant(let light): light.direction
    case .spot(let light): light.position
    }
  }

  /// The light's color, linear light.
  public var color: SIMD3<Float> {
    switch self {
    case .omni(let light): light.color
    case .distant(let light): light.color
    case .spot(let light): light.color
    }
  }

  /// The light's brightness, multiplying `color`.
  public var intensity: Float {
    switch self {
    case .omni(let light): light.intensity
    case .distant(let light): light.intensity
    case .spot(let light): light.intensity
    }
  }

  /// The unit direction of a distant light given as Photoshop gives it: `angle` in degrees
  /// around the view axis, counterclockwise from the right (120: up and to the left), and
  /// `altitude` in degrees above the image plane (90: straight at the viewer).
  public static func direction(angle: Float, altitude: Float) -> SIMD3<Float> {
    let a = angle * .pi / 180
    let e = altitude * .pi / 180
    return SIMD3(cosf(e) * cosf(a), cosf(e) * sinf(a), sinf(e))
  }
}

/// A point light radiating in all directions; it does not fall off with distance.
public struct OmniLight: Sendable, Equatable {
  /// Where the light is, in sphere radii (the ball's center at the origin, z toward the viewer).
  public let position: SIMD3<Float>
  /// The light's color, linear light.
  public let color: SIMD3<Float>
  /// The light's brightness, multiplying `color`.
  public let intensity: Float

  /// An omni light; the defaults are the material files' default light.
  public init(
    position: SIMD3<Float> = Parameters.lightPosition.defaultValue,
    color: SIMD3<Float> = Parameters.lightColor.defaultValue,
    intensity: Float = Parameters.lightIntensity.value
  ) throws(ParameterError) {
    try Parameters.lightPosition.check(position)
    try Parameters.lightColor.check(color)
    try Parameters.lightIntensity.check(intensity)
    self.init(unchecked: position, color, intensity)
  }

  /// The default light (its values come from the table, so they are valid).
  init() {
    self.init(
      unchecked: Parameters.lightPosition.defaultValue, Parameters.lightColor.defaultValue,
      Parameters.lightIntensity.value)
  }

  private init(unchecked position: SIMD3<Float>, _ color: SIMD3<Float>, _ intensity: Float) {
    self.position = position
    self.color = color
    self.intensity = intensity
  }
}

/// A light infinitely far away: parallel rays from one direction.
public struct DistantLight: Sendable, Equatable {
  /// Toward the light (any length but zero).
  public let direction: SIMD3<Float>
  /// The light's color, linear light.
  public let color: SIMD3<Float>
  /// The light's brightness, multiplying `color`.
  public let intensity: Float

  /// A distant light; see each property for its meaning.
  public init(
    direction: SIMD3<Float>, color: SIMD3<Float> = Parameters.lightColor.defaultValue,
    intensity: Float = Parameters.lightIntensity.value
  ) throws(ParameterError) {
    try Parameters.lightPosition.check(direction)
    guard direction != .zero else {
      throw ParameterError(
        key: Parameters.lightPosition.key,
        message: "a distant light needs a direction other than [0, 0, 0]")
    }
    try Parameters.lightColor.check(color)
    try Parameters.lightIntensity.check(intensity)
    self.direction = direction
    self.color = color
    self.intensity = intensity
  }

  /// From Photoshop's angle and altitude in degrees (see `Light.direction`).
  public init(
    angle: Float = Parameters.lightAngle.value, altitude: Float = Parameters.lightAltitude.value,
    color: SIMD3<Float> = Parameters.lightColor.defaultValue,
    intensity: Float = Parameters.lightIntensity.value
  ) throws(ParameterError) {
    try Parameters.lightAngle.check(angle)
    try Parameters.lightAltitude.check(altitude)
    try self.init(
      direction: Light.direction(angle: angle, altitude: altitude), color: color,
      intensity: intensity)
  }
}

/// A point light shining toward a target within a cone whose edge softens over its outer 20%.
public struct SpotLight: Sendable, Equatable {
  /// Where the light is, in sphere radii (the ball's center at the origin, z toward the viewer).
  public let position: SIMD3<Float>
  /// The point the cone's axis passes through.
  public let target: SIMD3<Float>
  /// Half-angle of the cone in degrees.
  public let cone: Float
  /// The light's color, linear light.
  public let color: SIMD3<Float>
  /// The light's brightness, multiplying `color`.
  public let intensity: Float

  /// A spot light; see each property for its meaning.
  public init(
    position: SIMD3<Float> = Parameters.lightPosition.defaultValue,
    target: SIMD3<Float> = Parameters.lightTarget.defaultValue,
    cone: Float = Parameters.lightCone.value,
    color: SIMD3<Float> = Parameters.lightColor.defaultValue,
    intensity: Float = Parameters.lightIntensity.value
  ) throws(ParameterError) {
    try Parameters.lightPosition.check(position)
    try Parameters.lightTarget.check(target)
    try Parameters.lightCone.check(cone)
    try Parameters.lightColor.check(color)
    try Parameters.lightIntensity.check(intensity)
    self.position = position
    self.target = target
    self.cone = cone
    self.color = color
    self.intensity = intensity
  }
}
