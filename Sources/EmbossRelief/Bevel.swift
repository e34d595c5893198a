import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

/// The bevel over an outline's distances: heights and slopes at pixel centers, and the
/// sub-pixel samples of pixels whose slope changes inside them.
struct Bevel: Sendable {
  let geometry: OutlineDistance
  let region: PixelRect
  let mask: CoverageMask
  let radius: Float
  let profile: ReliefProfile
  let sign: Float
  /// Whether the pixels across the plateau's edge are sub-sampled.
  ///
  /// They are where the profile's slope jumps there (a chisel's top edge), or bends there by
  /// more than `HeightField.topChange` over the last half pixel (a round or smooth bevel of a
  /// small radius). A footprint taken across the bend would read normals past the flat top's,
  /// on the ball's far side.
  let topKink: Bool
  /// Whether the profile's slope falls continuously to the plateau's 0 at the top (a round
  /// or smooth bevel, not a chisel's edge).
  let smoothTop: Bool
  /// Distances from the edge within which the profile's slope changes by more than
  /// `HeightField.steepChange` across a pixel (a round bevel near the edge, where its slope
  /// grows without bound).
  let steepWithin: Float
  /// Whether each pixel's (and sub-sample cell's) slope is the profile's mean over the
  /// distances it spans, rather than its slope at the middle of them: for a softened relief,
  /// whose slopes are blurred, so the blur spreads a steep bevel's whole rise (a round
  /// bevel's slope grows without bound at the edge, and the middle's slope missed much of
  /// it: the softened bevel came out flatter at 1x than at 4x).
  let cellMeans: Bool

  /// Sub-samples per side of a sub-sampled pixel: `SubSamples.perSide`, or
  /// `SubSamples.finePerSide` for a bevel under `finePerSideRadius` pixels wide.
  let perSide: Int
  /// The sub-samples' offsets from the pixel's center, row-major over the `perSide` x
  /// `perSide` grid.
  let offsets: [SIMD2<Float>]
  /// How far a sub-sample lies from its pixel's center at most (a corner point of the grid).
  let sampleReach: Float

  /// The radius (pixels) under which a bevel's sub-sampled pixels take 8 x 8 points.
  ///
  /// The bevel is then a pixel or two wide, so a pixel on it spans most of the profile and
  /// 4 x 4 points under-sample it. Measured 1x against 4x on "Quartz Wave 9@" (radius 9 at
  /// 160 px): chrome 31.0 -> 35.4 dB at 16 px, 33.2 -> 36.6 at 24, 36.7 -> 39.3 at 40; gold
  /// 35.8 -> 39.9 at 16. Wider bevels gain 1 to 1.7 dB more at a quarter more time (text at
  /// 80 px: 54 -> 71 ms), so they keep 4 x 4; small text pays about 9 ms (24 px: 35 -> 44).
  static let finePerSideRadius: Float = 3

  /// The sub-samples' offsets from the pixel's center, row-major over a 4 x 4 grid.
  static let offsets: [SIMD2<Float>] = offsets(perSide: SubSamples.perSide)

  /// The sub-samples' offsets from the pixel's center, row-major over an `n` x `n` grid.
  static func offsets(perSide n: Int) -> [SIMD2<Float>] {
    let step = 1 / Float(n)
    return (0..<(n * n)).map {
      SIMD2((Float($0 % n) + 0.5) * step - 0.5, (Float($0 / n) + 0.5) * step - 0.5)
    }
  }

  init(
    geometry: OutlineDistance, region: PixelRect, mask: CoverageMask, radius: Float,
    profile: ReliefProfile, sign: Float, cellMeans: Bool = false
  ) {
    self.cellMeans = cellMeans
    self.geometry = geometry
    self.region = region
    self.mask = mask
    self.radius = radius
    self.profile = profile
    self.sign = sign
    perSide = radius < Self.finePerSideRadius ? SubSamples.finePerSide : SubSamples.perSide
    offsets = Self.offsets(perSide: perSide)
    let corner = 0.5 - 0.5 / Float(perSide)
    sampleReach = (2 * corner * corner).squareRoot()
    smoothTop = profile.slope(0.999) <= 0.01
    topKink =
      !smoothTop
      || profile.slope(max(0, 1 - 0.5 / radius)) > HeightField.topChange
    var d: Float = 0
    while d < radius,
      abs(profile.slope((d - 0.5) / radius) - profile.slope((d + 0.5) / radius))
        > HeightField.steepChange
    {
      d += 0.05
    }
    steepWithin = d
  }

