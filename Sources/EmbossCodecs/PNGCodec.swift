import CPNG
import EmbossRaster
import EmbossSupport
import Foundation

/// Sample depth of a written PNG.
public enum BitDepth: Int, Sendable, CaseIterable {
  case eight = 8
  case sixteen = 16
}

/// PNG in and out.
///
/// Every libpng call lives in the `CPNG` C target, which owns the setjmp;
/// this type converts between the pipeline's linear `Float` images and 8/16-bit sRGB files.
public enum PNGCodec {
  /// Default compression level: 3, ISA-L's igzip at its level 2 (see `fastLevels`): on
  /// renders 6 to 10 times zlib level 4's speed for files 8-17% larger (zlib's own fast
  /// levels, 1-3, made them 20-50% larger); see the benchmark in the README.
  public static let defaultCompression = 3

  /// The compression levels ISA-L's igzip deflates (at its levels 0, 1 and 2), not zlib.
  ///
  /// Level 0 is stored (zlib's level 0), 4-9 are zlib's levels.
  public static let fastLevels = 1...3

  /// Encodes a linear-light, straight-alpha image as an sRGB PNG (with an sRGB chunk): RGB
  /// where every pixel is opaque at the depth written, RGBA otherwise.
  ///
  /// Colors are clamped to 0...1. The bytes depend only on the pixels and the options.
  public static func encode(
    _ image: RGBAImage, depth: BitDepth = .eight, compression: Int = defaultCompression,
    pixelsPerMeter: UInt32 = 0, parallelism: Parallelism = .allCores
  ) throws -> Data {
    try encode(
      CanvasImage(image), depth: depth, compression: compression, pixelsPerMeter: pixelsPerMeter,
      parallelism: parallelism)
  }

  /// Encodes a canvas image: background pixels are converted once and repeated, and rows are
  /// converted band by band inside the parallel compressor, so no full-size 8/16-bit copy of
  /// the canvas is ever held.
  public static func encode(
    _ image: CanvasImage, depth: BitDepth = .eight, compression: Int = defaultCompression,
    pixelsPerMeter: UInt32 = 0, parallelism: Parallelism = .allCores
  ) throws -> Data {
    switch depth {
    case .eight:
      return try SRGB.encode8Table.withUnsafeBufferPointer { table in
        let table = UnsafeBufferPointerBox(table)
        return try encodeRows(
          image, bitDepth: 8, compression: compression, pixelsPerMeter: pixelsPerMeter,
          parallelism: parallelism
        ) { (p: SIMD4<Float>) -> SIMD4<UInt8> in
          SRGB.codes8(p, table: table.buffer)
        }
      }
    case .sixteen:
      // PNG stores 16-bit samples big-endian.
      return try encodeRows(
        image, bitDepth: 16, compression: compression, pixelsPerMeter: pixelsPerMeter,
        parallelism: parallelism
      ) { (p: SIMD4<Float>) -> SIMD4<UInt16> in
        SIMD4(
          UInt16(SRGB.encode(p.x) * 65535 + 0.5).bigEndian,
          UInt16(SRGB.encode(p.y) * 65535 + 0.5).bigEndian,
          UInt16(SRGB.encode(p.z) * 65535 + 0.5).bigEndian,
          UInt16(unitClamp(p.w) * 65535 + 0.5).bigEndian)
      }
    }
  }

