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
  /// How far a fine line runs before it fades (in widths), and how often its strength
  /// changes (9 / 25 of that).
  let length: Float
  let pulse: Float
  /// How far a line tilts the normal (its x, y), at most.
  let tilt: Float
  /// The normals' spread across the grain (their x, y) from the brushing itself.
  let spread: Float
  /// How far the lines change the surface's brightness, at most (a factor's distance from 1).
  let shade: Float
  /// The lines' noise (the material's seed, unsalted).
  let noise: ValueNoise
  /// The noise of the lines' brightness: drawn apart from their tilt, so the two do not
  /// cancel (with one noise, where a tilt toward the light brightened a line its tint
  /// darkened it, and faces on one side of the room showed no lines at all).
  let shadeNoise: ValueNoise
  /// How much of each of the lines' three layers a pixel's tint keeps.
  ///
  /// The layers are the fine lines and the bands 3 and 9 widths across: all of a layer whose
  /// lines are at least half a pixel apart, less of a finer one. A pixel spans 1 / w lines w
  /// pixels apart, whose mean strays from the lines' mean by sqrt(w) of a line's spread,
  /// where the tint's two points stray by 1 / sqrt(2) of it: the points' departure times
  /// sqrt(2 w) is the area's (without it a plate's sub-pixel lines were a pixel noise a
  /// larger render averages away).
  let shadeFades: SIMD3<Float>

  /// The brushing of `detail`; nil for an unbrushed surface.
  init?(_ detail: DetailSpec) {
    guard detail.brushed > 0 else { return nil }
    let a = detail.brushedAngle * .pi / 180
    along = SIMD2(cosf(a), -sinf(a))
    across = SIMD2(-along.y, along.x)
    width = detail.brushedWidth
    length = detail.brushedLength
    // (25 * 9 / 25 is 9 exactly: the default's lines are those of before the key.)
    pulse = detail.brushedLength * 9 / 25
    tilt = 0.12 * detail.brushed
    spread = 0.2 * detail.brushed
    shade = 0.35 * detail.brushed
    noise = ValueNoise(seed: detail.seed, salt: 0)
    shadeNoise = ValueNoise(seed: detail.seed, salt: 11)
    shadeFades = SIMD3(
      min(1, (2 * width).squareRoot()), min(1, (6 * width).squareRoot()),
      min(1, (18 * width).squareRoot()))
  }

  /// The lines at canvas point `p`, in about -1...1.
  ///
  /// Fine lines `width` apart across the grain, each fading in and out along it over about
  /// `length` widths (25 by default: a bristle's scratch, its strength changing every 9 or
  /// so; over 50 and 17 each line ran evenly across a letter's stroke, "a band, not a
  /// scratch", while a plate's lines over 25 and 9 read as "short soft streaks, motion blur",
  /// and over 60 and 22 as hairlines, blind viewers), over broader bands 3
  /// and 9 widths across that run on for hundreds of widths (the pass of the brush), so the
  /// lines group and vary in strength as real brushing does instead of repeating one row's
  /// noise. The fine lines weigh 0.7, the bands 0.2 and 0.1 (at 0.5, 0.3 and 0.2 the bands
  /// read as "soft smears, not hairlines").
  @inline(__always)
  func lines(at p: SIMD2<Float>) -> Float { lines(at: p, noise) }

  /// `lines(at:)` drawn from `noise`, each layer (the fine lines, the bands 3 and 9 widths
  /// across) weighted by `fades`.
  @inline(__always)
  func lines(
    at p: SIMD2<Float>, _ noise: ValueNoise, fades: SIMD3<Float> = SIMD3(repeating: 1)
  ) -> Float {
    var corners: Corners.Lines = (.init(), .init(), .init(), .init())
    return lines(at: p, noise, fades: fades, corners: &corners)
  }

  /// The noise cells' corners of a pixel's lines (its two points', four lookups each), kept
  /// for the next pixel: along the grain a line's cells are `length` widths long.
  struct Corners {
    typealias Lines = (
      ValueNoise.Corners, ValueNoise.Corners, ValueNoise.Corners, ValueNoise.Corners
    )
    var points: (Lines, Lines) = (
      (.init(), .init(), .init(), .init()), (.init(), .init(), .init(), .init())
    )
  }

  /// `lines(at:_:fades:)`, its noise cells' corners kept in `corners` (the same value).
  @inline(__always)
  func lines(
    at p: SIMD2<Float>, _ noise: ValueNoise, fades: SIMD3<Float> = SIMD3(repeating: 1),
    corners: inout Corners.Lines
  ) -> Float {
    let t = (p * across).sum() / width
    let u = (p * along).sum() / width
    let fine =
      noise(t, u / length, corners: &corners.0)
      * (0.55 + 0.45 * noise(t + 11.3, u / pulse + 3.7, corners: &corners.1))
    return 0.7 * fades.x * fine + 0.2 * fades.y
      * noise(t / 3 + 7.7, u / 220, corners: &corners.2) + 0.1 * fades.z
      * noise(t / 9 + 3.1, u / 700, corners: &corners.3)
  }

  /// Pixel (`x`, `y`)'s brightness factor: the lines change how much light the surface
  /// returns (the grooves scatter a little of it away), by up to 1 - `shade` either way,
  /// averaged over two points across the pixel as its tilt is.
  @inline(__always)
  func tint(x: Int, y: Int) -> Float {
    var corners = Corners()
    return tint(x: x, y: y, corners: &corners)
  }

  /// `tint(x:y:)`, its noise cells' corners kept in `corners` for the next pixel.
  @inline(__always)
  func tint(x: Int, y: Int, corners: inout Corners) -> Float {
    let center = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
    let v =
      lines(
        at: center - across * 0.25, shadeNoise, fades: shadeFades, corners: &corners.points.0)
      + lines(
        at: center + across * 0.25, shadeNoise, fades: shadeFades, corners: &corners.points.1)
    return 1 + shade * v / 2
  }

  /// The tilt of pixel (`x`, `y`)'s normal across the grain (along `across`, added to its
  /// x, y) and the spread of normals across the grain within it, from its lines averaged
  /// over two points across the pixel.
  @inline(__always)
  func normalOffset(x: Int, y: Int) -> (tilt: Float, spread: Float) {
    var corners = Corners()
    return normalOffset(x: x, y: y, corners: &corners)
  }

  /// `normalOffset(x:y:)`, its noise cells' corners kept in `corners` for the next pixel.
  @inline(__always)
  func normalOffset(x: Int, y: Int, corners: inout Corners) -> (tilt: Float, spread: Float) {
    let center = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
    let first = lines(at: center + across * -0.25, noise, corners: &corners.points.0)
    let second = lines(at: center + across * 0.25, noise, corners: &corners.points.1)
    // (The points' sum, least and largest, as a loop over them found them.)
    let sum: Float = 0 + first + second
    let low = min(min(1, first), second)
    let high = max(max(-1, first), second)
    return (tilt * sum / 2, spread + tilt * (high - low))
  }
}
