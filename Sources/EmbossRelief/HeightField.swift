import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossSupport

/// Slopes at points inside a pixel, for pixels whose normal changes too fast for one sample
/// (the mask's edge, creases where two walls meet, the mitres of a chisel).
public struct SubSamples: Sendable, Equatable {
  /// Samples per side of a pixel: 4 x 4 points at the centers of a 4 x 4 grid.
  public static let perSide = 4
  /// Samples per side of a pixel on a bevel narrower than `Bevel.finePerSideRadius`: 8 x 8
  /// points.
  public static let finePerSide = 8
  /// Region pixel indices (row-major), ascending.
  public var pixels: [Int32] = []
  /// Pixel k's slopes are `slopes[offsets[k]..<offsets[k + 1]]`: 16 in row-major order of the
  /// 4 x 4 grid, or 64 of the 8 x 8 grid on a narrow bevel (`finePerSide`) (zero, with
  /// weight 0, for cells with no ink); or 1, the slope just inside the
  /// edge, for a pixel whose ink is a sliver no cell reaches; or `stripCount`, a strip: a
  /// pixel whose slope changes only across the edge (see `Bevel.appendStrip`), as
  /// `stripBins` slopes at equal steps of distance across its ink, each weighted by the share
  /// of the pixel at those distances, then the turn of the slope's direction across the
  /// pixel along the edge, in radians (in x; y and its weight 0).
  public var offsets: [Int32] = [0]
  /// A strip's bins of distance (see `offsets`).
  public static let stripBins = 8
  /// A strip's entries: its bins and its turn.
  public static let stripCount = stripBins + 1
  /// The sub-samples' slopes (dh/dx, dh/dy); see `offsets`.
  public var slopes: [SIMD2<Float>] = []
  /// The share (0...1) of each sample's cell that is ink: its weight in the pixel's color.
  public var weights: [Float] = []

  /// How many pixels are sub-sampled.
  public var count: Int { pixels.count }

  /// Appends pixel `pixel` as a strip: the ink's distances `low...high` along unit
  /// `direction` (the pixel's center at `center`) in `stripBins` equal bins, each weighted by
  /// the share of the pixel at those distances (`Bevel.pixelShare`) and sloped by `slope` at
  /// its middle, then `turn`.
  @inline(__always)
  mutating func appendStrip(
    pixel: Int32, low: Float, high: Float, center: Float, direction: SIMD2<Float>, turn: Float,
    slope: (Float) -> SIMD2<Float>
  ) {
    let bins = Self.stripBins
    let step = (high - low) / Float(bins)
    var below = Bevel.pixelShare(below: low - center, direction: direction)
    for k in 0..<bins {
      let start = low + step * Float(k)
      let end = k == bins - 1 ? high : start + step
      let share = Bevel.pixelShare(below: end - center, direction: direction)
      slopes.append(slope((start + end) * 0.5))
      weights.append(max(share - below, 0))
      below = share
    }
    slopes.append(SIMD2(turn, 0))
    weights.append(0)
    pixels.append(pixel)
    offsets.append(Int32(slopes.count))
  }

  mutating func append(_ other: SubSamples) {
    let base = Int32(slopes.count)
    pixels += other.pixels
    for offset in other.offsets.dropFirst() { offsets.append(offset + base) }
    slopes += other.slopes
    weights += other.weights
  }
}

/// A height field over a canvas: 0 on the mask edge rising to 1 (raised) or -1 (lowered) on
/// the plateau, and 0 outside the mask, with the slopes its normals come from.
///
/// Only `region`
/// (the ink bounds grown by one pixel) is stored; every height outside it is 0.
public struct HeightField: Sendable, Equatable {
  /// The canvas width in pixels.
  public let canvasWidth: Int
  /// The canvas height in pixels.
  public let canvasHeight: Int
  /// Where heights can be non-zero, in canvas pixels; may reach one pixel past the canvas.
  public let region: PixelRect
  /// Heights for `region`, row-major.
  public let plane: Plane
  /// The slope (dh/dx, dh/dy, x right, y down, of the 0...1 heights per pixel) at the center
  /// of each pixel of `region`: the profile's derivative along the direction away from the
  /// nearest edge point.
  ///
  /// Zero outside the mask and on the plateau.
  public let slopes: [SIMD2<Float>]
  /// Pixels whose slope varies within them, sampled 4 x 4.
  public let samples: SubSamples