  /// Encodes a canvas of 8-bit sRGB codes as an sRGB PNG (with an sRGB chunk), RGB where
  /// every pixel is opaque and RGBA otherwise: the same bytes as
  /// `encode(_:depth:compression:pixelsPerMeter:parallelism:)` of the float picture whose
  /// codes they are.
  public static func encode(
    _ canvas: SRGBCanvas, compression: Int = defaultCompression, pixelsPerMeter: UInt32 = 0,
    parallelism: Parallelism = .allCores
  ) throws -> Data {
    let rect = canvas.contentRect
    let fill = canvas.fill
    let covered =
      rect.x == 0 && rect.y == 0 && rect.width == canvas.width
      && rect.height == canvas.height
    let opaque = (covered || fill.w == 255) && canvas.content.allSatisfy { $0.w == 255 }
    // A whole row of the fill's RGB samples, copied from where a row shows the fill (a
    // sample at a time, the rows of case C's 4096 x 4096 canvas took 7 ms).
    let fillRow = opaque ? (0..<canvas.width).flatMap { _ in [fill.x, fill.y, fill.z] } : []
    return try canvas.content.withUnsafeBufferPointer { src in
      let src = UnsafeBufferPointerBox(src)
      return try fillRow.withUnsafeBufferPointer { fillRow in
        let fillRow = UnsafeBufferPointerBox(fillRow)
        return try encodeBanded(
          width: canvas.width, height: canvas.height, channels: opaque ? 3 : 4, bitDepth: 8,
          compression: compression, pixelsPerMeter: pixelsPerMeter, srgb: true,
          parallelism: parallelism, background: { y in y < rect.y || y >= rect.maxY }
        ) { y, row in
          let content = src.buffer.baseAddress.map { $0 + (y - rect.y) * rect.width }
          let inside = y >= rect.y && y < rect.maxY && content != nil
          if opaque {
            guard inside, let content, let fills = fillRow.buffer.baseAddress else {
              if let fills = fillRow.buffer.baseAddress {
                row.copyMemory(from: fills, byteCount: 3 * canvas.width)
              }
              return
            }
            row.copyMemory(from: fills, byteCount: 3 * rect.x)
            (row + 3 * rect.maxX).copyMemory(
              from: fills, byteCount: 3 * (canvas.width - rect.maxX))
            Self.packRGB(content, count: rect.width, to: row + 3 * rect.x)
            return
          }
          let out = row.assumingMemoryBound(to: SIMD4<UInt8>.self)
          guard inside, let content else {
            out.initialize(repeating: fill, count: canvas.width)
            return
          }
          out.initialize(repeating: fill, count: rect.x)
          (out + rect.x).initialize(from: content, count: rect.width)
          (out + rect.maxX).initialize(repeating: fill, count: canvas.width - rect.maxX)
        }
      }
    }
  }

