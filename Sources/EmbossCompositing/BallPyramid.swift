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
      plane(level).sample(x: x, y: y)
    }

    /// Level `level`'s texels and size, for many samples on it.
    @inline(__always)
    func plane(_ level: Int) -> Plane {
      let l = levels[level]
      // (A level is read only where the ball has texels: the compositor reads none of an
      // empty ball, and levels above 0 exist only for a ball of at least 32 x 32.)
      guard let texels = level == 0 ? ball.baseAddress : upper.baseAddress.map({ $0 + l.offset })
      else { preconditionFailure("a pyramid level without texels") }
      return Plane(
        texels: texels, width: l.width, height: l.height, scale: l.scale,
        maxX: Float(l.width - 1), maxY: Float(l.height - 1))
    }
  }

  /// One level's texels and size, resolved once for a group's taps (`View.plane(_:)`).
  struct Plane {
    /// The level's texels, row-major.
    let texels: UnsafePointer<SIMD4<Float>>
    let width: Int
    let height: Int
    /// 2^-k: ball coordinates times this are this level's (1 for the ball: exact).
    let scale: Float
    /// `width - 1` and `height - 1`, the clamp's bounds.
    let maxX: Float
    let maxY: Float

    /// Bilinear sample at ball coordinates (`x`, `y`), clamped to the level, as
    /// `RGBAImage.sampleBilinear` samples (at `x * scale`, `y * scale`: exact on the ball),
    /// written out over a row pointer: through `sampleBilinear` on the level's buffer the
    /// compositor ran 2.7% more instructions on case B.
    @inline(__always)
    func sample(x: Float, y: Float) -> SIMD4<Float> {
      let fx = min(max(x * scale - 0.5, 0), maxX)
      let fy = min(max(y * scale - 0.5, 0), maxY)
      let x0 = Int(fx)
      let y0 = Int(fy)
      let (tx, ty) = (fx - Float(x0), fy - Float(y0))
      let x1 = x0 + 1 < width ? x0 + 1 : width - 1
      let row0 = texels + y0 * width
      let row1 = y0 + 1 < height ? row0 + width : row0
      let top = row0[x0] * (1 - tx) + row0[x1] * tx
      let bottom = row1[x0] * (1 - tx) + row1[x1] * tx
      return top * (1 - ty) + bottom * ty
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