  /// The height at canvas pixel (x, y): 0 outside the region.
  @inline(__always)
  public func height(x: Int, y: Int) -> Float {
    plane.value(x: x - region.x, y: y - region.y)
  }

  /// The slope at canvas pixel (x, y): zero outside the region.
  public func slope(x: Int, y: Int) -> SIMD2<Float> {
    let rx = x - region.x
    let ry = y - region.y
    guard rx >= 0, ry >= 0, rx < region.width, ry < region.height else { return .zero }
    return slopes[ry * region.width + rx]
  }

  /// The whole canvas as a plane (for writing the stage out).
  public func canvasPlane() -> Plane {
    var out = Plane(width: canvasWidth, height: canvasHeight)
    let visible = region.intersection(out.bounds)
    for y in visible.y..<visible.maxY {
      for x in visible.x..<visible.maxX { out[x, y] = height(x: x, y: y) }
    }
    return out
  }

  /// How much the profile's slope (per unit of the radius) may change across a pixel before
  /// the pixel is sampled 4 x 4.
  static let steepChange: Float = 0.25
  /// The least bend of a bevel's slope at its plateau that sub-samples the pixels across it.
  ///
  /// It is the slope half a pixel below the plateau (`Bevel.topKink`). A round bevel's slope
  /// there is about 0.5 / radius, so this sub-samples the top of round bevels up to about 11
  /// pixels wide. Measured 1x against 4x ("Quartz Wave 9@" at 40 px, radius 2.25, chrome):
  /// 31.8 dB without, 35.3 dB with ("Bramble & Fox" at 96 px, radius 5.4: 34.6 and 38.5).
  static let topChange: Float = 0.045

  /// Rows of the region shaded together: their distances are scanned into a buffer of the
  /// band's own (with a row more on each side), so memory follows the band, not the region.
  static let bandRows = 32