  /// Height (0...1) at signed distance `d` from the edge: 0 outside.
  @inline(__always)
  func height(_ d: Float) -> Float {
    d > 0 ? profile.height(d / radius) : 0
  }

  /// The slope of the 0...1 heights at signed distance `d` inside, per pixel: the profile's
  /// derivative over the radius (0 outside).
  @inline(__always)
  func rise(_ d: Float) -> Float {
    d >= 0 ? profile.slope(d / radius) / radius : 0
  }

  /// The mean slope of the 0...1 heights over signed distances `low...high` (inside), per
  /// pixel: the heights' rise across the span over its length (its slope at `low` where it
  /// is empty).
  @inline(__always)
  func meanRise(_ low: Float, _ high: Float) -> Float {
    high > low + 1e-6 ? (height(high) - height(low)) / (high - low) : rise(low)
  }

  /// The coverage at region pixel (column, row): 0 off the canvas.
  @inline(__always)
  func coverage(_ column: Int, _ row: Int) -> Float {
    mask[region.x + column, region.y + row]
  }

  /// Heights (unless `heights` is nil) and slopes of `rows` (rows of `region`) into
  /// `heights` and `slopes` (over the region's rows from `origin` on), and the sub-samples of
  /// their pixels in the rows of `sampled` that need them (their pixel indices count from row
  /// `origin` too; an empty `sampled` for none).
  ///
  /// `distance` and `feature` hold the rows of `window`: `rows` and the rows next to them
  /// (one more on each side, within the region).
  func shade(
    rows: Range<Int>, window: Range<Int>, distance: UnsafeBufferPointer<Float>,
    feature: UnsafeBufferPointer<Int32>, heights: UnsafeMutableBufferPointer<Float>?,
    slopes: UnsafeMutableBufferPointer<SIMD2<Float>>, origin: Int = 0, sampled: Range<Int>
  ) -> SubSamples {
    let sampled = sampled.clamped(to: rows)
    let w = region.width
    let first = window.lowerBound
    let last = window.upperBound - 1
    // Directions of the nearest features, one row beyond the band's too (the crease test
    // compares neighbours).
    var directions = [SIMD2<Float>](repeating: .zero, count: (last - first + 1) * w)
    geometry.pieces.withUnsafeBufferPointer { pieces in
      for row in first...last {
        for column in 0..<w {
          let f = Int(feature[(row - first) * w + column])
          guard f >= 0 else { continue }
          let p = SIMD2(Float(region.x + column) + 0.5, Float(region.y + row) + 0.5)
          directions[(row - first) * w + column] = OutlineDistance.direction(pieces[f], p)
        }
      }
    }
    // Which neighbours each pixel of the window creases with (see `creases`).
    let creasing =
      sampled.isEmpty
      ? []
      : creases(
        window: window, rows: sampled, distance: distance, feature: feature,
        directions: directions)
    var samples = SubSamples()
    for row in rows {
      for column in 0..<w {
        let i = (row - origin) * w + column
        let local = (row - first) * w + column
        let f = Int(feature[local])
        if f < 0 {
          // Untouched: far inside (plateau) or outside (the coverage tells which, for the
          // height only).
          if let heights { heights[i] = coverage(column, row) >= 0.5 ? sign : 0 }
          slopes[i] = .zero
          continue
        }
        var d = distance[local]
        let c = coverage(column, row)
        // Wholly in or out by the coverage: a wrong side where the traced or rasterized
        // edge and the outline disagree by a hair at a tiny feature.
        if c == 1 { d = abs(d) } else if c == 0 { d = -abs(d) }
        heights?[i] = sign * height(d)
        let direction = directions[local]
        if cellMeans && c > 0 {
          // The mean over the distances the pixel spans along its direction (a pixel
          // without ink keeps no slope: the blur must not spread one from outside).
          let half = (abs(direction.x) + abs(direction.y)) * 0.5
          let (low, high) = (max(d - half, 0), d + half)
          slopes[i] = high > 0 && low < radius ? sign * meanRise(low, high) * direction : .zero
        } else {
          slopes[i] = d > 0 && d < radius ? sign * rise(d) * direction : .zero
        }
        guard c > 0, sampled.contains(row) else { continue }
        var flagged = c < 1 || (topKink && abs(d - radius) < 0.75)
        // Next to the edge on a steep bevel: the edge pixels' centers may lie outside, so
        // the compositor's footprint would see the slope change on one side only.
        if !flagged, d < steepWithin {
          flagged =
            coverage(column - 1, row) < 1 || coverage(column + 1, row) < 1
            || coverage(column, row - 1) < 1 || coverage(column, row + 1) < 1
        }
        if !flagged { flagged = creasing[local] }
        if flagged {
          appendSamples(
            column: column, row: row, feature: feature, first: first, last: last,
            origin: origin, to: &samples)
        }
      }
    }
    return samples
  }

