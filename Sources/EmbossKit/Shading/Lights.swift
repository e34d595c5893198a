import Foundation

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

  /// Unit vector from `point` toward the light, and the light's strength there (color times
  /// intensity, times the cone falloff for spots). Lights do not fall off with distance.
  @inline(__always)
  func incidence(at point: SIMD3<Float>) -> (direction: SIMD3<Float>, radiance: SIMD3<Float>) {
    switch kind {
    case .distant:
      return (normalized(position), color * intensity)
    case .omni:
      return (normalized(position - point), color * intensity)
    case .spot:
      let toLight = normalized(position - point)
      let axis = normalized(target - position)
      let cosine = simdDot(-toLight, axis)
      let outer = cosf(coneAngle * .pi / 180)
      let inner = cosf(coneAngle * 0.8 * .pi / 180)
      let t = min(max((cosine - outer) / max(inner - outer, 1e-6), 0), 1)
      return (toLight, color * intensity * (t * t * (3 - 2 * t)))
    }
  }
}

/// The material's surface under Blinn-Phong lighting. Colors are linear light.
public struct Surface: Sendable, Equatable {
  /// Diffuse color.
  public var base: SIMD3<Float>
  /// Highlight color.
  public var specular: SIMD3<Float>
  /// Blinn-Phong exponent: higher is a smaller, sharper highlight.
  public var shininess: Float
  /// Fraction of the base color seen without any light.
  public var ambient: Float
  /// 0...1: how much the highlights take the base color (1 = colored metal such as gold).
  public var metallic: Float

  public init(
    base: SIMD3<Float>, specular: SIMD3<Float> = SIMD3(1, 1, 1), shininess: Float = 32,
    ambient: Float = 0.1, metallic: Float = 0
  ) {
    self.base = base
    self.specular = specular
    self.shininess = shininess
    self.ambient = ambient
    self.metallic = metallic
  }

  /// Blinn-Phong at a surface point with unit normal `n`, seen from +z (orthographic):
  /// ambient * base + sum over lights of radiance * (base * max(0, n.l) + spec * max(0, n.h)^shininess),
  /// with the highlight only where the light reaches the surface (n.l > 0).
  ///
  /// Where n.h is so small that the highlight term is under 2^-16 (below a 16-bit step), the
  /// power is not evaluated.
  @inline(__always)
  public func shade(normal n: SIMD3<Float>, point: SIMD3<Float>, lights: [Light]) -> SIMD3<Float> {
    Shader(surface: self, lights: lights).shade(normal: n, point: point)
  }
}

/// `Surface.shade` with everything that does not depend on the point worked out once, for
/// shading many points under the same lights.
struct Shader: Sendable {
  let base: SIMD3<Float>
  let highlight: SIMD3<Float>
  let ambient: SIMD3<Float>
  let shininess: Float
  /// n.h below this gives a highlight under 2^-16.
  let cutoff: Float
  let lights: [Light]

  init(surface: Surface, lights: [Light]) {
    base = surface.base
    highlight = surface.specular + (surface.base - surface.specular) * surface.metallic
    ambient = surface.base * surface.ambient
    shininess = surface.shininess
    cutoff = exp2f(-16 / surface.shininess)
    self.lights = lights
  }

  @inline(__always)
  func shade(normal n: SIMD3<Float>, point: SIMD3<Float>) -> SIMD3<Float> {
    let view = SIMD3<Float>(0, 0, 1)
    var color = ambient
    for light in lights {
      let (l, radiance) = light.incidence(at: point)
      let diffuse = simdDot(n, l)
      guard diffuse > 0 else { continue }
      let h = normalized(l + view)
      let cosine = simdDot(n, h)
      let specularTerm = cosine > cutoff ? powf(cosine, shininess) : 0
      color += radiance * (base * diffuse + highlight * specularTerm)
    }
    return color
  }
}

@inline(__always)
func simdDot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
  (a * b).sum()
}

@inline(__always)
func normalized(_ v: SIMD3<Float>) -> SIMD3<Float> {
  let length = simdDot(v, v).squareRoot()
  return length > 0 ? v / length : SIMD3(0, 0, 1)
}
