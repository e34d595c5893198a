import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossRelief
import EmbossSupport

/// Ambient occlusion from the height field: where the relief around a point stands above it
/// (an inner corner, a narrow counter, the foot of a raised relief, the floor beside a lowered
/// relief's walls), less ambient light reaches it, and the picture darkens there.
///
/// The surroundings are the heights (in pixels: the 0...1 heights times the relief's
/// `scale`) blurred by a Gaussian of the occlusion's radius; a point below them by `d`
/// darkens by `strength * min(1, 1.6 * d / radius)`, an angle's worth of sky hidden. Convex
/// places (a plateau's edge, a stroke's top) are above their surroundings and keep their
/// light.
///
/// The ground is where there is no ink: a softened relief's blurred heights that spill past the
/// ink's edge are not surface there (the picture shows the background), so they count as 0.
/// Counted, they made the foot's darkening step back up where the field's region ended, a
/// hard line along the ink bounds a little outside the letters.
public enum AmbientOcclusion {
  /// `image` darkened where the relief occludes it (`mask`: the ink the relief was made from).
  ///
  /// Its content grows to the occluded part of the background, within the canvas. Over a
  /// transparent background the occlusion on the background is black at its strength, under
  /// the letters.
  public static func apply(
    to image: CanvasImage, height: HeightField, mask: CoverageMask, occlusion: OcclusionSpec,
    scale: Float, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let canvas = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
    guard occlusion.isVisible, scale > 0, !height.region.isEmpty else { return image }
    let radii = DropShadow.boxRadii(sigma: occlusion.radius)
    let field = height.region.grown(by: radii.reduce(0, +) + 1)
    // Heights in pixels over `field` (0 outside the height field's region and where there is
    // no ink), and their blur.
    var heights = [Float](repeating: 0, count: field.width * field.height)
    let region = height.region
    height.plane.pixels.withUnsafeBufferPointer { source in
      for y in 0..<region.height {
        let target = (y + region.y - field.y) * field.width + region.x - field.x
        for x in 0..<region.width where mask[region.x + x, region.y + y] > 0 {
          heights[target + x] = source[y * region.width + x] * scale
        }
      }
    }
    var around = heights
    DropShadow.blur(
      &around, width: field.width, height: field.height, radii: radii, parallelism: parallelism)

    let content = image.contentRect.union(field.intersection(canvas))
    let opaque = image.fill.w == 1
    let strength = occlusion.strength
    let gain = 1.6 / occlusion.radius
    return heights.withUnsafeBufferPointer { heights in
      let heights = UnsafeBufferPointerBox(heights)
      // The height of the ink in pixel (`x`, `y`) (index `i` in `field`), of coverage `a`:
      // its own on a whole pixel; on the ink's edge the heights' (bilinear) at the middle of
      // its ink, (1 - a) / 2 pixel in from the center along the coverage's gradient. The
      // center's own height is the foot's (or 0 outside), where a render at a larger size
      // sees the ink of that pixel up its bevel, lit: small text's edges came out twice as
      // dark as at 4x (glossy enamel at 16 px: 1x against 4x 31.8 dB, 34.3 with this).
      @Sendable func inkHeight(_ x: Int, _ y: Int, coverage a: Float, at i: Int) -> Float {
        let own = heights.buffer[i]
        guard a > 0, a < 1 else { return own }
        let g = SIMD2(mask[x + 1, y] - mask[x - 1, y], mask[x, y + 1] - mask[x, y - 1])
        let length = (g * g).sum().squareRoot()
        guard length > 1e-4 else { return own }
        // (In `field`'s continuous coordinates: pixel centers at half-integers.)
        let q =
          SIMD2(Float(x - field.x) + 0.5, Float(y - field.y) + 0.5) + g * ((1 - a) * 0.5 / length)
        let t = RGBAImage.bilinearTexels(width: field.width, height: field.height, x: q.x, y: q.y)
        let (h, w) = (heights.buffer, field.width)
        let top = h[t.y0 * w + t.x0] * (1 - t.tx) + h[t.y0 * w + t.x1] * t.tx
        let bottom = h[t.y1 * w + t.x0] * (1 - t.tx) + h[t.y1 * w + t.x1] * t.tx
        return top * (1 - t.ty) + bottom * t.ty
      }
      return around.withUnsafeBufferPointer { around in
        let around = UnsafeBufferPointerBox(around)
        return image.recomposited(over: content, parallelism: parallelism) { p, x, y in
          guard field.contains(x: x, y: y) else { return p }
          let i = (y - field.y) * field.width + x - field.x
          // The surface's occlusion (its own height) and the ground's (height 0), which
          // differ only on the ink's edge: there the ground's share of the pixel darkens as
          // the ground beside it does, so no light rim runs around the letters.
          let ground = strength * min(1, gain * max(around.buffer[i], 0))
          let a = mask[x, y]
          let depth = around.buffer[i] - inkHeight(x, y, coverage: a, at: i)
          let surface = depth > 0 ? strength * min(1, gain * depth) : 0
          guard ground > 0 || surface > 0 else { return p }
          if opaque {
            let o = a * surface + (1 - a) * ground
            return SIMD4(SIMD3(p.x, p.y, p.z) * (1 - o), 1)
          }
          // Black at the ground's occlusion under the pixel, whose own color darkens by the
          // surface's.
          let w = p.w + ground * (1 - p.w)
          return SIMD4(SIMD3(p.x, p.y, p.z) * ((1 - surface) * p.w / w), w)
        }
      }
    }
  }
}