  /// Per pixel of `window` (rows of the region): whether it creases (`crease`) with one of its
  /// eight neighbours in the window, as the pixel sees it (its own distance corrected by its
  /// coverage, the neighbour's as it is); found for the pixels of `rows` (within the window)
  /// only, false elsewhere.
  ///
  /// Each neighbouring pair is tested once for both (the test is symmetric), and twice only
  /// where the two views differ: a distance the coverage corrects, or two pieces that follow
  /// each other both ways.
  func creases(
    window: Range<Int>, rows wanted: Range<Int>, distance: UnsafeBufferPointer<Float>,
    feature: UnsafeBufferPointer<Int32>, directions: [SIMD2<Float>]
  ) -> [Bool] {
    let w = region.width
    let first = window.lowerBound
    let rows = window.count
    var creasing = [Bool](repeating: false, count: rows * w)
    // Each pixel's distance as it sees it: corrected by its coverage (for pixels with a
    // nearest feature: no other is in a pair).
    var corrected = [Float](repeating: 0, count: rows * w)
    for row in 0..<rows {
      for column in 0..<w {
        let i = row * w + column
        guard feature[i] >= 0 else { continue }
        var d = distance[i]
        let c = coverage(column, first + row)
        if c == 1 { d = abs(d) } else if c == 0 { d = -abs(d) }
        corrected[i] = d
      }
    }
    geometry.next.withUnsafeBufferPointer { next in
      directions.withUnsafeBufferPointer { directions in
        corrected.withUnsafeBufferPointer { corrected in
          creasing.withUnsafeMutableBufferPointer { creasing in
            @inline(__always) func pair(_ i: Int, _ j: Int) {
              let (f, g) = (Int(feature[i]), Int(feature[j]))
              guard f >= 0, g >= 0, f != g else { return }
              let (fi, fj) = (corrected[i], corrected[j])
              let (ri, rj) = (distance[i], distance[j])
              if fi == ri && fj == rj && !(Int(next[f]) == g && Int(next[g]) == f) {
                if crease(f, fi, directions[i], g, rj, directions[j]) {
                  creasing[i] = true
                  creasing[j] = true
                }
                return
              }
              if crease(f, fi, directions[i], g, rj, directions[j]) { creasing[i] = true }
              if crease(g, fj, directions[j], f, ri, directions[i]) { creasing[j] = true }
            }
            // The pairs with a pixel of `wanted`: from the row above it to its last.
            let top = max(wanted.lowerBound - 1, first) - first
            let bottom = min(wanted.upperBound, window.upperBound) - first
            for row in top..<bottom {
              for column in 0..<w {
                let i = row * w + column
                guard feature[i] >= 0 else { continue }
                if column + 1 < w { pair(i, i + 1) }
                guard row + 1 < rows else { continue }
                if column > 0 { pair(i, i + w - 1) }
                pair(i, i + w)
                if column + 1 < w { pair(i, i + w + 1) }
              }
            }
          }
        }
      }
    }
    return creasing
  }

