import EmbossRaster
import EmbossSupport
import Foundation

/// The boundary of a shape's ink as straight pieces that keep the curve they came from: the
/// exact geometry the relief is computed from (`HeightField`).
///
/// Coordinates are canvas pixels, x right, y down; pixel (x, y) covers [x, x + 1] x [y, y + 1]
/// (its center is at +0.5). Every piece is oriented with the ink on the side of its normal
/// n = (-u.y, u.x) for its direction u, and carries the unit normals toward the ink of the
/// curve it was flattened from at its two ends (for a straight piece, its own normal), so a
/// curved bevel turns smoothly however coarse the pieces are. Pieces link end to start;
/// where two linked pieces share their end normal the joint is smooth (a curve), otherwise
/// it is a corner. A spur is a piece with ink on both sides (the rebuilt tip of a notch too
/// narrow for a traced iso-line).
///
/// Overlapping contours (variable and many static fonts have them) are unioned by the
/// nonzero rule when an outline is built from contours: only boundary parts with ink on one
/// side and none on the other are kept, so distances are to the ink's boundary.
public struct Outline: Sendable, Equatable {
  /// Piece starts.
  package private(set) var a: [SIMD2<Float>] = []
  /// Piece ends.
  package private(set) var b: [SIMD2<Float>] = []
  /// Unit normal toward the ink of the curve at each piece's start.
  package private(set) var na: [SIMD2<Float>] = []
  /// Unit normal toward the ink of the curve at each piece's end.
  package private(set) var nb: [SIMD2<Float>] = []
  /// The piece that starts where each ends (-1: none).
  package private(set) var next: [Int32] = []
  /// The piece that ends where each starts (-1: none).
  package private(set) var previous: [Int32] = []
  /// Whether each piece has ink on both sides.
  package private(set) var spur: [Bool] = []
  /// Whether the outline was traced from pixels (a picture's iso-line), not drawn from a
  /// shape's own geometry (glyph outlines): exact only to the tracer's sub-pixel estimates.
  public private(set) var isTraced = false

  /// How many pieces.
  public var count: Int { a.count }

  /// An outline with no pieces (a mask with no ink).
  public init() {}

  /// One straight or flattened-curve piece of a contour, before the union: from `a` to `b`,
  /// with the unit tangents (direction of travel) of its curve at both ends.
  package struct Edge: Sendable {
    package var a: SIMD2<Float>
    package var b: SIMD2<Float>
    package var ta: SIMD2<Float>
    package var tb: SIMD2<Float>

    package init(a: SIMD2<Float>, b: SIMD2<Float>, ta: SIMD2<Float>, tb: SIMD2<Float>) {
      self.a = a
      self.b = b
      self.ta = ta
      self.tb = tb
    }
  }

