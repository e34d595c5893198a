import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

/// Slopes at points inside a pixel, for pixels whose normal changes too fast for one sample
/// (the mask's edge, creases where two walls meet, the mitres of a chisel).
public struct SubSamples: Sendable, Equatable {
  /// Samples per side of a pixel: 4 x 4 points at the centers of a 4 x 4 grid.
  public static let perSide = 4
  /// Region pixel indices (row-major), ascending.
  public var pixels: [Int32] = []
  /// Pixel k's slopes are `slopes[offsets[k]..<offsets[k + 1]]`: 16 in row-major order of the
  /// 4 x 4 grid (zero, with weight 0, for cells with no ink); or 1, the slope just inside the
  /// edge, for a pixel whose ink is a sliver no cell reaches.
  public var offsets: [Int32] = [0]
  /// The sub-samples' slopes (dh/dx, dh/dy); see `offsets`.
  public var slopes: [SIMD2<Float>] = []
  /// The share (0...1) of each sample's cell that is ink: its weight in the pixel's color.
  public var weights: [Float] = []

  /// How many pixels are sub-sampled.
  public var count: Int { pixels.count }

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

  /// How much the normals (at a depth equal to the radius) may bend across a pixel (their
  /// second difference) before it is sampled 4 x 4.
  ///
  /// Low enough that slanted bevels, where neighbouring pixels see edge segments of slightly
  /// different directions, are sampled too: one sample there speckles under a mirror.
  static let sampleThreshold: Float = 0.02

