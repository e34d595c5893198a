import EmbossModel
import Foundation

/// `x.rounded(.down)`, the same float for every `x`, without a call: on x86-64's baseline
/// (SSE2) `rounded(.down)` is a call to libm's floorf, and the noise takes two per lookup (a
/// chrome render of case B called it 16 times per pixel, for its waviness).
@inline(__always)
func floorDown(_ x: Float) -> Float {
  // Integers already (and infinities, NaN, and both zeros, whose sign stays).
  guard abs(x) < 8_388_608, x != 0 else { return x }
  let t = Float(Int32(x))
  return t > x ? t - 1 : t
}

/// Seeded value noise: a value in -1...1 at every lattice point, smooth (smoothstep)
/// between them.
struct ValueNoise: Sendable, Equatable {
  let seed: UInt32

  /// The noise of material seed `seed`, salted by `salt` (one per use, so two uses of one
  /// seed draw unrelated patterns).
  init(seed: Int, salt: UInt32) {
    self.seed =
      (UInt32(truncatingIfNeeded: seed) &* 0x9E37_79B9 &+ 0x7F4A_7C15) ^ (salt &* 0x85EB_CA6B)
  }

  /// A value in -1...1 for lattice point (`i`, `j`).
  @inline(__always)
  func lattice(_ i: Int32, _ j: Int32) -> Float {
    Float(hash(i, j) & 0xFF_FFFF) * (2 / Float(0xFF_FFFF)) - 1
  }

  /// 32 well-mixed bits for lattice point (`i`, `j`).
  @inline(__always)
  func hash(_ i: Int32, _ j: Int32) -> UInt32 {
    var h = UInt32(bitPattern: i) &* 0x8DA6_B343
    h ^= UInt32(bitPattern: j) &* 0xD816_3841
    h ^= seed
    h ^= h >> 15
    h = h &* 0x2C1B_3C6D
    h ^= h >> 12
    h = h &* 0x297A_2D39
    h ^= h >> 15
    return h
  }

  /// A value in 0...1 for lattice point (`i`, `j`) and draw `k`.
  @inline(__always)
  func unit(_ i: Int32, _ j: Int32, _ k: UInt32) -> Float {
    var h = hash(i, j) ^ (k &* 0x68E3_1DA4)
    h ^= h >> 16
    h = h &* 0x7FEB_352D
    h ^= h >> 15
    return Float(h & 0xFF_FFFF) / Float(0xFF_FFFF)
  }

  /// The cell of the jittered point nearest to `q` (lattice units): each cell (`i`, `j`) has
  /// one point at (`i`, `j`) plus draws 0 and 1, whose reach `weight` grows (a power diagram:
  /// the least squared distance less the weight wins); the 3 x 3 cells around `q`'s.
  @inline(__always)
  func nearestCell(
    to q: SIMD2<Float>, weight: (Int32, Int32) -> Float = { _, _ in 0 }
  ) -> (Int32, Int32) {
    let (ci, cj) = (
      Int32(clamping: Int(floorDown(q.x))), Int32(clamping: Int(floorDown(q.y)))
    )
    var nearest = Float.infinity
    var cell = (ci, cj)
    for dj in Int32(-1)...1 {
      for di in Int32(-1)...1 {
        let (i, j) = (ci &+ di, cj &+ dj)
        let d = q - SIMD2(Float(i) + unit(i, j, 0), Float(j) + unit(i, j, 1))
        let squared = (d * d).sum() - weight(i, j)
        if squared < nearest {
          nearest = squared
          cell = (i, j)
        }
      }
    }
    return cell
  }

  /// The noise at (`x`, `y`).
  @inline(__always)
  func callAsFunction(_ x: Float, _ y: Float) -> Float {
    var corners = Corners()
    return self(x, y, corners: &corners)
  }

  /// The lattice values at the corners of the last cell a lookup fell in, kept between
  /// lookups that move little (along a row of pixels, a pattern tens of pixels across
  /// falls in one cell for many pixels): a lookup in the same cell reads them instead of
  /// hashing its four corners again, the same values.
  ///
  /// The values are one noise's (a cell is known by its place alone): each lookup site
  /// keeps its own.
  struct Corners {
    var cell: (i: Int32, j: Int32) = (0, 0)
    var known = false
    var values = SIMD4<Float>.zero
  }

  /// The noise at (`x`, `y`), its cell's corners from `corners` where they are that cell's
  /// (kept there for the next lookup): the same value as without.
  @inline(__always)
  func callAsFunction(_ x: Float, _ y: Float, corners: inout Corners) -> Float {
    let (xi, yi) = (floorDown(x), floorDown(y))
    var (fx, fy) = (x - xi, y - yi)
    fx = fx * fx * (3 - 2 * fx)
    fy = fy * fy * (3 - 2 * fy)
    let (i, j) = (Int32(clamping: Int(xi)), Int32(clamping: Int(yi)))
    if !corners.known || corners.cell != (i, j) {
      corners.cell = (i, j)
      corners.known = true
      corners.values = SIMD4(
        lattice(i, j), lattice(i &+ 1, j), lattice(i, j &+ 1), lattice(i &+ 1, j &+ 1))
    }
    let (a, b, c, d) = (
      corners.values.x, corners.values.y, corners.values.z, corners.values.w
    )
    let top = a + (b - a) * fx
    let bottom = c + (d - c) * fx
    return top + (bottom - top) * fy
  }
}

/// How procedural detail changes one pixel's normal: a tilt added to the normal's x, y, a
/// segment of normals the pixel spreads along (a brushed surface's, across its grain), and
/// how far its normals spread in every direction (a rough or dented surface's), all in
/// normal units (the x, y of an unnormalized normal).
struct NormalOffset: Sendable {
  var tilt: SIMD2<Float> = .zero
  var spread: SIMD2<Float> = .zero
  var rough: Float = 0
  /// The part of `rough` that neighbouring pixels' normals differ by already.
  ///
  /// A hammered dish's, whose tilt is linear across the pixel. A footprint made from those
  /// differences leaves it out (counted twice, it blurred every dish's reflection); one made
  /// from the pixel's own sub-samples keeps it.
  var linearRough: Float = 0
  /// Where the pixel straddles a ridge (hammered dents meeting), its parts: each part's
  /// tilt (x, y) and its share of the pixel (z), `partCount` of them (0: one part, `tilt`).
  var parts = InlineArray<4, SIMD3<Float>>(repeating: .zero)
  var partCount = 0
}

/// The material's procedural detail as the compositor draws it: brushed lines, hammered
/// dents and a sandblasted grain tilt each pixel's normal (and widen its footprint on the
/// ball); wood grain and stone speckle tint its color.
///
/// Lengths are canvas pixels, so a render at four times the size (with lengths four times
/// as long) draws the same pattern; each pixel's pattern is averaged over the pixel.
struct SurfaceDetail: Sendable, Equatable {
  let brushing: Brushing?
  let hammer: Hammering?
  let sand: Sandblasting?
  let wave: Waviness?
  let grain: WoodGrain?
  let speckle: Speckle?

