import EmbossRaster

/// A lit ball and its box-filtered halvings (a mip pyramid), so that a footprint longer than
/// its taps can cover one texel each (a softened crease, the steep foot of a round bevel)
/// is averaged on a coarser level instead of skipping texels between its taps.
///
/// Level `k`'s texels are `2^k` ball texels wide: its texel (i, j) is the mean of the ball's
/// block [i 2^k, (i + 1) 2^k) x [j 2^k, (j + 1) 2^k) (clamped to the ball at an odd size),
/// so a point at ball coordinates `p` is at `p / 2^k` on level `k`, with the same
/// pixel-center convention. Each level is made from the one below alone, so a texel depends
/// only on its block of the ball: a ball shaded only where the composite reads it (see
/// `LookupMap.texelsRead`) gives the same texels wherever they are read.
public struct BallPyramid: Sendable {
  /// One level's place in `upper` (level 0 is the ball itself) and its size.
  public struct Level: Sendable {
    /// Index of the level's first texel in `upper` (unused for level 0).
    public let offset: Int
    /// Width in texels.
    public let width: Int
    /// Height in texels.
    public let height: Int
    /// 2^-k: ball coordinates times this are this level's.
    public let scale: Float
  }

  /// The ball (level 0).
  public let ball: RGBAImage
  /// Levels 1 and up, one after the other, row-major.
  public let upper: [SIMD4<Float>]
  /// Every level, the ball's first.
  public let levels: [Level]

  /// The deepest level a `width` x `height` ball gets: halvings while the smaller side stays
  /// at least 16 texels, at most 5.
  public static func maxLevel(width: Int, height: Int) -> Int {
    var level = 0
    var side = min(width, height)
    while level < 5 && side >= 32 {
      side = (side + 1) / 2
      level += 1
    }
    return level
  }

  /// The sizes of levels 0 through `maxLevel` of a `width` x `height` ball.
  static func sizes(width: Int, height: Int, maxLevel: Int) -> [(width: Int, height: Int)] {
    var sizes = [(width, height)]
    for _ in 0..<maxLevel {
      let last = sizes[sizes.count - 1]
      sizes.append(((last.0 + 1) / 2, (last.1 + 1) / 2))
    }
    return sizes
  }

  /// The pyramid of `ball` down to `maxLevel`.
  public init(_ ball: RGBAImage, maxLevel: Int) {
    self.ball = ball
    let sizes = Self.sizes(width: ball.width, height: ball.height, maxLevel: maxLevel)
    var levels = [Level(offset: 0, width: ball.width, height: ball.height, scale: 1)]
    var total = 0
    for k in 1..<sizes.count {
      levels.append(
        Level(
          offset: total, width: sizes[k].width, height: sizes[k].height,
          scale: 1 / Float(1 << k)))
      total += sizes[k].width * sizes[k].height
    }
    self.levels = levels
    guard total > 0, ball.width > 0, ball.height > 0 else {
      upper = []
      return
    }
    var upper = [SIMD4<Float>](repeating: .zero, count: total)
    ball.pixels.withUnsafeBufferPointer { base in
      upper.withUnsafeMutableBufferPointer { out in
        for k in 1..<levels.count {
          let level = levels[k]
          let below = levels[k - 1]
          // The level below: the ball, or the part of `out` already made.
          let source =
            k == 1
            ? base : UnsafeBufferPointer(rebasing: out[below.offset..<(level.offset)])
          for y in 0..<level.height {
            let y0 = 2 * y * below.width
            let y1 = min(2 * y + 1, below.height - 1) * below.width
            for x in 0..<level.width {
              let x0 = 2 * x
              let x1 = min(2 * x + 1, below.width - 1)
              let sum = source[y0 + x0] + source[y0 + x1] + source[y1 + x0] + source[y1 + x1]
              out[level.offset + y * level.width + x] = sum * 0.25
            }
          }
        }
      }
    }
    self.upper = upper
  }

  /// Raw views of the pyramid for an inner loop (valid inside `withView` only).
  public struct View {
    /// The ball's texels.
    let ball: UnsafeBufferPointer<SIMD4<Float>>
    /// Levels 1 and up.
    let upper: UnsafeBufferPointer<SIMD4<Float>>
    /// Every level.
    let levels: UnsafeBufferPointer<Level>

    /// Bilinear sample of level `level` at ball coordinates (`x`, `y`).
    @inline(__always)
    func sample(level: Int, x: Float, y: Float) -> SIMD4<Float> {
      let l = levels[level]
      if level == 0 {
        return RGBAImage.sampleBilinear(ball, width: l.width, height: l.height, x: x, y: y)
      }
      return RGBAImage.sampleBilinear(
        UnsafeBufferPointer(rebasing: upper[l.offset..<(l.offset + l.width * l.height)]),
        width: l.width, height: l.height, x: x * l.scale, y: y * l.scale)
    }
  }

  /// Calls `body` with raw views of the pyramid.
  public func withView<R>(_ body: (View) -> R) -> R {
    ball.pixels.withUnsafeBufferPointer { ball in
      upper.withUnsafeBufferPointer { upper in
        levels.withUnsafeBufferPointer { levels in
          body(View(ball: ball, upper: upper, levels: levels))
        }
      }
    }
  }
}
