import EmbossRaster
import Foundation

/// Rounded corners: every corner of an outline, convex or concave, replaced by a fillet, as
/// a liquid's surface tension or a casting's radius rounds it.
///
/// A corner is a joint where the curve's direction turns by more than `cornerTurn`. Its
/// fillet is tangent to both sides at `t = r tan(θ/2)` from the corner along the outline
/// (θ the turn, r the radius asked for), with `t` at most half the way to the next corner on
/// either side: a stroke's square end (two right angles a stroke's width apart) becomes a
/// half circle however large the radius, and no stroke ever vanishes, unlike a morphological
/// opening. Each fillet is a cubic Bézier with the handles of a circular arc of its turn,
/// flattened within a few thousandths of a pixel, with its own tangents at every vertex (so
/// a bevel over it turns smoothly).
extension Outline {
  /// The least turn at a joint, in radians, that counts as a corner (about 8 degrees).
  public static let cornerTurn: Float = 0.14

  /// This outline with every corner of its closed chains rounded to `radius` pixels (less
  /// where the sides leave less room); open chains and spurs are kept as they are.
  public func filleted(radius: Float) -> Outline {
    guard radius > 0, count > 0 else { return self }
    var contours: [[Edge]] = []
    for chain in chains() {
      let pieces = chain.pieces.filter { !spur[$0] && a[$0] != b[$0] }
      guard chain.closed, pieces.count >= 2 else {
        contours.append(
          chain.pieces.map {
            Edge(a: a[$0], b: b[$0], ta: Self.tangent(na[$0]), tb: Self.tangent(nb[$0]))
          })
        continue
      }
      contours.append(filleted(loop: pieces, radius: radius))
    }
    return Outline(contours: contours)
  }

  /// The direction of travel for a normal toward the ink (`n = perp(t)`).
  @inline(__always)
  static func tangent(_ n: SIMD2<Float>) -> SIMD2<Float> { SIMD2(n.y, -n.x) }

