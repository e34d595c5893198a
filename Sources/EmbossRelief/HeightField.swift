import EmbossGeometry
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

  /// How much the profile's slope (per unit of the radius) may change across a pixel before
  /// the pixel is sampled 4 x 4.
  static let steepChange: Float = 0.25

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
  /// would see them. With `soften`, the heights are blurred and slopes come from their
  /// differences. An empty mask gives an empty region. The result does not depend on the
  /// thread count. Without `subSamples` no pixel is sampled 4 x 4 (heights alone, for a
  /// mesh).
  public static func make(
    mask: CoverageMask, relief: ReliefSpec, subSamples: Bool = true,
    parallelism: Parallelism = .allCores
  ) -> HeightField {
    let region = mask.inkBounds.isEmpty ? mask.inkBounds : mask.inkBounds.grown(by: 1)
    let sign: Float = relief.direction == .raised ? 1 : -1
    let radius = relief.radius
    let profile = relief.profile
    let soften = relief.effectiveSoften
    let count = region.width * region.height
    guard count > 0 else {
      return HeightField(
        canvasWidth: mask.width, canvasHeight: mask.height, region: region,
        plane: Plane(width: region.width, height: region.height), slopes: [],
        samples: SubSamples())
    }
    let outline =
      mask.outline ?? Outline(traced: EdgeDistance.isoline(mask: mask.plane, region: region))
    let geometry = OutlineDistance(outline)
    var distance = [Float](repeating: .infinity, count: count)
    var feature = [Int32](repeating: -1, count: count)
    let bandRows = max(16, (region.height + parallelism.threads - 1) / parallelism.threads)
    distance.withUnsafeMutableBufferPointer { distance in
      let distance = SharedPointer(distance)
      feature.withUnsafeMutableBufferPointer { feature in
        let feature = SharedPointer(feature)
        parallelism.forEachBand(region.height, bandSize: bandRows) { rows in
          geometry.scan(
            region: region, rows: rows, inner: radius + 1.5, outer: 2.5,
            distance: distance.buffer, feature: feature.buffer)
        }
      }
    }
    var heights = [Float](repeating: 0, count: count)
    var slopes = [SIMD2<Float>](repeating: .zero, count: count)
    let bands = (region.height + bandRows - 1) / bandRows
    var bandSamples = [SubSamples](repeating: SubSamples(), count: bands)
    let bevel = Bevel(
      geometry: geometry, region: region, mask: mask, radius: radius, profile: profile, sign: sign)
    heights.withUnsafeMutableBufferPointer { heightOut in
      let heightOut = SharedPointer(heightOut)
      slopes.withUnsafeMutableBufferPointer { slopeOut in
        let slopeOut = SharedPointer(slopeOut)
        bandSamples.withUnsafeMutableBufferPointer { samplesOut in
          let samplesOut = SharedPointer(samplesOut)
          distance.withUnsafeBufferPointer { distance in
            let distance = UnsafeBufferPointerBox(distance)
            feature.withUnsafeBufferPointer { feature in
              let feature = UnsafeBufferPointerBox(feature)
              parallelism.forEachBand(region.height, bandSize: bandRows) { rows in
                samplesOut[rows.lowerBound / bandRows] = bevel.shade(
                  rows: rows, distance: distance.buffer, feature: feature.buffer,
                  heights: heightOut.buffer, slopes: slopeOut.buffer,
                  sample: soften == 0 && subSamples)
              }
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
