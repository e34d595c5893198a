/// The shaded-material compositor (CIShadedMaterial's role): each pixel's normal, from the
/// height field's slopes times `scale`, picks its color from the shading image.
public enum ShadedMaterial {
  /// Unit normal of the height field at canvas pixel (x, y), in image space (x right, y down,
  /// z toward the viewer): normalize(-scale * dh/dx, -scale * dh/dy, 1), with the slopes
  /// taken by a 3x3 Sobel kernel (divided by 8, so a unit ramp has slope 1).
  ///
  /// `h` is the height plane, `(x, y)` a pixel whose 8 neighbours lie inside it.
  @inline(__always)
  static func normal(_ h: UnsafeBufferPointer<Float>, width w: Int, x: Int, y: Int, scale: Float)
    -> SIMD3<Float>
  {
    let i = y * w + x
    let tl = h[i - w - 1]
    let t = h[i - w]
    let tr = h[i - w + 1]
    let l = h[i - 1]
    let r = h[i + 1]
    let bl = h[i + w - 1]
    let b = h[i + w]
    let br = h[i + w + 1]
    let dx = ((tr + 2 * r + br) - (tl + 2 * l + bl)) * 0.125
    let dy = ((bl + 2 * b + br) - (tl + 2 * t + tr)) * 0.125
    return normalized(SIMD3(-scale * dx, -scale * dy, 1))
  }

  /// Where a normal looks up its color in a `width` x `height` shading image, in continuous
  /// pixel coordinates of that image (row 0 at its top).
  ///
  /// Core Image puts the lookup at `(normal.xy + 1) / 2 * size` with y pointing up; our
  /// normals have y pointing down and our shading image stores its top row first, so the
  /// two flips cancel: row = (n.y + 1) / 2 * size with the image-space n.y. This is the one
  /// place the y axis changes convention.
  @inline(__always)
  static func lookup(_ n: SIMD3<Float>, width: Int, height: Int) -> SIMD2<Float> {
    SIMD2((n.x + 1) * 0.5 * Float(width), (n.y + 1) * 0.5 * Float(height))
  }

  /// Where each pixel of the mask's ink bounds looks up its color: the part of compositing
  /// that depends on the relief (heights, scale) and the shading image's size, not its colors.
  public struct LookupMap: Sendable, Equatable {
    /// The ink bounds on the canvas; `uv` is row-major over it.
    public let rect: PixelRect
    /// Continuous coordinates in the shading image (see `lookup`).
    public let uv: [SIMD2<Float>]
    public let shadingWidth: Int
    public let shadingHeight: Int

    /// The shading image's pixels that bilinear lookups at `uv` read (row-major over the
    /// shading image): the only ones the composite needs colored.
    public func texelsRead(mask: CoverageMask) -> [Bool] {
      var read = [Bool](repeating: false, count: shadingWidth * shadingHeight)
      for row in 0..<rect.height {
        let y = rect.y + row
        for column in 0..<rect.width where mask.plane[rect.x + column, y] > 0 {
          let p = uv[row * rect.width + column]
          let fx = min(max(p.x - 0.5, 0), Float(shadingWidth - 1))
          let fy = min(max(p.y - 0.5, 0), Float(shadingHeight - 1))
          let x0 = Int(fx)
          let y0 = Int(fy)
          let x1 = min(x0 + 1, shadingWidth - 1)
          let y1 = min(y0 + 1, shadingHeight - 1)
          read[y0 * shadingWidth + x0] = true
          read[y0 * shadingWidth + x1] = true
          read[y1 * shadingWidth + x0] = true
          read[y1 * shadingWidth + x1] = true
        }
      }
      return read
    }
  }

