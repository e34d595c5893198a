import Foundation
import EmbossSupport
import EmbossRaster

/// The kinds of light a material can hold.
public enum LightKind: String, Sendable, CaseIterable {
  /// A point light radiating in all directions from `position`.
  case omni
  /// A light infinitely far away in the direction of `position` (like the sun).
  case distant
  /// A point light at `position` shining toward `target` within a cone.
  case spot
}

/// One light, in hemisphere space: x right, y up, z toward the viewer, in units of the
/// sphere's radius (the sphere is centered at the origin). Colors are linear light.
public struct Light: Sendable, Equatable {
  public var kind: LightKind
  public var position: SIMD3<Float>
  public var color: SIMD3<Float>
  public var intensity: Float
  /// Spot lights only: the point the cone's axis passes through.
  public var target: SIMD3<Float>
  /// Spot lights only: half-angle of the cone in degrees; the edge softens over its outer 20%.
  public var coneAngle: Float

  public init(
    kind: LightKind = .omni, position: SIMD3<Float>, color: SIMD3<Float> = SIMD3(1, 1, 1),
    intensity: Float = 1, target: SIMD3<Float> = .zero, coneAngle: Float = 30
  ) {
    self.kind = kind
    self.position = position
    self.color = color
    self.intensity = intensity
    self.target = target
    self.coneAngle = coneAngle
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