  /// Builds the relief of `mask` (CIHeightFieldFromMask's role) from the ink's exact
  /// boundary: the mask's outline (text: the glyphs' own outlines), or for a picture the
  /// coverage's 0.5 iso-line traced with sub-pixel vertices.
  ///
  /// Distances are exact to that outline (`OutlineDistance`: each piece's and each joint's
  /// region is scan-converted, so only pixels within the radius of the outline are touched
  /// and the plateau is filled). Heights follow `relief.profile` over `relief.radius`. A
  /// pixel's slope is the profile's derivative at its distance along the direction of its
  /// nearest feature: a straight edge gives one normal to a whole face, a curve turns it
  /// smoothly (the curve's own normals, not its pieces'), a corner turns it around the
  /// corner. Pixels whose nearest feature changes inside them (creases, mitres, the
  /// medial axis of a thin stroke), that hold the top edge of a chisel or the ink's edge get
  /// 4 x 4 sub-pixel samples, each from its own nearest feature, as a render at 4x the size
  /// would see them; those of the ink's edge (and beside it on a steep bevel) where one
  /// smooth run of the outline is nearest throughout get a strip instead, their slopes in
  /// steps of distance across the pixel (see `SubSamples`). With `soften`, the heights are blurred by a Gaussian of that standard
  /// deviation, and so are the slopes, each pixel's the mean over its area (its sub-samples'
  /// where it has them), an edge pixel's then read at the middle of its ink; the field then
  /// has no sub-samples (it is smooth). An empty mask gives an empty region. The result does
  /// not depend on the thread count. Without `subSamples` no pixel is sampled 4 x 4 (heights
  /// alone, for a mesh).
  public static func make(
    mask: CoverageMask, relief: ReliefSpec, subSamples: Bool = true,
    parallelism: Parallelism = .allCores
  ) -> HeightField {
    let bands = Bands(mask: mask, relief: relief, subSamples: subSamples)
    let region = bands.region
    let soften = relief.effectiveSoften
    let count = region.width * region.height
    guard count > 0 else {
      return HeightField(
        canvasWidth: mask.width, canvasHeight: mask.height, region: region,
        plane: Plane(width: region.width, height: region.height), slopes: [],
        samples: SubSamples())
    }
    var heights: [Float]
    var slopes: [SIMD2<Float>]
    var samples = SubSamples()
    if relief.profile == .inflated, let geometry = bands.geometry {
      // Swollen: one solve over the whole shape (see `Inflation`).
      (heights, slopes, samples) = Inflation.field(
        geometry: geometry, mask: mask, region: region, radius: relief.radius,
        profile: relief.profile, sign: relief.direction == .raised ? 1 : -1,
        subSamples: subSamples, cellMeans: soften > 0, parallelism: parallelism)
    } else {
      // Heights and slopes are written once per pixel by their band: no need to zero them.
      heights = [Float](uninitializedCount: count) { $1 = count }
      slopes = [SIMD2<Float>](uninitializedCount: count) { $1 = count }
      var bandSamples = [SubSamples](
        repeating: SubSamples(), count: (region.height + bandRows - 1) / bandRows)
      heights.withUnsafeMutableBufferPointer { heightOut in
        let heightOut = SharedPointer(heightOut)
        slopes.withUnsafeMutableBufferPointer { slopeOut in
          let slopeOut = SharedPointer(slopeOut)
          bandSamples.withUnsafeMutableBufferPointer { samplesOut in
            let samplesOut = SharedPointer(samplesOut)
            parallelism.forEachBand(region.height, bandSize: bandRows) { rows in
              samplesOut[rows.lowerBound / bandRows] = bands.shade(
                rows: rows, heights: heightOut.buffer, slopes: slopeOut.buffer, origin: 0)
            }
          }
        }
      }
      // Room for all of them first (growing would copy and touch fresh pages), each band let
      // go once it is in.
      samples.pixels.reserveCapacity(bandSamples.reduce(0) { $0 + $1.pixels.count })
      samples.offsets.reserveCapacity(bandSamples.reduce(1) { $0 + $1.pixels.count })
      samples.slopes.reserveCapacity(bandSamples.reduce(0) { $0 + $1.slopes.count })
      samples.weights.reserveCapacity(bandSamples.reduce(0) { $0 + $1.weights.count })
      for band in bandSamples.indices {
        samples.append(bandSamples[band])
        bandSamples[band] = SubSamples()
      }
    }
    var plane = Plane(width: region.width, height: region.height, pixels: heights)
    if subSamples && softensOnFineGrid(mask: mask, relief: relief),
      let geometry = bands.geometry, let bevel = bands.bevel
    {
      if soften > 0 {
        plane = GaussianBlur.apply(plane, sigma: soften, parallelism: parallelism)
      }
      (slopes, samples) = fineSoftened(
        geometry: geometry, bevel: bevel, mask: mask, region: region, blur: relief.blur,
        parallelism: parallelism)
    } else if soften > 0 {
      plane = GaussianBlur.apply(plane, sigma: soften, parallelism: parallelism)
      if subSamples {
        let blurred = Self.blurred(
          Self.areaMeans(consume slopes, samples: samples, mask: mask, region: region),
          width: region.width, height: region.height, sigma: soften, parallelism: parallelism)
        slopes = Self.atInk(blurred, samples: samples, width: region.width)
      } else {
        slopes = Self.differences(plane)
      }
      samples = SubSamples()
    }
    return HeightField(
      canvasWidth: mask.width, canvasHeight: mask.height, region: region, plane: plane,
      slopes: slopes, samples: samples)
  }

