extension RenderLimits {
  /// The memory a render of `mask` with relief radius `radius` needs, estimated before the
  /// relief is made: every canvas pixel, and as sampled pixels the ink within the bevel's
  /// reach of an edge (at most all the ink), and the process's base.
  ///
  /// Measured whole-process
  /// peaks are 0.4 to 1 times the estimate: about 1 for dense small text (mostly edges), less
  /// for large letters (mostly plateau) and wide radii.
  public static func estimatedBytes(mask: CoverageMask, radius: Float) -> Int {
    // Only the ink's bounds can hold ink (a 4096x4096 canvas is mostly background).
    var ink = 0
    var edge = 0
    let bounds = mask.inkBounds.intersection(
      PixelRect(x: 0, y: 0, width: mask.width, height: mask.height))
    let window = mask.window
    let inside = bounds.intersection(window)
    mask.windowCoverage.pixels.withUnsafeBufferPointer { pixels in
      for y in inside.y..<max(inside.y, inside.maxY) {
        let row = (y - window.y) * window.width - window.x
        for x in row + inside.x..<row + inside.maxX {
          let value = pixels[x]
          ink &+= value > 0 ? 1 : 0
          edge &+= value > 0 && value < 1 ? 1 : 0
        }
      }
    }
    let reach = Int(radius.rounded(.up)) + 2
    let sampled = min(ink, edge.multipliedReportingOverflow(by: reach).partialValue)
    return bytes(mask, sampled: sampled)
  }

  /// The estimate for `mask` with `sampled` sampled pixels.
  static func bytes(_ mask: CoverageMask, sampled: Int) -> Int {
    baseBytes + mask.width * mask.height * bytesPerPixel + sampled * bytesPerSampledPixel
  }

  /// Throws when rendering `mask` would need more than the memory budget.
  ///
  /// The ink is counted only when the budget could be passed: with every pixel of the ink
  /// bounds taken as sampled (the estimate's bound) a render that fits is let through without
  /// the scan (2 ms of case C's 4096 x 4096 canvas).
  public func checkRender(mask: CoverageMask, radius: Float) throws {
    let bounds = mask.inkBounds.intersection(mask.window)
    let (inkPixels, overflow) = max(0, bounds.width).multipliedReportingOverflow(
      by: max(0, bounds.height))
    if !overflow && inkPixels <= 1 << 40 && Self.bytes(mask, sampled: inkPixels) <= maxMemory {
      return
    }
    let bytes = Self.estimatedBytes(mask: mask, radius: radius)
    guard bytes <= maxMemory else {
      throw EmbossError(
        "rendering the \(mask.width)x\(mask.height) image needs about \(Self.describe(bytes: bytes)) of memory, over the budget of \(Self.describe(bytes: maxMemory)) (raise it with --max-memory)"
      )
    }
  }
}