  /// The detail of `detail` on a surface of color `base` (what the grain's and speckle's
  /// colors are relative to); nil where there is none.
  init?(_ detail: DetailSpec, base: SIMD3<Float>) {
    guard detail.isVisible else { return nil }
    brushing = Brushing(detail)
    hammer = Hammering(detail)
    sand = Sandblasting(detail)
    wave = Waviness(detail)
    grain = WoodGrain(detail, base: base)
    speckle = Speckle(detail, base: base)
  }

  /// Whether the detail tilts normals.
  var tilts: Bool { brushing != nil || hammer != nil || sand != nil || wave != nil }

  /// Whether the detail tints colors.
  var tints: Bool { grain != nil || speckle != nil || brushing != nil }
  /// Whether a pixel's normals spread (a segment across brushed lines, a rough or dented
  /// surface's radius: `NormalOffset.spread`, `rough`); waviness only tilts them.
  var spreads: Bool { brushing != nil || hammer != nil || sand != nil }

  /// How the detail changes pixel (`x`, `y`)'s normal.
  @inline(__always)
  func normalOffset(x: Int, y: Int) -> NormalOffset {
    var kept = Kept()
    return normalOffset(x: x, y: y, kept: &kept)
  }

  /// `normalOffset(x:y:)`, the brushing's and the waviness's noise cells kept in `kept` for
  /// the next pixel (a caller walking a row keeps one for the row: the same offsets).
  @inline(__always)
  func normalOffset(x: Int, y: Int, kept: inout Kept) -> NormalOffset {
    var offset = NormalOffset()
    if let brushing {
      let b = brushing.normalOffset(x: x, y: y, corners: &kept.tiltLines)
      offset.tilt = brushing.across * b.tilt
      offset.spread = brushing.across * b.spread
    }
    var hammerTilt = SIMD2<Float>.zero
    if let hammer {
      let h = hammer.normalOffset(x: x, y: y)
      hammerTilt = h.tilt
      offset.tilt += h.tilt
      offset.rough += h.rough
      if h.partCount == 0 { offset.linearRough = h.rough }
      offset.partCount = h.partCount
      offset.parts = h.parts
    }
    if let sand {
      let s = sand.normalOffset(x: x, y: y)
      offset.tilt += s.tilt
      offset.rough += s.rough
    }
    if let wave { offset.tilt += wave.tilt(x: x, y: y, corners: &kept.wave) }
    // The other kinds' tilts apply to each part too.
    let others = offset.tilt - hammerTilt
    for k in 0..<offset.partCount {
      let part = offset.parts[k]
      offset.parts[k] = SIMD3(SIMD2(part.x, part.y) + others, part.z)
    }
    return offset
  }

  /// The factor pixel (`x`, `y`)'s color is multiplied by (1 where there is no color
  /// detail), averaged over the pixel (2 x 2 points; brushed lines, 2 across the grain).
  ///
  /// `z` is the surface's height there in pixels (negative below the plate: a cut's wall or
  /// floor): wood grain is a solid, so a cut shows the rings that lie at its depth.
  /// `unfold` is where the surface's own pattern point lies from the pixel and how far the
  /// surface is foreshortened there (see `Speckle.unfolding`): stone's crystals are laid on
  /// the surface itself, so a steep wall shows them foreshortened.
  @inline(__always)
  func tint(
    x: Int, y: Int, z: Float = 0, unfold: (offset: SIMD2<Float>, stretch: Float) = (.zero, 1)
  ) -> SIMD3<Float> {
    var kept = Kept()
    return tint(x: x, y: y, z: z, unfold: unfold, kept: &kept)
  }

  /// `tint(x:y:z:unfold:)`, what the pattern finds around the pixel kept in `kept` for the
  /// next pixel (the same tint).
  @inline(__always)
  func tint(
    x: Int, y: Int, z: Float = 0, unfold: (offset: SIMD2<Float>, stretch: Float) = (.zero, 1),
    kept: inout Kept
  ) -> SIMD3<Float> {
    var t = pigment(x: x, y: y, z: z, unfold: unfold, kept: &kept)
    if let brushing { t *= brushing.tint(x: x, y: y, corners: &kept.tintLines) }
    return t
  }

  /// What the color detail finds around a pixel that the next pixel finds again.
  ///
  /// The speckle's cells and the wood grain's noise cells: kept from pixel to pixel along a
  /// row (or nearby), they spare their search and hashes; each pixel's tint is the same.
  ///
  /// A normal's walk keeps one too (`normalOffset(x:y:kept:)`): the brushed lines' and the
  /// waviness's noise cells.
  struct Kept {
    var cells = Speckle.CellBlock()
    var grain = WoodGrain.Corners()
    /// The brushed lines' tilt's and tint's (two noises: a cell's corners are one noise's).
    var tiltLines = Brushing.Corners()
    var tintLines = Brushing.Corners()
    var wave = Waviness.Corners()
  }

  /// The part of `tint` that is the surface's own color (wood grain and stone speckle: a
  /// pigment, under whatever polish the surface has); 1 where there is none.
  @inline(__always)
  func pigment(
    x: Int, y: Int, z: Float = 0, unfold: (offset: SIMD2<Float>, stretch: Float) = (.zero, 1)
  ) -> SIMD3<Float> {
    var kept = Kept()
    return pigment(x: x, y: y, z: z, unfold: unfold, kept: &kept)
  }

  /// `pigment(x:y:z:unfold:)`, what the pattern finds around the pixel kept in `kept` for
  /// the next pixel (a row's pixels share a crystal's cells for its width, and the grain's
  /// noise cells for many pixels).
  @inline(__always)
  func pigment(
    x: Int, y: Int, z: Float = 0, unfold: (offset: SIMD2<Float>, stretch: Float) = (.zero, 1),
    kept: inout Kept
  ) -> SIMD3<Float> {
    var t = SIMD3<Float>(repeating: 1)
    if let grain { t *= grain.pixelTint(x: x, y: y, z: z, corners: &kept.grain) }
    if let speckle {
      t *= speckle.pixelTint(
        x: x, y: y, shift: unfold.offset, stretch: unfold.stretch, cells: &kept.cells)
    }
    return t
  }
}

/// Hammered metal: dents on a jittered grid, each a shallow dish (a paraboloid) whose
/// sides tilt the normal by up to `tilt` at its rim; where dents overlap the deeper one
/// shows, so they meet in ridges.
struct Hammering: Sendable, Equatable {
  /// The grid's cell size (about a dent's width), in pixels.
  let size: Float
  /// The largest tilt, at a dent's rim.
  let tilt: Float
  let noise: ValueNoise

  init?(_ detail: DetailSpec) {
    guard detail.hammered > 0 else { return nil }
    size = detail.hammeredSize
    tilt = 0.45 * detail.hammered
    noise = ValueNoise(seed: detail.seed, salt: 1)
  }

