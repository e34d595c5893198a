import EmbossModel
import EmbossRaster
import EmbossSupport
import Foundation

/// What the camera sees of the unit ball, per pixel of a `size` x `size` shading image:
/// the part of rendering the ball that does not depend on the lights.
///
/// Computed once per size
/// (by ray marching), it is then lit by `shade` as often as the lights change.
///
/// Per pixel: inside the disk, one normal (the ray through the pixel's center); on the rim,
/// the normals of the hits among 4x4 sample rays and the fraction that hit; just outside the
/// rim (2 pixels), the normal lying in the image plane toward the pixel, whose color continues
/// the rim's; further out, nothing.
public struct BallGeometry: Sendable, Equatable {
  /// The shading image's width and height in pixels.
  public let size: Int
  /// The pixel's normal (interior), or its rim direction (rim and the band outside), or zero.
  var normals: [SIMD3<Float>]
  /// Disk coverage: 1 inside, hits / 16 on the rim, 0 outside.
  var coverage: [Float]
  /// For rim pixels with at least one hit: where their hit normals start in `samples`
  /// (there are coverage * 16 of them); -1 for all other pixels.
  var sampleStart: [Int32]
  var samples: [SIMD3<Float>]

  /// Marches every pixel's rays (see `ShadingImage.march`).
  public static func march(size: Int, parallelism: Parallelism = .allCores) -> BallGeometry {
    let count = max(0, size) * max(0, size)
    var normals = [SIMD3<Float>](repeating: .zero, count: count)
    var coverage = [Float](repeating: 0, count: count)
    var rowSamples = [[SIMD3<Float>]](repeating: [], count: max(0, size))
    var rowStarts = [[Int32]](repeating: [], count: max(0, size))
    guard size > 0 else {
      return BallGeometry(size: 0, normals: [], coverage: [], sampleStart: [], samples: [])
    }
    let pixelSize = 2 / Float(size)
    normals.withUnsafeMutableBufferPointer { normalsOut in
      let normalsOut = SharedPointer(normalsOut)
      coverage.withUnsafeMutableBufferPointer { coverageOut in
        let coverageOut = SharedPointer(coverageOut)
        rowSamples.withUnsafeMutableBufferPointer { samplesOut in
          let samplesOut = SharedPointer(samplesOut)
          rowStarts.withUnsafeMutableBufferPointer { startsOut in
            let startsOut = SharedPointer(startsOut)
            parallelism.forEachBand(size, bandSize: 8) { rows in
              for j in rows {
                var samples: [SIMD3<Float>] = []
                var starts = [Int32](repeating: -1, count: size)
                for i in 0..<size {
                  let index = j * size + i
                  let center = ShadingImage.spherePoint(Float(i) + 0.5, Float(j) + 0.5, size: size)
                  let r = (center * center).sum().squareRoot()
                  let rim = r > 0 ? SIMD3(center.x / r, center.y / r, 0) : SIMD3<Float>(0, 0, 1)
                  if r < 1 - 1.5 * pixelSize, let hit = ShadingImage.march(center) {
                    normalsOut[index] = hit
                    coverageOut[index] = 1
                    continue
                  }
                  if r > 1 + 1.5 * pixelSize {
                    if r < 1 + 3.5 * pixelSize { normalsOut[index] = rim }
                    continue
                  }
                  // Near the rim: 4x4 sample rays.
                  let first = samples.count
                  for sy in 0..<4 {
                    for sx in 0..<4 {
                      let p = ShadingImage.spherePoint(
                        Float(i) + (Float(sx) + 0.5) / 4, Float(j) + (Float(sy) + 0.5) / 4,
                        size: size)
                      if let hit = ShadingImage.march(p) { samples.append(hit) }
                    }
                  }
                  normalsOut[index] = rim
                  coverageOut[index] = Float(samples.count - first) / 16
                  if samples.count > first { starts[i] = Int32(first) }
                }
                samplesOut[j] = samples
                startsOut[j] = starts
              }
            }
          }
        }
      }
    }
    // Rows' sample lists in row order: offsets become global.
    var samples: [SIMD3<Float>] = []
    var sampleStart = [Int32](repeating: -1, count: count)
    for j in 0..<size {
      let base = Int32(samples.count)
      for i in 0..<size where rowStarts[j][i] >= 0 {
        sampleStart[j * size + i] = rowStarts[j][i] + base
      }
      samples += rowSamples[j]
    }
    return BallGeometry(
      size: size, normals: normals, coverage: coverage, sampleStart: sampleStart, samples: samples)
  }

