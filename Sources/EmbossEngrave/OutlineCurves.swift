import CClipper
import EmbossGeometry
import EmbossRaster
import EmbossSupport
import Foundation

extension ClosedCurve {
  /// A straight segment from `a` to `b` as a cubic: its control points at the thirds, which
  /// is how `isLine` tells it (an SVG writes it as a line).
  static func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> (
    SIMD2<Double>, SIMD2<Double>, SIMD2<Double>
  ) {
    (a + (b - a) / 3, a + (b - a) * (2.0 / 3), b)
  }

  /// Whether the segment from `a` with controls `c1`, `c2` to `b` is a straight line made by
  /// `line` (controls at the thirds, to 1e-9 pixels).
  static func isLine(
    _ a: SIMD2<Double>, _ c1: SIMD2<Double>, _ c2: SIMD2<Double>, _ b: SIMD2<Double>
  ) -> Bool {
    let (l1, l2, _) = line(a, b)
    let d1 = c1 - l1
    let d2 = c2 - l2
    return (d1 * d1).sum() < 1e-18 && (d2 * d2).sum() < 1e-18
  }
}

extension CutLine {
  /// The cut line along an exact outline (a text's glyph outlines), `offset` pixels outside
  /// it (negative: inside); nil when the outline has an open chain (a tracer's broken line),
  /// where only tracing the mask gives closed loops.
  ///
  /// At offset 0 the loops are the outline itself: each run of flattened curve pieces between
  /// two corners becomes cubic Béziers within `tolerance` pixels of its vertices (tangents at
  /// the run's ends are the curve's own), a straight piece stays a straight line, and corners
  /// stay sharp. Any other offset is Clipper's (libpolyclipping) offset of the outline's
  /// polygon with round joins, unioned by the nonzero rule, to 1/65536 pixel with arcs within
  /// a 500th of the offset: every point of it is the offset's distance from the polygon,
  /// which is within 0.005 pixels of the glyphs' curves. Its runs between corners (turns of
  /// more than 20 degrees) are fitted the same way.
  public static func curves(
    outline: Outline, offset: Double = 0, join: Join = .round, tolerance: Double = 0.01
  ) -> [ClosedCurve]? {
    guard let loops = loops(outline) else { return nil }
    if offset == 0 {
      return loops.compactMap { exactCurve(outline, $0, tolerance: tolerance) }
    }
    let polygons = loops.map { loop in loop.flatMap { polygonPoints(outline, $0) } }
    guard let offsetPolygons = offsetPolygons(polygons, by: offset, join: join) else {
      return nil
    }
    return offsetPolygons.compactMap { polygonCurve($0, tolerance: tolerance) }
  }

  /// A piece's start, and for a curved piece three more points along its curve (the cubic
  /// Hermite between its ends' tangents), so that the polygon Clipper offsets is within a
  /// 16th of the flattening's 0.005 pixels of the curve.
  static func polygonPoints(_ outline: Outline, _ k: Int) -> [SIMD2<Double>] {
    let a = SIMD2<Double>(outline.a[k])
    guard outline.na[k] != outline.nb[k] else { return [a] }
    let b = SIMD2<Double>(outline.b[k])
    let length = ((b - a) * (b - a)).sum().squareRoot()
    let ta = tangent(outline.na[k]) * length
    let tb = tangent(outline.nb[k]) * length
    return [a]
      + [0.25, 0.5, 0.75].map { t in
        let t2 = t * t
        let t3 = t2 * t
        return (2 * t3 - 3 * t2 + 1) * a + (t3 - 2 * t2 + t) * ta + (-2 * t3 + 3 * t2) * b
          + (t3 - t2) * tb
      }
  }

  /// The outline's closed chains as piece indices in order (chains of spurs alone left out);
  /// nil when a chain is open.
  static func loops(_ outline: Outline) -> [[Int]]? {
    var loops: [[Int]] = []
    for chain in outline.chains() where !chain.pieces.allSatisfy({ outline.spur[$0] }) {
      guard chain.closed else { return nil }
      loops.append(chain.pieces)
    }
    return loops
  }

