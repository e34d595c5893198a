import EmbossModel
import EmbossRaster
import EmbossSupport

/// What lies behind the letters when it is more than one opaque color: a plate (a flat
/// surface of its own material and detail, lit in the same room), a picture, or a
/// see-through color.
public enum Backdrop {
  /// The plate over the whole canvas: each pixel the plate's ball looked up by its normal
  /// (straight up, tilted by the plate's brushed, hammered or sandblasted detail, its
  /// footprint widened by the detail's spread), tinted by its grain or speckle. Opaque,
  /// linear light.
  ///
  /// `ball` is the plate surface's lit ball under the material's lights (any size).
  public static func plate(
    _ plate: PlateSpec, ball: RGBAImage, width: Int, height: Int,
    camera: CameraSpec = .orthographic, parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    let middle = SIMD2(Float(width), Float(height)) * 0.5
    let detail = SurfaceDetail(plate.detail, base: plate.surface.base)
    let (ballWidth, ballHeight) = (ball.width, ball.height)
    let texelsPerNormal = SIMD2(Float(ballWidth), Float(ballHeight)) * 0.5
    let flat = centerColor(ball)
    let tilts = (detail?.tilts ?? false) || camera.isFinite
    let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: width * height) { buffer, count in
      let out = SharedPointer(buffer)
      ball.pixels.withUnsafeBufferPointer { texels in
        let texels = UnsafeBufferPointerBox(texels)
        parallelism.forEachBand(height, bandSize: 16) { rows in
          // One row's groups at a time: the lookup map's footprints, walked at once.
          var band = ShadedMaterial.TapBand()
          for y in rows {
            if tilts {
              band = ShadedMaterial.TapBand()
              band.groupWeights.reserveCapacity(width)
              band.groupGrids.reserveCapacity(width)
              band.points.reserveCapacity(3 * width)
              for x in 0..<width {
                var o = detail?.normalOffset(x: x, y: y) ?? NormalOffset()
                o.tilt += camera.tilt(at: SIMD2(Float(x) + 0.5, Float(y) + 0.5) - middle)
                let n = normalized(SIMD3(o.tilt.x, o.tilt.y, 1))
                band.appendGroup(
                  weight: 1, at: ShadedMaterial.lookup(n, width: ballWidth, height: ballHeight),
                  du: .zero, dv: .zero, maxTaps: 12, spread: o.spread * texelsPerNormal,
                  rough: o.rough * texelsPerNormal.x)
              }
            }
            band.groupWeights.withUnsafeBufferPointer { weights in
              band.groupGrids.withUnsafeBufferPointer { grids in
                band.points.withUnsafeBufferPointer { points in
                  ShadedMaterial.TapBand.cellCenters.withUnsafeBufferPointer { centers in
                    var group = 0
                    var point = 0
                    for x in 0..<width {
                      var color =
                        tilts
                        ? ShadedMaterial.inkColor(
                          groups: 1, group: &group, point: &point, weights: weights,
                          grids: grids, points: points, centers: centers, ball: texels.buffer,
                          width: ballWidth, height: ballHeight) : flat
                      if let detail, detail.tints {
                        let t = detail.tint(x: x, y: y)
                        color = SIMD4(color.x * t.x, color.y * t.y, color.z * t.z, 1)
                      }
                      out.initialize(y * width + x, to: SIMD4(color.x, color.y, color.z, 1))
                    }
                  }
                }
              }
            }
          }
        }
      }
      count = width * height
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// The color of a flat face looking straight up in `ball` (its center), opaque.
  public static func centerColor(_ ball: RGBAImage) -> SIMD4<Float> {
    let center = ShadedMaterial.lookup(SIMD3(0, 0, 1), width: ball.width, height: ball.height)
    let c = ball.pixels.withUnsafeBufferPointer {
      RGBAImage.sampleBilinear(
        $0, width: ball.width, height: ball.height, x: center.x, y: center.y)
    }
    return SIMD4(c.x, c.y, c.z, 1)
  }

  /// `picture` (straight alpha, as composited over a transparent background) put over
  /// `layer`, a canvas-sized image (straight alpha): Porter and Duff's "over".
  public static func under(
    _ picture: CanvasImage, layer: RGBAImage, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    precondition(layer.width == picture.width && layer.height == picture.height, "layer size")
    let all = PixelRect(x: 0, y: 0, width: picture.width, height: picture.height)
    let canvas = CanvasImage(
      width: picture.width, height: picture.height, fill: picture.fill,
      contentRect: picture.contentRect, content: picture.content)
    return layer.pixels.withUnsafeBufferPointer { layerPixels in
      let layerPixels = UnsafeBufferPointerBox(layerPixels)
      let width = picture.width
      return canvas.recomposited(over: all, parallelism: parallelism) { p, x, y in
        over(p, layerPixels.buffer[y * width + x])
      }
    }
  }

  /// `picture` put over a uniform straight-alpha `color` (a see-through background).
  public static func under(
    _ picture: CanvasImage, color: SIMD4<Float>, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let moved = CanvasImage(
      width: picture.width, height: picture.height, fill: over(picture.fill, color),
      contentRect: picture.contentRect, content: picture.content)
    return moved.recomposited(over: picture.contentRect, parallelism: parallelism) { p, _, _ in
      over(p, color)
    }
  }

  /// `top` over `bottom`, both straight alpha.
  @inline(__always)
  static func over(_ top: SIMD4<Float>, _ bottom: SIMD4<Float>) -> SIMD4<Float> {
    let a = top.w
    let b = bottom.w * (1 - a)
    let w = a + b
    guard w > 0 else { return .zero }
    let rgb = (SIMD3(top.x, top.y, top.z) * a + SIMD3(bottom.x, bottom.y, bottom.z) * b) / w
    return SIMD4(rgb, w)
  }
}