  /// The tilt at canvas point `p`.
  @inline(__always)
  func tilt(at p: SIMD2<Float>) -> SIMD2<Float> {
    let q = p / size
    var dents = Dents()
    gather(around: q, into: &dents)
    return tiltAndDent(at: q, among: dents).tilt
  }

  /// The dents of the 3 x 3 cells around a point (in cell units): centers and radii.
  struct Dents {
    /// Per dent: its center's x, y and its radius.
    var dents = InlineArray<9, SIMD3<Float>>(repeating: SIMD3(0, 0, 1))
  }

  /// Fills `dents` with the dents that can reach the cell of `q` (cell units).
  @inline(__always)
  func gather(around q: SIMD2<Float>, into dents: inout Dents) {
    let (ci, cj) = (
      Int32(clamping: Int(floorDown(q.x))), Int32(clamping: Int(floorDown(q.y)))
    )
    var k = 0
    for dj in Int32(-1)...1 {
      for di in Int32(-1)...1 {
        let (i, j) = (ci &+ di, cj &+ dj)
        // The dent's center (jittered within its cell) and radius, in cells.
        dents.dents[k] = SIMD3(
          Float(i) + 0.15 + 0.7 * noise.unit(i, j, 0), Float(j) + 0.15 + 0.7 * noise.unit(i, j, 1),
          0.7 + 0.3 * noise.unit(i, j, 2))
        k += 1
      }
    }
  }

  /// The tilt at `q` (cell units) from the deepest of `dents` there, and which dent gives it
  /// (9: none): a dish rises toward its rim, so the normal leans toward its center, by
  /// `tilt` at the rim.
  @inline(__always)
  func tiltAndDent(at q: SIMD2<Float>, among dents: Dents) -> (tilt: SIMD2<Float>, dent: Int) {
    var deepest: Float = 0
    var winner = 9
    var best = SIMD2<Float>.zero
    for k in 0..<9 {
      let dent = dents.dents[k]
      let radius = dent.z
      let d = q - SIMD2(dent.x, dent.y)
      let r2 = (d * d).sum() / (radius * radius)
      guard r2 < 1 else { continue }
      // Depth (in units of tilt * size / 2) of the dish's profile.
      let depth = (1 - r2) * radius
      if depth > deepest {
        deepest = depth
        winner = k
        best = -d / radius
      }
    }
    return (best * tilt, winner)
  }

  /// Pixel (`x`, `y`)'s tilt, averaged over 4 x 4 points, and how far its normals spread
  /// (the dish's change across the pixel); where the points fall in more than one dent (a
  /// ridge), the pixel's parts: each dent's mean tilt and share.
  @inline(__always)
  func normalOffset(x: Int, y: Int) -> (
    tilt: SIMD2<Float>, rough: Float, parts: InlineArray<4, SIMD3<Float>>, partCount: Int
  ) {
    var dents = Dents()
    let corner = SIMD2(Float(x), Float(y))
    gather(around: (corner + 0.5) / size, into: &dents)
    // Inside one dish (the same dent at the pixel's center and its four corners), the tilt
    // is linear across the pixel: its mean is the center's.
    let center = tiltAndDent(at: (corner + 0.5) / size, among: dents)
    var inside = true
    for k in 0..<4 where inside {
      let p = corner + SIMD2(Float(k & 1), Float(k >> 1))
      inside = tiltAndDent(at: p / size, among: dents).dent == center.dent
    }
    if inside {
      return (center.tilt, 0.5 * tilt / size, InlineArray(repeating: .zero), 0)
    }
    // Per dent (and none, 9): the sum of its points' tilts and their count.
    var sums = InlineArray<10, SIMD3<Float>>(repeating: .zero)
    for j in 0..<4 {
      for i in 0..<4 {
        let p = corner + SIMD2(Float(i) + 0.5, Float(j) + 0.5) * 0.25
        let (t, dent) = tiltAndDent(at: p / size, among: dents)
        sums[dent] += SIMD3(t, 1)
      }
    }
    var total = SIMD2<Float>.zero
    var parts = InlineArray<4, SIMD3<Float>>(repeating: .zero)
    var count = 0
    for k in 0..<10 where sums[k].z > 0 {
      let sum = sums[k]
      total += SIMD2(sum.x, sum.y)
      let part = SIMD3(SIMD2(sum.x, sum.y) / sum.z, sum.z / 16)
      if count < 4 {
        parts[count] = part
        count += 1
      } else {
        // A fifth dent in one pixel (dents far smaller than a pixel): merged into the last.
        let last = parts[3]
        let share = last.z + part.z
        parts[3] = SIMD3(
          (SIMD2(last.x, last.y) * last.z + SIMD2(part.x, part.y) * part.z) / share, share)
      }
    }
    return (total / 16, 0.5 * tilt / size, parts, count > 1 ? count : 0)
  }
}

/// A sandblasted (matte) grain: a fine random tilt, averaged over each pixel, and the
/// spread of normals within the pixel that softens every reflection.
struct Sandblasting: Sendable, Equatable {
  let size: Float
  let amplitude: Float
  let x: ValueNoise
  let y: ValueNoise

  init?(_ detail: DetailSpec) {
    guard detail.sandblasted > 0 else { return nil }
    size = detail.sandblastedSize
    amplitude = 0.3 * detail.sandblasted
    x = ValueNoise(seed: detail.seed, salt: 2)
    y = ValueNoise(seed: detail.seed, salt: 3)
  }

  @inline(__always)
  func normalOffset(x px: Int, y py: Int) -> (tilt: SIMD2<Float>, rough: Float) {
    // Grains smaller than a pixel average out within it: what is left is a weaker tilt of
    // pixel-sized variation, and a wider spread.
    let scale = max(size, 1)
    let visible = 0.2 * amplitude * min(1, size)
    let p = SIMD2(Float(px) + 0.5, Float(py) + 0.5) / scale
    let t = SIMD2(x(p.x, p.y), y(p.x + 17.3, p.y - 5.1)) * visible
    // The spread of normals is the same everywhere: the ball is blurred by it once
    // (`RoughBall`), so it widens no pixel's footprint here.
    return (t, 0)
  }
}

/// A polished surface's slow waviness: the slope of a smooth height (value noise at two
/// scales, `size` and 0.43 `size` apart, seeded), so flat faces bend their reflections in
/// broad, unbroken curves, as plated or cast letters do.
///
/// The height changes over tens of pixels, so its slope is all but constant across a pixel:
/// the slope at the pixel's center is its mean, and it widens no footprint (no blur).
struct Waviness: Sendable, Equatable {
  let size: Float
  /// The slope's scale: the height's amplitude over its size.
  let slope: Float
  let noise: ValueNoise

  init?(_ detail: DetailSpec) {
    guard detail.waviness > 0 else { return nil }
    size = detail.wavinessSize
    slope = 0.04 * detail.waviness
    noise = ValueNoise(seed: detail.seed, salt: 11)
  }

