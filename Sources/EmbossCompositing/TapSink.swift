import EmbossModel
import EmbossRaster
import EmbossSupport

/// Where a band's pixels go as a lookup plan finds their taps (`LookupPlan.band(_:into:)`):
/// kept as taps (`TapBand`, a lookup map's band, which a light change re-composites from), or
/// made into the composite's pixels at once (`ColorSink`, a render that keeps no map).
///
/// The plan calls, for each pixel of the band's rows in row-major order, exactly one of
/// `noInk()`, `flat()` or, after the pixel's groups, `endPixel(groupsSince:)`.
protocol TapSink {
  /// The groups so far: what `endPixel(groupsSince:)` counts the pixel's groups from.
  var groupMark: Int { get }
  /// Room for `pixels` pixels and `groups` groups.
  mutating func reserve(pixels: Int, groups: Int)
  /// A group of the pixel (see `TapBand.appendGroup`).
  mutating func appendGroup(
    weight: Float, at p: SIMD2<Float>, du: SIMD2<Float>, dv: SIMD2<Float>, maxTaps: Int,
    spread: SIMD2<Float>, rough: Float)
  /// A pixel with no ink.
  mutating func noInk()
  /// A pixel of a flat face among flat neighbours: the ball's center.
  mutating func flat()
  /// The end of an ink pixel whose groups were appended since `mark` (`groupMark` before).
  mutating func endPixel(groupsSince mark: Int)
}

extension ShadedMaterial.TapBand: TapSink {
  var groupMark: Int { groupWeights.count }

  mutating func reserve(pixels: Int, groups: Int) {
    groupCounts.reserveCapacity(pixels)
    groupWeights.reserveCapacity(groups)
    groupGrids.reserveCapacity(groups)
    groupLevels.reserveCapacity(groups)
    points.reserveCapacity(groups + groups / 2)
  }

  mutating func noInk() { groupCounts.append(0) }

  mutating func flat() { groupCounts.append(Self.flat) }

  mutating func endPixel(groupsSince mark: Int) {
    groupCounts.append(UInt8(groupWeights.count - mark))
  }
}

/// How the compositor stores a linear color (straight alpha): as it is, or as the 8-bit sRGB
/// codes a PNG holds.
protocol PixelStore: Sendable {
  associatedtype Pixel: Sendable
  func callAsFunction(_ color: SIMD4<Float>) -> Pixel
}

/// Linear colors, stored as they are.
struct LinearStore: PixelStore {
  @inline(__always)
  func callAsFunction(_ color: SIMD4<Float>) -> SIMD4<Float> { color }
}

/// 8-bit sRGB codes (`SRGB.codes8`) by the encoding table.
struct CodeStore: PixelStore {
  let table: UnsafeBufferPointerBox<UInt8>

  @inline(__always)
  func callAsFunction(_ color: SIMD4<Float>) -> SIMD4<UInt8> {
    SRGB.codes8(color, table: table.buffer)
  }
}

/// Where the compositor also stores the shape's 8-bit codes, beside the picture's.
///
/// Each ink pixel's (tinted) color with its coverage as its alpha, over a transparent
/// background, before a shadow or an occlusion is drawn: these are the codes (`SRGB.codes8`) of the
/// composite over `Background.transparent`, so a render that writes only codes engraves the
/// same bitmap as one that keeps the float shape.
struct ShapeCodes {
  /// The shape's pixel at index 0 (the band's first, or the ink bounds' first).
  let base: UnsafeMutablePointer<SIMD4<UInt8>>
  /// The encoding table (`SRGB.encode8Table`).
  let table: UnsafeBufferPointer<UInt8>

  /// The codes of no ink: the transparent background's.
  static let none = SIMD4<UInt8>.zero

  /// Stores pixel `i`: `rgb` with alpha `a`.
  @inline(__always)
  func store(_ i: Int, rgb: SIMD3<Float>, coverage a: Float) {
    (base + i).initialize(to: SRGB.codes8(SIMD4(rgb, a), table: table))
  }

  /// Stores pixel `i` as no ink.
  @inline(__always)
  func storeNone(_ i: Int) { (base + i).initialize(to: Self.none) }

  /// The same codes from pixel `offset` on.
  func advanced(by offset: Int) -> ShapeCodes { ShapeCodes(base: base + offset, table: table) }
}

