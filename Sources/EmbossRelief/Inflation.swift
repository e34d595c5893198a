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
/// V-cycles), with the outline placed exactly: where the segment to a pixel's neighbour
/// crosses the outline, the stencil's arm ends there (Shortley and Weller), so the swell
/// follows the outline's sub-pixel position, and a slit narrower than a pixel cuts the grid
/// even where no pixel center falls in it. Around each inside corner, where φ's gradient
/// grows without bound, the relief is solved again on a grid 4 times finer (one node per
/// sub-pixel sample), held at the coarse solution on its border (`refined`). Away from
/// the outline a pixel's slope comes from central differences of `φ`. Near it, where the
/// square root makes the slope change fast, `φ` (which is smooth) is a parabola along its
/// gradient through the pixel's value and slope, curved as across a straight stroke
/// (`φ'' = -1`, one-sided at the outline, through the point where it is 0), so on a stroke
/// about a pixel wide it turns over at the crest and falls to the far side; the pixel is
/// sampled from that (strips, or 4 x 4 points), as the bevel samples its edge (`Bevel`). A
/// pixel on the outline whose center lies outside reads `φ` further in along the exact
/// direction off the outline.
enum Inflation {
  /// V-cycles at most after the full-multigrid start; they stop earlier once `tolerance` is
  /// met (each takes off about half of what is left).
  static let maxCycles = 40
  /// The largest change a Jacobi step would still make, against the largest value of the
  /// solution, at which the cycles stop.
  static let tolerance: Float = 1e-4
  /// Red-black Gauss-Seidel sweeps before and after each coarse correction.
  static let sweeps = 3

  /// A cell's 5-point operator, `diagonal φ - Σ arm φ_neighbour` (east, west, south, north;
  /// a neighbour outside or cut off counts as 0), and its arms' lengths in cells (1 where the
  /// neighbour is inside and not cut off; less where the outline is nearer: Shortley and
  /// Weller), which its gradient needs.
  struct Stencil: Equatable {
    var east: Float
    var west: Float
    var south: Float
    var north: Float
    var diagonal: Float
    var arms: SIMD4<Float>
  }

  /// One grid of the multigrid hierarchy: its cells inside the ink and the 5-point operator
  /// at each.
  ///
  /// Operators are shared: a cell holds the index of its own in `stencils`, whose first 16
  /// are those of cells with whole arms (`plain`: `1 / h²` toward each neighbour inside, or
  /// counted as inside, by the bits of the index, and `4 / h²` on the diagonal); only cells
  /// at the outline have one of their own. (Five floats a cell and four arms made the
  /// inflated relief's solve 41 bytes a cell where this is 5.)
  struct Grid {
    let width: Int
    let height: Int
    var inside: [Bool]
    /// Per cell, its operator in `stencils` (0 for a cell outside, which is never read).
    var stencil: [Int32]
    /// The operators: 16 `plain` ones, then the outline's cells' own.
    var stencils: [Stencil]

    /// The bits of a plain stencil's index: which neighbours count as inside.
    static let eastBit: Int32 = 1
    static let westBit: Int32 = 2
    static let southBit: Int32 = 4
    static let northBit: Int32 = 8

    /// The 16 operators of cells with whole arms, for uniform cells `h` wide: `1 / h²` toward
    /// each neighbour whose bit is set, 0 toward the others; `4 / h²` on the diagonal.
    static func plain(h: Float) -> [Stencil] {
      let c = 1 / (h * h)
      return (0..<Int32(16)).map { bits in
        Stencil(
          east: bits & eastBit != 0 ? c : 0, west: bits & westBit != 0 ? c : 0,
          south: bits & southBit != 0 ? c : 0, north: bits & northBit != 0 ? c : 0,
          diagonal: 4 * c, arms: SIMD4(repeating: 1))
      }
    }

    /// A grid `width` x `height` of uniform cells `h` wide with `inside` as its domain.
    init(width: Int, height: Int, inside: [Bool], h: Float) {
      self.width = width
      self.height = height
      self.inside = inside
      stencils = Self.plain(h: h)
      stencil = [Int32](uninitializedCount: width * height) { out, count in
        for y in 0..<height {
          for x in 0..<width {
            let i = y * width + x
            var bits: Int32 = 0
            if x + 1 < width && inside[i + 1] { bits |= Self.eastBit }
            if x > 0 && inside[i - 1] { bits |= Self.westBit }
            if y + 1 < height && inside[i + width] { bits |= Self.southBit }
            if y > 0 && inside[i - width] { bits |= Self.northBit }
            out.initializeElement(at: i, to: inside[i] ? bits : 0)
          }
        }
        count = width * height
      }
    }

