import EmbossModel
import EmbossRaster
import EmbossRelief
import EmbossShading
import EmbossSupport

/// The shaded-material compositor (CIShadedMaterial's role): each pixel's normal, from the
/// height field's slopes times `scale`, picks its color from the shading image.
public enum ShadedMaterial {
  /// Unit normal for a slope (dh/dx, dh/dy of the 0...1 heights per pixel), in image space
  /// (x right, y down, z toward the viewer): normalize(-scale * dh/dx, -scale * dh/dy, 1).
  @inline(__always)
  static func normal(slope: SIMD2<Float>, scale: Float) -> SIMD3<Float> {
    normalized(SIMD3(-scale * slope.x, -scale * slope.y, 1))
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
    /// Ink pixels (row-major indices into `rect`, ascending) whose color is the mean of several
    /// lookups, `sampleUV[sampleOffsets[k]..<sampleOffsets[k + 1]]`: a 4 x 4 grid (weight 0
    /// where a cell has no ink), or a single lookup (see `SubSamples`).
    public let sampled: [Int32]
    public let sampleOffsets: [Int32]
    public let sampleUV: [SIMD2<Float>]
    /// Each sample's weight (see `SubSamples.weights`).
    public let sampleWeights: [Float]

    /// Index into `sampled` of the first entry at or after ink pixel `index`.
    func firstSampled(atOrAfter index: Int) -> Int {
      var lo = 0
      var hi = sampled.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if Int(sampled[mid]) < index { lo = mid + 1 } else { hi = mid }
      }
      return lo
    }