  /// The unit tangent (direction of travel) for a normal toward the ink: n = (-u.y, u.x).
  static func tangent(_ n: SIMD2<Float>) -> SIMD2<Double> {
    unit(SIMD2(Double(n.y), Double(-n.x)))
  }

  static func unit(_ v: SIMD2<Double>) -> SIMD2<Double> {
    let l = (v * v).sum().squareRoot()
    return l > 1e-15 ? v / l : .zero
  }

  /// One loop of the exact outline as Béziers: straight pieces as lines, runs of curve
  /// pieces joined smoothly fitted between their ends' curve tangents.
  static func exactCurve(_ outline: Outline, _ loop: [Int], tolerance: Double) -> ClosedCurve? {
    let n = loop.count
    guard n >= 2 else { return nil }
    func straight(_ k: Int) -> Bool { outline.na[k] == outline.nb[k] }
    // A break before piece i of the loop: a corner, or a straight piece on either side.
    func breaks(before i: Int) -> Bool {
      let k = loop[(i + n - 1) % n]
      let j = loop[i]
      let smooth = (SIMD2<Double>(outline.nb[k]) * SIMD2<Double>(outline.na[j])).sum() > 0.99999
      return !smooth || straight(k) || straight(j)
    }
    let starts = (0..<n).filter { breaks(before: $0) }
    var runs: [Range<Int>] = []
    if starts.isEmpty {
      // A smooth loop (an "O"): four runs, so that no fit spans the whole loop.
      let cuts = (0...4).map { $0 * n / 4 }
      for q in 0..<4 where cuts[q] < cuts[q + 1] { runs.append(cuts[q]..<cuts[q + 1]) }
    } else {
      for (q, s) in starts.enumerated() {
        let e = q + 1 < starts.count ? starts[q + 1] : starts[0] + n
        runs.append(s..<e)
      }
    }
    let origin = SIMD2<Double>(outline.a[loop[runs[0].lowerBound % n]])
    var segments: [(SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)] = []
    for run in runs {
      let first = loop[run.lowerBound % n]
      let last = loop[(run.upperBound - 1) % n]
      var points = [SIMD2<Double>(outline.a[first])]
      for i in run { points.append(SIMD2<Double>(outline.b[loop[i % n]])) }
      if run.count == 1 && straight(first) {
        segments.append(ClosedCurve.line(points[0], points[1]))
        continue
      }
      BezierFit.fit(
        points, startTangent: tangent(outline.na[first]), endTangent: tangent(outline.nb[last]),
        tolerance: tolerance, into: &segments)
    }
    return ClosedCurve(start: origin, segments: segments)
  }

  /// The resolution of the integer coordinates Clipper works in: units per pixel.
  static let clipperScale = 65536.0

  /// Clipper's offset of closed polygons by `offset` pixels, round joins; nil where Clipper
  /// fails.
  ///
  /// Outer polygons have a positive signed area in x-right, y-down coordinates (the ink on
  /// the left normal), holes a negative one; the result is in the same orientation.
  static func offsetPolygons(
    _ polygons: [[SIMD2<Double>]], by offset: Double, join: Join = .round,
    arcTolerance: Double = 0.002
  )
    -> [[SIMD2<Double>]]?
  {
    let scale = clipperScale
    var xy: [Int64] = []
    var counts: [Int32] = []
    for polygon in polygons where polygon.count >= 3 {
      counts.append(Int32(polygon.count))
      for p in polygon {
        xy.append(Int64((p.x * scale).rounded()))
        xy.append(Int64((p.y * scale).rounded()))
      }
    }
    // Arcs within a 500th of the offset (at most 0.002 px): 7 degrees a step at most.
    let arcTolerance = min(arcTolerance, abs(offset) / 500) * scale
    var out = emboss_polygons()
    let status = emboss_offset_polygons(
      xy, counts, Int32(counts.count), offset * scale, max(arcTolerance, 1),
      join == .miter ? 1 : 0, Join.miterLimit, &out)
    guard status == 0 else { return nil }
    defer { emboss_polygons_free(&out) }
    var result: [[SIMD2<Double>]] = []
    var k = 0
    for i in 0..<Int(out.pathCount) {
      var polygon: [SIMD2<Double>] = []
      for _ in 0..<Int(out.counts[i]) {
        polygon.append(SIMD2(Double(out.xy[2 * k]), Double(out.xy[2 * k + 1])) / scale)
        k += 1
      }
      result.append(polygon)
    }
    return result
  }