  /// One closed loop of pieces (in order) with its corners filleted.
  func filleted(loop: [Int], radius: Float) -> [Edge] {
    let n = loop.count
    // Arc length at each piece's start, and the loop's length.
    var start = [Float](repeating: 0, count: n + 1)
    for i in 0..<n {
      let v = b[loop[i]] - a[loop[i]]
      start[i + 1] = start[i] + Self.length(v)
    }
    let total = start[n]
    guard total > 0 else { return [] }
    // Corners: at the start of piece i (the joint after piece i - 1).
    var corners: [(index: Int, turn: Float)] = []
    for i in 0..<n {
      let incoming = Self.tangent(nb[loop[(i + n - 1) % n]])
      let outgoing = Self.tangent(na[loop[i]])
      let cosine = max(-1, min(1, (incoming * outgoing).sum()))
      let turn = acosf(cosine)
      if turn > Self.cornerTurn { corners.append((i, turn)) }
    }
    guard !corners.isEmpty else {
      return loop.map {
        Edge(a: a[$0], b: b[$0], ta: Self.tangent(na[$0]), tb: Self.tangent(nb[$0]))
      }
    }
    // Each corner's reach along the outline on either side.
    let m = corners.count
    var reach = [Float](repeating: 0, count: m)
    for c in 0..<m {
      let here = start[corners[c].index]
      let before = corners[(c + m - 1) % m]
      let after = corners[(c + 1) % m]
      var back = here - start[before.index]
      if back <= 0 { back += total }
      var ahead = start[after.index] - here
      if ahead <= 0 { ahead += total }
      if m == 1 {
        back = total
        ahead = total
      }
      // A turn near a full reversal (a spike) reaches as far as its sides allow.
      let half = min(corners[c].turn * 0.5, 1.5)
      let r = min(radius * tanf(half), 0.5 * back, 0.5 * ahead)
      reach[c] = r > 1e-4 ? r : 0
    }
    // The point and direction of travel at arc length s (wrapped), and its piece.
    func point(at s: Float) -> (p: SIMD2<Float>, t: SIMD2<Float>) {
      var s = s.truncatingRemainder(dividingBy: total)
      if s < 0 { s += total }
      let i = pieceIndex(s)
      return at(i, fraction(i, s))
    }
    func pieceIndex(_ s: Float) -> Int {
      var lo = 0
      var hi = n - 1
      while lo < hi {
        let mid = (lo + hi + 1) / 2
        if start[mid] <= s { lo = mid } else { hi = mid - 1 }
      }
      return lo
    }
    func fraction(_ i: Int, _ s: Float) -> Float {
      let length = start[i + 1] - start[i]
      return length > 0 ? min(max((s - start[i]) / length, 0), 1) : 0
    }
    func at(_ i: Int, _ f: Float) -> (p: SIMD2<Float>, t: SIMD2<Float>) {
      let k = loop[i]
      let ta = Self.tangent(na[k])
      let tb = Self.tangent(nb[k])
      if f <= 0 { return (a[k], ta) }
      if f >= 1 { return (b[k], tb) }
      return (a[k] + (b[k] - a[k]) * f, Self.unit(ta * (1 - f) + tb * f, or: ta))
    }
    let entries = (0..<m).map { point(at: start[corners[$0].index] - reach[$0]) }
    let exits = (0..<m).map { point(at: start[corners[$0].index] + reach[$0]) }
    var edges: [Edge] = []
    for c in 0..<m {
      // The fillet at corner c.
      let (entry, exit) = (entries[c], exits[c])
      if reach[c] > 1e-4 {
        let turnAngle = acosf(max(-1, min(1, (entry.t * exit.t).sum())))
        let chord = Self.length(exit.p - entry.p)
        // A circular arc's handles, (4/3) tan(θ/4) r, with r from its chord, 2 r sin(θ/2).
        var handle: Float = chord / 3
        if turnAngle > 1e-3 {
          let radius: Float = chord / (2 * sinf(turnAngle * 0.5))
          handle = Float(4) / 3 * tanf(turnAngle * 0.25) * radius
        }
        let (p0, p1) = (entry.p, entry.p + entry.t * handle)
        let (p2, p3) = (exit.p - exit.t * handle, exit.p)
        let steps = max(2, Int((turnAngle / (Float.pi / 90)).rounded(.up)))
        var previous = (p: p0, t: entry.t)
        for j in 1...steps {
          let u = Float(j) / Float(steps)
          let v = 1 - u
          let (b0, b1): (Float, Float) = (v * v * v, 3 * v * v * u)
          let (b2, b3): (Float, Float) = (3 * v * u * u, u * u * u)
          var p: SIMD2<Float> = b0 * p0 + b1 * p1
          p += b2 * p2 + b3 * p3
          if j == steps { p = p3 }
          let (d0, d1, d2): (Float, Float, Float) = (3 * v * v, 6 * v * u, 3 * u * u)
          var d: SIMD2<Float> = d0 * (p1 - p0) + d1 * (p2 - p1)
          d += d2 * (p3 - p2)
          let t = j == steps ? exit.t : Self.unit(d, or: previous.t)
          if p != previous.p { edges.append(Edge(a: previous.p, b: p, ta: previous.t, tb: t)) }
          previous = (p, t)
        }
      }
      // The outline on from this fillet's exit to the next one's entry.
      let next = (c + 1) % m
      let from = start[corners[c].index] + reach[c]
      var to = start[corners[next].index] - reach[next]
      while to < from - 1e-4 { to += total }
      if m == 1 { to = from + total - 2 * reach[c] }
      // Fillets that meet (each reaching half way) leave nothing between them.
      guard to > from + 1e-5 else { continue }
      var i = pieceIndex(from.truncatingRemainder(dividingBy: total))
      var offset = from - from.truncatingRemainder(dividingBy: total)
      var last = exit
      while start[i] + offset < to - 1e-6 {
        let s1 = start[i + 1] + offset
        if s1 > from + 1e-6 {
          let end = s1 >= to - 1e-6 ? entries[next] : at(i, 1)
          if end.p != last.p { edges.append(Edge(a: last.p, b: end.p, ta: last.t, tb: end.t)) }
          last = end
          if s1 >= to - 1e-6 { break }
        }
        i += 1
        if i == n {
          i = 0
          offset += total
        }
      }
    }
    return edges
  }
}

extension CoverageMask {
  /// The mask of this one's ink with every corner of its outline rounded to `radius` pixels.
  ///
  /// The outline is `Outline.filleted`, and the coverage is drawn again, exactly, from it. A
  /// mask with no outline (a picture traced from pixels) is returned as it is.
  public func filleted(radius: Float) -> CoverageMask {
    guard radius > 0, let outline, outline.count > 0 else { return self }
    let rounded = outline.filleted(radius: radius)
    var coverage = rounded.areaCoverage(region: window)
    // Whole pixels exactly 1 and empty ones exactly 0, as a rasterizer gives them (the areas
    // summed along a row leave a few units in the last place, and the relief and the
    // compositor tell a whole pixel by its coverage of 1).
    for i in coverage.pixels.indices {
      let c = coverage.pixels[i]
      coverage.pixels[i] = c > 1 - 1e-4 ? 1 : (c < 1e-4 ? 0 : c)
    }
    let local = coverage.bounds(above: 0)
    let bounds =
      local.isEmpty
      ? local
      : PixelRect(
        x: local.x + window.x, y: local.y + window.y, width: local.width, height: local.height)
    return CoverageMask(
      width: width, height: height, window: window, coverage: coverage, inkBounds: bounds,
      outline: rounded)
  }
}
