import EmbossRaster
import EmbossSupport
import Foundation

/// How gray becomes black and white.
public enum DitherMethod: String, Sendable, CaseIterable {
  /// Glowforge's threshold: white where the alpha-corrected gray >= threshold / 255.
  case threshold
  case floydSteinberg = "floyd-steinberg"
  case atkinson
  case jarvisJudiceNinke = "jarvis-judice-ninke"
  case stucki
  case burkes
  case sierra
  case sierraTwoRow = "sierra-2row"
  case sierraLite = "sierra-lite"
  case bayer2
  case bayer4
  case bayer8
  case blueNoise = "blue-noise"

  /// The error-diffusion kernel: (dx, dy, weight) to pixels ahead, over `divisor`.
  var kernel: (taps: [(dx: Int, dy: Int, weight: Float)], divisor: Float)? {
    switch self {
    case .floydSteinberg:
      return ([(1, 0, 7), (-1, 1, 3), (0, 1, 5), (1, 1, 1)], 16)
    case .atkinson:
      // Diffuses 6/8 of the error: highlights and shadows stay clean.
      return ([(1, 0, 1), (2, 0, 1), (-1, 1, 1), (0, 1, 1), (1, 1, 1), (0, 2, 1)], 8)
    case .jarvisJudiceNinke:
      return (
        [
          (1, 0, 7), (2, 0, 5),
          (-2, 1, 3), (-1, 1, 5), (0, 1, 7), (1, 1, 5), (2, 1, 3),
          (-2, 2, 1), (-1, 2, 3), (0, 2, 5), (1, 2, 3), (2, 2, 1),
        ], 48
      )
    case .stucki:
      return (
        [
          (1, 0, 8), (2, 0, 4),
          (-2, 1, 2), (-1, 1, 4), (0, 1, 8), (1, 1, 4), (2, 1, 2),
          (-2, 2, 1), (-1, 2, 2), (0, 2, 4), (1, 2, 2), (2, 2, 1),
        ], 42
      )
    case .burkes:
      return ([(1, 0, 8), (2, 0, 4), (-2, 1, 2), (-1, 1, 4), (0, 1, 8), (1, 1, 4), (2, 1, 2)], 32)
    case .sierra:
      return (
        [
          (1, 0, 5), (2, 0, 3),
          (-2, 1, 2), (-1, 1, 4), (0, 1, 5), (1, 1, 4), (2, 1, 2),
          (-1, 2, 2), (0, 2, 3), (1, 2, 2),
        ], 32
      )
    case .sierraTwoRow:
      return ([(1, 0, 4), (2, 0, 3), (-2, 1, 1), (-1, 1, 2), (0, 1, 3), (1, 1, 2), (2, 1, 1)], 16)
    case .sierraLite:
      return ([(1, 0, 2), (-1, 1, 1), (0, 1, 1)], 4)
    default:
      return nil
    }
  }

  /// Parses a method name; the error lists the valid ones.
  public static func parse(_ name: String) -> Result<DitherMethod, EmbossError> {
    if let method = DitherMethod(rawValue: name.lowercased()) { return .success(method) }
    let names = allCases.map(\.rawValue)
    var message = "unknown dither '\(name)'"
    if let close = suggestion(for: name, among: names) { message += "; did you mean '\(close)'?" }
    return .failure(EmbossError(message + " (one of: \(names.joined(separator: ", ")))"))
  }
}

/// Everything that turns an image into an engrave bitmap.
///
/// Validated values.
public struct EngraveOptions: Sendable, Equatable {
  public var method: DitherMethod
  /// 0...255: gray at or above threshold / 255 stays white (threshold mode), and the
  /// decision level of the error-diffusion and ordered modes.
  public var threshold: Int
  /// Error diffusion runs right-to-left on odd rows with the kernel mirrored.
  public var serpentine: Bool
  /// Gray is raised to this power before dithering (1: unchanged; 2.2: linear light).
  public var gamma: Float
  /// Burn the light parts instead (for slate, glass, anodized aluminum).
  public var negative: Bool
  /// Mirror left to right (for the back of acrylic).
  public var mirror: Bool
  /// Beam width in pixels: burned runs are shortened by half of it at each end.
  public var dotWidth: Float