  /// The boundary of the union of closed contours (each a cycle of edges, in any
  /// orientation) by the nonzero winding rule.
  package init(contours: [[Edge]]) {
    let edges = contours.flatMap { $0 }
    guard !edges.isEmpty else { return }
    var contourOf = [Int](repeating: 0, count: edges.count)
    var contourStart: [Int] = []
    var offset = 0
    for (c, contour) in contours.enumerated() {
      contourStart.append(offset)
      for k in 0..<contour.count { contourOf[offset + k] = c }
      offset += contour.count
    }
    contourStart.append(offset)
    let (splits, touched) = Self.intersections(
      edges, contourOf: contourOf, contourStart: contourStart)
    let winding = Winding(edges)
    // Whether the ink is on the left of the piece from `a` to `b` (true), on its right
    // (false), or on both sides or neither (nil): the winding numbers a hair to either side
    // of its middle.
    func inkSide(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Bool? {
      let length = Self.length(b - a)
      guard length > 0 else { return nil }
      let u = SIMD2<Double>(b - a) / Double(length)
      let middle = (SIMD2<Double>(a) + SIMD2<Double>(b)) * 0.5
      let side = SIMD2(-u.y, u.x) * min(1e-3, Double(length) * 0.25)
      let left = winding.number(at: middle + side) != 0
      let right = winding.number(at: middle - side) != 0
      return left == right ? nil : left
    }
    // A contour that no other edge crosses or touches is on the boundary all round or not
    // at all: its longest edge decides.
    var whole = [Bool?](repeating: nil, count: contours.count)
    for c in contours.indices where !touched.contains(c) {
      let range = contourStart[c]..<contourStart[c + 1]
      guard
        let longest = range.max(by: {
          Self.length(edges[$0].b - edges[$0].a) < Self.length(edges[$1].b - edges[$1].a)
        })
      else { continue }
      whole[c] = inkSide(edges[longest].a, edges[longest].b)
    }
    // The others' edges split wherever another edge crosses or touches them
    // (`intersections`): then no piece has ink on one side over part of its length and not
    // over the rest, and each is kept or dropped by itself. Pieces that two contours share
    // (collinear edges that overlap, as where two glyphs' bars or baselines run together)
    // are kept once.
    var kept = Set<SIMD4<Int64>>()
    for (k, e) in edges.enumerated() {
      let c = contourOf[k]
      let split = touched.contains(c)
      var points: [(t: Float, p: SIMD2<Float>)] = [(0, e.a)]
      if split { points += (splits[k] ?? []).sorted { $0.t < $1.t } }
      points.append((1, e.b))
      for i in 0..<(points.count - 1) {
        let (t0, t1) = (points[i].t, points[i + 1].t)
        let (a, b) = (points[i].p, points[i + 1].p)
        guard Self.length(b - a) > 0, let left = split ? inkSide(a, b) : whole[c] else {
          continue
        }
        if split {
          let (from, to) =
            left ? (Self.pointKey(a), Self.pointKey(b)) : (Self.pointKey(b), Self.pointKey(a))
          guard kept.insert(SIMD4(from.x, from.y, to.x, to.y)).inserted else { continue }
        }
        let ta = i == 0 ? e.ta : Self.unit(e.ta * (1 - t0) + e.tb * t0, or: e.ta)
        let tb = i == points.count - 2 ? e.tb : Self.unit(e.ta * (1 - t1) + e.tb * t1, or: e.tb)
        if left {
          append(a: a, b: b, na: Self.perp(ta), nb: Self.perp(tb), spur: false)
        } else {
          append(a: b, b: a, na: Self.perp(-tb), nb: Self.perp(-ta), spur: false)
        }
      }
    }
    link()
  }

  /// An outline from traced pieces (an iso-line), each already oriented with the ink on its
  /// normal's side.
  ///
  /// The polyline is a sampled curve: vertices closer than `minimumPiece`
  /// pixels to the previous one are dropped (a tracer's zigzag where the line passes near a
  /// sample), a vertex is a corner where the directions over `window` pixels before and
  /// after it differ by more than `cornerAngle` degrees, and elsewhere the curve's normal at
  /// a vertex is that of the chord between the points `window` pixels before and after it
  /// (stopping at corners), which averages out the tracer's jitter and is exact on a circle.
  /// A run between two corners whose vertices lie within `straightTolerance` pixels of one
  /// line (a straight edge, traced) takes that line's normal on all its pieces, so its
  /// bevel is one plane, and where two such runs meet the corner is made sharp (see
  /// `sharpened`).
  package init(
    traced pieces: [(a: SIMD2<Float>, b: SIMD2<Float>, spur: Bool)], cornerAngle: Float = 40,
    window: Float = 2.5, minimumPiece: Float = 0.3, straightTolerance: Float = 0.1,
    smoothing: Float = 0
  ) {
    var raw = Outline()
    for p in pieces where p.a != p.b && !p.spur {
      let n = Self.perp(Self.unit(p.b - p.a, or: SIMD2(1, 0)))
      raw.append(a: p.a, b: p.b, na: n, nb: n, spur: false)
    }
    raw.link()
    // A piece the tracer oriented the wrong way (its line runs exactly through a sample at
    // coverage 0.5) links neither end; turned round, it closes the gap between the pieces
    // that lost their neighbours.
    let key = Self.pointKey
    var openEnds: [SIMD2<Int64>: [Int]] = [:]
    var openStarts: [SIMD2<Int64>: [Int]] = [:]
    for k in 0..<raw.count {
      if raw.next[k] < 0 { openEnds[key(raw.b[k]), default: []].append(k) }
      if raw.previous[k] < 0 { openStarts[key(raw.a[k]), default: []].append(k) }
    }
    var flipped = false
    for k in 0..<raw.count where raw.next[k] < 0 && raw.previous[k] < 0 {
      if openEnds[key(raw.b[k])]?.contains(where: { $0 != k }) == true,
        openStarts[key(raw.a[k])]?.contains(where: { $0 != k }) == true
      {
        (raw.a[k], raw.b[k]) = (raw.b[k], raw.a[k])
        raw.na[k] = -raw.na[k]
        raw.nb[k] = -raw.nb[k]
        flipped = true
      }
    }
    if flipped { raw.link() }
    var visited = [Bool](repeating: false, count: raw.count)
    let cosCorner = cosf(cornerAngle * .pi / 180)
    for start in 0..<raw.count where !visited[start] {
      // The chain through `start`: back to its first piece (or around a cycle), then forward.
      var first = start
      var steps = 0
      while raw.previous[first] >= 0, Int(raw.previous[first]) != start, steps < raw.count {
        first = Int(raw.previous[first])
        steps += 1
      }
      var points: [SIMD2<Float>] = [raw.a[first]]
      var k = first
      var closed = false
      while true {
        visited[k] = true
        points.append(raw.b[k])
        let n = Int(raw.next[k])
        if n < 0 { break }
        if n == first {
          closed = true
          break
        }
        if visited[n] { break }
        k = n
      }
      if closed { points.removeLast() }
      // Drop vertices too close to the last one kept.
      var kept: [SIMD2<Float>] = []
      for (i, p) in points.enumerated() {
        if let last = kept.last, Self.length(p - last) < minimumPiece,
          !((!closed) && i == points.count - 1)
        {
          continue
        }
        kept.append(p)
      }
      if closed, kept.count > 3, let f = kept.first, let l = kept.last,
        Self.length(f - l) < minimumPiece
      {
        kept.removeLast()
      }
      // An open chain keeps its last vertex: the one before goes instead, if too close.
      if !closed, kept.count > 2,
        Self.length(kept[kept.count - 1] - kept[kept.count - 2]) < minimumPiece
      {
        kept.remove(at: kept.count - 2)
      }
      // A scrap shorter than a piece (the tracer's crumb at the canvas's border) is none.
      if !closed, kept.count == 2, Self.length(kept[1] - kept[0]) < minimumPiece { continue }
      let count = kept.count
      guard count >= 2, !closed || count >= 3 else { continue }
      let edges = closed ? count : count - 1
      var lengths = [Float](repeating: 0, count: edges)
      for e in 0..<edges { lengths[e] = Self.length(kept[(e + 1) % count] - kept[e]) }
      @inline(__always) func vertexIndex(_ i: Int) -> Int? {
        closed ? ((i % count) + count) % count : (i >= 0 && i < count ? i : nil)
      }
      // The point `distance` pixels along the polyline from vertex v (backward when negative),
      // stopping at the ends and (with `corners`) at corners.
      func along(_ v: Int, _ distance: Float, corners: [Bool]?) -> SIMD2<Float> {
        var remaining = abs(distance)
        var at = v
        let step = distance < 0 ? -1 : 1
        while remaining > 0 {
          guard let to = vertexIndex(at + step), to != v || !closed || at == v else { break }
          if to == v { break }
          let e = step > 0 ? (vertexIndex(at) ?? v) : to
          let l = lengths[e % edges]
          if l >= remaining {
            return kept[(vertexIndex(at) ?? v)] + (kept[to] - kept[(vertexIndex(at) ?? v)])
              * (remaining / max(l, 1e-6))
          }
          remaining -= l
          at += step
          if let corners, corners[to] { return kept[to] }
        }
        return kept[(vertexIndex(at) ?? v)]
      }
      var corner = [Bool](repeating: !closed, count: count)
      for v in 0..<count {
        if !closed && (v == 0 || v == count - 1) { continue }
        let before = kept[v] - along(v, -window * 0.6, corners: nil)
        let after = along(v, window * 0.6, corners: nil) - kept[v]
        let cosTurn = (Self.unit(before, or: .zero) * Self.unit(after, or: .zero)).sum()
        corner[v] = cosTurn < cosCorner
      }
      var normal = [SIMD2<Float>](repeating: .zero, count: count)
      for v in 0..<count where !corner[v] {
        let from = along(v, -window, corners: corner)
        let to = along(v, window, corners: corner)
        normal[v] = Self.perp(Self.unit(to - from, or: SIMD2(1, 0)))
      }
      if smoothing > 0 {
        // A picture drawn without anti-aliasing: its iso-line zigzags across the pixel steps
        // (up to about 0.35 px either way), and the relief's distances would ripple with it
        // (ticks across a curved bevel). Each vertex off a corner moves along its normal to
        // the mean of the polyline over `smoothing` pixels either side (stopping at corners).
        let steps = 8
        var smoothed = kept
        for v in 0..<count where !corner[v] {
          var mean = SIMD2<Float>.zero
          for i in -steps...steps {
            mean += along(v, smoothing * Float(i) / Float(steps), corners: corner)
          }
          mean /= Float(2 * steps + 1)
          let n = normal[v]
          smoothed[v] = kept[v] + n * ((mean - kept[v]) * n).sum()
        }
        kept = smoothed
        for e in 0..<edges { lengths[e] = Self.length(kept[(e + 1) % count] - kept[e]) }
      }
      // Where straight runs end: the turn between the directions well before and well after
      // a vertex (skipping the third of the window around it, where the tracer rounds a
      // corner off), the largest of a cluster.
      var turn = [Float](repeating: 0, count: count)
      for v in 0..<count {
        if !closed && (v == 0 || v == count - 1) { continue }
        let before = along(v, -window / 3, corners: nil) - along(v, -window, corners: nil)
        let after = along(v, window, corners: nil) - along(v, window / 3, corners: nil)
        turn[v] = 1 - (Self.unit(before, or: .zero) * Self.unit(after, or: .zero)).sum()
      }
      var runEnd = [Bool](repeating: !closed, count: count)
      let threshold = 1 - cosCorner
      for v in 0..<count where turn[v] > threshold {
        var isMaximum = true
        for k in 1...3 {
          for w in [v - k, v + k] {
            guard let i = vertexIndex(w) else { continue }
            if turn[i] > turn[v] || (turn[i] == turn[v] && i < v) { isMaximum = false }
          }
        }
        runEnd[v] = isMaximum
      }
      let straight = Self.straightRuns(
        kept, closed: closed, corner: runEnd, lengths: lengths, tolerance: straightTolerance)
      // The polyline's vertices, with corners between two straight runs sharpened (see
      // `sharpened`).
      let vertices =
        closed
        ? Self.sharpened(kept, lengths: lengths, runEnd: runEnd, straight: straight)
        : kept.enumerated().map { (point: $1, from: Optional($0), lines: nil) }
      let newCount = vertices.count
      for e in 0..<(closed ? newCount : newCount - 1) {
        let (start, end) = (vertices[e], vertices[(e + 1) % newCount])
        let (a, b) = (start.point, end.point)
        // An edge to or from a crossing lies on that run's line.
        let line =
          end.lines?.before ?? start.lines?.after ?? start.from.flatMap { straight[$0]?.normal }
        if let n = line {
          append(a: a, b: b, na: n, nb: n, spur: false)
          continue
        }
        let chordNormal = Self.perp(Self.unit(b - a, or: SIMD2(1, 0)))
        append(
          a: a, b: b, na: start.from.map { corner[$0] ? chordNormal : normal[$0] } ?? chordNormal,
          nb: end.from.map { corner[$0] ? chordNormal : normal[$0] } ?? chordNormal, spur: false)
      }
    }
    for p in pieces where p.a != p.b && p.spur {
      let n = Self.perp(Self.unit(p.b - p.a, or: SIMD2(1, 0)))
      append(a: p.a, b: p.b, na: n, nb: n, spur: true)
    }
    link()
    isTraced = true
  }

  /// The outline traced from a picture's iso-line (`EdgeDistance.isoline`).
  ///
  /// `aliased`: a picture drawn without anti-aliasing (two grays), whose iso-line zigzags
  /// across its pixel steps. That one is read at a coarser scale, as the smooth shape its
  /// pixels sample: corners and straight runs over 5 px instead of 2.5, a run straight within
  /// 0.55 px (a slanted staircase's reach) instead of 0.1, and vertices smoothed over 2 px
  /// either side; traced as finely as an anti-aliased edge, every pixel step was a corner and
  /// each bevel showed a tick at every step.
  package static func traced(
    _ pieces: [(a: SIMD2<Float>, b: SIMD2<Float>, spur: Bool)], aliased: Bool
  ) -> Outline {
    aliased
      ? Outline(traced: pieces, window: 5, straightTolerance: 0.55, smoothing: 2)
      : Outline(traced: pieces)
  }

  /// A closed traced polyline with its corners between straight runs made sharp.
  ///
  /// In `points` (edge e from vertex e to e + 1, `lengths` long), at each corner between two
  /// straight runs (`straight`, at a `runEnd` vertex), the vertices near it that lie off both
  /// runs' lines are replaced by the lines' crossing.
  ///
  /// The tracer's iso-line rounds a corner off, and cuts an acute notch's tip short by a
  /// pixel or more (where the notch is narrower than a pixel, no sample's coverage reaches
  /// 0.5), so a traced tip is a few short pieces, each a corner of its own: a fan of small
  /// bevels and mitres where the shape has one seam. A crossing more than 3 pixels from the
  /// corner, or not ahead of both runs' last vertices on their lines, is left as traced.
  /// Returns the vertices, each with the index of the vertex of `points` it is, or for a
  /// crossing nil and the normals of the runs before and after it.
  private static func sharpened(
    _ points: [SIMD2<Float>], lengths: [Float], runEnd: [Bool],
    straight: [(normal: SIMD2<Float>, offset: Float)?]
  ) -> [TracedVertex] {
    let count = points.count
    let onLine: Float = 0.15
    let reach: Float = 3
    @inline(__always) func at(_ i: Int) -> Int { ((i % count) + count) % count }
    @inline(__always) func distance(
      _ p: SIMD2<Float>, _ line: (normal: SIMD2<Float>, offset: Float)
    )
      -> Float
    { abs((p * line.normal).sum() - line.offset) }
    var removed = [Bool](repeating: false, count: count)
    var crossings: [Int: (x: SIMD2<Float>, before: SIMD2<Float>, after: SIMD2<Float>)] = [:]
    for v in 0..<count where runEnd[v] {
      guard let before = straight[at(v - 1)], let after = straight[v] else { continue }
      let (n1, n2) = (before.normal, after.normal)
      let cross = n1.x * n2.y - n1.y * n2.x
      guard abs(cross) > 0.1 else { continue }
      // The crossing of n1 . p = c1 and n2 . p = c2.
      let x = SIMD2(
        (before.offset * n2.y - after.offset * n1.y) / cross,
        (n1.x * after.offset - n2.x * before.offset) / cross)
      guard length(x - points[v]) <= reach else { continue }
      // The last vertex on the first run's line before the corner, and the first on the
      // second's after it, each within `reach` along the polyline.
      var i = v
      var travelled: Float = 0
      while distance(points[at(i)], before) > onLine {
        travelled += lengths[at(i - 1)]
        i -= 1
        if travelled > reach || i <= v - count + 2 { break }
      }
      var j = v
      travelled = 0
      while distance(points[at(j)], after) > onLine {
        travelled += lengths[at(j)]
        j += 1
        if travelled > reach || j >= v + count - 2 { break }
      }
      guard distance(points[at(i)], before) <= onLine, distance(points[at(j)], after) <= onLine,
        j - i >= 1, j - i < count - 2
      else { continue }
      // Ahead of both: past the first run's last vertex, short of the second's first.
      let u1 = SIMD2(n1.y, -n1.x)
      let u2 = SIMD2(n2.y, -n2.x)
      guard ((x - points[at(i)]) * u1).sum() >= 0, ((points[at(j)] - x) * u2).sum() >= 0 else {
        continue
      }
      let between = (i + 1)..<j
      guard !between.contains(where: { removed[at($0)] }), crossings[at(i)] == nil else { continue }
      for k in between { removed[at(k)] = true }
      crossings[at(i)] = (x, n1, n2)
    }
    // The runs' last vertices before a crossing and first after it, moved onto their lines
    // (they lie within `onLine` of them): the pieces beside a sharpened corner run along the
    // lines exactly, so the corner's mitre splits them along its true bisector.
    var moved = points
    for (i, c) in crossings {
      let p = points[i]
      moved[i] = p - c.before * ((p * c.before).sum() - (c.x * c.before).sum())
      var j = at(i + 1)
      while removed[j] { j = at(j + 1) }
      let q = points[j]
      moved[j] = q - c.after * ((q * c.after).sum() - (c.x * c.after).sum())
    }
    var vertices: [TracedVertex] = []
    for v in 0..<count {
      if !removed[v] { vertices.append((moved[v], v, nil)) }
      if let c = crossings[v] { vertices.append((c.x, nil, (c.before, c.after))) }
    }
    // A run's vertex on a crossing (the tracer met the corner) gives way to it: no piece of
    // no length.
    let n = vertices.count
    return vertices.indices.filter { k in
      guard vertices[k].from != nil else { return true }
      return ![vertices[(k + n - 1) % n], vertices[(k + 1) % n]].contains {
        $0.from == nil && length($0.point - vertices[k].point) <= 1e-4
      }
    }.map { vertices[$0] }
  }

  /// A vertex of a sharpened traced polyline: its point, the index of the traced vertex it
  /// is (nil for a crossing of two runs' lines), and a crossing's runs' normals.
  private typealias TracedVertex = (
    point: SIMD2<Float>, from: Int?, lines: (before: SIMD2<Float>, after: SIMD2<Float>)?
  )

  /// The lines of a traced polyline's straight runs, by edge.
  ///
  /// For each edge (edge e from vertex e to e + 1), the line of the straight run between two
  /// corners it belongs to (its unit normal n and offset c, where n . p = c on it): the
  /// least-squares line through the run's vertices away from its ends (the
  /// tracer rounds corners), when every one of them lies within `tolerance` of it and the
  /// run is at least 4 pixels long; nil elsewhere.
  private static func straightRuns(
    _ points: [SIMD2<Float>], closed: Bool, corner: [Bool], lengths: [Float], tolerance: Float
  ) -> [(normal: SIMD2<Float>, offset: Float)?] {
    let count = points.count
    let edges = lengths.count
    var out = [(normal: SIMD2<Float>, offset: Float)?](repeating: nil, count: edges)
    let corners = (0..<count).filter { corner[$0] }
    guard !corners.isEmpty else { return out }
    for (i, start) in corners.enumerated() {
      let isLast = i == corners.count - 1
      guard !isLast || closed else { break }
      let end = isLast ? corners[0] + count : corners[i + 1]
      guard end > start else { continue }
      let runEdges = (start..<end).map { $0 % edges }
      let total = runEdges.reduce(Float(0)) { $0 + lengths[$1] }
      guard total >= 4 else { continue }
      // The vertices more than a pixel from either end.
      var fit: [SIMD2<Double>] = []
      var travelled: Float = 0
      for v in (start + 1)..<end {
        travelled += lengths[(v - 1) % edges]
        if travelled > 2.5, total - travelled > 2.5 { fit.append(SIMD2<Double>(points[v % count])) }
      }
      guard fit.count >= 3 else { continue }
      let mean = fit.reduce(SIMD2<Double>.zero, +) / Double(fit.count)
      var sxx = 0.0
      var sxy = 0.0
      var syy = 0.0
      for p in fit {
        let d = p - mean
        sxx += d.x * d.x
        sxy += d.x * d.y
        syy += d.y * d.y
      }
      let angle = 0.5 * atan2(2 * sxy, sxx - syy)
      var u = SIMD2(cos(angle), sin(angle))
      let chord = SIMD2<Double>(points[end % count] - points[start])
      if (u * chord).sum() < 0 { u = -u }
      let n = SIMD2(-u.y, u.x)
      guard fit.allSatisfy({ abs(((($0 - mean) * n).sum())) <= Double(tolerance) }) else {
        continue
      }
      let line = (normal: SIMD2<Float>(n), offset: Float((mean * n).sum()))
      for e in runEdges { out[e] = line }
    }
    return out
  }

  private mutating func append(
    a: SIMD2<Float>, b: SIMD2<Float>, na: SIMD2<Float>, nb: SIMD2<Float>, spur: Bool
  ) {
    self.a.append(a)
    self.b.append(b)
    self.na.append(na)
    self.nb.append(nb)
    self.spur.append(spur)
  }

  /// A point rounded to 1/4096 pixel: where pieces meet.
  private static func pointKey(_ p: SIMD2<Float>) -> SIMD2<Int64> {
    SIMD2(Int64((p.x * 4096).rounded()), Int64((p.y * 4096).rounded()))
  }

  /// Links each piece to the one that starts where it ends (points equal to 1/4096 pixel).
  private mutating func link() {
    let key = Self.pointKey
    var starts: [SIMD2<Int64>: Int32] = [:]
    starts.reserveCapacity(count)
    for k in (0..<count).reversed() where !spur[k] { starts[key(a[k])] = Int32(k) }
    next = [Int32](repeating: -1, count: count)
    previous = [Int32](repeating: -1, count: count)
    for k in 0..<count where !spur[k] {
      if let j = starts[key(b[k])], previous[Int(j)] < 0, Int(j) != k {
        next[k] = j
        previous[Int(j)] = Int32(k)
      }
    }
  }

  /// The outline mirrored left to right on a canvas `width` pixels wide.
  public func mirrored(width: Int) -> Outline {
    var out = Outline()
    let w = Float(width)
    @inline(__always) func flip(_ p: SIMD2<Float>) -> SIMD2<Float> { SIMD2(w - p.x, p.y) }
    @inline(__always) func flipNormal(_ n: SIMD2<Float>) -> SIMD2<Float> { SIMD2(-n.x, n.y) }
    // Mirroring reverses the orientation: each piece runs the other way.
    out.a = b.map(flip)
    out.b = a.map(flip)
    out.na = nb.map(flipNormal)
    out.nb = na.map(flipNormal)
    out.spur = spur
    out.next = previous
    out.previous = next
    out.isTraced = isTraced
    return out
  }

  /// The outline scaled by `factor` about the canvas's origin (its tangents unchanged).
  public func scaled(by factor: Float) -> Outline {
    var out = self
    out.a = a.map { $0 * factor }
    out.b = b.map { $0 * factor }
    return out
  }

  /// The outline moved by `offset` pixels.
  public func translated(by offset: SIMD2<Float>) -> Outline {
    var out = self
    out.a = a.map { $0 + offset }
    out.b = b.map { $0 + offset }
    return out
  }

  @inline(__always) static func perp(_ u: SIMD2<Float>) -> SIMD2<Float> { SIMD2(-u.y, u.x) }

  @inline(__always) static func length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }

