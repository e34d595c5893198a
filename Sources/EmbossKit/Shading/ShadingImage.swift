/// The lit hemisphere ("matcap"): a picture of the material on a unit sphere, seen by an
/// orthographic camera looking down -z, rendered by sphere tracing (ray marching against the
/// sphere's signed distance function).
///
/// Pixel contract: `size` x `size` RGBA, linear light, straight alpha. Row 0 is the top of the
/// sphere (+y), column 0 its left (-x). Alpha is the disk's coverage, anti-aliased at the rim
/// with 4x4 samples. Within 2 pixels outside the disk the color continues the rim's color
/// (the shading of a normal lying in the image plane), so bilinear lookups at the rim never
/// blend with undefined color; normals (|n.xy| <= 1) never look further out, and the rest of
/// the corners is transparent black.
public enum ShadingImage {
  /// Renders the hemisphere. Sizes below 1 give an empty image.
  public static func render(
    surface: Surface, lights: [Light], size: Int, parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    guard size > 0 else { return RGBAImage(width: 0, height: 0) }
    var pixels = [SIMD4<Float>](repeating: .zero, count: size * size)
    let pixelSize = 2 / Float(size)
    pixels.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      parallelism.forEachBand(size, bandSize: 8) { rows in
        for j in rows {
          for i in 0..<size {
            out[j * size + i] = shadePixel(
              i: i, j: j, size: size, pixelSize: pixelSize, surface: surface, lights: lights)
          }
        }
      }
    }
    return RGBAImage(width: size, height: size, pixels: pixels)
  }

  /// Sphere-space point (x right, y up) of image position (px, py) in pixels.
  @inline(__always)
  static func spherePoint(_ px: Float, _ py: Float, size: Int) -> SIMD2<Float> {
    SIMD2(px / Float(size) * 2 - 1, 1 - py / Float(size) * 2)
  }

  private static func shadePixel(
    i: Int, j: Int, size: Int, pixelSize: Float, surface: Surface, lights: [Light]
  ) -> SIMD4<Float> {
    let center = spherePoint(Float(i) + 0.5, Float(j) + 0.5, size: size)
    let r = (center * center).sum().squareRoot()
    // Interior pixels far from the rim: one ray through the center.
    if r < 1 - 1.5 * pixelSize {
      if let hit = march(center) {
        return SIMD4(surface.shade(normal: hit, point: hit, lights: lights), 1)
      }
    }
    // Exterior pixels: the rim color in this direction next to the rim, alpha 0.
    if r > 1 + 1.5 * pixelSize {
      guard r < 1 + 3.5 * pixelSize else { return .zero }
      return SIMD4(rimColor(center, surface: surface, lights: lights), 0)
    }
    // Near the rim: 4x4 samples; color averages the hits (straight alpha), alpha counts them.
    var sum = SIMD3<Float>(repeating: 0)
    var hits = 0
    for sy in 0..<4 {
      for sx in 0..<4 {
        let p = spherePoint(
          Float(i) + (Float(sx) + 0.5) / 4, Float(j) + (Float(sy) + 0.5) / 4, size: size)
        if let hit = march(p) {
          sum += surface.shade(normal: hit, point: hit, lights: lights)
          hits += 1
        }
      }
    }
    if hits == 0 {
      return SIMD4(rimColor(center, surface: surface, lights: lights), 0)
    }
    return SIMD4(sum / Float(hits), Float(hits) / 16)
  }

  /// The color of a normal lying in the image plane, pointing toward `p`.
  private static func rimColor(_ p: SIMD2<Float>, surface: Surface, lights: [Light]) -> SIMD3<Float> {
    let length = (p * p).sum().squareRoot()
    let n = length > 0 ? SIMD3(p.x / length, p.y / length, 0) : SIMD3<Float>(0, 0, 1)
    return surface.shade(normal: n, point: n, lights: lights)
  }

  /// The ball's signed distance function (negative inside the unit sphere) and its gradient
  /// (unit length; on the surface, the normal), from one square root.
  @inline(__always)
  static func signedDistance(_ p: SIMD3<Float>) -> (distance: Float, gradient: SIMD3<Float>) {
    let length = simdDot(p, p).squareRoot()
    return (length - 1, length > 0 ? p / length : SIMD3(0, 0, 1))
  }

  /// Marches the ray from (p.x, p.y, 1), the top of the sphere's bounding box, toward -z
  /// against the sphere's signed distance function. Returns the hit point (on a unit sphere
  /// also the normal) or nil.
  ///
  /// Each step is Newton's on f(t) = SDF(ray(t)) with f'(t) = gradient . direction. The
  /// distance to a convex shape along a line is convex, so from outside the tangent's root
  /// never passes the first hit, and it is never shorter than the sphere-tracing step f(t)
  /// (|f'| <= 1): convergence is quadratic instead of sphere tracing's linear crawl on
  /// oblique rays. A ray whose distance stops shrinking (f' >= 0) has passed its closest
  /// approach and missed. Hits are within 1e-5 radii.
  @inline(__always)
  static func march(_ p: SIMD2<Float>) -> SIMD3<Float>? {
    var point = SIMD3<Float>(p.x, p.y, 1)
    // The ray points along -z, so f'(t) = -gradient.z.
    for _ in 0..<32 {
      let (distance, gradient) = signedDistance(point)
      if distance < 1e-5 { return gradient }
      let slope = -gradient.z
      if slope >= -1e-6 { return nil }
      point.z += distance / slope
    }
    return nil
  }

  /// Prepares an external shading image (a matcap picture, as Core Image's
  /// inputShadingImage): every pixel outside the ellipse inscribed in the image, less 1.5
  /// pixels, takes the color at that ellipse in its direction, so lookups at the rim never
  /// blend with whatever the picture has in its corners. Alpha is kept as it was. Images
  /// smaller than 4x4 are returned unchanged.
  public static func extendingRim(_ image: RGBAImage) -> RGBAImage {
    guard image.width >= 4, image.height >= 4 else { return image }
    var out = image
    let rx = Float(image.width) / 2
    let ry = Float(image.height) / 2
    let inset: Float = 1.5
    for y in 0..<image.height {
      for x in 0..<image.width {
        let dx = (Float(x) + 0.5 - rx) / (rx - inset)
        let dy = (Float(y) + 0.5 - ry) / (ry - inset)
        let r = (dx * dx + dy * dy).squareRoot()
        guard r > 1 else { continue }
        let sx = rx + dx / r * (rx - inset)
        let sy = ry + dy / r * (ry - inset)
        let color = image.sampleBilinear(x: sx, y: sy)
        out[x, y] = SIMD4(color.x, color.y, color.z, image[x, y].w)
      }
    }
    return out
  }

  /// Reads an external shading image: any PNG, as linear light, rim extended.
  public static func read(path: String, limits: RenderLimits = .default) throws -> RGBAImage {
    let decoded = try PNGCodec.read(path: path, maxPixels: min(limits.maxPixels, 4096 * 4096))
    guard decoded.image.width >= 4, decoded.image.height >= 4 else {
      throw EmbossError("shading image '\(path)' is \(decoded.image.width)x\(decoded.image.height); it needs at least 4x4 pixels")
    }
    return extendingRim(decoded.image)
  }
}
