import EmbossRaster
import EmbossSupport

/// Exact Euclidean distance transform in linear time (Felzenszwalb & Huttenlocher, "Distance
/// Transforms of Sampled Functions", 2012), with the nearest seed of every pixel (a feature
/// transform), which the sub-pixel height field needs.
public enum DistanceTransform {
  /// The result for a `width` x `height` grid, row-major.
  public struct Result: Sendable {
    /// The grid's width.
    public let width: Int
    /// The grid's height.
    public let height: Int
    /// Linear index (y * width + x) of the nearest seed; -1 where there is none.
    ///
    /// Ties go to
    /// the seed with the smaller row, then the smaller column, so the result is deterministic.
    public var nearestSeed: [Int32]

    /// Squared distance from pixel `index`'s center to its nearest seed's center, exact (an
    /// integer); `Int.max` where there is no seed at all.
    @inline(__always)
    public func squaredDistance(_ index: Int) -> Int {
      let seed = Int(nearestSeed[index])
      guard seed >= 0 else { return Int.max }
      let dx = seed % width - index % width
      let dy = seed / width - index / width
      return dx * dx + dy * dy
    }
  }

  /// Computes distances to the pixels where `isSeed` is true.
  ///
  /// Runs a column pass and a row
  /// pass, each split into fixed bands; the result does not depend on the thread count.
  public static func compute(
    width: Int, height: Int, parallelism: Parallelism = .serial,
    isSeed: @Sendable (Int) -> Bool
  ) -> Result {
    let count = width * height
    // Column pass: the distance to the nearest seed in the same column, and that seed's row.
    var columnRow = [Int32](repeating: -1, count: count)
    columnRow.withUnsafeMutableBufferPointer { rowsOut in
      let rowsOut = SharedPointer(rowsOut)
      do {
        parallelism.forEachBand(width, bandSize: 64) { columns in
          // Sweep down, then up, a band of columns at a time (rows stay contiguous in memory).
          var last = [Int32](repeating: -1, count: columns.count)
          for y in 0..<height {
            for (k, x) in columns.enumerated() {
              if isSeed(y * width + x) { last[k] = Int32(y) }
              rowsOut[y * width + x] = last[k]
            }
          }
          for k in 0..<last.count { last[k] = -1 }
          for y in stride(from: height - 1, through: 0, by: -1) {
            for (k, x) in columns.enumerated() {
              let i = y * width + x
              if isSeed(i) { last[k] = Int32(y) }
              let below = last[k]
              let above = rowsOut[i]
              // Keep the upper seed on a tie: it has the smaller row.
              if below >= 0 && (above < 0 || Int(below) - y < y - Int(above)) {
                rowsOut[i] = below
              }
            }
          }
        }
      }
    }

    // Row pass: lower envelope of parabolas (p - q)^2 + f(q), f = squared column distance.
    var nearest = [Int32](repeating: -1, count: count)
    do {
      nearest.withUnsafeMutableBufferPointer { nearestOut in
        let nearestOut = SharedPointer(nearestOut)
        columnRow.withUnsafeBufferPointer { columnRow in
          let columnRow = UnsafeBufferPointerBox(columnRow)
          parallelism.forEachBand(height, bandSize: 8) { rows in
            var f = [Int](repeating: 0, count: width)
            var v = [Int](repeating: 0, count: width)
            var z = [Double](repeating: 0, count: width + 1)
            for y in rows {
              let base = y * width
              var k = -1
              for q in 0..<width {
                let seedRow = columnRow.buffer[base + q]
                guard seedRow >= 0 else { continue }
                let dy = y - Int(seedRow)
                f[q] = dy * dy
                if k < 0 {
                  k = 0
                  v[0] = q
                  z[0] = -.infinity
                  z[1] = .infinity
                  continue
                }
                var s = intersection(q, v[k], f)
                while s <= z[k] {
                  k -= 1
                  if k < 0 { break }
                  s = intersection(q, v[k], f)
                }
                k += 1
                v[k] = q
                z[k] = k == 0 ? -.infinity : s
                z[k + 1] = .infinity
              }
              guard k >= 0 else { continue }
              var j = 0
              for p in 0..<width {
                while z[j + 1] < Double(p) { j += 1 }
                let q = v[j]
                nearestOut[base + p] = Int32(Int(columnRow.buffer[base + q]) * width + q)
              }
            }
          }
        }
      }
    }
    return Result(width: width, height: height, nearestSeed: nearest)
  }

  /// Where the parabolas rooted at q and r (q > r) cross.
  @inline(__always)
  private static func intersection(_ q: Int, _ r: Int, _ f: [Int]) -> Double {
    Double((f[q] + q * q) - (f[r] + r * r)) / Double(2 * (q - r))
  }
}