  /// The RGB samples of `count` RGBA pixels at `out` (3 bytes each): each pixel stored as
  /// its 4 bytes, the 4th overwritten by the next pixel's (the last pixel's 3 alone).
  @inline(__always)
  static func packRGB(
    _ pixels: UnsafePointer<SIMD4<UInt8>>, count: Int, to out: UnsafeMutableRawPointer
  ) {
    guard count > 0 else { return }
    let words = UnsafeRawPointer(pixels)
    for x in 0..<(count - 1) {
      out.storeBytes(
        of: words.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self),
        toByteOffset: 3 * x, as: UInt32.self)
    }
    let last = pixels[count - 1]
    out.storeBytes(of: last.x, toByteOffset: 3 * (count - 1), as: UInt8.self)
    out.storeBytes(of: last.y, toByteOffset: 3 * (count - 1) + 1, as: UInt8.self)
    out.storeBytes(of: last.z, toByteOffset: 3 * (count - 1) + 2, as: UInt8.self)
  }

  /// `encodeBanded` over a canvas image whose pixels `convert` turns into RGBA samples of
  /// `bitDepth` bits: RGB ones where every pixel's alpha sample is the largest.
  private static func encodeRows<T: SIMDScalar & Sendable>(
    _ image: CanvasImage, bitDepth: Int, compression: Int, pixelsPerMeter: UInt32,
    parallelism: Parallelism, _ convert: @Sendable (SIMD4<Float>) -> SIMD4<T>
  ) throws -> Data {
    let background = UncheckedSendable(convert(image.fill))
    let rect = image.contentRect
    // An alpha sample is the largest where alpha * largest rounds to it.
    let largest = Float((1 << bitDepth) - 1)
    let threshold = (largest - 0.5) / largest
    // The fill counts where the content leaves some of the canvas to it.
    let covered =
      rect.x == 0 && rect.y == 0 && rect.width == image.width
      && rect.height == image.height
    let channels =
      (covered || image.fill.w >= threshold)
        && image.content.pixels.allSatisfy { $0.w >= threshold } ? 3 : 4
    return try image.content.pixels.withUnsafeBufferPointer { src in
      let src = UnsafeBufferPointerBox(src)
      return try encodeBanded(
        width: image.width, height: image.height, channels: channels, bitDepth: bitDepth,
        compression: compression, pixelsPerMeter: pixelsPerMeter, srgb: true,
        parallelism: parallelism, background: { y in y < rect.y || y >= rect.maxY }
      ) { y, row in
        let out = row.assumingMemoryBound(to: T.self)
        @inline(__always) func put(_ x: Int, _ p: SIMD4<T>) {
          out[channels * x] = p.x
          out[channels * x + 1] = p.y
          out[channels * x + 2] = p.z
          if channels == 4 { out[channels * x + 3] = p.w }
        }
        let inside = y >= rect.y && y < rect.maxY
        for x in 0..<image.width where !inside || x < rect.x || x >= rect.maxX {
          put(x, background.value)
        }
        guard inside else { return }
        let s = (y - rect.y) * rect.width
        for x in 0..<rect.width { put(rect.x + x, convert(src.buffer[s + x])) }
      }
    }
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
      return try encodeRaw(
        bytes, width: plane.width, height: plane.height, channels: 1, bitDepth: 8,
        compression: compression, pixelsPerMeter: pixelsPerMeter, srgb: false)
    case .sixteen:
      let samples = plane.pixels.map { UInt16((unit($0) * 65535).rounded()) }
      return try encodeRaw(
        samples, width: plane.width, height: plane.height, channels: 1,
        bitDepth: 16, compression: compression, pixelsPerMeter: pixelsPerMeter,
        srgb: false)
    }
  }

  /// Rows a zlib band holds.
  ///
  /// Fixed, so the file's bytes never depend on the thread count; small enough that two
  /// cores share a render's ink rows evenly, and long enough (a 1000-pixel row alone is 3 KB
  /// of RGB, against deflate's 32 KiB window) that restarting the compressor's dictionary
  /// costs well under 1% of size (case C: 426 to 427 KiB from 256-row bands).
  static let deflateBandRows = 64

  /// Rows of a band converted and deflated at a time (the band's bytes do not depend on it).
  static let deflateChunkRows = 16

  /// Encodes 8- or 16-bit samples (16-bit big-endian) with the image data compressed in
  /// bands of rows on all threads, as pigz does: each band is Up-filtered and deflated on its
  /// own, the bands are concatenated into one zlib stream (Adler-32s combined), and libpng
  /// writes the container around it.
  ///
  /// `fillRow(y, row)` writes row y's samples at `row` (width * channels * bitDepth / 8
  /// bytes); it is called from several threads at once, for distinct rows. With `runs`, at
  /// any level but 0, each band is deflated with zlib's run-length strategy
  /// (`emboss_deflate_band_begin_runs`), and again at the level where that does not shrink it
  /// to an eighth.
  static func encodeBanded(
    width: Int, height: Int, channels: Int, bitDepth: Int, compression: Int,
    pixelsPerMeter: UInt32, srgb: Bool, parallelism: Parallelism,
    background: (@Sendable (Int) -> Bool)? = nil, runs: Bool = false,
    fillRow: @Sendable (Int, UnsafeMutableRawPointer) -> Void
  ) throws -> Data {
    guard width > 0, height > 0 else { throw EmbossError("cannot encode PNG: image is empty") }
    // Bands of nothing but background rows (after a background row) filter to the same bytes,
    // so they deflate to the same bytes: each kind (its row count, whether it ends the
    // stream) is deflated once and reused.
    let repeated = RepeatedBands()
    let rowBytes = (width * channels * bitDepth + 7) / 8
    let bandCount = (height + deflateBandRows - 1) / deflateBandRows
    var bands = [DeflatedBand](repeating: DeflatedBand(), count: bandCount)
    let level = Int32(min(max(compression, 0), 9))
    bands.withUnsafeMutableBufferPointer { out in
      let out = SharedPointer(out)
      parallelism.forEachBand(bandCount, bandSize: 1) { range in
        for index in range {
          let first = index * deflateBandRows
          let rows = min(deflateBandRows, height - first)
          let final = index == bandCount - 1
          let uniform =
            first > 0
            && background.map { isBackground in
              (first - 1..<first + rows).allSatisfy(isBackground)
            } ?? false
          if uniform, let band = repeated.band(rows: rows, final: final) {
            out[index] = band
            continue
          }
          // The band's rows, a few at a time after the row above them (which the Up filter
          // needs), so no band is held whole.
          let chunk = min(rows, deflateChunkRows)
          let samples = UnsafeMutableRawPointer.allocate(
            byteCount: (chunk + 1) * rowBytes, alignment: 16)
          defer { samples.deallocate() }
          // The fast levels are igzip's; a band of background rows is deflated once, so
          // there they take zlib's level 6 (igzip spends about 40 bytes on a row of zeros,
          // zlib 15).
          let fast = Self.fastLevels.contains(Int(level))
          let (zlibLevel, igzipLevel): (Int32, Int32) =
            !fast
            ? (level, -1) : uniform ? (6, -1) : (level, level - Int32(Self.fastLevels.lowerBound))
          func deflate(byRuns: Bool) -> DeflatedBand {
            var message = [CChar](repeating: 0, count: 256)
            var band = DeflatedBand()
            guard
              let state =
                byRuns
                ? emboss_deflate_band_begin_runs(rowBytes, chunk, &message, message.count)
                : emboss_deflate_band_begin(
                  zlibLevel, igzipLevel, rowBytes, chunk, &message, message.count)
            else {
              band.error = cString(message)
              return band
            }
            var buffer = emboss_png_buffer()
            var status: Int32 = 0
            if first > 0 { fillRow(first - 1, samples) }
            var start = 0
            while start < rows && status == 0 {
              let count = min(chunk, rows - start)
              // Slot 0 holds the row above: the previous chunk's last (every chunk but the
              // band's last is whole), moved down.
              if start > 0 {
                samples.copyMemory(from: samples + chunk * rowBytes, byteCount: rowBytes)
              }
              for r in 0..<count { fillRow(first + start + r, samples + (r + 1) * rowBytes) }
              let above = start > 0 || first > 0
              let end: Int32 = start + count < rows ? 0 : (final ? 2 : 1)
              status = emboss_deflate_band_rows(
                state, samples.assumingMemoryBound(to: UInt8.self) + rowBytes, count,
                above ? UnsafePointer(samples.assumingMemoryBound(to: UInt8.self)) : nil, end,
                &buffer, &message, message.count)
              start += count
            }
            var filtered = 0
            emboss_deflate_band_end(state, &band.adler, &filtered)
            band.filteredSize = filtered
            if status != 0 {
              band.error = cString(message)
            } else if let data = buffer.data {
              band.data = Data(bytes: data, count: buffer.size)
            }
            emboss_png_buffer_free(&buffer)
            return band
          }
          // Runs first where asked; a band they do not shrink to an eighth (error-diffused
          // or blue-noise dots, whose repeats lie bytes or rows apart) is deflated again at
          // the level. (At a sixteenth, a quarter of B's thresholded bands went to zlib's
          // level 9 again: 25 ms of search for 3% of their size.)
          var band = deflate(byRuns: runs && level > 0)
          if runs && level > 0 && band.error == nil && band.data.count * 8 > band.filteredSize {
            band = deflate(byRuns: false)
          }
          out[index] = band
          if uniform { repeated.keep(band, rows: rows, final: final) }
        }
      }
    }
    if let error = bands.compactMap(\.error).first {
      throw EmbossError("cannot encode PNG: \(error)")
    }
    // zlib header: deflate with a 32 KiB window, the level class, and the check bits.
    let levelClass: UInt8 = level < 2 ? 0 : (level < 6 ? 1 : (level == 6 ? 2 : 3))
    var flags = levelClass << 6
    flags += UInt8(31 - (0x7800 + Int(flags)) % 31)
    var stream = Data([0x78, flags])
    stream.reserveCapacity(bands.reduce(6) { $0 + $1.data.count })
    var adler: UInt32 = 1
    for band in bands {
      stream.append(band.data)
      adler = emboss_adler32_combine(adler, band.adler, band.filteredSize)
    }
    stream.append(contentsOf: [
      UInt8(adler >> 24), UInt8(adler >> 16 & 0xff), UInt8(adler >> 8 & 0xff), UInt8(adler & 0xff),
    ])
    var buffer = emboss_png_buffer()
    var message = [CChar](repeating: 0, count: 256)
    let status = stream.withUnsafeBytes { z in
      emboss_png_write_zlib(
        UInt32(width), UInt32(height), Int32(channels), Int32(bitDepth), pixelsPerMeter,
        srgb ? 1 : 0, z.bindMemory(to: UInt8.self).baseAddress, z.count, &buffer, &message,
        message.count)
    }
    defer { emboss_png_buffer_free(&buffer) }
    guard status == 0, let data = buffer.data else {
      throw EmbossError("cannot encode PNG: \(cString(message))")
    }
    return Data(bytes: data, count: buffer.size)
  }

  /// Encodes a 1-bit grayscale image from its packed rows (8 pixels a byte, most
  /// significant bit first, 1 = white, `(width + 7) / 8` bytes a row), its bands deflated on
  /// all cores as `encode` does.
  ///
  /// The bands deflate by zlib's run-length strategy at any `compression` but 0 (stored),
  /// where that shrinks them to an eighth, else at the level. Up-filtered 1-bit rows of a
  /// threshold are runs of zeros, through which zlib level 9 searched its match chains 40
  /// times as long for a stream 3-6% shorter (case C's engraving: 48 ms against 1.3 ms on
  /// one thread); error-diffused dots repeat bytes or rows apart, which only the level finds.
  /// An ordered (Bayer) dither stays in runs: 18% larger than at level 9, 20 times faster.
  public static func encodeBits(
    rows: [UInt8], width: Int, height: Int, compression: Int = 9, pixelsPerMeter: UInt32 = 0,
    parallelism: Parallelism = .allCores
  ) throws -> Data {
    let rowBytes = (width + 7) / 8
    precondition(rows.count == rowBytes * height, "row bytes do not match size")
    // A row all white (its padding bits 0) is background: a band of them after one is
    // deflated once (most of a canvas around short text).
    var white = [UInt8](repeating: 0xFF, count: rowBytes)
    if width % 8 != 0, rowBytes > 0 { white[rowBytes - 1] = UInt8(0xFF << (8 - width % 8) & 0xFF) }
    return try rows.withUnsafeBytes { source in
      let source = UnsafeBufferPointerBox(source.bindMemory(to: UInt8.self))
      let whiteRow = UncheckedSendable(white)
      return try encodeBanded(
        width: width, height: height, channels: 1, bitDepth: 1, compression: compression,
        pixelsPerMeter: pixelsPerMeter, srgb: false, parallelism: parallelism,
        background: { y in
          guard let start = source.buffer.baseAddress else { return false }
          return whiteRow.value.withUnsafeBytes { white in
            white.baseAddress.map { memcmp(start + y * rowBytes, $0, rowBytes) == 0 } ?? true
          }
        }, runs: true
      ) { y, row in
        guard let start = source.buffer.baseAddress else { return }
        row.copyMemory(from: start + y * rowBytes, byteCount: rowBytes)
      }
    }
  }

  /// Encodes packed samples as they are, on one thread: see `emboss_png_encode` for the layout.
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
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// Row-major RGBA samples as stored (sRGB-encoded for color files), scaled to 16 bits.
    public var rgba: [UInt16]
    /// From the pHYs chunk, 0 when absent.
    public var pixelsPerMeter: UInt32
  }

  /// Decodes any PNG libpng reads (gray, RGB, palette, 1...16 bits, with or without alpha) to
  /// 16-bit RGBA samples.
  ///
  /// Sizes over `maxPixels` are refused from the header, before pixel
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
    /// The pixels, linear light, straight alpha.
    public var image: RGBAImage
    /// From the pHYs chunk, 0 when absent.
    public var pixelsPerMeter: UInt32
  }

  /// Decodes any PNG libpng reads into linear light (samples are taken as sRGB).
  public static func decode(_ data: Data, maxPixels: Int = RenderLimits.default.maxPixels) throws
    -> Decoded
  {
    decoded(try decodeSamples(data, maxPixels: maxPixels))
  }

  /// Samples (sRGB-encoded) as linear-light straight-alpha pixels.
  static func decoded(_ samples: Samples) -> Decoded {
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

  /// The width and height in a PNG's header; nil when the header cannot be read.
  public static func size(of data: Data) -> (width: Int, height: Int)? {
    var width: UInt32 = 0
    var height: UInt32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw in
      emboss_png_read_size(
        raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &width, &height, &message,
        message.count)
    }
    return status == 0 ? (Int(width), Int(height)) : nil
  }

  /// Reads a PNG file's samples; errors name the path.
  public static func readSamples(path: String, maxPixels: Int = RenderLimits.default.maxPixels)
    throws -> Samples
  {
    let data = try InputFile.read(path, what: "PNG")
    do {
      return try decodeSamples(data, maxPixels: maxPixels)
    } catch let error as EmbossError {
      throw EmbossError("cannot read PNG '\(path)': \(error.message)")
    }
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
}