  /// The height at `q` (in sizes), about -1.5...1.5, its two scales' cells' corners kept
  /// in `corners` (see `ValueNoise.Corners`).
  @inline(__always)
  func height(_ q: SIMD2<Float>, _ corners: inout Corners.Pair) -> Float {
    noise(q.x, q.y, corners: &corners.0)
      + 0.45 * noise(q.x / 0.43 + 19.1, q.y / 0.43 - 7.3, corners: &corners.1)
  }

  /// The noise's cells' corners for each of `tilt`'s four heights, kept from one pixel to
  /// the next (the pattern is hundreds of pixels across: a row's pixels fall in few cells).
  struct Corners {
    typealias Pair = (ValueNoise.Corners, ValueNoise.Corners)
    var east: Pair = (.init(), .init())
    var west: Pair = (.init(), .init())
    var south: Pair = (.init(), .init())
    var north: Pair = (.init(), .init())
  }

  /// Pixel (`x`, `y`)'s tilt: the surface's normal leans downhill by its slope (central
  /// differences half a pixel each way).
  @inline(__always)
  func tilt(x: Int, y: Int) -> SIMD2<Float> {
    var corners = Corners()
    return tilt(x: x, y: y, corners: &corners)
  }

  /// `tilt(x:y:)`, the noise's cells' corners kept in `corners` for the next pixel (the
  /// same tilt: 32 lattice hashes a pixel were a fifth of a chrome render).
  @inline(__always)
  func tilt(x: Int, y: Int, corners: inout Corners) -> SIMD2<Float> {
    let q = SIMD2(Float(x) + 0.5, Float(y) + 0.5) / size
    let h = 0.5 / size
    let gx = height(q + SIMD2(h, 0), &corners.east) - height(q - SIMD2(h, 0), &corners.west)
    let gy = height(q + SIMD2(0, h), &corners.south) - height(q - SIMD2(0, h), &corners.north)
    // d(height in pixels) / d(pixels) = slope * d(height) / dq, and dq = 2h per difference.
    return -SIMD2(gx, gy) * (slope / (2 * h))
  }
}

/// Wood grain: long lines across the grain direction, each ring darkening toward its end
/// (late wood) by its own amount, waving with the figure, with fine pores along the grain.
///
/// The rings are a solid: surfaces of the board that lean `ringLean` (run over rise) from
/// upright, as in a quarter- or rift-sawn board, so the lines a cut shows move across the
/// grain with its depth. A cut's wall facing one way shows them a little crowded, one
/// facing the other way a little spread, and each line bends slightly where it runs over
/// the cut's edge, as carved wood does. (A lean of 0.577, 30 degrees, spread the lines on
/// a V-cut's walls into broad bands across the stroke, which a viewer read as terraces.)
struct WoodGrain: Sendable, Equatable {
  /// How far a ring moves across the grain per pixel of depth: rings 14 degrees from
  /// upright (tan 14 = 0.25).
  static let ringLean: Float = 0.25
  let along: SIMD2<Float>
  let across: SIMD2<Float>
  let spacing: Float
  let figure: Float
  let strength: Float
  /// The dark lines' color over the surface's.
  let ratio: SIMD3<Float>
  let warp: ValueNoise
  let pores: ValueNoise
  let rings: ValueNoise

  init?(_ detail: DetailSpec, base: SIMD3<Float>) {
    guard detail.grain > 0 else { return nil }
    let a = detail.grainAngle * .pi / 180
    along = SIMD2(cosf(a), -sinf(a))
    across = SIMD2(-along.y, along.x)
    spacing = detail.grainSpacing
    figure = detail.grainFigure
    strength = detail.grain
    ratio = colorRatio(detail.grainColor, base)
    warp = ValueNoise(seed: detail.seed, salt: 4)
    pores = ValueNoise(seed: detail.seed, salt: 5)
    rings = ValueNoise(seed: detail.seed, salt: 6)
    var sum: Float = 0
    for k in 0..<4096 {
      let (u, v) = (Float(k % 64) * 1.7 + 0.5, Float(k / 64) * 0.37 + 0.5)
      sum += parts(u: u, v: v, waving: waving(u, v)).amount
    }
    meanAmount = sum / 4096
  }

  /// The rings' and pores' mean darkening (over 64 x 64 points across 24 rings): what a
  /// pixel spanning many rings averages to.
  private(set) var meanAmount: Float = 0

  /// The grain's waving at (`u`, `v`) (grain units), in lines: the figure, and rings of
  /// uneven widths.
  @inline(__always)
  func waving(_ u: Float, _ v: Float) -> Float {
    var corners: Corners.Waving = (.init(), .init(), .init(), .init())
    return waving(u, v, &corners)
  }

  /// `waving(_:_:)`, its noise cells' corners kept in `corners` (see `ValueNoise.Corners`).
  @inline(__always)
  func waving(_ u: Float, _ v: Float, _ corners: inout Corners.Waving) -> Float {
    figure
      * (2.2 * warp(u / 22, v / 5, corners: &corners.0)
        + 0.6 * warp(u / 7 + 31.7, v / 2.5 + 11.2, corners: &corners.1)
        + 0.9 * rings(v / 3.7 + 17.3, 7.1, corners: &corners.2)
        + 1.1 * rings(v / 1.3 + 3.1, 2.9, corners: &corners.3))
  }

  /// The noise cells' corners of a pixel's lookups (`pixelTint`: its waving, and the parts
  /// at each of its 2 x 2 points), kept for the next pixel: the grain's lines run for many
  /// pixels, and most lookups fall in the cell they fell in for the pixel before.
  struct Corners {
    typealias Waving = (
      ValueNoise.Corners, ValueNoise.Corners, ValueNoise.Corners, ValueNoise.Corners
    )
    typealias Parts = (
      ValueNoise.Corners, ValueNoise.Corners, ValueNoise.Corners, ValueNoise.Corners,
      ValueNoise.Corners
    )
    var waving: Waving = (.init(), .init(), .init(), .init())
    var points = InlineArray<4, Parts>(repeating: (.init(), .init(), .init(), .init(), .init()))
  }

  /// The tint at canvas point `p`.
  @inline(__always)
  func tint(at p: SIMD2<Float>) -> SIMD3<Float> {
    let u = (p * along).sum() / spacing
    let v = (p * across).sum() / spacing
    return tint(u: u, v: v, waving: waving(u, v))
  }

  /// Pixel (`x`, `y`)'s tint at height `z` (pixels; negative below the plate), averaged
  /// over 2 x 2 points (the waving, which changes over many lines, taken once at its
  /// center).
  @inline(__always)
  func pixelTint(x: Int, y: Int, z: Float = 0) -> SIMD3<Float> {
    var corners = Corners()
    return pixelTint(x: x, y: y, z: z, corners: &corners)
  }