  /// Computes every ink pixel's normal and its lookup coordinate.
  public static func lookupMap(
    height: HeightField, mask: CoverageMask, scale: Float, shadingWidth: Int, shadingHeight: Int,
    parallelism: Parallelism = .allCores
  ) -> LookupMap {
    let ink = mask.inkBounds.intersection(mask.plane.bounds)
    var uv = [SIMD2<Float>](repeating: .zero, count: ink.width * ink.height)
    let region = height.region
    uv.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      height.plane.pixels.withUnsafeBufferPointer { h in
        let h = UnsafeBufferPointerBox(h)
        mask.plane.pixels.withUnsafeBufferPointer { coverage in
          let coverage = UnsafeBufferPointerBox(coverage)
          parallelism.forEachBand(ink.height, bandSize: 16) { rows in
            for row in rows {
              let y = ink.y + row
              for column in 0..<ink.width {
                let x = ink.x + column
                guard coverage.buffer[y * mask.width + x] > 0 else { continue }
                let n = normal(
                  h.buffer, width: region.width, x: x - region.x, y: y - region.y, scale: scale)
                out[row * ink.width + column] = lookup(n, width: shadingWidth, height: shadingHeight)
              }
            }
          }
        }
      }
    }
    return LookupMap(rect: ink, uv: uv, shadingWidth: shadingWidth, shadingHeight: shadingHeight)
  }

  /// Composites the embossed image.
  ///
  /// - Returns: a canvas-sized image, linear light, straight alpha, whose content is the
  ///   mask's ink bounds (the only pixels that can differ from the background). Over a
  ///   background color every pixel is opaque (`color * coverage + background * (1 - coverage)`);
  ///   with a transparent background the color is the shaded color and alpha the coverage.
  public static func composite(
    height: HeightField, mask: CoverageMask, shading: RGBAImage, scale: Float,
    background: Background, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let map = lookupMap(
      height: height, mask: mask, scale: scale, shadingWidth: shading.width,
      shadingHeight: shading.height, parallelism: parallelism)
    return composite(map: map, mask: mask, shading: shading, background: background, parallelism: parallelism)
  }

  /// Composites from a lookup map (see `lookupMap`), whose shading size must be `shading`'s.
  public static func composite(
    map: LookupMap, mask: CoverageMask, shading: RGBAImage, background: Background,
    parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    precondition(map.shadingWidth == shading.width && map.shadingHeight == shading.height, "lookup map for another shading size")
    let fill: SIMD4<Float>
    switch background {
    case .transparent: fill = .zero
    case .color(let c): fill = SIMD4(c, 1)
    }
    let ink = shading.width > 0 ? map.rect : PixelRect(x: 0, y: 0, width: 0, height: 0)
    let (shadingWidth, shadingHeight) = (shading.width, shading.height)
    let background = SIMD3(fill.x, fill.y, fill.z)
    // Every pixel is written exactly once (background where the coverage is 0), so the
    // storage starts uninitialized instead of being filled first.
    let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: ink.width * ink.height) { buffer, count in
      let out = SharedPointer(buffer)
      map.uv.withUnsafeBufferPointer { uv in
        let uv = UnsafeBufferPointerBox(uv)
        mask.plane.pixels.withUnsafeBufferPointer { coverage in
          let coverage = UnsafeBufferPointerBox(coverage)
          shading.pixels.withUnsafeBufferPointer { ball in
            let ball = UnsafeBufferPointerBox(ball)
            parallelism.forEachBand(ink.height, bandSize: 16) { rows in
              for row in rows {
                let y = ink.y + row
                let source = y * mask.width + ink.x
                let target = row * ink.width
                for column in 0..<ink.width {
                  let a = coverage.buffer[source + column]
                  guard a > 0 else {
                    out.initialize(target + column, to: fill)
                    continue
                  }
                  let p = uv.buffer[target + column]
                  let color = RGBAImage.sampleBilinear(
                    ball.buffer, width: shadingWidth, height: shadingHeight, x: p.x, y: p.y)
                  let rgb = SIMD3(color.x, color.y, color.z)
                  out.initialize(
                    target + column,
                    to: fill.w == 0 ? SIMD4(rgb, a) : SIMD4(rgb * a + background * (1 - a), 1))
                }
              }
            }
          }
        }
      }
      count = ink.width * ink.height
    }
    let content = RGBAImage(width: ink.width, height: ink.height, pixels: pixels)
    return CanvasImage(width: mask.width, height: mask.height, fill: fill, contentRect: ink, content: content)
  }

  /// The normals as an image for inspection: (n + 1) / 2 in r, g, b (y down), alpha 1, over
  /// the whole canvas (flat (0, 0, 1) outside the region).
  public static func normalMap(height: HeightField, scale: Float) -> RGBAImage {
    var image = RGBAImage(
      width: height.canvasWidth, height: height.canvasHeight, fill: SIMD4(0.5, 0.5, 1, 1))
    let region = height.region
    height.plane.pixels.withUnsafeBufferPointer { h in
      for y in max(region.y + 1, 0)..<min(region.maxY - 1, height.canvasHeight) {
        for x in max(region.x + 1, 0)..<min(region.maxX - 1, height.canvasWidth) {
          let n = normal(h, width: region.width, x: x - region.x, y: y - region.y, scale: scale)
          image[x, y] = SIMD4((n + 1) * 0.5, 1)
        }
      }
    }
    return image
  }
}
