import CImageFormats
import EmbossRaster
import EmbossSupport
import Foundation

/// The picture formats emboss reads wherever a picture is read (a mask, `engrave`, `diff`,
/// `--shading-image`) and writes for previews.
public enum PictureFormat: String, Sendable, CaseIterable {
  case png
  case jpeg
  case webp

  /// As people name it in messages.
  public var name: String {
    switch self {
    case .png: "PNG"
    case .jpeg: "JPEG"
    case .webp: "WebP"
    }
  }

  /// The format a file's first bytes announce (nil: none of these).
  public static func sniff(_ data: Data) -> PictureFormat? {
    let head = [UInt8](data.prefix(12))
    if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
    if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if head.count == 12, head.starts(with: Array("RIFF".utf8)),
      Array(head[8..<12]) == Array("WEBP".utf8)
    {
      return .webp
    }
    return nil
  }

  /// The format an output path asks for by its extension.
  ///
  /// `.png`, `.jpg`/`.jpeg`, `.webp`; PNG for standard output (`-`) and for a path without an
  /// extension. Throws for an
  /// extension emboss cannot write (`-o a.gif`), or one not in `allowed`.
  public static func forOutput(
    _ path: String, option: String = "-o", allowed: [PictureFormat] = PictureFormat.allCases
  ) throws(EmbossError) -> PictureFormat {
    guard path != "-" else { return .png }
    let name = (path as NSString).lastPathComponent
    let ext = (name as NSString).pathExtension.lowercased()
    let format: PictureFormat?
    switch ext {
    case "": format = .png
    case "png": format = .png
    case "jpg", "jpeg": format = .jpeg
    case "webp": format = .webp
    default: format = nil
    }
    guard let format, allowed.contains(format) else {
      let names = allowed.map { $0 == .jpeg ? ".jpg" : ".\($0.rawValue)" }.joined(separator: ", ")
      throw EmbossError(
        "\(option) \(path): cannot write .\(ext) files; this output is \(names)")
    }
    return format
  }
}

/// Decoding any supported picture and encoding previews as JPEG or WebP (PNG is `PNGCodec`).
public enum PictureCodec {
  /// JPEG quality for previews (4:4:4 chroma from 90).
  public static let jpegQuality = 92
  /// WebP quality for previews (lossy, with alpha).
  public static let webpQuality = 90

