import EmbossModel
import Foundation

/// Brushed metal, as the compositor sees it: each pixel's normal tilted across the grain by
/// the line it lies on (value noise, long along the grain and `width` apart across it,
/// seeded), and the normals a brushed surface spreads across the grain, which stretch its
/// highlights across the grain.
///
/// Lengths are canvas pixels, so a render at four times the size (with lengths four times
/// as long) draws the same lines; each pixel's lines are averaged over its width across the
/// grain (two points), and the tilts within it widen its footprint on the ball.
struct Brushing: Sendable, Equatable {
  /// The grain's direction in image coordinates (x right, y down), a unit vector.
  let along: SIMD2<Float>
  /// Across the grain, a unit vector.
  let across: SIMD2<Float>
  /// The lines' spacing, in pixels.
  let width: Float
  /// How far a line tilts the normal (its x, y), at most.
  let tilt: Float
  /// The normals' spread across the grain (their x, y) from the brushing itself.
  let spread: Float
  /// The lines' noise (the material's seed, unsalted).
  let noise: ValueNoise

  /// The brushing of `detail`; nil for an unbrushed surface.
  init?(_ detail: DetailSpec) {
    guard detail.brushed > 0 else { return nil }
    let a = detail.brushedAngle * .pi / 180
    along = SIMD2(cosf(a), -sinf(a))
    across = SIMD2(-along.y, along.x)
    width = detail.brushedWidth
    tilt = 0.12 * detail.brushed
    spread = 0.2 * detail.brushed
    noise = ValueNoise(seed: detail.seed, salt: 0)
  }

  /// The lines at canvas point `p`, in -1...1: a line every `width` across the grain, each
  /// changing slowly along it (over about 160 and 60 widths), as a brush's bristles leave
  /// them: long, unbroken lines.
  @inline(__always)
  func lines(at p: SIMD2<Float>) -> Float {
    let t = (p * across).sum() / width
    let u = (p * along).sum() / width
    return 0.75 * noise(t, u / 160) + 0.25 * noise(2.3 * t + 5.1, u / 60)
  }

  /// The tilt of pixel (`x`, `y`)'s normal across the grain (along `across`, added to its
  /// x, y) and the spread of normals across the grain within it, from its lines averaged
  /// over two points across the pixel.
  @inline(__always)
  func normalOffset(x: Int, y: Int) -> (tilt: Float, spread: Float) {
    let center = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
    var sum: Float = 0
    var low: Float = 1
    var high: Float = -1
    for k in 0..<2 {
      let v = lines(at: center + across * (Float(k) * 0.5 - 0.25))
      sum += v
      low = min(low, v)
      high = max(high, v)
    }
    return (tilt * sum / 2, spread + tilt * (high - low))
  }
}
