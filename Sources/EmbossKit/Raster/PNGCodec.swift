import CPNG
import Foundation

/// Sample depth of a written PNG.
public enum BitDepth: Int, Sendable, CaseIterable {
  case eight = 8
  case sixteen = 16
}

/// PNG in and out. Every libpng call lives in the `CPNG` C target, which owns the setjmp;
/// this type converts between the pipeline's linear `Float` images and 8/16-bit sRGB files.
public enum PNGCodec {
  /// Default zlib level: 6 costs about twice level 1's time for files about 20% smaller on
  /// renders; see the benchmark in the README.
  public static let defaultCompression = 6

  /// Encodes a linear-light, straight-alpha image as an sRGB RGBA PNG (with an sRGB chunk).
  /// Colors are clamped to 0...1. The bytes depend only on the pixels and the options.
  public static func encode(
    _ image: RGBAImage, depth: BitDepth = .eight, compression: Int = defaultCompression,
    pixelsPerMeter: UInt32 = 0, parallelism: Parallelism = .allCores
  ) throws -> Data {
    try encode(
      CanvasImage(image), depth: depth, compression: compression, pixelsPerMeter: pixelsPerMeter,
      parallelism: parallelism)
  }

  /// Encodes a canvas image: background pixels are converted once and repeated.
  public static func encode(
    _ image: CanvasImage, depth: BitDepth = .eight, compression: Int = defaultCompression,
    pixelsPerMeter: UInt32 = 0, parallelism: Parallelism = .allCores
  ) throws -> Data {
    switch depth {
    case .eight:
      let bytes = SRGB.encode8Table.withUnsafeBufferPointer { table in
        let table = UnsafeBufferPointerBox(table)
        return quantize(image, parallelism: parallelism) { p in
          SIMD4(
            table.buffer[tableIndex(p.x)], table.buffer[tableIndex(p.y)],
            table.buffer[tableIndex(p.z)], UInt8(unitClamp(p.w) * 255 + 0.5))
        }
      }
      return try encodeRaw(
        bytes, width: image.width, height: image.height, channels: 4, bitDepth: 8,
        compression: compression, pixelsPerMeter: pixelsPerMeter, srgb: true)
    case .sixteen:
      let samples = quantize(image, parallelism: parallelism) { p in
        SIMD4(
          UInt16(SRGB.encode(p.x) * 65535 + 0.5), UInt16(SRGB.encode(p.y) * 65535 + 0.5),
          UInt16(SRGB.encode(p.z) * 65535 + 0.5), UInt16(unitClamp(p.w) * 65535 + 0.5))
      }
      return try encodeRaw(
        samples, width: image.width, height: image.height, channels: 4, bitDepth: 16,
        compression: compression, pixelsPerMeter: pixelsPerMeter, srgb: true)
    }
  }

