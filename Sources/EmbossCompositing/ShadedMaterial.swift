import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossRelief
import EmbossShading
import EmbossSupport
import Foundation

/// The shaded-material compositor (CIShadedMaterial's role): each pixel's normal, from the
/// height field's slopes times `scale`, picks its color from the shading image.
public enum ShadedMaterial {
  /// Unit normal for a slope (dh/dx, dh/dy of the 0...1 heights per pixel), in image space
  /// (x right, y down, z toward the viewer): normalize(-scale * dh/dx, -scale * dh/dy, 1).
  @inline(__always)
  static func normal(slope: SIMD2<Float>, scale: Float) -> SIMD3<Float> {
    normalized(SIMD3(-scale * slope.x, -scale * slope.y, 1))
  }

  /// `normal(slope:scale:)` tilted by `tilt` (added to the unnormalized x, y: a brushed
  /// line's slope).
  @inline(__always)
  static func normal(slope: SIMD2<Float>, scale: Float, tilt: SIMD2<Float>) -> SIMD3<Float> {
    normalized(SIMD3(-scale * slope.x + tilt.x, -scale * slope.y + tilt.y, 1))
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
  ///
  /// A pixel's color is a weighted mean of groups of bilinear taps in the shading image:
  /// `sum(weight * mean(group's taps)) / sum(weight)`. A pixel with one normal has one group
  /// (weight 1) whose taps cover its footprint; a sub-sampled pixel has a group per sub-sample
  /// with ink. Colors are then a plain walk over the taps, so a light change re-composites
  /// without working out a single footprint again.
  public struct LookupMap: Sendable, Equatable {
    /// The ink bounds on the canvas; per-pixel arrays are row-major over it.
    public let rect: PixelRect
    /// The shading image's width in pixels, which the tap positions refer to.
    public let shadingWidth: Int
    /// The shading image's height in pixels.
    public let shadingHeight: Int
    /// The taps of each band of `bandRows` rows (the last band may be shorter).
    public let bands: [TapBand]
    /// Rows per band.
    public static let bandRows = 32

    /// The deepest level of the ball's pyramid the footprints read (see `BallPyramid`).
    public var maxLevel: Int {
      BallPyramid.maxLevel(width: shadingWidth, height: shadingHeight)
    }

    /// The shading image's pixels the composite reads (row-major over the shading image):
    /// the only ones it needs colored.
    public func texelsRead() -> [Bool] {
      var read = [Bool](repeating: false, count: shadingWidth * shadingHeight)
      guard shadingWidth > 0, shadingHeight > 0 else { return read }
      // Flat pixels read the ball's center.
      let center = lookup(SIMD3(0, 0, 1), width: shadingWidth, height: shadingHeight)
      let c = RGBAImage.bilinearTexels(
        width: shadingWidth, height: shadingHeight, x: center.x, y: center.y)
      for t in [
        c.y0 * shadingWidth + c.x0, c.y0 * shadingWidth + c.x1,
        c.y1 * shadingWidth + c.x0, c.y1 * shadingWidth + c.x1,
      ] { read[t] = true }
      // A tap on pyramid level k reads four of its texels, each the mean of a block of
      // 2^k x 2^k ball texels.
      let sizes = BallPyramid.sizes(
        width: shadingWidth, height: shadingHeight, maxLevel: maxLevel)
      for band in bands {
        var point = 0
        for (g, grid) in band.groupGrids.enumerated() {
          let level = Int(band.groupLevels[g])
          let (width, height) = sizes[level]
          let side = 1 << level
          let scale = 1 / Float(side)
          TapBand.forEachTap(grid, band.points, &point) { p in
            let t = RGBAImage.bilinearTexels(
              width: width, height: height, x: p.x * scale, y: p.y * scale)
            for (x, y) in [(t.x0, t.y0), (t.x1, t.y0), (t.x0, t.y1), (t.x1, t.y1)] {
              for row in (y * side)..<min((y + 1) * side, shadingHeight) {
                for column in (x * side)..<min((x + 1) * side, shadingWidth) {
                  read[row * shadingWidth + column] = true
                }
              }
            }
          }
        }
      }
      return read
    }
  }

  /// One band of rows of a lookup map.
  public struct TapBand: Sendable, Equatable {
    /// The deepest level of the ball's pyramid (`BallPyramid`) a footprint may read; 0 reads
    /// the ball alone.
    public let maxLevel: Int
    /// Per group: the pyramid level its taps read.
    public internal(set) var groupLevels: [UInt8] = []
    /// Per pixel of the band's rows: its number of groups (0 where there is no ink), or
    /// `flat` for a pixel of a flat face among flat neighbours (the plateau), which takes
    /// the color at the ball's center and stores no group.
    public internal(set) var groupCounts: [UInt8] = []
    /// The group count of a flat pixel (see `groupCounts`).
    public static let flat: UInt8 = 255
    /// Per group: its weight.
    public internal(set) var groupWeights: [Float] = []
    /// Per group: its grid of taps, `nu - 1 + 16 * (nv - 1)` for `nu` x `nv` taps (see
    /// `appendGroup`); 0 for one tap.
    public internal(set) var groupGrids: [UInt8] = []
    /// Per group, in continuous coordinates of the shading image (see `lookup`): its
    /// footprint's center `p`, then for more than one tap its sides `du` and `dv`.
    public internal(set) var points: [SIMD2<Float>] = []

    /// An empty band whose footprints may read pyramid levels up to `maxLevel`.
    public init(maxLevel: Int = 0) {
      self.maxLevel = maxLevel
    }

    /// Appends a group of weight `weight` whose taps cover the parallelogram of center `p`
    /// and sides `du`, `dv` (in texels): one per two texels of extent along each side (a
    /// bilinear tap spans two), at most `maxTaps` (at most 16) per side, on the first level of
    /// the ball's pyramid where that many cover it (see `footprintTaps`), so a highlight
    /// smaller than the footprint is neither missed nor hit by chance.
    ///
    /// Only the footprint is stored; the compositor walks its taps (`forEachTap`).
    mutating func appendGroup(
      weight: Float, at p: SIMD2<Float>, du: SIMD2<Float>, dv: SIMD2<Float>, maxTaps: Int,
      spread: SIMD2<Float> = .zero, rough: Float = 0
    ) {
      let taps = Self.taps(
        du: du, dv: dv, maxTaps: maxTaps, spread: spread, rough: rough, maxLevel: maxLevel)
      groupWeights.append(weight)
      groupLevels.append(UInt8(taps.level))
      points.append(p)
      if taps.nu == 1 && taps.nv == 1 {
        groupGrids.append(0)
        return
      }
      groupGrids.append(UInt8(taps.nu - 1 + 16 * (taps.nv - 1)))
      points.append(taps.du)
      points.append(taps.dv)
    }

    /// The taps of a group whose footprint has sides `du`, `dv` (see `appendGroup`): the
    /// pyramid level they read, how many along each side, and the sides grown by a rough
    /// surface's spread and a brushed one's segment of normals.
    @inline(__always)
    static func taps(
      du: SIMD2<Float>, dv: SIMD2<Float>, maxTaps: Int, spread: SIMD2<Float>, rough: Float,
      maxLevel: Int
    ) -> (level: Int, nu: Int, nv: Int, du: SIMD2<Float>, dv: SIMD2<Float>) {
      var (du, dv) = (du, dv)
      if rough > 0 {
        // Normals spread `rough` every way (a rough or dented surface): the footprint grows
        // by that much on each side, along its first side and across it.
        let squared = (du * du).sum()
        let first = squared > 1e-12 ? du / squared.squareRoot() : SIMD2<Float>(1, 0)
        du += first * (2 * rough)
        dv +=
          SIMD2(-first.y, first.x) * (2 * rough)
          * ((dv * SIMD2(-first.y, first.x)).sum() < 0 ? -1 : 1)
      }
      var alongSpread = maxTaps
      if spread != .zero {
        // A brushed surface's spread is a blur: six taps along it (at most) read it as well
        // as one a texel, at a fraction of the cost.
        alongSpread = min(maxTaps, 6)
        // The footprint grown by a segment of normals (a brushed surface's, across its
        // grain): one side along the segment, as long as it and the footprint's extent
        // along it; the other the footprint's larger extent across it.
        let length = (spread * spread).sum().squareRoot()
        let unit = spread / length
        let (pu, pv) = ((du * unit).sum(), (dv * unit).sum())
        let (ou, ov) = (du - unit * pu, dv - unit * pv)
        du = unit * (length + abs(pu) + abs(pv))
        dv = (ou * ou).sum() >= (ov * ov).sum() ? ou : ov
      }
      let (level, nu, nv) = ShadedMaterial.footprintTaps(
        du: du, dv: dv, maxAlong: alongSpread, maxAcross: maxTaps, maxLevel: maxLevel)
      return (level, nu, nv, du, dv)
    }

    /// The centers of the cells of an `n`-cell grid over -0.5...0.5, at `16 * (n - 1) + i`.
    static let cellCenters: [Float] = (0..<256).map { k in
      let (n, i) = (k / 16 + 1, k % 16)
      return (Float(i) + 0.5) / Float(n) - 0.5
    }

    /// Calls `body` with each tap of the group with grid `grid` whose points start at
    /// `point` (which advances past them): row-major over its `nu` x `nv` grid, at
    /// `p + du * a + dv * b` with `a`, `b` the centers of the grid's cells in -0.5...0.5
    /// (`centers`: `cellCenters`).
    @inline(__always)
    static func forEachTap(
      _ grid: UInt8, _ points: UnsafeBufferPointer<SIMD2<Float>>, _ point: inout Int,
      centers: UnsafeBufferPointer<Float>, _ body: (SIMD2<Float>) -> Void
    ) {
      let p = points[point]
      guard grid != 0 else {
        point += 1
        body(p)
        return
      }
      let du = points[point + 1]
      let dv = points[point + 2]
      point += 3
      let nu = Int(grid & 15)
      let nv = Int(grid >> 4)
      for j in 0...nv {
        let offset = dv * centers[16 * nv + j]
        for i in 0...nu {
          body(p + du * centers[16 * nu + i] + offset)
        }
      }
    }

    /// `forEachTap` over the arrays.
    static func forEachTap(
      _ grid: UInt8, _ points: [SIMD2<Float>], _ point: inout Int, _ body: (SIMD2<Float>) -> Void
    ) {
      points.withUnsafeBufferPointer { points in
        cellCenters.withUnsafeBufferPointer {
          forEachTap(grid, points, &point, centers: $0, body)
        }
      }
    }
  }

  /// Computes every ink pixel's normal and the taps its color comes from (its sub-samples'
  /// too): a lookup plan's bands, all kept.
  ///
  /// `detail`'s brushing tilts each pixel's normal by the line it lies on and widens its
  /// footprint across the grain (see `Brushing`); a smooth surface's map is as without it.
  public static func lookupMap(
    height: HeightField, mask: CoverageMask, scale: Float, shadingWidth: Int, shadingHeight: Int,
    detail: DetailSpec = .none, camera: CameraSpec = .orthographic,
    parallelism: Parallelism = .allCores
  ) -> LookupMap {
    lookupPlan(
      height: height, mask: mask, scale: scale, shadingWidth: shadingWidth,
      shadingHeight: shadingHeight, detail: detail, camera: camera
    ).map(parallelism: parallelism)
  }

  /// Where each ink pixel of a mask looks up its color on the ball, and what the taps of any
  /// band of rows need: the first half of a lookup map (`ShadedMaterial.lookupPlan`).
  ///
  /// `lookupMap` makes and keeps every band (a relight re-composites from them); a render
  /// that is not kept makes each band as the compositor reaches it and lets it go (see
  /// `ShadedMaterial.composite(plan:mask:shading:background:detail:surfaceColor:parallelism:)`):
  /// the same taps, so the same bytes, without holding them all.
  public struct LookupPlan: Sendable {
    /// Where the plan's relief comes from.
    enum Relief: Sendable {
      /// A whole height field, with its sub-sampled ink pixels (ink indices, ascending) and
      /// their index among its sub-sampled pixels.
      case whole(HeightField, sampled: [Int32], sampleIndex: [Int32])
      /// Made a band at a time, as each band of taps needs it (never softened).
      case bands(HeightField.Bands)
    }
    let relief: Relief
    let mask: CoverageMask
    let scale: Float
    /// The shading image's width in pixels, which the taps refer to.
    public let shadingWidth: Int
    /// The shading image's height in pixels.
    public let shadingHeight: Int
    let camera: CameraSpec
    let surface: SurfaceDetail?
    /// The ink bounds on the canvas.
    public let ink: PixelRect
    /// Whether the relief is smooth (softened: no sub-samples), so every ink pixel's normal is
    /// its own and footprints take differences to any neighbour with ink. (A relief made in
    /// bands is never softened.)
    var smooth: Bool {
      if case .whole(let height, _, _) = relief { return height.samples.count == 0 }
      return false
    }

    /// The relief over `rows` of the ink bounds (and the sub-sampled ink pixels among them):
    /// the whole field's, or those rows' made now, sub-sampled in `sampledRows` (rows of the
    /// ink bounds) only.
    func relief(rows: Range<Int>, sampledRows: Range<Int>) -> (
      height: HeightField, sampled: [Int32], sampleIndex: [Int32]
    ) {
      switch relief {
      case .whole(let height, let sampled, let sampleIndex):
        return (height, sampled, sampleIndex)
      case .bands(let bands):
        let top = ink.y - bands.region.y
        // Slopes only: colors are looked up by slope.
        let height = bands.field(
          rows: (top + rows.lowerBound)..<(top + rows.upperBound), heights: false,
          sampledRows: (top + sampledRows.lowerBound)..<(top + sampledRows.upperBound))
        let (sampled, sampleIndex) = ShadedMaterial.sampledInk(height, mask: mask, ink: ink)
        return (height, sampled, sampleIndex)
      }
    }

    /// The number of bands of `LookupMap.bandRows` rows.
    public var bandCount: Int { (ink.height + LookupMap.bandRows - 1) / LookupMap.bandRows }

    /// The deepest level of the ball's pyramid the footprints read (see `BallPyramid`).
    public var maxLevel: Int { BallPyramid.maxLevel(width: shadingWidth, height: shadingHeight) }

    /// Every band, kept: the lookup map.
    public func map(parallelism: Parallelism = .allCores) -> LookupMap {
      var bands = [TapBand](repeating: TapBand(), count: bandCount)
      bands.withUnsafeMutableBufferPointer { bandsOut in
        let bandsOut = SharedPointer(bandsOut)
        parallelism.forEachBand(bandCount, bandSize: 1) { indices in
          for index in indices { bandsOut[index] = band(index) }
        }
      }
      return LookupMap(
        rect: ink, shadingWidth: shadingWidth, shadingHeight: shadingHeight, bands: bands)
    }

    /// How a camera at a finite distance turns the normal at canvas pixel (`x`, `y`): by its
    /// direction from the canvas's center (see `CameraSpec.tilt`).
    @inline(__always)
    func view(_ x: Int, _ y: Int) -> SIMD2<Float> {
      camera.tilt(
        at: SIMD2(Float(x) + 0.5, Float(y) + 0.5) - SIMD2(Float(mask.width), Float(mask.height))
          * 0.5)
    }

    /// Where each ink pixel of `rect` (rows of the ink bounds) looks up its color, row-major.
    ///
    /// With detail whose normals spread (`SurfaceDetail.spreads`), also its spread of
    /// normals (a segment's x, y and a radius, in normal units; the radius without
    /// `NormalOffset.linearRough`), and with hammering whether it straddles a hammered ridge
    /// (its parts are found again when its groups are made); otherwise those are empty (a
    /// wavy surface's would be zero: 1.3 MB a band in flight on case B). Pixels without ink
    /// are left zero.
    func lookups(_ rect: PixelRect, height: HeightField) -> (
      uv: [SIMD2<Float>], spreads: [SIMD3<Float>], ridged: [Bool]
    ) {
      let count = rect.width * rect.height
      var uv = [SIMD2<Float>](repeating: .zero, count: count)
      var spreads = [SIMD3<Float>](
        repeating: .zero, count: surface?.spreads == true ? count : 0)
      var ridged = [Bool](repeating: false, count: surface?.hammer == nil ? 0 : count)
      let region = height.region
      let window = mask.window
      // (Read in place: binding the optional at each pixel copies the detail.)
      withPayload(of: surface) { surface in
        height.slopes.withUnsafeBufferPointer { slopes in
          mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
            // The detail's noise cells, kept from each pixel to the next.
            var kept = SurfaceDetail.Kept()
            for row in 0..<rect.height {
              let y = rect.y + row
              for column in 0..<rect.width {
                let x = rect.x + column
                guard coverage[(y - window.y) * window.width + x - window.x] > 0 else { continue }
                let slope = slopes[(y - region.y) * region.width + (x - region.x)]
                var n = ShadedMaterial.normal(slope: slope, scale: scale)
                if let surface {
                  let offset = surface.pointee.normalOffset(x: x, y: y, kept: &kept)
                  n = ShadedMaterial.normal(
                    slope: slope, scale: scale, tilt: offset.tilt + view(x, y))
                  // (The footprint is made from the neighbours' lookups: their differences
                  // hold the dish's linear tilt.)
                  if !spreads.isEmpty {
                    spreads[row * rect.width + column] = SIMD3(
                      offset.spread, offset.rough - offset.linearRough)
                  }
                  if offset.partCount > 0 { ridged[row * rect.width + column] = true }
                } else if camera.isFinite {
                  n = ShadedMaterial.normal(slope: slope, scale: scale, tilt: view(x, y))
                }
                uv[row * rect.width + column] = ShadedMaterial.lookup(
                  n, width: shadingWidth, height: shadingHeight)
              }
            }
          }
        }
      }
      return (uv, spreads, ridged)
    }

    /// The taps of band `index` (rows `index * LookupMap.bandRows` on).
    func band(_ index: Int) -> TapBand {
      var band = TapBand(maxLevel: maxLevel)
      self.band(index, into: &band)
      return band
    }

    /// Band `index`'s pixels (rows `index * LookupMap.bandRows` on), each as its taps are
    /// found, into `band` (see `TapSink`).
    func band<Sink: TapSink>(_ index: Int, into band: inout Sink) {
      let rows =
        (index * LookupMap.bandRows)..<min((index + 1) * LookupMap.bandRows, ink.height)
      // Each pixel's lookup (and with detail its spread and whether it straddles a ridge)
      // over the band's rows and one more on each side, which the footprints' differences
      // reach: the rows of `near`, from `first`.
      let first = max(0, rows.lowerBound - 1)
      let near = PixelRect(
        x: ink.x, y: ink.y + first, width: ink.width,
        height: min(ink.height, rows.upperBound + 1) - first)
      // (Sub-samples only in the band's rows: those beside it give footprints slopes.)
      let (height, sampled, sampleIndex) = relief(
        rows: first..<(first + near.height), sampledRows: rows)
      let region = height.region
      let samples = height.samples
      let texelsPerNormal = SIMD2(Float(shadingWidth), Float(shadingHeight)) * 0.5
      // Where a flat face looks up its color.
      let center = ShadedMaterial.lookup(
        SIMD3(0, 0, 1), width: shadingWidth, height: shadingHeight)
      // The least coverage of a neighbour a footprint takes differences to: the ink's edge
      // pixels are sub-sampled (their centers may lie outside), unless the field is smooth
      // (softened: no sub-samples), where every ink pixel's normal is its own.
      let neighbour: Float = smooth ? .leastNonzeroMagnitude : 1
      let (shadingWidth, shadingHeight, scale, ink, mask) = (
        self.shadingWidth, self.shadingHeight, self.scale, self.ink, self.mask
      )
      let window = mask.window
      let (uv, spreads, ridged) = lookups(near, height: height)
      // (Read in place: binding the optional at each pixel copies the detail.)
      withPayload(of: surface) { surface in
        uv.withUnsafeBufferPointer { uv in
          samples.slopes.withUnsafeBufferPointer { sampleSlopes in
            samples.weights.withUnsafeBufferPointer { sampleWeights in
              mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
                // The first sub-sampled pixel at or after the band's first row, and the
                // first after its last.
                var next = ShadedMaterial.firstIndex(
                  in: sampled, atOrAfter: rows.lowerBound * ink.width)
                let end = ShadedMaterial.firstIndex(
                  in: sampled, atOrAfter: rows.upperBound * ink.width)
                // Room for a group per pixel and 16 per sub-sampled one, a tap each and a
                // few more (growing would copy and touch fresh pages).
                let groups = rows.count * ink.width + 15 * (end - next)
                band.reserve(pixels: rows.count * ink.width, groups: groups)
                // The detail's noise cells, kept from each sub-sampled or ridged pixel to the next.
                var kept = SurfaceDetail.Kept()
                for row in rows {
                  for column in 0..<ink.width {
                    let index = row * ink.width + column
                    let local = (row - first) * ink.width + column
                    guard
                      coverage[(ink.y + row - window.y) * window.width + ink.x + column - window.x]
                        > 0
                    else {
                      band.noInk()
                      continue
                    }
                    let before = band.groupMark
                    while next < sampled.count && Int(sampled[next]) < index {
                      next += 1
                    }
                    if next < sampled.count && Int(sampled[next]) == index {
                      let k = Int(sampleIndex[next])
                      let start = Int(samples.offsets[k])
                      let count = Int(samples.offsets[k + 1]) - start
                      next += 1
                      var offset = NormalOffset()
                      if let surface {
                        offset = surface.pointee.normalOffset(
                          x: ink.x + column, y: ink.y + row, kept: &kept)
                      }
                      let spread = offset.spread * texelsPerNormal
                      if count == SubSamples.stripCount {
                        ShadedMaterial.appendStripGroups(
                          slopes: UnsafeBufferPointer(
                            rebasing: sampleSlopes[start..<(start + count)]),
                          weights: UnsafeBufferPointer(
                            rebasing: sampleWeights[start..<(start + count)]),
                          scale: scale, tilt: offset.tilt + view(ink.x + column, ink.y + row),
                          width: shadingWidth, height: shadingHeight, spread: spread,
                          rough: offset.rough * texelsPerNormal.x, to: &band)
                        band.endPixel(groupsSince: before)
                        continue
                      }
                      // The samples' lookups (at most 16).
                      withUnsafeTemporaryAllocation(of: SIMD2<Float>.self, capacity: count) {
                        lookups in
                        for j in 0..<count {
                          let n = ShadedMaterial.normal(
                            slope: sampleSlopes[start + j], scale: scale,
                            tilt: offset.tilt + view(ink.x + column, ink.y + row))
                          lookups[j] = ShadedMaterial.lookup(
                            n, width: shadingWidth, height: shadingHeight)
                        }
                        ShadedMaterial.appendSampledGroups(
                          UnsafeBufferPointer(lookups),
                          weights: UnsafeBufferPointer(
                            rebasing: sampleWeights[start..<(start + count)]),
                          start: 0, count: count, spread: spread,
                          rough: offset.rough * texelsPerNormal.x, to: &band)
                      }
                    } else {
                      let (du, dv) = ShadedMaterial.footprint(
                        uv, coverage, window: window, ink: near, row: row - first,
                        column: column, neighbour: neighbour)
                      if du == .zero && dv == .zero && uv[local] == center {
                        band.flat()
                        continue
                      }
                      let offset = spreads.isEmpty ? .zero : spreads[local]
                      if !ridged.isEmpty && ridged[local], let surface {
                        // A pixel across a ridge: a group per dent, weighted by its share.
                        let x = ink.x + column
                        let y = ink.y + row
                        let slope =
                          height.slopes[(y - region.y) * region.width + (x - region.x)]
                        let parts = surface.pointee.normalOffset(x: x, y: y, kept: &kept)
                        for k in 0..<parts.partCount {
                          let part = parts.parts[k]
                          let n = ShadedMaterial.normal(
                            slope: slope, scale: scale,
                            tilt: SIMD2(part.x, part.y) + view(x, y))
                          band.appendGroup(
                            weight: part.z,
                            at: ShadedMaterial.lookup(
                              n, width: shadingWidth, height: shadingHeight),
                            du: .zero, dv: .zero, maxTaps: 12,
                            spread: SIMD2(offset.x, offset.y) * texelsPerNormal,
                            rough: offset.z * texelsPerNormal.x)
                        }
                        band.endPixel(groupsSince: before)
                        continue
                      }
                      band.appendGroup(
                        weight: 1, at: uv[local], du: du, dv: dv, maxTaps: 12,
                        spread: SIMD2(offset.x, offset.y) * texelsPerNormal,
                        rough: offset.z * texelsPerNormal.x)
                    }
                    band.endPixel(groupsSince: before)
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /// The first half of a lookup map: which pixels are sub-sampled, and what every band of
  /// taps is made from (see `LookupPlan`).
  public static func lookupPlan(
    height: HeightField, mask: CoverageMask, scale: Float, shadingWidth: Int, shadingHeight: Int,
    detail: DetailSpec = .none, camera: CameraSpec = .orthographic
  ) -> LookupPlan {
    let ink = mask.inkBounds.intersection(mask.window)
    let (sampled, sampleIndex) = sampledInk(height, mask: mask, ink: ink)
    return lookupPlan(
      relief: .whole(height, sampled: sampled, sampleIndex: sampleIndex), mask: mask,
      scale: scale, shadingWidth: shadingWidth, shadingHeight: shadingHeight, detail: detail,
      camera: camera)
  }

  /// `lookupPlan(height:...)` over a relief made a band at a time (`HeightField.Bands`), each
  /// band's as its taps are made: the same taps, without the whole field ever held.
  public static func lookupPlan(
    bands: HeightField.Bands, mask: CoverageMask, scale: Float, shadingWidth: Int,
    shadingHeight: Int, detail: DetailSpec = .none, camera: CameraSpec = .orthographic
  ) -> LookupPlan {
    lookupPlan(
      relief: .bands(bands), mask: mask, scale: scale, shadingWidth: shadingWidth,
      shadingHeight: shadingHeight, detail: detail, camera: camera)
  }

  private static func lookupPlan(
    relief: LookupPlan.Relief, mask: CoverageMask, scale: Float,
    shadingWidth: Int, shadingHeight: Int, detail: DetailSpec, camera: CameraSpec
  ) -> LookupPlan {
    // Detail that tilts normals (brushed, hammered, sandblasted); its colors are the
    // compositor's.
    let surface = detail.tiltsNormals ? SurfaceDetail(detail, base: SIMD3(repeating: 1)) : nil
    return LookupPlan(
      relief: relief, mask: mask, scale: scale, shadingWidth: shadingWidth,
      shadingHeight: shadingHeight, camera: camera, surface: surface,
      ink: mask.inkBounds.intersection(mask.window))
  }

  /// The sub-sampled pixels of `height` that are ink pixels of `ink` (ink indices, ascending),
  /// and their index among the field's sub-sampled pixels.
  static func sampledInk(_ height: HeightField, mask: CoverageMask, ink: PixelRect) -> (
    [Int32], [Int32]
  ) {
    let region = height.region
    var sampled: [Int32] = []
    var sampleIndex: [Int32] = []
    let samples = height.samples
    for k in 0..<samples.count {
      let (ry, rx) = Int(samples.pixels[k]).quotientAndRemainder(dividingBy: region.width)
      let x = rx + region.x
      let y = ry + region.y
      guard x >= ink.x, y >= ink.y, x < ink.maxX, y < ink.maxY, mask[x, y] > 0 else {
        continue
      }
      sampled.append(Int32((y - ink.y) * ink.width + (x - ink.x)))
      sampleIndex.append(Int32(k))
    }
    return (sampled, sampleIndex)
  }

  /// Index into the ascending `indices` of the first entry at or after `index`.
  private static func firstIndex(in indices: [Int32], atOrAfter index: Int) -> Int {
    var lo = 0
    var hi = indices.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if Int(indices[mid]) < index { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  /// How far the lookup moves across one pixel, in shading-image pixels: along x (`du`) and
  /// along y (`dv`), by central differences of the neighbours' lookups (one-sided at the
  /// ink's edge, zero where there is no neighbour), each clamped to 256 texels (a long one
  /// reads a coarser level of the ball's pyramid: see `footprintTaps`).
  ///
  /// Neighbours with coverage below `neighbour` do not count: by default those on the edge
  /// (below 1), which are sampled 4 x 4 and whose centers may lie outside the ink; a
  /// softened field, which has no sub-samples, counts every neighbour with ink.
  ///
  /// Where the two sides' differences disagree (one over 4 times the other's length, or
  /// turning back), the pixel is beside a kink or a crease (a chisel's top edge, the seam of
  /// two walls): the neighbour past it has the other face's lookup, and the shorter side,
  /// the pixel's own face, is taken alone. Without that a plateau pixel beside a chisel's
  /// top edge spread its lookup halfway down the bevel, and a mirror showed a bright dot or
  /// line there. Not in a softened field (`neighbour` below 1), whose ridges turn smoothly.
  @inline(__always)
  static func footprint(
    _ uv: UnsafeBufferPointer<SIMD2<Float>>, _ coverage: UnsafeBufferPointer<Float>,
    window: PixelRect,
    ink: PixelRect, row: Int, column: Int, neighbour: Float = 1
  ) -> (SIMD2<Float>, SIMD2<Float>) {
    // The four neighbours, each tested once: inside the ink bounds, with enough coverage.
    let w = ink.width
    let at = (ink.y + row - window.y) * window.width + ink.x + column - window.x
    let right = column + 1 < w && coverage[at + 1] >= neighbour
    let left = column > 0 && coverage[at - 1] >= neighbour
    let below = row + 1 < ink.height && coverage[at + window.width] >= neighbour
    let above = row > 0 && coverage[at - window.width] >= neighbour
    let i = row * w + column
    let center = uv[i]
    // A softened field has no kinks or creases: its lookups turn smoothly, and a ridge's
    // two sides are one smooth curve.
    let kinks = neighbour >= 1
    @inline(__always)
    func derivative(_ forward: Bool, _ backward: Bool, _ step: Int) -> SIMD2<Float> {
      var d = SIMD2<Float>.zero
      if forward && backward {
        let f = uv[i + step] - center
        let b = center - uv[i - step]
        let (ff, bb) = ((f * f).sum(), (b * b).sum())
        // Across a kink or a crease (a chisel's top edge, two walls meeting) the two sides
        // disagree: the neighbour past it has the other face's lookup, so the pixel's own
        // face is the side whose difference is the shorter.
        if kinks && (ff > 16 * bb || bb > 16 * ff || (f * b).sum() < 0) {
          d = ff < bb ? f : b
        } else {
          d = (uv[i + step] - uv[i - step]) * 0.5
        }
      } else if forward {
        d = uv[i + step] - center
      } else if backward {
        d = center - uv[i - step]
      }
      return clamped(d, to: 256)
    }
    return (derivative(right, left, 1), derivative(below, above, w))
  }

  /// The pyramid level a footprint of sides `du`, `dv` (in ball texels) reads, and its taps
  /// along each side on that level.
  ///
  /// The ball while its taps along each side (at most `maxAlong` along `du`, `maxAcross`
  /// along `dv`) are at most two texels apart (a bilinear tap spans two); a longer
  /// footprint reads the first level where they are, so texels between taps are averaged
  /// in, not skipped (a sharp highlight swept by a softened crease is a line, not a row of
  /// dots).
  @inline(__always)
  static func footprintTaps(
    du: SIMD2<Float>, dv: SIMD2<Float>, maxAlong: Int, maxAcross: Int, maxLevel: Int
  ) -> (level: Int, nu: Int, nv: Int) {
    var level = 0
    var scale: Float = 1
    let (along, across) = (Float(2 * maxAlong), Float(2 * maxAcross))
    let (u, v) = ((du * du).sum(), (dv * dv).sum())
    while level < maxLevel
      && (u * scale * scale > along * along || v * scale * scale > across * across)
    {
      level += 1
      scale *= 0.5
    }
    return (level, taps(du * scale, maxTaps: maxAlong), taps(dv * scale, maxTaps: maxAcross))
  }

  /// Taps along a footprint side `d`: half its length in texels rounded up (a bilinear tap
  /// spans two texels, so taps two apart leave none out), 1...`maxTaps`.
  ///
  /// The square root is taken only where the length is not plainly at most 2.
  @inline(__always)
  static func taps(_ d: SIMD2<Float>, maxTaps: Int) -> Int {
    let squared = (d * d).sum()
    guard squared > 4 else { return 1 }
    // Half the length rounded up (by a comparison: `rounded(.up)` is a call to libm's ceil).
    let half = squared.squareRoot() * 0.5
    var n = Int(half)
    if Float(n) < half { n += 1 }
    return min(maxTaps, max(1, n))
  }

  /// `d` shortened to at most `limit` long.
  @inline(__always)
  static func clamped(_ d: SIMD2<Float>, to limit: Float) -> SIMD2<Float> {
    let squared = (d * d).sum()
    guard squared > limit * limit else { return d }
    let length = squared.squareRoot()
    return length > limit ? d * (limit / length) : d
  }

  /// The groups of a strip (see `SubSamples`): one per bin of distance, weighted by its
  /// share of the pixel, its footprint along the differences to the bins beside it and
  /// across how far the lookup moves as the slope turns by the strip's turn (to first order:
  /// the lookup's derivative along the turn, so no more normals are made).
  @inline(__always)
  private static func appendStripGroups(
    slopes: UnsafeBufferPointer<SIMD2<Float>>, weights: UnsafeBufferPointer<Float>,
    scale: Float, tilt: SIMD2<Float>, width: Int, height: Int, spread: SIMD2<Float>,
    rough: Float, to band: inout some TapSink
  ) {
    let bins = SubSamples.stripBins
    let turn = slopes[bins].x
    let texelsPerNormal = SIMD2(Float(width), Float(height)) * 0.5
    withUnsafeTemporaryAllocation(of: SIMD2<Float>.self, capacity: bins) { lookups in
      for k in 0..<bins {
        lookups[k] = lookup(
          normal(slope: slopes[k], scale: scale, tilt: tilt), width: width, height: height)
      }
      for k in 0..<bins where weights[k] > 0 {
        let forward = k + 1 < bins ? lookups[k + 1] : lookups[k]
        let backward = k > 0 ? lookups[k - 1] : lookups[k]
        let du = clamped(
          (forward - backward) * (k > 0 && k + 1 < bins ? 0.5 : 1), to: 16)
        var dv = SIMD2<Float>.zero
        if turn != 0 {
          // The normal's x, y are m / sqrt(1 + |m|^2), m = tilt - scale * slope; the slope
          // turning by `turn` moves m by `delta`.
          let q = slopes[k]
          let m = tilt - scale * q
          let delta = -scale * turn * SIMD2(-q.y, q.x)
          let r = 1 / (1 + (m * m).sum()).squareRoot()
          let moved = r * delta - (r * r * r * (m * delta).sum()) * m
          dv = clamped(moved * texelsPerNormal, to: 16)
        }
        band.appendGroup(
          weight: weights[k], at: lookups[k], du: du, dv: dv, maxTaps: 4, spread: spread,
          rough: rough)
      }
    }
  }

  /// The groups of a sub-sampled pixel, as a render at 4x the size filters its pixels.
  ///
  /// One group per cell of its 4 x 4 grid with ink, weighted by that ink, each over its own
  /// footprint (differences to its grid neighbours with ink, at most 2 x 2 taps). A pixel with
  /// a single sample (a sliver) has one group of one tap.
  @inline(__always)
  private static func appendSampledGroups(
    _ uv: UnsafeBufferPointer<SIMD2<Float>>, weights: UnsafeBufferPointer<Float>, start: Int,
    count: Int, spread: SIMD2<Float> = .zero, rough: Float = 0, to band: inout some TapSink
  ) {
    // (4 x 4 points, or 8 x 8 on a bevel about a pixel wide: see `SubSamples.finePerSide`.)
    let n =
      count == SubSamples.finePerSide * SubSamples.finePerSide
      ? SubSamples.finePerSide : SubSamples.perSide
    guard count == n * n else {
      band.appendGroup(
        weight: 1, at: uv[start], du: .zero, dv: .zero, maxTaps: 4, spread: spread, rough: rough)
      return
    }
    let uv = UnsafeBufferPointer(rebasing: uv[start..<(start + n * n)])
    let weights = UnsafeBufferPointer(rebasing: weights[start..<(start + n * n)])
    @inline(__always) func has(_ i: Int, _ j: Int) -> Bool {
      i >= 0 && j >= 0 && i < n && j < n && weights[j * n + i] > 0
    }
    @inline(__always) func derivative(_ i: Int, _ j: Int, _ di: Int, _ dj: Int) -> SIMD2<Float> {
      let forward = has(i + di, j + dj)
      let backward = has(i - di, j - dj)
      var d = SIMD2<Float>.zero
      if forward && backward {
        d = (uv[(j + dj) * n + i + di] - uv[(j - dj) * n + i - di]) * 0.5
      } else if forward {
        d = uv[(j + dj) * n + i + di] - uv[j * n + i]
      } else if backward {
        d = uv[j * n + i] - uv[(j - dj) * n + i - di]
      }
      return clamped(d, to: 16)
    }
    for j in 0..<n {
      for i in 0..<n {
        let weight = weights[j * n + i]
        guard weight > 0 else { continue }
        band.appendGroup(
          weight: weight, at: uv[j * n + i], du: derivative(i, j, 1, 0),
          dv: derivative(i, j, 0, 1), maxTaps: 4, spread: spread, rough: rough)
      }
    }
  }

  /// The mean of a group's `nu + 1` x `nv + 1` taps on pyramid level `level`, over the
  /// parallelogram of center `p` and sides `du`, `dv`: `TapBand.forEachTap`'s walk, written
  /// out (and in scalars) for the inner loop, the same taps in the same order, so the same
  /// bytes.
  @inline(__always)
  static func tapMean(
    level: Int, p: SIMD2<Float>, du: SIMD2<Float>, dv: SIMD2<Float>, nu: Int, nv: Int,
    centers: UnsafeBufferPointer<Float>, pyramid: BallPyramid.View
  ) -> SIMD4<Float> {
    let plane = pyramid.plane(level)
    // Each column's point along `du` (from `p`), the same for every row.
    return withUnsafeTemporaryAllocation(of: SIMD2<Float>.self, capacity: nu + 1) { along in
      for i in 0...nu {
        let a = centers[16 * nu + i]
        along[i] = SIMD2(p.x + du.x * a, p.y + du.y * a)
      }
      var sum = SIMD4<Float>.zero
      for j in 0...nv {
        let b = centers[16 * nv + j]
        let (ox, oy) = (dv.x * b, dv.y * b)
        for i in 0...nu {
          sum += plane.sample(x: along[i].x + ox, y: along[i].y + oy)
        }
      }
      return sum / Float((nu + 1) * (nv + 1))
    }
  }

  /// The color of an ink pixel: the weighted mean of its groups' means.
  ///
  /// It has `groups` groups, the first at `group`, whose taps start at `tap` (both advance
  /// past the pixel's).
  @inline(__always)
  static func inkColor(
    groups: Int, group: inout Int, point: inout Int, weights: UnsafeBufferPointer<Float>,
    grids: UnsafeBufferPointer<UInt8>, levels: UnsafeBufferPointer<UInt8>,
    points: UnsafeBufferPointer<SIMD2<Float>>, centers: UnsafeBufferPointer<Float>,
    pyramid: BallPyramid.View
  ) -> SIMD4<Float> {
    @inline(__always) func groupColor(_ g: Int) -> SIMD4<Float> {
      let grid = grids[g]
      let level = Int(levels[g])
      if grid == 0 {
        let p = points[point]
        point += 1
        return pyramid.sample(level: level, x: p.x, y: p.y)
      }
      let p = points[point]
      let du = points[point + 1]
      let dv = points[point + 2]
      point += 3
      return tapMean(
        level: level, p: p, du: du, dv: dv, nu: Int(grid & 15), nv: Int(grid >> 4),
        centers: centers, pyramid: pyramid)
    }
    // One group of weight 1: a pixel with one normal (or a sliver's single sample).
    if groups == 1 && weights[group] == 1 {
      let color = groupColor(group)
      group += 1
      return color
    }
    var sum = SIMD4<Float>.zero
    var total: Float = 0
    for _ in 0..<groups {
      let weight = weights[group]
      sum += weight * groupColor(group)
      total += weight
      group += 1
    }
    return total > 0 ? sum / total : sum
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
    return composite(
      map: map, mask: mask, shading: shading, background: background, parallelism: parallelism)
  }

  /// Where each ink pixel's surface lies in depth and how it slopes, for detail that is a
  /// solid (wood grain, whose rings a cut shows at its own depth) or laid on the surface
  /// (stone's crystals, foreshortened on a steep wall): the relief's heights and slopes
  /// times its scale (the factor on its slopes, so heights in pixels).
  public struct SurfaceDepth: Sendable {
    let field: HeightField
    let scale: Float

    /// The depth of `field`'s surface, whose slopes are multiplied by `scale`.
    public init(_ field: HeightField, scale: Float) {
      (self.field, self.scale) = (field, scale)
    }

    /// A raw view of the heights for an inner loop (valid inside `withView` only): plain
    /// values, so a sink holding it copies as cheaply as one without it.
    struct View {
      let heights: UnsafeBufferPointer<Float>
      let slopes: UnsafeBufferPointer<SIMD2<Float>>
      let region: PixelRect
      let scale: Float

      /// The surface's height at canvas pixel (`x`, `y`), in pixels (negative below the
      /// plate; 0 outside the field's region), and where its own pattern point lies from
      /// the pixel (`Speckle.unfolding`).
      @inline(__always)
      func surface(x: Int, y: Int) -> (z: Float, unfold: (offset: SIMD2<Float>, stretch: Float)) {
        let (rx, ry) = (x - region.x, y - region.y)
        guard rx >= 0, ry >= 0, rx < region.width, ry < region.height else {
          return (0, (.zero, 1))
        }
        let i = ry * region.width + rx
        let z = heights[i] * scale
        return (z, Speckle.unfolding(z: z, gradient: slopes[i] * scale))
      }
    }

    /// Calls `body` with a raw view of the heights and slopes.
    func withView<R>(_ body: (View) -> R) -> R {
      field.plane.pixels.withUnsafeBufferPointer { heights in
        field.slopes.withUnsafeBufferPointer { slopes in
          body(View(heights: heights, slopes: slopes, region: field.region, scale: scale))
        }
      }
    }
  }

  /// Where the compositor's taps come from: a kept lookup map's bands, or a plan, whose
  /// bands are made into pixels as the compositor reaches them (no taps stored).
  struct TapSource: Sendable {
    /// The ink bounds on the canvas.
    let rect: PixelRect
    /// The shading image's size the taps refer to.
    let shadingWidth: Int
    let shadingHeight: Int
    let map: LookupMap?
    let plan: LookupPlan?

    init(_ map: LookupMap) {
      (rect, shadingWidth, shadingHeight) = (map.rect, map.shadingWidth, map.shadingHeight)
      (self.map, plan) = (map, nil)
    }

    init(_ plan: LookupPlan) {
      (rect, shadingWidth, shadingHeight) = (plan.ink, plan.shadingWidth, plan.shadingHeight)
      (map, self.plan) = (nil, plan)
    }
  }

  /// Composites from a lookup map (see `lookupMap`), whose shading size must be `shading`'s.
  ///
  /// `detail`'s wood grain and speckle tint each ink pixel's color (their colors relative to
  /// `surfaceColor`, the surface's own); its tilts are the lookup map's.
  public static func composite(
    map: LookupMap, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec = .none, surfaceColor: SIMD3<Float> = SIMD3(repeating: 1),
    depth: SurfaceDepth? = nil, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    canvas(
      composite(
        TapSource(map), mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, layers: nil, parallelism: parallelism,
        store: LinearStore()
      ), mask: mask)
  }

  /// Composites from a lookup plan (see `lookupPlan`), whose shading size must be
  /// `shading`'s: each band of taps is made as its rows are composited and let go, so the
  /// taps are never all held; the same bytes as from the plan's lookup map.
  public static func composite(
    plan: LookupPlan, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec = .none, surfaceColor: SIMD3<Float> = SIMD3(repeating: 1),
    depth: SurfaceDepth? = nil, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    canvas(
      composite(
        TapSource(plan), mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, layers: nil, parallelism: parallelism,
        store: LinearStore()
      ), mask: mask)
  }

  /// `composite(map:mask:shading:background:detail:surfaceColor:parallelism:)` as the 8-bit
  /// sRGB codes its PNG stores (`SRGB.codes8` of each pixel), written as each pixel is made:
  /// the same bytes in a quarter of the memory, and no float picture held.
  ///
  /// With `layers` (over an opaque `background`), the letters' shadow and the occlusion are
  /// drawn as each pixel is stored: the codes of `DropShadow.apply` and
  /// `AmbientOcclusion.apply` over the float composite.
  public static func compositeCodes(
    map: LookupMap, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec = .none, surfaceColor: SIMD3<Float> = SIMD3(repeating: 1),
    depth: SurfaceDepth? = nil, layers: DrawnLayers? = nil,
    parallelism: Parallelism = .allCores
  ) -> SRGBCanvas {
    codes(
      TapSource(map), mask: mask, shading: shading, background: background, detail: detail,
      surfaceColor: surfaceColor, depth: depth, layers: layers, shape: false,
      parallelism: parallelism
    ).picture
  }

  /// `compositeCodes(map:...)` and, made with it, the codes of the shape: the composite over
  /// a transparent background without the layers (what `composite(map:...)` over
  /// `.transparent` makes, as codes), each pixel shaded once for both.
  public static func compositeCodesAndShape(
    map: LookupMap, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec = .none, surfaceColor: SIMD3<Float> = SIMD3(repeating: 1),
    depth: SurfaceDepth? = nil, layers: DrawnLayers? = nil,
    parallelism: Parallelism = .allCores
  ) -> (picture: SRGBCanvas, shape: SRGBCanvas) {
    let both = codes(
      TapSource(map), mask: mask, shading: shading, background: background, detail: detail,
      surfaceColor: surfaceColor, depth: depth, layers: layers, shape: true,
      parallelism: parallelism)
    return (both.picture, both.shape ?? both.picture)
  }

  /// `compositeCodes(map:...)` from a lookup plan, each band of taps made as its rows are
  /// composited (see `composite(plan:...)`).
  public static func compositeCodes(
    plan: LookupPlan, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec = .none, surfaceColor: SIMD3<Float> = SIMD3(repeating: 1),
    depth: SurfaceDepth? = nil, layers: DrawnLayers? = nil,
    parallelism: Parallelism = .allCores
  ) -> SRGBCanvas {
    codes(
      TapSource(plan), mask: mask, shading: shading, background: background, detail: detail,
      surfaceColor: surfaceColor, depth: depth, layers: layers, shape: false,
      parallelism: parallelism
    ).picture
  }

  /// `compositeCodesAndShape(map:...)` from a lookup plan.
  public static func compositeCodesAndShape(
    plan: LookupPlan, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec = .none, surfaceColor: SIMD3<Float> = SIMD3(repeating: 1),
    depth: SurfaceDepth? = nil, layers: DrawnLayers? = nil,
    parallelism: Parallelism = .allCores
  ) -> (picture: SRGBCanvas, shape: SRGBCanvas) {
    let both = codes(
      TapSource(plan), mask: mask, shading: shading, background: background, detail: detail,
      surfaceColor: surfaceColor, depth: depth, layers: layers, shape: true,
      parallelism: parallelism)
    return (both.picture, both.shape ?? both.picture)
  }

  /// A composite that stores 8-bit sRGB codes (`SRGB.codes8`), as a canvas, and with `shape`
  /// (over an opaque background) the shape's codes (`ShapeCodes`); over a transparent
  /// background the picture is the shape (it has no layers), and `shape` is nil.
  private static func codes(
    _ taps: TapSource, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec, surfaceColor: SIMD3<Float>, depth: SurfaceDepth?,
    layers: DrawnLayers?, shape: Bool, parallelism: Parallelism
  ) -> (picture: SRGBCanvas, shape: SRGBCanvas?) {
    precondition(
      !shape || background.rgba.w == 1 || (background.rgba.w == 0 && layers == nil),
      "a shape beside a translucent background, or layers over a transparent one")
    let shaped = shape && background.rgba.w == 1
    return SRGB.encode8Table.withUnsafeBufferPointer { table in
      let store = CodeStore(table: UnsafeBufferPointerBox(table))
      func shapeCanvas(_ parts: (ink: PixelRect, shape: [SIMD4<UInt8>])) -> SRGBCanvas? {
        shaped
          ? SRGBCanvas(
            width: mask.width, height: mask.height, fill: ShapeCodes.none,
            contentRect: parts.ink, content: parts.shape) : nil
      }
      guard let layers else {
        let parts = composite(
          taps, mask: mask, shading: shading, background: background, detail: detail,
          surfaceColor: surfaceColor, depth: depth, layers: nil, parallelism: parallelism,
          store: store, shapeTable: shaped ? table : nil)
        return (
          SRGBCanvas(
            width: mask.width, height: mask.height, fill: parts.fill, contentRect: parts.ink,
            content: parts.pixels),
          shapeCanvas((parts.ink, parts.shape))
        )
      }
      let canvas = PixelRect(x: 0, y: 0, width: mask.width, height: mask.height)
      return layers.withView(fill: background.rgba, canvas: canvas) { view in
        // The ink bounds grown to hold what the layers draw around the letters.
        let parts = composite(
          taps, mask: mask, shading: shading, background: background, detail: detail,
          surfaceColor: surfaceColor, depth: depth, layers: view, parallelism: parallelism,
          store: store, shapeTable: shaped ? table : nil,
          grown: { layers.content($0, canvas: canvas) })
        return (
          SRGBCanvas(
            width: mask.width, height: mask.height, fill: parts.fill, contentRect: parts.ink,
            content: parts.pixels),
          shapeCanvas(
            (shading.width > 0 ? taps.rect : .init(x: 0, y: 0, width: 0, height: 0), parts.shape))
        )
      }
    }
  }

  /// The pixels of `content` outside `ink` (`out` is `content`'s first): the fill with the
  /// layers drawn, their coverage (if any) read from the mask as `DropShadow.apply` reads it.
  private static func fillAround<Store: PixelStore>(
    _ ink: PixelRect, in content: PixelRect, out: UnsafeMutablePointer<Store.Pixel>,
    fill: SIMD4<Float>, layers: DrawnLayers.View, mask: CoverageMask, parallelism: Parallelism,
    store: Store
  ) {
    let window = mask.window
    let view = UncheckedSendable(layers)
    let out = UncheckedSendable(out)
    mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
      let coverage = UnsafeBufferPointerBox(coverage)
      parallelism.forEachBand(content.height, bandSize: 32) { rows in
        for row in rows {
          let y = content.y + row
          let line = out.value + row * content.width - content.x
          @inline(__always) func outside(_ x: Int) {
            let a =
              window.contains(x: x, y: y)
              ? coverage.buffer[(y - window.y) * window.width + x - window.x] : 0
            (line + x).initialize(to: store(view.value.pixel(fill, coverage: a, x: x, y: y)))
          }
          guard y >= ink.y && y < ink.maxY else {
            for x in content.x..<content.maxX { outside(x) }
            continue
          }
          for x in content.x..<ink.x { outside(x) }
          for x in ink.maxX..<content.maxX { outside(x) }
        }
      }
    }
  }

  /// A float composite's parts as a canvas image.
  private static func canvas(
    _ parts: (fill: SIMD4<Float>, ink: PixelRect, pixels: [SIMD4<Float>], shape: [SIMD4<UInt8>]),
    mask: CoverageMask
  ) -> CanvasImage {
    CanvasImage(
      width: mask.width, height: mask.height, fill: parts.fill, contentRect: parts.ink,
      content: RGBAImage(width: parts.ink.width, height: parts.ink.height, pixels: parts.pixels))
  }

  /// The compositor over the taps' ink bounds (their shading size must be `shading`'s):
  /// the fill outside the ink bounds, those bounds (empty without a shading image) and the
  /// pixels inside them, each linear color stored as `store` makes it.
  ///
  /// A map's bands are walked tap by tap (`inkColor`); a plan's are made into pixels as
  /// their taps are found (`ColorSink`), the same arithmetic, so the same bytes.
  private static func composite<Store: PixelStore>(
    _ taps: TapSource, mask: CoverageMask, shading: RGBAImage, background: Background,
    detail: DetailSpec, surfaceColor: SIMD3<Float>, depth: SurfaceDepth?,
    layers: DrawnLayers.View?, parallelism: Parallelism, store: Store,
    shapeTable: UnsafeBufferPointer<UInt8>? = nil, grown: ((PixelRect) -> PixelRect)? = nil
  ) -> (fill: Store.Pixel, ink: PixelRect, pixels: [Store.Pixel], shape: [SIMD4<UInt8>]) {
    precondition(
      taps.shadingWidth == shading.width && taps.shadingHeight == shading.height,
      "lookups for another shading size")
    // The tint and the layers are read in place, at every pixel (`withPayload`).
    return withPayload(of: detail.colors ? SurfaceDetail(detail, base: surfaceColor) : nil) {
      tinting in
      withPayload(of: layers) { layers in
        // Only a tint of a solid (grain) or of the surface itself (speckle) reads the depth.
        guard let depth, detail.colorsReadTheRelief else {
          return composite(
            taps, mask: mask, shading: shading, background: background, tinting: tinting,
            depth: nil, layers: layers, parallelism: parallelism, store: store,
            shapeTable: shapeTable, grown: grown)
        }
        return depth.withView { view in
          composite(
            taps, mask: mask, shading: shading, background: background, tinting: tinting,
            depth: view, layers: layers, parallelism: parallelism, store: store,
            shapeTable: shapeTable, grown: grown)
        }
      }
    }
  }

  /// `composite` with the detail's tint made and the depth, where the tint reads it, viewed.
  ///
  /// With `layers`, each pixel of the ink bounds has the shadow and the occlusion drawn
  /// before it is stored (`DrawnLayers.View.pixel`). With `shapeTable`, the shape's codes are
  /// stored too (`ShapeCodes`: the ink bounds' pixels over a transparent background);
  /// otherwise `shape` is empty.
  ///
  /// With `grown` (and `layers`), the pixels are those of `grown(ink bounds)`, which holds
  /// the ink bounds and what the layers draw around them: the ink pixels are composited in
  /// place and the others are the fill with the layers drawn (`fillAround`), so no ink-sized
  /// copy is made. The rect returned is the pixels' (the ink bounds without `grown`).
  private static func composite<Store: PixelStore>(
    _ taps: TapSource, mask: CoverageMask, shading: RGBAImage, background: Background,
    tinting: UnsafePointer<SurfaceDetail>?, depth: SurfaceDepth.View?,
    layers: UnsafePointer<DrawnLayers.View>?, parallelism: Parallelism, store: Store,
    shapeTable: UnsafeBufferPointer<UInt8>?,
    grown: ((PixelRect) -> PixelRect)?
  ) -> (fill: Store.Pixel, ink: PixelRect, pixels: [Store.Pixel], shape: [SIMD4<UInt8>]) {
    let rect = taps.rect
    let maxLevel = BallPyramid.maxLevel(width: shading.width, height: shading.height)
    let fill = background.rgba
    let ink = shading.width > 0 ? rect : PixelRect(x: 0, y: 0, width: 0, height: 0)
    let center = lookup(SIMD3(0, 0, 1), width: shading.width, height: shading.height)
    let flatColor =
      shading.width > 0
      ? shading.pixels.withUnsafeBufferPointer {
        RGBAImage.sampleBilinear(
          $0, width: shading.width, height: shading.height, x: center.x, y: center.y)
      } : .zero
    // Every pixel is written exactly once (background where the coverage is 0), so the
    // storage starts uninitialized instead of being filled first.
    let pyramid = BallPyramid(shading, maxLevel: maxLevel)
    let fillPixel = store(fill)
    // (A raw view, read only inside this call.)
    let depth = UncheckedSendable(depth)
    let layers = UncheckedSendable(layers)
    let tinting = UncheckedSendable(tinting)
    let layered = layers.value != nil
    let window = mask.window
    precondition(ink.intersection(window) == ink || ink.isEmpty, "ink outside the mask's window")
    let shaped = shapeTable != nil
    // The pixels' rect: the ink bounds, or grown around them for the layers.
    let content = layers.value != nil ? grown?(ink) ?? ink : ink
    precondition(ink.isEmpty || content.intersection(ink) == ink, "content without the ink")
    let stride = content.width
    var pixels: [Store.Pixel] = []
    let shapePixels = [SIMD4<UInt8>](
      uninitializedCount: shaped ? ink.width * ink.height : 0
    ) { shapeBuffer, shapeCount in
      pixels = [Store.Pixel](uninitializedCount: content.width * content.height) {
        buffer, count in
        // No pixels, no base address.
        guard let base = buffer.baseAddress else { return }
        count = content.width * content.height
        if content != ink, let drawn = layers.value {
          fillAround(
            ink, in: content, out: base, fill: fill, layers: drawn.pointee, mask: mask,
            parallelism: parallelism, store: store)
        }
        guard !ink.isEmpty else { return }
        // The ink bounds' first pixel; a row of them is `stride` pixels from the next.
        let out = UncheckedSendable(base + (ink.y - content.y) * stride + ink.x - content.x)
        let shape = UncheckedSendable(
          shapeTable.flatMap { table in
            shapeBuffer.baseAddress.map { ShapeCodes(base: $0, table: table) }
          })
        mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
          let coverage = UnsafeBufferPointerBox(coverage)
          pyramid.withView { view in
            let view = UncheckedSendable(view)
            parallelism.forEachBand(ink.height, bandSize: LookupMap.bandRows) { rows in
              let index = rows.lowerBound / LookupMap.bandRows
              TapBand.cellCenters.withUnsafeBufferPointer { centers in
                if let plan = taps.plan {
                  var sink = ColorSink(
                    ColorSink.Context(
                      ink: ink, window: window, coverage: coverage.buffer, pyramid: view.value,
                      centers: centers, maxLevel: maxLevel, flatColor: flatColor, fill: fill,
                      fillPixel: fillPixel, tinting: tinting.value, depth: depth.value,
                      layers: layers.value, store: store,
                      untinted: tinting.value == nil && layers.value == nil,
                      layered: layered, shaped: shaped, stride: stride),
                    row: rows.lowerBound,
                    out: out.value + rows.lowerBound * stride,
                    shape: shape.value?.advanced(by: rows.lowerBound * ink.width))
                  plan.band(index, into: &sink)
                  return
                }
                guard let band = taps.map?.bands[index] else { return }
                band.groupCounts.withUnsafeBufferPointer { groupCounts in
                  band.groupWeights.withUnsafeBufferPointer { weights in
                    band.groupGrids.withUnsafeBufferPointer { grids in
                      band.groupLevels.withUnsafeBufferPointer { levels in
                        band.points.withUnsafeBufferPointer { points in
                          var group = 0
                          var point = 0
                          // The tint's cells, kept from pixel to pixel.
                          var kept = SurfaceDetail.Kept()
                          for row in rows {
                            let source =
                              (ink.y + row - window.y) * window.width + ink.x - window.x
                            let local = (row - rows.lowerBound) * ink.width
                            // The row's first pixel (the stdlib's pointer, always inlined).
                            let row0 = out.value + row * stride
                            for column in 0..<ink.width {
                              let a = coverage.buffer[source + column]
                              guard a > 0 else {
                                if shaped {
                                  shape.value.unsafelyUnwrapped.storeNone(row * ink.width + column)
                                }
                                // (The flag first: binding the optional view copies it.)
                                if layered, let drawn = layers.value {
                                  (row0 + column).initialize(
                                    to: store(
                                      drawn.pointee.pixel(
                                        fill, coverage: 0, x: ink.x + column, y: ink.y + row)))
                                } else {
                                  (row0 + column).initialize(to: fillPixel)
                                }
                                continue
                              }
                              let groups = groupCounts[local + column]
                              let color =
                                groups == TapBand.flat
                                ? flatColor
                                : inkColor(
                                  groups: Int(groups), group: &group, point: &point,
                                  weights: weights, grids: grids, levels: levels,
                                  points: points, centers: centers, pyramid: view.value)
                              (row0 + column).initialize(
                                to: inkPixel(
                                  color, coverage: a, x: ink.x + column, y: ink.y + row,
                                  tinting: tinting.value, depth: depth.value,
                                  layers: layers.value,
                                  fill: fill, store: store, shape: shape.value,
                                  at: row * ink.width + column, kept: &kept))
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
      shapeCount = shaped ? ink.width * ink.height : 0
    }
    return (fillPixel, content, pixels, shapePixels)
  }

  /// An ink pixel as the compositor stores it: `color` tinted by the detail at canvas pixel
  /// (`x`, `y`) (at the surface's depth there, where `depth` is given), then over `fill` by
  /// its coverage `a` (`color * a + fill * (1 - a)`, alpha 1), or with alpha `a` over a
  /// transparent fill.
  ///
  /// With `shape`, its pixel `index` gets the tinted color with alpha `a` (`ShapeCodes`).
  @inline(__always)
  static func inkPixel<Store: PixelStore>(
    _ color: SIMD4<Float>, coverage a: Float, x: Int, y: Int,
    tinting: UnsafePointer<SurfaceDetail>?, depth: SurfaceDepth.View?,
    layers: UnsafePointer<DrawnLayers.View>? = nil, fill: SIMD4<Float>,
    store: Store, shape: ShapeCodes? = nil, at index: Int = 0, kept: inout SurfaceDetail.Kept
  ) -> Store.Pixel {
    var rgb = SIMD3(color.x, color.y, color.z)
    if let tinting {
      let surface = depth?.surface(x: x, y: y) ?? (0, (.zero, 1))
      rgb *= tinting.pointee.tint(
        x: x, y: y, z: surface.z, unfold: surface.unfold, kept: &kept)
    }
    shape?.store(index, rgb: rgb, coverage: a)
    let p = overFill(rgb, coverage: a, fill: fill)
    return store(layers?.pointee.pixel(p, coverage: a, x: x, y: y) ?? p)
  }

  /// `rgb` with coverage `a` over `fill`: opaque (`rgb * a + fill * (1 - a)`, alpha 1), or
  /// `rgb` with alpha `a` over a transparent fill.
  @inline(__always)
  static func overFill(_ rgb: SIMD3<Float>, coverage a: Float, fill: SIMD4<Float>) -> SIMD4<Float> {
    fill.w == 0 ? SIMD4(rgb, a) : SIMD4(rgb * a + SIMD3(fill.x, fill.y, fill.z) * (1 - a), 1)
  }

  /// A shape composited over a transparent background, put over an opaque color: the same
  /// pixels `composite` makes over that color (`color * coverage + background * (1 -
  /// coverage)`, alpha 1), without shading any pixel again.
  public static func over(
    _ shape: CanvasImage, background: SIMD3<Float>, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let fill = SIMD4(background, 1)
    let rect = shape.contentRect
    let pixels = [SIMD4<Float>](uninitializedCount: rect.width * rect.height) {
      buffer, count in
      let out = SharedPointer(buffer)
      shape.content.pixels.withUnsafeBufferPointer { source in
        let source = UnsafeBufferPointerBox(source)
        parallelism.forEachBand(rect.height, bandSize: 64) { rows in
          for i in rows.lowerBound * rect.width..<rows.upperBound * rect.width {
            let p = source.buffer[i]
            let a = p.w
            out.initialize(
              i,
              to: a > 0 ? SIMD4(SIMD3(p.x, p.y, p.z) * a + background * (1 - a), 1) : fill)
          }
        }
      }
      count = rect.width * rect.height
    }
    return CanvasImage(
      width: shape.width, height: shape.height, fill: fill, contentRect: rect,
      content: RGBAImage(width: rect.width, height: rect.height, pixels: pixels))
  }

  /// The normals as an image for inspection: (n + 1) / 2 in r, g, b (y down), alpha 1, over
  /// the whole canvas (flat (0, 0, 1) outside the region); one normal per pixel center.
  public static func normalMap(height: HeightField, scale: Float) -> RGBAImage {
    var image = RGBAImage(
      width: height.canvasWidth, height: height.canvasHeight, fill: SIMD4(0.5, 0.5, 1, 1))
    let region = height.region.intersection(
      PixelRect(x: 0, y: 0, width: image.width, height: image.height))
    for y in region.y..<region.maxY {
      for x in region.x..<region.maxX {
        let n = normal(slope: height.slope(x: x, y: y), scale: scale)
        image[x, y] = SIMD4((n + 1) * 0.5, 1)
      }
    }
    return image
  }
}
