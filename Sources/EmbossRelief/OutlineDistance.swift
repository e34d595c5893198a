import EmbossGeometry
import EmbossRaster
import EmbossSupport
import Foundation

/// Exact signed distances to an `Outline`, and each pixel's nearest feature, by scan
/// conversion.
///
/// This is the closest-point transform of Mauch: each piece's slab (the points that
/// project onto it, up to a depth on either side) and each joint's wedge (on the side where
/// the outline turns away) are scan-converted, and every pixel keeps the smallest distance
/// and the piece it came from. Cost is proportional to the pixels near the outline.
///
/// Distances are signed: positive inside the ink. A pixel's feature also gives the
/// direction in which its distance grows: the piece's normal, turned smoothly along a
/// flattened curve (between the curve's normals at the piece's ends), or away from the
/// joint for a pixel nearest a corner.
struct OutlineDistance {
  /// One piece, laid out for the inner loops.
  struct Piece {
    var a: SIMD2<Float>
    /// b - a.
    var v: SIMD2<Float>
    /// The chord's unit normal toward the ink.
    var n: SIMD2<Float>
    /// The curve's normals at a and b.
    var na: SIMD2<Float>
    var nb: SIMD2<Float>
    var inverseLength2: Float
    /// Joint sides at a and b: +1 the outline turns into the ink there (the wedge of points
    /// nearest the joint is inside), -1 it turns out (the wedge is outside), 0 straight on
    /// or no joint.
    var startSide: Float
    var endSide: Float
    /// Bits: spur, curved (na != nb), smooth joint at a, smooth joint at b, mitred joint at
    /// a, mitred joint at b.
    var flags: UInt8
    var group: Int32
    /// At a mitred joint: this piece's chord normal minus the other piece's.
    ///
    /// A point past
    /// the joint lies on this piece's side of the corner's bisector (its line distance is the
    /// larger) where its offset from the joint has a non-negative dot product with it.
    var startSplit = SIMD2<Float>.zero
    var endSplit = SIMD2<Float>.zero

    static let spur: UInt8 = 1
    static let curved: UInt8 = 2
    static let smoothStart: UInt8 = 4
    static let smoothEnd: UInt8 = 8
    static let mitreStart: UInt8 = 16
    static let mitreEnd: UInt8 = 32
  }

  private(set) var pieces: [Piece]
  let next: [Int32]
  let previous: [Int32]

