import EmbossSupport

/// A canvas as an 8-bit PNG stores it: sRGB codes with straight 8-bit alpha, one color
/// outside a content rectangle (as `CanvasImage`).
///
/// The compositor writes it directly when the picture goes nowhere but an 8-bit file, so no
/// float copy of the picture is held: a quarter of `CanvasImage`'s memory, and the same
/// bytes the encoder makes from the float picture (`SRGB.codes8`).
public struct SRGBCanvas: Sendable, Equatable {
  /// The canvas width in pixels.
  public let width: Int
  /// The canvas height in pixels.
  public let height: Int
  /// The codes of every pixel outside `contentRect`.
  public let fill: SIMD4<UInt8>
  /// Where `content` lies on the canvas; inside the canvas.
  public let contentRect: PixelRect
  /// The codes inside `contentRect`, row-major.
  public let content: [SIMD4<UInt8>]

  /// A canvas of `fill` with `content` (row-major, `contentRect`'s size) at `contentRect`,
  /// which must lie inside the canvas.
  public init(
    width: Int, height: Int, fill: SIMD4<UInt8>, contentRect: PixelRect,
    content: [SIMD4<UInt8>]
  ) {
    precondition(content.count == contentRect.width * contentRect.height, "content size")
    precondition(
      contentRect.isEmptyOrInside(width: width, height: height), "content outside the canvas")
    self.width = width
    self.height = height
    self.fill = fill
    self.contentRect = contentRect
    self.content = content
  }

  /// The codes of `image` (`SRGB.codes8` of each pixel): what its 8-bit PNG stores.
  public init(_ image: CanvasImage) {
    let table = SRGB.encode8Table
    let (fill, content) = table.withUnsafeBufferPointer { table in
      (
        SRGB.codes8(image.fill, table: table),
        image.content.pixels.map { SRGB.codes8($0, table: table) }
      )
    }
    self.init(
      width: image.width, height: image.height, fill: fill, contentRect: image.contentRect,
      content: content)
  }

  /// The canvas in linear light (each code decoded): the picture an 8-bit PNG reader sees.
  public var linear: CanvasImage {
    let decode = SRGB.decode8Table
    func pixel(_ c: SIMD4<UInt8>) -> SIMD4<Float> {
      SIMD4(decode[Int(c.x)], decode[Int(c.y)], decode[Int(c.z)], Float(c.w) / 255)
    }
    return CanvasImage(
      width: width, height: height, fill: pixel(fill), contentRect: contentRect,
      content: RGBAImage(
        width: contentRect.width, height: contentRect.height, pixels: content.map(pixel)))
  }
}
