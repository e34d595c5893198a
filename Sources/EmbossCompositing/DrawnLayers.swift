import EmbossGeometry
import EmbossRaster

/// What is drawn over the composited letters on an opaque background, in the order the
/// float picture draws it (`Pipeline`): the letters' shadow, then the ambient occlusion.
///
/// A compositor that stores 8-bit codes draws them on each pixel as it stores it, so no
/// float picture is made: the same bytes as `DropShadow.apply` and `AmbientOcclusion.apply`
/// over the float composite.
public struct DrawnLayers: Sendable {
  /// The letters' shadow.
  public let shadow: DropShadow.Layer?
  /// The ambient occlusion.
  public let occlusion: AmbientOcclusion.Layer?

  /// `shadow` and `occlusion`; nil where both are (nothing is drawn).
  public init?(shadow: DropShadow.Layer?, occlusion: AmbientOcclusion.Layer?) {
    guard shadow != nil || occlusion != nil else { return nil }
    self.shadow = shadow
    self.occlusion = occlusion
  }

  /// The content of a picture whose content is `content`, grown to hold what the layers
  /// draw around it (within `canvas`).
  func content(_ content: PixelRect, canvas: PixelRect) -> PixelRect {
    var grown = shadow?.content(content, canvas: canvas) ?? content
    grown = occlusion?.content(grown, canvas: canvas) ?? grown
    return grown
  }

  /// Calls `body` with a raw view of the layers over a picture filled with `fill` (opaque)
  /// on `canvas`.
  func withView<R>(fill: SIMD4<Float>, canvas: PixelRect, _ body: (View) -> R) -> R {
    func occluded(_ shadow: DropShadow.Layer.View?) -> R {
      guard let occlusion else {
        return body(View(shadow: shadow, occlusion: nil, fill: fill, canvas: canvas))
      }
      return occlusion.withView {
        body(View(shadow: shadow, occlusion: $0, fill: fill, canvas: canvas))
      }
    }
    guard let shadow else { return occluded(nil) }
    return shadow.withView { occluded($0) }
  }

  /// The layers' raw view, for an inner loop (valid inside `withView` only).
  struct View {
    let shadow: DropShadow.Layer.View?
    let occlusion: AmbientOcclusion.Layer.View?
    /// The picture's fill (opaque).
    let fill: SIMD4<Float>
    let canvas: PixelRect

    /// Pixel `p` of the composited letters (of ink coverage `a`) at canvas position (`x`,
    /// `y`), with the layers drawn.
    @inline(__always)
    func pixel(_ p: SIMD4<Float>, coverage a: Float, x: Int, y: Int) -> SIMD4<Float> {
      var q = shadow?.pixel(p, coverage: a, x: x, y: y) ?? p
      if let occlusion {
        q = occlusion.pixel(q, x: x, y: y, opaque: true) { bx, by in
          // The picture before the occlusion beside an edge pixel, where there is no ink:
          // the fill, with the shadow drawn on the canvas (off it, the fill alone).
          guard canvas.contains(x: bx, y: by), let shadow else { return fill }
          return shadow.pixel(fill, coverage: 0, x: bx, y: by)
        }
      }
      return q
    }
  }
}
