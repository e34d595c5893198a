import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

/// A Gaussian blur: a sampled Gaussian up to `sampledUpTo`, beyond it (in linear time
/// whatever its width) Deriche's fourth-order recursive Gaussian ("Recursively implementing
/// the Gaussian and its derivatives", 1993), run forward and backward along each axis.
///
/// Samples outside the plane count as 0.
package enum GaussianBlur {
  /// The plane blurred with standard deviation `sigma` pixels; `sigma` <= 0 returns it as is.
  static func apply(_ plane: Plane, sigma: Float, parallelism: Parallelism = .serial)
    -> Plane
  {
    guard sigma > 0, plane.width > 0, plane.height > 0 else { return plane }
    if sigma <= sampledUpTo { return sampled(plane, sigma: sigma, parallelism: parallelism) }
    return recursive(plane, sigma: sigma, parallelism: parallelism)
  }

  /// Up to this sigma the blur is a sampled Gaussian, above it the recursive one.
  ///
  /// The sampled Gaussian's cost grows with sigma; the recursive one's is fixed per sample.
  /// Three box blurs, used above it before, cut the kernel's tails at about 1.7 sigma:
  /// mercury (soften 8 at 160 px) rendered at 560 px was not the same relief as at 140 px
  /// scaled up (32 dB 1x against 4x on "Harbor Quest 9&" at 140 px, 41 dB at 100 px, where
  /// both sides were sampled; 42.4 dB at 140 px with the recursive Gaussian).
  static let sampledUpTo: Float = 24

  /// The two complex terms of Deriche's fourth-order Gaussian for `sigma`: on `n >= 0` the
  /// kernel is the real part of the sum over the terms of `a * l^n` (before normalizing),
  /// with `a` and `l` as (real, imaginary) pairs; and the kernel's sum over all integers,
  /// which it is divided by so that a constant stays itself.
  static func dericheTerms(sigma: Double) -> (
    terms: [(a: SIMD2<Double>, l: SIMD2<Double>)], sum: Double
  ) {
    // h(x) = (1.68 cos(0.6318 x / s) + 3.735 sin(0.6318 x / s)) exp(-1.783 x / s)
    //      - (0.6803 cos(1.997 x / s) + 0.2598 sin(1.997 x / s)) exp(-1.723 x / s)
    //      = Re[(1.68 - 3.735i) e^((-1.783 + 0.6318i) x / s)]
    //      + Re[(-0.6803 + 0.2598i) e^((-1.723 + 1.997i) x / s)]
    let design: [(a: SIMD2<Double>, b: Double, w: Double)] = [
      (SIMD2(1.68, -3.735), 1.783, 0.6318), (SIMD2(-0.6803, 0.2598), 1.723, 1.997),
    ]
    let terms = design.map { term -> (a: SIMD2<Double>, l: SIMD2<Double>) in
      let magnitude = exp(-term.b / sigma)
      return (term.a, SIMD2(magnitude * cos(term.w / sigma), magnitude * sin(term.w / sigma)))
    }
    // Sum over n >= 0 of Re(a l^n) = Re(a / (1 - l)); the whole kernel counts n = 0 once.
    var half = 0.0
    var center = 0.0
    for (a, l) in terms {
      let d = SIMD2(1 - l.x, -l.y)
      let norm = d.x * d.x + d.y * d.y
      half += (a.x * d.x + a.y * d.y) / norm
      center += a.x
    }
    return (terms, 2 * half - center)
  }

  /// The plane convolved with Deriche's recursive Gaussian of standard deviation `sigma`.
  ///
  /// See `dericheTerms`. In Double: along each row, then down the columns (all of a band
  /// of rows' columns at once), each a causal pass (`n >= 0`) and an anti-causal one
  /// (`n >= 1`) per complex term, starting from zero state (samples outside count as 0).
  /// Rows and column strips are independent, so the result is the same on any thread count.
  package static func recursive(_ plane: Plane, sigma: Float, parallelism: Parallelism) -> Plane {
    let (terms, sum) = dericheTerms(sigma: Double(sigma))
    let scale = 1 / sum
    let w = plane.width
    let h = plane.height
    var rows = [Double](repeating: 0, count: w * h)
    rows.withUnsafeMutableBufferPointer { rows in
      let rows = SharedPointer(rows)
      plane.pixels.withUnsafeBufferPointer { p in
        let p = UnsafeBufferPointerBox(p)
        parallelism.forEachBand(h, bandSize: 32) { band in
          for y in band {
            let row = y * w
            for (a, l) in terms {
              // Causal: z_i = a x_i + l z_(i-1).
              var z = SIMD2<Double>.zero
              for x in 0..<w {
                let v = Double(p.buffer[row + x])
                z = SIMD2(a.x * v + l.x * z.x - l.y * z.y, a.y * v + l.x * z.y + l.y * z.x)
                rows.buffer[row + x] += z.x
              }
              // Anti-causal: u_i = l (a x_(i+1) + u_(i+1)), u_(w-1) = 0.
              var u = SIMD2<Double>.zero
              var x = w - 2
              while x >= 0 {
                let v = Double(p.buffer[row + x + 1])
                let t = SIMD2(a.x * v + u.x, a.y * v + u.y)
                u = SIMD2(l.x * t.x - l.y * t.y, l.x * t.y + l.y * t.x)
                rows.buffer[row + x] += u.x
                x -= 1
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
        // Strips of columns, each swept down and up with one state per column and term.
        parallelism.forEachBand(w, bandSize: 64) { strip in
          let n = strip.count
          var total = [Double](repeating: 0, count: n * h)
          var zr = [Double](repeating: 0, count: n)
          var zi = [Double](repeating: 0, count: n)
          for (a, l) in terms {
            for c in 0..<n { (zr[c], zi[c]) = (0, 0) }
            for y in 0..<h {
              let source = y * w + strip.lowerBound
              for c in 0..<n {
                let v = rows.buffer[source + c]
                let (r, i) = (zr[c], zi[c])
                zr[c] = a.x * v + l.x * r - l.y * i
                zi[c] = a.y * v + l.x * i + l.y * r
                total[y * n + c] += zr[c]
              }
            }
            for c in 0..<n { (zr[c], zi[c]) = (0, 0) }
            var y = h - 2
            while y >= 0 {
              let source = (y + 1) * w + strip.lowerBound
              for c in 0..<n {
                let v = rows.buffer[source + c]
                let (tr, ti) = (a.x * v + zr[c], a.y * v + zi[c])
                zr[c] = l.x * tr - l.y * ti
                zi[c] = l.x * ti + l.y * tr
                total[y * n + c] += zr[c]
              }
              y -= 1
            }
          }
          for y in 0..<h {
            for c in 0..<n {
              out.buffer[y * w + strip.lowerBound + c] = Float(total[y * n + c] * scale * scale)
            }
          }
        }
      }
    }
    return Plane(width: w, height: h, pixels: out)
  }

  /// The plane convolved with a sampled Gaussian of standard deviation `sigma` (out to
  /// 3 sigma, normalized), row by row then column by column, each pass a sum of shifted
  /// rows scaled by the kernel's taps (so it runs on whole rows at once), in bands of rows
  /// on `parallelism`'s threads (each output sample is the same sum in the same order
  /// whatever the bands).
  static func sampled(_ plane: Plane, sigma: Float, parallelism: Parallelism) -> Plane {
    // (The loop over a row's samples, `target[x] += k * source[x]`, did not vectorize through
    // the buffers, which the compiler could not tell apart: a softened case B spent half
    // its time here.)
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
              guard let target = rows.buffer.baseAddress, let source = padded.baseAddress
              else { continue }
              for j in 0...(2 * radius) {
                accumulate(taps[j], UnsafePointer(source + j), into: target + row, count: w)
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
            guard let outBase = out.buffer.baseAddress, let rowsBase = rows.buffer.baseAddress
            else { continue }
            for j in max(-radius, -y)...min(radius, h - 1 - y) {
              accumulate(
                taps[j + radius], rowsBase + (y + j) * w, into: outBase + target, count: w)
            }
          }
        }
      }
    }
    return Plane(width: w, height: h, pixels: out)
  }

  /// `target[x] += k * source[x]` for `x` in `0..<count`, eight samples at a time: the same
  /// product then sum per sample as one at a time.
  @inline(__always)
  static func accumulate(
    _ k: Float, _ source: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>,
    count: Int
  ) {
    let from = UnsafeRawPointer(source)
    let to = UnsafeMutableRawPointer(target)
    let scale = SIMD8<Float>(repeating: k)
    var x = 0
    while x + 8 <= count {
      let sum =
        to.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Float>.self)
        + scale * from.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Float>.self)
      to.storeBytes(of: sum, toByteOffset: 4 * x, as: SIMD8<Float>.self)
      x += 8
    }
    while x < count {
      target[x] += k * source[x]
      x += 1
    }
  }
}