  /// The relief of a mask made any band of rows at a time, each band's the same values as
  /// the whole field's there (`make` without `soften`, which blurs the whole field): a
  /// render that composites as it goes makes each band's relief as it needs it and never
  /// holds the whole field.
  public struct Bands: Sendable {
    /// The canvas width in pixels.
    let canvasWidth: Int
    /// The canvas height in pixels.
    let canvasHeight: Int
    /// The whole field's region (see `HeightField.region`).
    public let region: PixelRect
    /// The distance core over the ink's outline (nil for an empty region).
    let geometry: OutlineDistance?
    /// The profile over the distances.
    let bevel: Bevel?
    /// The profile's radius in pixels.
    let radius: Float
    /// Whether pixels that need them get 4 x 4 sub-samples.
    let subSamples: Bool

    /// The bands of `mask`'s relief `relief` (its `soften` is not applied).
    public init(mask: CoverageMask, relief: ReliefSpec, subSamples: Bool = true) {
      canvasWidth = mask.width
      canvasHeight = mask.height
      region = mask.inkBounds.isEmpty ? mask.inkBounds : mask.inkBounds.grown(by: 1)
      radius = relief.radius
      self.subSamples = subSamples
      guard region.width * region.height > 0 else {
        geometry = nil
        bevel = nil
        return
      }
      // (A coverage of 0 and 1 alone is a picture drawn without anti-aliasing.)
      let outline =
        mask.outline
        ?? Outline.traced(
          EdgeDistance.isoline(mask: mask.plane, region: region),
          aliased: mask.plane.pixels.allSatisfy { $0 == 0 || $0 == 1 })
      let geometry = OutlineDistance(
        outline, mitreLimit: relief.insideCorners == .mitre ? InsideCorners.mitreLimit : nil)
      self.geometry = geometry
      bevel = Bevel(
        geometry: geometry, region: region, mask: mask, radius: radius,
        profile: relief.profile, sign: relief.direction == .raised ? 1 : -1,
        // A softened relief blurs its slopes: each pixel's the mean over its span.
        cellMeans: relief.effectiveSoften > 0)
    }

    /// Heights and slopes of `rows` (rows of the region) into `heights` and `slopes`, which
    /// hold the region's rows from `origin` on, and the sub-samples of their pixels.
    func shade(
      rows: Range<Int>, heights: UnsafeMutableBufferPointer<Float>?,
      slopes: UnsafeMutableBufferPointer<SIMD2<Float>>, origin: Int, sampled: Range<Int>? = nil
    ) -> SubSamples {
      guard let geometry, let bevel, !rows.isEmpty else { return SubSamples() }
      // The band's distances and features, and one row more on each side (the crease test
      // and the sub-samples look at neighbours): held only while the band is shaded, so the
      // whole region's never are.
      let window = max(0, rows.lowerBound - 1)..<min(region.height, rows.upperBound + 1)
      let size = window.count * region.width
      var distance = [Float](repeating: .infinity, count: size)
      var feature = [Int32](repeating: -1, count: size)
      return distance.withUnsafeMutableBufferPointer { distance in
        feature.withUnsafeMutableBufferPointer { feature in
          geometry.scan(
            region: PixelRect(
              x: region.x, y: region.y + window.lowerBound, width: region.width,
              height: window.count),
            rows: 0..<window.count, inner: radius + 1.5, outer: 2.5,
            distance: distance, feature: feature)
          return bevel.shade(
            rows: rows, window: window, distance: UnsafeBufferPointer(distance),
            feature: UnsafeBufferPointer(feature), heights: heights, slopes: slopes,
            origin: origin,
            sampled: subSamples ? sampled ?? rows : rows.lowerBound..<rows.lowerBound)
        }
      }
    }

    /// The field over `rows` (rows of the region, clamped to it): a height field whose
    /// region is those rows of the whole field's, with the same heights, slopes and
    /// sub-samples there.
    public func field(rows: Range<Int>) -> HeightField {
      field(rows: rows, heights: true)
    }

