import EmbossSupport

/// A rectangle of whole pixels: origin top-left, x right, y down.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
  /// The left edge.
  public var x: Int
  /// The top edge.
  public var y: Int
  /// The width in pixels.
  public var width: Int
  /// The height in pixels.
  public var height: Int

  /// A rectangle with its top-left corner at (x, y).
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = max(0, width)
    self.height = max(0, height)
  }

  /// Whether pixel (x, y) is inside.
  public func contains(x px: Int, y py: Int) -> Bool {
    px >= x && py >= y && px < x + width && py < y + height
  }

  /// Whether the rectangle holds no pixel.
  public var isEmpty: Bool { width == 0 || height == 0 }
  /// One past the right edge.
  public var maxX: Int { x + width }
  /// One past the bottom edge.
  public var maxY: Int { y + height }

  /// The rectangle grown by `margin` on every side.
  public func grown(by margin: Int) -> PixelRect {
    PixelRect(x: x - margin, y: y - margin, width: width + 2 * margin, height: height + 2 * margin)
  }

  /// The pixels in both rectangles; empty when they do not overlap.
  public func intersection(_ other: PixelRect) -> PixelRect {
    let x0 = max(x, other.x)
    let y0 = max(y, other.y)
    let x1 = min(maxX, other.maxX)
    let y1 = min(maxY, other.maxY)
    return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// The smallest rectangle holding both (an empty one adds nothing).
  public func union(_ other: PixelRect) -> PixelRect {
    if isEmpty { return other }
    if other.isEmpty { return self }
    let x0 = min(x, other.x)
    let y0 = min(y, other.y)
    return PixelRect(
      x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
  }

  /// `WxH+X+Y`, as ImageMagick writes geometry.
  public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

extension PixelRect {
  /// Whether the rectangle is empty or lies inside a `width` x `height` canvas.
  public func isEmptyOrInside(width: Int, height: Int) -> Bool {
    isEmpty || intersection(PixelRect(x: 0, y: 0, width: width, height: height)) == self
  }
}

/// A single-channel image of `Float` samples, row-major, top row first, no padding.
///
/// Used for coverage (0...1), heights (0 on the mask edge, 1 on the plateau, negative when
/// lowered) and any other scalar field. Pixel (x, y) has its center at (x + 0.5, y + 0.5).
public struct Plane: Sendable, Equatable {
  /// The width in pixels.
  public let width: Int
  /// The height in pixels.
  public let height: Int
  /// Row-major values.
  ///
  /// Read-only outside emboss's own targets: a plane's values always number its width times
  /// its height.
  public package(set) var pixels: [Float]

  /// A plane of `width` x `height` filled with `value`.
  public init(width: Int, height: Int, value: Float = 0) {
    precondition(width >= 0 && height >= 0, "negative plane size")
    self.width = width
    self.height = height
    self.pixels = [Float](repeating: value, count: width * height)
  }

  /// A plane holding `pixels`, which must number `width` x `height`.
  public init(width: Int, height: Int, pixels: [Float]) {
    precondition(pixels.count == width * height, "pixel count does not match size")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// The value at (x, y), which must be inside the plane.
  public subscript(x: Int, y: Int) -> Float {
    @inlinable @inline(__always) get { pixels[y * width + x] }
    @inline(__always) set { pixels[y * width + x] = newValue }
  }

  /// The sample at (x, y), or 0 when (x, y) is not in the plane.
  @inlinable @inline(__always)
  public func value(x: Int, y: Int) -> Float {
    guard x >= 0, y >= 0, x < width, y < height else { return 0 }
    return pixels[y * width + x]
  }

  /// The whole plane as a rectangle.
  public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

  /// The smallest rectangle holding every sample above `threshold`; empty when there is none.
  public func bounds(above threshold: Float) -> PixelRect {
    var minX = width
    var minY = height
    var maxX = -1
    var maxY = -1
    pixels.withUnsafeBufferPointer { p in
      for y in 0..<height {
        let row = y * width
        var first = -1
        var last = -1
        for x in 0..<width where p[row + x] > threshold {
          if first < 0 { first = x }
          last = x
        }
        if first >= 0 {
          minX = min(minX, first)
          maxX = max(maxX, last)
          minY = min(minY, y)
          maxY = y
        }
      }
    }
    guard maxX >= 0 else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
    return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
  }
}
