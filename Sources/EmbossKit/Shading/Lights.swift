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

  /// The unit direction of a distant light given as Photoshop gives it: `angle` in degrees
  /// around the view axis, counterclockwise from the right (120: up and to the left), and
  /// `altitude` in degrees above the image plane (90: straight at the viewer).
  public static func direction(angle: Float, altitude: Float) -> SIMD3<Float> {
    let a = angle * .pi / 180
    let e = altitude * .pi / 180
    return SIMD3(cosf(e) * cosf(a), cosf(e) * sinf(a), sinf(e))
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

/// How highlights are computed.
public enum SpecularModel: String, Sendable, CaseIterable {
  /// The classic: highlight * max(0, n.h)^shininess, not energy-conserving (the brightness of
  /// a highlight does not grow as it narrows).
  case blinnPhong = "blinn-phong"
  /// Microfacet GGX (Trowbridge-Reitz) with Smith's shadowing and Schlick's Fresnel:
  /// energy-conserving, so a sharper highlight is also a brighter one, as on real metal.
  /// Roughness comes from the shininess: alpha = sqrt(2 / (shininess + 2)).
  case ggx
}

/// The material's surface. Colors are linear light.
public struct Surface: Sendable, Equatable {
  /// Diffuse color.
  public var base: SIMD3<Float>
  /// Highlight color: the reflectance at normal incidence (F0) with the `ggx` model.
  public var specular: SIMD3<Float>
  /// Sharpness of highlights and reflections: higher is a smaller, sharper highlight.
  public var shininess: Float
  /// Fraction of the base color seen without any light.
  public var ambient: Float
  /// 0...1: how much the highlights take the base color (1 = colored metal such as gold);
  /// with `ggx`, also how much of the diffuse color gives way to reflection.
  public var metallic: Float
  public var model: SpecularModel
  /// 0...1: how much reflection rises toward white at grazing angles (Schlick's Fresnel
  /// term); 0 keeps it the same at every angle.
  public var fresnel: Float

  public init(
    base: SIMD3<Float>, specular: SIMD3<Float> = SIMD3(1, 1, 1), shininess: Float = 32,
    ambient: Float = 0.1, metallic: Float = 0, model: SpecularModel = .blinnPhong,
    fresnel: Float = 0
  ) {
    self.base = base
    self.specular = specular
    self.shininess = shininess
    self.ambient = ambient
    self.metallic = metallic
    self.model = model
    self.fresnel = fresnel
  }

  /// The surface at a point with unit normal `n`, seen from +z (orthographic), under
  /// `lights` and `environment`:
  ///
  ///     ambient * base
  ///     + sum over lights: radiance * (diffuse * max(0, n.l) + specular term)
  ///     + environment.intensity * (diffuse * irradiance(n) + F(n.v) * environment(reflect(v, n)))
  ///
  /// `blinn-phong`: diffuse = base, specular term = F(l.h) * max(0, n.h)^shininess.
  /// `ggx`: diffuse = base * (1 - metallic), specular term = pi * D * G * F / (4 n.v) * n.l.
  /// F is Schlick's with F0 = specular + (base - specular) * metallic, weighted by
  /// `fresnel`. Highlights appear only where the light reaches the surface (n.l > 0).
  @inline(__always)
  public func shade(
    normal n: SIMD3<Float>, point: SIMD3<Float>, lights: [Light], environment: Environment = .none
  ) -> SIMD3<Float> {
    Shader(surface: self, lights: lights, environment: environment).shade(normal: n, point: point)
  }
}

/// `Surface.shade` with everything that does not depend on the point worked out once, for
/// shading many points under the same lights.
struct Shader: Sendable {
  let diffuse: SIMD3<Float>
  let f0: SIMD3<Float>
  let fresnel: Float
  let ambient: SIMD3<Float>
  let shininess: Float
  let model: SpecularModel
  /// GGX roughness squared.
  let alpha2: Float
  /// Angular spread of reflections, in radians.
  let spread: Float
  /// n.h below this gives a Blinn-Phong highlight under 2^-16.
  let cutoff: Float
  let lights: [Light]
  let environment: Environment
  let boxes: [PreparedSoftbox]

  init(surface: Surface, lights: [Light], environment: Environment = .none) {
    boxes = environment.softboxes.map(PreparedSoftbox.init)
    model = surface.model
    f0 = surface.specular + (surface.base - surface.specular) * surface.metallic
    diffuse = model == .ggx ? surface.base * (1 - surface.metallic) : surface.base
    fresnel = surface.fresnel
    ambient = surface.base * surface.ambient
    shininess = surface.shininess
    let alpha = (2 / (surface.shininess + 2)).squareRoot()
    alpha2 = alpha * alpha
    spread = alpha * 0.7
    cutoff = exp2f(-16 / surface.shininess)
    self.lights = lights
    self.environment = environment
  }

  /// Schlick's Fresnel at cosine `c`, weighted by `fresnel`.
  @inline(__always)
  func schlick(_ c: Float) -> SIMD3<Float> {
    guard fresnel > 0 else { return f0 }
    let m = 1 - min(max(c, 0), 1)
    let m2 = m * m
    return f0 + (SIMD3(repeating: 1) - f0) * (fresnel * m2 * m2 * m)
  }

  @inline(__always)
  func shade(normal n: SIMD3<Float>, point: SIMD3<Float>) -> SIMD3<Float> {
    let view = SIMD3<Float>(0, 0, 1)
    let nv = max(n.z, 1e-4)
    var color = ambient
    for light in lights {
      let (l, radiance) = light.incidence(at: point)
      let nl = simdDot(n, l)
      guard nl > 0 else { continue }
      let h = normalized(l + view)
      let nh = simdDot(n, h)
      var specularTerm = SIMD3<Float>.zero
      switch model {
      case .blinnPhong:
        if nh > cutoff { specularTerm = schlick(simdDot(l, h)) * powf(nh, shininess) }
      case .ggx:
        if nh > 0 {
          let d = nh * nh * (alpha2 - 1) + 1
          let distribution = alpha2 / (.pi * d * d)
          // Smith's G for GGX (separable form).
          let gl = 2 * nl / (nl + (alpha2 + (1 - alpha2) * nl * nl).squareRoot())
          let gv = 2 * nv / (nv + (alpha2 + (1 - alpha2) * nv * nv).squareRoot())
          specularTerm = schlick(simdDot(l, h)) * (.pi * distribution * gl * gv / (4 * nv))
        }
      }
      color += radiance * (diffuse * nl + specularTerm)
    }
    if environment.intensity > 0 {
      let r = 2 * nv * n - view
      let reflected = environment.radiance(r, spread: spread, boxes: boxes)
      color += environment.intensity * (diffuse * environment.irradiance(n, boxes: boxes) + schlick(nv) * reflected)
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