    /// `field(rows:)`, with `heights` false the slopes and sub-samples alone: its plane is
    /// empty (every height reads 0), for a compositor, which looks up colors by slope only
    /// and so skips each pixel's profile height; with `sampledRows`, sub-samples in those
    /// rows only (a compositor's band, whose rows on each side give its footprints their
    /// neighbours' slopes and nothing more).
    package func field(
      rows: Range<Int>, heights withHeights: Bool, sampledRows: Range<Int>? = nil
    ) -> HeightField {
      let rows = rows.clamped(to: 0..<region.height)
      let count = rows.count * region.width
      // (No heights: an empty array, never made or written through. Made with a capacity
      // of 0, every band wrote the count of the one shared empty array's storage, a race
      // the thread sanitizer reports.)
      var heights: [Float] =
        withHeights ? [Float](uninitializedCount: count) { $1 = count } : []
      var slopes = [SIMD2<Float>](uninitializedCount: count) { $1 = count }
      let samples = slopes.withUnsafeMutableBufferPointer { slopes in
        guard withHeights else {
          return shade(
            rows: rows, heights: nil, slopes: slopes, origin: rows.lowerBound,
            sampled: sampledRows)
        }
        return heights.withUnsafeMutableBufferPointer { heights in
          shade(
            rows: rows, heights: heights, slopes: slopes, origin: rows.lowerBound,
            sampled: sampledRows)
        }
      }
      return HeightField(
        canvasWidth: canvasWidth, canvasHeight: canvasHeight,
        region: PixelRect(
          x: region.x, y: region.y + rows.lowerBound, width: region.width, height: rows.count),
        plane: withHeights
          ? Plane(width: region.width, height: rows.count, pixels: heights)
          : Plane(width: 0, height: 0),
        slopes: slopes, samples: samples)
    }
  }

  /// The grid finer than the pixels a small softened relief is made on (`fineSoftened`).
  public static let fineScale = SubSamples.perSide
  /// The most region pixels a softened relief is made on the finer grid for (16 nodes each).
  static let fineSoftenedPixels = 1 << 16
  /// The largest blur (pixels) a relief is made on the finer grid for: a blur this small
  /// leaves the slope turning inside a pixel, which one normal per pixel cannot show.
  static let fineSoftenedBlur: Float = 1.5

  /// Whether `relief` over `mask` is softened on a grid `fineScale` times finer than the
  /// pixels (`fineSoftened`): a blur of at most `fineSoftenedBlur` pixels (even one under
  /// `ReliefSpec.leastSoften`) over a region (the ink bounds grown by a pixel) of at most
  /// `fineSoftenedPixels`, bevelled (not inflated).
  public static func softensOnFineGrid(mask: CoverageMask, relief: ReliefSpec) -> Bool {
    let ink = mask.inkBounds
    return relief.profile != .inflated && relief.blur > 0 && relief.blur <= fineSoftenedBlur
      && !ink.isEmpty && (ink.width + 2) * (ink.height + 2) <= fineSoftenedPixels
  }