/// A PNG read row by row, so a large picture is never held whole: RGBA samples in the file's
/// own encoding, 8 bits (or 16 when the file has 16).
///
/// Rows come in order; a decoding error (a truncated or corrupt stream) is thrown by
/// `read`, and the reader is then done.
public final class PNGRowReader: @unchecked Sendable {
  /// The width in pixels.
  public let width: Int
  /// The height in pixels.
  public let height: Int
  /// From the pHYs chunk, 0 when absent.
  public let pixelsPerMeter: UInt32
  /// Whether samples are 16-bit (host order) rather than 8-bit.
  public let sixteen: Bool
  /// Rows read so far.
  public private(set) var rowsRead = 0
  private let bytes: UnsafeMutableRawBufferPointer
  private var reader: OpaquePointer?
  private let path: String

  /// Opens the PNG file at `path` (read whole; its pixels are decoded row by row).
  ///
  /// - Throws: `EmbossError` naming the path, for a file that cannot be read, is not a PNG,
  ///   or is over `maxPixels`.
  public convenience init(path: String, maxPixels: Int = RenderLimits.default.maxPixels) throws {
    try self.init(data: try InputFile.read(path, what: "PNG"), path: path, maxPixels: maxPixels)
  }

  /// A reader over a file's bytes already read; `path` names it in errors.
  public init(data: Data, path: String, maxPixels: Int = RenderLimits.default.maxPixels) throws {
    self.path = path
    bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
    _ = data.copyBytes(to: bytes.bindMemory(to: UInt8.self))
    var reader: OpaquePointer?
    var width: UInt32 = 0
    var height: UInt32 = 0
    var ppm: UInt32 = 0
    var sixteen: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = emboss_png_reader_open(
      bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
      UInt64(max(0, maxPixels)), &reader, &width, &height, &ppm, &sixteen, &message,
      message.count)
    guard status == 0, let reader else {
      bytes.deallocate()
      throw EmbossError("cannot read PNG '\(path)': \(cString(message))")
    }
    self.reader = reader
    self.width = Int(width)
    self.height = Int(height)
    self.pixelsPerMeter = ppm
    self.sixteen = sixteen != 0
  }

