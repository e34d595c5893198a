extension RenderLimits {
  /// The memory a render of `mask` with relief radius `radius` needs, estimated before the
  /// relief is made: every canvas pixel, and as sampled pixels the ink within the bevel's
  /// reach of an edge (at most all the ink), and the process's base.
  ///
  /// Measured whole-process
  /// peaks are 0.4 to 1 times the estimate: about 1 for dense small text (mostly edges), less
  /// for large letters (mostly plateau) and wide radii.
  public static func estimatedBytes(mask: CoverageMask, radius: Float) -> Int {
    var ink = 0
    var edge = 0
    for value in mask.plane.pixels where value > 0 {
      ink += 1
      if value < 1 { edge += 1 }
    }
    let reach = Int(radius.rounded(.up)) + 2
    let sampled = min(ink, edge.multipliedReportingOverflow(by: reach).partialValue)
    return baseBytes + mask.plane.pixels.count * bytesPerPixel + sampled * bytesPerSampledPixel
  }

  /// Throws when rendering `mask` would need more than the memory budget.
  public func checkRender(mask: CoverageMask, radius: Float) throws {
    let bytes = Self.estimatedBytes(mask: mask, radius: radius)
    guard bytes <= maxMemory else {
      throw EmbossError(
        "rendering the \(mask.width)x\(mask.height) image needs about \(Self.describe(bytes: bytes)) of memory, over the budget of \(Self.describe(bytes: maxMemory)) (raise it with --max-memory)"
      )
    }
  }
}