  /// A closed polygon (an offset outline) as Béziers: split at corners (turns of more than
  /// 20 degrees), each run between two corners fitted with tangents estimated from its
  /// neighbouring vertices.
  static func polygonCurve(_ polygon: [SIMD2<Double>], tolerance: Double) -> ClosedCurve? {
    // Repeated points dropped.
    var p: [SIMD2<Double>] = []
    for q in polygon where p.last.map({ (($0 - q) * ($0 - q)).sum() > 1e-18 }) ?? true {
      p.append(q)
    }
    while p.count > 1, let f = p.first, let l = p.last, ((f - l) * (f - l)).sum() <= 1e-18 {
      p.removeLast()
    }
    let n = p.count
    guard n >= 3 else { return nil }
    let cosCorner = cos(20.0 * .pi / 180)
    var corner = [Bool](repeating: false, count: n)
    for i in 0..<n {
      let before = unit(p[i] - p[(i + n - 1) % n])
      let after = unit(p[(i + 1) % n] - p[i])
      corner[i] = (before * after).sum() < cosCorner
    }
    var starts = (0..<n).filter { corner[$0] }
    if starts.isEmpty { starts = (0..<4).map { $0 * n / 4 } }
    func tangentAt(_ i: Int, leaving: Bool) -> SIMD2<Double> {
      let i = i % n
      if corner[i] {
        return leaving ? unit(p[(i + 1) % n] - p[i]) : unit(p[i] - p[(i + n - 1) % n])
      }
      return unit(p[(i + 1) % n] - p[(i + n - 1) % n])
    }
    var segments: [(SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)] = []
    for (q, s) in starts.enumerated() {
      let e = q + 1 < starts.count ? starts[q + 1] : starts[0] + n
      guard e > s else { continue }
      let points = (s...e).map { p[$0 % n] }
      if points.count == 2 {
        segments.append(ClosedCurve.line(points[0], points[1]))
        continue
      }
      BezierFit.fit(
        points, startTangent: tangentAt(s, leaving: true),
        endTangent: tangentAt(e, leaving: false), tolerance: tolerance, into: &segments)
    }
    return ClosedCurve(start: p[starts[0]], segments: segments)
  }
}

/// Fits cubic Béziers to a polyline that samples a smooth curve (Schneider's algorithm,
/// Graphics Gems 1990): least squares with the end tangents fixed, Newton reparameterization,
/// and a split at the worst vertex until every vertex is within the tolerance.
enum BezierFit {
  /// Appends to `segments` the Béziers from `points.first` to `points.last`, leaving along
  /// `startTangent` and arriving along `endTangent` (unit vectors, direction of travel).
  ///
  /// Segments longer than a pixel are resampled first, so that the fit is checked along them
  /// too.
  static func fit(
    _ points: [SIMD2<Double>], startTangent: SIMD2<Double>, endTangent: SIMD2<Double>,
    tolerance: Double, into segments: inout [(SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)]
  ) {
    var d: [SIMD2<Double>] = []
    for i in 0..<points.count {
      guard i > 0 else {
        d.append(points[0])
        continue
      }
      let a = points[i - 1]
      let b = points[i]
      let length = ((b - a) * (b - a)).sum().squareRoot()
      guard length > 1e-12 else { continue }
      let parts = max(1, Int(length.rounded(.up)))
      for k in 1...parts { d.append(a + (b - a) * (Double(k) / Double(parts))) }
    }
    guard d.count >= 2 else { return }
    var t1 = startTangent
    var t2 = -endTangent
    if (t1 * t1).sum() < 0.5 { t1 = CutLine.unit(d[1] - d[0]) }
    if (t2 * t2).sum() < 0.5 { t2 = CutLine.unit(d[d.count - 2] - d[d.count - 1]) }
    fitCubic(d, 0, d.count - 1, t1, t2, tolerance, &segments)
  }

