import EmbossModel
import EmbossRaster
import EmbossSupport

/// A sandblasted surface's lit ball: the ball blurred by the spread of normals the grain
/// gives every pixel (the same for every pixel, so it is done once, on the ball, instead of
/// widening every pixel's footprint on it).
public enum RoughBall {
  /// The blur's standard deviation in texels for `detail` on a `size`-texel ball: a uniform
  /// spread of `Sandblasting.amplitude` normal units each way has a standard deviation of
  /// amplitude / sqrt(3); a normal unit is half the ball. 0: no blur.
  public static func sigma(_ detail: DetailSpec, size: Int) -> Float {
    guard let sand = Sandblasting(detail) else { return 0 }
    return sand.amplitude / Float(3).squareRoot() * Float(size) * 0.5
  }

  /// `ball` blurred by a Gaussian of `sigma` texels (three box blurs), channel by channel,
  /// straight alpha as it is stored.
  public static func blurred(
    _ ball: RGBAImage, sigma: Float, parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    let radii = DropShadow.boxRadii(sigma: sigma)
    guard !radii.isEmpty else { return ball }
    let count = ball.width * ball.height
    var channels = (0..<4).map { c in
      [Float](unsafeUninitializedCapacity: count) { buffer, n in
        for i in 0..<count { buffer[i] = ball.pixels[i][c] }
        n = count
      }
    }
    for c in 0..<4 {
      DropShadow.blur(
        &channels[c], width: ball.width, height: ball.height, radii: radii,
        parallelism: parallelism)
    }
    let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: count) { buffer, n in
      for i in 0..<count {
        buffer[i] = SIMD4(channels[0][i], channels[1][i], channels[2][i], channels[3][i])
      }
      n = count
    }
    return RGBAImage(width: ball.width, height: ball.height, pixels: pixels)
  }
}