    /// The shading image's pixels the composite reads (row-major over the shading image):
    /// the only ones it needs colored.
    ///
    /// Found by running the composite's own lookups
    /// (`inkColor`) with a sampler that marks the texels each bilinear tap reads.
    public func texelsRead(mask: CoverageMask) -> [Bool] {
      var read = [Bool](repeating: false, count: shadingWidth * shadingHeight)
      guard shadingWidth > 0, shadingHeight > 0 else { return read }
      read.withUnsafeMutableBufferPointer { marks in
        let marker = TexelMarker(marks: marks, width: shadingWidth, height: shadingHeight)
        uv.withUnsafeBufferPointer { uv in
          mask.plane.pixels.withUnsafeBufferPointer { coverage in
            var next = 0
            for row in 0..<rect.height {
              let source = (rect.y + row) * mask.width + rect.x
              for column in 0..<rect.width where coverage[source + column] > 0 {
                _ = ShadedMaterial.inkColor(
                  map: self, uv: uv, coverage: coverage, maskWidth: mask.width, row: row,
                  column: column, next: &next, sampler: marker)
              }
            }
          }
        }
      }
      return read
    }
  }

  /// Where the composite's bilinear taps go: the ball's colors, or (for `texelsRead`) a
  /// record of which texels were read.
  protocol BallSampler {
    func sample(_ x: Float, _ y: Float) -> SIMD4<Float>
  }

  struct BilinearBall: BallSampler {
    let ball: UnsafeBufferPointer<SIMD4<Float>>
    let width: Int
    let height: Int

    @inline(__always)
    func sample(_ x: Float, _ y: Float) -> SIMD4<Float> {
      RGBAImage.sampleBilinear(ball, width: width, height: height, x: x, y: y)
    }
  }

  struct TexelMarker: BallSampler {
    let marks: UnsafeMutableBufferPointer<Bool>
    let width: Int
    let height: Int

    func sample(_ x: Float, _ y: Float) -> SIMD4<Float> {
      let t = RGBAImage.bilinearTexels(width: width, height: height, x: x, y: y)
      marks[t.y0 * width + t.x0] = true
      marks[t.y0 * width + t.x1] = true
      marks[t.y1 * width + t.x0] = true
      marks[t.y1 * width + t.x1] = true
      return .zero
    }
  }

  /// Computes every ink pixel's normal and its lookup coordinate (and its sub-samples').
  public static func lookupMap(
    height: HeightField, mask: CoverageMask, scale: Float, shadingWidth: Int, shadingHeight: Int,
    parallelism: Parallelism = .allCores
  ) -> LookupMap {
    let ink = mask.inkBounds.intersection(mask.plane.bounds)
    var uv = [SIMD2<Float>](repeating: .zero, count: ink.width * ink.height)
    let region = height.region
    uv.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      height.slopes.withUnsafeBufferPointer { slopes in
        let slopes = UnsafeBufferPointerBox(slopes)
        mask.plane.pixels.withUnsafeBufferPointer { coverage in
          let coverage = UnsafeBufferPointerBox(coverage)
          parallelism.forEachBand(ink.height, bandSize: 16) { rows in
            for row in rows {
              let y = ink.y + row
              for column in 0..<ink.width {
                let x = ink.x + column
                guard coverage.buffer[y * mask.width + x] > 0 else { continue }
                let slope = slopes.buffer[(y - region.y) * region.width + (x - region.x)]
                let n = normal(slope: slope, scale: scale)
                out[row * ink.width + column] = lookup(
                  n, width: shadingWidth, height: shadingHeight)
              }
            }
          }
        }
      }
    }
    // Sub-sampled pixels of the region that are ink pixels.
    var sampled: [Int32] = []
    var offsets: [Int32] = [0]
    var sampleUV: [SIMD2<Float>] = []
    var sampleWeights: [Float] = []
    let samples = height.samples
    for k in 0..<samples.count {
      let (ry, rx) = Int(samples.pixels[k]).quotientAndRemainder(dividingBy: region.width)
      let x = rx + region.x
      let y = ry + region.y
      guard x >= ink.x, y >= ink.y, x < ink.maxX, y < ink.maxY, mask.plane[x, y] > 0 else {
        continue
      }
      sampled.append(Int32((y - ink.y) * ink.width + (x - ink.x)))
      for j in Int(samples.offsets[k])..<Int(samples.offsets[k + 1]) {
        let slope = samples.slopes[j]
        sampleWeights.append(samples.weights[j])
        let n = normal(slope: slope, scale: scale)
        sampleUV.append(lookup(n, width: shadingWidth, height: shadingHeight))
      }
      offsets.append(Int32(sampleUV.count))
    }
    return LookupMap(
      rect: ink, uv: uv, shadingWidth: shadingWidth, shadingHeight: shadingHeight,
      sampled: sampled, sampleOffsets: offsets, sampleUV: sampleUV, sampleWeights: sampleWeights)
  }

  /// How far the lookup moves across one pixel, in shading-image pixels: along x (`du`) and
  /// along y (`dv`), by central differences of the neighbours' lookups (one-sided at the
  /// ink's edge, zero where there is no neighbour), each clamped to 8 texels.
  ///
  /// Neighbours
  /// on the edge (coverage below 1) do not count: they are sampled 4 x 4, and their centers
  /// may lie outside the ink.
  @inline(__always)
  static func footprint(
    _ uv: UnsafeBufferPointer<SIMD2<Float>>, _ coverage: UnsafeBufferPointer<Float>, maskWidth: Int,
    ink: PixelRect, row: Int, column: Int
  ) -> (SIMD2<Float>, SIMD2<Float>) {
    func has(_ r: Int, _ c: Int) -> Bool {
      r >= 0 && c >= 0 && r < ink.height && c < ink.width
        && coverage[(ink.y + r) * maskWidth + ink.x + c] >= 1
    }
    func derivative(_ dr: Int, _ dc: Int) -> SIMD2<Float> {
      let center = uv[row * ink.width + column]
      let forward = has(row + dr, column + dc)
      let backward = has(row - dr, column - dc)
      var d = SIMD2<Float>.zero
      if forward && backward {
        d =
          (uv[(row + dr) * ink.width + column + dc] - uv[(row - dr) * ink.width + column - dc])
          * 0.5
      } else if forward {
        d = uv[(row + dr) * ink.width + column + dc] - center
      } else if backward {
        d = center - uv[(row - dr) * ink.width + column - dc]
      }
      return clamped(d, to: 8)
    }
    return (derivative(0, 1), derivative(1, 0))
  }

  /// The shading image averaged over the parallelogram a pixel covers (center `p`, sides `du`
  /// and `dv` in texels): up to `maxTaps` squared bilinear taps, one per texel of extent along each side,
  /// so a highlight smaller than the footprint is neither missed nor hit by chance.
  @inline(__always)
  static func filteredLookup<S: BallSampler>(
    _ ball: S, at p: SIMD2<Float>, du: SIMD2<Float>, dv: SIMD2<Float>, maxTaps: Int = 4
  ) -> SIMD4<Float> {
    let nu = taps(du, maxTaps: maxTaps)
    let nv = taps(dv, maxTaps: maxTaps)
    if nu == 1 && nv == 1 {
      return ball.sample(p.x, p.y)
    }
    var sum = SIMD4<Float>.zero
    for j in 0..<nv {
      let b = (Float(j) + 0.5) / Float(nv) - 0.5
      for i in 0..<nu {
        let a = (Float(i) + 0.5) / Float(nu) - 0.5
        let q = p + du * a + dv * b
        sum += ball.sample(q.x, q.y)
      }
    }
    return sum / Float(nu * nv)
  }

  /// Taps along a footprint side `d`: its length in texels rounded up, 1...`maxTaps`.
  ///
  /// The square root is taken only where the length is not plainly at most 1.
  @inline(__always)
  static func taps(_ d: SIMD2<Float>, maxTaps: Int) -> Int {
    let squared = (d * d).sum()
    guard squared > 1 else { return 1 }
    return min(maxTaps, max(1, Int(squared.squareRoot().rounded(.up))))
  }

  /// `d` shortened to at most `limit` long.
  @inline(__always)
  static func clamped(_ d: SIMD2<Float>, to limit: Float) -> SIMD2<Float> {
    let squared = (d * d).sum()
    guard squared > limit * limit else { return d }
    let length = squared.squareRoot()
    return length > limit ? d * (limit / length) : d
  }

  /// The color of a sub-sampled pixel: the mean of its 4 x 4 grid's colors weighted by the
  /// ink in each cell, each looked up over its own footprint (differences to its grid
  /// neighbours with ink, at most 2 x 2 taps), as a render at 4x the size filters its pixels.
  @inline(__always)
  static func sampledColor<S: BallSampler>(
    _ uv: UnsafeBufferPointer<SIMD2<Float>>, weights: UnsafeBufferPointer<Float>, start: Int,
    count: Int, ball: S
  ) -> SIMD4<Float> {
    let n = SubSamples.perSide
    guard count == n * n else {
      let p = uv[start]
      return ball.sample(p.x, p.y)
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
      return clamped(d, to: 4)
    }
    var sum = SIMD4<Float>.zero
    var total: Float = 0
    for j in 0..<n {
      for i in 0..<n {
        let weight = weights[j * n + i]
        guard weight > 0 else { continue }
        sum +=
          weight
          * filteredLookup(
            ball, at: uv[j * n + i], du: derivative(i, j, 1, 0), dv: derivative(i, j, 0, 1),
            maxTaps: 2)
        total += weight
      }
    }
    return total > 0 ? sum / total : sum
  }

  /// The color of ink pixel (`row`, `column`) of `map.rect` (coverage above 0): its 4 x 4
  /// sub-samples when it has them, else one lookup filtered over its footprint.
  ///
  /// `next` is
  /// the index into `map.sampled` of the first sub-sampled pixel not yet passed (pixels are
  /// visited in row-major order). The composite and `texelsRead` both go through here.
  @inline(__always)
  static func inkColor<S: BallSampler>(
    map: LookupMap, uv: UnsafeBufferPointer<SIMD2<Float>>, coverage: UnsafeBufferPointer<Float>,
    maskWidth: Int, row: Int, column: Int, next: inout Int, sampler: S
  ) -> SIMD4<Float> {
    let index = row * map.rect.width + column
    while next < map.sampled.count && Int(map.sampled[next]) < index { next += 1 }
    if next < map.sampled.count && Int(map.sampled[next]) == index {
      let start = Int(map.sampleOffsets[next])
      let count = Int(map.sampleOffsets[next + 1]) - start
      next += 1
      return map.sampleUV.withUnsafeBufferPointer { uv in
        map.sampleWeights.withUnsafeBufferPointer { weights in
          sampledColor(uv, weights: weights, start: start, count: count, ball: sampler)
        }
      }
    }
    let (du, dv) = footprint(
      uv, coverage, maskWidth: maskWidth, ink: map.rect, row: row, column: column)
    return filteredLookup(sampler, at: uv[index], du: du, dv: dv)
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

  /// Composites from a lookup map (see `lookupMap`), whose shading size must be `shading`'s.
  public static func composite(
    map: LookupMap, mask: CoverageMask, shading: RGBAImage, background: Background,
    parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    precondition(
      map.shadingWidth == shading.width && map.shadingHeight == shading.height,
      "lookup map for another shading size")
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
    let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: ink.width * ink.height) {
      buffer, count in
      let out = SharedPointer(buffer)
      map.uv.withUnsafeBufferPointer { uv in
        let uv = UnsafeBufferPointerBox(uv)
        mask.plane.pixels.withUnsafeBufferPointer { coverage in
          let coverage = UnsafeBufferPointerBox(coverage)
          shading.pixels.withUnsafeBufferPointer { ball in
            let ball = UnsafeBufferPointerBox(ball)
            parallelism.forEachBand(ink.height, bandSize: 16) { rows in
              let sampler = BilinearBall(
                ball: ball.buffer, width: shadingWidth, height: shadingHeight)
              // The first sub-sampled pixel at or after the band's first row.
              var next = map.firstSampled(atOrAfter: rows.lowerBound * ink.width)
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
                  let color = inkColor(
                    map: map, uv: uv.buffer, coverage: coverage.buffer, maskWidth: mask.width,
                    row: row, column: column, next: &next, sampler: sampler)
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
    return CanvasImage(
      width: mask.width, height: mask.height, fill: fill, contentRect: ink, content: content)
  }

  /// A shape composited over a transparent background, put over an opaque color: the same
  /// pixels `composite` makes over that color (`color * coverage + background * (1 -
  /// coverage)`, alpha 1), without shading any pixel again.
  public static func over(
    _ shape: CanvasImage, background: SIMD3<Float>, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let fill = SIMD4(background, 1)
    let rect = shape.contentRect
    let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: rect.width * rect.height) {
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
