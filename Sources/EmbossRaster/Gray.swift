import EmbossSupport

extension RGBAImage {
  /// Gray as the laser software sees it: luminance of the sRGB-encoded color (Rec.
  ///
  /// 709
  /// weights), then alpha-corrected as Glowforge does, `(1 - a) + a * gray`, so transparent
  /// pixels count as white, which is never engraved. `negative` inverts the color under the
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
