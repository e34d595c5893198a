import EmbossRaster
import EmbossSupport

/// A 1-bit image: black is burned by the laser, white left alone.
///
/// Stored as a 1-bit grayscale PNG stores it: rows top first, packed 8 pixels a byte, most
/// significant bit first, 1 = white.
public struct BitImage: Sendable, Equatable {
  /// The width in pixels.
  public let width: Int
  /// The height in pixels.
  public let height: Int
  /// Bytes per row.
  public let rowBytes: Int
  /// The packed rows; padding bits past the width are 0.
  public private(set) var rows: [UInt8]

  /// An image from a pixel list, `true` black, row-major.
  public init(width: Int, height: Int, black: [Bool]) {
    precondition(black.count == width * height, "pixel count does not match size")
    self.init(width: width, height: height, rows: Self.pack(black, width: width, height: height))
  }

  /// An image from packed rows (1 = white).
  public init(width: Int, height: Int, rows: [UInt8]) {
    precondition(rows.count == (width + 7) / 8 * height, "row bytes do not match size")
    self.width = width
    self.height = height
    self.rowBytes = (width + 7) / 8
    self.rows = rows
  }

  private static func pack(_ black: [Bool], width: Int, height: Int) -> [UInt8] {
    let rowBytes = (width + 7) / 8
    var bytes = [UInt8](repeating: 0, count: rowBytes * height)
    for y in 0..<height {
      for x in 0..<width where !black[y * width + x] {
        bytes[y * rowBytes + x >> 3] |= 0x80 >> UInt8(x & 7)
      }
    }
    return bytes
  }

  /// `true` where black, row-major.
  public var black: [Bool] {
    var out = [Bool](repeating: false, count: width * height)
    for y in 0..<height { for x in 0..<width { out[y * width + x] = self[x, y] } }
    return out
  }

  /// Whether the pixel at (x, y) is set (burned); x and y must be inside the image.
  public subscript(x: Int, y: Int) -> Bool {
    get { rows[y * rowBytes + x >> 3] & (0x80 >> UInt8(x & 7)) == 0 }
    set {
      let bit: UInt8 = 0x80 >> UInt8(x & 7)
      if newValue {
        rows[y * rowBytes + x >> 3] &= ~bit
      } else {
        rows[y * rowBytes + x >> 3] |= bit
      }
    }
  }

  /// Fraction of black pixels.
  public var blackFraction: Double {
    guard width > 0, height > 0 else { return 0 }
    var white = 0
    for byte in rows { white += byte.nonzeroBitCount }
    return 1 - Double(white) / Double(width * height)
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
    shorteningRuns(leading: pixels, trailing: pixels)
  }

  /// Dot-width correction for a beam `width` pixels wide.
  ///
  /// Every horizontal run of black loses `width` pixels in all (rounded to whole pixels),
  /// half at each end; for an odd total the trailing end loses the extra pixel. A 3 px beam
  /// shortens a run by 3 px, not 4.
  public func shorteningRuns(beamWidth width: Float) -> BitImage {
    let total = width.isFinite ? Int(max(0, width).rounded()) : 0
    return shorteningRuns(leading: total / 2, trailing: total - total / 2)
  }

  /// Every horizontal run of black shortened by `leading` pixels at its start (left) and
  /// `trailing` at its end; a run too short for that keeps its middle pixel.
  public func shorteningRuns(leading: Int, trailing: Int) -> BitImage {
    guard leading > 0 || trailing > 0 else { return self }
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
        if length > leading + trailing {
          for k in (x + leading)..<(end - trailing) { out[k, y] = true }
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
  public func packedRows() -> [UInt8] { rows }
}
