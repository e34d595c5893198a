import EmbossSupport

/// A color image of linear-light RGB with straight (not premultiplied) alpha, one
/// `SIMD4<Float>` (r, g, b, a) a pixel, row-major, top row first.
///
/// Color values may exceed 1 (bright highlights); they are clamped only when written to a file.
/// Where alpha is 0 the color is still meaningful (the shading image keeps rim colors there
/// so bilinear lookups never blend with undefined values).
public struct RGBAImage: Sendable, Equatable {
  /// The width in pixels.
  public let width: Int
  /// The height in pixels.
  public let height: Int
  /// Row-major pixels, linear light, straight alpha.
  ///
  /// Read-only outside emboss's own targets, so their count always matches the size.
  public package(set) var pixels: [SIMD4<Float>]

  /// An image with every pixel `fill`.
  public init(width: Int, height: Int, fill: SIMD4<Float> = .zero) {
    precondition(width >= 0 && height >= 0, "negative image size")
    self.width = width
    self.height = height
    self.pixels = [SIMD4<Float>](repeating: fill, count: width * height)
  }

  /// An image holding `pixels`, which must number `width` x `height`.
  public init(width: Int, height: Int, pixels: [SIMD4<Float>]) {
    precondition(pixels.count == width * height, "pixel count does not match size")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// The pixel at (x, y), which must be inside the image.
  @inline(__always)
  public subscript(x: Int, y: Int) -> SIMD4<Float> {
    get { pixels[y * width + x] }
    set { pixels[y * width + x] = newValue }
  }

  /// Bilinear sample of the color at continuous coordinates (pixel centers at +0.5), clamped
  /// to the nearest edge pixel outside the image.
  @inline(__always)
  public func sampleBilinear(x: Float, y: Float) -> SIMD4<Float> {
    pixels.withUnsafeBufferPointer { p in
      Self.sampleBilinear(p, width: width, height: height, x: x, y: y)
    }
  }

  /// `sampleBilinear` on raw pixels, for inner loops that hold the buffer already.
  @inlinable @inline(__always)
  package static func sampleBilinear(
    _ p: UnsafeBufferPointer<SIMD4<Float>>, width: Int, height: Int, x: Float, y: Float
  ) -> SIMD4<Float> {
    let t = bilinearTexels(width: width, height: height, x: x, y: y)
    let top = p[t.y0 * width + t.x0] * (1 - t.tx) + p[t.y0 * width + t.x1] * t.tx
    let bottom = p[t.y1 * width + t.x0] * (1 - t.tx) + p[t.y1 * width + t.x1] * t.tx
    return top * (1 - t.ty) + bottom * t.ty
  }

  /// The four texels a bilinear sample at (`x`, `y`) reads (clamped to the image) and its
  /// weights along x and y.
  @inlinable @inline(__always)
  package static func bilinearTexels(width: Int, height: Int, x: Float, y: Float)
    -> (x0: Int, y0: Int, x1: Int, y1: Int, tx: Float, ty: Float)
  {
    let fx = min(max(x - 0.5, 0), Float(width - 1))
    let fy = min(max(y - 0.5, 0), Float(height - 1))
    let x0 = Int(fx)
    let y0 = Int(fy)
    return (x0, y0, min(x0 + 1, width - 1), min(y0 + 1, height - 1), fx - Float(x0), fy - Float(y0))
  }
}
