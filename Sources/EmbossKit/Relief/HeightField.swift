import Foundation

/// The shape of the bevel between the mask edge and the plateau.
public enum ReliefProfile: String, Sendable, CaseIterable {
  /// A quarter circle (fillet): steep at the edge, flat at the top, as CIHeightFieldFromMask.
  case round
  /// A straight slope (chisel): constant angle from edge to plateau.
  case linear
  /// An S-curve (smoothstep): flat at the edge and at the top, a pillow-like bevel.
  case smooth

  /// Height (0...1) at `t` = distance from the edge / radius, for t in 0...1.
  @inline(__always)
  func height(_ t: Float) -> Float {
    let t = min(max(t, 0), 1)
    switch self {
    case .round:
      let u = 1 - t
      return (1 - u * u).squareRoot()
    case .linear:
      return t
    case .smooth:
      return t * t * (3 - 2 * t)
    }
  }
}

/// Whether the letters stand out of the surface or are pressed into it.
public enum ReliefDirection: String, Sendable, CaseIterable {
  case raised
  case lowered
}

/// How a mask becomes a relief: a validated value (see `MaterialSpec` for ranges).
public struct ReliefSpec: Sendable, Equatable {
  /// Distance from the edge, in pixels, over which the height rises to the plateau.
  public var radius: Float
  public var profile: ReliefProfile
  /// Multiplies the slopes when normals are taken (CIShadedMaterial's inputScale).
  public var scale: Float
  public var direction: ReliefDirection

  public init(
    radius: Float = 10, profile: ReliefProfile = .round, scale: Float = 10,
    direction: ReliefDirection = .raised
  ) {
    self.radius = radius
    self.profile = profile
    self.scale = scale
    self.direction = direction
  }

  public static let radiusRange: ClosedRange<Float> = 0.5...1000
  public static let scaleRange: ClosedRange<Float> = 0...1000
}

/// A height field over a canvas: 0 on the mask edge rising to 1 (raised) or -1 (lowered) on
/// the plateau, and 0 outside the mask. Only `region` (the ink bounds grown by one pixel) is
/// stored; every height outside it is 0.
public struct HeightField: Sendable, Equatable {
  public let canvasWidth: Int
  public let canvasHeight: Int
  /// Where heights can be non-zero, in canvas pixels; may reach one pixel past the canvas.
  public let region: PixelRect
  /// Heights for `region`, row-major.
  public let plane: Plane

  /// The height at canvas pixel (x, y): 0 outside the region.
  @inline(__always)
  public func height(x: Int, y: Int) -> Float {
    plane.value(x: x - region.x, y: y - region.y)
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

  /// Builds the relief of `mask` (CIHeightFieldFromMask's role).
  ///
  /// Distance to the edge is measured exactly to the nearest pixel under half coverage
  /// (Euclidean distance transform), then refined to sub-pixel precision from the
  /// anti-aliased coverage: the edge passes where coverage is 0.5, at an offset from a pixel's
  /// center that depends on its coverage and the edge's direction (Gustavson & Strand,
  /// "Anti-aliased Euclidean distance transform", 2011); each seed's edge is a pixel-long
  /// tangent segment. Each pixel takes the best edge among its own nearest seed and its 8
  /// neighbours', then walks along the edge while that gets closer, so neighbouring pixels
  /// agree on where a curved edge lies and the bevel shows no streaks. Heights follow `relief.profile` over
  /// `relief.radius`. An empty mask gives an empty region. The result does not depend on
  /// the thread count.
  public static func make(
    mask: CoverageMask, relief: ReliefSpec, parallelism: Parallelism = .allCores
  ) -> HeightField {
    let region = mask.inkBounds.isEmpty ? mask.inkBounds : mask.inkBounds.grown(by: 1)
    let sign: Float = relief.direction == .raised ? 1 : -1
    let inverseRadius = 1 / relief.radius
    // Only distances up to the radius shape the bevel, so the field is computed in bands of
    // rows, each with a halo of rows: every pixel within radius + 2 of an edge finds the same
    // seeds as over the whole region (the refinement reaches `EdgeDistance.reach` pixels
    // further), and the rest is plateau either way. Memory stays per band.
    // Any banding gives the same heights, so bands may follow the thread count: at least two
    // per thread, at most 256 rows (plus halos) of temporaries at a time.
    let halo = Int(relief.radius.rounded(.up)) + 2 + EdgeDistance.reach
    let perThread = (region.height + 2 * parallelism.threads - 1) / (2 * parallelism.threads)
    let bandRows = max(2 * halo, min(256, perThread))
    var heights = [Float](repeating: 0, count: region.width * region.height)
    heights.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      parallelism.forEachBand(region.height, bandSize: bandRows) { rows in
        let band = PixelRect(
          x: region.x, y: region.y + rows.lowerBound - halo, width: region.width,
          height: rows.count + 2 * halo)
        let distance = EdgeDistance.inside(
          mask: mask.plane, region: band, exactWithin: relief.radius, parallelism: .serial)
        for row in rows {
          let src = (row - rows.lowerBound + halo) * region.width
          let dst = row * region.width
          for x in 0..<region.width {
            let d = distance.pixels[src + x]
            out[dst + x] = d > 0 ? sign * relief.profile.height(d * inverseRadius) : 0
          }
        }
      }
    }
    return HeightField(
      canvasWidth: mask.width, canvasHeight: mask.height, region: region,
      plane: Plane(width: region.width, height: region.height, pixels: heights))
  }
}
