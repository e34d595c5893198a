import EmbossSupport

/// A canvas-sized color image that stores only the rectangle where something was drawn:
/// every pixel outside `contentRect` is `fill`.
///
/// Linear light, straight alpha, like
/// `RGBAImage`. This keeps a 4096x4096 render of a small word from holding 256 MiB of
/// identical background pixels.
public struct CanvasImage: Sendable, Equatable {
  /// The canvas width in pixels.
  public let width: Int
  /// The canvas height in pixels.
  public let height: Int
  /// The color of every pixel outside `contentRect`.
  public let fill: SIMD4<Float>
  /// Where `content` lies on the canvas; inside the canvas.
  public let contentRect: PixelRect
  /// The pixels inside `contentRect`.
  ///
  /// Read-only outside emboss's own targets, so their size always matches the rectangle.
  public package(set) var content: RGBAImage

  /// A canvas of `fill` with `content` at `contentRect`, which must lie inside the canvas and have
  /// `content`'s size.
  public init(
    width: Int, height: Int, fill: SIMD4<Float>, contentRect: PixelRect, content: RGBAImage
  ) {
    precondition(
      contentRect.width == content.width && contentRect.height == content.height, "content size")
    precondition(
      contentRect.isEmptyOrInside(width: width, height: height), "content outside the canvas")
    self.width = width
    self.height = height
    self.fill = fill
    self.contentRect = contentRect
    self.content = content
  }

  /// A canvas that is all content.
  public init(_ image: RGBAImage) {
    self.init(
      width: image.width, height: image.height, fill: .zero,
      contentRect: PixelRect(x: 0, y: 0, width: image.width, height: image.height), content: image)
  }

  /// Every pixel, as a plain image.
  public func flattened() -> RGBAImage {
    var image = RGBAImage(width: width, height: height, fill: fill)
    for y in 0..<contentRect.height {
      for x in 0..<contentRect.width {
        image[contentRect.x + x, contentRect.y + y] = content[x, y]
      }
    }
    return image
  }
}