  /// `pixelTint(x:y:z:)`, its noise cells' corners kept in `corners` for the next pixel
  /// (the same tint: 28 lookups of four lattice hashes a pixel were half a wood render).
  @inline(__always)
  func pixelTint(x: Int, y: Int, z: Float = 0, corners: inout Corners) -> SIMD3<Float> {
    let center = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
    // The rings at depth -z lie that much times the lean further across the grain.
    let shift = -z * Self.ringLean / spacing
    let w = waving(
      (center * along).sum() / spacing, (center * across).sum() / spacing + shift,
      &corners.waving)
    var (amount, tone): (Float, Float) = (0, 0)
    for k in 0..<4 {
      let p = center + SIMD2(Float(k & 1) * 0.5 - 0.25, Float(k >> 1) * 0.5 - 0.25)
      let part = parts(
        u: (p * along).sum() / spacing, v: (p * across).sum() / spacing + shift, waving: w,
        corners: &corners.points[k])
      amount += part.amount * 0.25
      tone += part.tone * 0.25
    }
    // Rings under a pixel apart: 2 x 2 points half a pixel apart read them (and their finer
    // pores) as a moiré that a pixel's whole area averages away; only a share of their
    // departure from the mean that falls with the spacing squared is the pixel's (wood at
    // 16 px, 1x against 4x: 35.6 -> 38.7 dB).
    let fade = min(1, spacing * spacing)
    return compose(meanAmount + (amount - meanAmount) * fade, tone: tone)
  }

  /// The tint of a darkening `amount` on a `tone`.
  @inline(__always)
  func compose(_ amount: Float, tone: Float) -> SIMD3<Float> {
    (SIMD3(repeating: 1) + (ratio - SIMD3(repeating: 1)) * amount) * tone
  }

  @inline(__always)
  func tint(u: Float, v: Float, waving: Float) -> SIMD3<Float> {
    let part = parts(u: u, v: v, waving: waving)
    return compose(part.amount, tone: part.tone)
  }

  /// How far the rings and pores darken toward the grain's color at (`u`, `v`), and the
  /// broad streaks' tone there.
  @inline(__always)
  func parts(u: Float, v: Float, waving: Float) -> (amount: Float, tone: Float) {
    var corners: Corners.Parts = (.init(), .init(), .init(), .init(), .init())
    return parts(u: u, v: v, waving: waving, corners: &corners)
  }

  /// `parts(u:v:waving:)`, its noise cells' corners kept in `corners`.
  @inline(__always)
  func parts(
    u: Float, v: Float, waving: Float, corners: inout Corners.Parts
  ) -> (amount: Float, tone: Float) {
    let t = v + waving
    let ring = floorDown(t)
    let f = t - ring
    // Late wood: darkening toward the ring's end, then a quick change (over the ring's last
    // tenth, not a step that would alias into stairs) to the next ring's light early wood.
    let g = min(f / 0.9, 1)
    let late = g * g * g * (1 - smoothstep(0.9, 1, f))
    let dark = 0.55 + 0.45 * (0.5 + 0.5 * rings(ring * 0.7, 3.3, corners: &corners.0))
    // Pores: fine streaks along the grain, most in the early wood.
    let streak = max(0, pores(u / 1.6, t * 7, corners: &corners.1))
    let pore = 0.5 + 0.5 * pores(u / 3, v * 4, corners: &corners.2)
    let amount =
      strength * min(1, 0.8 * late * dark + 0.2 * pore * pore + 0.45 * (1 - late) * streak * streak)
    // Broad streaks of lighter and darker wood along the grain, and boards of their own tone.
    let tone =
      1 + 0.16 * strength * warp(u / 45 + 5.3, t / 2.2 - 9.1, corners: &corners.3) + 0.1
      * strength * warp(u / 160 + 2.1, t / 14 + 4.7, corners: &corners.4)
    return (amount, tone)
  }
}

/// Stone speckle: a mosaic of crystals, as granite is, at two scales.
///
/// The surface is split into cells of mixed sizes around jittered points `size` apart (each
/// pixel takes the cell of its nearest point, a point's reach grown by its weight), each cell
/// a mineral drawn by the seed: mostly the stone's own color (lighter or darker: quartz),
/// some white, some warm (feldspar), a few of the speckle's color or part of the way to it
/// (in one tone, a near-black slab's light crystals read as "single-tone blobs, spray
/// paint", blind viewers). Over it, a second mosaic of grains 0.45
/// `size` apart scatters small dark flecks (mica: one grain in seven) and a few white ones,
/// so the dark is fine salt and pepper instead of blotches of one size; a faint mottle runs
/// over fourteen cells.
struct Speckle: Sendable, Equatable {
  let size: Float
  let strength: Float
  let ratio: SIMD3<Float>
  /// `log2(ratio)`, per channel.
  let logRatio: SIMD3<Float>
  let cells: ValueNoise
  let mottle: ValueNoise
  let grains: ValueNoise
  /// The pattern's mean tint (over 64 x 64 points a third of a crystal apart): what a
  /// pixel whose footprint on the surface spans many crystals averages to.
  private(set) var mean = SIMD3<Float>(repeating: 1)
  /// The crystals' mean tint, without the grains over them (as `mean`).
  private(set) var cellMean = SIMD3<Float>(repeating: 1)

  /// The small grains' spacing, in cells.
  static let grainScale: Float = 0.45

  /// How far the surface may be foreshortened (its arc length per pixel) before a pixel's
  /// points no longer resolve its crystals and the pattern fades toward its mean.
  static let resolvedStretch: Float = 1.2

  init?(_ detail: DetailSpec, base: SIMD3<Float>) {
    guard detail.speckle > 0 else { return nil }
    size = detail.speckleSize
    strength = detail.speckle
    ratio = colorRatio(detail.speckleColor, base)
    logRatio = SIMD3(
      log2f(max(ratio.x, 1e-3)), log2f(max(ratio.y, 1e-3)), log2f(max(ratio.z, 1e-3)))
    cells = ValueNoise(seed: detail.seed, salt: 7)
    mottle = ValueNoise(seed: detail.seed, salt: 9)
    grains = ValueNoise(seed: detail.seed, salt: 10)
    var sum = SIMD3<Float>.zero
    var crystals = SIMD3<Float>.zero
    for k in 0..<4096 {
      let p = SIMD2(Float(k % 64) + 0.5, Float(k / 64) + 0.5) * (size / 3)
      sum += tint(at: p)
      let q = p / size
      crystals += tint(q, mottle: mottle(q.x / 14, q.y / 14))
    }
    mean = sum / 4096
    cellMean = crystals / 4096
  }

  /// The tint at canvas point `p`.
  @inline(__always)
  func tint(at p: SIMD2<Float>) -> SIMD3<Float> {
    let q = p / size
    let m = mottle(q.x / 14, q.y / 14)
    return fleck(q / Self.grainScale, mottle: m) ?? tint(q, mottle: m)
  }

