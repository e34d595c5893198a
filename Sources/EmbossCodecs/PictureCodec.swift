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
      let stored = PNGCodec.Samples(
        width: Int(width), height: Int(height), rgba: samples, pixelsPerMeter: ppm)
      // A camera's JPEG is stored as the sensor read it and says how to turn it.
      return format == .jpeg ? oriented(stored, Self.jpegOrientation(data)) : stored
    case nil:
      throw EmbossError(unknownFormat(data))
    }
  }

  /// A JPEG's EXIF orientation (1...8, 1 when it has none): how the stored picture is turned
  /// for display (TIFF tag 0x0112 in IFD0 of the APP1 `Exif` segment).
  static func jpegOrientation(_ data: Data) -> Int {
    let bytes = [UInt8](data.prefix(1 << 17))
    var at = 2
    while at + 4 <= bytes.count, bytes[at] == 0xFF {
      let marker = bytes[at + 1]
      // Start of scan or end of image: no more header segments.
      if marker == 0xDA || marker == 0xD9 { break }
      let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
      guard length >= 2, at + 2 + length <= bytes.count else { break }
      let segment = (at + 4)..<(at + 2 + length)
      if marker == 0xE1, segment.count > 14,
        Array(bytes[segment.lowerBound..<(segment.lowerBound + 6)]) == Array("Exif\0\0".utf8)
      {
        return Self.tiffOrientation(Array(bytes[(segment.lowerBound + 6)..<segment.upperBound]))
      }
      at += 2 + length
    }
    return 1
  }

  /// The orientation tag of a TIFF header's first IFD (1 when absent or malformed).
  static func tiffOrientation(_ tiff: [UInt8]) -> Int {
    guard tiff.count >= 8 else { return 1 }
    let little = tiff[0] == 0x49 && tiff[1] == 0x49
    guard little || (tiff[0] == 0x4D && tiff[1] == 0x4D) else { return 1 }
    func u16(_ i: Int) -> Int? {
      guard i >= 0, i + 2 <= tiff.count else { return nil }
      return little ? Int(tiff[i]) | Int(tiff[i + 1]) << 8 : Int(tiff[i]) << 8 | Int(tiff[i + 1])
    }
    func u32(_ i: Int) -> Int? {
      guard let a = u16(i), let b = u16(i + 2) else { return nil }
      return little ? a | b << 16 : a << 16 | b
    }
    guard let ifd = u32(4), let entries = u16(ifd) else { return 1 }
    for k in 0..<min(entries, 512) {
      let entry = ifd + 2 + 12 * k
      guard let tag = u16(entry) else { break }
      // SHORT, one value: in the first two bytes of the value field.
      if tag == 0x0112, u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) {
        return value
      }
    }
    return 1
  }

  /// `samples` turned as EXIF orientation `orientation` says (2...8 mirror and rotate; 5...8
  /// swap width and height), so the picture is upright as every viewer shows it.
  static func oriented(_ samples: PNGCodec.Samples, _ orientation: Int) -> PNGCodec.Samples {
    guard (2...8).contains(orientation) else { return samples }
    let (w, h) = (samples.width, samples.height)
    let swaps = orientation >= 5
    let (ow, oh) = swaps ? (h, w) : (w, h)
    var out = [UInt16](repeating: 0, count: samples.rgba.count)
    for y in 0..<oh {
      for x in 0..<ow {
        // The stored pixel shown at (x, y).
        let (sx, sy): (Int, Int)
        switch orientation {
        case 2: (sx, sy) = (w - 1 - x, y)
        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
        case 4: (sx, sy) = (x, h - 1 - y)
        case 5: (sx, sy) = (y, x)
        case 6: (sx, sy) = (y, h - 1 - x)
        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
        default: (sx, sy) = (w - 1 - y, x)
        }
        let (to, from) = (4 * (y * ow + x), 4 * (sy * w + sx))
        for c in 0..<4 { out[to + c] = samples.rgba[from + c] }
      }
    }
    return PNGCodec.Samples(
      width: ow, height: oh, rgba: out, pixelsPerMeter: samples.pixelsPerMeter)
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