  /// Whether the slope field folds between two neighbouring pixels with nearest features
  /// `f` and `g`: a crease (two walls meeting), a mitre, the medial axis of a stroke; not a
  /// smooth curve, nor the rounded side of a corner.
  @inline(__always)
  func crease(
    _ f: Int, _ df: Float, _ uf: SIMD2<Float>, _ g: Int, _ dg: Float, _ ug: SIMD2<Float>
  ) -> Bool {
    guard g >= 0, f != g, min(df, dg) < radius, max(df, dg) > 0 else { return false }
    if (uf * ug).sum() < 0.5 { return true }
    let pf = geometry.pieces[f]
    let pg = geometry.pieces[g]
    // A mitre's seam.
    if Int(geometry.next[f]) == g && pf.flags & OutlineDistance.Piece.mitreEnd != 0 { return true }
    if Int(geometry.next[g]) == f && pg.flags & OutlineDistance.Piece.mitreEnd != 0 { return true }
    if pf.group == pg.group { return false }
    // A corner, on the side the outline turns away from: the distance turns around it.
    var side: Float = 0
    if Int(geometry.next[f]) == g { side = pf.endSide }
    if Int(geometry.next[g]) == f { side = pg.endSide }
    return side == 0 || (df > 0) != (side > 0) || (dg > 0) != (side > 0)
  }

  /// The inked part of a sub-sample cell (a quarter pixel) whose center lies at signed
  /// distance `signed` from the edge, the distance growing along unit `direction`: the share
  /// of the cell that is ink (against a straight edge) and the distances it spans inside.
  ///
  /// The cell spans signed distances `signed` -/+ half, half = (|gx| + |gy|) / 2 of a cell.
  @inline(__always)
  static func inkedSpan(
    signed: Float, direction: SIMD2<Float>, perSide: Int = SubSamples.perSide
  ) -> (
    weight: Float, low: Float, high: Float
  ) {
    let half = (abs(direction.x) + abs(direction.y)) * 0.5 / Float(perSide)
    let low = max(0, signed - half)
    let high = signed + half
    let weight = half > 0 ? min(max((high - low) / (2 * half), 0), 1) : (signed > 0 ? 1 : 0)
    return (weight, low, high)
  }

  /// Keeps, in order, the first `count` of `candidates` that can be nearest to some
  /// sub-sample of the pixel centered at `center`, and returns how many.
  ///
  /// A piece without a mitred joint has a distance that changes by at most the distance
  /// moved (its absolute signed distance is the Euclidean distance to the segment), so if
  /// its distance at the center exceeds the least such distance there by more than twice
  /// `sampleReach` (and a margin for rounding), it is farther than that piece at every
  /// sub-sample, and never the nearest nor tied. Mitred pieces (their distance switches to
  /// a line's past the joint) are always kept.
  @inline(__always)
  static func nearCandidates(
    _ candidates: UnsafeMutableBufferPointer<Int32>, count: Int,
    pieces: UnsafeBufferPointer<OutlineDistance.Piece>, center: SIMD2<Float>, reach: Float
  ) -> Int {
    let mitred = OutlineDistance.Piece.mitreStart | OutlineDistance.Piece.mitreEnd
    return withUnsafeTemporaryAllocation(of: Float.self, capacity: count) { distances in
      var least = Float.infinity
      for j in 0..<count {
        let piece = pieces[Int(candidates[j])]
        guard piece.flags & mitred == 0 else {
          distances[j] = -.infinity
          continue
        }
        let d = abs(OutlineDistance.signedDistance(piece, center))
        distances[j] = d
        least = min(least, d)
      }
      guard least.isFinite else { return count }
      let limit = least + 2 * reach + 0.01
      var kept = 0
      for j in 0..<count where distances[j] <= limit {
        candidates[kept] = candidates[j]
        kept += 1
      }
      return kept
    }
  }

  /// The corners of a pixel from its center.
  static let corners = [
    SIMD2<Float>(-0.5, -0.5), SIMD2(0.5, -0.5), SIMD2(-0.5, 0.5), SIMD2(0.5, 0.5),
  ]

  /// The piece among `candidates` nearest to `p` (ties to the smaller index) and its signed
  /// distance there; piece -1 when there is no candidate.
  @inline(__always)
  static func nearest(
    _ candidates: UnsafeBufferPointer<Int32>, _ pieces: UnsafeBufferPointer<OutlineDistance.Piece>,
    _ p: SIMD2<Float>
  ) -> (signed: Float, piece: Int) {
    var best = Float.infinity
    var bestSigned: Float = 0
    var bestPiece = -1
    for k in candidates {
      let d = OutlineDistance.signedDistance(pieces[Int(k)], p)
      let m = abs(d)
      if m < best || (m == best && Int(k) < bestPiece) {
        (best, bestSigned, bestPiece) = (m, d, Int(k))
      }
    }
    return (bestSigned, bestPiece)
  }