  @inline(__always) static func unit(_ v: SIMD2<Float>, or fallback: SIMD2<Float>) -> SIMD2<Float> {
    let l = length(v)
    return l > 1e-12 ? v / l : fallback
  }

  /// Where edges of different contours, or of one contour away from their shared vertex,
  /// cross or touch: per edge, the parameters along it and the point where it must split (a
  /// crossing computed once, so both edges split at the very same point; where one edge's
  /// end lies on the other, that end; where two edges lie along one line and overlap, each
  /// one's ends inside the other), and the contours with any such contact (end to end too).
  private static func intersections(
    _ edges: [Edge], contourOf: [Int], contourStart: [Int]
  ) -> (splits: [Int: [(t: Float, p: SIMD2<Float>)]], touched: Set<Int>) {
    let cell: Float = 16
    var grid: [SIMD2<Int32>: [Int32]] = [:]
    for (k, e) in edges.enumerated() {
      let lo = pointwiseMin(e.a, e.b)
      let hi = pointwiseMax(e.a, e.b)
      let x0 = Int32((lo.x / cell).rounded(.down))
      let x1 = Int32((hi.x / cell).rounded(.down))
      let y0 = Int32((lo.y / cell).rounded(.down))
      let y1 = Int32((hi.y / cell).rounded(.down))
      guard x1 - x0 < 4096, y1 - y0 < 4096 else { continue }
      for y in y0...y1 { for x in x0...x1 { grid[SIMD2(x, y), default: []].append(Int32(k)) } }
    }
    func adjacent(_ i: Int, _ j: Int) -> Bool {
      guard contourOf[i] == contourOf[j] else { return false }
      let c = contourOf[i]
      let n = contourStart[c + 1] - contourStart[c]
      let d = abs(i - j)
      return d == 1 || d == n - 1
    }
    var splits: [Int: [(t: Float, p: SIMD2<Float>)]] = [:]
    // Contours with an edge that another edge crosses or touches, even end to end.
    var touched = Set<Int>()
    // Inside an edge: away from its ends by more than rounding.
    let margin = 1e-7
    @inline(__always) func inside(_ t: Double) -> Bool { t > margin && t < 1 - margin }
    @inline(__always) func within(_ t: Double) -> Bool { t >= -margin && t <= 1 + margin }
    for (key, list) in grid.sorted(by: { ($0.key.y, $0.key.x) < ($1.key.y, $1.key.x) })
    where list.count > 1 {
      // Counted once: in the cell that holds the point.
      @inline(__always) func here(_ point: SIMD2<Float>) -> Bool {
        Int32((point.x / cell).rounded(.down)) == key.x
          && Int32((point.y / cell).rounded(.down)) == key.y
      }
      for m in 0..<list.count {
        let i = Int(list[m])
        for n in (m + 1)..<list.count {
          let j = Int(list[n])
          guard !adjacent(i, j) else { continue }
          let p = SIMD2<Double>(edges[i].a)
          let r = SIMD2<Double>(edges[i].b) - p
          let q = SIMD2<Double>(edges[j].a)
          let s = SIMD2<Double>(edges[j].b) - q
          let denominator = r.x * s.y - r.y * s.x
          let qp = q - p
          let (rr, ss) = ((r * r).sum(), (s * s).sum())
          guard rr > 0, ss > 0 else { continue }
          if abs(denominator) <= 1e-12 * rr.squareRoot() * ss.squareRoot() {
            // Parallel: where they lie on one line, each splits at the other's ends that
            // fall inside it (the overlap's ends).
            let offLine = qp.x * r.y - qp.y * r.x
            guard abs(offLine) <= 1e-6 * rr.squareRoot() else { continue }
            // (Touching at most end to end, or apart, along the line.)
            let (t0, t1) = ((qp * r).sum() / rr, ((qp + s) * r).sum() / rr)
            if max(t0, t1) >= -margin && min(t0, t1) <= 1 + margin {
              touched.insert(contourOf[i])
              touched.insert(contourOf[j])
            }
            for (end, point) in [(qp, edges[j].a), (qp + s, edges[j].b)] {
              let t = (end * r).sum() / rr
              if inside(t), here(point) { splits[i, default: []].append((Float(t), point)) }
            }
            for (end, point) in [(-qp, edges[i].a), (r - qp, edges[i].b)] {
              let u = (end * s).sum() / ss
              if inside(u), here(point) { splits[j, default: []].append((Float(u), point)) }
            }
            continue
          }
          let t = (qp.x * s.y - qp.y * s.x) / denominator
          let u = (qp.x * r.y - qp.y * r.x) / denominator
          guard within(t), within(u) else { continue }
          touched.insert(contourOf[i])
          touched.insert(contourOf[j])
          guard inside(t) || inside(u) else { continue }
          // Where one edge's end touches the other (a T), the split is at that end itself,
          // so the pieces meet it exactly; a crossing is computed once for both.
          let point: SIMD2<Float> =
            !inside(u)
            ? (u < 0.5 ? edges[j].a : edges[j].b)
            : !inside(t) ? (t < 0.5 ? edges[i].a : edges[i].b) : SIMD2<Float>(p + r * t)
          guard here(point) else { continue }
          if inside(t) { splits[i, default: []].append((Float(t), point)) }
          if inside(u) { splits[j, default: []].append((Float(u), point)) }
        }
      }
    }
    return (splits, touched)
  }