  public init(
    method: DitherMethod = .threshold, threshold: Int = 128, serpentine: Bool = true,
    gamma: Float = 1, negative: Bool = false, mirror: Bool = false, dotWidth: Float = 0
  ) {
    self.method = method
    self.threshold = threshold
    self.serpentine = serpentine
    self.gamma = gamma
    self.negative = negative
    self.mirror = mirror
    self.dotWidth = dotWidth
  }
}

/// The engrave stage: image -> gray -> 1 bit.
public enum Engrave {
  /// An image's engrave bitmap: `gray` (with the negative applied to the color), then
  /// `bitmap`.
  public static func bitmap(_ image: RGBAImage, options: EngraveOptions) -> BitImage {
    var plain = options
    plain.negative = false
    return bitmap(image.gray(negative: options.negative), options: plain)
  }

  /// Turns gray (0 black ...
  ///
  /// 1 white) into an engrave bitmap. Pure white is never burned and
  /// pure black always is, whatever the method (no dots in the surroundings); in error
  /// diffusion they pass no error on.
  public static func bitmap(_ gray: Plane, options: EngraveOptions) -> BitImage {
    let level = Float(options.threshold) / 255
    var values = gray.pixels.map { v -> Float in
      var g = min(max(v, 0), 1)
      if options.gamma != 1 { g = powf(g, options.gamma) }
      return options.negative ? 1 - g : g
    }
    let w = gray.width
    let h = gray.height
    var black = [Bool](repeating: false, count: w * h)
    switch options.method {
    case .threshold:
      for i in 0..<values.count { black[i] = values[i] < level }
    case .bayer2, .bayer4, .bayer8:
      let n = options.method == .bayer2 ? 2 : (options.method == .bayer4 ? 4 : 8)
      let matrix = bayer(n)
      let bias = 0.5 - level
      for y in 0..<h {
        for x in 0..<w {
          let t = (Float(matrix[(y % n) * n + x % n]) + 0.5) / Float(n * n)
          let v = values[y * w + x]
          black[y * w + x] = v < 1 && (v <= 0 || v + bias < t)
        }
      }
    case .blueNoise:
      let size = BlueNoise.size
      let matrix = BlueNoise.matrix
      let bias = 0.5 - level
      for y in 0..<h {
        for x in 0..<w {
          let t = (Float(matrix[(y % size) * size + x % size]) + 0.5) / Float(size * size)
          let v = values[y * w + x]
          black[y * w + x] = v < 1 && (v <= 0 || v + bias < t)
        }
      }
    default:
      guard let (taps, divisor) = options.method.kernel else { break }
      let original = values
      for y in 0..<h {
        let reverse = options.serpentine && y % 2 == 1
        for step in 0..<w {
          let x = reverse ? w - 1 - step : step
          let pure = original[y * w + x]
          if pure >= 1 || pure <= 0 {
            black[y * w + x] = pure <= 0
            continue
          }
          let old = values[y * w + x]
          let isBlack = old < level
          black[y * w + x] = isBlack
          let error = old - (isBlack ? 0 : 1)
          for tap in taps {
            let tx = x + (reverse ? -tap.dx : tap.dx)
            let ty = y + tap.dy
            guard tx >= 0, tx < w, ty < h else { continue }
            values[ty * w + tx] += error * tap.weight / divisor
          }
        }
      }
    }
    var image = BitImage(width: w, height: h, black: black)
    let shorten = Int((options.dotWidth / 2).rounded())
    if shorten > 0 { image = image.shorteningRuns(by: shorten) }
    if options.mirror { image = image.mirrored() }
    return image
  }

  /// The n x n Bayer matrix (n a power of two), values 0..<n*n.
  static func bayer(_ n: Int) -> [Int] {
    if n == 1 { return [0] }
    let half = bayer(n / 2)
    let m = n / 2
    var out = [Int](repeating: 0, count: n * n)
    for y in 0..<m {
      for x in 0..<m {
        let v = 4 * half[y * m + x]
        out[y * n + x] = v
        out[y * n + x + m] = v + 2
        out[(y + m) * n + x] = v + 3
        out[(y + m) * n + x + m] = v + 1
      }
    }
    return out
  }

  /// A 1-bit grayscale PNG (bit depth 1) with a pHYs chunk when `pixelsPerMeter` > 0.
  public static func png(_ image: BitImage, pixelsPerMeter: UInt32) throws -> Data {
    try PNGCodec.encodeRaw(
      image.packedRows(), width: image.width, height: image.height, channels: 1, bitDepth: 1,
      compression: 9, pixelsPerMeter: pixelsPerMeter, srgb: false)
  }
}
