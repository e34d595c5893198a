import EmbossSupport

/// An anti-aliased coverage mask: 0 outside the shape, 1 inside (linear area coverage).
public struct CoverageMask: Sendable, Equatable {
  public var plane: Plane
  /// The smallest rectangle holding every non-zero sample.
  public var inkBounds: PixelRect

  public init(plane: Plane, inkBounds: PixelRect) {
    self.plane = plane
    self.inkBounds = inkBounds
  }

  /// A mask from any plane of coverages; the ink bounds are measured.
  public init(plane: Plane) {
    self.plane = plane
    self.inkBounds = plane.bounds(above: 0)
  }

  public var width: Int { plane.width }
  public var height: Int { plane.height }
}