  /// The small grains' tint at `g` (grain units): a dark fleck or a white one, which lies
  /// over the crystal beneath it, or nil where the grain is none.
  @inline(__always)
  func fleck(_ g: SIMD2<Float>, mottle m: Float) -> SIMD3<Float>? {
    let cell = grains.nearestCell(to: g)
    guard let fleck = fleck(cell.0, cell.1) else { return nil }
    return fleck * (1 + 0.1 * strength * m)
  }

  /// Where the pattern point of a surface pixel lies from the pixel itself.
  ///
  /// For a surface at height `z` (pixels) whose height rises by `gradient` per pixel: the
  /// pattern is laid on the surface, so along a slope of `s` it advances `sqrt(1 + s^2)` per
  /// pixel of the picture (its arc length) and a steep wall shows it foreshortened, as a
  /// photograph of carved granite does. Measured from where the height is 0 (the plate's level), along
  /// the gradient: `gradient / s * z * (sqrt(1 + s^2) - 1) / s`, exact on a planar wall;
  /// zero on flat ground.
  ///
  /// Also the surface's arc length per pixel there, `sqrt(1 + s^2)`: how many pixels of
  /// pattern a pixel of the picture spans along the slope.
  @inline(__always)
  static func unfolding(z: Float, gradient: SIMD2<Float>) -> (
    offset: SIMD2<Float>, stretch: Float
  ) {
    let squared = (gradient * gradient).sum()
    guard squared > 1e-8 else { return (.zero, 1) }
    let length = (1 + squared).squareRoot()
    // (sqrt(1 + s^2) - 1) / s^2, written so it stays exact as s goes to 0.
    return (gradient * (z / (length + 1)), length)
  }

  /// `pixelTint(x:y:shift:)` on a surface foreshortened by `stretch` (see `unfolding`):
  /// where a pixel spans more of the pattern than its points resolve (a round bevel's
  /// near-vertical foot), the pattern fades toward its mean as a render at a larger size
  /// averages it, instead of aliasing.
  @inline(__always)
  func pixelTint(
    x: Int, y: Int, shift: SIMD2<Float>, stretch: Float, cells: inout CellBlock
  ) -> SIMD3<Float> {
    let t = pixelTint(x: x, y: y, shift: shift, cells: &cells)
    guard stretch > Self.resolvedStretch else { return t }
    return mean + (t - mean) * (Self.resolvedStretch / stretch)
  }

  /// Pixel (`x`, `y`)'s tint, averaged over 2 x 2 points (the mottle and the cells near
  /// the pixel found once, at its center), or 3 x 3 where the grains are under two pixels
  /// apart; the pattern read `shift` pixels away (see `unfolding`).
  @inline(__always)
  func pixelTint(x: Int, y: Int, shift: SIMD2<Float> = .zero) -> SIMD3<Float> {
    var cells = CellBlock()
    return pixelTint(x: x, y: y, shift: shift, cells: &cells)
  }

  /// The 3 x 3 cells around a pixel's cell (`pixelTint`'s candidates where a pixel is less
  /// than a cell across): their points and weights, kept while the next pixel's cell is the
  /// same, so a row finds each cell's once instead of at each of its pixels.
  ///
  /// Also the 3 x 3 grains around the last grain a point fell in, with their flecks as they
  /// are found: a pixel's points and its neighbours' fall in the same grain.
  struct CellBlock {
    var valid = false
    var cell: (Int32, Int32) = (0, 0)
    var points = InlineArray<9, SIMD2<Float>>(repeating: .zero)
    var weights = InlineArray<9, Float>(repeating: 0)
    var grainValid = false
    var grain: (Int32, Int32) = (0, 0)
    var grainPoints = InlineArray<9, SIMD2<Float>>(repeating: .zero)
    var flecks = InlineArray<9, SIMD3<Float>?>(repeating: nil)
    var fleckFound = InlineArray<9, Bool>(repeating: false)
    /// The cells' crystals (`Speckle.crystal`), each found when first read.
    var crystals = InlineArray<9, (tint: SIMD3<Float>, direction: SIMD2<Float>)>(
      repeating: (.zero, .zero))
    var crystalFound = InlineArray<9, Bool>(repeating: false)
    /// The mottle's noise cell (see `ValueNoise.Corners`).
    var mottle = ValueNoise.Corners()

    /// `speckle.fleck(g, mottle: m)`: the same search over the same points, in the same
    /// order.
    @inline(__always)
    mutating func fleck(_ speckle: Speckle, _ g: SIMD2<Float>, mottle m: Float) -> SIMD3<Float>? {
      let (ci, cj) = (
        Int32(clamping: Int(floorDown(g.x))), Int32(clamping: Int(floorDown(g.y)))
      )
      if !grainValid || grain.0 != ci || grain.1 != cj {
        for k in 0..<9 {
          let (i, j) = (ci &+ Int32(k % 3) &- 1, cj &+ Int32(k / 3) &- 1)
          grainPoints[k] = SIMD2(
            Float(i) + speckle.grains.unit(i, j, 0), Float(j) + speckle.grains.unit(i, j, 1))
          fleckFound[k] = false
        }
        (grainValid, grain) = (true, (ci, cj))
      }
      var nearest = Float.infinity
      var best = 0
      for k in 0..<9 {
        let d = g - grainPoints[k]
        let squared = (d * d).sum() - 0
        if squared < nearest {
          nearest = squared
          best = k
        }
      }
      if !fleckFound[best] {
        flecks[best] = speckle.fleck(ci &+ Int32(best % 3) &- 1, cj &+ Int32(best / 3) &- 1)
        fleckFound[best] = true
      }
      guard let fleck = flecks[best] else { return nil }
      return fleck * (1 + 0.1 * speckle.strength * m)
    }
  }

