import EmbossModel
import EmbossRaster
import EmbossSupport

/// A sandblasted surface's lit ball: the ball blurred by the spread of normals the grain
/// gives every pixel (the same for every pixel, so it is done once, on the ball, instead of
/// widening every pixel's footprint on it).
public enum RoughBall {
  /// The blur's standard deviation in texels for `detail` on a `size`-texel ball; 0: none.
  ///
  /// A uniform spread of `Sandblasting.amplitude` normal units each way has a standard
  /// deviation of amplitude / sqrt(3); a normal unit is half the ball.
  public static func sigma(_ detail: DetailSpec, size: Int) -> Float {
    guard let sand = Sandblasting(detail) else { return 0 }
    return sand.amplitude / Float(3).squareRoot() * Float(size) * 0.5
  }

  /// `ball` blurred by a Gaussian of `sigma` texels (three box blurs).
  ///
  /// A normalized convolution weighted by each texel's alpha: the transparent corners
  /// outside the disk (and the image's edges) add no black to the rim. The alpha stays the
  /// ball's.
  public static func blurred(
    _ ball: RGBAImage, sigma: Float, parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    let radii = DropShadow.boxRadii(sigma: sigma)
    guard !radii.isEmpty else { return ball }
    let count = ball.width * ball.height
    // Premultiplied color, then the weight.
    var channels = (0..<4).map { c in
      [Float](uninitializedCount: count) { buffer, n in
        for i in 0..<count {
          let p = ball.pixels[i]
          buffer[i] = c == 3 ? p.w : p[c] * p.w
        }
        n = count
      }
    }
    for c in 0..<4 {
      DropShadow.blur(
        &channels[c], width: ball.width, height: ball.height, radii: radii,
        parallelism: parallelism)
    }
    let pixels = [SIMD4<Float>](uninitializedCount: count) { buffer, n in
      for i in 0..<count {
        let weight = channels[3][i]
        let rgb =
          weight > 1e-6
          ? SIMD3(channels[0][i], channels[1][i], channels[2][i]) / weight
          : SIMD3(ball.pixels[i].x, ball.pixels[i].y, ball.pixels[i].z)
        buffer[i] = SIMD4(rgb, ball.pixels[i].w)
      }
      n = count
    }
    return RGBAImage(width: ball.width, height: ball.height, pixels: pixels)
  }
}
