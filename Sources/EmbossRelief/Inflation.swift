import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossSupport

/// The inflated relief (`ReliefProfile.inflated`): the ink swollen as a balloon or a drop of
/// liquid, round across every stroke and around its ends, with no crease anywhere.
///
/// The swell is the solution of Poisson's equation `-∇²φ = 1` inside the ink with `φ = 0` on
/// its outline (the "inflation" of sketch-based modelling: Teddy, Monster Mash), whose square
/// root `sqrt(2φ)` is a half circle across a straight stroke of any width (`sqrt(x (w - x))`
/// for a stroke `w` wide) and a half ellipsoid over a disk. The profile maps it to the 0...1
/// heights: `t = sqrt(2φ) / radius`, height `1 - (1 - t)²` up to the plateau at `t = 1`, so a
/// stroke narrower than twice the radius is a dome and a wider shape levels off smoothly.
///
/// The equation is solved on the pixel grid by full multigrid (red-black Gauss-Seidel,
/// V-cycles), with the outline placed exactly: where a pixel's neighbour lies outside, the
/// stencil's arm ends where the signed distance to the outline crosses zero between them
/// (Shortley and Weller), so the swell follows the outline's sub-pixel position. Away from
/// the outline a pixel's slope comes from central differences of `φ`. Near it, where the
/// square root makes the slope change fast, `φ` (which is smooth) is its value plus its
/// gradient across the pixel (one-sided at the outline, through the point where it is 0), and
/// the pixel is sampled 4 x 4 from that, as the bevel samples its edge (`Bevel`); a pixel on
/// the outline whose center lies outside reads `φ` further in along the exact direction off
/// the outline.
enum Inflation {
  /// V-cycles at most after the full-multigrid start; they stop earlier once `tolerance` is
  /// met (each takes off about half of what is left).
  static let maxCycles = 40
  /// The largest change a Jacobi step would still make, against the largest value of the
  /// solution, at which the cycles stop.
  static let tolerance: Float = 1e-4
  /// Red-black Gauss-Seidel sweeps before and after each coarse correction.
  static let sweeps = 3

  /// One grid of the multigrid hierarchy: its cells inside the ink and the 5-point operator
  /// `diag φ - Σ c φ_neighbour` (neighbours outside count as 0).
  struct Grid {
    let width: Int
    let height: Int
    var inside: [Bool]
    var east: [Float]
    var west: [Float]
    var north: [Float]
    var south: [Float]
    var diagonal: [Float]

    /// A grid `width` x `height` of uniform cells `h` wide with `inside` as its domain.
    init(width: Int, height: Int, inside: [Bool], h: Float) {
      self.width = width
      self.height = height
      self.inside = inside
      let c = 1 / (h * h)
      let count = width * height
      east = [Float](repeating: c, count: count)
      west = east
      north = east
      south = east
      diagonal = [Float](repeating: 4 * c, count: count)
      for y in 0..<height {
        for x in 0..<width {
          let i = y * width + x
          if x + 1 >= width || !inside[i + 1] { east[i] = 0 }
          if x == 0 || !inside[i - 1] { west[i] = 0 }
          if y + 1 >= height || !inside[i + width] { south[i] = 0 }
          if y == 0 || !inside[i - width] { north[i] = 0 }
        }
      }
    }

    /// The grid with cells half as many each way: a cell is inside where all of its four are.
    func coarser(h: Float) -> Grid {
      let w = (width + 1) / 2
      let hh = (height + 1) / 2
      var count = [UInt8](repeating: 0, count: w * hh)
      for y in 0..<height {
        for x in 0..<width where self.inside[y * width + x] {
          count[(y / 2) * w + x / 2] += 1
        }
      }
      // Wholly inside only: a coarse domain larger than the fine one over-corrects (the
      // cycles diverge where half the cells are taken).
      let inside = count.map { $0 == 4 }
      return Grid(width: w, height: hh, inside: inside, h: h)
    }