  /// The lit ball (see `ShadingImage`): `Surface.shade` at every normal; rim pixels average their
  /// hits' colors (straight alpha) with alpha = coverage.
  ///
  /// - Parameters:
  ///   - surface: the material's surface.
  ///   - lights: its lights.
  ///   - environment: what the surface reflects besides the lights.
  ///   - only: when given (size * size flags), only those pixels are shaded and the others
  ///     left transparent black: what a composite reads, when its lookups are known.
  ///   - reflections: the environment's terms at every normal, kept from an earlier shading
  ///     of the same surface and environment (`reflections(surface:environment:)`): only
  ///     the lights are shaded, the same floats in the same order.
  ///   - parallelism: threads; the result does not depend on it.
  /// - Returns: the shading image, `size` x `size`, linear light (at most 1: highlights
  ///   clip as in a picture), straight alpha.
  public func shade(
    surface: Surface, lights: [Light], environment: Environment = .none, only: [Bool]? = nil,
    reflections: Reflections? = nil, parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    guard size > 0 else { return RGBAImage(width: 0, height: 0) }
    var pixels = [SIMD4<Float>](repeating: .zero, count: size * size)
    let geometry = self
    let shader = Shader(surface: surface, lights: lights, environment: environment)
    @Sendable @inline(__always)
    func color(_ n: SIMD3<Float>, _ kept: SIMD3<Float>?) -> SIMD3<Float> {
      displayable(
        kept.map { shader.shade(normal: n, point: n, reflection: $0) }
          ?? shader.shade(normal: n, point: n))
    }
    pixels.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      forEachNormal(only: only, parallelism: parallelism) { index, n in
        out[index] = SIMD4(color(n, reflections?.texels[index]), geometry.coverage[index])
      } rim: { index, range in
        var sum = SIMD3<Float>(repeating: 0)
        for k in range {
          sum += color(geometry.samples[k], reflections?.samples[k])
        }
        out[index] = SIMD4(sum / Float(range.count), geometry.coverage[index])
      }
    }
    return RGBAImage(width: size, height: size, pixels: pixels)
  }

  /// Visits, in bands of rows over `parallelism`'s threads, each pixel (of `only`, when
  /// given) with one normal (`texel`: its index and normal) and each rim pixel with hits
  /// (`rim`: its index and its samples' range in `samples`).
  @inline(__always)
  private func forEachNormal(
    only: [Bool]? = nil, parallelism: Parallelism,
    texel: @Sendable (Int, SIMD3<Float>) -> Void, rim: @Sendable (Int, Range<Int>) -> Void
  ) {
    let geometry = self
    parallelism.forEachBand(size, bandSize: 8) { rows in
      for index in rows.lowerBound * geometry.size..<rows.upperBound * geometry.size {
        if let only, !only[index] { continue }
        let start = Int(geometry.sampleStart[index])
        if start >= 0 {
          rim(index, start..<(start + Int(geometry.coverage[index] * 16 + 0.5)))
          continue
        }
        let n = geometry.normals[index]
        guard n != .zero else { continue }
        texel(index, n)
      }
    }
  }

  /// The environment's term of the lit ball at each normal `shade` reads, per pixel and per
  /// rim sample: about two thirds of shading a ball in a material with softboxes, and the same
  /// whatever the lights (see `reflections(surface:environment:parallelism:)`).
  public struct Reflections: Sendable {
    /// Per pixel (zero where the ball has no normal, or where it has rim samples).
    let texels: [SIMD3<Float>]
    /// Per rim sample, as the geometry's samples.
    let samples: [SIMD3<Float>]
  }

  /// The environment's terms for `shade(...reflections:)`, so that a change of the lights
  /// alone (a watch, the studio) shades the lights only; nil when the environment reflects
  /// nothing.
  public func reflections(
    surface: Surface, environment: Environment, parallelism: Parallelism = .allCores
  ) -> Reflections? {
    guard size > 0, environment.intensity > 0 else { return nil }
    let shader = Shader(surface: surface, lights: [], environment: environment)
    var texels = [SIMD3<Float>](repeating: .zero, count: size * size)
    var terms = [SIMD3<Float>](repeating: .zero, count: samples.count)
    let geometry = self
    texels.withUnsafeMutableBufferPointer { texelsOut in
      let texelsOut = SharedPointer(texelsOut)
      terms.withUnsafeMutableBufferPointer { termsOut in
        let termsOut = SharedPointer(termsOut)
        forEachNormal(parallelism: parallelism) { index, n in
          texelsOut[index] = shader.reflection(normal: n)
        } rim: { _, range in
          for k in range { termsOut[k] = shader.reflection(normal: geometry.samples[k]) }
        }
      }
    }
    return Reflections(texels: texels, samples: terms)
  }
}

/// A shaded color as a picture holds it: at most 1 (white), each channel rolled off as film
/// does instead of clipped.
///
/// The ball is a picture (a matcap,
/// as a PNG shading image would be), so a pixel that averages several of its colors (a
/// footprint, sub-samples) averages what a render at a higher resolution would show, not a
/// highlight's unbounded radiance.
///
/// A channel up to the knee (0.85) is kept; above it, it is compressed toward 1 by an
/// exponential shoulder whose slope is 1 at the knee. Channel by channel, as a film's
/// layers: a gold highlight still brightens toward pale yellow as its blue rises, but its
/// red and green keep their gradation instead of flattening into one clipped patch.
@inline(__always)
func displayable(_ c: SIMD3<Float>) -> SIMD3<Float> {
  let knee: Float = 0.85
  guard c.max() > knee else { return c }
  let room = 1 - knee
  var out = c
  for k in 0..<3 where c[k] > knee {
    out[k] = knee + room * (1 - expf(-(c[k] - knee) / room))
  }
  return out
}