  /// The distances to `outline`; with `mitreLimit`, every inside corner (a joint whose
  /// wedge of nearest points lies in the ink) whose mitre reaches at most that many times a
  /// distance along its bisector is mitred: past the joint, on each piece's side of the
  /// bisector, the distance is that piece's line distance (the larger of the two), so each
  /// bevel face runs on as a plane to a sharp seam instead of turning around the corner.
  init(_ outline: Outline, mitreLimit: Float? = nil) {
    let count = outline.count
    var pieces: [Piece] = []
    pieces.reserveCapacity(count)
    for k in 0..<count {
      let v = outline.b[k] - outline.a[k]
      let length2 = (v * v).sum()
      // (A piece shorter than 1e-6 px has no direction: its square underflows.)
      let degenerate = !(length2 > 1e-12)
      let u = degenerate ? SIMD2<Float>(1, 0) : v / length2.squareRoot()
      var flags: UInt8 = outline.spur[k] ? Piece.spur : 0
      if outline.na[k] != outline.nb[k] { flags |= Piece.curved }
      pieces.append(
        Piece(
          a: outline.a[k], v: v, n: SIMD2(-u.y, u.x), na: outline.na[k], nb: outline.nb[k],
          inverseLength2: degenerate ? 0 : 1 / length2, startSide: 0, endSide: 0, flags: flags,
          group: -1))
    }
    // Joints.
    for k in 0..<count {
      let j = Int(outline.next[k])
      guard j >= 0 else { continue }
      let uj = pieces[j].v * pieces[j].inverseLength2.squareRoot()
      let turn = (uj * pieces[k].n).sum()
      let side: Float = turn > 1e-6 ? -1 : (turn < -1e-6 ? 1 : 0)
      pieces[k].endSide = side
      pieces[j].startSide = side
      let solid = pieces[k].flags & Piece.spur == 0 && pieces[j].flags & Piece.spur == 0
      if (pieces[k].nb * pieces[j].na).sum() > 0.99999, solid {
        pieces[k].flags |= Piece.smoothEnd
        pieces[j].flags |= Piece.smoothStart
      } else if let mitreLimit, solid, side > 0, k != j {
        // cos of half the turn: the mitre reaches 1 / that per unit of distance.
        let half = ((1 + (pieces[k].n * pieces[j].n).sum()) * 0.5).squareRoot()
        if half * mitreLimit >= 1 {
          pieces[k].flags |= Piece.mitreEnd
          pieces[j].flags |= Piece.mitreStart
          pieces[k].endSplit = pieces[k].n - pieces[j].n
          pieces[j].startSplit = pieces[j].n - pieces[k].n
        }
      }
    }
    // Groups: runs of pieces joined smoothly.
    var group: Int32 = 0
    for k in 0..<count where pieces[k].group < 0 {
      var first = k
      var steps = 0
      while pieces[first].flags & Piece.smoothStart != 0, steps < count {
        let p = Int(outline.previous[first])
        guard p >= 0, p != k else { break }
        first = p
        steps += 1
      }
      var c = first
      steps = 0
      while pieces[c].group < 0, steps <= count {
        pieces[c].group = group
        guard pieces[c].flags & Piece.smoothEnd != 0 else { break }
        let nx = Int(outline.next[c])
        guard nx >= 0 else { break }
        c = nx
        steps += 1
      }
      group += 1
    }
    self.pieces = pieces
    next = outline.next
    previous = outline.previous
  }

  /// The same outline with every length times `factor` (a grid `factor` times finer: its
  /// pixel (x, y) has its center at ((x + 0.5) / factor, (y + 0.5) / factor) of this one's).
  func scaled(by factor: Float) -> OutlineDistance {
    var out = self
    out.pieces = pieces.map { piece in
      var piece = piece
      piece.a *= factor
      piece.v *= factor
      piece.inverseLength2 /= factor * factor
      return piece
    }
    return out
  }

  /// Where segments between neighbouring pixel centers first cross the outline: the pieces
  /// (spurs aside) bucketed by the pixels of a region that they pass through.
  struct Crossings {
    let geometry: OutlineDistance
    let region: PixelRect
    /// Pieces per pixel of the region, as offsets into `items` (one more than pixels).
    let starts: [Int32]
    let items: [Int32]

