import EmbossCodecs
import EmbossModel
import EmbossRaster
import EmbossSupport

/// The shading image (the lit ball, a "matcap"): a picture of the material on a unit sphere,
/// seen by an orthographic camera looking down -z, ray-marched against the sphere's signed
/// distance function with Newton steps (see `march`).
///
/// Pixel contract: `size` x `size` RGBA, linear light, straight alpha. Row 0 is the top of the
/// sphere (+y), column 0 its left (-x). Alpha is the disk's coverage, anti-aliased at the rim
/// with 4x4 samples. Within 2 pixels outside the disk the color continues the rim's color
/// (the shading of a normal lying in the image plane), so bilinear lookups at the rim never
/// blend with undefined color; normals (|n.xy| <= 1) never look further out, and the rest of
/// the corners is transparent black.
public enum ShadingImage {
  /// Renders the hemisphere: `BallGeometry.march(size:)` then `shade`.
  ///
  /// Sizes below 1 give an
  /// empty image.
  public static func render(
    surface: Surface, lights: [Light], environment: Environment = .none, size: Int,
    parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    BallGeometry.march(size: size, parallelism: parallelism)
      .shade(surface: surface, lights: lights, environment: environment, parallelism: parallelism)
  }

  /// Sphere-space point (x right, y up) of image position (px, py) in pixels.
  @inline(__always)
  static func spherePoint(_ px: Float, _ py: Float, size: Int) -> SIMD2<Float> {
    SIMD2(px / Float(size) * 2 - 1, 1 - py / Float(size) * 2)
  }

  /// The ball's signed distance function (negative inside the unit sphere) and its gradient
  /// (unit length; on the surface, the normal), from one square root.
  @inline(__always)
  static func signedDistance(_ p: SIMD3<Float>) -> (distance: Float, gradient: SIMD3<Float>) {
    let length = simdDot(p, p).squareRoot()
    return (length - 1, length > 0 ? p / length : SIMD3(0, 0, 1))
  }

  /// Marches the ray from (p.x, p.y, 1), the top of the sphere's bounding box, toward -z
  /// against the sphere's signed distance function.
  ///
  /// Returns the hit point (on a unit sphere
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
  /// blend with whatever the picture has in its corners.
  ///
  /// Alpha is kept as it was. Images
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
  ///
  /// A file `inputs` holds is taken from it.
  public static func read(
    path: String, limits: RenderLimits = .default, inputs: InputSnapshot = InputSnapshot()
  ) throws -> RGBAImage {
    let decoded = try PictureCodec.read(
      path: path, maxPixels: min(limits.maxPixels, 4096 * 4096), inputs: inputs)
    guard decoded.image.width >= 4, decoded.image.height >= 4 else {
      throw EmbossError(
        "shading image '\(path)' is \(decoded.image.width)x\(decoded.image.height); it needs at least 4x4 pixels"
      )
    }
    return extendingRim(decoded.image)
  }
}