  /// The slopes and sub-samples of a softened relief made as a render `fineScale` times the
  /// size makes them, then seen at this size: each node of the finer grid gets its slope
  /// from the exact outline (times its share of ink, as `areaMeans` takes a pixel's), the
  /// grid is blurred by `blur` (in pixels, so `blur * fineScale` nodes), and each pixel whose
  /// nodes' slopes differ takes them as its 4 x 4 sub-samples (weighted by their ink), the
  /// others their mean.
  ///
  /// On the pixel grid a softened relief has one normal per pixel, and a blur under
  /// `ReliefSpec.leastSoften` none at all: small text whose bevel is a pixel or two wide
  /// (glossy enamel's, the chisel-soft profile's) came out as a sharp bevel with one color
  /// per pixel, against a render at 4x whose blur rounds every crease and whose pixels
  /// each show part of the highlight.
  static func fineSoftened(
    geometry: OutlineDistance, bevel: Bevel, mask: CoverageMask, region: PixelRect,
    blur: Float, parallelism: Parallelism
  ) -> (slopes: [SIMD2<Float>], samples: SubSamples) {
    let n = fineScale
    let (w, h) = (region.width, region.height)
    let (fw, fh) = (w * n, h * n)
    let scale = Float(n)
    var distance = [Float](repeating: .infinity, count: fw * fh)
    var feature = [Int32](repeating: -1, count: fw * fh)
    let fine = geometry.scaled(by: scale)
    let fineRegion = PixelRect(x: region.x * n, y: region.y * n, width: fw, height: fh)
    distance.withUnsafeMutableBufferPointer { distance in
      feature.withUnsafeMutableBufferPointer { feature in
        fine.scan(
          region: fineRegion, rows: 0..<fh, inner: bevel.radius * scale + 2, outer: 2,
          distance: distance, feature: feature)
      }
    }
    // Each node's slope (per pixel) times its share of ink, and that share.
    var values = [SIMD2<Float>](repeating: .zero, count: fw * fh)
    var weights = [Float](repeating: 0, count: fw * fh)
    fine.pieces.withUnsafeBufferPointer { pieces in
      for y in 0..<fh {
        for x in 0..<fw {
          let i = y * fw + x
          let c = mask[region.x + x / n, region.y + y / n]
          guard c > 0 else { continue }
          var d = distance[i]
          let f = Int(feature[i])
          guard d.isFinite, f >= 0 else {
            // Far inside (the plateau, flat) or far outside.
            weights[i] = c >= 0.5 ? 1 : 0
            continue
          }
          // Wholly in by the coverage, as the bevel decides (`Bevel.shade`).
          if c == 1 { d = abs(d) }
          let p = SIMD2(Float(fineRegion.x + x) + 0.5, Float(fineRegion.y + y) + 0.5)
          let direction = OutlineDistance.direction(pieces[f], p)
          // The node's cell (a quarter pixel) as a pixel's sub-sample cell is taken in a
          // softened relief (`Bevel.appendSamples`): its share of ink and the profile's mean
          // slope over the distances its ink spans, which a blur spreads.
          let span = Bevel.inkedSpan(signed: d / scale, direction: direction)
          let weight = c == 1 ? 1 : span.weight
          weights[i] = weight
          guard weight > 0, span.low < bevel.radius else { continue }
          let rise: Float = bevel.sign * bevel.meanRise(span.low, span.high) * weight
          values[i] = direction * rise
        }
      }
    }
    // (Deriche's recursive Gaussian: its cost per node does not grow with the blur, which is
    // `fineScale` times wider in nodes than in pixels.)
    let blurred = blurred(
      values, width: fw, height: fh, sigma: blur * scale, recursive: blur * scale >= 2,
      parallelism: parallelism)
    var slopes = [SIMD2<Float>](repeating: .zero, count: w * h)
    var samples = SubSamples()
    let cells = n * n
    for y in 0..<h {
      for x in 0..<w {
        guard mask[region.x + x, region.y + y] > 0 else { continue }
        var total: Float = 0
        var sum = SIMD2<Float>.zero
        var low = SIMD2<Float>(repeating: .infinity)
        var high = -low
        for k in 0..<cells {
          let i = (y * n + k / n) * fw + x * n + k % n
          let value = blurred[i]
          total += weights[i]
          sum += value * weights[i]
          low = pointwiseMin(low, value)
          high = pointwiseMax(high, value)
        }
        // A pixel whose nodes have no ink (a sliver): their plain mean.
        let uniform = total <= 0
        var mean = SIMD2<Float>.zero
        for k in 0..<cells where uniform {
          let i = (y * n + k / n) * fw + x * n + k % n
          mean += blurred[i] * (1 / Float(cells))
        }
        slopes[y * w + x] = uniform ? mean : sum / total
        // Nodes that agree within 0.1% of a unit slope: one normal for the pixel.
        let spread: SIMD2<Float> = high - low
        guard !uniform, (spread * spread).sum() > 1e-6 else { continue }
        for k in 0..<cells {
          let i = (y * n + k / n) * fw + x * n + k % n
          samples.slopes.append(blurred[i])
          samples.weights.append(weights[i])
        }
        samples.pixels.append(Int32(y * w + x))
        samples.offsets.append(Int32(samples.slopes.count))
      }
    }
    return (slopes, samples)
  }

  /// The most ink a node of the finer grid has from rounding alone (see `fineHeights`).
  public static let traceOfInk: Float = 1e-4