  /// The share of a unit pixel whose signed distance from its center's, along unit
  /// direction `g`, is at most `u`: the distances over a pixel spread as a trapezoid (two
  /// uniform spreads, of widths |gx| and |gy|, added), whose integral this is.
  @inline(__always)
  static func pixelShare(below u: Float, direction g: SIMD2<Float>) -> Float {
    let (a, b) = (abs(g.x), abs(g.y))
    let outer = (a + b) * 0.5
    guard u > -outer else { return 0 }
    guard u < outer else { return 1 }
    let (wide, narrow) = (max(a, b), min(a, b))
    // Along an axis: even over the pixel's width.
    guard narrow > 1e-4 else { return (u + outer) / (2 * outer) }
    let inner = (wide - narrow) * 0.5
    if u < -inner { return (u + outer) * (u + outer) / (2 * a * b) }
    if u > inner { return 1 - (outer - u) * (outer - u) / (2 * a * b) }
    return narrow / (2 * wide) + (u + inner) / wide
  }

  /// Appends region pixel `pixel`, centered at `center`, as a strip (see `SubSamples`) if
  /// its slope changes only across the edge; returns false, appending nothing, otherwise.
  ///
  /// Such a pixel has one smooth run of the outline nearest at its center and its four
  /// corners, each point across a piece of it (not around a corner, nor on a mitre's seam),
  /// with directions within 18 degrees of the center's, and its ink on the bevel (short of
  /// the plateau). There the distance grows along the direction at a steady rate, so a render
  /// at 4x the size sees the pixel's slopes as a function of distance alone, spread over the
  /// pixel as `pixelShare`: the strip's bins split the ink's distances in equal steps, each
  /// weighted by its share of the pixel and sloped at its middle, and the direction's turn
  /// along the edge (a curve's) gives each its width across. Nine entries instead of 16
  /// samples, each found without a search among the pieces.
  func appendStrip(
    candidates: UnsafeBufferPointer<Int32>, center: SIMD2<Float>,
    pieces: UnsafeBufferPointer<OutlineDistance.Piece>, pixel: Int32,
    to samples: inout SubSamples
  ) -> Bool {
    @inline(__always) func nearest(_ p: SIMD2<Float>) -> (signed: Float, piece: Int) {
      Self.nearest(candidates, pieces, p)
    }
    // Whether `p`'s distance is a line's across `piece`: no spur, and `p` projects inside it
    // or past a smooth joint (not around a corner, nor onto a mitre's seam).
    @inline(__always) func plain(_ piece: OutlineDistance.Piece, _ p: SIMD2<Float>) -> Bool {
      guard piece.flags & OutlineDistance.Piece.spur == 0 else { return false }
      let t = ((p - piece.a) * piece.v).sum() * piece.inverseLength2
      if t <= 0 { return piece.flags & OutlineDistance.Piece.smoothStart != 0 }
      if t >= 1 { return piece.flags & OutlineDistance.Piece.smoothEnd != 0 }
      return true
    }
    let (d0, k0) = nearest(center)
    guard k0 >= 0 else { return false }
    let piece = pieces[k0]
    guard plain(piece, center) else { return false }
    let g = OutlineDistance.direction(piece, center)
    let outer = (abs(g.x) + abs(g.y)) * 0.5
    let (low, high) = (max(d0 - outer, 0), d0 + outer)
    // Across the top's edge only where the slope falls to the plateau's continuously (a
    // round or smooth bevel): the bins past the radius are flat.
    guard high - low > 1e-3, high < radius || smoothTop else { return false }
    // The same smooth run, turning little, at every corner.
    for corner in Self.corners {
      let p = center + corner
      let k = nearest(p).piece
      let other = pieces[k]
      guard other.group == piece.group, plain(other, p),
        (OutlineDistance.direction(other, p) * g).sum() > 0.95
      else { return false }
    }
    // The direction's turn across the pixel along the edge (0 along a straight one).
    var turn: Float = 0
    if piece.flags & OutlineDistance.Piece.curved != 0 || candidates.count > 1 {
      let along = SIMD2(-g.y, g.x) * 0.5
      let (p0, p1) = (center - along, center + along)
      let g0 = OutlineDistance.direction(pieces[nearest(p0).piece], p0)
      let g1 = OutlineDistance.direction(pieces[nearest(p1).piece], p1)
      turn = atan2(g0.x * g1.y - g0.y * g1.x, (g0 * g1).sum())
    }
    samples.appendStrip(
      pixel: pixel, low: low, high: high, center: d0, direction: g, turn: turn
    ) { sign * rise($0) * g }
    return true
  }