  private static func fitCubic(
    _ d: [SIMD2<Double>], _ first: Int, _ last: Int, _ t1: SIMD2<Double>, _ t2: SIMD2<Double>,
    _ tolerance: Double, _ segments: inout [(SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)]
  ) {
    let p0 = d[first]
    let p3 = d[last]
    let chord = ((p3 - p0) * (p3 - p0)).sum().squareRoot()
    if last - first == 1 {
      segments.append((p0 + t1 * (chord / 3), p3 + t2 * (chord / 3), p3))
      return
    }
    var u = chordLengths(d, first, last)
    var bezier = generate(d, first, last, u, t1, t2)
    var (error, split) = maxError(d, first, last, bezier, u)
    if error <= tolerance {
      segments.append((bezier.1, bezier.2, bezier.3))
      return
    }
    if error <= tolerance * 16 {
      for _ in 0..<20 {
        u = reparameterize(d, first, last, u, bezier)
        // Parameters out of order: the curve doubles back; split instead.
        guard zip(u, u.dropFirst()).allSatisfy({ $0 < $1 }) else { break }
        bezier = generate(d, first, last, u, t1, t2)
        (error, split) = maxError(d, first, last, bezier, u)
        if error <= tolerance {
          segments.append((bezier.1, bezier.2, bezier.3))
          return
        }
      }
    }
    let center = CutLine.unit(d[split - 1] - d[split + 1])
    let left = (center * center).sum() > 0.5 ? center : CutLine.unit(d[split - 1] - d[split])
    fitCubic(d, first, split, t1, left, tolerance, &segments)
    fitCubic(d, split, last, -left, t2, tolerance, &segments)
  }

  private typealias Cubic = (SIMD2<Double>, SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)

  private static func chordLengths(_ d: [SIMD2<Double>], _ first: Int, _ last: Int) -> [Double] {
    var u = [0.0]
    for i in (first + 1)...last {
      let v = d[i] - d[i - 1]
      u.append(u[u.count - 1] + (v * v).sum().squareRoot())
    }
    let total = u[u.count - 1]
    return total > 0 ? u.map { $0 / total } : u
  }

  private static func point(_ b: Cubic, _ t: Double) -> SIMD2<Double> {
    let s = 1 - t
    return s * s * s * b.0 + 3 * s * s * t * b.1 + 3 * s * t * t * b.2 + t * t * t * b.3
  }

  /// The least-squares Bézier with the given end tangents.
  private static func generate(
    _ d: [SIMD2<Double>], _ first: Int, _ last: Int, _ u: [Double], _ t1: SIMD2<Double>,
    _ t2: SIMD2<Double>
  ) -> Cubic {
    let p0 = d[first]
    let p3 = d[last]
    var c00 = 0.0
    var c01 = 0.0
    var c11 = 0.0
    var x0 = 0.0
    var x1 = 0.0
    for i in 0...(last - first) {
      let t = u[i]
      let s = 1 - t
      let b0 = s * s * s
      let b1 = 3 * s * s * t
      let b2 = 3 * s * t * t
      let b3 = t * t * t
      let a1 = t1 * b1
      let a2 = t2 * b2
      c00 += (a1 * a1).sum()
      c01 += (a1 * a2).sum()
      c11 += (a2 * a2).sum()
      let tmp = d[first + i] - (p0 * (b0 + b1) + p3 * (b2 + b3))
      x0 += (a1 * tmp).sum()
      x1 += (a2 * tmp).sum()
    }
    let det = c00 * c11 - c01 * c01
    var alpha1 = 0.0
    var alpha2 = 0.0
    if abs(det) > 1e-12 {
      alpha1 = (x0 * c11 - x1 * c01) / det
      alpha2 = (c00 * x1 - c01 * x0) / det
    }
    let chord = ((p3 - p0) * (p3 - p0)).sum().squareRoot()
    let epsilon = 1e-6 * chord
    // Handles longer than the chord (nearly collinear points) make loops and cusps between
    // the vertices, where the error is not measured: the plain estimate instead.
    if alpha1 < epsilon || alpha2 < epsilon || alpha1 > chord || alpha2 > chord {
      alpha1 = chord / 3
      alpha2 = chord / 3
    }
    return (p0, p0 + t1 * alpha1, p3 + t2 * alpha2, p3)
  }