  /// A bevelled (not inflated) relief's heights (0...1, negative for a lowered relief, 0
  /// where a node has no ink) at the nodes of `fineRegion`, a grid `fineScale` times finer
  /// than the pixels: `fine` is the mask's outline scaled to it and `ink` its coverage there
  /// (`Outline.areaCoverage`).
  ///
  /// They are the heights a render `fineScale` times the size has at its pixel centers, from
  /// the exact outline, softened as it softens them: what the occlusion of small text reads
  /// (`AmbientOcclusion`), where on the pixel grid a stroke two pixels wide has two heights
  /// across it.
  public static func fineHeights(
    outline fine: Outline, ink: [Float], relief: ReliefSpec, over fineRegion: PixelRect,
    parallelism: Parallelism = .serial
  ) -> [Float] {
    precondition(relief.profile != .inflated, "an inflated relief is solved, not bevelled")
    let scale = Float(fineScale)
    let (fw, fh) = (fineRegion.width, fineRegion.height)
    let geometry = OutlineDistance(
      fine, mitreLimit: relief.insideCorners == .mitre ? InsideCorners.mitreLimit : nil)
    let radius = relief.radius * scale
    let sign: Float = relief.direction == .raised ? 1 : -1
    var heights = [Float](repeating: 0, count: fw * fh)
    heights.withUnsafeMutableBufferPointer { heights in
      let heights = SharedPointer(heights)
      parallelism.forEachBand(fh, bandSize: 32) { rows in
        // The band's distances (rows of the region, from the band's first).
        let band = PixelRect(
          x: fineRegion.x, y: fineRegion.y + rows.lowerBound, width: fw, height: rows.count)
        var distance = [Float](repeating: .infinity, count: fw * rows.count)
        var feature = [Int32](repeating: -1, count: fw * rows.count)
        distance.withUnsafeMutableBufferPointer { distance in
          feature.withUnsafeMutableBufferPointer { feature in
            geometry.scan(
              region: band, rows: 0..<rows.count, inner: radius + 2, outer: 2,
              distance: distance, feature: feature)
          }
        }
        // (Under `traceOfInk` a node's ink is the rasterizer's running sums' rounding, far
        // outside, where the scan's distances are not signed by the ink.)
        for k in 0..<(fw * rows.count) where ink[rows.lowerBound * fw + k] > traceOfInk {
          let d = distance[k]
          // Not scanned: far inside (the plateau).
          heights[rows.lowerBound * fw + k] =
            sign * (d.isFinite ? (d > 0 ? relief.profile.height(d / radius) : 0) : 1)
        }
      }
    }
    let blur = relief.blur * scale
    guard blur >= ReliefSpec.leastSoften else { return heights }
    return GaussianBlur.apply(
      Plane(width: fw, height: fh, pixels: heights), sigma: blur, parallelism: parallelism
    ).pixels
  }

  /// The mean slope over each pixel (0 where there is no ink): its sub-samples' mean where
  /// it has them (a crease or the ink's edge inside it), its center's slope elsewhere.
  ///
  /// Blurring these rather than the slopes at pixel centers (or differences of heights
  /// there) keeps where a crease or an edge lies inside its pixel, so a softened crease
  /// comes out the same wherever it falls between pixel centers instead of beading along a
  /// diagonal.
  static func areaMeans(
    _ slopes: consuming [SIMD2<Float>], samples: SubSamples, mask: CoverageMask,
    region: PixelRect
  ) -> [SIMD2<Float>] {
    // (Consumed: the slopes become their means in place, not in a copy of 8 bytes a pixel.)
    var means = consume slopes
    for k in 0..<samples.count {
      let start = Int(samples.offsets[k])
      let end = Int(samples.offsets[k + 1])
      let pixel = Int(samples.pixels[k])
      if end - start == 1 {
        // A sliver of ink: its one slope over the ink's share.
        let (row, column) = pixel.quotientAndRemainder(dividingBy: region.width)
        means[pixel] = samples.slopes[start] * mask[region.x + column, region.y + row]
        continue
      }
      var sum = SIMD2<Float>.zero
      for j in start..<end { sum += samples.slopes[j] * samples.weights[j] }
      means[pixel] = sum / Float(end - start)
    }
    return means
  }

