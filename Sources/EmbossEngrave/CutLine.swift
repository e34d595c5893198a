import EmbossGeometry
import EmbossRaster
import EmbossSupport

/// A closed cubic Bezier curve: `start`, then segments (control 1, control 2, end); the last
/// segment ends at `start`.
///
/// Coordinates in canvas pixels (origin top-left, y down).
public struct ClosedCurve: Sendable, Equatable {
  /// Where the curve starts, and ends.
  public var start: SIMD2<Double>
  /// Cubic Bézier segments, each as (first control point, second control point, end point).
  public var segments: [(SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)]

  /// Whether two curves have the same start and the same segments.
  public static func == (a: ClosedCurve, b: ClosedCurve) -> Bool {
    a.start == b.start && a.segments.count == b.segments.count
      && zip(a.segments, b.segments).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
  }

  /// Points along the curve, `steps` per segment (for drawing or testing).
  public func flattened(steps: Int = 8) -> [SIMD2<Double>] {
    var points: [SIMD2<Double>] = []
    var p0 = start
    for (c1, c2, p3) in segments {
      for k in 0..<steps {
        let t = Double(k) / Double(steps)
        let u = 1 - t
        points.append(u * u * u * p0 + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * p3)
      }
      p0 = p3
    }
    return points
  }
}

/// The cut line around a mask: its outline (every outer border and every hole), optionally
/// offset outward, as smooth closed curves.
public enum CutLine {
  /// Traces the mask's 0.5-coverage outline, `offset` pixels outside it (0: on it; negative:
  /// inside it).
  ///
  /// 1. A signed distance field (negative inside) is computed to sub-pixel precision on both
  ///    sides of the edge (`EdgeDistance`), over the ink bounds grown by the offset.
  /// 2. Marching squares trace its iso-line at `offset` through pixel centers, with linear
  ///    interpolation and saddles resolved by the cell's mean; loops are oriented so the
  ///    inside is always on the same side, which keeps holes (the inside of an "o") holes.
  /// 3. Douglas-Peucker removes points within `tolerance` pixels of the line.
  /// 4. Catmull-Rom tangents make cubic Beziers through the remaining points; corners
  ///    sharper than 60 degrees keep their point.
  public static func trace(
    mask: CoverageMask, offset: Double = 0, tolerance: Double = 0.2,
    parallelism: Parallelism = .allCores
  ) -> [ClosedCurve] {
    guard !mask.inkBounds.isEmpty else { return [] }
    let margin = Int(max(offset, 0).rounded(.up)) + 3
    let region = mask.inkBounds.grown(by: margin)
    let field = signedDistance(
      mask: mask.plane, region: region, within: Float(abs(offset)) + 3, parallelism: parallelism)
    let loops = marchingSquares(field, level: Float(offset))
    return loops.compactMap { loop -> ClosedCurve? in
      let points = simplify(loop, tolerance: tolerance)
      guard points.count >= 3 else { return nil }
      let shifted = points.map { $0 + SIMD2(Double(region.x) + 0.5, Double(region.y) + 0.5) }
      return smooth(shifted)
    }
  }

  /// The signed area of a curve's outline (its end points): its sign tells outer contours
  /// from holes (outer ones have the sign of the largest loop).
  static func signedArea(_ curve: ClosedCurve) -> Double {
    let points = [curve.start] + curve.segments.map(\.2)
    var sum = 0.0
    for i in 0..<points.count {
      let a = points[i]
      let b = points[(i + 1) % points.count]
      sum += a.x * b.y - b.x * a.y
    }
    return sum / 2
  }

