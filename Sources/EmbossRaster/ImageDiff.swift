import EmbossSupport
import Foundation

/// Compares two images sample by sample, with a tolerance: the one comparison behind the
/// project's snapshot tests (and users' own).
///
/// Differences are measured on the stored samples (sRGB-encoded for color files) in 8-bit
/// levels: a 16-bit difference d counts as d / 257 levels.
public struct ImageDiff: Sendable {
  public struct Report: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Pixels with some channel more than `tolerance` levels off.
    public var badPixels: Int
    /// The largest difference of any channel, in 8-bit levels, and where it is.
    public var worstDifference: Double
    public var worstX: Int
    public var worstY: Int
    /// Peak signal-to-noise ratio over all channels in dB; infinite for identical images.
    public var psnr: Double

    public var badFraction: Double {
      width * height == 0 ? 0 : Double(badPixels) / Double(width * height)
    }

    public var summary: String {
      let psnrText = psnr.isInfinite ? "inf" : String(format: "%.2f", psnr)
      return String(
        format:
          "%d of %d pixels differ beyond tolerance (%.4f%%); worst channel difference %.2f levels at (%d, %d); PSNR %@ dB",
        badPixels, width * height, badFraction * 100, worstDifference, worstX, worstY, psnrText)
    }
  }

  /// Compares equal-sized sample sets.
  ///
  /// Returns nil when sizes differ.
  public static func compare(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, tolerance: Double
  ) -> Report? {
    guard expected.width == actual.width, expected.height == actual.height else { return nil }
    var bad = 0
    var worst = 0.0
    var worstIndex = 0
    var squared = 0.0
    let count = expected.width * expected.height
    for i in 0..<count {
      var pixelWorst = 0.0
      for c in 0..<4 {
        let d = abs(Double(expected.rgba[4 * i + c]) - Double(actual.rgba[4 * i + c])) / 257
        squared += d * d
        pixelWorst = max(pixelWorst, d)
      }
      if pixelWorst > tolerance { bad += 1 }
      if pixelWorst > worst {
        worst = pixelWorst
        worstIndex = i
      }
    }
    let mse = count == 0 ? 0 : squared / Double(count * 4)
    let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
    return Report(
      width: expected.width, height: expected.height, badPixels: bad, worstDifference: worst,
      worstX: count == 0 ? 0 : worstIndex % expected.width,
      worstY: count == 0 ? 0 : worstIndex / expected.width, psnr: psnr)
  }

  /// A picture of the comparison: expected | differences | actual, side by side.
  ///
  /// In the middle
  /// panel, pixels beyond the tolerance are red, differences within it dark orange, and equal
  /// pixels a dimmed gray copy of the expected image. 8-bit RGBA samples.
  public static func picture(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, tolerance: Double
  ) -> (width: Int, height: Int, rgba: [UInt8]) {
    let w = max(expected.width, actual.width)
    let h = max(expected.height, actual.height)
    let outWidth = 3 * w
    var out = [UInt8](repeating: 0, count: outWidth * h * 4)
    func put(_ x: Int, _ y: Int, _ p: (UInt8, UInt8, UInt8, UInt8)) {
      let i = 4 * (y * outWidth + x)
      (out[i], out[i + 1], out[i + 2], out[i + 3]) = p
    }
    func sample(_ s: PNGCodec.Samples, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8, UInt8)? {
      guard x < s.width, y < s.height else { return nil }
      let i = 4 * (y * s.width + x)
      return (
        UInt8(s.rgba[i] >> 8), UInt8(s.rgba[i + 1] >> 8), UInt8(s.rgba[i + 2] >> 8),
        UInt8(s.rgba[i + 3] >> 8)
      )
    }
    for y in 0..<h {
      for x in 0..<w {
        let e = sample(expected, x, y)
        let a = sample(actual, x, y)
        if let e { put(x, y, e) }
        if let a { put(2 * w + x, y, a) }
        var middle: (UInt8, UInt8, UInt8, UInt8) = (255, 0, 255, 255)
        if e != nil, a != nil {
          var worst = 0.0
          let ie = 4 * (y * expected.width + x)
          let ia = 4 * (y * actual.width + x)
          for c in 0..<4 {
            worst = max(
              worst, abs(Double(expected.rgba[ie + c]) - Double(actual.rgba[ia + c])) / 257)
          }
          if worst > tolerance {
            middle = (255, 0, 0, 255)
          } else if worst > 0 {
            middle = (160, 80, 0, 255)
          } else if let e {
            let luminance: Int = (Int(e.0) + Int(e.1) + Int(e.2)) / 3
            let gray = UInt8(luminance * Int(e.3) / 255 / 3)
            middle = (gray, gray, gray, 255)
          }
        }
        put(w + x, y, middle)
      }
    }
    return (outWidth, h, out)
  }

  /// `picture` encoded as an 8-bit PNG.
  public static func picturePNG(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, tolerance: Double
  ) throws -> Data {
    let p = picture(expected: expected, actual: actual, tolerance: tolerance)
    return try PNGCodec.encodeRaw(
      p.rgba, width: p.width, height: p.height, channels: 4, bitDepth: 8,
      compression: PNGCodec.defaultCompression, pixelsPerMeter: 0, srgb: true)
  }
}