    /// The crossings of `geometry`'s pieces (only those of `only`, where given) over the
    /// pixels of `region`.
    init(_ geometry: OutlineDistance, region: PixelRect, only: [Int]? = nil) {
      self.geometry = geometry
      self.region = region
      let (w, h) = (region.width, region.height)
      var counts = [Int32](repeating: 0, count: w * h + 1)
      // Each piece's pixels: row by row, those the part of the piece in that row (grown by
      // a hair) touches, so a long diagonal piece lists the pixels along it, not its bounds.
      func cells(_ piece: Piece, _ body: (Int) -> Void) {
        let origin = SIMD2(Float(region.x), Float(region.y))
        let a = piece.a - origin
        let b = a + piece.v
        let y0 = max(Int((min(a.y, b.y) - 0.01).rounded(.down)), 0)
        let y1 = min(Int((max(a.y, b.y) + 0.01).rounded(.down)), h - 1)
        guard y0 <= y1 else { return }
        for y in y0...y1 {
          // The piece's x extent within rows y - 0.01 ... y + 1.01.
          var (low, high) = (min(a.x, b.x), max(a.x, b.x))
          if abs(piece.v.y) > 1e-9 {
            let t0 = (Float(y) - 0.01 - a.y) / piece.v.y
            let t1 = (Float(y + 1) + 0.01 - a.y) / piece.v.y
            let (u0, u1) = (max(min(t0, t1), 0), min(max(t0, t1), 1))
            guard u0 <= u1 else { continue }
            (low, high) = (
              min(a.x + piece.v.x * u0, a.x + piece.v.x * u1),
              max(a.x + piece.v.x * u0, a.x + piece.v.x * u1)
            )
          }
          let x0 = max(Int((low - 0.01).rounded(.down)), 0)
          let x1 = min(Int((high + 0.01).rounded(.down)), w - 1)
          guard x0 <= x1 else { continue }
          for x in x0...x1 { body(y * w + x) }
        }
      }
      let pieces = geometry.pieces
      let chosen = only ?? Array(pieces.indices)
      for k in chosen where pieces[k].flags & Piece.spur == 0 {
        cells(pieces[k]) { counts[$0 + 1] += 1 }
      }
      for i in 0..<(w * h) { counts[i + 1] += counts[i] }
      var fill = counts
      var items = [Int32](repeating: 0, count: Int(counts[w * h]))
      for k in chosen where pieces[k].flags & Piece.spur == 0 {
        cells(pieces[k]) {
          items[Int(fill[$0])] = Int32(k)
          fill[$0] += 1
        }
      }
      starts = counts
      self.items = items
    }

    /// The fraction (0...1] of the way from pixel `i`'s center to pixel `j`'s (a neighbour;
    /// indices in the region) at which the segment between them first crosses the outline;
    /// nil where it does not.
    func first(_ i: Int, _ j: Int) -> Float? {
      let w = region.width
      func center(_ k: Int) -> SIMD2<Float> {
        SIMD2(Float(region.x + k % w) + 0.5, Float(region.y + k / w) + 0.5)
      }
      let p = center(i)
      let d = center(j) - p
      var best: Float?
      for cell in [i, j] {
        for item in starts[cell]..<starts[cell + 1] {
          let piece = geometry.pieces[Int(items[Int(item)])]
          // p + t d = a + s v.
          let denominator = d.x * piece.v.y - d.y * piece.v.x
          guard abs(denominator) > 1e-12 else { continue }
          let w = piece.a - p
          let t = (w.x * piece.v.y - w.y * piece.v.x) / denominator
          let s = (w.x * d.y - w.y * d.x) / denominator
          guard t > 0, t <= 1, s >= 0, s <= 1 else { continue }
          if best.map({ t < $0 }) ?? true { best = t }
        }
      }
      return best
    }
  }

  /// Signed distance from `p` to piece `piece` (exact: to the nearest point of the piece,
  /// signed by the side of the ink it lies on).
  @inline(__always)
  static func signedDistance(_ piece: Piece, _ p: SIMD2<Float>) -> Float {
    let w = p - piece.a
    let t = (w * piece.v).sum() * piece.inverseLength2
    if piece.flags & Piece.spur != 0 {
      let c = w - piece.v * min(max(t, 0), 1)
      return (c * c).sum().squareRoot()
    }
    if t <= 0 {
      if let line = mitred(piece, w, at: w, start: true) { return line }
      let d = (w * w).sum().squareRoot()
      return side(piece.startSide, piece.flags & Piece.smoothStart != 0 ? piece.na : piece.n, w) * d
    }
    if t >= 1 {
      let c = w - piece.v
      if let line = mitred(piece, w, at: c, start: false) { return line }
      let d = (c * c).sum().squareRoot()
      return side(piece.endSide, piece.flags & Piece.smoothEnd != 0 ? piece.nb : piece.n, c) * d
    }
    return (w * piece.n).sum()
  }