  /// Converts every pixel of a canvas image with `convert`, row bands in parallel; the
  /// background is converted once.
  private static func quantize<T: SIMDScalar & Sendable>(
    _ image: CanvasImage, parallelism: Parallelism, _ convert: @Sendable (SIMD4<Float>) -> SIMD4<T>
  ) -> [SIMD4<T>] {
    let background = convert(image.fill)
    var out = [SIMD4<T>](repeating: background, count: image.width * image.height)
    let rect = image.contentRect
    out.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      image.content.pixels.withUnsafeBufferPointer { src in
        let src = UnsafeBufferPointerBox(src)
        parallelism.forEachBand(rect.height, bandSize: 32) { rows in
          for row in rows {
            let dst = (rect.y + row) * image.width + rect.x
            let s = row * rect.width
            for x in 0..<rect.width { out[dst + x] = convert(src.buffer[s + x]) }
          }
        }
      }
    }
    return out
  }

  @inline(__always)
  static func unitClamp(_ v: Float) -> Float { v > 0 ? (v < 1 ? v : 1) : 0 }

  /// Encodes a plane as a grayscale PNG, mapping `range` to black...white linearly (no sRGB
  /// curve: the values are data, such as heights, not light).
  public static func encodeGray(
    _ plane: Plane, range: ClosedRange<Float> = 0...1, depth: BitDepth = .eight,
    compression: Int = defaultCompression, pixelsPerMeter: UInt32 = 0
  ) throws -> Data {
    let span = range.upperBound - range.lowerBound
    func unit(_ v: Float) -> Float { min(max((v - range.lowerBound) / span, 0), 1) }
    switch depth {
    case .eight:
      let bytes = plane.pixels.map { UInt8((unit($0) * 255).rounded()) }
      return try encodeRaw(bytes, width: plane.width, height: plane.height, channels: 1, bitDepth: 8,
                           compression: compression, pixelsPerMeter: pixelsPerMeter, srgb: false)
    case .sixteen:
      let samples = plane.pixels.map { UInt16((unit($0) * 65535).rounded()) }
      return try encodeRaw(samples, width: plane.width, height: plane.height, channels: 1,
                           bitDepth: 16, compression: compression, pixelsPerMeter: pixelsPerMeter,
                           srgb: false)
    }
  }

  /// Encodes packed samples as they are: see `emboss_png_encode` for the layout.
  public static func encodeRaw<T>(
    _ samples: [T], width: Int, height: Int, channels: Int, bitDepth: Int, compression: Int,
    pixelsPerMeter: UInt32, srgb: Bool
  ) throws -> Data {
    var buffer = emboss_png_buffer()
    var message = [CChar](repeating: 0, count: 256)
    let status = samples.withUnsafeBytes { raw in
      emboss_png_encode(
        raw.baseAddress, UInt32(width), UInt32(height), Int32(channels), Int32(bitDepth),
        Int32(compression), pixelsPerMeter, srgb ? 1 : 0, &buffer, &message, message.count)
    }
    defer { emboss_png_buffer_free(&buffer) }
    guard status == 0, let base = buffer.data else {
      throw EmbossError("cannot encode PNG: \(cString(message))")
    }
    return Data(bytes: base, count: buffer.size)
  }

  /// A file's samples as stored (sRGB-encoded for color images), widened to 16 bits:
  /// RGBA, straight alpha, row-major.
  public struct Samples: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var rgba: [UInt16]
    /// From the pHYs chunk, 0 when absent.
    public var pixelsPerMeter: UInt32
  }

  /// Decodes any PNG libpng reads (gray, RGB, palette, 1...16 bits, with or without alpha) to
  /// 16-bit RGBA samples. Sizes over `maxPixels` are refused from the header, before pixel
  /// memory is allocated.
  public static func decodeSamples(_ data: Data, maxPixels: Int = RenderLimits.default.maxPixels)
    throws -> Samples
  {
    var pixels: UnsafeMutablePointer<UInt16>? = nil
    var width: UInt32 = 0
    var height: UInt32 = 0
    var ppm: UInt32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw in
      emboss_png_decode_rgba16(
        raw.bindMemory(to: UInt8.self).baseAddress, raw.count, UInt64(max(0, maxPixels)), &pixels,
        &width, &height, &ppm, &message, message.count)
    }
    defer { emboss_png_free(pixels) }
    guard status == 0, let pixels else {
      throw EmbossError(cString(message))
    }
    let count = Int(width) * Int(height) * 4
    return Samples(
      width: Int(width), height: Int(height),
      rgba: Array(UnsafeBufferPointer(start: pixels, count: count)), pixelsPerMeter: ppm)
  }

  /// A decoded file: linear-light straight-alpha pixels and the stored density, if any.
  public struct Decoded: Sendable {
    public var image: RGBAImage
    /// From the pHYs chunk, 0 when absent.
    public var pixelsPerMeter: UInt32
  }

  /// Decodes any PNG libpng reads into linear light (samples are taken as sRGB).
  public static func decode(_ data: Data, maxPixels: Int = RenderLimits.default.maxPixels) throws
    -> Decoded
  {
    let samples = try decodeSamples(data, maxPixels: maxPixels)
    let table = SRGB.decode16Table
    let pixels = (0..<(samples.width * samples.height)).map { i in
      SIMD4(
        table[Int(samples.rgba[4 * i])], table[Int(samples.rgba[4 * i + 1])],
        table[Int(samples.rgba[4 * i + 2])], Float(samples.rgba[4 * i + 3]) / 65535)
    }
    return Decoded(
      image: RGBAImage(width: samples.width, height: samples.height, pixels: pixels),
      pixelsPerMeter: samples.pixelsPerMeter)
  }

  /// Reads and decodes a PNG file; errors name the path.
  public static func read(path: String, maxPixels: Int = RenderLimits.default.maxPixels) throws
    -> Decoded
  {
    let data = try InputFile.read(path, what: "PNG")
    do {
      return try decode(data, maxPixels: maxPixels)
    } catch let error as EmbossError {
      throw EmbossError("cannot read PNG '\(path)': \(error.message)")
    }
  }

  @inline(__always)
  static func tableIndex(_ v: Float) -> Int {
    // NaN fails both comparisons and lands on 0 (black) instead of trapping.
    let c = v > 0 ? (v < 1 ? v : 1) : 0
    return Int(c * 65535 + 0.5)
  }
}

/// Read-only buffer access shared by the bands of a parallel loop.
struct UnsafeBufferPointerBox<Element>: @unchecked Sendable {
  let buffer: UnsafeBufferPointer<Element>
  init(_ buffer: UnsafeBufferPointer<Element>) { self.buffer = buffer }
}

/// The text of a NUL-terminated C string buffer.
func cString(_ buffer: [CChar]) -> String {
  let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  return String(decoding: bytes, as: UTF8.self)
}
