import EmbossSupport
import Foundation

/// The shadow the letters cast (a drop shadow on the background under a raised relief, the
/// walls' shadow inside a lowered one), as Photoshop's Drop Shadow and Inner Shadow give it:
/// the ink moved away from the light, blurred, in a color.
///
/// Every value is checked against `Parameters` when the shadow is made.
public struct ShadowSpec: Sendable, Equatable {
  /// 0...1: how dark; 0 is no shadow.
  public let opacity: Float
  /// How far the shadow falls from the letters, in pixels.
  public let distance: Float
  /// The blur's standard deviation, in pixels.
  public let softness: Float
  /// Linear light.
  public let color: SIMD3<Float>
  /// Where the casting light comes from, in degrees counterclockwise from the right; nil:
  /// the brightest light's direction (`direction(lights:)`).
  public let angle: Float?

  /// A shadow from validated values; see each property for its meaning.
  public init(
    opacity: Float = Parameters.shadowOpacity.value,
    distance: Float = Parameters.shadowDistance.value,
    softness: Float = Parameters.shadowSoftness.value,
    color: SIMD3<Float> = Parameters.shadowColor.defaultValue, angle: Float? = nil
  ) throws(ParameterError) {
    try Parameters.shadowOpacity.check(opacity)
    try Parameters.shadowDistance.check(distance)
    try Parameters.shadowSoftness.check(softness)
    try Parameters.shadowColor.check(color)
    if let angle { try Parameters.shadowAngle.check(angle) }
    self.opacity = opacity
    self.distance = distance
    self.softness = softness
    self.color = color
    self.angle = angle
  }

  /// No shadow (every value at its default).
  public static let none = ShadowSpec(defaults: ())

  private init(defaults: Void) {
    opacity = Parameters.shadowOpacity.value
    distance = Parameters.shadowDistance.value
    softness = Parameters.shadowSoftness.value
    color = Parameters.shadowColor.defaultValue
    angle = nil
  }

  /// Whether there is a shadow to draw.
  public var isVisible: Bool { opacity > 0 }

  /// The shadow with its lengths times `factor` (each within its range), but those whose
  /// keys are in `fixed`.
  public func scaling(by factor: Float, except fixed: Set<String>) -> ShadowSpec {
    func scaled(_ parameter: NumberParameter, _ value: Float) -> Float {
      fixed.contains(parameter.key)
        ? value : min(max(value * factor, parameter.range.lowerBound), parameter.range.upperBound)
    }
    return
      (try? ShadowSpec(
        opacity: opacity, distance: scaled(Parameters.shadowDistance, distance),
        softness: scaled(Parameters.shadowSoftness, softness), color: color, angle: angle))
      ?? self
  }

  /// The unit direction the shadow falls in, in image coordinates (x right, y down): away
  /// from `angle`, or from the brightest of `lights` (by intensity times its color's
  /// largest component; a light straight on casts its shadow straight down: zero).
  public func offsetDirection(lights: [Light]) -> SIMD2<Float> {
    if let angle {
      let a = angle * .pi / 180
      return SIMD2(-cosf(a), sinf(a))
    }
    guard
      let key = lights.max(by: {
        $0.intensity * $0.color.max() < $1.intensity * $1.color.max()
      })
    else { return .zero }
    // The light's position (y up) seen from the ball's center; the shadow falls opposite.
    let p = SIMD2(key.position.x, key.position.y)
    let length = (p * p).sum().squareRoot()
    guard length > 1e-6 else { return .zero }
    return SIMD2(-p.x, p.y) / length
  }
}

/// Ambient occlusion: where the relief keeps ambient light from a point (inner corners,
/// narrow counters, the foot of a raised relief), the picture darkens.
///
/// Every value is checked against `Parameters` when it is made.
public struct OcclusionSpec: Sendable, Equatable {
  /// 0...1: how much; 0 is none.
  public let strength: Float
  /// How far around a point the relief is felt, in pixels.
  public let radius: Float

  /// Occlusion from validated values; see each property for its meaning.
  public init(
    strength: Float = Parameters.occlusionStrength.value,
    radius: Float = Parameters.occlusionRadius.value
  ) throws(ParameterError) {
    try Parameters.occlusionStrength.check(strength)
    try Parameters.occlusionRadius.check(radius)
    self.strength = strength
    self.radius = radius
  }

  /// None (every value at its default).
  public static let none = OcclusionSpec(defaults: ())

  private init(defaults: Void) {
    strength = Parameters.occlusionStrength.value
    radius = Parameters.occlusionRadius.value
  }

  /// Whether there is any occlusion to draw.
  public var isVisible: Bool { strength > 0 }

  /// The occlusion with its radius times `factor` (within its range), unless its key is in
  /// `fixed`.
  public func scaling(by factor: Float, except fixed: Set<String>) -> OcclusionSpec {
    let parameter = Parameters.occlusionRadius
    guard !fixed.contains(parameter.key) else { return self }
    let scaled = min(max(radius * factor, parameter.range.lowerBound), parameter.range.upperBound)
    return (try? OcclusionSpec(strength: strength, radius: scaled)) ?? self
  }
}
