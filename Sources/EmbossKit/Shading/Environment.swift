import Foundation

/// What a shiny surface reflects besides the lights: a sky over a ground with a sharp
/// horizon (a photographer's gradient, or the desert-and-sky of 1980s chrome lettering), and
/// softboxes (soft rectangular area lights). In hemisphere space: x right, y up, z toward the
/// viewer; colors linear light.
///
/// The flat top of an embossed letter faces the viewer and reflects the direction straight
/// back at it, which lies on the horizon; `horizonAngle` lowers (negative) or raises the
/// horizon relative to that direction, so the plateau reflects the sky just above it (or the
/// ground), and the bevels sweep across the horizon line.
public struct Environment: Sendable, Equatable {
  /// 0: no environment (only the lights and `ambient`).
  public var intensity: Float
  /// Straight up.
  public var sky: SIMD3<Float>
  /// The sky at the horizon.
  public var horizon: SIMD3<Float>
  /// Below the horizon (and the band).
  public var ground: SIMD3<Float>
  /// The band just below the horizon: the dark line across polished chrome.
  public var band: SIMD3<Float>
  /// The band's height in degrees; 0: no band.
  public var bandWidth: Float
  /// Elevation of the horizon in degrees, relative to the direction the flat top reflects.
  public var horizonAngle: Float
  public var softboxes: [Softbox]

  public init(
    intensity: Float = 0, sky: SIMD3<Float> = SIMD3(0.35, 0.5, 0.8),
    horizon: SIMD3<Float> = SIMD3(0.9, 0.92, 0.95), ground: SIMD3<Float> = SIMD3(0.12, 0.1, 0.08),
    band: SIMD3<Float> = SIMD3(0.02, 0.02, 0.025), bandWidth: Float = 0, horizonAngle: Float = 0,
    softboxes: [Softbox] = []
  ) {
    self.intensity = intensity
    self.sky = sky
    self.horizon = horizon
    self.ground = ground
    self.band = band
    self.bandWidth = bandWidth
    self.horizonAngle = horizonAngle
    self.softboxes = softboxes
  }

  /// No environment at all.
  public static let none = Environment()

  public static let angleRange: ClosedRange<Float> = -89...89
  public static let bandRange: ClosedRange<Float> = 0...45

  /// Radiance arriving from unit direction `r`, averaged over a cone of about `spread`
  /// radians around it (the blur of a rough surface's reflection): the horizon's edges and
  /// the softboxes' edges soften over the spread.
  /// `boxes` are this environment's softboxes, prepared (`PreparedSoftbox`).
  func radiance(_ r: SIMD3<Float>, spread: Float, boxes: [PreparedSoftbox]) -> SIMD3<Float> {
    let soft = max(spread, 0.004)
    // Elevation above the horizon, in radians.
    let elevation = asinf(min(max(r.y, -1), 1)) - horizonAngle * .pi / 180
    let color: SIMD3<Float>
    let band = bandWidth * .pi / 180
    // Sky: from the horizon color at the horizon to the sky color straight up.
    let up = smoothstep(-soft, soft, elevation)
    let skyT = min(max(elevation / (.pi / 2), 0), 1).squareRoot()
    let skyColor = horizon + (sky - horizon) * skyT
    // Below: the band, then the ground.
    let belowBand = band > 0 ? smoothstep(-band - soft, -band + soft, elevation) : 0
    let groundColor = ground + (self.band - ground) * belowBand
    color = groundColor + (skyColor - groundColor) * up
    var total = color
    for box in boxes { total += box.radiance(r, soft: soft) }
    return total
  }

  /// Light arriving at a surface with unit normal `n` from the whole environment, as the
  /// radiance a white diffuse surface reflects: the environment seen through a wide cone.
  func irradiance(_ n: SIMD3<Float>, boxes: [PreparedSoftbox]) -> SIMD3<Float> {
    let elevation = asinf(min(max(n.y, -1), 1)) - horizonAngle * .pi / 180
    let t = smoothstep(-1.2, 1.2, elevation)
    var total = ground + ((sky + horizon) * 0.5 - ground) * t
    for box in boxes {
      let cosine = simdDot(n, box.direction)
      if cosine > 0 { total += box.diffuse * cosine }
    }
    return total
  }
}

/// A rectangular area light reflected by shiny surfaces: a photographer's softbox.
public struct Softbox: Sendable, Equatable {
  /// Around the view axis, in degrees, counterclockwise from the right (Photoshop's light
  /// angle: 90 is up, 120 up and to the left).
  public var angle: Float
  /// Above the image plane, in degrees: 90 faces the viewer, 0 grazes the surface.
  public var altitude: Float
  /// Angular width and height in degrees.
  public var width: Float
  public var height: Float
  public var color: SIMD3<Float>
  public var intensity: Float

  public init(
    angle: Float = 120, altitude: Float = 45, width: Float = 30, height: Float = 20,
    color: SIMD3<Float> = SIMD3(1, 1, 1), intensity: Float = 1
  ) {
    self.angle = angle
    self.altitude = altitude
    self.width = width
    self.height = height
    self.color = color
    self.intensity = intensity
  }

  public static let sizeRange: ClosedRange<Float> = 1...180

  /// The unit direction toward the box's center.
  var direction: SIMD3<Float> { Light.direction(angle: angle, altitude: altitude) }

  /// Solid angle in steradians (small-box approximation).
  var solidAngle: Float { width * height * (.pi / 180) * (.pi / 180) }

}

/// A softbox with everything that does not depend on the direction looked at worked out once.
struct PreparedSoftbox {
  let direction: SIMD3<Float>
  /// The box's frame: u horizontal (perpendicular to the direction and to up), v up along it.
  let u: SIMD3<Float>
  let v: SIMD3<Float>
  let halfWidth: Float
  let halfHeight: Float
  let radiance: SIMD3<Float>
  /// What it adds to a white diffuse surface facing it (its light spread over its solid angle).
  let diffuse: SIMD3<Float>

  init(_ box: Softbox) {
    let c = box.direction
    direction = c
    var u = SIMD3<Float>(c.z, 0, -c.x)
    let length = simdDot(u, u).squareRoot()
    u = length > 1e-5 ? u / length : SIMD3(1, 0, 0)
    self.u = u
    v = SIMD3(c.y * u.z - c.z * u.y, c.z * u.x - c.x * u.z, c.x * u.y - c.y * u.x)
    halfWidth = box.width * 0.5 * .pi / 180
    halfHeight = box.height * 0.5 * .pi / 180
    radiance = box.color * box.intensity
    diffuse = box.color * box.intensity * box.solidAngle / .pi
  }

  /// Radiance toward direction `r`: the box's color inside its rectangle, softened over
  /// `soft` radians at its edges.
  @inline(__always)
  func radiance(_ r: SIMD3<Float>, soft: Float) -> SIMD3<Float> {
    let along = simdDot(r, direction)
    guard along > 0 else { return .zero }
    let a = atan2f(simdDot(r, u), along)
    let b = atan2f(simdDot(r, v), along)
    let inside = smoothstep(-soft, soft, halfWidth - abs(a)) * smoothstep(-soft, soft, halfHeight - abs(b))
    return radiance * inside
  }
}

@inline(__always)
func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
  let t = min(max((x - e0) / (e1 - e0), 0), 1)
  return t * t * (3 - 2 * t)
}