  /// The piece's line distance past a mitred joint, on the piece's side of the bisector and
  /// inside; nil elsewhere.
  ///
  /// `start`: the joint at the piece's first end, else its last; `c` is the point's offset
  /// from the joint, `w` from the piece's start.
  @inline(__always)
  private static func mitred(_ piece: Piece, _ w: SIMD2<Float>, at c: SIMD2<Float>, start: Bool)
    -> Float?
  {
    guard piece.flags & (start ? Piece.mitreStart : Piece.mitreEnd) != 0 else { return nil }
    let line = (w * piece.n).sum()
    guard line >= 0, (c * (start ? piece.startSplit : piece.endSplit)).sum() >= 0 else {
      return nil
    }
    return line
  }

  @inline(__always)
  private static func side(_ joint: Float, _ normal: SIMD2<Float>, _ w: SIMD2<Float>) -> Float {
    if joint != 0 { return joint }
    return (w * normal).sum() >= 0 ? 1 : -1
  }

  /// The unit direction in which the signed distance grows at `p`, for the piece nearest it.
  @inline(__always)
  static func direction(_ piece: Piece, _ p: SIMD2<Float>) -> SIMD2<Float> {
    let w = p - piece.a
    let t = (w * piece.v).sum() * piece.inverseLength2
    if piece.flags & Piece.spur != 0 {
      let c = w - piece.v * min(max(t, 0), 1)
      let l = (c * c).sum().squareRoot()
      return l > 1e-5 ? c / l : piece.n
    }
    if t <= 0 {
      if piece.flags & Piece.smoothStart != 0 { return piece.na }
      if mitred(piece, w, at: w, start: true) != nil { return piece.na }
      return radial(w, joint: piece.startSide, normal: piece.n)
    }
    if t >= 1 {
      if piece.flags & Piece.smoothEnd != 0 { return piece.nb }
      if mitred(piece, w, at: w - piece.v, start: false) != nil { return piece.nb }
      return radial(w - piece.v, joint: piece.endSide, normal: piece.n)
    }
    // A straight piece: its curve's normal (a traced straight run's, which may differ from
    // the piece's own chord by the tracer's jitter).
    guard piece.flags & Piece.curved != 0 else { return piece.na }
    // The curve's normal line through p: p - (a + s v) parallel to n(s) = na + s (nb - na).
    let m = piece.nb - piece.na
    @inline(__always) func cross(_ x: SIMD2<Float>, _ y: SIMD2<Float>) -> Float {
      x.x * y.y - x.y * y.x
    }
    let qa = -cross(piece.v, m)
    let qb = cross(w, m) - cross(piece.v, piece.na)
    let qc = cross(w, piece.na)
    var s = t
    if abs(qa) <= 1e-6 * abs(qb) {
      if qb != 0 { s = -qc / qb }
    } else {
      let discriminant = qb * qb - 4 * qa * qc
      if discriminant >= 0 {
        let q = -0.5 * (qb + (qb >= 0 ? 1 : -1) * discriminant.squareRoot())
        let r1 = q / qa
        let r2 = q != 0 ? qc / q : r1
        s = abs(r1 - t) <= abs(r2 - t) ? r1 : r2
      }
    }
    s = min(max(s, 0), 1)
    let n = piece.na + m * s
    let l = (n * n).sum().squareRoot()
    return l > 1e-6 ? n / l : piece.n
  }

  @inline(__always)
  private static func radial(_ w: SIMD2<Float>, joint: Float, normal: SIMD2<Float>) -> SIMD2<Float>
  {
    let l = (w * w).sum().squareRoot()
    guard l > 1e-5 else { return normal }
    let s: Float = joint != 0 ? joint : ((w * normal).sum() >= 0 ? 1 : -1)
    return w * (s / l)
  }

