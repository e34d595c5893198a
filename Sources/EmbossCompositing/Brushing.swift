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
  let seed: UInt32

  /// The brushing of `detail`; nil for an unbrushed surface.
  init?(_ detail: DetailSpec) {
    guard detail.brushed > 0 else { return nil }
    let a = detail.brushedAngle * .pi / 180
    along = SIMD2(cosf(a), -sinf(a))
    across = SIMD2(-along.y, along.x)
    width = detail.brushedWidth
    tilt = 0.12 * detail.brushed
    spread = 0.2 * detail.brushed
    seed = UInt32(truncatingIfNeeded: detail.seed) &* 0x9E37_79B9 &+ 0x7F4A_7C15
  }

  /// A value in -1...1 for lattice point (`i`, `j`).
  @inline(__always)
  func lattice(_ i: Int32, _ j: Int32) -> Float {
    var h = UInt32(bitPattern: i) &* 0x8DA6_B343
    h ^= UInt32(bitPattern: j) &* 0xD816_3841
    h ^= seed
    h ^= h >> 15
    h = h &* 0x2C1B_3C6D
    h ^= h >> 12
    h = h &* 0x297A_2D39
    h ^= h >> 15
    return Float(h & 0xFF_FFFF) * (2 / Float(0xFF_FFFF)) - 1
  }

  /// Value noise at (`t`, `s`): smooth between lattice points one apart.
  @inline(__always)
  func noise(_ t: Float, _ s: Float) -> Float {
    let (ti, si) = (t.rounded(.down), s.rounded(.down))
    var (ft, fs) = (t - ti, s - si)
    ft = ft * ft * (3 - 2 * ft)
    fs = fs * fs * (3 - 2 * fs)
    let (i, j) = (Int32(truncatingIfNeeded: Int(ti)), Int32(truncatingIfNeeded: Int(si)))
    let top = lattice(i, j) + (lattice(i &+ 1, j) - lattice(i, j)) * ft
    let bottom = lattice(i, j &+ 1) + (lattice(i &+ 1, j &+ 1) - lattice(i, j &+ 1)) * ft
    return top + (bottom - top) * fs
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
