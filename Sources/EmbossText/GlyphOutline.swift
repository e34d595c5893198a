import CFreeType
import EmbossGeometry
import EmbossRaster

/// A glyph's outline as FreeType holds it (`FT_Outline_Decompose`), flattened to straight
/// pieces within `flatness` pixels of the curves, each piece with the curve's tangents at its
/// ends: the exact shape the relief is computed from.
enum GlyphOutline {
  /// The largest distance, in pixels, between a curve and the pieces that replace it.
  static let flatness: Double = 0.005

  /// The contours of the outline in `slot` (already placed at its sub-pixel position), in
  /// canvas pixels: FreeType's point (x, y) in 26.6 goes to (originX + x / 64, originY - y / 64).
  static func contours(_ outline: inout FT_Outline, originX: Int, originY: Int) -> [[Outline.Edge]]
  {
    var builder = Builder(originX: Double(originX), originY: Double(originY))
    var funcs = FT_Outline_Funcs(
      move_to: { to, user in
        guard let to, let user else { return 1 }
        user.assumingMemoryBound(to: Builder.self).pointee.move(to.pointee)
        return 0
      },
      line_to: { to, user in
        guard let to, let user else { return 1 }
        user.assumingMemoryBound(to: Builder.self).pointee.line(to.pointee)
        return 0
      },
      conic_to: { control, to, user in
        guard let control, let to, let user else { return 1 }
        user.assumingMemoryBound(to: Builder.self).pointee.conic(control.pointee, to.pointee)
        return 0
      },
      cubic_to: { c1, c2, to, user in
        guard let c1, let c2, let to, let user else { return 1 }
        user.assumingMemoryBound(to: Builder.self).pointee.cubic(c1.pointee, c2.pointee, to.pointee)
        return 0
      },
      shift: 0, delta: 0)
    let status = withUnsafeMutablePointer(to: &builder) { pointer in
      FT_Outline_Decompose(&outline, &funcs, UnsafeMutableRawPointer(pointer))
    }
    guard status == 0 else { return [] }
    builder.close()
    return builder.contours
  }

  /// Collects the pieces of each contour as FreeType walks it.
  struct Builder {
    let originX: Double
    let originY: Double
    var contours: [[Outline.Edge]] = []
    var current: [Outline.Edge] = []
    var start = SIMD2<Double>.zero
    var pen = SIMD2<Double>.zero

    init(originX: Double, originY: Double) {
      self.originX = originX
      self.originY = originY
    }

    func point(_ v: FT_Vector) -> SIMD2<Double> {
      SIMD2(originX + Double(v.x) / 64, originY - Double(v.y) / 64)
    }

    mutating func move(_ to: FT_Vector) {
      close()
      start = point(to)
      pen = start
    }

    mutating func line(_ to: FT_Vector) {
      let p = point(to)
      append(from: pen, to: p, ta: p - pen, tb: p - pen)
      pen = p
    }

    mutating func conic(_ control: FT_Vector, _ to: FT_Vector) {
      let p0 = pen
      let p1 = point(control)
      let p2 = point(to)
      let dd = p0 - 2 * p1 + p2
      let n = pieces(for: (dd * dd).sum().squareRoot() / 4)
      var previous = p0
      var previousTangent = derivative(conic: (p0, p1, p2), at: 0, chord: p2 - p0)
      for i in 1...n {
        let t = Double(i) / Double(n)
        let u = 1 - t
        let q = i == n ? p2 : u * u * p0 + 2 * u * t * p1 + t * t * p2
        let tangent = derivative(conic: (p0, p1, p2), at: t, chord: p2 - p0)
        append(from: previous, to: q, ta: previousTangent, tb: tangent)
        previous = q
        previousTangent = tangent
      }
      pen = p2
    }

    mutating func cubic(_ c1: FT_Vector, _ c2: FT_Vector, _ to: FT_Vector) {
      let p0 = pen
      let p1 = point(c1)
      let p2 = point(c2)
      let p3 = point(to)
      let d1 = p0 - 2 * p1 + p2
      let d2 = p1 - 2 * p2 + p3
      let bound = max((d1 * d1).sum(), (d2 * d2).sum()).squareRoot() * 0.75
      let n = pieces(for: bound)
      var previous = p0
      var previousTangent = derivative(cubic: (p0, p1, p2, p3), at: 0)
      for i in 1...n {
        let t = Double(i) / Double(n)
        let u = 1 - t
        let q =
          i == n ? p3 : u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3
        let tangent = derivative(cubic: (p0, p1, p2, p3), at: t)
        append(from: previous, to: q, ta: previousTangent, tb: tangent)
        previous = q
        previousTangent = tangent
      }
      pen = p3
    }

    /// Pieces for a curve whose chord error over a parameter span h is at most bound * h^2.
    func pieces(for bound: Double) -> Int {
      guard bound > flatness else { return 1 }
      return min(512, Int((bound / flatness).squareRoot().rounded(.up)))
    }

    func derivative(
      conic c: (SIMD2<Double>, SIMD2<Double>, SIMD2<Double>), at t: Double, chord: SIMD2<Double>
    ) -> SIMD2<Double> {
      let d = 2 * (1 - t) * (c.1 - c.0) + 2 * t * (c.2 - c.1)
      return (d * d).sum() > 1e-18 ? d : chord
    }

    func derivative(
      cubic c: (SIMD2<Double>, SIMD2<Double>, SIMD2<Double>, SIMD2<Double>), at t: Double
    ) -> SIMD2<Double> {
      let u = 1 - t
      var d = 3 * u * u * (c.1 - c.0) + 6 * u * t * (c.2 - c.1) + 3 * t * t * (c.3 - c.2)
      // A control point on its end point: the tangent there is toward the next one.
      if (d * d).sum() < 1e-18 { d = t < 0.5 ? c.2 - c.0 : c.3 - c.1 }
      if (d * d).sum() < 1e-18 { d = c.3 - c.0 }
      return d
    }

    mutating func append(
      from a: SIMD2<Double>, to b: SIMD2<Double>, ta: SIMD2<Double>, tb: SIMD2<Double>
    ) {
      guard a != b else { return }
      let chord = b - a
      func unit(_ v: SIMD2<Double>) -> SIMD2<Float> {
        let l = (v * v).sum().squareRoot()
        return SIMD2<Float>(l > 1e-12 ? v / l : chord / (chord * chord).sum().squareRoot())
      }
      current.append(
        Outline.Edge(a: SIMD2<Float>(a), b: SIMD2<Float>(b), ta: unit(ta), tb: unit(tb)))
    }

    mutating func close() {
      if pen != start { append(from: pen, to: start, ta: start - pen, tb: start - pen) }
      if current.count >= 2 { contours.append(current) }
      current = []
    }
  }
}