    /// Cell `i`'s operator.
    @inline(__always)
    subscript(_ i: Int) -> Stencil { stencils[Int(stencil[i])] }

    /// Cell `i`'s arms (east, west, south, north).
    @inline(__always)
    func arms(_ i: Int) -> SIMD4<Float> { self[i].arms }

    /// The grid with cells half as many each way: a cell is inside where all of its four are.
    func coarser(h: Float) -> Grid {
      let w = (width + 1) / 2
      let hh = (height + 1) / 2
      var count = [UInt8](repeating: 0, count: w * hh)
      for y in 0..<height {
        for x in 0..<width where self.inside[y * width + x] {
          // A cell whose arm toward a neighbour inside is cut (a slit between them) is left
          // out too: the coarse grid cannot hold the cut.
          let i = y * width + x
          let s = self[i]
          let cut =
            (x + 1 < width && self.inside[i + 1] && s.east == 0)
            || (x > 0 && self.inside[i - 1] && s.west == 0)
            || (y + 1 < height && self.inside[i + width] && s.south == 0)
            || (y > 0 && self.inside[i - width] && s.north == 0)
          if !cut { count[(y / 2) * w + x / 2] += 1 }
        }
      }
      // Wholly inside only: a coarse domain larger than the fine one over-corrects (the
      // cycles diverge where half the cells are taken).
      let inside = count.map { $0 == 4 }
      return Grid(width: w, height: hh, inside: inside, h: h)
    }

