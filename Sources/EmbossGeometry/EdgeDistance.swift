import EmbossRaster
import EmbossSupport
import Foundation

/// Sub-pixel distance to the edge of an anti-aliased mask, exact to the edge's polygon.
///
/// The edge is the 0.5 iso-line of the coverage between pixel centers (marching squares),
/// each crossing placed by the partly covered pixels' own straight-edge estimates (Gustavson
/// & Strand's anti-aliased distance), so straight edges give straight polygons: a polygon of
/// short segments, each owned by the cell of four pixel centers it crosses. Where a notch of
/// the background is too narrow for the 0.5 iso-line (the acute inside corners of N, W, M,
/// V, 4...), its tip is rebuilt: the two walls' lines, read a few segments away, meet at the
/// true tip, and a spur segment runs there.
///
/// A pixel's distance is its exact Euclidean distance to the nearest of those segments,
/// wherever that segment lies (around acute notches, across thin strokes, behind the far
/// wall of a stroke), found in linear time:
/// 1. an exact distance transform over the cells (Felzenszwalb & Huttenlocher) gives every
///    pixel a cell near its nearest segment;
/// 2. the pixel walks along the edge, cell to nearby cell, while that gets closer;
/// 3. two raster sweeps let each pixel take a neighbour's segment when it is closer (the
///    segment nearest a pixel is nearest to the pixels between it and that pixel too).
///
/// Every position is kept relative to its cell, so a band of rows computes exactly the values
/// the whole image would.
package enum EdgeDistance {
  /// The edge polygon and every pixel's nearest piece of it, over a `width` x `height` grid.
  ///
  /// Coordinates: pixel (x, y)'s center is at (x, y). Cell (cx, cy), for cx in 0...width and
  /// cy in 0...height, has the centers of pixels (cx - 1, cy - 1) ... (cx, cy) as corners
  /// (pixels outside the grid count as coverage 0), so the polygon closes at the border; its
  /// segments are stored relative to pixel (cx - 1, cy - 1)'s center.
  package struct Field: Sendable {
    package let width: Int
    package let height: Int
    /// Coverage of the grid, row-major.
    package let coverage: [Float]
    /// Signed distance from each pixel's center to the edge polygon: positive inside
    /// (coverage >= 0.5), negative outside.
    ///
    /// Exact for pixels with some coverage within
    /// `exactWithin` of the edge; farther inside it is a distance to a cell center (the
    /// plateau), +infinity with no edge at all; pixels without coverage hold -infinity.
    package let distance: [Float]
    /// The cell holding each pixel's nearest segment (cy * (width + 1) + cx), -1 where none
    /// was looked for.
    package let nearestCell: [Int32]
    /// Cell k's segments are `segments[cellStart[k]..<cellStart[k + 1]]`, (a.x, a.y, b.x, b.y)
    /// relative to the cell, oriented so that (-(b - a).y, (b - a).x) points inside.
    @usableFromInline package let cellStart: [Int32]
    @usableFromInline package let segments: [SIMD4<Float>]
    /// Per segment: pixel (x, y) of its cell's top-left corner, so a point's position
    /// relative to the segment is exact integer arithmetic (the same in any band).
    @usableFromInline package let origins: [SIMD2<Int32>]
    /// Per segment: (inward unit normal x, y, 1 / squared length or 0, 0).
    @usableFromInline package let extras: [SIMD4<Float>]

    package init(
      width: Int, height: Int, coverage: [Float], distance: [Float], nearestCell: [Int32],
      cellStart: [Int32], segments: [SIMD4<Float>]
    ) {
      self.width = width
      self.height = height
      self.coverage = coverage
      self.distance = distance
      self.nearestCell = nearestCell
      self.cellStart = cellStart
      self.segments = segments
      let cw = width + 1
      var origins = [SIMD2<Int32>](repeating: .zero, count: segments.count)
      var extras = [SIMD4<Float>](repeating: .zero, count: segments.count)
      if cellStart.count > 1 {
        for cell in 0..<(cellStart.count - 1) {
          let (cy, cx) = cell.quotientAndRemainder(dividingBy: cw)
          for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
            origins[k] = SIMD2(Int32(cx - 1), Int32(cy - 1))
            let s = segments[k]
            let v = SIMD2(s.z - s.x, s.w - s.y)
            let length2 = (v * v).sum()
            if length2 > 0 {
              let n = SIMD2(-v.y, v.x) / length2.squareRoot()
              extras[k] = SIMD4(n.x, n.y, 1 / length2, 0)
            }
          }
        }
      }
      self.origins = origins
      self.extras = extras
    }

    package init(reusing other: Field, distance: [Float], nearestCell: [Int32]) {
      width = other.width
      height = other.height
      coverage = other.coverage
      self.distance = distance
      self.nearestCell = nearestCell
      cellStart = other.cellStart
      segments = other.segments
      origins = other.origins
      extras = other.extras
    }

    package var cellWidth: Int { width + 1 }

    /// Calls `body` with a view of the segments for inner loops (valid only inside `body`).
    @inlinable
    package func withSegments<R>(_ body: (Segments) -> R) -> R {
      cellStart.withUnsafeBufferPointer { cellStart in
        segments.withUnsafeBufferPointer { segments in
          origins.withUnsafeBufferPointer { origins in
            extras.withUnsafeBufferPointer { extras in
              body(
                Segments(
                  cellStart: cellStart, segments: segments, origins: origins, extras: extras))
            }
          }
        }
      }
    }

    /// Bilinear coverage at pixel (x, y)'s center plus `offset` (outside the grid: 0).
    @inline(__always)
    package func coverage(x: Int, y: Int, offset: SIMD2<Float>) -> Float {
      let fx0 = offset.x.rounded(.down)
      let fy0 = offset.y.rounded(.down)
      let x0 = x + Int(fx0)
      let y0 = y + Int(fy0)
      let fx = offset.x - fx0
      let fy = offset.y - fy0
      func at(_ x: Int, _ y: Int) -> Float {
        x >= 0 && y >= 0 && x < width && y < height ? coverage[y * width + x] : 0
      }
      let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * fx
      let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * fx
      return top + (bottom - top) * fy
    }
  }

  /// A field's segments as raw buffers: the distance queries of the inner loops (sub-pixel
  /// samples, the nearest-edge search) without bounds checks or array copies.
  package struct Segments {
    @usableFromInline let cellStart: UnsafeBufferPointer<Int32>
    @usableFromInline package let segments: UnsafeBufferPointer<SIMD4<Float>>
    @usableFromInline let origins: UnsafeBufferPointer<SIMD2<Int32>>
    @usableFromInline package let extras: UnsafeBufferPointer<SIMD4<Float>>

    @usableFromInline
    init(
      cellStart: UnsafeBufferPointer<Int32>, segments: UnsafeBufferPointer<SIMD4<Float>>,
      origins: UnsafeBufferPointer<SIMD2<Int32>>, extras: UnsafeBufferPointer<SIMD4<Float>>
    ) {
      self.cellStart = cellStart
      self.segments = segments
      self.origins = origins
      self.extras = extras
    }

    /// Segment indices of `cell`.
    @inlinable @inline(__always)
    package func range(_ cell: Int) -> Range<Int> {
      Int(cellStart[cell])..<Int(cellStart[cell + 1])
    }

    /// Pixel (x, y)'s center relative to segment `k`'s cell (exact: integer arithmetic).
    @inlinable @inline(__always)
    package func origin(x: Int, y: Int, segment k: Int) -> SIMD2<Float> {
      let o = origins[k]
      return SIMD2(Float(x - Int(o.x)), Float(y - Int(o.y)))
    }

    /// Squared distance from `p` (relative to segment `k`'s cell) to segment `k`, and the
    /// vector from its nearest point to `p`.
    @inlinable @inline(__always)
    package func squared(_ p: SIMD2<Float>, segment k: Int) -> (Float, SIMD2<Float>) {
      let s = segments[k]
      let a = SIMD2(s.x, s.y)
      let v = SIMD2(s.z, s.w) - a
      let t = min(max(((p - a) * v).sum() * extras[k].z, 0), 1)
      let d = p - (a + v * t)
      return ((d * d).sum(), d)
    }

    /// Segment `k`'s inward unit normal.
    @inlinable @inline(__always)
    package func normal(_ k: Int) -> SIMD2<Float> {
      let e = extras[k]
      return SIMD2(e.x, e.y)
    }

    /// Squared distance from pixel (x, y)'s center to the nearest segment of `cell`.
    @inlinable @inline(__always)
    package func squaredDistance(x: Int, y: Int, cell: Int) -> Float {
      var best = Float.infinity
      for k in range(cell) {
        best = min(best, squared(origin(x: x, y: y, segment: k), segment: k).0)
      }
      return best
    }

    /// See `Field.nearest`.
    @inlinable @inline(__always)
    package func nearest(x: Int, y: Int, offset: SIMD2<Float> = .zero, cell: Int)
      -> (distance: Float, delta: SIMD2<Float>, normal: SIMD2<Float>)
    {
      var best: (squared: Float, delta: SIMD2<Float>, normal: SIMD2<Float>) = (
        .infinity, .zero, .zero
      )
      for k in range(cell) {
        let (squared, d) = self.squared(origin(x: x, y: y, segment: k) + offset, segment: k)
        if squared < best.squared { best = (squared, d, normal(k)) }
      }
      return (best.squared.squareRoot(), best.delta, best.normal)
    }
  }

  /// Distance from `p` to segment `s` (a.x, a.y, b.x, b.y), the vector from the nearest point
  /// to `p`, and the segment's inward normal (unit; zero for a segment of no length).
  @inline(__always)
  package static func nearest(to p: SIMD2<Float>, on s: SIMD4<Float>)
    -> (distance: Float, delta: SIMD2<Float>, normal: SIMD2<Float>)
  {
    let a = SIMD2(s.x, s.y)
    let v = SIMD2(s.z, s.w) - a
    let length2 = (v * v).sum()
    let t = length2 > 0 ? min(max(((p - a) * v).sum() / length2, 0), 1) : 0
    let d = p - (a + v * t)
    let normal = length2 > 0 ? SIMD2(-v.y, v.x) / length2.squareRoot() : .zero
    return ((d * d).sum().squareRoot(), d, normal)
  }

  /// The edge field of `mask` over `region` (canvas coordinates; samples outside the canvas
  /// count as coverage 0).
  ///
  /// Pixels farther than `exactWithin` from every cell center (plus two
  /// pixels) get that plain distance to a cell center: callers only need to know they are far.
  ///
  /// `beyond` is the coverage assumed past the region's border: 0 where the region holds the
  /// whole shape, 1 for an inverted mask (whose background, past the border, is all ink).
  package static func field(
    mask: Plane, region: PixelRect, exactWithin: Float = .infinity, beyond: Float = 0
  ) -> Field {
    let coverage = regionCoverage(mask: mask, region: region)
    return field(
      coverage: coverage, width: region.width, height: region.height, exactWithin: exactWithin,
      beyond: beyond)
  }

  /// `mask`'s coverage over `region` (canvas coordinates), row-major; 0 off the canvas.
  private static func regionCoverage(mask: Plane, region: PixelRect) -> [Float] {
    let w = region.width
    var coverage = [Float](repeating: 0, count: max(0, w * region.height))
    let visible = region.intersection(mask.bounds)
    if !visible.isEmpty {
      for y in visible.y..<visible.maxY {
        let src = y * mask.width
        let dst = (y - region.y) * w - region.x
        for x in visible.x..<visible.maxX { coverage[dst + x] = mask.pixels[src + x] }
      }
    }
    return coverage
  }

  /// One segment while the polygon is built: its cell, its ends (relative to the cell) and
  /// the cell sides they lie on (0 top, 1 right, 2 bottom, 3 left; -1 for a spur).
  private struct Piece {
    package var cell: Int
    package var segment: SIMD4<Float>
    package var sideA: Int8
    package var sideB: Int8
  }

  package static func field(
    coverage: [Float], width w: Int, height h: Int, exactWithin: Float, beyond: Float = 0
  ) -> Field {
    let cw = w + 1
    let ch = h + 1
    guard w > 0, h > 0 else {
      return Field(
        width: max(w, 0), height: max(h, 0), coverage: coverage, distance: [], nearestCell: [],
        cellStart: [Int32](repeating: 0, count: 2), segments: [])
    }
    let pieces = isolinePieces(coverage: coverage, width: w, height: h, beyond: beyond)
    // Pieces in cell order (spurs after the cell's own segments: a stable sort).
    let ordered = pieces.enumerated().sorted {
      ($0.element.cell, $0.offset) < ($1.element.cell, $1.offset)
    }.map(\.element)
    var cellStart = [Int32](repeating: 0, count: cw * ch + 1)
    for piece in ordered { cellStart[piece.cell + 1] += 1 }
    for k in 0..<(cw * ch) { cellStart[k + 1] += cellStart[k] }
    let partial = Field(
      width: w, height: h, coverage: coverage, distance: [], nearestCell: [],
      cellStart: cellStart, segments: ordered.map(\.segment))

    let transform = cellStart.withUnsafeBufferPointer { c in
      let c = UnsafeBufferPointerBox(c)
      return DistanceTransform.compute(width: cw, height: ch) { c.buffer[$0 + 1] > c.buffer[$0] }
    }
    var distance = [Float](repeating: -.infinity, count: w * h)
    var nearestCell = [Int32](repeating: -1, count: w * h)
    let limit = exactWithin.isFinite ? (exactWithin + 2) * (exactWithin + 2) : .infinity
    partial.withSegments { segments in
      coverage.withUnsafeBufferPointer { coverage in
        distance.withUnsafeMutableBufferPointer { distance in
          nearestCell.withUnsafeMutableBufferPointer { nearestCell in
            nearestEdges(
              segments, coverage: coverage, width: w, height: h, transform: transform,
              limit: limit, distance: distance, nearestCell: nearestCell)
          }
        }
      }
    }
    return Field(reusing: partial, distance: distance, nearestCell: nearestCell)
  }

  /// The 0.5 iso-line of a `w` x `h` coverage grid as pieces in cells (see `Field`), with
  /// rebuilt notch tips as spurs after them.
  private static func isolinePieces(coverage: [Float], width w: Int, height h: Int, beyond: Float)
    -> [Piece]
  {
    let cw = w + 1
    let ch = h + 1
    @inline(__always) func at(_ x: Int, _ y: Int) -> Float {
      x >= 0 && y >= 0 && x < w && y < h ? coverage[y * w + x] : beyond
    }
    // A partly covered pixel's own estimate of the edge: the outward unit normal (x, y) and
    // the signed distance from its center (z; positive outside), from its coverage and the
    // coverage gradient (Gustavson & Strand); w = 1 marks an estimate. Worked out only for
    // the corners of cells the edge crosses.
    func estimate(_ x: Int, _ y: Int) -> SIMD4<Float> {
      guard x >= 0, y >= 0, x < w, y < h else { return .zero }
      let c = coverage[y * w + x]
      guard c > 0, c < 1 else { return .zero }
      let g = coverage.withUnsafeBufferPointer { gradient($0, w: w, h: h, x: x, y: y) }
      let length = (g * g).sum().squareRoot()
      guard length > 0 else { return .zero }
      return SIMD4(g.x / length, g.y / length, edgeOffset(gx: g.x, gy: g.y, coverage: c), 1)
    }
    var pieces: [Piece] = []
    for cy in 0..<ch {
      for cx in 0..<cw {
        let corners = (at(cx - 1, cy - 1), at(cx, cy - 1), at(cx, cy), at(cx - 1, cy))
        let inside =
          (corners.0 >= 0.5 ? 1 : 0) + (corners.1 >= 0.5 ? 1 : 0) + (corners.2 >= 0.5 ? 1 : 0)
          + (corners.3 >= 0.5 ? 1 : 0)
        guard inside > 0, inside < 4 else { continue }
        let guesses = (
          estimate(cx - 1, cy - 1), estimate(cx, cy - 1), estimate(cx, cy), estimate(cx - 1, cy)
        )
        for (segment, sideA, sideB) in cellSegments(corners, estimates: guesses) {
          pieces.append(Piece(cell: cy * cw + cx, segment: segment, sideA: sideA, sideB: sideB))
        }
      }
    }
    pieces += spurs(pieces, cellWidth: cw, cellHeight: ch, coverage: at)
    return pieces
  }

  /// The 0.5 iso-line of `mask` over `region` (canvas coordinates, samples outside the canvas
  /// count as 0) in canvas pixels (pixel (x, y) covers [x, x + 1] x [y, y + 1]), each piece
  /// with the ink on its left ((-u.y, u.x) for its direction u), spurs marked.
  package static func isoline(mask: Plane, region: PixelRect) -> [(
    a: SIMD2<Float>, b: SIMD2<Float>, spur: Bool
  )] {
    let w = region.width
    let h = region.height
    guard w > 0, h > 0 else { return [] }
    // A sample exactly at the iso-value would put the line through it, where marching
    // squares cannot tell which way it runs: it counts as a hair inside.
    let coverage = regionCoverage(mask: mask, region: region).map {
      $0 == 0.5 ? 0.5 + 1.0 / 4096 : $0
    }
    let cw = w + 1
    return isolinePieces(coverage: coverage, width: w, height: h, beyond: 0).map { piece in
      let (cy, cx) = piece.cell.quotientAndRemainder(dividingBy: cw)
      let origin = SIMD2(Float(region.x + cx - 1) + 0.5, Float(region.y + cy - 1) + 0.5)
      let s = piece.segment
      return (origin + SIMD2(s.x, s.y), origin + SIMD2(s.z, s.w), piece.sideA < 0)
    }
  }

  /// Steps 1 to 3 of the search (see the type's summary): each pixel's nearest cell and its
  /// signed distance, written into `distance` and `nearestCell`.
  private static func nearestEdges(
    _ segments: Segments, coverage: UnsafeBufferPointer<Float>, width w: Int, height h: Int,
    transform: DistanceTransform.Result, limit: Float, distance: UnsafeMutableBufferPointer<Float>,
    nearestCell: UnsafeMutableBufferPointer<Int32>
  ) {
    let cw = w + 1
    let ch = h + 1
    // Squared distances while searching; the signed distance is written at the end.
    var bestStorage = [Float](repeating: .infinity, count: w * h)
    bestStorage.withUnsafeMutableBufferPointer { best in
      transform.nearestSeed.withUnsafeBufferPointer { seeds in
        // 1. The transform's cells around each pixel, then the walk along the edge.
        for y in 0..<h {
          for x in 0..<w {
            let i = y * w + x
            guard coverage[i] > 0 else { continue }
            var bestCell = -1
            var bestDistance = Float.infinity
            var nearestSquared = Int.max
            for corner in 0..<4 {
              let k = (y + corner / 2) * cw + x + corner % 2
              let seed = Int(seeds[k])
              guard seed >= 0 else { continue }
              nearestSquared = min(nearestSquared, transform.squaredDistance(k))
              guard seed != bestCell else { continue }
              let d = segments.squaredDistance(x: x, y: y, cell: seed)
              if closer(d, seed, than: bestDistance, bestCell) {
                bestDistance = d
                bestCell = seed
              }
            }
            guard bestCell >= 0 else {
              distance[i] = coverage[i] >= 0.5 ? .infinity : -.infinity
              continue
            }
            if Float(nearestSquared) > limit {
              // Far inside: a cell center's distance (minus the half cell between centers).
              distance[i] = Float(nearestSquared).squareRoot() - 0.5
              continue
            }
            descend(
              segments, cellWidth: cw, cellHeight: ch, x: x, y: y, cell: &bestCell,
              distance: &bestDistance)
            nearestCell[i] = Int32(bestCell)
            best[i] = bestDistance
          }
        }
      }
      // 2. Forward and backward sweeps over the neighbours already visited.
      let forward = [(-1, 0), (-1, -1), (0, -1), (1, -1)]
      let backward = [(1, 0), (1, 1), (0, 1), (-1, 1)]
      for (offsets, reversed) in [(forward, false), (backward, true)] {
        for row in 0..<h {
          let y = reversed ? h - 1 - row : row
          for column in 0..<w {
            let x = reversed ? w - 1 - column : column
            let i = y * w + x
            guard nearestCell[i] >= 0 else { continue }
            var cell = Int(nearestCell[i])
            var d = best[i]
            var improved = false
            for (dx, dy) in offsets {
              let nx = x + dx
              let ny = y + dy
              guard nx >= 0, ny >= 0, nx < w, ny < h else { continue }
              let other = Int(nearestCell[ny * w + nx])
              guard other >= 0, other != cell else { continue }
              let candidate = segments.squaredDistance(x: x, y: y, cell: other)
              if closer(candidate, other, than: d, cell) {
                d = candidate
                cell = other
                improved = true
              }
            }
            if improved {
              descend(
                segments, cellWidth: cw, cellHeight: ch, x: x, y: y, cell: &cell, distance: &d)
              nearestCell[i] = Int32(cell)
              best[i] = d
            }
          }
        }
      }
      // 3. Signed distances.
      for i in 0..<(w * h) where nearestCell[i] >= 0 {
        let d = best[i].squareRoot()
        distance[i] = coverage[i] >= 0.5 ? d : -d
      }
    }
  }

  /// Whether a candidate cell at (squared) distance `d` beats the best so far: nearer, or as near with a
  /// smaller index, so equidistant edges (on a crease) are chosen the same way whatever order
  /// they are met in, and any banding gives the same field.
  @inline(__always)
  package static func closer(_ d: Float, _ cell: Int, than best: Float, _ bestCell: Int) -> Bool {
    d < best || (d == best && cell < bestCell)
  }

  /// Walks from `cell` to nearby cells with segments while they are closer to pixel (x, y)
  /// (`distance` is squared):
  /// to the 8 neighbours, and once those give nothing, to the ring two cells out (so a
  /// one-cell wiggle of the edge does not stop the walk).
  @inline(__always)
  private static func descend(
    _ segments: Segments, cellWidth cw: Int, cellHeight ch: Int, x: Int, y: Int,
    cell: inout Int, distance: inout Float
  ) {
    for _ in 0..<64 {
      let (cy, cx) = cell.quotientAndRemainder(dividingBy: cw)
      var moved = false
      for reach in 1...2 where !moved {
        for ny in max(0, cy - reach)...min(ch - 1, cy + reach) {
          for nx in max(0, cx - reach)...min(cw - 1, cx + reach) {
            guard reach == 1 || abs(nx - cx) == 2 || abs(ny - cy) == 2 else { continue }
            let k = ny * cw + nx
            guard k != cell else { continue }
            let range = segments.range(k)
            guard !range.isEmpty else { continue }
            let d = segments.squaredDistance(x: x, y: y, cell: k)
            if closer(d, k, than: distance, cell) {
              distance = d
              cell = k
              moved = true
            }
          }
        }
      }
      if !moved { return }
    }
  }

  /// Rebuilt tips of notches too narrow for the iso-line: for each vertex where the polygon
  /// turns sharply toward the outside (a notch of the background narrower than about 80
  /// degrees) between two straight walls, the lines of the walls a few segments before and
  /// after it meet at the true tip; the vertex nearest that tip gets a spur segment to it,
  /// when it lies in the ink within 3 pixels.
  private static func spurs(
    _ pieces: [Piece], cellWidth cw: Int, cellHeight ch: Int, coverage: (Int, Int) -> Float
  ) -> [Piece] {
    // Links between consecutive segments: segment i ends on side s of its cell; the next one
    // starts on the opposite side of the cell across it.
    var index: [Int: [Int]] = [:]
    for (i, piece) in pieces.enumerated() { index[piece.cell, default: []].append(i) }
    let across = [(0, -1), (1, 0), (0, 1), (-1, 0)]
    var next = [Int](repeating: -1, count: pieces.count)
    var previous = [Int](repeating: -1, count: pieces.count)
    for (i, piece) in pieces.enumerated() {
      let (cy, cx) = piece.cell.quotientAndRemainder(dividingBy: cw)
      let (dx, dy) = across[Int(piece.sideB)]
      let nx = cx + dx
      let ny = cy + dy
      guard nx >= 0, ny >= 0, nx < cw, ny < ch else { continue }
      let opposite = Int8((Int(piece.sideB) + 2) % 4)
      for j in index[ny * cw + nx] ?? [] where pieces[j].sideA == opposite {
        next[i] = j
        previous[j] = i
      }
    }
    func step(_ i: Int, _ n: Int, _ links: [Int]) -> Int {
      var k = i
      for _ in 0..<n {
        k = links[k]
        if k < 0 { return -1 }
      }
      return k
    }
    // Cell origin of piece i relative to piece j's, in cells (= pixels).
    func shift(_ i: Int, from j: Int) -> SIMD2<Float> {
      let (iy, ix) = pieces[i].cell.quotientAndRemainder(dividingBy: cw)
      let (jy, jx) = pieces[j].cell.quotientAndRemainder(dividingBy: cw)
      return SIMD2(Float(ix - jx), Float(iy - jy))
    }
    // Candidate tips: vertex after segment i (its end b), relative to i's cell.
    var tips: [Int: (tip: SIMD2<Float>, reach: Float)] = [:]
    func direction(_ k: Int) -> SIMD2<Float> {
      let s = pieces[k].segment
      let d = SIMD2(s.z - s.x, s.w - s.y)
      let length = (d * d).sum().squareRoot()
      return length > 0 ? d / length : .zero
    }
    let straight = cosf(20 * .pi / 180)
    for i in pieces.indices {
      let before = step(i, 3, previous)
      let after = step(i, 4, next)
      guard before >= 0, after >= 0, before != i, after != i else { continue }
      // Both walls must be straight where they are read (a tight curve turns as sharply over
      // the same span, and has no tip to rebuild).
      let farBefore = step(i, 5, previous)
      let farAfter = step(i, 6, next)
      guard farBefore >= 0, farAfter >= 0,
        (direction(before) * direction(farBefore)).sum() > straight,
        (direction(after) * direction(farAfter)).sum() > straight
      else { continue }
      let s1 = pieces[before].segment
      let s2 = pieces[after].segment
      let a1 = SIMD2(s1.x, s1.y) + shift(before, from: i)
      let d1 = SIMD2(s1.z, s1.w) - SIMD2(s1.x, s1.y)
      let a2 = SIMD2(s2.x, s2.y) + shift(after, from: i)
      let d2 = SIMD2(s2.z, s2.w) - SIMD2(s2.x, s2.y)
      let l1 = (d1 * d1).sum().squareRoot()
      let l2 = (d2 * d2).sum().squareRoot()
      guard l1 > 0.2, l2 > 0.2 else { continue }
      let u1 = d1 / l1
      let u2 = d2 / l2
      let cross = u1.x * u2.y - u1.y * u2.x
      let dot = (u1 * u2).sum()
      // Turning toward the outside (right of travel, inside on the left) by over 100 degrees.
      guard cross < 0, dot < cosf(100 * .pi / 180) else { continue }
      // a1 + u1 t = a2 + u2 s.
      let t = ((a2.x - a1.x) * u2.y - (a2.y - a1.y) * u2.x) / cross
      let tip = a1 + u1 * t
      let s = pieces[i].segment
      let vertex = SIMD2(s.z, s.w)
      let reach = ((tip - vertex) * (tip - vertex)).sum().squareRoot()
      guard reach < 3, reach > 0.05 else { continue }
      let (cy, cx) = pieces[i].cell.quotientAndRemainder(dividingBy: cw)
      let gx = Int((Float(cx - 1) + tip.x).rounded())
      let gy = Int((Float(cy - 1) + tip.y).rounded())
      guard coverage(gx, gy) >= 0.5 else { continue }
      tips[i] = (tip, reach)
    }
    // One spur per tip: from the vertex nearest it among its neighbours along the polygon.
    var out: [Piece] = []
    for (i, candidate) in tips.sorted(by: { $0.key < $1.key }) {
      var nearest = true
      for links in [next, previous] {
        var k = i
        for _ in 0..<3 {
          k = links[k]
          guard k >= 0 else { break }
          if let other = tips[k],
            other.reach < candidate.reach || (other.reach == candidate.reach && k < i)
          {
            nearest = false
          }
        }
      }
      guard nearest else { continue }
      let s = pieces[i].segment
      let (cy, cx) = pieces[i].cell.quotientAndRemainder(dividingBy: cw)
      // The spur belongs to the cell holding the tip, so the transform finds it there.
      let tx = Int((Float(cx - 1) + candidate.tip.x).rounded(.down)) + 1
      let ty = Int((Float(cy - 1) + candidate.tip.y).rounded(.down)) + 1
      guard tx >= 0, ty >= 0, tx < cw, ty < ch else { continue }
      let offset = SIMD2(Float(cx - tx), Float(cy - ty))
      let from = SIMD2(s.z, s.w) + offset
      let to = candidate.tip + offset
      out.append(
        Piece(cell: ty * cw + tx, segment: SIMD4(from.x, from.y, to.x, to.y), sideA: -1, sideB: -1))
    }
    return out
  }

  /// Marching squares for one cell, relative to its top-left corner: corners (top-left,
  /// top-right, bottom-right, bottom-left) at (0, 0), (1, 0), (1, 1), (0, 1).
  ///
  /// A corner is
  /// inside at coverage >= 0.5. Saddles (two opposite corners inside) are split by the cell's
  /// mean coverage. Returns each segment with the sides its ends lie on.
  package static func cellSegments(
    _ c: (Float, Float, Float, Float),
    estimates e: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) = (
      .zero, .zero, .zero, .zero
    )
  ) -> [(SIMD4<Float>, Int8, Int8)] {
    let v = [c.0, c.1, c.2, c.3]
    let guess = [e.0, e.1, e.2, e.3]
    let inside = v.map { $0 >= 0.5 }
    let insideCount = inside.filter { $0 }.count
    guard insideCount > 0, insideCount < 4 else { return [] }
    let corners: [SIMD2<Float>] = [SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)]
    // Side k joins corners k and k + 1; where the iso-line crosses it: where the partly
    // covered end pixels' straight-edge estimates put it (their mean when both have one),
    // else by linear interpolation of the coverage. Worked out from the side's left or top
    // end (corner k for sides 0 and 1, k + 1 for sides 2 and 3), as the cell beside it
    // works out the same side: both get the very same point, so the pieces link.
    func crossing(_ k: Int) -> SIMD2<Float> {
      let (s, e) = k < 2 ? (k, (k + 1) % 4) : ((k + 1) % 4, k)
      let u = corners[e] - corners[s]
      var sum: Float = 0
      var weight: Float = 0
      // From an end's center, the edge lies where n . (p - center) = -offset.
      for (end, fromStart, direction) in [(s, true, u), (e, false, -u)] where guess[end].w > 0 {
        let n = SIMD2(guess[end].x, guess[end].y)
        let along = (n * direction).sum()
        guard abs(along) > 0.05 else { continue }
        let t = -guess[end].z / along
        guard t >= -0.05, t <= 1.05 else { continue }
        sum += fromStart ? t : 1 - t
        weight += 1
      }
      let t = weight > 0 ? sum / weight : (0.5 - v[s]) / (v[e] - v[s])
      return corners[s] + u * min(max(t, 0), 1)
    }
    // A segment between the crossings on sides p and q, oriented with inside on its left.
    func segment(_ p: Int, _ q: Int, insideCorner: Int) -> (SIMD4<Float>, Int8, Int8) {
      let a = crossing(p)
      let b = crossing(q)
      let n = SIMD2(-(b.y - a.y), b.x - a.x)
      let towardCorner = (n * (corners[insideCorner] - a)).sum() >= 0
      return towardCorner
        ? (SIMD4(a.x, a.y, b.x, b.y), Int8(p), Int8(q))
        : (SIMD4(b.x, b.y, a.x, a.y), Int8(q), Int8(p))
    }
    let crossed = (0..<4).filter { inside[$0] != inside[($0 + 1) % 4] }
    if crossed.count == 4 {
      // Saddle: cut off the two corners that differ from the center; corner k lies between
      // sides k - 1 and k.
      let centerInside = (v[0] + v[1] + v[2] + v[3]) * 0.25 >= 0.5
      let cut = inside[0] == centerInside ? [1, 3] : [0, 2]
      return cut.map { k in
        // Inside is away from an outside corner: orient toward an inside corner next to it.
        let insideCorner = inside[k] ? k : (k + 1) % 4
        return segment((k + 3) % 4, k, insideCorner: insideCorner)
      }
    }
    guard crossed.count == 2, let inner = inside.firstIndex(of: true) else { return [] }
    return [segment(crossed[0], crossed[1], insideCorner: inner)]
  }

  /// For each pixel of `region` (see `field`), the distance in pixels from its center to the
  /// mask's 0.5 iso-line, for pixels at least half covered, and 0 for the others.
  ///
  /// Pixels with
  /// no edge in the region at all get infinity (deep inside: plateau).
  package static func inside(
    mask: Plane, region: PixelRect, exactWithin: Float = .infinity, beyond: Float = 0,
    parallelism: Parallelism
  ) -> Plane {
    let field = field(mask: mask, region: region, exactWithin: exactWithin, beyond: beyond)
    return Plane(
      width: region.width, height: region.height, pixels: field.distance.map { max($0, 0) })
  }

  /// Signed distance from a pixel's center to a straight edge crossing it with area coverage
  /// `coverage`, for an edge whose normal is (gx, gy): positive when the center is outside
  /// (coverage < 0.5).
  ///
  /// Axis-aligned edges give 0.5 - coverage; diagonal ones account for the
  /// triangle-shaped coverage near the pixel's corners (Gustavson & Strand, 2011).
  @inline(__always)
  package static func edgeOffset(gx: Float, gy: Float, coverage: Float) -> Float {
    let a = min(max(coverage, 0), 1)
    var x = abs(gx)
    var y = abs(gy)
    let length = (x * x + y * y).squareRoot()
    guard length > 0, x > 0, y > 0 else { return 0.5 - a }
    x /= length
    y /= length
    if x < y { swap(&x, &y) }
    let a1 = 0.5 * y / x
    if a < a1 { return 0.5 * (x + y) - (2 * x * y * a).squareRoot() }
    if a < 1 - a1 { return (0.5 - a) * x }
    return -0.5 * (x + y) + (2 * x * y * (1 - a)).squareRoot()
  }

  /// The direction in which coverage falls (toward the outside), by a 3x3 Sobel kernel.
  @inline(__always)
  package static func gradient(_ c: UnsafeBufferPointer<Float>, w: Int, h: Int, x: Int, y: Int)
    -> SIMD2<Float>
  {
    func at(_ x: Int, _ y: Int) -> Float {
      x >= 0 && y >= 0 && x < w && y < h ? c[y * w + x] : 0
    }
    let gx =
      (at(x - 1, y - 1) + 2 * at(x - 1, y) + at(x - 1, y + 1))
      - (at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1))
    let gy =
      (at(x - 1, y - 1) + 2 * at(x, y - 1) + at(x + 1, y - 1))
      - (at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1))
    return SIMD2(gx, gy)
  }
}
