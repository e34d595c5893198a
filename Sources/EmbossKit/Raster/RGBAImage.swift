/// A color image of linear-light RGB with straight (not premultiplied) alpha, one
/// `SIMD4<Float>` (r, g, b, a) a pixel, row-major, top row first.
///
/// Color values may exceed 1 (bright highlights); they are clamped only when written to a file.
/// Where alpha is 0 the color is still meaningful (the shading image keeps rim colors there
/// so bilinear lookups never blend with undefined values).
public struct RGBAImage: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public var pixels: [SIMD4<Float>]

  public init(width: Int, height: Int, fill: SIMD4<Float> = .zero) {
    precondition(width >= 0 && height >= 0, "negative image size")
    self.width = width
    self.height = height
    self.pixels = [SIMD4<Float>](repeating: fill, count: width * height)
  }

  public init(width: Int, height: Int, pixels: [SIMD4<Float>]) {
    precondition(pixels.count == width * height, "pixel count does not match size")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

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
  @inline(__always)
  static func sampleBilinear(
    _ p: UnsafeBufferPointer<SIMD4<Float>>, width: Int, height: Int, x: Float, y: Float
  ) -> SIMD4<Float> {
    let fx = min(max(x - 0.5, 0), Float(width - 1))
    let fy = min(max(y - 0.5, 0), Float(height - 1))
    let x0 = Int(fx)
    let y0 = Int(fy)
    let x1 = min(x0 + 1, width - 1)
    let y1 = min(y0 + 1, height - 1)
    let tx = fx - Float(x0)
    let ty = fy - Float(y0)
    let top = p[y0 * width + x0] * (1 - tx) + p[y0 * width + x1] * tx
    let bottom = p[y1 * width + x0] * (1 - tx) + p[y1 * width + x1] * tx
    return top * (1 - ty) + bottom * ty
  }
}