    /// One red-black Gauss-Seidel sweep of `phi` toward `rhs` (nil: 1 at every cell inside,
    /// the equation itself, held as no array): the cells of one color read only the other's,
    /// so rows are swept in parallel with the same result.
    func sweep(_ phi: inout [Float], _ rhs: [Float]?, _ parallelism: Parallelism) {
      let ones = rhs == nil
      let w = width
      phi.withUnsafeMutableBufferPointer { p in
        let p = SharedPointer(p)
        for color in 0..<2 {
          parallelism.forEachBand(height, bandSize: 32) { rows in
            inside.withUnsafeBufferPointer { inside in
              stencil.withUnsafeBufferPointer { stencil in
                stencils.withUnsafeBufferPointer { stencils in
                  (rhs ?? []).withUnsafeBufferPointer { rhs in
                    let p = p.buffer
                    for y in rows {
                      var x = (y + color) & 1
                      while x < w {
                        let i = y * w + x
                        if inside[i] {
                          let s = stencils[Int(stencil[i])]
                          var sum = ones ? 1 : rhs[i]
                          if s.east != 0 { sum += s.east * p[i + 1] }
                          if s.west != 0 { sum += s.west * p[i - 1] }
                          if s.south != 0 { sum += s.south * p[i + w] }
                          if s.north != 0 { sum += s.north * p[i - w] }
                          p[i] = sum / s.diagonal
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

    /// This grid and its coarser ones (`coarser`), cells `spacing` wide on this one, down
    /// to one whose shorter side is at most 4 cells.
    func hierarchy(spacing: Float) -> [Grid] {
      var grids = [self]
      var h = 2 * spacing
      while min(grids[grids.count - 1].width, grids[grids.count - 1].height) > 4 {
        grids.append(grids[grids.count - 1].coarser(h: h))
        h *= 2
      }
      return grids
    }

    /// How far `phi` is from solved: the largest change a Jacobi step toward `rhs` would
    /// make, and the largest value (the cycles stop when the one falls under a fraction of
    /// the other).
    ///
    /// Each band of rows finds its own largest (a maximum is the same in any order).
    func progress(
      _ phi: [Float], _ rhs: [Float]?, _ parallelism: Parallelism = .serial
    ) -> (step: Float, top: Float) {
      let bandRows = 32
      var bands = [SIMD2<Float>](repeating: .zero, count: (height + bandRows - 1) / bandRows)
      bands.withUnsafeMutableBufferPointer { bands in
        let bands = SharedPointer(bands)
        parallelism.forEachBand(height, bandSize: bandRows) { rows in
          var (step, top): (Float, Float) = (0, 0)
          for y in rows {
            for x in 0..<width where inside[y * width + x] {
              let i = y * width + x
              step = max(step, abs((rhs?[i] ?? 1) - applied(phi, i)) / self[i].diagonal)
              top = max(top, phi[i])
            }
          }
          bands.initialize(rows.lowerBound / bandRows, to: SIMD2(step, top))
        }
      }
      return bands.reduce((0, 0)) { (max($0.0, $1.x), max($0.1, $1.y)) }
    }

    /// `A phi` at inside cell `i`.
    @inline(__always)
    func applied(_ phi: [Float], _ i: Int) -> Float {
      let s = self[i]
      var a = s.diagonal * phi[i]
      if s.east != 0 { a -= s.east * phi[i + 1] }
      if s.west != 0 { a -= s.west * phi[i - 1] }
      if s.south != 0 { a -= s.south * phi[i + width] }
      if s.north != 0 { a -= s.north * phi[i - width] }
      return a
    }

    /// `rhs - A phi` at cell `i` (0 outside).
    @inline(__always)
    func residual(_ phi: [Float], _ rhs: [Float]?, _ i: Int) -> Float {
      inside[i] ? (rhs?[i] ?? 1) - applied(phi, i) : 0
    }

    /// The residual (`rhs - A phi`) restricted to `coarse` (`coarser`'s grid): each coarse
    /// cell gets the mean of its four cells' residuals (added in row-major order, from 0),
    /// each found as it is added (a cell is in one coarse cell), so no residual is stored.
    func restrictedResidual(
      _ phi: [Float], _ rhs: [Float]?, to coarse: Grid, _ parallelism: Parallelism
    ) -> [Float] {
      [Float](uninitializedCount: coarse.width * coarse.height) { out, count in
        let out = SharedPointer(out)
        parallelism.forEachBand(coarse.height, bandSize: 16) { rows in
          for cy in rows {
            for cx in 0..<coarse.width {
              var sum: Float = 0
              for y in (2 * cy)..<min(2 * cy + 2, height) {
                for x in (2 * cx)..<min(2 * cx + 2, width) {
                  sum += 0.25 * residual(phi, rhs, y * width + x)
                }
              }
              out.initialize(cy * coarse.width + cx, to: sum)
            }
          }
        }
        count = coarse.width * coarse.height
      }
    }

    /// Values on this grid's inside cells bilinearly interpolated (cell-centered: 3/4 of the
    /// parent, 1/4 of its neighbour on each axis) from `coarse` (`coarser`'s grid), added to
    /// `phi`.
    func addInterpolated(
      _ values: [Float], from coarse: Grid, to phi: inout [Float],
      _ parallelism: Parallelism = .serial
    ) {
      phi.withUnsafeMutableBufferPointer { phi in
        let phi = SharedPointer(phi)
        parallelism.forEachBand(height, bandSize: 32) { rows in
          for y in rows {
            let py = y / 2
            let qy = min(max(y & 1 == 0 ? py - 1 : py + 1, 0), coarse.height - 1)
            for x in 0..<width where inside[y * width + x] {
              let px = x / 2
              let qx = min(max(x & 1 == 0 ? px - 1 : px + 1, 0), coarse.width - 1)
              let e =
                0.5625 * values[py * coarse.width + px] + 0.1875
                * (values[py * coarse.width + qx] + values[qy * coarse.width + px]) + 0.0625
                * values[qy * coarse.width + qx]
              phi.buffer[y * width + x] += e
            }
          }
        }
      }
    }
  }

  /// One V-cycle on `grids[level]` (and below) of `phi` toward `rhs`.
  static func cycle(
    _ grids: [Grid], _ level: Int, _ phi: inout [Float], _ rhs: [Float]?,
    _ parallelism: Parallelism
  ) {
    let grid = grids[level]
    guard level + 1 < grids.count else {
      // The coarsest grid: sweeps until it is solved (it is a few cells).
      for _ in 0..<64 { grid.sweep(&phi, rhs, .serial) }
      return
    }
    for _ in 0..<sweeps { grid.sweep(&phi, rhs, parallelism) }
    let coarse = grids[level + 1]
    let coarseRHS = grid.restrictedResidual(phi, rhs, to: coarse, parallelism)
    var correction = [Float](repeating: 0, count: coarseRHS.count)
    cycle(grids, level + 1, &correction, coarseRHS, parallelism)
    grid.addInterpolated(correction, from: coarse, to: &phi, parallelism)
    for _ in 0..<sweeps { grid.sweep(&phi, rhs, parallelism) }
  }

  /// Full multigrid: the solution on `grids[level]` started from the coarser grid's,
  /// interpolated, and improved by one V-cycle.
  static func fullCycle(_ grids: [Grid], _ level: Int, _ parallelism: Parallelism) -> [Float] {
    let grid = grids[level]
    var phi = [Float](repeating: 0, count: grid.width * grid.height)
    if level + 1 < grids.count {
      grid.addInterpolated(
        fullCycle(grids, level + 1, parallelism), from: grids[level + 1], to: &phi,
        parallelism)
    }
    cycle(grids, level, &phi, nil, parallelism)
    return phi
  }

  /// Solves `-∇²φ = 1` on `fine` (whose operator carries the outline's exact position) by
  /// full multigrid, then V-cycles until the residual has fallen by `tolerance`.
  static func solve(_ fine: Grid, parallelism: Parallelism) -> [Float] {
    let grids = fine.hierarchy(spacing: 1)
    var phi = fullCycle(grids, 0, parallelism)
    var last = Float.infinity
    for _ in 0..<maxCycles {
      let (step, top) = fine.progress(phi, nil, parallelism)
      // Done, or at the floor of `Float`'s precision (the step no longer falls).
      if step <= top * tolerance || step > 0.9 * last { break }
      last = step
      cycle(grids, 0, &phi, nil, parallelism)
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
    Self.placeOutline(
      &grid, distance: distance, spacing: 1,
      crossings: OutlineDistance.Crossings(geometry, region: region))
    let phi = solve(grid, parallelism: parallelism)
    // Around inside corners, a grid 4 times finer: which refined pixel each pixel is.
    let refinements = Self.refined(
      geometry: geometry, phi: phi, inside: inside, region: region, radius: radius,
      profile: profile, sign: sign, parallelism: parallelism)
    // (The window alone: the pixel's place in it follows from the window's rect.)
    var refinedAt = [Int32](repeating: -1, count: refinements.isEmpty ? 0 : count)
    for (r, refinement) in refinements.enumerated() {
      let window = refinement.window
      for y in 0..<window.height {
        for x in 0..<window.width where refinement.valid[y * window.width + x] {
          refinedAt[(window.y + y) * w + window.x + x] = Int32(r)
        }
      }
    }

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
        if !refinedAt.isEmpty, refinedAt[i] >= 0 {
          let r = refinements[Int(refinedAt[i])]
          let k = (y - r.window.y) * r.window.width + x - r.window.x
          heights[i] = r.heights[k]
          slopes[i] = r.slopes[k]
          if subSamples {
            let cells = SubSamples.perSide * SubSamples.perSide
            samples.slopes += r.cellSlopes[(k * cells)..<((k + 1) * cells)]
            samples.weights += r.cellWeights[(k * cells)..<((k + 1) * cells)]
            samples.pixels.append(Int32(i))
            samples.offsets.append(Int32(samples.slopes.count))
          }
          continue
        }
        let d = distance[i]
        let whole =
          inside[i] && x > 0 && y > 0 && x + 1 < w && y + 1 < h && inside[i - 1]
          && inside[i + 1] && inside[i - w] && inside[i + w] && grid.arms(i) == SIMD4(repeating: 1)
        if d < Self.sampledWithin || !whole {
          guard d.isFinite, feature[i] >= 0 else { continue }
          // Near the outline, where the swell rises as the square root of the distance and
          // one slope per pixel is not enough: the swell along a line off the outline
          // (`Swell`), sampled 4 x 4.
          let center = SIMD2(Float(region.x + x) + 0.5, Float(region.y + y) + 0.5)
          var direction = OutlineDistance.direction(pieces[Int(feature[i])], center)
          let model: Swell
          let at: Float
          let gradient = inside[i] ? Self.gradient(phi, grid, inside, i, x, y, w, h) : .zero
          let length = (gradient * gradient).sum().squareRoot()
          if length > 1e-6 {
            // Inside: phi is smooth (only its square root is not), so across the pixel it is
            // its value plus its gradient (Shortley-Weller's arms at the outline): the swell
            // along the gradient, the pixel phi / |grad phi| off the outline.
            direction = gradient / length
            // phi along the gradient as g s + k s^2 with k = -1/2: a straight stroke's phi
            // exactly (-phi'' = 1 all across it), so the model turns over at the stroke's
            // crest instead of rising on past it. Through the pixel's phi and slope:
            // k s^2 - |grad| s + phi = 0.
            let s0 = (length * length + 2 * max(phi[i], 0)).squareRoot() - length
            model = Swell(g: length + s0, k: -0.5, radius: radius, profile: profile)
            at = s0
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
          // A corner of the outline at the pixel: its ink is not one side of a line.
          let piece = pieces[Int(feature[i])]
          let (da, db) = (piece.a - center, piece.a + piece.v - center)
          let cornered =
            (max(abs(da.x), abs(da.y)) < 1
              && piece.flags & OutlineDistance.Piece.smoothStart == 0)
            || (max(abs(db.x), abs(db.y)) < 1
              && piece.flags & OutlineDistance.Piece.smoothEnd == 0)
          if subSamples
            && (cellMeans || cornered
              || !model.appendStrip(
                pixel: Int32(i), distance: at, exact: d, direction: direction, sign: sign,
                to: &samples))
          {
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
    _ phi: [Float], _ grid: Grid, _ inside: [Bool], _ i: Int, _ x: Int, _ y: Int,
    _ w: Int, _ h: Int
  ) -> SIMD2<Float> {
    // The derivative toward `plus` of phi along one axis, with arms `a` (minus side) and `b`.
    func axis(_ minus: Int?, _ plus: Int?, _ a: Float, _ b: Float) -> Float {
      let m = minus.flatMap { inside[$0] && a == 1 ? phi[$0] : nil }
      let p = plus.flatMap { inside[$0] && b == 1 ? phi[$0] : nil }
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
    let arm = grid.arms(i)
    return SIMD2(
      axis(x > 0 ? i - 1 : nil, x + 1 < w ? i + 1 : nil, arm[1], arm[0]),
      axis(y > 0 ? i - w : nil, y + 1 < h ? i + w : nil, arm[3], arm[2]))
  }

  /// How far (pixels) around an inside corner `refined` solves again.
  static let refinedReach = 4
  /// `tolerance` for a refined window, whose start (the coarse solution) is close already.
  static let refinedTolerance: Float = 1e-3
  /// How many times finer the refined grid is: one node per sub-pixel sample.
  static let refinedScale = SubSamples.perSide

  /// A window of the region whose pixels take their relief from a grid `refinedScale` times
  /// finer: heights, slopes, and each pixel's 4 x 4 sub-samples (one per fine node).
  struct Refined {
    /// The pixels that take the fine grid's values, in region pixels.
    let window: PixelRect
    /// Per pixel of `window`, row-major: height (0...1), slope, and whether the fine grid
    /// covers it (false: the coarse values stand, as for a pixel with no inked sample).
    var heights: [Float]
    var slopes: [SIMD2<Float>]
    var valid: [Bool]
    /// 16 per pixel: each sample's slope and weight (the share of its cell that is ink).
    var cellSlopes: [SIMD2<Float>]
    var cellWeights: [Float]
  }

  /// The relief solved again around every inside corner of the outline, on a grid
  /// `refinedScale` times finer, where one pixel per side is too coarse: at an inside corner
  /// φ's gradient grows without bound (as a power of the distance to the corner below 1),
  /// and a notch narrower than a pixel passes between the pixel centers unseen.
  ///
  /// Each corner's window reaches `refinedReach` pixels around it (windows that overlap are
  /// merged). The fine grid's distances are exact (the outline scaled); its border holds
  /// the coarse solution, and only the pixels a pixel inside that border take its values.
  static func refined(
    geometry: OutlineDistance, phi: [Float], inside: [Bool], region: PixelRect,
    radius: Float, profile: ReliefProfile, sign: Float, parallelism: Parallelism
  ) -> [Refined] {
    let (w, h) = (region.width, region.height)
    let pieces = geometry.pieces
    let fineGeometry = geometry.scaled(by: Float(refinedScale))
    // Thin strokes (small text, a light weight: under `wholeRefinedWidth` pixels across
    // everywhere), where one node per pixel is too coarse all over, not only at inside
    // corners, are solved again whole: one window over the region, its ring of nodes outside
    // the ink, so every ink pixel takes the fine grid's values, as a render at 4x the size
    // would. (φ peaks at w² / 8 across a stroke w wide.)
    let widest = wholeRefinedWidth * wholeRefinedWidth / 8
    if w * h <= wholeRefinedPixels, phi.allSatisfy({ $0 < widest }) {
      return [
        refine(
          window: PixelRect(x: 0, y: 0, width: w, height: h), fine: fineGeometry, phi: phi,
          inside: inside, region: region, radius: radius, profile: profile, sign: sign,
          parallelism: parallelism)
      ]
    }
    // Inside corners (the outline turns into the ink by more than a few degrees).
    var windows: [PixelRect] = []
    let reach = refinedReach
    for k in pieces.indices {
      let piece = pieces[k]
      let j = Int(geometry.next[k])
      guard j >= 0, piece.endSide > 0, piece.flags & OutlineDistance.Piece.smoothEnd == 0,
        (piece.n * pieces[j].n).sum() < 0.97
      else { continue }
      let corner = piece.a + piece.v - SIMD2(Float(region.x), Float(region.y))
      let (cx, cy) = (Int(corner.x.rounded(.down)), Int(corner.y.rounded(.down)))
      let x0 = max(cx - reach, 1)
      let y0 = max(cy - reach, 1)
      let x1 = min(cx + reach + 1, w - 1)
      let y1 = min(cy + reach + 1, h - 1)
      guard x1 - x0 >= 3, y1 - y0 >= 3 else { continue }
      windows.append(PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
    }
    // Merge overlapping windows into their bounds.
    var merged = true
    while merged {
      merged = false
      outer: for a in windows.indices {
        for b in windows.indices where b > a {
          let (p, q) = (windows[a], windows[b])
          guard p.x < q.maxX, q.x < p.maxX, p.y < q.maxY, q.y < p.maxY else { continue }
          let x = min(p.x, q.x)
          let y = min(p.y, q.y)
          windows[a] = PixelRect(
            x: x, y: y, width: max(p.maxX, q.maxX) - x, height: max(p.maxY, q.maxY) - y)
          windows.remove(at: b)
          merged = true
          break outer
        }
      }
    }
    return windows.map {
      refine(
        window: $0, fine: fineGeometry, phi: phi, inside: inside, region: region,
        radius: radius, profile: profile, sign: sign)
    }
  }

  /// The most region pixels (the ink bounds and a pixel around them) `refined` solves again
  /// whole, on the fine grid: 16 nodes each.
  static let wholeRefinedPixels = 1 << 18
  /// The width in pixels under which every part of the ink has `refined` solve it again
  /// whole (text under about 32 px in a regular weight): the 1x render of `"Kerning fjord
  /// 7&%"` in mercury at 28 px, against one at 4x box-filtered down, went from 32.4 dB with
  /// the inside corners refined alone to 42.9 dB.
  static let wholeRefinedWidth: Float = 10

  /// `refined`'s solve of one window (in region pixels; its pixels one in from its edge take
  /// the fine values).
  static func refine(
    window: PixelRect, fine geometry: OutlineDistance, phi coarse: [Float], inside: [Bool],
    region: PixelRect, radius: Float, profile: ReliefProfile, sign: Float,
    parallelism: Parallelism = .serial
  ) -> Refined {
    let n = refinedScale
    let (w, h) = (region.width, region.height)
    // Nodes: n per pixel side, and a ring of held values around them.
    let fw = window.width * n + 2
    let fh = window.height * n + 2
    let count = fw * fh
    let spacing = 1 / Float(n)
    var distance = [Float](repeating: .infinity, count: count)
    var feature = [Int32](repeating: -1, count: count)
    let fineRegion = PixelRect(
      x: (region.x + window.x) * n - 1, y: (region.y + window.y) * n - 1, width: fw, height: fh)
    // Distances within 2 pixels of the outline (the arms and the cells' shares of ink need
    // no more), from the pieces that can reach the window; farther in or out, a node is
    // inside where its pixel is.
    let depth = Float(2 * n)
    let margin = depth * 1.5 + 2
    let low = SIMD2(Float(fineRegion.x), Float(fineRegion.y)) - margin
    let high = SIMD2(Float(fineRegion.maxX), Float(fineRegion.maxY)) + margin
    let near = geometry.pieces.indices.filter { k in
      let piece = geometry.pieces[k]
      let (a, b) = (piece.a, piece.a + piece.v)
      return all(pointwiseMax(a, b) .>= low) && all(pointwiseMin(a, b) .<= high)
    }
    distance.withUnsafeMutableBufferPointer { distance in
      feature.withUnsafeMutableBufferPointer { feature in
        geometry.scan(
          region: fineRegion, rows: 0..<fh, inner: depth, outer: depth, distance: distance,
          feature: feature, only: near)
      }
    }
    // Coarse phi at a point in region pixels (0 at pixels outside).
    func coarsePhi(_ q: SIMD2<Float>) -> Float {
      let t = RGBAImage.bilinearTexels(width: w, height: h, x: q.x, y: q.y)
      let top = coarse[t.y0 * w + t.x0] * (1 - t.tx) + coarse[t.y0 * w + t.x1] * t.tx
      let bottom = coarse[t.y1 * w + t.x0] * (1 - t.tx) + coarse[t.y1 * w + t.x1] * t.tx
      return top * (1 - t.ty) + bottom * t.ty
    }
    var fineInside = [Bool](repeating: false, count: count)
    var fixed = [Bool](repeating: false, count: count)
    var values = [Float](repeating: 0, count: count)
    for y in 0..<fh {
      for x in 0..<fw {
        let i = y * fw + x
        let q = SIMD2(
          Float(window.x) + (Float(x - 1) + 0.5) * spacing,
          Float(window.y) + (Float(y - 1) + 0.5) * spacing)
        var d = distance[i]
        if !d.isFinite {
          // Far from the outline: on the side its pixel is.
          let (px, py) = (Int(q.x.rounded(.down)), Int(q.y.rounded(.down)))
          d = inside[min(max(py, 0), h - 1) * w + min(max(px, 0), w - 1)] ? .infinity : -.infinity
          distance[i] = d
        }
        guard d > 0 else { continue }
        values[i] = coarsePhi(q)
        if x == 0 || y == 0 || x == fw - 1 || y == fh - 1 {
          fixed[i] = true
        } else {
          fineInside[i] = true
        }
      }
    }
    var grid = Grid(width: fw, height: fh, inside: fineInside, h: spacing)
    placeOutline(
      &grid, distance: distance, spacing: spacing, fixed: fixed,
      crossings: OutlineDistance.Crossings(geometry, region: fineRegion, only: near))
    let grids = grid.hierarchy(spacing: spacing)
    var last = Float.infinity
    for _ in 0..<maxCycles {
      cycle(grids, 0, &values, nil, parallelism)
      let (step, top) = grid.progress(values, nil, parallelism)
      if step <= top * refinedTolerance || step > 0.9 * last { break }
      last = step
    }
    // The pixels one in from the window's edge: each cell's node is one of theirs.
    let pixels = PixelRect(
      x: window.x + 1, y: window.y + 1, width: window.width - 2, height: window.height - 2)
    let cells = n * n
    var out = Refined(
      window: pixels, heights: [Float](repeating: 0, count: pixels.width * pixels.height),
      slopes: [SIMD2<Float>](repeating: .zero, count: pixels.width * pixels.height),
      valid: [Bool](repeating: false, count: pixels.width * pixels.height),
      cellSlopes: [SIMD2<Float>](repeating: .zero, count: pixels.width * pixels.height * cells),
      cellWeights: [Float](repeating: 0, count: pixels.width * pixels.height * cells))
    for py in 0..<pixels.height {
      for px in 0..<pixels.width {
        let k = py * pixels.width + px
        var total: Float = 0
        var mean = SIMD2<Float>.zero
        for cy in 0..<n {
          for cx in 0..<n {
            let x = (px + 1) * n + cx + 1
            let y = (py + 1) * n + cy + 1
            let i = y * fw + x
            guard fineInside[i] else { continue }
            // The cell's share of ink: its node's distance across the cell (fine pixels).
            let weight = min(0.5 + distance[i], 1)
            let gradient =
              gradient(values, grid, fineInside, i, x, y, fw, fh) / spacing
            let swell = (2 * max(values[i], 0)).squareRoot()
            let rise = profile.slope(swell / radius) / (radius * max(swell, 1e-4 * radius))
            let slope = sign * rise * gradient
            out.cellSlopes[k * cells + cy * n + cx] = slope
            out.cellWeights[k * cells + cy * n + cx] = weight
            total += weight
            mean += weight * slope
          }
        }
        guard total > 0 else { continue }
        // The pixel's center: the mean of its four middle nodes.
        let x = (px + 1) * n + n / 2 + 1
        let y = (py + 1) * n + n / 2 + 1
        let middle =
          (values[y * fw + x] + values[y * fw + x - 1] + values[(y - 1) * fw + x]
            + values[(y - 1) * fw + x - 1]) * 0.25
        out.heights[k] = sign * profile.height((2 * max(middle, 0)).squareRoot() / radius)
        out.slopes[k] = mean / total
        out.valid[k] = true
      }
    }
    return out
  }

  /// Places the outline in `grid`'s operator (cells `spacing` wide) by Shortley and Weller.
  ///
  /// An arm ends where the segment to its neighbour first crosses the outline (exactly, from
  /// `crossings`), at a fraction of the way, and the value there is 0: toward a neighbour
  /// outside, or one inside across a slit that no pixel center falls in (the arm is then
  /// cut). A `fixed` neighbour (a value held, not solved for) counts as inside. Each cell's
  /// arms (east, west, south, north; 1 where the neighbour is inside and not cut off), which
  /// its gradient needs, are in its stencil (`Grid.arms`).
  static func placeOutline(
    _ grid: inout Grid, distance: [Float], spacing: Float, fixed: [Bool]? = nil,
    crossings: OutlineDistance.Crossings
  ) {
    let (w, h) = (grid.width, grid.height)
    let inside = grid.inside
    let scale = 1 / (spacing * spacing)
    for y in 0..<h {
      for x in 0..<w {
        let i = y * w + x
        guard inside[i] else { continue }
        // An arm ends where the segment to the neighbour first crosses the outline (a
        // neighbour inside can lie across a slit no center falls in); failing that, toward a
        // neighbour outside, where the distance crosses 0 between them.
        func arm(_ j: Int?) -> Float {
          guard let j else { return 1 }
          let (a, b) = (distance[i], distance[j])
          // (Distances are in the grid's own steps: neighbours lie 1 apart.)
          if abs(a) <= 1.5, abs(b) <= 1.5 || !b.isFinite,
            let t = crossings.first(i, j)
          {
            return max(t, 0.05)
          }
          guard !(inside[j] || fixed?[j] == true) else { return 1 }
          guard a.isFinite, b.isFinite, a - b > 0 else { return 1 }
          return max(a / (a - b), 0.05)
        }
        let e = arm(x + 1 < w ? i + 1 : nil)
        let wst = arm(x > 0 ? i - 1 : nil)
        let s = arm(y + 1 < h ? i + w : nil)
        let n = arm(y > 0 ? i - w : nil)
        @inline(__always) func open(_ j: Int, _ arm: Float) -> Bool {
          arm == 1 && (inside[j] || fixed?[j] == true)
        }
        let arms = SIMD4(e, wst, s, n)
        let (toEast, toWest) = (x + 1 < w && open(i + 1, e), x > 0 && open(i - 1, wst))
        let (toSouth, toNorth) = (y + 1 < h && open(i + w, s), y > 0 && open(i - w, n))
        if arms == SIMD4(repeating: 1) {
          // Whole arms: a plain stencil (whose values are these with arms of 1: 2 s / 2 and
          // (2 + 2) s, exactly).
          var bits: Int32 = 0
          if toEast { bits |= Grid.eastBit }
          if toWest { bits |= Grid.westBit }
          if toSouth { bits |= Grid.southBit }
          if toNorth { bits |= Grid.northBit }
          grid.stencil[i] = bits
          continue
        }
        grid.stencil[i] = Int32(grid.stencils.count)
        grid.stencils.append(
          Stencil(
            east: toEast ? 2 * scale / ((e + wst) * e) : 0,
            west: toWest ? 2 * scale / ((e + wst) * wst) : 0,
            south: toSouth ? 2 * scale / ((s + n) * s) : 0,
            north: toNorth ? 2 * scale / ((s + n) * n) : 0,
            diagonal: (2 / (e * wst) + 2 / (s * n)) * scale, arms: arms))
      }
    }
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
    /// in at the outline itself (as the round profile's); negative past the crest (where
    /// `g + 2 k s` turns negative), where the swell falls toward the far side.
    @inline(__always)
    func rise(_ s: Float) -> Float {
      let swell = (2 * max(g * s + k * s * s, 0)).squareRoot()
      return profile.slope(swell / radius) * (g + 2 * k * s)
        / (radius * max(swell, 1e-4 * radius))
    }

    /// Whether distance `s` lies past the model's far side (beyond its crest, where the
    /// swell is back to 0): no ink there.
    @inline(__always)
    func beyond(_ s: Float) -> Bool {
      k < 0 && g + 2 * k * s < 0 && g * s + k * s * s <= 0
    }

    /// The mean rise over distances `low...high` (its rise at `low` where that is empty).
    @inline(__always)
    func meanRise(_ low: Float, _ high: Float) -> Float {
      high > low + 1e-6 ? (height(high) - height(low)) / (high - low) : rise(low)
    }

    /// Appends a pixel whose distance grows along `direction` as a strip (see
    /// `SubSamples`), as `Bevel.appendStrip` does for a bevel, if its ink stays short of the
    /// plateau; returns false, appending nothing, otherwise.
    ///
    /// Across the pixel the swell is a function of the distance along `direction` alone
    /// (the model is), so the pixel is its ink's distances in 8 equal bins, each weighted by
    /// its exact share of the pixel (`Bevel.pixelShare`) and sloped at its middle: where the
    /// swell rises as the square root of the distance, the bins nearest the outline take
    /// their steep slopes in their true shares, which 4 x 4 points only sampled. The bins
    /// split the `exact` signed distances (the outline's, so their shares add up to the
    /// pixel's coverage); each is sloped at the model's distance there (`d` is the model's
    /// at the center, whose swell is 0 a little off the outline).
    func appendStrip(
      pixel: Int32, distance d: Float, exact: Float, direction: SIMD2<Float>, sign: Float,
      to samples: inout SubSamples
    ) -> Bool {
      let outer = (abs(direction.x) + abs(direction.y)) * 0.5
      let (low, high) = (max(exact - outer, 0), exact + outer)
      let shift = d - exact
      let top = high + max(shift, 0)
      guard high - low > 1e-3, exact.isFinite, abs(shift) < 0.5,
        (2 * max(g * top + k * top * top, 0)).squareRoot() < radius,
        g + 2 * k * top > 0
      else { return false }
      // (No turn: the model's direction is the pixel's.)
      samples.appendStrip(
        pixel: pixel, low: low, high: high, center: exact, direction: direction, turn: 0
      ) { middle in sign * rise(max(middle + shift, middle * 0.5)) * direction }
      return true
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
        if weight > 0 && !beyond((low + high) * 0.5) {
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