/// The compositor's pixels of one band, made as the plan finds each pixel's groups: each
/// group's taps are read as it comes and only the pixel's running mean is kept, the same
/// arithmetic in the same order as `ShadedMaterial.inkColor` over a kept band, so the same
/// bytes without a band of taps ever stored.
struct ColorSink<Store: PixelStore>: TapSink {
  /// The compositor's constants (see `ShadedMaterial.composite`).
  struct Context {
    let ink: PixelRect
    let window: PixelRect
    let coverage: UnsafeBufferPointer<Float>
    let pyramid: BallPyramid.View
    let centers: UnsafeBufferPointer<Float>
    let maxLevel: Int
    let flatColor: SIMD4<Float>
    let fill: SIMD4<Float>
    let fillPixel: Store.Pixel
    /// The detail's tint and the layers, read in place (`withPayload`).
    let tinting: UnsafePointer<SurfaceDetail>?
    let depth: ShadedMaterial.SurfaceDepth.View?
    /// The shadow and occlusion, drawn on each pixel before it is stored.
    let layers: UnsafePointer<DrawnLayers.View>?
    let store: Store
    /// `tinting == nil && layers == nil`, found once: testing the optional at each pixel
    /// copies the detail (as passing it to `inkPixel` did).
    let untinted: Bool
    /// `layers != nil`, found once: binding the optional view at each pixel copies it, and
    /// costs the background pixels inside the ink bounds (about two million in case C) two
    /// thirds of the composite's time.
    let layered: Bool
    /// Whether the shape's codes are stored too (`shape` is then given).
    let shaped: Bool
    /// Pixels from a row of the output to the next (at least the ink bounds' width: the
    /// output may be wider, grown around them).
    let stride: Int
  }
  let context: Context
  /// The output's pixel at the band's first row, first column of the ink bounds.
  let out: UnsafeMutablePointer<Store.Pixel>
  /// The shape's codes, from the same pixel (with `context.shaped`).
  let shape: ShapeCodes?
  /// The next pixel: its index from `out`, its index from `shape` (whose rows are the ink
  /// bounds' width), its row (of the ink bounds) and column.
  var index = 0
  var shapeIndex = 0
  var row: Int
  var column = 0
  // The pixel's groups so far.
  var count = 0
  var sum = SIMD4<Float>.zero
  var total: Float = 0
  var first = SIMD4<Float>.zero
  var firstWeight: Float = 0
  /// The tint's cells, kept from pixel to pixel.
  var kept = SurfaceDetail.Kept()

  /// A sink for the band whose first row is `row` of the ink bounds, its pixels from `out`
  /// (and its shape's codes from `shape`'s first pixel, where the context is `shaped`).
  init(
    _ context: Context, row: Int, out: UnsafeMutablePointer<Store.Pixel>,
    shape: ShapeCodes? = nil
  ) {
    self.context = context
    self.row = row
    self.out = out
    self.shape = shape
  }

  var groupMark: Int { 0 }

  mutating func reserve(pixels: Int, groups: Int) {}

  @inline(__always)
  mutating func appendGroup(
    weight: Float, at p: SIMD2<Float>, du: SIMD2<Float>, dv: SIMD2<Float>, maxTaps: Int,
    spread: SIMD2<Float>, rough: Float
  ) {
    // A footprint at most 2 texels along each side, on a smooth surface: one tap on the
    // ball, as `TapBand.taps` finds it (level 0, 1 x 1), without the search.
    if rough <= 0 && spread == .zero && (du * du).sum() <= 4 && (dv * dv).sum() <= 4 {
      add(context.pyramid.sample(level: 0, x: p.x, y: p.y), weight: weight)
      return
    }
    let taps = ShadedMaterial.TapBand.taps(
      du: du, dv: dv, maxTaps: maxTaps, spread: spread, rough: rough,
      maxLevel: context.maxLevel)
    let color =
      taps.nu == 1 && taps.nv == 1
      ? context.pyramid.sample(level: taps.level, x: p.x, y: p.y)
      : ShadedMaterial.tapMean(
        level: taps.level, p: p, du: taps.du, dv: taps.dv, nu: taps.nu - 1, nv: taps.nv - 1,
        centers: context.centers, pyramid: context.pyramid)
    add(color, weight: weight)
  }

  /// A group's color into the pixel's running mean.
  @inline(__always)
  private mutating func add(_ color: SIMD4<Float>, weight: Float) {
    if count == 0 { (first, firstWeight) = (color, weight) }
    sum += weight * color
    total += weight
    count += 1
  }

  @inline(__always)
  mutating func noInk() {
    if context.shaped { shape.unsafelyUnwrapped.storeNone(shapeIndex) }
    if context.layered, let layers = context.layers {
      (out + index).initialize(
        to: context.store(
          layers.pointee.pixel(
            context.fill, coverage: 0, x: context.ink.x + column, y: context.ink.y + row)))
    } else {
      (out + index).initialize(to: context.fillPixel)
    }
    advance()
  }

  @inline(__always)
  mutating func flat() {
    finish(context.flatColor)
  }

  @inline(__always)
  mutating func endPixel(groupsSince mark: Int) {
    // One group of weight 1 (a pixel with one normal) is its own color, as in `inkColor`.
    let color =
      count == 1 && firstWeight == 1 ? first : (total > 0 ? sum / total : sum)
    (count, sum, total) = (0, .zero, 0)
    finish(color)
  }

  /// Stores an ink pixel's color: tinted by the detail, over the background by its coverage.
  @inline(__always)
  private mutating func finish(_ color: SIMD4<Float>) {
    let ink = context.ink
    let window = context.window
    let a = context.coverage[
      (ink.y + row - window.y) * window.width + ink.x + column - window.x]
    if context.untinted {
      // `inkPixel`'s untinted case, without passing it the absent detail (a copy).
      if context.shaped {
        shape.unsafelyUnwrapped.store(
          shapeIndex, rgb: SIMD3(color.x, color.y, color.z), coverage: a)
      }
      (out + index).initialize(
        to: context.store(
          ShadedMaterial.overFill(
            SIMD3(color.x, color.y, color.z), coverage: a, fill: context.fill)))
      advance()
      return
    }
    (out + index).initialize(
      to: ShadedMaterial.inkPixel(
        color, coverage: a, x: ink.x + column, y: ink.y + row, tinting: context.tinting,
        depth: context.depth, layers: context.layers, fill: context.fill, store: context.store,
        shape: context.shaped ? shape : nil, at: shapeIndex, kept: &kept))
    advance()
  }

  @inline(__always)
  private mutating func advance() {
    index += 1
    shapeIndex += 1
    column += 1
    if column == context.ink.width {
      column = 0
      row += 1
      index += context.stride - context.ink.width
    }
  }
}