  /// The largest distance from a vertex to the curve at its parameter, and the vertex.
  private static func maxError(
    _ d: [SIMD2<Double>], _ first: Int, _ last: Int, _ b: Cubic, _ u: [Double]
  ) -> (Double, Int) {
    var worst = 0.0
    var split = (first + last) / 2
    for i in (first + 1)..<last {
      let v = point(b, u[i - first]) - d[i]
      let e = (v * v).sum().squareRoot()
      if e >= worst {
        worst = e
        split = i
      }
    }
    return (worst, split)
  }

  /// One Newton step per vertex toward the curve's nearest point.
  private static func reparameterize(
    _ d: [SIMD2<Double>], _ first: Int, _ last: Int, _ u: [Double], _ b: Cubic
  ) -> [Double] {
    let q1 = (b.1 - b.0, b.2 - b.1, b.3 - b.2).self
    let d1 = (3 * q1.0, 3 * q1.1, 3 * q1.2)
    let d2 = (2 * (d1.1 - d1.0), 2 * (d1.2 - d1.1))
    return (0...(last - first)).map { i in
      let t = u[i]
      let s = 1 - t
      let q = point(b, t)
      let qd = s * s * d1.0 + 2 * s * t * d1.1 + t * t * d1.2
      let qdd = s * d2.0 + t * d2.1
      let diff = q - d[first + i]
      let numerator = (diff * qd).sum()
      let denominator = (qd * qd).sum() + (diff * qdd).sum()
      guard abs(denominator) > 1e-15 else { return t }
      return min(max(t - numerator / denominator, 0), 1)
    }
  }
}

extension CutLine {
  /// How an offset cut line turns round a convex corner of the outline.
  public enum Join: String, Sendable, CaseIterable {
    /// An arc at the offset's distance from the corner: every point of the line is exactly
    /// the offset from the ink.
    case round
    /// The two offset edges extended until they meet: a sharp corner, squared off where it
    /// would reach more than `miterLimit` offsets from the corner (very acute corners).
    case miter

    /// How far (in offsets) a mitred corner may reach before it is squared off.
    public static let miterLimit = 4.0
  }

  /// How closely the Béziers follow the outline or its offset, in millimeters.
  public static let fitToleranceMM = 0.001

  /// The cut line around a mask, `offset` pixels outside its ink (negative: inside), for an
  /// SVG at `dpi`: from the mask's exact outline when it has one (text; `curves(outline:)`,
  /// within `fitToleranceMM`), else traced from its pixels (`trace`; pictures, whose
  /// outline, if any, was traced too).
  public static func make(
    mask: CoverageMask, offset: Double, join: Join = .round, dpi: Double,
    parallelism: Parallelism = .allCores
  ) -> [ClosedCurve] {
    // A picture's traced outline keeps the pixel trace: its vertices carry the tracer's
    // steps, which the trace's simplification smooths (a cut line should not cut stairs).
    if let outline = mask.outline, outline.count > 0, !outline.isTraced,
      let curves = curves(
        outline: outline, offset: offset, join: join, tolerance: fitToleranceMM * dpi / 25.4)
    {
      return curves
    }
    return trace(mask: mask, offset: offset, parallelism: parallelism)
  }
}

