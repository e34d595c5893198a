import EmbossRaster
import EmbossSupport

/// An anti-aliased coverage mask: 0 outside the shape, 1 inside (linear area coverage).
///
/// Only a window of the canvas is stored (a text mask's: where its glyphs are drawn); every
/// pixel outside it is 0, so a large canvas around small ink costs the window alone.
public struct CoverageMask: Sendable, Equatable {
  /// The canvas width in pixels.
  public let width: Int
  /// The canvas height in pixels.
  public let height: Int
  /// The part of the canvas whose coverage is stored (inside the canvas; it holds the ink).
  public let window: PixelRect
  /// Coverage per pixel of `window`, row-major: 0 background, 1 ink, between on
  /// anti-aliased edges.
  public let windowCoverage: Plane
  /// The smallest rectangle holding every non-zero sample.
  public package(set) var inkBounds: PixelRect
  /// The ink's exact boundary when the mask was drawn from one (text); nil for a picture,
  /// whose boundary the relief traces from the coverage.
  public package(set) var outline: Outline?

  /// A mask over `plane` (the whole canvas), whose ink lies inside `inkBounds`, drawn from
  /// `outline` if given.
  public init(plane: Plane, inkBounds: PixelRect, outline: Outline? = nil) {
    width = plane.width
    height = plane.height
    window = plane.bounds
    windowCoverage = plane
    self.inkBounds = inkBounds
    self.outline = outline
  }

  /// A mask from any plane of coverages over the whole canvas; the ink bounds are measured.
  public init(plane: Plane) {
    self.init(plane: plane, inkBounds: plane.bounds(above: 0))
  }

  /// A `width` x `height` canvas's mask whose coverage is `coverage` over `window` (inside
  /// the canvas, of `coverage`'s size) and 0 elsewhere.
  public init(
    width: Int, height: Int, window: PixelRect, coverage: Plane, inkBounds: PixelRect,
    outline: Outline? = nil
  ) {
    precondition(
      coverage.width == window.width && coverage.height == window.height
        && window.isEmptyOrInside(width: width, height: height),
      "a mask's window must lie in its canvas and match its coverage")
    self.width = width
    self.height = height
    self.window = window
    windowCoverage = coverage
    self.inkBounds = inkBounds
    self.outline = outline
  }

  /// The coverage of the whole canvas (made for the asking where only a window is stored:
  /// read single pixels with the subscript).
  public var plane: Plane {
    if window == PixelRect(x: 0, y: 0, width: width, height: height) { return windowCoverage }
    var plane = Plane(width: width, height: height)
    for row in 0..<window.height {
      for column in 0..<window.width {
        plane[window.x + column, window.y + row] = windowCoverage[column, row]
      }
    }
    return plane
  }

  /// The coverage at canvas pixel (`x`, `y`): 0 outside the window (and the canvas).
  @inlinable
  public subscript(x: Int, y: Int) -> Float {
    let (column, row) = (x - window.x, y - window.y)
    guard column >= 0, row >= 0, column < window.width, row < window.height else { return 0 }
    return windowCoverage.pixels[row * window.width + column]
  }

  /// The mask mirrored left to right.
  public func mirrored() -> CoverageMask {
    let b = inkBounds
    let w = window
    return CoverageMask(
      width: width, height: height,
      window: w.width > 0
        ? PixelRect(x: width - w.x - w.width, y: w.y, width: w.width, height: w.height) : w,
      coverage: windowCoverage.mirrored(),
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