  /// Writes the nearest piece's signed distance and index for the pixels of `rows`.
  ///
  /// Rows are rows of `region`, in canvas pixels; pieces count within `inner` pixels inside
  /// or `outer` outside, and a pixel takes one where it is nearer than what `distance` holds
  /// (ties: the smaller piece index). Pixel (x, y)'s center is at (x + 0.5, y + 0.5). Untouched pixels keep their values.
  /// With `only`, just those pieces are scanned (the ones that can reach the region).
  func scan(
    region: PixelRect, rows: Range<Int>, inner: Float, outer: Float,
    distance: UnsafeMutableBufferPointer<Float>, feature: UnsafeMutableBufferPointer<Int32>,
    only: [Int]? = nil
  ) {
    let top = Float(region.y + rows.lowerBound)
    let bottom = Float(region.y + rows.upperBound)
    let reach = max(inner, outer) * 1.5 + 1
    pieces.withUnsafeBufferPointer { pieces in
      withUnsafeTemporaryAllocation(of: SIMD2<Float>.self, capacity: 8) { polygon in
        for index in 0..<(only?.count ?? pieces.count) {
          let k = only?[index] ?? index
          let piece = pieces[k]
          let b = piece.a + piece.v
          // A mitre at b reaches along its bisector to the depth inside over cos of half the
          // turn.
          var extent = reach
          if piece.flags & Piece.mitreEnd != 0 {
            let half = ((1 + (piece.n * pieces[Int(next[k])].n).sum()) * 0.5).squareRoot()
            extent = max(reach, inner / half * 1.02 + 1)
          }
          guard min(piece.a.y, b.y) - extent < bottom, max(piece.a.y, b.y) + extent > top else {
            continue
          }
          let u = piece.v * piece.inverseLength2.squareRoot()
          let pad = u * 0.02
          if piece.flags & Piece.spur != 0 {
            // Ink on both sides, and around both ends.
            polygon[0] = pointwiseMin(piece.a, b) - inner
            polygon[1] = SIMD2(pointwiseMax(piece.a, b).x + inner, polygon[0].y)
            polygon[2] = pointwiseMax(piece.a, b) + inner
            polygon[3] = SIMD2(polygon[0].x, polygon[2].y)
            fill(polygon, 4, k, piece, region, rows, distance, feature)
            continue
          }
          polygon[0] = piece.a - pad - piece.n * outer
          polygon[1] = b + pad - piece.n * outer
          polygon[2] = b + pad + piece.n * inner
          polygon[3] = piece.a - pad + piece.n * inner
          fill(polygon, 4, k, piece, region, rows, distance, feature)
          // An open end (a chain the tracer broke): every side of it.
          for (end, open) in [(piece.a, previous[k] < 0), (b, next[k] < 0)] where open {
            let r = max(inner, outer)
            polygon[0] = end - r
            polygon[1] = SIMD2(end.x + r, end.y - r)
            polygon[2] = end + r
            polygon[3] = SIMD2(end.x - r, end.y + r)
            fill(polygon, 4, k, piece, region, rows, distance, feature)
          }
          // The wedge at b, toward the side the outline turns away from.
          let j = Int(next[k])
          guard j >= 0, piece.endSide != 0 else { continue }
          let other = pieces[j]
          if piece.flags & Piece.mitreEnd != 0 {
            // A mitre: each piece's slab runs on to the bisector, to the depth inside.
            let half = ((1 + (piece.n * other.n).sum()) * 0.5).squareRoot()
            let reach = inner * ((1 - half * half).squareRoot() / half) * 1.01 + 0.05
            let uj = other.v * other.inverseLength2.squareRoot()
            // Each piece's part: from its normal line at the joint (and a hair behind it) to
            // past the bisector. Both ends of the far side lie beyond the bisector (0.05 along
            // the piece at the joint, `reach` at the depth), so the whole side does: a
            // triangle whose apex sat a hair behind the joint along the piece had its far side
            // cross the bisector near the joint, and at a slight turn (a curve's joint that is
            // not quite smooth) left a sliver along the bisector that neither piece covered (a
            // pixel there kept no distance: a plateau height on the bevel).
            let depth = inner * 1.01 + 0.05
            for (id, n, along) in [(k, piece.n, u), (j, other.n, -uj)] {
              polygon[0] = b - (n + along) * 0.05
              polygon[1] = b + n * depth - along * 0.05
              polygon[2] = b + n * depth + along * reach
              polygon[3] = b - n * 0.05 + along * 0.05
              fill(polygon, 4, id, pieces[id], region, rows, distance, feature)
            }
            continue
          }
          let e1 = piece.endSide > 0 ? piece.n : -piece.n
          let e2 = piece.endSide > 0 ? other.n : -other.n
          let depth = piece.endSide > 0 ? inner : outer
          let angle = atan2f((e2 * u).sum(), (e2 * e1).sum())
          guard angle > 0 else { continue }
          let parts = max(1, Int((angle / (Float.pi / 4)).rounded(.up)))
          let step = angle / Float(parts)
          let length = depth / cosf(step / 2) * 1.01 + 0.02
          for i in 0..<parts {
            let f0 = step * Float(i)
            let f1 = step * Float(i + 1)
            polygon[0] = b - (e1 * cosf(step / 2) + u * sinf(step / 2)) * 0.05
            polygon[1] = b + (e1 * cosf(f0) + u * sinf(f0)) * length
            polygon[2] = b + (e1 * cosf(f1) + u * sinf(f1)) * length
            fill(polygon, 3, k, piece, region, rows, distance, feature)
          }
        }
      }
    }
  }