  /// Winding numbers of the contours at any point, with the edges sorted into rows.
  private struct Winding {
    let edges: [Edge]
    let rows: [Int: [Int32]]
    static let rowHeight: Double = 4

    init(_ edges: [Edge]) {
      self.edges = edges
      var rows: [Int: [Int32]] = [:]
      for (k, e) in edges.enumerated() where e.a.y != e.b.y {
        let y0 = Int((Double(min(e.a.y, e.b.y)) / Self.rowHeight).rounded(.down))
        let y1 = Int((Double(max(e.a.y, e.b.y)) / Self.rowHeight).rounded(.down))
        guard y1 - y0 < 100_000 else { continue }
        for y in y0...y1 { rows[y, default: []].append(Int32(k)) }
      }
      self.rows = rows
    }

    /// The nonzero winding number at `p`: signed crossings of a ray toward +x.
    func number(at p: SIMD2<Double>) -> Int {
      var w = 0
      for k in rows[Int((p.y / Self.rowHeight).rounded(.down))] ?? [] {
        let e = edges[Int(k)]
        let a = SIMD2<Double>(e.a)
        let b = SIMD2<Double>(e.b)
        if a.y <= p.y {
          if b.y > p.y, (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y) > 0 { w += 1 }
        } else if b.y <= p.y, (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y) < 0 {
          w -= 1
        }
      }
      return w
    }
  }
}

