import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

extension Environment {
  /// Radiance arriving from unit direction `r`, averaged over a cone of about `spread`
  /// radians around it (the blur of a rough surface's reflection): the horizon's edges and
  /// the softboxes' edges soften over the spread, the horizon's over its own softness at
  /// least.
  ///
  /// `boxes` are this environment's softboxes, prepared (`PreparedSoftbox`).
  func radiance(_ r: SIMD3<Float>, spread: Float, boxes: [PreparedSoftbox]) -> SIMD3<Float> {
    let soft = max(spread, 0.004)
    let horizonSoft = max(soft, horizonSoftness * .pi / 180)
    // Elevation above the horizon, in radians.
    let elevation = asinf(min(max(r.y, -1), 1)) - horizonAngle * .pi / 180
    let color: SIMD3<Float>
    let band = bandWidth * .pi / 180
    // Sky: from the horizon color at the horizon to the sky color straight up.
    let up = smoothstep(-horizonSoft, horizonSoft, elevation)
    let skyT = min(max(elevation / (.pi / 2), 0), 1).squareRoot()
    let skyColor = horizon + (sky - horizon) * skyT
    // Below: the band, then the ground.
    let belowBand =
      band > 0 ? smoothstep(-band - horizonSoft, -band + horizonSoft, elevation) : 0
    let groundColor = ground + (self.band - ground) * belowBand
    color = groundColor + (skyColor - groundColor) * up
    // A direction below and behind the surface (a steep lower slope's reflection, r.z < 0)
    // would climb back to the horizon behind the plate and draw a bright line along the
    // foot of every dark lower bevel; the plate and the floor in front of it are what such
    // a slope sees, so the ground continues there.
    var total = color
    // (The view is +z, so the normal's direction across the picture is r's: the weight
    // turns on for normals pointing down, fading out toward the sides, where the horizon
    // wraps around the ball as before.)
    if r.z < 0 && r.y < 0 {
      let across = (r.x * r.x + r.y * r.y).squareRoot()
      let down = across > 1e-6 ? -r.y / across : 1
      let behind = smoothstep(0, 0.35, -r.z) * smoothstep(0.35, 0.75, down)
      total = color + (ground - color) * behind
    }
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
    let inside =
      smoothstep(-soft, soft, halfWidth - abs(a)) * smoothstep(-soft, soft, halfHeight - abs(b))
    return radiance * inside
  }
}
