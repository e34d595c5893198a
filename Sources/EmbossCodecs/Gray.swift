import EmbossRaster
import EmbossSupport

extension RGBAImage {
  /// Gray as the laser software sees it.
  ///
  /// Luminance of the sRGB-encoded color (Rec. 709 weights), then alpha-corrected as
  /// Glowforge does, `(1 - a) + a * gray`, so transparent pixels count as white, which is
  /// never engraved. `negative` inverts the color under the
  /// alpha, so a transparent background stays white. Input: linear light, straight alpha.
  public func gray(negative: Bool = false) -> Plane {
    Plane(
      width: width, height: height,
      pixels: pixels.map { p in
        let gray = 0.2126 * SRGB.encode(p.x) + 0.7152 * SRGB.encode(p.y) + 0.0722 * SRGB.encode(p.z)
        let a = min(max(p.w, 0), 1)
        return (1 - a) + a * (negative ? 1 - gray : gray)
      })
  }
}

/// Gray from stored samples, as laser software computes it: `GrayRule.gray` of 16-bit
/// sRGB-encoded RGBA codes (8-bit codes are widened by 257, as PNG decoders do).
public enum GrayRule {
  /// The gray of one pixel's codes, 0 for black to 1 for white.
  ///
  /// Luminance with Rec. 709 weights of the sRGB codes, alpha-corrected as Glowforge does;
  /// `negative` inverts the color under the alpha.
  @inlinable @inline(__always)
  public static func gray(_ r: UInt16, _ g: UInt16, _ b: UInt16, _ a: UInt16, negative: Bool)
    -> Float
  {
    let luma = (0.2126 * Float(r) + 0.7152 * Float(g) + 0.0722 * Float(b)) / 65535
    let alpha = Float(a) / 65535
    return (1 - alpha) + alpha * (negative ? 1 - luma : luma)
  }
}

extension GrayRule {
  /// `gray` of 8-bit codes, widened by 257 as PNG decoders do.
  @inlinable @inline(__always)
  public static func gray(codes8 c: SIMD4<UInt8>, negative: Bool) -> Float {
    gray(
      UInt16(c.x) * 257, UInt16(c.y) * 257, UInt16(c.z) * 257, UInt16(c.w) * 257,
      negative: negative)
  }
}

extension SRGB {
  /// `encode8Table`, for other modules.
  package static var encode8: [UInt8] { encode8Table }
}
