import EmbossRaster
import EmbossSupport

/// An anti-aliased coverage mask: 0 outside the shape, 1 inside (linear area coverage).
public struct CoverageMask: Sendable, Equatable {
  /// Coverage per pixel: 0 background, 1 ink, between on anti-aliased edges.
  public package(set) var plane: Plane
  /// The smallest rectangle holding every non-zero sample.
  public package(set) var inkBounds: PixelRect
  /// The ink's exact boundary when the mask was drawn from one (text); nil for a picture,
  /// whose boundary the relief traces from the coverage.
  public package(set) var outline: Outline?

  /// A mask over `plane`, whose ink lies inside `inkBounds`, drawn from `outline` if given.
  public init(plane: Plane, inkBounds: PixelRect, outline: Outline? = nil) {
    self.plane = plane
    self.inkBounds = inkBounds
    self.outline = outline
  }

  /// A mask from any plane of coverages; the ink bounds are measured.
  public init(plane: Plane) {
    self.plane = plane
    self.inkBounds = plane.bounds(above: 0)
    self.outline = nil
  }

  /// The width in pixels.
  public var width: Int { plane.width }
  /// The height in pixels.
  public var height: Int { plane.height }

  /// The mask mirrored left to right.
  public func mirrored() -> CoverageMask {
    let b = inkBounds
    return CoverageMask(
      plane: plane.mirrored(),
      inkBounds: b.width > 0
        ? PixelRect(x: width - b.x - b.width, y: b.y, width: b.width, height: b.height) : b,
      outline: outline?.mirrored(width: width))
  }
}

extension Plane {
  /// The plane mirrored left to right.
  public func mirrored() -> Plane {
    var out = self
    for y in 0..<height {
      let row = y * width
      for x in 0..<width { out.pixels[row + x] = pixels[row + width - 1 - x] }
    }
    return out
  }
}
