import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossSupport

/// What lies behind the letters when it is more than one opaque color: a plate (a flat
/// surface of its own material and detail, lit in the same room), a picture, or a
/// see-through color.
public enum Backdrop {
  /// The plate over the whole canvas, opaque, linear light.
  ///
  /// Each pixel is the plate's ball looked up by its normal (straight up, tilted by the
  /// plate's brushed, hammered or sandblasted detail and the camera, its footprint widened by
  /// the detail's spread), tinted by its grain or speckle.
  ///
  /// `ball` is the plate surface's lit ball under the material's lights (any size).
  /// `diffuse` is the plate's diffuse light (`Surface.diffuseLight` straight up: the same
  /// all over a flat plate): grain and speckle are the plate's own color, so they tint that
  /// light, and the reflection over it only as far as the surface is metallic (`metallic`):
  /// a polished stone's reflection lies over its crystals untinted. Brushed lines tint the
  /// whole color.
  ///
  /// Where `hidden` (the letters' ink) has a coverage of 1 the letters hide the plate
  /// wholly: those pixels are left transparent black, not made (a quarter of case B's
  /// canvas; the picture over the plate is the same to the bit, as `over` weighs them 0).
  public static func plate(
    _ plate: PlateSpec, ball: RGBAImage, width: Int, height: Int,
    camera: CameraSpec = .orthographic, diffuse: SIMD3<Float>, hidden: CoverageMask? = nil,
    parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    let pixels = [SIMD4<Float>](uninitializedCount: width * height) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      let out = UncheckedSendable(base)
      PlateRows.forEachBand(
        plate, ball: ball, width: width, height: height, camera: camera, diffuse: diffuse,
        hidden: hidden, parallelism: parallelism, bandSize: 16
      ) { rows, band, scratch in
        for y in band { rows.row(y, into: out.value + y * width, band: &scratch) }
      }
      count = width * height
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// `picture` over `plate(...)` (`under(_:layer:)`), each row of the plate made as the
  /// picture's row is put over it: the same pixels without a canvas of plate held (16 bytes
  /// a pixel: case B in the stone preset, 29 MiB).
  public static func under(
    _ picture: CanvasImage, plate: PlateSpec, ball: RGBAImage, camera: CameraSpec = .orthographic,
    diffuse: SIMD3<Float>, hidden: CoverageMask? = nil, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let (width, height) = (picture.width, picture.height)
    let pixels = [SIMD4<Float>](uninitializedCount: width * height) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      let out = UncheckedSendable(base)
      PictureRows.with(picture, shadow: nil, ink: nil) { source in
        PlateRows.forEachBand(
          plate, ball: ball, width: width, height: height, camera: camera, diffuse: diffuse,
          hidden: hidden, parallelism: parallelism, bandSize: 16
        ) { rows, band, scratch in
          let layer = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: max(width, 1))
          defer { layer.deallocate() }
          for y in band {
            rows.row(y, into: layer, band: &scratch)
            source.over(row: y, plate: layer, into: out.value + y * width, width: width)
          }
        }
      }
      count = width * height
    }
    return CanvasImage(
      width: width, height: height, fill: picture.fill,
      contentRect: PixelRect(x: 0, y: 0, width: width, height: height),
      content: RGBAImage(width: width, height: height, pixels: pixels))
  }

  /// `under(_:plate:...)` of `picture` with `shadow` drawn (as `DropShadow.apply` draws it,
  /// of `hidden`'s ink), with `occlusion` drawn over it as
  /// `AmbientOcclusion.Layer.apply(toInPlace:parallelism:)` draws it, each pixel stored as
  /// its 8-bit sRGB code (`SRGB.codes8`): the codes an 8-bit PNG stores of that float
  /// picture, without the canvas of floats (16 bytes a pixel: case B in the wood preset, 29
  /// MiB) or the picture grown for the shadow held.
  ///
  /// Each band of rows makes its rows of the picture over the plate as it goes, and with
  /// the occlusion, which reads a pixel's neighbours as they were before it, the row above
  /// its first and below its last too (a plate row depends on nothing but its place).
  public static func underCodes(
    _ picture: CanvasImage, plate: PlateSpec, ball: RGBAImage, camera: CameraSpec = .orthographic,
    diffuse: SIMD3<Float>, hidden: CoverageMask? = nil, shadow: DropShadow.Layer? = nil,
    occlusion: AmbientOcclusion.Layer?, parallelism: Parallelism = .allCores
  ) -> SRGBCanvas {
    precondition(shadow == nil || hidden != nil, "a shadow without the ink that casts it")
    let (width, height) = (picture.width, picture.height)
    let fill = picture.fill
    let canvas = PixelRect(x: 0, y: 0, width: width, height: height)
    // As `apply(toInPlace:)` reads the plated picture: its fill, and opaque by the fill.
    let opaque = fill.w == 1
    return SRGB.encode8Table.withUnsafeBufferPointer { table in
      let table = UnsafeBufferPointerBox(table)
      let codes = [SIMD4<UInt8>](uninitializedCount: width * height) { buffer, count in
        let out = SharedPointer(buffer)
        PictureRows.with(picture, shadow: shadow, ink: hidden) { source in
          AmbientOcclusion.Layer.withView(of: occlusion) { view in
            let view = UncheckedSendable(view)
            PlateRows.forEachBand(
              plate, ball: ball, width: width, height: height, camera: camera,
              diffuse: diffuse, hidden: hidden, parallelism: parallelism, bandSize: 32
            ) { rows, band, scratch in
              let storage = UnsafeMutablePointer<SIMD4<Float>>.allocate(
                capacity: 4 * max(width, 1))
              defer { storage.deallocate() }
              let layer = storage
              // Row `y` of the picture over the plate.
              func made(_ y: Int, into row: UnsafeMutablePointer<SIMD4<Float>>) {
                rows.row(y, into: layer, band: &scratch)
                source.over(row: y, plate: layer, into: row, width: width)
              }
              // The rows above, at and below the one stored.
              var (above, current, below) = (
                storage + width, storage + 2 * width, storage + 3 * width
              )
              guard let occlusion = view.value else {
                for y in band {
                  made(y, into: current)
                  for x in 0..<width {
                    out.initialize(y * width + x, to: SRGB.codes8(current[x], table: table.buffer))
                  }
                }
                return
              }
              if band.lowerBound > 0 { made(band.lowerBound - 1, into: above) }
              made(band.lowerBound, into: current)
              for y in band {
                if y + 1 < height { made(y + 1, into: below) }
                for x in 0..<width {
                  let q = occlusion.pixel(current[x], x: x, y: y, opaque: opaque) { bx, by in
                    guard canvas.contains(x: bx, y: by) else { return fill }
                    switch by - y {
                    case -1: return above[bx]
                    case 0: return current[bx]
                    default: return below[bx]
                    }
                  }
                  out.initialize(y * width + x, to: SRGB.codes8(q, table: table.buffer))
                }
                (above, current, below) = (current, below, above)
              }
            }
          }
        }
        count = width * height
      }
      // (Every pixel is content; the fill is the picture's, as its float canvas has it.)
      return SRGBCanvas(
        width: width, height: height, fill: SRGB.codes8(fill, table: table.buffer),
        contentRect: canvas, content: codes)
    }
  }

  /// A picture to put over the plate a row at a time, read raw (valid inside `with` only):
  /// its content, its fill elsewhere, and where given the letters' shadow drawn on it as
  /// `DropShadow.apply` draws it (of the ink's coverage).
  struct PictureRows: @unchecked Sendable {
    let source: UnsafeBufferPointer<SIMD4<Float>>
    let rect: PixelRect
    let fill: SIMD4<Float>
    let shadow: DropShadow.Layer.View?
    /// Where the shadowed picture differs from its fill (`DropShadow.apply`'s content).
    let shadowed: PixelRect
    let coverage: UnsafeBufferPointer<Float>
    let window: PixelRect

    /// Calls `body` with the rows of `picture`, `shadow` drawn of `ink`'s coverage.
    static func with<R>(
      _ picture: CanvasImage, shadow: DropShadow.Layer?, ink: CoverageMask?,
      _ body: (PictureRows) -> R
    ) -> R {
      let canvas = PixelRect(x: 0, y: 0, width: picture.width, height: picture.height)
      let rect = picture.contentRect
      let ink = ink ?? CoverageMask(plane: Plane(width: 0, height: 0))
      return picture.content.pixels.withUnsafeBufferPointer { source in
        ink.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
          DropShadow.Layer.withView(of: shadow) { view in
            body(
              PictureRows(
                source: source, rect: rect, fill: picture.fill, shadow: view,
                shadowed: shadow?.content(rect, canvas: canvas) ?? rect, coverage: coverage,
                window: ink.window))
          }
        }
      }
    }

    /// Row `y` (`width` pixels) of the picture over `plate`'s row, into `row`.
    @inline(__always)
    func over(
      row y: Int, plate: UnsafePointer<SIMD4<Float>>, into row: UnsafeMutablePointer<SIMD4<Float>>,
      width: Int
    ) {
      @inline(__always) func picture(_ x: Int) -> SIMD4<Float> {
        rect.contains(x: x, y: y) ? source[(y - rect.y) * rect.width + x - rect.x] : fill
      }
      // (The shadow's view bound once a row: binding it at each pixel copies it.)
      guard let drawn = shadow, y >= shadowed.y, y < shadowed.maxY else {
        for x in 0..<width { row[x] = Backdrop.over(picture(x), plate[x]) }
        return
      }
      for x in 0..<width {
        var p = picture(x)
        if shadowed.contains(x: x, y: y) {
          let a =
            window.contains(x: x, y: y)
            ? coverage[(y - window.y) * window.width + x - window.x] : 0
          p = drawn.pixel(p, coverage: a, x: x, y: y)
        }
        row[x] = Backdrop.over(p, plate[x])
      }
    }
  }

  /// The plate's pixels a row at a time (see `plate(...)`): what it reads, set up once.
  struct PlateRows {
    let width: Int
    let coverage: UnsafeBufferPointer<Float>
    let window: PixelRect
    let metallic: Float
    let middle: SIMD2<Float>
    /// The plate's detail, read in place (`withPayload`: binding it at each pixel copies it).
    let detail: UnsafePointer<SurfaceDetail>?
    let tints: Bool
    let ballWidth: Int
    let ballHeight: Int
    let texelsPerNormal: SIMD2<Float>
    let flat: SIMD4<Float>
    let tilts: Bool
    let maxLevel: Int
    let camera: CameraSpec
    let diffuse: SIMD3<Float>
    let pyramid: BallPyramid.View
    let centers: UnsafeBufferPointer<Float>

    /// Calls `body` with the rows of `plate` and each band of `bandSize` rows, in parallel
    /// (`with`, then the bands), and a band of groups the band's rows reuse for their storage.
    static func forEachBand(
      _ plate: PlateSpec, ball: RGBAImage, width: Int, height: Int, camera: CameraSpec,
      diffuse: SIMD3<Float>, hidden: CoverageMask?, parallelism: Parallelism, bandSize: Int,
      _ body: @Sendable (PlateRows, Range<Int>, inout ShadedMaterial.TapBand) -> Void
    ) {
      with(
        plate, ball: ball, width: width, height: height, camera: camera, diffuse: diffuse,
        hidden: hidden
      ) { rows in
        let rows = UncheckedSendable(rows)
        parallelism.forEachBand(height, bandSize: bandSize) { band in
          var scratch = ShadedMaterial.TapBand(maxLevel: rows.value.maxLevel)
          body(rows.value, band, &scratch)
        }
      }
    }

    /// Calls `body` with the rows of `plate` (valid inside the call only).
    static func with<R>(
      _ plate: PlateSpec, ball: RGBAImage, width: Int, height: Int, camera: CameraSpec,
      diffuse: SIMD3<Float>, hidden: CoverageMask?, _ body: (PlateRows) -> R
    ) -> R {
      // Bound once, read raw: binding the optional mask at each pixel copies it.
      let hiding = hidden ?? CoverageMask(plane: Plane(width: 0, height: 0))
      let detail = SurfaceDetail(plate.detail, base: plate.surface.base)
      let tilts = (detail?.tilts ?? false) || camera.isFinite
      let maxLevel = tilts ? BallPyramid.maxLevel(width: ball.width, height: ball.height) : 0
      let pyramid = BallPyramid(ball, maxLevel: maxLevel)
      let tints = detail?.tints ?? false
      return withPayload(of: detail) { detail in
        hiding.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
          pyramid.withView { view in
            ShadedMaterial.TapBand.cellCenters.withUnsafeBufferPointer { centers in
              body(
                PlateRows(
                  width: width, coverage: coverage, window: hiding.window,
                  metallic: plate.surface.metallic,
                  middle: SIMD2(Float(width), Float(height)) * 0.5, detail: detail,
                  tints: tints, ballWidth: ball.width, ballHeight: ball.height,
                  texelsPerNormal: SIMD2(Float(ball.width), Float(ball.height)) * 0.5,
                  flat: centerColor(ball), tilts: tilts, maxLevel: maxLevel, camera: camera,
                  diffuse: diffuse, pyramid: view, centers: centers))
            }
          }
        }
      }
    }

    /// Whether the letters hide pixel (`x`, `y`) wholly.
    @inline(__always)
    func covered(_ x: Int, _ y: Int) -> Bool {
      let (column, row) = (x - window.x, y - window.y)
      guard column >= 0, row >= 0, column < window.width, row < window.height else { return false }
      return coverage[row * window.width + column] >= 1
    }

    /// Row `y`'s `width` pixels into `out` (transparent black where hidden); `band` holds
    /// the row's groups (kept between rows for its storage).
    func row(
      _ y: Int, into out: UnsafeMutablePointer<SIMD4<Float>>, band: inout ShadedMaterial.TapBand
    ) {
      // One row's groups at a time: the lookup map's footprints, walked at once.
      if tilts {
        band = ShadedMaterial.TapBand(maxLevel: maxLevel)
        band.groupWeights.reserveCapacity(width)
        band.groupGrids.reserveCapacity(width)
        band.groupLevels.reserveCapacity(width)
        band.points.reserveCapacity(3 * width)
        // The detail's noise cells, kept from pixel to pixel along the row.
        var kept = SurfaceDetail.Kept()
        for x in 0..<width where !covered(x, y) {
          var o = detail?.pointee.normalOffset(x: x, y: y, kept: &kept) ?? NormalOffset()
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
          band.groupLevels.withUnsafeBufferPointer { levels in
            band.points.withUnsafeBufferPointer { points in
              var group = 0
              var point = 0
              // The speckle's and the grain's cells, kept from pixel to pixel along the row.
              var kept = SurfaceDetail.Kept()
              for x in 0..<width {
                guard !covered(x, y) else {
                  (out + x).initialize(to: .zero)
                  continue
                }
                var color =
                  tilts
                  ? ShadedMaterial.inkColor(
                    groups: 1, group: &group, point: &point, weights: weights,
                    grids: grids, levels: levels, points: points, centers: centers,
                    pyramid: pyramid) : flat
                if tints, let detail {
                  // The diffuse light tinted by the pigment, the reflection over it as far
                  // as the surface is a metal.
                  var rgb = SIMD3(color.x, color.y, color.z)
                  let p = detail.pointee.pigment(x: x, y: y, kept: &kept)
                  let reflected = pointwiseMax(rgb - diffuse, .zero)
                  rgb =
                    (rgb - reflected) * p
                    + reflected * (1 + metallic * (p - SIMD3(repeating: 1)))
                  if let brushing = detail.pointee.brushing {
                    rgb *= brushing.tint(x: x, y: y, corners: &kept.tintLines)
                  }
                  color = SIMD4(rgb, 1)
                }
                (out + x).initialize(to: SIMD4(color.x, color.y, color.z, 1))
              }
            }
          }
        }
      }
    }
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

  /// How a background picture covers the canvas.
  public enum Fit: String, CaseIterable, Sendable {
    /// Scaled to cover the whole canvas, centered, the overflow cropped.
    case fill
    /// Scaled to fit inside the canvas, centered, the rest the material's background.
    case fit
    /// At its own size, repeated from the top left corner.
    case tile
  }

  /// A picture behind the letters: linear light, straight alpha, and how it covers the
  /// canvas.
  public struct Picture: Sendable, Equatable {
    /// The picture.
    public var image: RGBAImage
    /// How it covers the canvas.
    public var fit: Fit

    /// A picture covering the canvas as `fit` says.
    public init(image: RGBAImage, fit: Fit) {
      self.image = image
      self.fit = fit
    }
  }

  /// The picture as a canvas-sized layer over `background` (straight alpha): scaled as its
  /// fit says, each canvas pixel the mean of up to 8 x 8 bilinear taps over its footprint in
  /// the picture (so a large photo shrunk to the canvas does not alias).
  public static func layer(
    _ picture: Picture, width: Int, height: Int, background: SIMD4<Float>,
    parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    let source = picture.image
    let (w, h) = (Float(source.width), Float(source.height))
    guard source.width > 0, source.height > 0 else {
      return RGBAImage(width: width, height: height, fill: background)
    }
    // Canvas pixels per picture pixel, and where the picture's corner lies on the canvas.
    let scale: Float
    switch picture.fit {
    case .fill: scale = max(Float(width) / w, Float(height) / h)
    case .fit: scale = min(Float(width) / w, Float(height) / h)
    case .tile: scale = 1
    }
    let origin =
      picture.fit == .tile
      ? SIMD2<Float>.zero : (SIMD2(Float(width), Float(height)) - SIMD2(w, h) * scale) * 0.5
    let taps = min(8, max(1, Int((1 / scale).rounded(.up))))
    let tile = picture.fit == .tile
    let pixels = [SIMD4<Float>](uninitializedCount: width * height) { buffer, count in
      let out = SharedPointer(buffer)
      source.pixels.withUnsafeBufferPointer { texels in
        let texels = UnsafeBufferPointerBox(texels)
        parallelism.forEachBand(height, bandSize: 32) { rows in
          for y in rows {
            for x in 0..<width {
              var sum = SIMD4<Float>.zero
              for j in 0..<taps {
                for i in 0..<taps {
                  let canvas = SIMD2(
                    Float(x) + (Float(i) + 0.5) / Float(taps),
                    Float(y) + (Float(j) + 0.5) / Float(taps))
                  var p = (canvas - origin) / scale
                  if tile {
                    p.x = p.x - (p.x / w).rounded(.down) * w
                    p.y = p.y - (p.y / h).rounded(.down) * h
                  } else if p.x < 0 || p.y < 0 || p.x >= w || p.y >= h {
                    continue
                  }
                  // Premultiplied, so transparent texels do not darken their neighbours.
                  let c = sampleClamped(texels.buffer, source.width, source.height, p)
                  sum += SIMD4(SIMD3(c.x, c.y, c.z) * c.w, c.w)
                }
              }
              let n = Float(taps * taps)
              // The picture's share of the pixel over the background.
              let a = sum.w / n
              let rgb = a > 0 ? SIMD3(sum.x, sum.y, sum.z) / sum.w : .zero
              out.initialize(y * width + x, to: over(SIMD4(rgb, a), background))
            }
          }
        }
      }
      count = width * height
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// Bilinear sample of `texels` at continuous position `p` (pixel centers at half
  /// integers), clamped to the edge.
  @inline(__always)
  static func sampleClamped(
    _ texels: UnsafeBufferPointer<SIMD4<Float>>, _ width: Int, _ height: Int, _ p: SIMD2<Float>
  ) -> SIMD4<Float> {
    let fx = min(max(p.x - 0.5, 0), Float(width - 1))
    let fy = min(max(p.y - 0.5, 0), Float(height - 1))
    let (x0, y0) = (Int(fx), Int(fy))
    let (x1, y1) = (min(x0 + 1, width - 1), min(y0 + 1, height - 1))
    let (tx, ty) = (fx - Float(x0), fy - Float(y0))
    let top = texels[y0 * width + x0] * (1 - tx) + texels[y0 * width + x1] * tx
    let bottom = texels[y1 * width + x0] * (1 - tx) + texels[y1 * width + x1] * tx
    return top * (1 - ty) + bottom * ty
  }

  /// `picture` (straight alpha, as composited over a transparent background) put over
  /// `layer`, a canvas-sized image (straight alpha): Porter and Duff's "over".
  public static func under(
    _ picture: CanvasImage, layer: RGBAImage, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    precondition(layer.width == picture.width && layer.height == picture.height, "layer size")
    let all = PixelRect(x: 0, y: 0, width: picture.width, height: picture.height)
    return layer.pixels.withUnsafeBufferPointer { layerPixels in
      let layerPixels = UnsafeBufferPointerBox(layerPixels)
      let width = picture.width
      return picture.recomposited(over: all, parallelism: parallelism) { p, x, y in
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
