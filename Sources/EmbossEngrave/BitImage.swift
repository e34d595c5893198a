import EmbossRaster
import EmbossSupport

/// A 1-bit image: `true` is black (burned by the laser), `false` white (left alone).
///
/// Row-major, top row first.
public struct BitImage: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public var black: [Bool]

  public init(width: Int, height: Int, black: [Bool]) {
    precondition(black.count == width * height, "pixel count does not match size")
    self.width = width
    self.height = height
    self.black = black
  }

  public subscript(x: Int, y: Int) -> Bool {
    get { black[y * width + x] }
    set { black[y * width + x] = newValue }
  }

  /// Fraction of black pixels.
  public var blackFraction: Double {
    black.isEmpty ? 0 : Double(black.lazy.filter { $0 }.count) / Double(black.count)
  }

  /// Mirrored left to right (for engraving the back of acrylic).
  public func mirrored() -> BitImage {
    var out = self
    for y in 0..<height {
      for x in 0..<width { out[x, y] = self[width - 1 - x, y] }
    }
    return out
  }

  /// Dot-width correction: every horizontal run of black is shortened by `pixels` at each
  /// end, since the beam burns that much past the pixels it is given.
  ///
  /// A run too short to
  /// lose that much keeps its middle pixel, so thin strokes do not vanish.
  public func shorteningRuns(by pixels: Int) -> BitImage {
    guard pixels > 0 else { return self }
    var out = self
    for y in 0..<height {
      var x = 0
      while x < width {
        guard self[x, y] else {
          x += 1
          continue
        }
        var end = x
        while end < width && self[end, y] { end += 1 }
        let length = end - x
        for k in x..<end { out[k, y] = false }
        if length > 2 * pixels {
          for k in (x + pixels)..<(end - pixels) { out[k, y] = true }
        } else {
          out[x + (length - 1) / 2, y] = true
        }
        x = end
      }
    }
    return out
  }

  /// Rows packed 8 pixels a byte, most significant bit first, 1 = white, as a 1-bit
  /// grayscale PNG stores them.
  public func packedRows() -> [UInt8] {
    let rowBytes = (width + 7) / 8
    var bytes = [UInt8](repeating: 0, count: rowBytes * height)
    for y in 0..<height {
      for x in 0..<width where !self[x, y] {
        bytes[y * rowBytes + x / 8] |= 0x80 >> UInt8(x % 8)
      }
    }
    return bytes
  }
}
