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
    // Two refinement passes: each pixel considers the seeds its 3x3 neighbourhood found.
    var seeds = transform.nearestSeed
    var next = seeds
    var distances = [Float](repeating: 0, count: w * h)
    for pass in 0..<2 {
      let last = pass == 1
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
                    var bestDistance = Float.infinity
                    var bestSeed = seeds.buffer[i]
                    for ny in max(0, y - 1)...min(h - 1, y + 1) {
                      for nx in max(0, x - 1)...min(w - 1, x + 1) {
                        let seed = seeds.buffer[ny * w + nx]
                        guard seed >= 0 else { continue }
                        let edge = edges.buffer[Int(seed)]
                        let (qy, qx) = seed.quotientAndRemainder(dividingBy: Int32(w))
                        let px = Float(x - Int(qx)) - edge.x
                        let py = Float(y - Int(qy)) - edge.y
                        let pointDistance: Float
                        let lineDistance: Float
                        if edge.z == 0 && edge.w == 0 {
                          // No direction (coverage balanced around the seed): its center is
                          // taken half a pixel outside the edge.
                          pointDistance = (px * px + py * py).squareRoot() - 0.5
                          lineDistance = pointDistance
                        } else {
                          pointDistance = (px * px + py * py).squareRoot()
                          // Distance to the edge's tangent line: exact for straight edges,
                          // and smooth as the chosen seed changes along a curve.
                          lineDistance = min(pointDistance, max(0, px * edge.z + py * edge.w))
                        }
                        if pointDistance < best {
                          best = pointDistance
                          bestDistance = lineDistance
                          bestSeed = seed
                        }
                      }
                    }
                    best = bestDistance
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

  /// Distance from a pixel center to the edge near an outside seed pixel at offset (dx, dy)
  /// with coverage `coverage` (< 0.5): the seed's center is `edgeOffset` outside the edge,
  /// measured along the direction from the pixel to the seed.
  @inline(__always)
  static func edgeDistance(dx: Float, dy: Float, coverage: Float) -> Float {
    let length = (dx * dx + dy * dy).squareRoot()
    return length - edgeOffset(gx: dx, gy: dy, coverage: coverage)
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