    /// One red-black Gauss-Seidel sweep of `phi` toward `rhs`: the cells of one color read
    /// only the other's, so rows are swept in parallel with the same result.
    func sweep(_ phi: inout [Float], _ rhs: [Float], _ parallelism: Parallelism) {
      let w = width
      phi.withUnsafeMutableBufferPointer { p in
        let p = SharedPointer(p)
        for color in 0..<2 {
          parallelism.forEachBand(height, bandSize: 32) { rows in
            inside.withUnsafeBufferPointer { inside in
              east.withUnsafeBufferPointer { east in
                west.withUnsafeBufferPointer { west in
                  north.withUnsafeBufferPointer { north in
                    south.withUnsafeBufferPointer { south in
                      diagonal.withUnsafeBufferPointer { diagonal in
                        rhs.withUnsafeBufferPointer { rhs in
                          let p = p.buffer
                          for y in rows {
                            var x = (y + color) & 1
                            while x < w {
                              let i = y * w + x
                              if inside[i] {
                                var sum = rhs[i]
                                if east[i] != 0 { sum += east[i] * p[i + 1] }
                                if west[i] != 0 { sum += west[i] * p[i - 1] }
                                if south[i] != 0 { sum += south[i] * p[i + w] }
                                if north[i] != 0 { sum += north[i] * p[i - w] }
                                p[i] = sum / diagonal[i]
                              }
                              x += 2
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }

    /// `rhs - A phi` inside (0 outside).
    func residual(_ phi: [Float], _ rhs: [Float]) -> [Float] {
      let w = width
      var r = [Float](repeating: 0, count: phi.count)
      for y in 0..<height {
        for x in 0..<w {
          let i = y * w + x
          guard inside[i] else { continue }
          var a = diagonal[i] * phi[i]
          if east[i] != 0 { a -= east[i] * phi[i + 1] }
          if west[i] != 0 { a -= west[i] * phi[i - 1] }
          if south[i] != 0 { a -= south[i] * phi[i + w] }
          if north[i] != 0 { a -= north[i] * phi[i - w] }
          r[i] = rhs[i] - a
        }
      }
      return r
    }

    /// Values on this grid's inside cells bilinearly interpolated (cell-centered: 3/4 of the
    /// parent, 1/4 of its neighbour on each axis) from `coarse` (`coarser`'s grid), added to
    /// `phi`.
    func addInterpolated(_ values: [Float], from coarse: Grid, to phi: inout [Float]) {
      for y in 0..<height {
        let py = y / 2
        let qy = min(max(y & 1 == 0 ? py - 1 : py + 1, 0), coarse.height - 1)
        for x in 0..<width where inside[y * width + x] {
          let px = x / 2
          let qx = min(max(x & 1 == 0 ? px - 1 : px + 1, 0), coarse.width - 1)
          let e =
            0.5625 * values[py * coarse.width + px] + 0.1875
            * (values[py * coarse.width + qx] + values[qy * coarse.width + px]) + 0.0625
            * values[qy * coarse.width + qx]
          phi[y * width + x] += e
        }
      }
    }
  }

  /// One V-cycle on `grids[level]` (and below) of `phi` toward `rhs`.
  static func cycle(
    _ grids: [Grid], _ level: Int, _ phi: inout [Float], _ rhs: [Float],
    _ parallelism: Parallelism
  ) {
    let grid = grids[level]
    guard level + 1 < grids.count else {
      // The coarsest grid: sweeps until it is solved (it is a few cells).
      for _ in 0..<64 { grid.sweep(&phi, rhs, .serial) }
      return
    }
    for _ in 0..<sweeps { grid.sweep(&phi, rhs, parallelism) }
    let r = grid.residual(phi, rhs)
    let coarse = grids[level + 1]
    // Restriction: each coarse cell gets the mean of its four cells' residuals.
    var coarseRHS = [Float](repeating: 0, count: coarse.width * coarse.height)
    for y in 0..<grid.height {
      for x in 0..<grid.width {
        coarseRHS[(y / 2) * coarse.width + x / 2] += 0.25 * r[y * grid.width + x]
      }
    }
    var correction = [Float](repeating: 0, count: coarseRHS.count)
    cycle(grids, level + 1, &correction, coarseRHS, parallelism)
    grid.addInterpolated(correction, from: coarse, to: &phi)
    for _ in 0..<sweeps { grid.sweep(&phi, rhs, parallelism) }
  }

  /// Full multigrid: the solution on `grids[level]` started from the coarser grid's,
  /// interpolated, and improved by one V-cycle.
  static func fullCycle(_ grids: [Grid], _ level: Int, _ parallelism: Parallelism) -> [Float] {
    let grid = grids[level]
    let rhs = grid.inside.map { $0 ? Float(1) : 0 }
    var phi = [Float](repeating: 0, count: rhs.count)
    if level + 1 < grids.count {
      grid.addInterpolated(
        fullCycle(grids, level + 1, parallelism), from: grids[level + 1], to: &phi)
    }
    cycle(grids, level, &phi, rhs, parallelism)
    return phi
  }

  /// Solves `-∇²φ = 1` on `fine` (whose operator carries the outline's exact position) by
  /// full multigrid, then V-cycles until the residual has fallen by `tolerance`.
  static func solve(_ fine: Grid, parallelism: Parallelism) -> [Float] {
    var grids = [fine]
    var h: Float = 2
    while min(grids[grids.count - 1].width, grids[grids.count - 1].height) > 4 {
      grids.append(grids[grids.count - 1].coarser(h: h))
      h *= 2
    }
    let rhs = fine.inside.map { $0 ? Float(1) : 0 }
    var phi = fullCycle(grids, 0, parallelism)
    var last = Float.infinity
    for _ in 0..<maxCycles {
      // The largest change a Jacobi step would make, against the largest value.
      let r = fine.residual(phi, rhs)
      var (step, top): (Float, Float) = (0, 0)
      for i in r.indices where fine.inside[i] {
        step = max(step, abs(r[i]) / fine.diagonal[i])
        top = max(top, phi[i])
      }
      // Done, or at the floor of `Float`'s precision (the step no longer falls).
      if step <= top * tolerance || step > 0.9 * last { break }
      last = step
      cycle(grids, 0, &phi, rhs, parallelism)
    }
    return phi
  }

  /// The inflated relief of `mask` over `region` (the ink bounds grown by one pixel), from
  /// `geometry`'s exact distances: heights (0...1, times `sign`) and slopes per pixel of
  /// `region`, row-major.
  static func field(
    geometry: OutlineDistance, mask: CoverageMask, region: PixelRect, radius: Float,
    profile: ReliefProfile, sign: Float, subSamples: Bool, cellMeans: Bool,
    parallelism: Parallelism
  ) -> (heights: [Float], slopes: [SIMD2<Float>], samples: SubSamples) {
    let w = region.width
    let h = region.height
    let count = w * h
    // Signed distances (inside positive) and nearest pieces near the outline; beyond,
    // infinite and -1, inside or out by the coverage.
    var distance = [Float](repeating: .infinity, count: count)
    var feature = [Int32](repeating: -1, count: count)
    distance.withUnsafeMutableBufferPointer { distance in
      feature.withUnsafeMutableBufferPointer { feature in
        geometry.scan(
          region: region, rows: 0..<h, inner: 3, outer: 3, distance: distance,
          feature: feature)
      }
    }
    var inside = [Bool](repeating: false, count: count)
    for y in 0..<h {
      for x in 0..<w {
        let i = y * w + x
        let c = mask[region.x + x, region.y + y]
        var d = distance[i]
        // Wholly in or out by the coverage, as the bevel decides (`Bevel.shade`).
        if c == 1 { d = abs(d) } else if c == 0 { d = -abs(d) }
        if !d.isFinite { d = c >= 0.5 ? .infinity : -.infinity }
        distance[i] = d
        inside[i] = d > 0
      }
    }
    var grid = Grid(width: w, height: h, inside: inside, h: 1)
    // Shortley-Weller: an arm toward a neighbour outside ends where the distance crosses 0,
    // at a fraction theta of the way (the neighbour's value there is 0). Each pixel's arms
    // (east, west, south, north) are kept for its gradient.
    var arms = [SIMD4<Float>](repeating: SIMD4(repeating: 1), count: count)
    for y in 0..<h {
      for x in 0..<w {
        let i = y * w + x
        guard inside[i] else { continue }
        func arm(_ j: Int?) -> Float {
          guard let j, !inside[j] else { return 1 }
          let (a, b) = (distance[i], distance[j])
          guard a.isFinite, b.isFinite, a - b > 0 else { return 1 }
          return max(a / (a - b), 0.05)
        }
        let e = arm(x + 1 < w ? i + 1 : nil)
        let wst = arm(x > 0 ? i - 1 : nil)
        let s = arm(y + 1 < h ? i + w : nil)
        let n = arm(y > 0 ? i - w : nil)
        arms[i] = SIMD4(e, wst, s, n)
        grid.east[i] = x + 1 < w && inside[i + 1] ? 2 / ((e + wst) * e) : 0
        grid.west[i] = x > 0 && inside[i - 1] ? 2 / ((e + wst) * wst) : 0
        grid.south[i] = y + 1 < h && inside[i + w] ? 2 / ((s + n) * s) : 0
        grid.north[i] = y > 0 && inside[i - w] ? 2 / ((s + n) * n) : 0
        grid.diagonal[i] = 2 / (e * wst) + 2 / (s * n)
      }
    }
    let phi = solve(grid, parallelism: parallelism)

    // phi between pixel centers (0 at those outside).
    func sample(_ q: SIMD2<Float>) -> Float {
      let t = RGBAImage.bilinearTexels(
        width: w, height: h, x: q.x - Float(region.x), y: q.y - Float(region.y))
      let top = phi[t.y0 * w + t.x0] * (1 - t.tx) + phi[t.y0 * w + t.x1] * t.tx
      let bottom = phi[t.y1 * w + t.x0] * (1 - t.tx) + phi[t.y1 * w + t.x1] * t.tx
      return top * (1 - t.ty) + bottom * t.ty
    }
    var heights = [Float](repeating: 0, count: count)
    var slopes = [SIMD2<Float>](repeating: .zero, count: count)
    var samples = SubSamples()
    let pieces = geometry.pieces
    for y in 0..<h {
      for x in 0..<w {
        let i = y * w + x
        let c = mask[region.x + x, region.y + y]
        guard c > 0 else { continue }
        let d = distance[i]
        let whole =
          inside[i] && x > 0 && y > 0 && x + 1 < w && y + 1 < h && inside[i - 1]
          && inside[i + 1] && inside[i - w] && inside[i + w]
        if d < Self.sampledWithin || !whole {
          guard d.isFinite, feature[i] >= 0 else { continue }
          // Near the outline, where the swell rises as the square root of the distance and
          // one slope per pixel is not enough: the swell along a line off the outline
          // (`Swell`), sampled 4 x 4.
          let center = SIMD2(Float(region.x + x) + 0.5, Float(region.y + y) + 0.5)
          var direction = OutlineDistance.direction(pieces[Int(feature[i])], center)
          let model: Swell
          let at: Float
          let gradient = inside[i] ? Self.gradient(phi, arms, inside, i, x, y, w, h) : .zero
          let length = (gradient * gradient).sum().squareRoot()
          if length > 1e-6 {
            // Inside: phi is smooth (only its square root is not), so across the pixel it is
            // its value plus its gradient (Shortley-Weller's arms at the outline): the swell
            // along the gradient, the pixel phi / |grad phi| off the outline.
            direction = gradient / length
            model = Swell(g: length, k: 0, radius: radius, profile: profile)
            at = phi[i] / length
          } else {
            // On the outline (its center outside): along the exact direction off it, phi
            // through the points 1 and 2 pixels in, as g s + k s² at distance s.
            let p1 = sample(center + direction * (1 - d))
            let p2 = sample(center + direction * (2 - d))
            let k = (p2 / 2 - p1) / 1
            model = Swell(g: p1 - k, k: k, radius: radius, profile: profile)
            at = d
          }
          // An edge pixel's height is its ink's middle's, half its coverage in.
          heights[i] = sign * model.height(inside[i] ? at : 0.5 * c)
          slopes[i] = sign * model.rise(inside[i] ? at : 0.5 * c) * direction
          if subSamples {
            model.appendSamples(
              pixel: Int32(i), distance: at, direction: direction, sign: sign,
              cellMeans: cellMeans, to: &samples)
          }
          continue
        }
        // Inside, away from the outline: central differences.
        let value = phi[i]
        let gradient = SIMD2(phi[i + 1] - phi[i - 1], phi[i + w] - phi[i - w]) * 0.5
        let swell = (2 * value).squareRoot()
        let t = swell / radius
        heights[i] = sign * profile.height(t)
        // dt = grad(phi) / (radius sqrt(2 phi)).
        slopes[i] = sign * profile.slope(t) * gradient / (radius * max(swell, 1e-4 * radius))
      }
    }
    return (heights, slopes, samples)
  }

  /// The gradient of `phi` at inside pixel `i` (column `x`, row `y` of a `w` x `h` grid):
  /// central differences, or where an arm ends at the outline (where phi is 0) the slope at
  /// the pixel of the parabola through that point, the pixel and its neighbour across.
  static func gradient(
    _ phi: [Float], _ arms: [SIMD4<Float>], _ inside: [Bool], _ i: Int, _ x: Int, _ y: Int,
    _ w: Int, _ h: Int
  ) -> SIMD2<Float> {
    // The derivative toward `plus` of phi along one axis, with arms `a` (minus side) and `b`.
    func axis(_ minus: Int?, _ plus: Int?, _ a: Float, _ b: Float) -> Float {
      let m = minus.flatMap { inside[$0] ? phi[$0] : nil }
      let p = plus.flatMap { inside[$0] ? phi[$0] : nil }
      let v = phi[i]
      switch (m, p) {
      case (let m?, let p?): return (p - m) * 0.5
      // 0 at -a, v at 0, the neighbour at +1.
      case (nil, let p?): return v * (1 - a) / a + p * a / (1 + a)
      // The neighbour at -1, v at 0, 0 at +b.
      case (let m?, nil): return -(v * (1 - b) / b + m * b / (1 + b))
      case (nil, nil): return v * (b - a) / (a * b)
      }
    }
    let arm = arms[i]
    return SIMD2(
      axis(x > 0 ? i - 1 : nil, x + 1 < w ? i + 1 : nil, arm[1], arm[0]),
      axis(y > 0 ? i - w : nil, y + 1 < h ? i + w : nil, arm[3], arm[2]))
  }

  /// Pixels nearer the outline than this (and those on it, or next to a pixel outside) are
  /// sampled 4 x 4: the swell's slope changes too fast there for one sample.
  ///
  /// Half a pixel: a band of 2 px sampled most pixels of a thin stroke, each cell's footprint
  /// reading at most 4 x 4 taps where a pixel's reads 12 x 12, and measured worse against a
  /// render at 4x the size (mercury, radius 30 at 160 px, unsoftened, "Quartz Wave 9@" at
  /// 40 px: 25.6 dB against 30.2).
  static let sampledWithin: Float = 0.5

  /// The swell along the direction off the outline near it: `φ = g s + k s²` at distance `s`.
  struct Swell {
    let g: Float
    let k: Float
    let radius: Float
    let profile: ReliefProfile

    /// The 0...1 height at distance `s` in (0 outside).
    @inline(__always)
    func height(_ s: Float) -> Float {
      s > 0 ? profile.height((2 * max(g * s + k * s * s, 0)).squareRoot() / radius) : 0
    }

    /// The height's rise per pixel at distance `s` in, taken a ten-thousandth of the radius
    /// in at the outline itself (as the round profile's).
    @inline(__always)
    func rise(_ s: Float) -> Float {
      let swell = (2 * max(g * s + k * s * s, 0)).squareRoot()
      return profile.slope(swell / radius) * max(g + 2 * k * s, 0)
        / (radius * max(swell, 1e-4 * radius))
    }

    /// The mean rise over distances `low...high` (its rise at `low` where that is empty).
    @inline(__always)
    func meanRise(_ low: Float, _ high: Float) -> Float {
      high > low + 1e-6 ? (height(high) - height(low)) / (high - low) : rise(low)
    }

    /// Appends the slopes at the 4 x 4 sub-pixel points of a pixel at signed distance `d`
    /// whose distance grows along `direction`, each weighted by the share of its cell that
    /// is ink and taken at the middle of that inked part (its mean over it with
    /// `cellMeans`), as `Bevel.appendSamples` does for a bevel; a pixel whose cells hold no
    /// ink gets one slope, just inside the edge.
    func appendSamples(
      pixel: Int32, distance d: Float, direction: SIMD2<Float>, sign: Float, cellMeans: Bool,
      to samples: inout SubSamples
    ) {
      let step = 1 / Float(SubSamples.perSide)
      var anyInk = false
      let start = samples.slopes.count
      for offset in Bevel.offsets {
        let (weight, low, high) = Bevel.inkedSpan(
          signed: d + (offset * direction).sum(), direction: direction)
        if weight > 0 {
          let r = cellMeans ? meanRise(low, high) : rise((low + high) * 0.5)
          samples.slopes.append(sign * r * direction)
          samples.weights.append(weight)
          anyInk = true
        } else {
          samples.slopes.append(.zero)
          samples.weights.append(0)
        }
      }
      if !anyInk {
        samples.slopes.removeLast(samples.slopes.count - start)
        samples.weights.removeLast(samples.weights.count - start)
        samples.slopes.append(sign * rise(step / 4) * direction)
        samples.weights.append(1)
      }
      samples.pixels.append(pixel)
      samples.offsets.append(Int32(samples.slopes.count))
    }
  }
}