  /// Decodes a PNG, JPEG or WebP into 16-bit RGBA samples in the file's own (sRGB) encoding.
  public static func decodeSamples(_ data: Data, maxPixels: Int = RenderLimits.default.maxPixels)
    throws -> PNGCodec.Samples
  {
    switch PictureFormat.sniff(data) {
    case .png?:
      return try PNGCodec.decodeSamples(data, maxPixels: maxPixels)
    case .jpeg?, .webp?:
      let format = PictureFormat.sniff(data)
      var pixels: UnsafeMutablePointer<UInt8>? = nil
      var width: UInt32 = 0
      var height: UInt32 = 0
      var ppm: UInt32 = 0
      var message = [CChar](repeating: 0, count: 256)
      let status = data.withUnsafeBytes { raw in
        let bytes = raw.bindMemory(to: UInt8.self).baseAddress
        let limit = UInt64(max(0, maxPixels))
        return format == .jpeg
          ? emboss_jpeg_decode_rgba8(
            bytes, raw.count, limit, &pixels, &width, &height, &ppm, &message, message.count)
          : emboss_webp_decode_rgba8(
            bytes, raw.count, limit, &pixels, &width, &height, &message, message.count)
      }
      defer { emboss_image_free(pixels) }
      guard status == 0, let pixels else {
        throw EmbossError(
          String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
      }
      let count = Int(width) * Int(height) * 4
      // 8-bit samples widened to 16 bits exactly (v * 257), as libpng widens them.
      let samples = UnsafeBufferPointer(start: pixels, count: count).map { UInt16($0) * 257 }
      return PNGCodec.Samples(
        width: Int(width), height: Int(height), rgba: samples, pixelsPerMeter: ppm)
    case nil:
      throw EmbossError(unknownFormat(data))
    }
  }

  /// Why bytes are no picture emboss reads, naming the formats people try.
  static func unknownFormat(_ data: Data) -> String {
    guard !data.isEmpty else { return "file is empty" }
    let head = [UInt8](data.prefix(4))
    let known: [(magic: [UInt8], name: String)] = [
      (Array("GIF8".utf8), "GIF"), (Array("BM".utf8), "BMP"), ([0x49, 0x49, 0x2A, 0x00], "TIFF"),
      ([0x4D, 0x4D, 0x00, 0x2A], "TIFF"), (Array("<svg".utf8), "SVG"),
      (Array("<?xm".utf8), "XML (SVG?)"), (Array("%PDF".utf8), "PDF"),
    ]
    if let format = known.first(where: { head.starts(with: $0.magic) }) {
      return "a \(format.name) file; emboss reads PNG, JPEG and WebP"
    }
    return "not a PNG, JPEG or WebP file (unknown signature)"
  }

  /// Decodes into linear light (samples are taken as sRGB), straight alpha.
  public static func decode(_ data: Data, maxPixels: Int = RenderLimits.default.maxPixels) throws
    -> PNGCodec.Decoded
  {
    PNGCodec.decoded(try decodeSamples(data, maxPixels: maxPixels))
  }

  /// The width and height in the header; nil when it cannot be read.
  public static func size(of data: Data) -> (width: Int, height: Int)? {
    switch PictureFormat.sniff(data) {
    case .png?: return PNGCodec.size(of: data)
    case .jpeg?, .webp?:
      var width: UInt32 = 0
      var height: UInt32 = 0
      data.withUnsafeBytes { raw in
        emboss_picture_size(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &width, &height)
      }
      return width > 0 && height > 0 ? (Int(width), Int(height)) : nil
    case nil: return nil
    }
  }

  /// Reads a picture file's samples; errors name the path and the format.
  public static func readSamples(path: String, maxPixels: Int = RenderLimits.default.maxPixels)
    throws -> PNGCodec.Samples
  {
    let data = try InputFile.read(path, what: "picture")
    do {
      return try decodeSamples(data, maxPixels: maxPixels)
    } catch let error as EmbossError {
      throw EmbossError("cannot read \(describe(data)) '\(path)': \(error.message)")
    }
  }

  /// Reads and decodes a picture file (from `inputs` when it holds it); errors name the path
  /// and the format.
  public static func read(
    path: String, maxPixels: Int = RenderLimits.default.maxPixels,
    inputs: InputSnapshot = InputSnapshot()
  ) throws -> PNGCodec.Decoded {
    let data = try inputs.data(path, what: "picture")
    do {
      return try decode(data, maxPixels: maxPixels)
    } catch let error as EmbossError {
      throw EmbossError("cannot read \(describe(data)) '\(path)': \(error.message)")
    }
  }

  /// "PNG", "JPEG", "WebP", or "picture" when the bytes are none of these.
  public static func describe(_ data: Data) -> String {
    PictureFormat.sniff(data)?.name ?? "picture"
  }

  /// `encode` for a plain image.
  public static func encode(
    _ image: RGBAImage, format: PictureFormat, depth: BitDepth = .eight,
    compression: Int = PNGCodec.defaultCompression, pixelsPerMeter: UInt32 = 0
  ) throws -> Data {
    try encode(
      CanvasImage(image), format: format, depth: depth, compression: compression,
      pixelsPerMeter: pixelsPerMeter)
  }

  /// Encodes a preview in `format`: PNG as `PNGCodec.encode` does (8-bit); JPEG opaque, over
  /// `matte` where the picture is not (white by default: JPEG has no alpha); WebP lossy with
  /// alpha.
  public static func encode(
    _ image: CanvasImage, format: PictureFormat, depth: BitDepth = .eight,
    compression: Int = PNGCodec.defaultCompression, pixelsPerMeter: UInt32 = 0,
    matte: SIMD3<Float> = SIMD3(repeating: 1), parallelism: Parallelism = .allCores
  ) throws -> Data {
    switch format {
    case .png:
      return try PNGCodec.encode(
        image, depth: depth, compression: compression, pixelsPerMeter: pixelsPerMeter,
        parallelism: parallelism)
    case .jpeg, .webp:
      let flat = image.flattened()
      let table = SRGB.encode8Table
      let channels = format == .jpeg ? 3 : 4
      var bytes = [UInt8](repeating: 0, count: flat.width * flat.height * channels)
      for (i, p) in flat.pixels.enumerated() {
        let pixel =
          format == .jpeg && p.w < 1
          ? SIMD4(SIMD3(p.x, p.y, p.z) * p.w + matte * (1 - p.w), 1) : p
        let code = table.withUnsafeBufferPointer { SRGB.codes8(pixel, table: $0) }
        bytes[i * channels] = code.x
        bytes[i * channels + 1] = code.y
        bytes[i * channels + 2] = code.z
        if channels == 4 { bytes[i * channels + 3] = code.w }
      }
      var output: UnsafeMutablePointer<UInt8>? = nil
      var size = 0
      var message = [CChar](repeating: 0, count: 256)
      let status =
        format == .jpeg
        ? emboss_jpeg_encode_rgb8(
          bytes, UInt32(flat.width), UInt32(flat.height), Int32(jpegQuality), pixelsPerMeter,
          &output, &size, &message, message.count)
        : emboss_webp_encode_rgba8(
          bytes, UInt32(flat.width), UInt32(flat.height), Int32(webpQuality), &output, &size,
          &message, message.count)
      defer { emboss_image_free(output) }
      guard status == 0, let output else {
        throw EmbossError(
          "cannot encode \(format.name): "
            + String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
      }
      return Data(bytes: output, count: size)
    }
  }
}
