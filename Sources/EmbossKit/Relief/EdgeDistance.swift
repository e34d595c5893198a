/// Sub-pixel distance from inside pixels to the edge of an anti-aliased mask.
enum EdgeDistance {
  /// For each pixel of `region` (canvas coordinates; samples outside the canvas count as
  /// coverage 0), the distance in pixels from its center to the mask's 0.5 iso-line, for
  /// pixels at least half covered, and 0 for the others.
  ///
  /// Distances are measured to edges inside `region` only; a pixel with no edge in the
  /// region at all gets infinity (deep inside: plateau).
  ///
  /// Pixels farther than `exactWithin` from every seed get their plain Euclidean distance to
  /// the nearest seed center (callers only care that it is large: the plateau).
  static func inside(
    mask: Plane, region: PixelRect, exactWithin: Float = .infinity, parallelism: Parallelism
  ) -> Plane {
    let w = region.width
    let h = region.height
    guard w > 0, h > 0 else { return Plane(width: w, height: h) }
    var coverage = [Float](repeating: 0, count: w * h)
    let visible = region.intersection(mask.bounds)
    for y in visible.y..<visible.maxY {
      let src = y * mask.width
      let dst = (y - region.y) * w - region.x
      for x in visible.x..<visible.maxX { coverage[dst + x] = mask.pixels[src + x] }
    }
    // Seeds are all pixels not fully covered: each partly covered one (on either side of
    // the 0.5 line) says where the edge crosses it.
    let transform = coverage.withUnsafeBufferPointer { c in
      let c = UnsafeBufferPointerBox(c)
      return DistanceTransform.compute(width: w, height: h, parallelism: parallelism) {
        c.buffer[$0] < 1
      }
    }
    // Each seed's estimate of the edge: the point on the 0.5 iso-line nearest its center
    // (x, y: offset from that center, so results do not depend on where the region starts)
    // and the inward unit normal (z, w); a zero normal means the coverage around the seed
    // gives no direction.
    var edges = [SIMD4<Float>](repeating: .zero, count: w * h)
    edges.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      coverage.withUnsafeBufferPointer { coverage in
        let coverage = UnsafeBufferPointerBox(coverage)
        parallelism.forEachBand(h, bandSize: 16) { rows in
          for y in rows {
            for x in 0..<w where coverage.buffer[y * w + x] < 1 {
              let g = gradient(coverage.buffer, w: w, h: h, x: x, y: y)
              let length = (g * g).sum().squareRoot()
              guard length > 0 else { continue }
              let inward = -g / length
              let offset = edgeOffset(gx: g.x, gy: g.y, coverage: coverage.buffer[y * w + x])
              out[y * w + x] = SIMD4(lowHalf: inward * offset, highHalf: inward)
            }
          }
        }
      }
    }
    let limit = exactWithin.isFinite ? (exactWithin + 2) * (exactWithin + 2) : .infinity
    // Refinement: each pixel considers the seeds its 3x3 neighbourhood found, then walks
    // along the edge from the best of them (below).
    var seeds = transform.nearestSeed
    var next = seeds
    var distances = [Float](repeating: 0, count: w * h)
    for pass in 0..<EdgeDistance.passes {
      let last = pass == EdgeDistance.passes - 1
      next.withUnsafeMutableBufferPointer { nextOut in
        let nextOut = SharedPointer(nextOut)
        distances.withUnsafeMutableBufferPointer { distanceOut in
          let distanceOut = SharedPointer(distanceOut)
          seeds.withUnsafeBufferPointer { seeds in
            let seeds = UnsafeBufferPointerBox(seeds)
            edges.withUnsafeBufferPointer { edges in
            let edges = UnsafeBufferPointerBox(edges)

            coverage.withUnsafeBufferPointer { coverage in
              let coverage = UnsafeBufferPointerBox(coverage)
              parallelism.forEachBand(h, bandSize: 16) { rows in
                for y in rows {
                  for x in 0..<w {
                    let i = y * w + x
                    let c = coverage.buffer[i]
                    guard c >= 0.5 else { continue }
                    let squared = transform.squaredDistance(i)
                    if Float(squared) > limit {
                      if last { distanceOut[i] = squared == Int.max ? .infinity : Float(squared).squareRoot() }
                      continue
                    }
                    var best = Float.infinity
                    var bestSeed = seeds.buffer[i]
                    for ny in max(0, y - 1)...min(h - 1, y + 1) {
                      for nx in max(0, x - 1)...min(w - 1, x + 1) {
                        let seed = seeds.buffer[ny * w + nx]
                        guard seed >= 0 else { continue }
                        let distance = seedDistance(x: x, y: y, seed: Int(seed), w: w, edges: edges.buffer)
                        if distance < best {
                          best = distance
                          bestSeed = seed
                        }
                      }
                    }
                    if last && bestSeed >= 0 {
                      // The nearest seed center is not always the seed whose edge is nearest
                      // (on a curve, the band of partly covered pixels is thick): walk along
                      // the edge to a neighbouring seed while that gets closer.
                      for _ in 0..<EdgeDistance.descentSteps {
                        let (sy, sx) = Int(bestSeed).quotientAndRemainder(dividingBy: w)
                        var moved = false
                        for ny in max(0, sy - 1)...min(h - 1, sy + 1) {
                          for nx in max(0, sx - 1)...min(w - 1, sx + 1) {
                            let k = ny * w + nx
                            guard coverage.buffer[k] < 1 else { continue }
                            let distance = seedDistance(x: x, y: y, seed: k, w: w, edges: edges.buffer)
                            if distance < best {
                              best = distance
                              bestSeed = Int32(k)
                              moved = true
                            }
                          }
                        }
                        if !moved { break }
                      }
                    }
                    nextOut[i] = bestSeed
                    if last { distanceOut[i] = max(best, 0) }
                  }
                }
              }
            }
            }
          }
        }
      }
      swap(&seeds, &next)
    }
    return Plane(width: w, height: h, pixels: distances)
  }

  /// Steps the final pass may walk along the edge from the best candidate seed.
  static let descentSteps = 6

  /// How far beyond its nearest seed a pixel's answer can come from: the 3x3 passes and the
  /// descent. Callers computing in bands need this much halo past the distances they use.
  static let reach = passes + descentSteps + 1

  /// Passes in which each pixel takes the best seed among its 3x3 neighbours'.
  static let passes = 1

  /// Distance from pixel (x, y) to seed `seed`'s piece of edge: a segment about a pixel long
  /// on the tangent through its edge point. Exact for straight edges; around a corner the
  /// distance runs to the segment's end, not to the tangent line's continuation. A seed
  /// without direction (coverage balanced around it) has its center half a pixel outside.
  @inline(__always)
  static func seedDistance(x: Int, y: Int, seed: Int, w: Int, edges: UnsafeBufferPointer<SIMD4<Float>>) -> Float {
    let edge = edges[seed]
    let (qy, qx) = seed.quotientAndRemainder(dividingBy: w)
    let px = Float(x - qx) - edge.x
    let py = Float(y - qy) - edge.y
    if edge.z == 0 && edge.w == 0 {
      return (px * px + py * py).squareRoot() - 0.5
    }
    let along = max(0, px * edge.z + py * edge.w)
    let across = abs(px * edge.w - py * edge.z)
    let beyond = max(0, across - 0.5 * (abs(edge.z) + abs(edge.w)))
    return (along * along + beyond * beyond).squareRoot()
  }

  /// Signed distance from a pixel's center to a straight edge crossing it with area coverage
  /// `coverage`, for an edge whose normal is (gx, gy): positive when the center is outside
  /// (coverage < 0.5). Axis-aligned edges give 0.5 - coverage; diagonal ones account for the
  /// triangle-shaped coverage near the pixel's corners.
  @inline(__always)
  static func edgeOffset(gx: Float, gy: Float, coverage: Float) -> Float {
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
  static func gradient(_ c: UnsafeBufferPointer<Float>, w: Int, h: Int, x: Int, y: Int) -> SIMD2<Float> {
    func at(_ x: Int, _ y: Int) -> Float {
      x >= 0 && y >= 0 && x < w && y < h ? c[y * w + x] : 0
    }
    let gx = (at(x - 1, y - 1) + 2 * at(x - 1, y) + at(x - 1, y + 1))
      - (at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1))
    let gy = (at(x - 1, y - 1) + 2 * at(x, y - 1) + at(x + 1, y - 1))
      - (at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1))
    return SIMD2(gx, gy)
  }
}