  deinit {
    emboss_png_reader_close(reader)
    bytes.deallocate()
  }

  /// Bytes of one row.
  public var rowBytes: Int { width * 4 * (sixteen ? 2 : 1) }

  /// Reads the next `count` rows into `buffer` (`count * rowBytes` bytes).
  public func read(rows count: Int, into buffer: UnsafeMutableRawPointer) throws {
    guard let reader else { throw EmbossError("cannot read PNG '\(path)': already failed") }
    var message = [CChar](repeating: 0, count: 256)
    guard emboss_png_reader_rows(reader, buffer, UInt32(count), &message, message.count) == 0
    else {
      emboss_png_reader_close(reader)
      self.reader = nil
      throw EmbossError("cannot read PNG '\(path)': \(cString(message))")
    }
    rowsRead += count
  }
}

/// One band of rows, filtered and deflated on its own (a piece of the image's zlib stream).
struct DeflatedBand: Sendable {
  var data = Data()
  var adler: UInt32 = 1
  var filteredSize = 0
  var error: String? = nil
}

/// The deflated bands of background alone, by row count and finality, shared by the threads
/// of one encode.
final class RepeatedBands: @unchecked Sendable {
  private var bands: [Int: DeflatedBand] = [:]
  private let lock = NSLock()

  private func key(_ rows: Int, _ final: Bool) -> Int { rows * 2 + (final ? 1 : 0) }

  func band(rows: Int, final: Bool) -> DeflatedBand? {
    lock.lock()
    defer { lock.unlock() }
    return bands[key(rows, final)]
  }

  func keep(_ band: DeflatedBand, rows: Int, final: Bool) {
    guard band.error == nil else { return }
    lock.lock()
    defer { lock.unlock() }
    bands[key(rows, final)] = band
  }
}