  /// `pixelTint(x:y:shift:)` with the cells around the pixel from `cells` where they are
  /// its own (the same values), else found and kept there.
  @inline(__always)
  func pixelTint(x: Int, y: Int, shift: SIMD2<Float>, cells block: inout CellBlock)
    -> SIMD3<Float>
  {
    // The pixel's corner, where the pattern is read.
    let (fx, fy) = (Float(x) + shift.x, Float(y) + shift.y)
    let center = SIMD2(fx + 0.5, fy + 0.5) / size
    let m = mottle(center.x / 14, center.y / 14, corners: &block.mottle)
    // Grains under two pixels apart: 3 x 3 points, each finding its own grain and cell.
    if size * Self.grainScale < 2 {
      var sum = SIMD3<Float>.zero
      var crystals = SIMD3<Float>.zero
      let point = { (k: Int) in
        SIMD2(fx + (Float(k % 3) + 0.5) / 3, fy + (Float(k / 3) + 0.5) / 3)
      }
      if var near = Neighbourhood(self, low: point(0) / size, high: point(8) / size) {
        for k in 0..<9 {
          let p = point(k)
          let crystal = near.tint(self, p / size, mottle: m)
          crystals += crystal
          sum += near.fleck(self, p / (size * Self.grainScale), mottle: m) ?? crystal
        }
      } else {
        for k in 0..<9 {
          let p = point(k)
          let crystal = tint(p / size, mottle: m)
          crystals += crystal
          sum += fleck(p / (size * Self.grainScale), mottle: m) ?? crystal
        }
      }
      let (t, c) = (sum / 9, crystals / 9)
      // Grains under a third of a pixel apart (g pixels): the 9 points fall on unrelated
      // grains, so their mean strays from the pattern's mean by a third of a grain's spread,
      // while the pixel's whole area (1 / g^2 grains) strays by g of it. The points'
      // departure times 9 g^2 (the area's variance over the points') is the best guess of
      // the area's: a render at a larger size averages such grains away, where the points
      // left a noise of their own (stone at 16 px, 1x against 4x: 35.0 -> 36.2 dB). The
      // crystals beneath, `size` apart, are faded by their own 9 size^2 (with both faded by
      // the grains', a pixel lost crystals a larger render keeps: stone with its slab's
      // crystals at 0.7, 16 px, 35.69 -> 35.76 dB).
      let g = size * Self.grainScale
      let fadeGrains = min(1, 9 * g * g)
      let fadeCells = min(1, 9 * size * size)
      return mean + (c - cellMean) * fadeCells + (t - c - (mean - cellMean)) * fadeGrains
    }
    // A pixel is less than a cell across unless the cells are smaller than two pixels;
    // then each point finds its own.
    guard size >= 2 else {
      var sum = SIMD3<Float>.zero
      for k in 0..<4 {
        let p = SIMD2(
          fx + 0.25 + 0.5 * Float(k & 1), fy + 0.25 + 0.5 * Float(k >> 1))
        sum += fleck(p / (size * Self.grainScale), mottle: m) ?? tint(p / size, mottle: m)
      }
      return sum * 0.25
    }
    let (ci, cj) = (
      Int32(clamping: Int(floorDown(center.x))), Int32(clamping: Int(floorDown(center.y)))
    )
    if !block.valid || block.cell.0 != ci || block.cell.1 != cj {
      for k in 0..<9 {
        let (i, j) = (ci &+ Int32(k % 3) &- 1, cj &+ Int32(k / 3) &- 1)
        block.points[k] = SIMD2(Float(i) + cells.unit(i, j, 0), Float(j) + cells.unit(i, j, 1))
        block.weights[k] = weight(i, j)
        block.crystalFound[k] = false
      }
      (block.valid, block.cell) = (true, (ci, cj))
    }
    var sum = SIMD3<Float>.zero
    for s in 0..<4 {
      let q =
        SIMD2(fx + 0.25 + 0.5 * Float(s & 1), fy + 0.25 + 0.5 * Float(s >> 1)) / size
      // A fleck lies over the crystal: the crystal is found only where there is none.
      if let fleck = block.fleck(self, q / Self.grainScale, mottle: m) {
        sum += fleck
        continue
      }
      var nearest = Float.infinity
      var best = 0
      for k in 0..<9 {
        let d = q - block.points[k]
        let squared = (d * d).sum() - block.weights[k]
        if squared < nearest {
          nearest = squared
          best = k
        }
      }
      // (`mineral`, its cell's crystal found once while the block holds it.)
      if !block.crystalFound[best] {
        block.crystals[best] = crystal(ci &+ Int32(best % 3) &- 1, cj &+ Int32(best / 3) &- 1)
        block.crystalFound[best] = true
      }
      sum += shaded(block.crystals[best], mottle: m, at: q - block.points[best])
    }
    return sum * 0.25
  }

  /// The tint at `q` (cell units).
  @inline(__always)
  func tint(_ q: SIMD2<Float>, mottle m: Float) -> SIMD3<Float> {
    let (i, j) = cells.nearestCell(to: q, weight: weight)
    return mineral(
      i, j, mottle: m, at: q - SIMD2(Float(i) + cells.unit(i, j, 0), Float(j) + cells.unit(i, j, 1))
    )
  }

  /// Cell (`i`, `j`)'s weight: crystals of mixed sizes (a power diagram: a cell reaches as
  /// far as its squared distance less its weight is the least).
  @inline(__always)
  func weight(_ i: Int32, _ j: Int32) -> Float {
    let u = cells.unit(i, j, 5)
    return 0.55 * u * u
  }

  /// Cell (`i`, `j`)'s mineral and its own shade, with the mottle, at `offset` (cell units)
  /// from the crystal's point: a crystal is not one flat color but shades across itself
  /// (at full strength, up to about 9% lighter on one side and darker on the other, along a
  /// direction of its own), as light in a crystal falls off toward a cleavage.
  @inline(__always)
  func mineral(_ i: Int32, _ j: Int32, mottle m: Float, at offset: SIMD2<Float>) -> SIMD3<Float> {
    shaded(crystal(i, j), mottle: m, at: offset)
  }

  /// Cell (`i`, `j`)'s mineral at the speckle's strength, and the direction it shades along.
  @inline(__always)
  func crystal(_ i: Int32, _ j: Int32) -> (tint: SIMD3<Float>, direction: SIMD2<Float>) {
    let angle = 6.2831855 * cells.unit(i, j, 6)
    let draw = cells.unit(i, j, 2)
    let one = SIMD3<Float>(repeating: 1)
    var mineral: SIMD3<Float>
    if draw < 0.08 {
      // The speckle's color, some crystals only part of the way there from the stone's
      // (geometrically: `ratio` to a power of 0.4...1).
      let e = 0.4 + 0.6 * cells.unit(i, j, 4)
      mineral = SIMD3(exp2f(logRatio.x * e), exp2f(logRatio.y * e), exp2f(logRatio.z * e))
    } else if draw < 0.24 {
      mineral = SIMD3(repeating: 1.35 + 0.25 * cells.unit(i, j, 4))
    } else if draw < 0.34 {
      mineral = SIMD3(1.22, 1.06, 0.98)
    } else {
      mineral = one * (0.86 + 0.28 * cells.unit(i, j, 3))
    }
    return (one + (mineral - one) * strength, SIMD2(cosf(angle), sinf(angle)))
  }

  /// A crystal (`crystal(_:_:)`) with the mottle `m`, at `offset` (cell units) from its point.
  @inline(__always)
  func shaded(
    _ crystal: (tint: SIMD3<Float>, direction: SIMD2<Float>), mottle m: Float,
    at offset: SIMD2<Float>
  ) -> SIMD3<Float> {
    let shade = 1 + 0.13 * strength * (offset * crystal.direction).sum()
    return crystal.tint * ((1 + 0.1 * strength * m) * shade)
  }

  /// Grain (`i`, `j`)'s fleck at the speckle's strength, before the mottle; nil where the
  /// grain is none (see `fleck(_:mottle:)`).
  @inline(__always)
  func fleck(_ i: Int32, _ j: Int32) -> SIMD3<Float>? {
    let draw = grains.unit(i, j, 2)
    let one = SIMD3<Float>(repeating: 1)
    let mineral: SIMD3<Float>
    if draw < 0.14 {
      mineral = ratio * (0.7 + 0.4 * grains.unit(i, j, 3))
    } else if draw < 0.2 {
      mineral = SIMD3(repeating: 1.4)
    } else {
      return nil
    }
    return one + (mineral - one) * strength
  }

