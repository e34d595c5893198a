import EmbossRaster
import EmbossSupport
import Foundation

/// A 64x64 blue-noise threshold matrix made by Ulichney's void-and-cluster method
/// ("The void-and-cluster method for dither array generation", 1993): dots are added where
/// they are loneliest and removed where they crowd most, measured by a toroidal Gaussian
/// (sigma 1.5), so every threshold level is spread evenly with no low-frequency pattern.
///
/// Generated once per process, deterministically (ties go to the lowest index).
enum BlueNoise {
  static let size = 64

  /// Ranks 0..<4096, a permutation, row-major.
  static let matrix: [Int] = generate(size: size, sigma: 1.5)

  static func generate(size n: Int, sigma: Float) -> [Int] {
    let count = n * n
    // Toroidal Gaussian weights by offset.
    var kernel = [Float](repeating: 0, count: count)
    for dy in 0..<n {
      for dx in 0..<n {
        let x = Float(min(dx, n - dx))
        let y = Float(min(dy, n - dy))
        kernel[dy * n + dx] = expf(-(x * x + y * y) / (2 * sigma * sigma))
      }
    }
    var energy = [Float](repeating: 0, count: count)
    func add(_ index: Int, _ sign: Float) {
      let px = index % n
      let py = index / n
      for y in 0..<n {
        let ky = ((y - py + n) % n) * n
        for x in 0..<n { energy[y * n + x] += sign * kernel[ky + (x - px + n) % n] }
      }
    }
    func tightestCluster(_ dots: [Bool]) -> Int {
      var best = -1
      for i in 0..<count where dots[i] && (best < 0 || energy[i] > energy[best]) { best = i }
      return best
    }
    func largestVoid(_ dots: [Bool]) -> Int {
      var best = -1
      for i in 0..<count where !dots[i] && (best < 0 || energy[i] < energy[best]) { best = i }
      return best
    }
    // Initial pattern: a deterministic sprinkle of 10% dots, relaxed until stable.
    var dots = [Bool](repeating: false, count: count)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var placed = 0
    while placed < count / 10 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let i = Int(state >> 33) % count
      if !dots[i] {
        dots[i] = true
        add(i, 1)
        placed += 1
      }
    }
    while true {
      let cluster = tightestCluster(dots)
      dots[cluster] = false
      add(cluster, -1)
      let void = largestVoid(dots)
      if void == cluster {
        dots[cluster] = true
        add(cluster, 1)
        break
      }
      dots[void] = true
      add(void, 1)
    }
    var rank = [Int](repeating: 0, count: count)
    let initial = dots
    let initialEnergy = energy
    // Phase 1: remove dots from the prototype, highest ranks first.
    var ones = placed
    while ones > 0 {
      let cluster = tightestCluster(dots)
      dots[cluster] = false
      add(cluster, -1)
      ones -= 1
      rank[cluster] = ones
    }
    // Phase 2 and 3: from the prototype, fill the largest voids.
    dots = initial
    energy = initialEnergy
    for r in placed..<count {
      let void = largestVoid(dots)
      dots[void] = true
      add(void, 1)
      rank[void] = r
    }
    return rank
  }
}