  /// Appends the slopes at the 4 x 4 sub-pixel points of region pixel (column, row), times
  /// `sign`, each from its own nearest feature among those its neighbours found (and the
  /// pieces next to them), weighted by the share of its quarter-pixel cell that is ink (the
  /// cell against a straight edge at the point's signed distance) and taken at the middle of
  /// that inked part, so the cells along the edge count as much as the ink they hold, as in a
  /// render at 4x the size.
  ///
  /// A pixel whose cells hold no ink gets one slope, just inside the edge
  /// (its ink is a sliver along it). Appends nothing when no feature is near. `feature` holds
  /// the rows `first...last` (those next to `row` among them); the pixel's index counts from
  /// row `origin`.
  func appendSamples(
    column: Int, row: Int, feature: UnsafeBufferPointer<Int32>, first: Int, last: Int,
    origin: Int = 0, to samples: inout SubSamples
  ) {
    let w = region.width
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 27) { candidates in
      var count = 0
      func add(_ c: Int32) {
        guard c >= 0 else { return }
        for j in 0..<count where candidates[j] == c { return }
        candidates[count] = c
        count += 1
      }
      for ny in max(first, row - 1)...min(last, row + 1) {
        for nx in max(0, column - 1)...min(w - 1, column + 1) {
          let c = feature[(ny - first) * w + nx]
          guard c >= 0 else { continue }
          add(c)
          add(geometry.next[Int(c)])
          add(geometry.previous[Int(c)])
        }
      }
      guard count > 0 else { return }
      let center = SIMD2(Float(region.x + column) + 0.5, Float(region.y + row) + 0.5)
      if count > 2 {
        count = geometry.pieces.withUnsafeBufferPointer { pieces in
          Self.nearCandidates(
            candidates, count: count, pieces: pieces, center: center, reach: sampleReach)
        }
      }
      // A pixel whose slope changes only across its edge: a strip, not 16 samples.
      if !cellMeans,
        geometry.pieces.withUnsafeBufferPointer({ pieces in
          appendStrip(
            candidates: UnsafeBufferPointer(rebasing: candidates[0..<count]), center: center,
            pieces: pieces, pixel: Int32((row - origin) * w + column), to: &samples)
        })
      {
        return
      }
      let n = perSide
      let step = 1 / Float(n)
      var closest: (distance: Float, gradient: SIMD2<Float>) = (.infinity, .zero)
      // The samples, made in a buffer on the stack and appended at once.
      let cells = n * n
      let anyInk = withUnsafeTemporaryAllocation(of: SIMD2<Float>.self, capacity: cells) {
        slopes in
        withUnsafeTemporaryAllocation(of: Float.self, capacity: cells) { weights in
          var anyInk = false
          geometry.pieces.withUnsafeBufferPointer { pieces in
            let candidates = UnsafeBufferPointer(rebasing: candidates[0..<count])
            for (index, offset) in offsets.enumerated() {
              let p = center + offset
              let (bestSigned, bestPiece) = Self.nearest(candidates, pieces, p)
              let best = abs(bestSigned)
              let g = OutlineDistance.direction(pieces[bestPiece], p)
              let (weight, low, high) = Self.inkedSpan(
                signed: bestSigned, direction: g, perSide: n)
              if weight > 0 {
                slopes[index] =
                  sign * (cellMeans ? meanRise(low, high) : rise((low + high) * 0.5)) * g
                weights[index] = weight
                anyInk = true
              } else {
                slopes[index] = .zero
                weights[index] = 0
                if best < closest.distance { closest = (best, g) }
              }
            }
          }
          if anyInk {
            samples.slopes.append(contentsOf: UnsafeBufferPointer(slopes))
            samples.weights.append(contentsOf: UnsafeBufferPointer(weights))
          }
          return anyInk
        }
      }
      if !anyInk {
        guard closest.distance.isFinite else { return }
        samples.slopes.append(sign * rise(step / 4) * closest.gradient)
        samples.weights.append(1)
      }
      samples.pixels.append(Int32((row - origin) * w + column))
      samples.offsets.append(Int32(samples.slopes.count))
    }
  }
}
