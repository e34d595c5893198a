import EmbossGeometry
import EmbossRaster
import EmbossSupport

/// How a picture becomes a coverage mask.
public enum MaskMode: String, Sendable, CaseIterable {
  /// Inside where the alpha-corrected gray is below the threshold; the edge is the gray's
  /// iso-line at the threshold, anti-aliased (a picture drawn without anti-aliasing is read
  /// as the smooth shape its pixels sample).
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
  ///
  /// Transparent pixels are outside either way: inverted, the gray is `a * gray` (transparent
  /// is black), so a light logo on a transparent background is its shape, not a slab over
  /// the whole picture. Opaque pixels have the same gray both ways.
  public static func read(
    path: String, mode: MaskMode, invert: Bool, threshold: Int, limits: RenderLimits = .default,
    inputs: InputSnapshot = InputSnapshot()
  ) throws -> CoverageMask {
    let data = try inputs.data(path, what: "picture")
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
    let gray = invert ? Self.inkGray(image) : image.gray()
    let level = Float(threshold) / 255
    let mask: CoverageMask
    switch mode {
    case .coverage:
      mask = CoverageMask(
        plane: Plane(
          width: gray.width, height: gray.height,
          pixels: gray.pixels.map { g in Self.snapped(invert ? g : 1 - g) }))
    case .threshold:
      mask = thresholded(gray, level: level, invert: invert)
    }
    guard !mask.inkBounds.isEmpty else {
      throw EmbossError(
        "mask '\(path)' has no ink: every pixel is \(invert ? "dark" : "light")\(mode == .threshold ? " at threshold \(threshold)" : "")\(invert ? "" : " (use --invert-mask for a light shape on dark)")"
      )
    }
    return mask
  }

  /// The gray of an inverted mask: luminance of the sRGB-encoded color times alpha, so a
  /// transparent pixel is black (outside, as light is inside) and an opaque one has the gray
  /// `RGBAImage.gray` gives it.
  static func inkGray(_ image: RGBAImage) -> Plane {
    Plane(
      width: image.width, height: image.height,
      pixels: image.pixels.map { p in
        let gray = 0.2126 * SRGB.encode(p.x) + 0.7152 * SRGB.encode(p.y) + 0.0722 * SRGB.encode(p.z)
        return min(max(p.w, 0), 1) * gray
      })
  }

  /// Plain background and plain ink exactly 0 and 1, not a rounding error of the gray's
  /// arithmetic away: the tracer reads any value between as an edge (a white 6e-8 from 1 put
  /// a traced straight edge 0.1 px off).
  @inline(__always)
  static func snapped(_ c: Float) -> Float {
    c < 1e-4 ? 0 : (c > 1 - 1e-4 ? 1 : c)
  }

  /// The ink of `gray` where it is below `level` (above, with `invert`), with a smooth edge.
  ///
  /// The gray's iso-line at `level` traced with sub-pixel vertices (linear between pixel
  /// centers, as the picture's own anti-aliasing places it) is the mask's outline, and
  /// pixels within half a pixel of it are anti-aliased by their distance to it (coverage
  /// 0.5 + signed distance). A picture drawn without anti-aliasing (two grays) is read as
  /// the smooth shape its pixels sample (`Outline.traced(_:aliased:)`).
  static func thresholded(_ gray: Plane, level: Float, invert: Bool) -> CoverageMask {
    let w = gray.width
    let h = gray.height
    // The gray mapped to a coverage-like 0...1 (0 where the picture is plain background, 1
    // where it is plain ink) that crosses 0.5 at `level`, linear on each side of it: its
    // iso-line at 0.5 is the gray's at `level`, and the tracer's sub-pixel estimates, which
    // expect 0 and 1 away from the edge, hold.
    let inward = max(invert ? 1 - level : level, 1e-6)
    let outward = max(invert ? level : 1 - level, 1e-6)
    let inside = gray.pixels.map { g in (g < level) != invert }
    let field = Plane(
      width: w, height: h,
      pixels: zip(gray.pixels, inside).map { g, ink in
        let u = invert ? g - level : level - g
        let s = snapped(0.5 + 0.5 * u / (u > 0 ? inward : outward))
        // Exactly as the threshold decides, at the level itself too.
        return ink ? max(s, 0.5) : min(s, 0.5 - 1 / 4096)
      })
    var plane = Plane(width: w, height: h, pixels: inside.map { $0 ? 1 : 0 })
    let bounds = plane.bounds(above: 0)
    guard !bounds.isEmpty else { return CoverageMask(plane: plane) }
    // A picture of two grays (drawn without anti-aliasing) samples a smooth shape at whole
    // pixels (see `Outline.traced(_:aliased:)`).
    var grays = Set<Float>()
    for g in gray.pixels {
      grays.insert(g)
      if grays.count > 2 { break }
    }
    let outline = Outline.traced(
      EdgeDistance.isoline(mask: field, region: bounds.grown(by: 1)), aliased: grays.count <= 2)
    // Each pixel within half a pixel of a piece: its distance to the nearest.
    var near = [Float](repeating: .infinity, count: w * h)
    for k in 0..<outline.count {
      let a = outline.a[k]
      let b = outline.b[k]
      let v = b - a
      let length2 = (v * v).sum()
      let x0 = max(0, Int((min(a.x, b.x) - 1).rounded(.down)))
      let x1 = min(w - 1, Int((max(a.x, b.x) + 0.5).rounded(.down)))
      let y0 = max(0, Int((min(a.y, b.y) - 1).rounded(.down)))
      let y1 = min(h - 1, Int((max(a.y, b.y) + 0.5).rounded(.down)))
      guard x0 <= x1, y0 <= y1 else { continue }
      for y in y0...y1 {
        for x in x0...x1 {
          let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - a
          let t = length2 > 0 ? min(max((p * v).sum() / length2, 0), 1) : 0
          let c = p - v * t
          let d = (c * c).sum().squareRoot()
          if d < near[y * w + x] { near[y * w + x] = d }
        }
      }
    }
    // Only along the picture's own edges: where the ink meets the canvas's border (which
    // the tracer closes the outline along) the pixels stay whole.
    func onEdge(_ x: Int, _ y: Int) -> Bool {
      let state = inside[y * w + x]
      for ny in max(0, y - 1)...min(h - 1, y + 1) {
        for nx in max(0, x - 1)...min(w - 1, x + 1) where inside[ny * w + nx] != state {
          return true
        }
      }
      return false
    }
    for i in 0..<(w * h) where near[i] < 0.5 {
      let (y, x) = i.quotientAndRemainder(dividingBy: w)
      guard onEdge(x, y) else { continue }
      plane.pixels[i] = inside[i] ? 0.5 + near[i] : 0.5 - near[i]
    }
    return CoverageMask(plane: plane, inkBounds: plane.bounds(above: 0), outline: outline)
  }
}