  /// Builds the relief of `mask` (CIHeightFieldFromMask's role).
  ///
  /// Distances are exact to the mask's 0.5 iso-line (`EdgeDistance`), so acute notches, thin
  /// strokes and curves get the same bevel. Heights follow `relief.profile` over
  /// `relief.radius`. Each pixel's slope is the profile's rise across the pixel along the
  /// distance's own gradient (the direction away from the nearest edge point), not a finite
  /// difference of heights: where two walls meet, each side keeps its own slope and the
  /// crease stays a crease. Pixels where the normal changes fast (the mask's edge, creases,
  /// mitres) also get 4 x 4 sub-pixel samples, each with its own nearest edge, as a render at
  /// 4x the size would see them. With `soften`, the heights are blurred and slopes come from
  /// their differences. An empty mask gives an empty region. The result does not depend on
  /// the thread count.
  public static func make(
    mask: CoverageMask, relief: ReliefSpec, parallelism: Parallelism = .allCores
  ) -> HeightField {
    let region = mask.inkBounds.isEmpty ? mask.inkBounds : mask.inkBounds.grown(by: 1)
    let sign: Float = relief.direction == .raised ? 1 : -1
    let radius = relief.radius
    let profile = relief.profile
    let soften = relief.effectiveSoften
    // Only distances up to the radius shape the bevel, so the field is computed in bands of
    // rows, each with a halo of rows: every pixel within radius + 2 of an edge finds the same
    // edge as over the whole region, and the rest is plateau either way. The halo also holds
    // what that edge's shape depends on: a rebuilt notch tip reads the walls up to 6 segments
    // along the polygon (under 9 pixels) and lies up to 3 pixels from it. Memory stays per
    // band. Any banding gives the same heights, so bands may follow the thread count: one
    // band per thread (each band's halo is work done twice), at most 1024 rows (memory).
    let halo = Int(radius.rounded(.up)) + 16
    let perThread = (region.height + parallelism.threads - 1) / parallelism.threads
    let bandRows = max(2 * halo, min(1024, perThread))
    let count = region.width * region.height
    var heights = [Float](repeating: 0, count: count)
    var slopes = [SIMD2<Float>](repeating: .zero, count: count)
    let bands = region.height == 0 ? 0 : (region.height + bandRows - 1) / bandRows
    var bandSamples = [SubSamples](repeating: SubSamples(), count: bands)
    heights.withUnsafeMutableBufferPointer { heightOut in
      let heightOut = SharedPointer(heightOut)
      slopes.withUnsafeMutableBufferPointer { slopeOut in
        let slopeOut = SharedPointer(slopeOut)
        bandSamples.withUnsafeMutableBufferPointer { samplesOut in
          let samplesOut = SharedPointer(samplesOut)
          parallelism.forEachBand(region.height, bandSize: bandRows) { rows in
            let band = PixelRect(
              x: region.x, y: region.y + rows.lowerBound - halo, width: region.width,
              height: rows.count + 2 * halo)
            let field = EdgeDistance.field(mask: mask.plane, region: band, exactWithin: radius + 2)
            field.withSegments { segments in
              let bevel = Bevel(field: field, segments: segments, radius: radius, profile: profile)
              let w = region.width
              // Slopes one row beyond the band's rows too: the sampling test compares neighbours.
              let first = halo - 1
              let last = halo + rows.count
              var local = [SIMD2<Float>](repeating: .zero, count: (last - first + 1) * w)
              // The normals at a depth equal to the radius, for the kink test.
              var normals = [SIMD3<Float>](repeating: SIMD3(0, 0, 1), count: local.count)
              for y in first...last {
                for x in 0..<w {
                  let s = bevel.slope(x: x, y: y)
                  local[(y - first) * w + x] = s
                  if s != .zero {
                    normals[(y - first) * w + x] = normalized(
                      SIMD3(-radius * s.x, -radius * s.y, 1))
                  }
                }
              }
              var samples = SubSamples()
              for row in rows {
                let y = row - rows.lowerBound + halo
                for x in 0..<w {
                  let i = y * w + x
                  let out = row * w + x
                  heightOut[out] = sign * bevel.height(field.distance[i])
                  slopeOut[out] = sign * local[(y - first) * w + x]
                  guard soften == 0, field.coverage[i] > 0 else { continue }
                  if field.coverage[i] < 1
                    || bevel.varies(normals, w: w, x: x, y: y - first, rows: last - first + 1)
                  {
                    bevel.appendSamples(x: x, y: y, index: Int32(out), sign: sign, to: &samples)
                  }
                }
              }
              samplesOut[rows.lowerBound / bandRows] = samples
            }
          }
        }
      }
    }
    var samples = SubSamples()
    // Room for all of them first: growing would copy and touch fresh pages.
    samples.pixels.reserveCapacity(bandSamples.reduce(0) { $0 + $1.pixels.count })
    samples.offsets.reserveCapacity(bandSamples.reduce(1) { $0 + $1.pixels.count })
    samples.slopes.reserveCapacity(bandSamples.reduce(0) { $0 + $1.slopes.count })
    samples.weights.reserveCapacity(bandSamples.reduce(0) { $0 + $1.weights.count })
    for band in bandSamples { samples.append(band) }
    var plane = Plane(width: region.width, height: region.height, pixels: heights)
    if soften > 0 {
      plane = GaussianBlur.apply(plane, sigma: soften)
      slopes = Self.differences(plane)
      samples = SubSamples()
    }
    return HeightField(
      canvasWidth: mask.width, canvasHeight: mask.height, region: region, plane: plane,
      slopes: slopes, samples: samples)
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

/// The bevel over one band's edge field: heights and slopes at pixel centers and inside
/// pixels.
struct Bevel {
  /// The sub-samples' offsets from the pixel's center, lane j * perSide + i.
  static let offsetX = Lanes(offsets { i, _ in i })
  static let offsetY = Lanes(offsets { _, j in j })
  typealias Lanes = SIMD16<Float>

  private static func offsets(_ pick: (Int, Int) -> Int) -> [Float] {
    let n = SubSamples.perSide
    precondition(n * n == Lanes.scalarCount, "the sub-samples fill one SIMD16")
    let step = 1 / Float(n)
    return (0..<(n * n)).map { (Float(pick($0 % n, $0 / n)) + 0.5) * step - 0.5 }
  }

  let field: EdgeDistance.Field
  /// `field`'s segments, for the distance queries.
  let segments: EdgeDistance.Segments
  let radius: Float
  let profile: ReliefProfile

  /// Height (0...1) at signed distance `d` from the edge: 0 outside.
  @inline(__always)
  func height(_ d: Float) -> Float {
    d > 0 ? profile.height(d / radius) : 0
  }

  /// The direction in which the signed distance grows at a point `delta` away from its
  /// nearest edge point, on a segment with inward normal `normal`.
  @inline(__always)
  private func gradient(delta: SIMD2<Float>, normal: SIMD2<Float>, inside: Bool) -> SIMD2<Float> {
    let length = (delta * delta).sum().squareRoot()
    guard length > 1e-4 else { return normal }
    return inside ? delta / length : -delta / length
  }

  /// The slope of the 0...1 heights at signed distance `d` inside, per pixel: the profile's
  /// derivative over the radius (0 outside).
  @inline(__always)
  func rise(_ d: Float) -> Float {
    d >= 0 ? profile.slope(d / radius) / radius : 0
  }

  /// The slope at grid point (x, y): the profile's derivative at the pixel's distance, along
  /// the distance's gradient. (Not a difference of heights: at a crease each side keeps its
  /// own slope, and near the edge of a round bevel, where the slope grows without bound, the
  /// sample is the surface at that point, so colors average the same way at any resolution.)
  func slope(x: Int, y: Int) -> SIMD2<Float> {
    let i = y * field.width + x
    let cell = Int(field.nearestCell[i])
    guard cell >= 0, field.coverage[i] > 0 else { return .zero }
    let d = field.distance[i]
    let nearest = segments.nearest(x: x, y: y, cell: cell)
    let g = gradient(delta: nearest.delta, normal: nearest.normal, inside: field.coverage[i] >= 0.5)
    return rise(d) * g
  }

  /// Whether the normals (at a depth equal to the radius) bend at pixel (x, y) rather than
  /// turn smoothly: the second difference across it, along either axis or diagonal, is over
  /// `HeightField.sampleThreshold`.
  ///
  /// A crease, a mitre or the top edge of a chisel is a kink
  /// there; a smooth bevel, however steep, is not, and one filtered sample renders it.
  /// `normals` holds `rows` rows of `w` normals; y indexes them.
  func varies(_ normals: [SIMD3<Float>], w: Int, x: Int, y: Int, rows: Int) -> Bool {
    @inline(__always) func normal(_ x: Int, _ y: Int) -> SIMD3<Float> {
      normals[min(max(y, 0), rows - 1) * w + min(max(x, 0), w - 1)]
    }
    let center = 2 * normal(x, y)
    let limit = HeightField.sampleThreshold * HeightField.sampleThreshold
    for direction in 0..<4 {
      let dx = direction == 1 ? 0 : 1
      let dy = direction == 0 ? 0 : (direction == 3 ? -1 : 1)
      let d = normal(x + dx, y + dy) + normal(x - dx, y - dy) - center
      if (d * d).sum() > limit { return true }
    }
    return false
  }

  /// Appends to `samples` the slopes at the 4 x 4 sub-pixel points of pixel (x, y) (region
  /// pixel `index`), times `sign`, each from its own nearest edge among the segments the
  /// pixel and its neighbours found, weighted by the share of its quarter-pixel cell that is
  /// ink (the cell against a straight edge at the point's signed distance) and taken at the
  /// middle of that inked part, so the cells along the edge count as much as the ink they
  /// hold, as in a render at 4x the size.
  ///
  /// A pixel whose cells hold no ink gets one slope, just
  /// inside the edge (its ink is a sliver along it). Appends nothing when no edge is near.
  func appendSamples(x: Int, y: Int, index: Int32, sign: Float, to samples: inout SubSamples) {
    let w = field.width
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 9) { cells in
      var count = 0
      for ny in max(0, y - 1)...min(field.height - 1, y + 1) {
        for nx in max(0, x - 1)...min(w - 1, x + 1) {
          let c = Int(field.nearestCell[ny * w + nx])
          guard c >= 0 else { continue }
          // Kept sorted: on a tie the smaller cell wins, as in `EdgeDistance`.
          var k = count
          var duplicate = false
          for j in 0..<count where cells[j] == c { duplicate = true }
          guard !duplicate else { continue }
          while k > 0 && cells[k - 1] > c {
            cells[k] = cells[k - 1]
            k -= 1
          }
          cells[k] = c
          count += 1
        }
      }
      guard count > 0 else { return }
      let n = SubSamples.perSide
      let step = 1 / Float(n)
      let first = samples.slopes.count
      var anyInk = false
      var closest: (distance: Float, gradient: SIMD2<Float>) = (.infinity, .zero)
      // The candidate segments, cell by cell: the pixel's center relative to each one's cell.
      var total = 0
      for c in 0..<count { total += segments.range(cells[c]).count }
      withUnsafeTemporaryAllocation(of: SIMD2<Float>.self, capacity: total) { centers in
        withUnsafeTemporaryAllocation(of: Int.self, capacity: count + 1) { ends in
          var m = 0
          for c in 0..<count {
            for k in segments.range(cells[c]) {
              centers[m] = segments.origin(x: x, y: y, segment: k)
              m += 1
            }
            ends[c + 1] = m
          }
          ends[0] = 0
          // All 16 sub-samples at once, lane l = j * n + i: the same operations in the same
          // order as one sample at a time, so the result is the same to the bit.
          var bestDistance = Lanes(repeating: .infinity)
          var bestSquared = Lanes(repeating: .infinity)
          var bestDX = Lanes.zero
          var bestDY = Lanes.zero
          var bestNX = Lanes.zero
          var bestNY = Lanes.zero
          for c in 0..<count {
            var squared = Lanes(repeating: .infinity)
            var dX = Lanes.zero
            var dY = Lanes.zero
            var nX = Lanes.zero
            var nY = Lanes.zero
            let base = segments.range(cells[c]).lowerBound
            for e in ends[c]..<ends[c + 1] {
              let k = base + e - ends[c]
              let s = segments.segments[k]
              let extra = segments.extras[k]
              let px = Lanes(repeating: centers[e].x) + Self.offsetX
              let py = Lanes(repeating: centers[e].y) + Self.offsetY
              let vx = s.z - s.x
              let vy = s.w - s.y
              var t = ((px - s.x) * vx + (py - s.y) * vy) * extra.z
              // min(max(t, 0), 1) as the scalar functions take it (+0 for t <= 0).
              t.replace(with: 0, where: t .<= 0)
              t.replace(with: 1, where: t .> 1)
              let dx = px - (s.x + vx * t)
              let dy = py - (s.y + vy * t)
              let q = dx * dx + dy * dy
              let nearer = q .< squared
              squared.replace(with: q, where: nearer)
              dX.replace(with: dx, where: nearer)
              dY.replace(with: dy, where: nearer)
              nX.replace(with: extra.x, where: nearer)
              nY.replace(with: extra.y, where: nearer)
            }
            // Nearest within each cell by squared distance, between cells by distance (ties
            // to the first cell), as `EdgeDistance.Field.nearest` cell by cell; a farther
            // square is never nearer, so the root decides only the rest.
            let distance = squared.squareRoot()
            let take =
              c == 0
              ? SIMDMask<SIMD16<Int32>>(repeating: true)
              : (squared .< bestSquared) .& (distance .< bestDistance)
            bestDistance.replace(with: distance, where: take)
            bestSquared.replace(with: squared, where: take)
            bestDX.replace(with: dX, where: take)
            bestDY.replace(with: dY, where: take)
            bestNX.replace(with: nX, where: take)
            bestNY.replace(with: nY, where: take)
          }
          for j in 0..<n {
            for i in 0..<n {
              let lane = j * n + i
              let offset = SIMD2(Self.offsetX[lane], Self.offsetY[lane])
              let best = (
                distance: bestDistance[lane], delta: SIMD2(bestDX[lane], bestDY[lane]),
                normal: SIMD2(bestNX[lane], bestNY[lane])
              )
              // Which side of the edge polygon the point is on: by its nearest segment's normal,
              // or, where the nearest point is a corner (the normal is ambiguous there), by the
              // coverage interpolated between pixel centers.
              let side = (best.delta * best.normal).sum()
              let inside =
                abs(side) > 0.98 * best.distance
                ? side > 0 : field.coverage(x: x, y: y, offset: offset) >= 0.5
              let g = gradient(delta: best.delta, normal: best.normal, inside: inside)
              let signed = inside ? best.distance : -best.distance
              // The cell spans signed distances signed -/+ half, half = step * (|gx| + |gy|) / 2.
              let half = step * (abs(g.x) + abs(g.y)) * 0.5
              let low = max(0, signed - half)
              let high = signed + half
              let weight = half > 0 ? min(max((high - low) / (2 * half), 0), 1) : (inside ? 1 : 0)
              if weight > 0 {
                samples.slopes.append(sign * rise((low + high) * 0.5) * g)
                samples.weights.append(weight)
                anyInk = true
              } else {
                samples.slopes.append(.zero)
                samples.weights.append(0)
                if best.distance < closest.distance { closest = (best.distance, g) }
              }
            }
          }
        }
      }
      if !anyInk {
        samples.slopes.removeLast(samples.slopes.count - first)
        samples.weights.removeLast(samples.weights.count - first)
        guard closest.distance.isFinite else { return }
        samples.slopes.append(sign * rise(step / 4) * closest.gradient)
        samples.weights.append(1)
      }
      samples.pixels.append(index)
      samples.offsets.append(Int32(samples.slopes.count))
    }
  }
}