  /// The cells and grains around one pixel's points, each found once.
  ///
  /// `pixelTint`'s 3 x 3 points otherwise search 9 cells and 9 grains each, the same ones over
  /// and over (the stone preset's plate for "Granite slab" at 160 px: 156 ms, now 94). The
  /// 4 x 4 cells from `cellBase` and the 4 x 4 grains from `grainBase` hold every point's
  /// 3 x 3 neighbours while a pixel spans at most one cell and one grain: the same candidates
  /// in the same order, so the same tints.
  struct Neighbourhood {
    let cellBase: (Int32, Int32)
    let grainBase: (Int32, Int32)
    var cellPoints = InlineArray<16, SIMD2<Float>>(repeating: .zero)
    var cellWeights = InlineArray<16, Float>(repeating: 0)
    var grainPoints = InlineArray<16, SIMD2<Float>>(repeating: .zero)
    /// Per cell, its crystal once found (`crystal(_:_:)`).
    var crystals = InlineArray<16, (tint: SIMD3<Float>, direction: SIMD2<Float>)>(
      repeating: (.zero, .zero))
    var found = InlineArray<16, Bool>(repeating: false)
    /// Per grain, its fleck once found (`fleck(_:_:)`).
    var flecks = InlineArray<16, SIMD3<Float>?>(repeating: nil)
    var fleckFound = InlineArray<16, Bool>(repeating: false)

    /// The neighbourhood of the points from `low` to `high` (cell units; grains at
    /// `grainScale` of a cell), or nil where they span more than a cell or a grain.
    init?(_ speckle: Speckle, low: SIMD2<Float>, high: SIMD2<Float>) {
      func base(_ low: SIMD2<Float>, _ high: SIMD2<Float>) -> (Int32, Int32)? {
        let (lx, ly) = (floorDown(low.x), floorDown(low.y))
        guard floorDown(high.x) - lx <= 1, floorDown(high.y) - ly <= 1,
          abs(lx) < 1e9, abs(ly) < 1e9
        else { return nil }
        return (Int32(lx) &- 1, Int32(ly) &- 1)
      }
      let g = 1 / Speckle.grainScale
      guard let cellBase = base(low, high), let grainBase = base(low * g, high * g) else {
        return nil
      }
      (self.cellBase, self.grainBase) = (cellBase, grainBase)
      let (cells, grains) = (speckle.cells, speckle.grains)
      for k in 0..<16 {
        let (i, j) = (cellBase.0 &+ Int32(k % 4), cellBase.1 &+ Int32(k / 4))
        cellPoints[k] = SIMD2(Float(i) + cells.unit(i, j, 0), Float(j) + cells.unit(i, j, 1))
        cellWeights[k] = speckle.weight(i, j)
        let (gi, gj) = (grainBase.0 &+ Int32(k % 4), grainBase.1 &+ Int32(k / 4))
        grainPoints[k] = SIMD2(
          Float(gi) + grains.unit(gi, gj, 0), Float(gj) + grains.unit(gi, gj, 1))
      }
    }

    /// Where the lattice cell of `q` lies in the block from `base` (column, row), if its 3 x 3
    /// neighbours are all in the block: 1...2 each; nil elsewhere. (The floor by a conversion
    /// and a comparison: `rounded(.down)` is a call to libm's floorf here.)
    @inline(__always)
    static func offset(_ q: SIMD2<Float>, from base: (Int32, Int32)) -> (Int, Int)? {
      guard abs(q.x) < 1e9, abs(q.y) < 1e9 else { return nil }
      var (i, j) = (Int32(q.x), Int32(q.y))
      if Float(i) > q.x { i -= 1 }
      if Float(j) > q.y { j -= 1 }
      let (u, v) = (Int(i &- base.0), Int(j &- base.1))
      guard (1...2).contains(u), (1...2).contains(v) else { return nil }
      return (u, v)
    }

    /// `speckle.tint(q, mottle: m)`.
    @inline(__always)
    mutating func tint(_ speckle: Speckle, _ q: SIMD2<Float>, mottle m: Float) -> SIMD3<Float> {
      guard let (u, v) = Self.offset(q, from: cellBase) else {
        return speckle.tint(q, mottle: m)
      }
      var nearest = Float.infinity
      var best = 0
      for dj in -1...1 {
        for di in -1...1 {
          let k = (v + dj) * 4 + u + di
          let d = q - cellPoints[k]
          let squared = (d * d).sum() - cellWeights[k]
          if squared < nearest {
            nearest = squared
            best = k
          }
        }
      }
      if !found[best] {
        crystals[best] = speckle.crystal(
          cellBase.0 &+ Int32(best % 4), cellBase.1 &+ Int32(best / 4))
        found[best] = true
      }
      return speckle.shaded(crystals[best], mottle: m, at: q - cellPoints[best])
    }

    /// `speckle.fleck(g, mottle: m)`.
    ///
    /// Its search is `tint`'s written out again for the grains' points (no weights): one
    /// function taking the blocks' arrays copied them per call, and the plate took 40% longer.
    @inline(__always)
    mutating func fleck(_ speckle: Speckle, _ g: SIMD2<Float>, mottle m: Float) -> SIMD3<Float>? {
      guard let (u, v) = Self.offset(g, from: grainBase) else {
        return speckle.fleck(g, mottle: m)
      }
      var nearest = Float.infinity
      var best = 0
      for dj in -1...1 {
        for di in -1...1 {
          let k = (v + dj) * 4 + u + di
          let d = g - grainPoints[k]
          let squared = (d * d).sum() - 0
          if squared < nearest {
            nearest = squared
            best = k
          }
        }
      }
      if !fleckFound[best] {
        flecks[best] = speckle.fleck(grainBase.0 &+ Int32(best % 4), grainBase.1 &+ Int32(best / 4))
        fleckFound[best] = true
      }
      guard let fleck = flecks[best] else { return nil }
      return fleck * (1 + 0.1 * speckle.strength * m)
    }
  }
}

@inline(__always)
private func smoothstep(_ a: Float, _ b: Float, _ x: Float) -> Float {
  let t = min(max((x - a) / (b - a), 0), 1)
  return t * t * (3 - 2 * t)
}

/// `color` over `base`, per channel, within 0...16 (a base of 0 keeps its channel).
///
/// (At most 4, light crystals on a near-black slab stayed as dark as its ground.)
private func colorRatio(_ color: SIMD3<Float>, _ base: SIMD3<Float>) -> SIMD3<Float> {
  var r = SIMD3<Float>(repeating: 1)
  for c in 0..<3 where base[c] > 1e-4 { r[c] = min(16, color[c] / base[c]) }
  return r
}