extension CutLine {
  /// The ink's region as closed polygons in canvas pixels, grown by `offset` pixels.
  ///
  /// 0: the ink itself. With a `tolerance`, points within it of the line through their
  /// neighbours are left out first (Douglas-Peucker). The outline's own loops (curves sampled within a 16th of its 0.005 px
  /// flattening) offset by Clipper, or for an outline with open chains (a picture's broken
  /// trace) the coverage's 0.5 iso-line by marching squares. Orientation is not meaningful:
  /// the region is what the polygons enclose by the even-odd rule. Nil where Clipper fails.
  package static func regionPolygons(
    mask: CoverageMask, offset: Double = 0, join: Join = .round, arcTolerance: Double = 0.002,
    simplifiedWithin tolerance: Double = 0
  ) -> [[SIMD2<Double>]]? {
    var polygons: [[SIMD2<Double>]]
    if let outline = mask.outline, let loops = loops(outline) {
      polygons = loops.map { loop in loop.flatMap { polygonPoints(outline, $0) } }
    } else {
      // 1 - coverage, with a ring of background around the canvas so every loop closes.
      var field = Plane(width: mask.width + 2, height: mask.height + 2)
      field.pixels = [Float](repeating: 1, count: field.pixels.count)
      for y in 0..<mask.height {
        for x in 0..<mask.width { field[x + 1, y + 1] = 1 - mask[x, y] }
      }
      polygons = orientedByNesting(
        marchingSquares(field, level: 0.5).map { loop in loop.map { $0 - SIMD2(0.5, 0.5) } })
    }
    if tolerance > 0 { polygons = polygons.map { simplify($0, tolerance: tolerance) } }
    guard offset != 0 else { return polygons }
    return offsetPolygons(polygons, by: offset, join: join, arcTolerance: arcTolerance)
  }

  /// The union (nonzero) of polygons oriented as the outline's: overlapping glyphs become
  /// one region.
  ///
  /// Each is grown by a thousandth of a pixel (Clipper's offset unions what it grows).
  /// Points within `tolerance` of the line through their neighbours are left out
  /// afterwards (the growth's round corners among them). Nil where Clipper fails.
  package static func unioned(_ polygons: [[SIMD2<Double>]], simplifiedWithin tolerance: Double)
    -> [[SIMD2<Double>]]?
  {
    offsetPolygons(polygons, by: 0.001, arcTolerance: 0.001)?
      .map { simplify($0, tolerance: tolerance) }.filter { $0.count >= 3 }
  }

  /// Twice the signed area of a closed polygon (positive: clockwise on a y-down screen).
  package static func doubleArea(_ polygon: [SIMD2<Double>]) -> Double {
    var sum = 0.0
    for i in polygon.indices {
      let p = polygon[i]
      let q = polygon[(i + 1) % polygon.count]
      sum += p.x * q.y - q.x * p.y
    }
    return sum
  }

  /// Whether `p` is inside `polygon` (even-odd).
  package static func encloses(_ polygon: [SIMD2<Double>], _ p: SIMD2<Double>) -> Bool {
    var inside = false
    var j = polygon.count - 1
    for i in polygon.indices {
      let a = polygon[i]
      let b = polygon[j]
      if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) {
        inside.toggle()
      }
      j = i
    }
    return inside
  }

  /// Non-crossing closed polygons oriented as the outline's: those inside an even number
  /// of others (outer boundaries) with a positive signed area in y-down coordinates (the
  /// region on the right of travel, on screen), the others (holes) negative.
  package static func orientedByNesting(_ polygons: [[SIMD2<Double>]]) -> [[SIMD2<Double>]] {
    let polygons = polygons.filter { $0.count >= 3 }
    return polygons.indices.map { i in
      let depth = polygons.indices.filter { j in
        j != i && encloses(polygons[j], polygons[i][0])
      }.count
      let outer = depth % 2 == 0
      return (doubleArea(polygons[i]) > 0) == outer ? polygons[i] : polygons[i].reversed()
    }
  }
}
