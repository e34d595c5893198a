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
  ///
  /// With `relief` (the relief `height` was made of) and a field of at most `finePixels`,
  /// the occlusion is made on a grid `fineScale` times finer (see `fine`).
  public static func apply(
    to image: CanvasImage, height: HeightField, mask: CoverageMask, occlusion: OcclusionSpec,
    scale: Float, relief: ReliefSpec? = nil, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    Layer(
      height: height, mask: mask, occlusion: occlusion, scale: scale, relief: relief,
      parallelism: parallelism
    )?.apply(to: image, parallelism: parallelism) ?? image
  }

  /// `apply(to:...)` on `image` itself, in place where the occlusion adds no pixels around
  /// its content (see `Layer.apply(toInPlace:parallelism:)`): the same pixels.
  public static func apply(
    toInPlace image: inout CanvasImage, height: HeightField, mask: CoverageMask,
    occlusion: OcclusionSpec, scale: Float, relief: ReliefSpec? = nil,
    parallelism: Parallelism = .allCores
  ) {
    Layer(
      height: height, mask: mask, occlusion: occlusion, scale: scale, relief: relief,
      parallelism: parallelism
    )?.apply(toInPlace: &image, parallelism: parallelism)
  }

  /// The occlusion as a layer: each pixel's darkening over the relief's region (grown by the
  /// blur), for `apply`, or for a compositor that draws it as it stores each pixel (an 8-bit
  /// picture's codes, made without a float picture: the same bytes).
  public struct Layer: Sendable {
    /// Where the terms are held (no occlusion outside).
    public let field: PixelRect
    /// Per pixel of `field`, row-major: the surface's occlusion (its own height below its
    /// surroundings) and the ground's (height 0), which differ only on the ink's edge.
    let surface: [Float]
    let ground: [Float]
    let mask: CoverageMask

    /// The occlusion of `height` (made of `mask`'s ink; with `relief`, the relief it was made
    /// of, small text's on the finer grid: see `fine`); nil where it darkens nothing.
    public init?(
      height: HeightField, mask: CoverageMask, occlusion: OcclusionSpec, scale: Float,
      relief: ReliefSpec? = nil, parallelism: Parallelism = .allCores
    ) {
      guard occlusion.isVisible, scale > 0, !height.region.isEmpty else { return nil }
      let radii = DropShadow.boxRadii(sigma: occlusion.radius)
      let field = height.region.grown(by: radii.reduce(0, +) + 1)
      self.field = field
      self.mask = mask
      if let relief,
        let (surface, ground) = fine(
          mask: mask, relief: relief, occlusion: occlusion, scale: scale, over: field,
          parallelism: parallelism)
      {
        (self.surface, self.ground) = (surface, ground)
        return
      }
      (surface, ground) = AmbientOcclusion.terms(
        height: height, mask: mask, occlusion: occlusion, scale: scale, over: field,
        radii: radii, parallelism: parallelism)
    }

    /// A layer of the given terms over `field` (row-major), for `mask`'s ink.
    init(field: PixelRect, surface: [Float], ground: [Float], mask: CoverageMask) {
      precondition(surface.count == field.width * field.height && ground.count == surface.count)
      (self.field, self.surface, self.ground, self.mask) = (field, surface, ground, mask)
    }

    /// `image` with the layer drawn (see `AmbientOcclusion.apply`).
    func apply(to image: CanvasImage, parallelism: Parallelism) -> CanvasImage {
      let canvas = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
      let content = self.content(image.contentRect, canvas: canvas)
      let opaque = image.fill.w == 1
      let (old, fill) = (image.contentRect, image.fill)
      return image.content.pixels.withUnsafeBufferPointer { before in
        let before = UnsafeBufferPointerBox(before)
        return withView { view in
          let view = UncheckedSendable(view)
          return image.recomposited(over: content, parallelism: parallelism) { p, x, y in
            view.value.pixel(p, x: x, y: y, opaque: opaque) { bx, by in
              old.contains(x: bx, y: by)
                ? before.buffer[(by - old.y) * old.width + bx - old.x] : fill
            }
          }
        }
      }
    }

    /// `apply(to:parallelism:)` in place where the occlusion adds no pixels around the
    /// image's content (a picture over a plate or a backdrop: its content is the canvas),
    /// else as it: the same pixels without a second picture held (29 MiB on case B).
    ///
    /// An edge pixel reads its ground from a neighbour before the occlusion: each band of
    /// rows keeps its rows' colors from before as it goes (the row above, the row, and the
    /// row below where another band owns it, copied before any band starts).
    func apply(toInPlace image: inout CanvasImage, parallelism: Parallelism) {
      let canvas = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
      let rect = image.contentRect
      guard self.content(rect, canvas: canvas) == rect, !rect.isEmpty else {
        image = apply(to: image, parallelism: parallelism)
        return
      }
      let opaque = image.fill.w == 1
      let fill = image.fill
      let (width, height) = (rect.width, rect.height)
      let bandSize = 32
      let bands = (height + bandSize - 1) / bandSize
      image.content.pixels.withUnsafeMutableBufferPointer { pixels in
        guard let base = pixels.baseAddress else { return }
        // Each band's edges before any band changes them: the row above its first and the
        // row below its last (another band's rows).
        let edges = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 2 * bands * width)
        defer { edges.deallocate() }
        for band in 0..<bands {
          let (first, end) = (band * bandSize, min(height, (band + 1) * bandSize))
          if first > 0 {
            (edges + 2 * band * width).initialize(from: base + (first - 1) * width, count: width)
          }
          if end < height {
            (edges + (2 * band + 1) * width).initialize(from: base + end * width, count: width)
          }
        }
        let (out, edgeRows) = (UncheckedSendable(base), UncheckedSendable(edges))
        withView { view in
          let view = UncheckedSendable(view)
          parallelism.forEachBand(height, bandSize: bandSize) { rows in
            let band = rows.lowerBound / bandSize
            // The rows before the occlusion: the one above, this one (copied before it
            // changes) and a scratch for the new colors.
            let before = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 3 * width)
            defer { before.deallocate() }
            var (above, current) = (before, before + width)
            let made = before + 2 * width
            if rows.lowerBound > 0 {
              above.update(from: edgeRows.value + 2 * band * width, count: width)
            }
            for row in rows {
              let line = out.value + row * width
              current.update(from: line, count: width)
              let y = rect.y + row
              for column in 0..<width {
                let x = rect.x + column
                made[column] = view.value.pixel(current[column], x: x, y: y, opaque: opaque) {
                  bx, by in
                  guard rect.contains(x: bx, y: by) else { return fill }
                  let c = bx - rect.x
                  switch by - y {
                  case -1: return above[c]
                  case 0: return current[c]
                  default:
                    return row + 1 < rows.upperBound
                      ? line[width + c] : edgeRows.value[(2 * band + 1) * width + c]
                  }
                }
              }
              line.update(from: made, count: width)
              swap(&above, &current)
            }
          }
        }
      }
    }

    /// The content of a picture whose content is `content`, grown to the occluded part of
    /// the background (within `canvas`).
    public func content(_ content: PixelRect, canvas: PixelRect) -> PixelRect {
      content.union(field.intersection(canvas))
    }

    /// Calls `body` with a raw view of the layer.
    func withView<R>(_ body: (View) -> R) -> R {
      surface.withUnsafeBufferPointer { surface in
        ground.withUnsafeBufferPointer { ground in
          mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
            body(
              View(
                surface: surface, ground: ground, field: field, coverage: coverage,
                window: mask.window))
          }
        }
      }
    }

    /// Calls `body` with a raw view of `layer`, or nil without one.
    static func withView<R>(of layer: Layer?, _ body: (View?) -> R) -> R {
      guard let layer else { return body(nil) }
      return layer.withView { body($0) }
    }

    /// A layer's raw view, for an inner loop (valid inside `withView` only).
    struct View {
      let surface: UnsafeBufferPointer<Float>
      let ground: UnsafeBufferPointer<Float>
      let field: PixelRect
      /// The mask's coverage over its window (raw: a view copied per pixel must not retain
      /// the mask's arrays, which cost a compositor 3 times its time).
      let coverage: UnsafeBufferPointer<Float>
      let window: PixelRect

      /// The coverage at canvas pixel (`x`, `y`), as `CoverageMask`'s subscript reads it: 0
      /// outside the window.
      @inline(__always)
      func mask(_ x: Int, _ y: Int) -> Float {
        let (column, row) = (x - window.x, y - window.y)
        guard column >= 0, row >= 0, column < window.width, row < window.height else { return 0 }
        return coverage[row * window.width + column]
      }

      /// Pixel `p` of the picture (straight alpha) at canvas position (`x`, `y`), darkened
      /// by its surface's and its ground's occlusion; `opaque`: the picture's fill is.
      ///
      /// In an opaque pixel on the ink's edge the ink darkens by the surface's occlusion and
      /// the ground by the ground's, the ground's color (`beside(x, y)`, the picture before
      /// the occlusion) read from the pixel beside it with the least ink, when that has
      /// none. Darkening the whole pixel by the mean of the two (its color does not tell ink
      /// from ground) left a light rim on occluded ink over a dark ground and a dark one over
      /// a light ground: glossy enamel at 24 px, 1x against 4x 36.1 -> 40.1 dB.
      @inline(__always)
      func pixel(
        _ p: SIMD4<Float>, x: Int, y: Int, opaque: Bool,
        beside: (Int, Int) -> SIMD4<Float>
      ) -> SIMD4<Float> {
        guard field.contains(x: x, y: y) else { return p }
        let a = mask(x, y)
        let i = (y - field.y) * field.width + x - field.x
        let (s, g) = (surface[i], ground[i])
        guard opaque || p.w >= 1, a > 0, a < 1, s != g else {
          return occluded(p, coverage: a, surface: s, ground: g, opaque: opaque)
        }
        var least = a
        var next = SIMD2(0, 0)
        for d in neighbours where mask(x + d.x, y + d.y) < least {
          least = mask(x + d.x, y + d.y)
          next = d
        }
        guard least <= 0 else {
          return occluded(p, coverage: a, surface: s, ground: g, opaque: opaque)
        }
        let q = beside(x + next.x, y + next.y)
        let rgb = SIMD3(p.x, p.y, p.z)
        let under = (1 - a) * SIMD3(q.x, q.y, q.z)
        return SIMD4(rgb - (rgb - under) * s - under * g, 1)
      }
    }
  }

  /// The surface's and the ground's occlusion of each pixel of `field` on the pixel grid.
  ///
  /// The heights in pixels over `field` (0 outside the height field's region and where
  /// there is no ink) are blurred by `radii`; a pixel below its blur by `d` darkens by
  /// `strength * min(1, 1.6 * d / radius)`, its ground by the blur's own height.
  static func terms(
    height: HeightField, mask: CoverageMask, occlusion: OcclusionSpec, scale: Float,
    over field: PixelRect, radii: [Int], parallelism: Parallelism
  ) -> (surface: [Float], ground: [Float]) {
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
    let strength = occlusion.strength
    let gain = 1.6 / occlusion.radius
    let count = field.width * field.height
    var surface = [Float](repeating: 0, count: count)
    // The ground's occlusion takes the blurred heights' place (each read once, at its own
    // pixel, before it is written): one field-sized array less at the peak.
    var ground = consume around
    heights.withUnsafeBufferPointer { heights in
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
      surface.withUnsafeMutableBufferPointer { surface in
        let surface = SharedPointer(surface)
        ground.withUnsafeMutableBufferPointer { ground in
          let ground = SharedPointer(ground)
          parallelism.forEachBand(field.height, bandSize: 16) { rows in
            for row in rows {
              for column in 0..<field.width {
                let (x, y) = (field.x + column, field.y + row)
                let i = row * field.width + column
                let a = mask[x, y]
                // The blurred height here (`ground` holds it until it is written).
                let around = ground[i]
                // The surface's occlusion (its own height) and the ground's (height 0),
                // which differ only on the ink's edge: there the ground's share of the
                // pixel darkens as the ground beside it does, so no light rim runs around
                // the letters.
                ground[i] = strength * min(1, gain * max(around, 0))
                let depth = around - inkHeight(x, y, coverage: a, at: i)
                surface[i] = depth > 0 ? strength * min(1, gain * depth) : 0
              }
            }
          }
        }
      }
    }
    return (surface, ground)
  }

  /// The eight neighbours of a pixel, in the order an edge pixel's ground is looked for.
  static let neighbours: [SIMD2<Int>] = [
    SIMD2(-1, 0), SIMD2(1, 0), SIMD2(0, -1), SIMD2(0, 1), SIMD2(-1, -1), SIMD2(1, -1),
    SIMD2(-1, 1), SIMD2(1, 1),
  ]

  /// Pixel `p` (of coverage `a`) darkened by its surface's occlusion `surface` and its
  /// ground's `ground`.
  @inline(__always)
  static func occluded(
    _ p: SIMD4<Float>, coverage a: Float, surface: Float, ground: Float, opaque: Bool
  ) -> SIMD4<Float> {
    guard ground > 0 || surface > 0 else { return p }
    // (An opaque pixel over a see-through fill: a plate or a picture laid under the letters.)
    if opaque || p.w >= 1 {
      let o = a * surface + (1 - a) * ground
      return SIMD4(SIMD3(p.x, p.y, p.z) * (1 - o), 1)
    }
    // Black at the ground's occlusion under the pixel, whose own color darkens by the
    // surface's.
    let w = p.w + ground * (1 - p.w)
    return SIMD4(SIMD3(p.x, p.y, p.z) * ((1 - surface) * p.w / w), w)
  }

  /// How many times finer than the pixels the occlusion of small text is made (`fine`).
  static let fineScale = HeightField.fineScale
  /// The most pixels an occlusion's field may have to be made on the finer grid.
  static let finePixels = DropShadow.finePixels

  /// The surface's and the ground's occlusion of each pixel of `field` as a render
  /// `fineScale` times the size makes them, seen at this size.
  ///
  /// The relief's heights at the
  /// finer grid's nodes (from the exact outline), blurred there, each node's occlusion as
  /// `apply` finds a pixel's, and each pixel's surface the mean over its nodes' ink
  /// (weighted by it), its ground the mean over the rest. Nil over `finePixels`, for an
  /// inflated relief (solved, not bevelled) or a mask without an outline.
  ///
  /// On the pixel grid a stroke two pixels wide has two heights across it and its blur
  /// (the occlusion's radius, under a pixel) is rounded to a box: small carved text (stone
  /// at 16 px) came out darker than at 4x, 1x against 4x 3 dB lower than without occlusion.
  static func fine(
    mask: CoverageMask, relief: ReliefSpec, occlusion: OcclusionSpec, scale: Float,
    over field: PixelRect, parallelism: Parallelism
  ) -> (surface: [Float], ground: [Float])? {
    guard field.width * field.height <= finePixels, relief.profile != .inflated,
      let outline = mask.outline
    else { return nil }
    let n = fineScale
    let fine = PixelRect(
      x: field.x * n, y: field.y * n, width: field.width * n, height: field.height * n)
    let grown = outline.scaled(by: Float(n))
    let ink = grown.areaCoverage(region: fine).pixels
    var heights = HeightField.fineHeights(
      outline: grown, ink: ink, relief: relief, over: fine, parallelism: parallelism)
    // Heights in pixels (of this size), and their blur by the radius in nodes.
    for i in heights.indices { heights[i] *= scale }
    var around = heights
    DropShadow.blur(
      &around, width: fine.width, height: fine.height,
      radii: DropShadow.boxRadii(sigma: occlusion.radius * Float(n)), parallelism: parallelism)
    let strength = occlusion.strength
    let gain = 1.6 / occlusion.radius
    var surface = [Float](repeating: 0, count: field.width * field.height)
    var ground = surface
    heights.withUnsafeBufferPointer { heights in
      let heights = UnsafeBufferPointerBox(heights)
      around.withUnsafeBufferPointer { around in
        let around = UnsafeBufferPointerBox(around)
        surface.withUnsafeMutableBufferPointer { surface in
          let surface = SharedPointer(surface)
          ground.withUnsafeMutableBufferPointer { ground in
            let ground = SharedPointer(ground)
            parallelism.forEachBand(field.height, bandSize: 16) { rows in
              for y in rows {
                for x in 0..<field.width {
                  var (inked, inkTotal, open, openTotal): (Float, Float, Float, Float) = (
                    0, 0, 0, 0
                  )
                  for j in 0..<n {
                    let row = (y * n + j) * fine.width + x * n
                    for i in 0..<n {
                      let k = row + i
                      let c = ink[k] > HeightField.traceOfInk ? ink[k] : 0
                      let up = around.buffer[k]
                      let depth = up - heights.buffer[k]
                      inked += c * (depth > 0 ? strength * min(1, gain * depth) : 0)
                      inkTotal += c
                      open += (1 - c) * strength * min(1, gain * max(up, 0))
                      openTotal += 1 - c
                    }
                  }
                  surface[y * field.width + x] = inkTotal > 0 ? inked / inkTotal : 0
                  ground[y * field.width + x] = openTotal > 0 ? open / openTotal : 0
                }
              }
            }
          }
        }
      }
    }
    return (surface, ground)
  }
}
