import EmbossModel
import EmbossRaster
import EmbossSupport

/// A Gaussian blur in linear time whatever its width: three box blurs per axis whose widths
/// are chosen so that their variance is sigma squared (Kovesi, "Fast almost-Gaussian
/// filtering", 2010).
///
/// Samples outside the plane count as 0.
enum GaussianBlur {
  /// The plane blurred with standard deviation `sigma` pixels; `sigma` <= 0 returns it as is.
  static func apply(_ plane: Plane, sigma: Float) -> Plane {
    guard sigma > 0, plane.width > 0, plane.height > 0 else { return plane }
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

  /// Radii (half widths) of three boxes whose combined variance is about sigma^2; the
  /// remainder is spread by fractional end weights so the variance is exact.
  static func boxRadii(sigma: Float) -> [Float] {
    // A box of radius r (width 2r + 1) has variance ((2r + 1)^2 - 1) / 12; three equal boxes
    // share sigma^2.
    let each = sigma * sigma / 3
    let r = (((12 * each + 1).squareRoot()) - 1) / 2
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