  /// Whether point `p` is inside the curve's polygon (its flattened outline), even-odd.
  static func contains(_ curve: ClosedCurve, _ p: SIMD2<Double>) -> Bool {
    let polygon = curve.flattened(steps: 4)
    var inside = false
    var j = polygon.count - 1
    for i in 0..<polygon.count {
      let a = polygon[i]
      let b = polygon[j]
      if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
        inside.toggle()
      }
      j = i
    }
    return inside
  }

  /// The outermost loops only: no holes, and nothing inside another loop (a sticker's
  /// outline).
  public static func outermost(_ curves: [ClosedCurve]) -> [ClosedCurve] {
    curves.enumerated().filter { i, curve in
      !curves.enumerated().contains { j, other in j != i && contains(other, curve.start) }
    }.map(\.element)
  }

  /// The loops whose bounding box is at least `size` pixels on its narrower side: holes and
  /// islands too small to cut as pieces (slivers between letters) are dropped.
  public static func dropping(_ curves: [ClosedCurve], smallerThan size: Double) -> [ClosedCurve] {
    curves.filter { curve in
      let points = [curve.start] + curve.segments.flatMap { [$0.0, $0.1, $0.2] }
      let xs = points.map(\.x)
      let ys = points.map(\.y)
      let width = (xs.max() ?? 0) - (xs.min() ?? 0)
      let height = (ys.max() ?? 0) - (ys.min() ?? 0)
      return min(width, height) >= size
    }
  }

  /// Signed distance from each pixel center of `region` to the mask's 0.5 line, negative
  /// inside, exact within `within` pixels of the line.
  static func signedDistance(
    mask: Plane, region: PixelRect, within: Float, parallelism: Parallelism
  ) -> Plane {
    var coverage = Plane(width: region.width, height: region.height)
    for y in 0..<region.height {
      for x in 0..<region.width { coverage[x, y] = mask.value(x: region.x + x, y: region.y + y) }
    }
    let inverted = Plane(
      width: region.width, height: region.height, pixels: coverage.pixels.map { 1 - $0 })
    let inside = EdgeDistance.inside(
      mask: coverage, region: coverage.bounds, exactWithin: within, parallelism: parallelism)
    let outside = EdgeDistance.inside(
      mask: inverted, region: inverted.bounds, exactWithin: within, beyond: 1,
      parallelism: parallelism)
    return Plane(
      width: region.width, height: region.height,
      pixels: (0..<coverage.pixels.count).map { i in
        coverage.pixels[i] >= 0.5 ? -inside.pixels[i] : outside.pixels[i]
      })
  }

  /// Closed loops of the iso-line f = level, in grid coordinates (pixel centers at integers).
  static func marchingSquares(_ f: Plane, level: Float) -> [[SIMD2<Double>]] {
    let w = f.width
    let h = f.height
    guard w >= 2, h >= 2 else { return [] }
    func inside(_ x: Int, _ y: Int) -> Bool { f[x, y] < level }
    // Edge ids: horizontal edge from (x, y) to (x+1, y) is 2 * (y * w + x); vertical edge
    // from (x, y) to (x, y+1) is 2 * (y * w + x) + 1.
    func point(_ id: Int) -> SIMD2<Double> {
      let cell = id / 2
      let x = cell % w
      let y = cell / w
      let (x2, y2) = id % 2 == 0 ? (x + 1, y) : (x, y + 1)
      let a = f[x, y]
      let b = f[x2, y2]
      let t = Double(a == b ? 0.5 : min(max((level - a) / (b - a), 0), 1))
      return SIMD2(Double(x) + t * Double(x2 - x), Double(y) + t * Double(y2 - y))
    }
    var next: [Int: Int] = [:]
    for y in 0..<(h - 1) {
      for x in 0..<(w - 1) {
        // Corners clockwise from the top left, and the edges between them.
        let corners = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
        let edges = [
          2 * (y * w + x), 2 * (y * w + x + 1) + 1, 2 * ((y + 1) * w + x), 2 * (y * w + x) + 1,
        ]
        var crossings: [(edge: Int, entering: Bool)] = []
        for k in 0..<4 {
          let a = inside(corners[k].0, corners[k].1)
          let b = inside(corners[(k + 1) % 4].0, corners[(k + 1) % 4].1)
          if a != b { crossings.append((edges[k], b)) }
        }
        guard !crossings.isEmpty else { continue }
        // Each segment runs from a crossing where the boundary leaves the inside to an
        // entering one: the next one clockwise, or for a saddle whose center is outside,
        // the previous one (the inside corners are then separate).
        let center = (f[x, y] + f[x + 1, y] + f[x + 1, y + 1] + f[x, y + 1]) / 4
        let n = crossings.count
        for i in 0..<n where !crossings[i].entering {
          let j = n == 4 && !(center < level) ? (i + n - 1) % n : (i + 1) % n
          next[crossings[i].edge] = crossings[j].edge
        }
      }
    }
    var loops: [[SIMD2<Double>]] = []
    var visited = Set<Int>()
    for start in next.keys.sorted() where !visited.contains(start) {
      var loop: [SIMD2<Double>] = []
      var edge = start
      while !visited.contains(edge), let following = next[edge] {
        visited.insert(edge)
        loop.append(point(edge))
        edge = following
      }
      if edge == start, loop.count >= 3 { loops.append(loop) }
    }
    return loops
  }

  /// Douglas-Peucker on a closed loop: split at the point farthest from the first, simplify
  /// both halves.
  static func simplify(_ loop: [SIMD2<Double>], tolerance: Double) -> [SIMD2<Double>] {
    guard loop.count > 4 else { return loop }
    func distance(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
      let ab = b - a
      let length = (ab * ab).sum()
      guard length > 0 else { return ((p - a) * (p - a)).sum().squareRoot() }
      let t = min(max(((p - a) * ab).sum() / length, 0), 1)
      let q = a + t * ab
      return ((p - q) * (p - q)).sum().squareRoot()
    }
    func reduce(_ points: ArraySlice<SIMD2<Double>>) -> [SIMD2<Double>] {
      guard let first = points.first, let last = points.last, points.count > 2 else {
        return Array(points)
      }
      var worst = 0.0
      var index = points.startIndex
      for i in points.indices.dropFirst().dropLast() {
        let d = distance(points[i], first, last)
        if d > worst {
          worst = d
          index = i
        }
      }
      guard worst > tolerance else { return [first, last] }
      return reduce(points[points.startIndex...index]).dropLast() + reduce(points[index...])
    }
    var far = 0
    var farthest = 0.0
    for (i, p) in loop.enumerated() {
      let d = ((p - loop[0]) * (p - loop[0])).sum()
      if d > farthest {
        farthest = d
        far = i
      }
    }
    let closed = loop + [loop[0]]
    let result = reduce(closed[0...far]).dropLast() + reduce(closed[far...])
    return Array(result.dropLast())
  }

  /// Cubic Beziers through every point (Catmull-Rom tangents, a sixth of the chord between
  /// the neighbours, no longer than a third of either adjacent segment); a corner turning by
  /// more than 60 degrees keeps a sharp point.
  static func smooth(_ p: [SIMD2<Double>]) -> ClosedCurve {
    let n = p.count
    func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
    var tangents = [SIMD2<Double>](repeating: .zero, count: n)
    for i in 0..<n {
      let before = p[i] - p[(i + n - 1) % n]
      let after = p[(i + 1) % n] - p[i]
      let a = length(before)
      let b = length(after)
      guard a > 0, b > 0 else { continue }
      let cosine = (before * after).sum() / (a * b)
      guard cosine > 0.5 else { continue }  // a corner
      var t = (p[(i + 1) % n] - p[(i + n - 1) % n]) / 6
      let limit = min(a, b) / 3
      let l = length(t)
      if l > limit { t *= limit / l }
      tangents[i] = t
    }
    var segments: [(SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)] = []
    for i in 0..<n {
      let j = (i + 1) % n
      segments.append((p[i] + tangents[i], p[j] - tangents[j], p[j]))
    }
    return ClosedCurve(start: p[0], segments: segments)
  }

  /// The mask with only the region 4-connected to (x, y) (pixels at least half covered) and
  /// the anti-aliased pixels around it, with the chains of the mask's outline around that
  /// region (`Outline.keepingChains`); nil when (x, y) is outside the image or not ink.
  public static func region(of mask: CoverageMask, at x: Int, _ y: Int) -> CoverageMask? {
    let plane = mask.plane
    guard x >= 0, y >= 0, x < plane.width, y < plane.height, plane[x, y] >= 0.5 else { return nil }
    var member = [Bool](repeating: false, count: plane.pixels.count)
    var stack = [y * plane.width + x]
    member[stack[0]] = true
    while let i = stack.popLast() {
      let px = i % plane.width
      let py = i / plane.width
      for (nx, ny) in [(px - 1, py), (px + 1, py), (px, py - 1), (px, py + 1)]
      where nx >= 0 && ny >= 0 && nx < plane.width && ny < plane.height {
        let k = ny * plane.width + nx
        if !member[k] && plane.pixels[k] >= 0.5 {
          member[k] = true
          stack.append(k)
        }
      }
    }
    var out = Plane(width: plane.width, height: plane.height)
    for py in 0..<plane.height {
      for px in 0..<plane.width {
        let i = py * plane.width + px
        if member[i] {
          out.pixels[i] = plane.pixels[i]
        } else if plane.pixels[i] < 0.5 {
          // Partial coverage next to the region keeps the edge's sub-pixel position.
          var near = false
          for dy in -1...1 {
            for dx in -1...1 {
              let nx = px + dx
              let ny = py + dy
              if nx >= 0, ny >= 0, nx < plane.width, ny < plane.height,
                member[ny * plane.width + nx]
              {
                near = true
              }
            }
          }
          if near { out.pixels[i] = plane.pixels[i] }
        }
      }
    }
    // The outline's chains around the region, so its cut line stays exact.
    let outline = mask.outline?.keepingChains { p in
      let (px, py) = (Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
      return px >= 0 && py >= 0 && px < plane.width && py < plane.height
        && member[py * plane.width + px]
    }
    return CoverageMask(plane: out, inkBounds: out.bounds(above: 0), outline: outline)
  }
}