extension Outline {
  /// The outline's chains of linked pieces, each as piece indices in order: from its
  /// lowest-numbered piece round to it again (`closed`), or from its first piece to its last
  /// for a chain the tracer left open.
  package func chains() -> [(pieces: [Int], closed: Bool)] {
    var visited = [Bool](repeating: false, count: count)
    var chains: [(pieces: [Int], closed: Bool)] = []
    for start in 0..<count where !visited[start] {
      var forward: [Int] = []
      var k = start
      var closed = false
      while !visited[k] {
        visited[k] = true
        forward.append(k)
        let n = Int(next[k])
        guard n >= 0 else { break }
        if n == start { closed = true }
        k = n
      }
      // An open chain: the pieces before `start` too.
      var backward: [Int] = []
      var p = closed ? -1 : Int(previous[start])
      while p >= 0, !visited[p] {
        visited[p] = true
        backward.append(p)
        p = Int(previous[p])
      }
      chains.append((backward.reversed() + forward, closed))
    }
    return chains
  }

  /// The chains of this outline whose ink side lies where `inside` says (most of a chain's
  /// pieces, sampled a third of a pixel into the ink from their middles): the outline of one
  /// region of the ink, its holes included.
  public func keepingChains(where inside: (SIMD2<Float>) -> Bool) -> Outline {
    var out = Outline()
    for chain in chains().map(\.pieces) {
      let solid = chain.filter { !spur[$0] && a[$0] != b[$0] }
      guard !solid.isEmpty else { continue }
      let samples = min(16, solid.count)
      var votes = 0
      for i in 0..<samples {
        let piece = solid[i * solid.count / samples]
        let v = b[piece] - a[piece]
        let normal = SIMD2(-v.y, v.x) / (v * v).sum().squareRoot()
        if inside((a[piece] + b[piece]) * 0.5 + normal * (1.0 / 3)) { votes += 1 }
      }
      guard 2 * votes > samples else { continue }
      for piece in chain {
        out.append(a: a[piece], b: b[piece], na: na[piece], nb: nb[piece], spur: spur[piece])
      }
    }
    out.link()
    out.isTraced = isTraced
    return out
  }
}

