import EmbossSupport

/// How a picture becomes a coverage mask.
public enum MaskMode: String, Sendable, CaseIterable {
  /// Inside where the alpha-corrected gray is below the threshold (hard edges).
  case threshold
  /// The picture's own gray and alpha as coverage, keeping its anti-aliasing.
  case coverage
}

/// A picture (a logo, a scanned drawing, a photo) as the mask instead of text.
public enum ImageMask {
  /// Reads any PNG and turns it into a mask.
  ///
  /// Gray is the luminance of the sRGB-encoded color,
  /// alpha-corrected as for engraving (`(1 - a) + a * gray`: transparent is white). Dark is
  /// inside unless `invert`. Threshold mode: inside where gray < threshold / 255; coverage
  /// mode: coverage = 1 - gray (or gray when inverted).
  public static func read(
    path: String, mode: MaskMode, invert: Bool, threshold: Int, limits: RenderLimits = .default
  ) throws -> CoverageMask {
    let data = try InputFile.read(path, what: "picture")
    // The render's memory, from the header, before the pixels are decoded.
    if let size = PictureCodec.size(of: data) {
      try limits.checkMemory(
        pixels: size.width * size.height,
        what: "mask '\(path)' is \(size.width)x\(size.height) pixels")
    }
    let image: RGBAImage
    do {
      image = try PictureCodec.decode(data, maxPixels: limits.maxPixels).image
    } catch let error as EmbossError {
      throw EmbossError("cannot read \(PictureCodec.describe(data)) '\(path)': \(error.message)")
    }
    let gray = image.gray()
    let level = Float(threshold) / 255
    let plane = Plane(
      width: gray.width, height: gray.height,
      pixels: gray.pixels.map { g in
        switch mode {
        case .threshold: return (g < level) != invert ? 1 : 0
        case .coverage: return invert ? g : 1 - g
        }
      })
    let mask = CoverageMask(plane: plane)
    guard !mask.inkBounds.isEmpty else {
      throw EmbossError(
        "mask '\(path)' has no ink: every pixel is \(invert ? "dark" : "light")\(mode == .threshold ? " at threshold \(threshold)" : "")\(invert ? "" : " (use --invert-mask for a light shape on dark)")"
      )
    }
    return mask
  }
}