  /// `slopes` (`width` x `height`), with each pixel on the ink's edge taking the slope at
  /// the middle of its ink (the mean of its inked sub-sample cells' centers, interpolated
  /// bilinearly) rather than at its center, which may lie outside: the normal its ink has,
  /// as a render at 4x the size would average it.
  static func atInk(_ slopes: [SIMD2<Float>], samples: SubSamples, width: Int) -> [SIMD2<Float>] {
    let fineOffsets = Bevel.offsets(perSide: SubSamples.finePerSide)
    var out = slopes
    let height = slopes.count / max(width, 1)
    for k in 0..<samples.count {
      let start = Int(samples.offsets[k])
      let end = Int(samples.offsets[k + 1])
      let offsets: [SIMD2<Float>]
      switch end - start {
      case Bevel.offsets.count: offsets = Bevel.offsets
      case fineOffsets.count: offsets = fineOffsets
      default: continue
      }
      var total: Float = 0
      var middle = SIMD2<Float>.zero
      for j in start..<end {
        total += samples.weights[j]
        middle += samples.weights[j] * offsets[j - start]
      }
      guard total > 0, total < Float(end - start) else { continue }
      let pixel = Int(samples.pixels[k])
      let (row, column) = pixel.quotientAndRemainder(dividingBy: width)
      // Region coordinates of the point, pixel centers at integers.
      let x = min(max(Float(column) + middle.x / total, 0), Float(width - 1))
      let y = min(max(Float(row) + middle.y / total, 0), Float(height - 1))
      let x0 = Int(x)
      let y0 = Int(y)
      let x1 = min(x0 + 1, width - 1)
      let y1 = min(y0 + 1, height - 1)
      let (tx, ty) = (x - Float(x0), y - Float(y0))
      let top = slopes[y0 * width + x0] * (1 - tx) + slopes[y0 * width + x1] * tx
      let bottom = slopes[y1 * width + x0] * (1 - tx) + slopes[y1 * width + x1] * tx
      out[pixel] = top * (1 - ty) + bottom * ty
    }
    return out
  }

  /// `slopes` (`width` x `height`) blurred by `GaussianBlur` of standard deviation `sigma`.
  static func blurred(
    _ slopes: [SIMD2<Float>], width: Int, height: Int, sigma: Float, recursive: Bool = false,
    parallelism: Parallelism
  ) -> [SIMD2<Float>] {
    func blur(_ plane: Plane) -> Plane {
      recursive && sigma > 0
        ? GaussianBlur.recursive(plane, sigma: sigma, parallelism: parallelism)
        : GaussianBlur.apply(plane, sigma: sigma, parallelism: parallelism)
    }
    let x = blur(Plane(width: width, height: height, pixels: slopes.map { $0.x }))
    let y = blur(Plane(width: width, height: height, pixels: slopes.map { $0.y }))
    return (0..<(width * height)).map { SIMD2(x.pixels[$0], y.pixels[$0]) }
  }

  /// Slopes of a height plane by a 3x3 Sobel kernel (divided by 8: a unit ramp has slope 1),
  /// zero on the plane's border.
  static func differences(_ plane: Plane) -> [SIMD2<Float>] {
    let w = plane.width
    let h = plane.height
    var out = [SIMD2<Float>](repeating: .zero, count: w * h)
    guard w >= 3, h >= 3 else { return out }
    plane.pixels.withUnsafeBufferPointer { p in
      for y in 1..<(h - 1) {
        for x in 1..<(w - 1) {
          let i = y * w + x
          let dx =
            ((p[i - w + 1] + 2 * p[i + 1] + p[i + w + 1])
              - (p[i - w - 1] + 2 * p[i - 1] + p[i + w - 1])) * 0.125
          let dy =
            ((p[i + w - 1] + 2 * p[i + w] + p[i + w + 1])
              - (p[i - w - 1] + 2 * p[i - w] + p[i - w + 1])) * 0.125
          out[i] = SIMD2(dx, dy)
        }
      }
    }
    return out
  }
}