  /// Scan-converts the convex polygon (its first `count` points) over `rows` of `region`.
  @inline(__always)
  private func fill(
    _ polygon: UnsafeMutableBufferPointer<SIMD2<Float>>, _ count: Int, _ k: Int, _ piece: Piece,
    _ region: PixelRect, _ rows: Range<Int>, _ distance: UnsafeMutableBufferPointer<Float>,
    _ feature: UnsafeMutableBufferPointer<Int32>
  ) {
    var minY = Float.infinity
    var maxY = -Float.infinity
    for i in 0..<count {
      minY = min(minY, polygon[i].y)
      maxY = max(maxY, polygon[i].y)
    }
    // Rows whose centers lie in [minY, maxY].
    let firstRow = max(rows.lowerBound, Int((minY - 0.5).rounded(.up)) - region.y)
    let lastRow = min(rows.upperBound - 1, Int((maxY - 0.5).rounded(.down)) - region.y)
    guard firstRow <= lastRow else { return }
    let id = Int32(k)
    for row in firstRow...lastRow {
      let yc = Float(region.y + row) + 0.5
      var x0 = Float.infinity
      var x1 = -Float.infinity
      var i = count - 1
      for j in 0..<count {
        let p = polygon[i]
        let q = polygon[j]
        if (p.y <= yc && q.y >= yc) || (q.y <= yc && p.y >= yc) {
          if p.y == q.y {
            x0 = min(x0, min(p.x, q.x))
            x1 = max(x1, max(p.x, q.x))
          } else {
            let x = p.x + (yc - p.y) * (q.x - p.x) / (q.y - p.y)
            x0 = min(x0, x)
            x1 = max(x1, x)
          }
        }
        i = j
      }
      guard x0 <= x1 else { continue }
      let c0 = max(0, Int((x0 - 0.5).rounded(.up)) - region.x)
      let c1 = min(region.width - 1, Int((x1 - 0.5).rounded(.down)) - region.x)
      guard c0 <= c1 else { continue }
      let base = row * region.width
      for column in c0...c1 {
        let p = SIMD2(Float(region.x + column) + 0.5, yc)
        let d = Self.signedDistance(piece, p)
        let index = base + column
        let best = abs(distance[index])
        let magnitude = abs(d)
        if magnitude < best || (magnitude == best && id < feature[index]) {
          distance[index] = d
          feature[index] = id
        }
      }
    }
  }
}