extension Outline {
  /// The exact area of ink in each pixel of `region` (canvas pixels), 0...1, in `Float`:
  /// the signed area swept by every piece, accumulated per pixel and summed along each row
  /// (as font-rs and stb_truetype rasterize).
  ///
  /// Exact for a closed outline whose contours do not overlap (a union, as
  /// `init(contours:)` makes): no 8-bit rounding, so a 16-bit alpha gets 16 bits. Spurs
  /// (zero-area pieces) add nothing; ink left of the region counts at its left edge.
  public func areaCoverage(region: PixelRect) -> Plane {
    let w = region.width
    let h = region.height
    var plane = Plane(width: max(0, w), height: max(0, h))
    guard w > 0, h > 0 else { return plane }
    let stride = w + 2
    var accumulator = [Float](repeating: 0, count: stride * h)
    let origin = SIMD2(Float(region.x), Float(region.y))
    accumulator.withUnsafeMutableBufferPointer { acc in
      for k in 0..<count where !spur[k] {
        Self.accumulate(a[k] - origin, b[k] - origin, width: w, height: h, stride: stride, acc)
      }
    }
    for y in 0..<h {
      var sum: Float = 0
      for x in 0..<w {
        sum += accumulator[y * stride + x]
        plane.pixels[y * w + x] = min(abs(sum), 1)
      }
    }
    return plane
  }

