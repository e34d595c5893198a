import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

extension Surface {
  /// The surface at a point with unit normal `n`, seen from +z (orthographic), under
  /// `lights` and `environment`.
  ///
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

  /// The diffuse part of `shade` at unit normal `n`, without any reflection.
  ///
  /// The light the surface's own color scatters: its ambient, the lights'
  /// `diffuse * max(0, n.l)` and the environment's irradiance. The same from every
  /// direction of view.
  public func diffuseLight(
    normal n: SIMD3<Float>, point: SIMD3<Float>, lights: [Light],
    environment: Environment = .none
  ) -> SIMD3<Float> {
    Shader(surface: self, lights: lights, environment: environment).diffuseLight(
      normal: n, point: point)
  }
}

extension Light {
  /// Unit vector from `point` toward the light, and the light's strength there (color times
  /// intensity, times the cone falloff for spots).
  ///
  /// Lights do not fall off with distance.
  @inline(__always)
  func incidence(at point: SIMD3<Float>) -> (direction: SIMD3<Float>, radiance: SIMD3<Float>) {
    switch self {
    case .distant(let light):
      return (normalized(light.direction), light.color * light.intensity)
    case .omni(let light):
      return (normalized(light.position - point), light.color * light.intensity)
    case .spot(let light):
      let toLight = normalized(light.position - point)
      let axis = normalized(light.target - light.position)
      let cosine = simdDot(-toLight, axis)
      let outer = cosf(light.cone * .pi / 180)
      let inner = cosf(light.cone * 0.8 * .pi / 180)
      let t = min(max((cosine - outer) / max(inner - outer, 1e-6), 0), 1)
      return (toLight, light.color * light.intensity * (t * t * (3 - 2 * t)))
    }
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
    var color = lit(normal: n, point: point)
    if environment.intensity > 0 { color += reflection(normal: n) }
    return color
  }

  /// `shade` with the environment's term given (`reflection` at the same normal, kept from an
  /// earlier shading under other lights): the same floats, in the same order.
  @inline(__always)
  func shade(normal n: SIMD3<Float>, point: SIMD3<Float>, reflection: SIMD3<Float>)
    -> SIMD3<Float>
  {
    var color = lit(normal: n, point: point)
    if environment.intensity > 0 { color += reflection }
    return color
  }

  /// The ambient light and the lights' terms of `shade`.
  @inline(__always)
  func lit(normal n: SIMD3<Float>, point: SIMD3<Float>) -> SIMD3<Float> {
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
    return color
  }

  /// The diffuse part of `shade`: ambient, the lights' diffuse terms and the environment's
  /// irradiance.
  func diffuseLight(normal n: SIMD3<Float>, point: SIMD3<Float>) -> SIMD3<Float> {
    var color = ambient
    for light in lights {
      let (l, radiance) = light.incidence(at: point)
      let nl = simdDot(n, l)
      guard nl > 0 else { continue }
      color += radiance * diffuse * nl
    }
    if environment.intensity > 0 {
      color += environment.intensity * diffuse * environment.irradiance(n, boxes: boxes)
    }
    return color
  }

  /// The environment's term of `shade` (what the surface reflects of the room and its
  /// softboxes): most of a lit ball's cost, and independent of the lights.
  @inline(__always)
  func reflection(normal n: SIMD3<Float>) -> SIMD3<Float> {
    let view = SIMD3<Float>(0, 0, 1)
    let nv = max(n.z, 1e-4)
    let r = 2 * nv * n - view
    let reflected = environment.radiance(r, spread: spread, boxes: boxes)
    return environment.intensity
      * (diffuse * environment.irradiance(n, boxes: boxes) + schlick(nv) * reflected)
  }
}
