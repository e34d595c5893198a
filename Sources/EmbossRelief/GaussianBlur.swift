import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

/// A Gaussian blur: a sampled Gaussian up to `sampledUpTo`, beyond it (in linear time
/// whatever its width) three box blurs per axis whose widths are chosen so that their
/// variance is sigma squared (Kovesi, "Fast almost-Gaussian filtering", 2010).
///
/// Samples outside the plane count as 0.
enum GaussianBlur {
  /// The plane blurred with standard deviation `sigma` pixels; `sigma` <= 0 returns it as is.
  static func apply(_ plane: Plane, sigma: Float, parallelism: Parallelism = .serial) -> Plane {
    guard sigma > 0, plane.width > 0, plane.height > 0 else { return plane }
    if sigma <= sampledUpTo { return sampled(plane, sigma: sigma, parallelism: parallelism) }
    let radii = boxRadii(sigma: sigma)
    var pixels = plane.pixels
    let w = plane.width
    let h = plane.height
    var line = [Float](repeating: 0, count: max(w, h))
    var out = [Float](repeating: 0, count: max(w, h))
    for r in radii {
      for y in 0..<h {
        for x in 0..<w { line[x] = pixels[y * w + x] }
        box(line, count: w, radius: r, into: &out)
        for x in 0..<w { pixels[y * w + x] = out[x] }
      }
      for x in 0..<w {
        for y in 0..<h { line[y] = pixels[y * w + x] }
        box(line, count: h, radius: r, into: &out)
        for y in 0..<h { pixels[y * w + x] = out[y] }
      }
    }
    return Plane(width: w, height: h, pixels: pixels)
  }

  /// Up to this sigma the blur is a sampled Gaussian; above it, three boxes (whose kernel is
  /// not the Gaussian's shape: its tails are cut at about 1.7 sigma, so a relief softened by
  /// a few pixels came out unlike the same relief at four times the size, a mirror's
  /// highlights on thin strokes most of all).
  static let sampledUpTo: Float = 24

  /// The plane convolved with a sampled Gaussian of standard deviation `sigma` (out to
  /// 3 sigma, normalized), row by row then column by column, each pass a sum of shifted
  /// rows scaled by the kernel's taps (so it runs on whole rows at once), in bands of rows
  /// on `parallelism`'s threads (each output sample is the same sum in the same order
  /// whatever the bands).
  static func sampled(_ plane: Plane, sigma: Float, parallelism: Parallelism) -> Plane {
    let radius = Int((3 * sigma).rounded(.up))
    var kernel = (-radius...radius).map { i in exp(-Float(i * i) / (2 * sigma * sigma)) }
    let total = kernel.reduce(0, +)
    kernel = kernel.map { $0 / total }
    let taps = kernel
    let w = plane.width
    let h = plane.height
    // Both passes write every sample, so the storage starts zeroed and is only added to.
    var rows = [Float](repeating: 0, count: w * h)
    rows.withUnsafeMutableBufferPointer { rows in
      let rows = SharedPointer(rows)
      plane.pixels.withUnsafeBufferPointer { p in
        let p = UnsafeBufferPointerBox(p)
        parallelism.forEachBand(h, bandSize: 32) { band in
          var padded = [Float](repeating: 0, count: w + 2 * radius)
          padded.withUnsafeMutableBufferPointer { padded in
            for y in band {
              let row = y * w
              for x in 0..<w { padded[radius + x] = p.buffer[row + x] }
              for j in 0...(2 * radius) {
                let k = taps[j]
                for x in 0..<w { rows.buffer[row + x] += k * padded[j + x] }
              }
            }
          }
        }
      }
    }
    var out = [Float](repeating: 0, count: w * h)
    out.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      rows.withUnsafeBufferPointer { rows in
        let rows = UnsafeBufferPointerBox(rows)
        parallelism.forEachBand(h, bandSize: 32) { band in
          for y in band {
            let target = y * w
            for j in max(-radius, -y)...min(radius, h - 1 - y) {
              let k = taps[j + radius]
              let source = (y + j) * w
              for x in 0..<w { out.buffer[target + x] += k * rows.buffer[source + x] }
            }
          }
        }
      }
    }
    return Plane(width: w, height: h, pixels: out)
  }

  /// Radii (half widths) of three boxes whose combined variance is about sigma^2; the
  /// remainder is spread by fractional end weights so the variance is exact.
  static func boxRadii(sigma: Float) -> [Float] {
    // Three equal boxes share sigma^2: the radius whose box (whole samples within floor(r),
    // the next on each side weighted by the fraction) has variance sigma^2 / 3, found by
    // bisection (the variance grows with the radius).
    let target = Double(sigma) * Double(sigma) / 3
    func variance(_ r: Double) -> Double {
      let whole = r.rounded(.down)
      let f = r - whole
      let sum = whole * (whole + 1) * (2 * whole + 1) / 3
      return (sum + 2 * f * (whole + 1) * (whole + 1)) / (2 * whole + 1 + 2 * f)
    }
    var (lo, hi) = (0.0, Double(sigma) * 2 + 1)
    for _ in 0..<60 {
      let mid = (lo + hi) / 2
      if variance(mid) < target { lo = mid } else { hi = mid }
    }
    let r = Float((lo + hi) / 2)
    return [r, r, r]
  }

  /// A box of fractional radius `radius`: whole samples within floor(radius), and the next
  /// sample on each side weighted by the fraction (so the variance varies smoothly).
  private static func box(_ line: [Float], count n: Int, radius: Float, into out: inout [Float]) {
    let whole = Int(radius)
    let fraction = radius - Float(whole)
    let norm = 1 / (Float(2 * whole + 1) + 2 * fraction)
    // Prefix sums in Double keep long lines exact enough.
    var prefix = [Double](repeating: 0, count: n + 1)
    for i in 0..<n { prefix[i + 1] = prefix[i] + Double(line[i]) }
    @inline(__always) func sum(_ a: Int, _ b: Int) -> Double {
      let lo = min(max(a, 0), n)
      let hi = min(max(b + 1, 0), n)
      return hi > lo ? prefix[hi] - prefix[lo] : 0
    }
    @inline(__always) func at(_ i: Int) -> Float { i >= 0 && i < n ? line[i] : 0 }
    for i in 0..<n {
      let inner = Float(sum(i - whole, i + whole))
      let edges = fraction > 0 ? fraction * (at(i - whole - 1) + at(i + whole + 1)) : 0
      out[i] = (inner + edges) * norm
    }
  }
}