  /// Adds the signed area of segment p -> q (region coordinates) to the accumulator rows it
  /// crosses: each pixel gets the share of its height the segment spans, split between the
  /// pixels it crosses by the area right of the segment.
  private static func accumulate(
    _ p: SIMD2<Float>, _ q: SIMD2<Float>, width w: Int, height h: Int, stride: Int,
    _ acc: UnsafeMutableBufferPointer<Float>
  ) {
    guard p.y != q.y else { return }
    let direction: Float = p.y < q.y ? 1 : -1
    let (top, bottom) = p.y < q.y ? (p, q) : (q, p)
    let dxdy = (bottom.x - top.x) / (bottom.y - top.y)
    let limit = Float(w)
    let first = max(0, Int(top.y.rounded(.down)))
    let last = min(h, Int(bottom.y.rounded(.up)))
    guard first < last else { return }
    var x = top.x + (max(top.y, Float(first)) - top.y) * dxdy
    for y in first..<last {
      let dy = min(Float(y + 1), bottom.y) - max(Float(y), top.y)
      guard dy > 0 else { continue }
      let xNext = x + dxdy * dy
      let d = dy * direction
      // Clamped to the region: ink left of it counts at its left edge; right of it, at the
      // accumulator's spare column (never summed into a pixel).
      let cx = min(max(x, 0), limit)
      let cn = min(max(xNext, 0), limit)
      let x0 = min(cx, cn)
      let x1 = max(cx, cn)
      let row = y * stride
      let x0Floor = x0.rounded(.down)
      let x0i = Int(x0Floor)
      let x1Ceil = x1.rounded(.up)
      let x1i = Int(x1Ceil)
      if x1i <= x0i + 1 {
        let middle = 0.5 * (cx + cn) - x0Floor
        acc[row + x0i] += d - d * middle
        acc[row + x0i + 1] += d * middle
      } else {
        let s = 1 / (x1 - x0)
        let x0f = x0 - x0Floor
        let a0 = 0.5 * s * (1 - x0f) * (1 - x0f)
        let x1f = x1 - x1Ceil + 1
        let am = 0.5 * s * x1f * x1f
        acc[row + x0i] += d * a0
        if x1i == x0i + 2 {
          acc[row + x0i + 1] += d * (1 - a0 - am)
        } else {
          let a1 = s * (1.5 - x0f)
          acc[row + x0i + 1] += d * (a1 - a0)
          if x0i + 2 < x1i - 1 {
            for xi in (x0i + 2)..<(x1i - 1) { acc[row + xi] += d * s }
          }
          let a2 = a1 + Float(x1i - x0i - 3) * s
          acc[row + x1i - 1] += d * (1 - a2 - am)
        }
        acc[row + x1i] += d * am
      }
      x = xNext
    }
  }
}
