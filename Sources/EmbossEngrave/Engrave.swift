import Dispatch
import EmbossCodecs
import EmbossRaster
import EmbossSupport
import Foundation

/// How gray becomes black and white.
public enum DitherMethod: String, Sendable, CaseIterable {
  /// Glowforge's threshold: white where the alpha-corrected gray >= threshold / 255 (within
  /// a thousandth of a level: equal composite values decide alike).
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

  /// The names people type for methods, as laser software and image editors call them.
  public static let aliases: [String: DitherMethod] = [
    "fs": .floydSteinberg, "floyd": .floydSteinberg, "floydsteinberg": .floydSteinberg,
    "jarvis": .jarvisJudiceNinke, "jjn": .jarvisJudiceNinke, "bayer": .bayer8,
    "ordered": .bayer8, "sierra2": .sierraTwoRow, "sierra-2": .sierraTwoRow,
    "bluenoise": .blueNoise, "stochastic": .blueNoise,
  ]

  /// Parses a method name or an alias; the error lists the valid ones.
  public static func parse(_ name: String) -> Result<DitherMethod, EmbossError> {
    let key = name.lowercased()
    if let method = DitherMethod(rawValue: key) ?? aliases[key] { return .success(method) }
    let names = allCases.map(\.rawValue)
    var message = "unknown dither '\(name)'"
    if let close = suggestion(for: name, among: names + aliases.keys.sorted()) {
      let method = DitherMethod(rawValue: close) ?? aliases[close]
      message += "; did you mean '\(method?.rawValue ?? close)'?"
    }
    return .failure(EmbossError(message + " (one of: \(names.joined(separator: ", ")))"))
  }
}

/// Everything that turns an image into an engrave bitmap.
///
/// Validated values.
public struct EngraveOptions: Sendable, Equatable {
  /// How gray levels become dots.
  public let method: DitherMethod
  /// 0...255: gray at or above threshold / 255 stays white (threshold mode), and the
  /// decision level of the error-diffusion and ordered modes.
  public let threshold: Int
  /// Error diffusion runs right-to-left on odd rows with the kernel mirrored.
  public let serpentine: Bool
  /// Gray is raised to this power before dithering (1: unchanged; 2.2: linear light).
  public let gamma: Float
  /// Burn the light parts instead (for slate, glass, anodized aluminum).
  public let negative: Bool
  /// Mirror left to right (for the back of acrylic).
  public let mirror: Bool
  /// Beam width in pixels: burned runs are shortened by it in all (rounded to whole pixels),
  /// half at each end.
  public let dotWidth: Float

  /// The thresholds allowed.
  public static let thresholds = 0...255
  /// The gammas allowed.
  public static let gammas: ClosedRange<Float> = 0.1...10
  /// The beam widths allowed, in pixels.
  public static let dotWidths: ClosedRange<Float> = 0...1_048_576

  /// Every value at its default: threshold mode at 128, serpentine, gamma 1, no beam
  /// correction.
  public static let standard = EngraveOptions(
    checked: .threshold, 128, true, 1, false, false, 0)

  /// Options with every value given; see each property for its meaning.
  ///
  /// - Throws: `EmbossError` for a threshold, gamma or beam width outside its range (NaN
  ///   included), so no engraving can trap on a value it cannot use.
  public init(
    method: DitherMethod = .threshold, threshold: Int = 128, serpentine: Bool = true,
    gamma: Float = 1, negative: Bool = false, mirror: Bool = false, dotWidth: Float = 0
  ) throws(EmbossError) {
    guard Self.thresholds.contains(threshold) else {
      throw EmbossError("the engraving's threshold must be in 0...255, got \(threshold)")
    }
    guard Self.gammas.contains(gamma) else {
      throw EmbossError("the engraving's gamma must be in 0.1...10, got \(gamma)")
    }
    guard Self.dotWidths.contains(dotWidth) else {
      throw EmbossError(
        "the engraving's beam width must be 0...1048576 pixels, got \(dotWidth)")
    }
    self.init(checked: method, threshold, serpentine, gamma, negative, mirror, dotWidth)
  }

  private init(
    checked method: DitherMethod, _ threshold: Int, _ serpentine: Bool, _ gamma: Float,
    _ negative: Bool, _ mirror: Bool, _ dotWidth: Float
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

/// Gray rows for engraving, from 0 for black to 1 for white.
///
/// Rows are made on demand, so no full-size gray (or float color) copy of the picture is
/// ever held.
public struct GraySource: Sendable {
  /// The width in pixels.
  public let width: Int
  /// The height in pixels.
  public let height: Int
  /// Whether `negative` was applied to the color under the alpha already.
  let negativeApplied: Bool
  /// For a source read as a stream: makes a range of rows readable.
  ///
  /// The ranges come in order, each `streamChunk` rows (the last one shorter), and only the
  /// last range's rows are read. nil: every row is readable at any time.
  let load: (@Sendable (Range<Int>) -> Void)?
  /// Writes row `y`'s gray into the buffer (`width` values).
  let row: @Sendable (Int, UnsafeMutableBufferPointer<Float>) -> Void
  /// The one gray of a row whose pixels all have it (a canvas's background rows), else nil.
  var uniform: @Sendable (Int) -> Float? = { _ in nil }

  /// Rows per range of a streamed source.
  static let streamChunk = 256

  /// Gray values as they are (`EngraveOptions.negative` then inverts them).
  public init(plane: Plane) {
    let plane = UncheckedSendable(plane)
    width = plane.value.width
    height = plane.value.height
    negativeApplied = false
    load = nil
    row = { y, out in
      let w = plane.value.width
      plane.value.pixels.withUnsafeBufferPointer { src in
        for x in 0..<w { out[x] = src[y * w + x] }
      }
    }
  }

  /// A picture's stored samples (16-bit sRGB-encoded RGBA, as `PNGCodec.decodeSamples` gives
  /// them), read as laser software reads the file (`GrayRule`).
  public init(samples: PNGCodec.Samples, negative: Bool) {
    let samples = UncheckedSendable(samples)
    width = samples.value.width
    height = samples.value.height
    negativeApplied = true
    load = nil
    row = { y, out in
      let w = samples.value.width
      samples.value.rgba.withUnsafeBufferPointer { src in
        var i = 4 * y * w
        for x in 0..<w {
          out[x] = GrayRule.gray(src[i], src[i + 1], src[i + 2], src[i + 3], negative: negative)
          i += 4
        }
      }
    }
  }

  /// A render (linear light, straight alpha), read as its 8-bit PNG holds it.
  ///
  /// The engraving of a render equals the engraving of the PNG emboss writes for it. The
  /// background's gray is computed once.
  public init(canvas: CanvasImage, negative: Bool) {
    let table = SRGB.encode8
    let background = table.withUnsafeBufferPointer {
      GrayRule.gray(codes8: SRGB.codes8(canvas.fill, table: $0), negative: negative)
    }
    let rect = canvas.contentRect
    let content = UncheckedSendable(canvas.content)
    self.init(
      width: canvas.width, height: canvas.height, content: rect, background: background
    ) { row, out in
      table.withUnsafeBufferPointer { table in
        content.value.pixels.withUnsafeBufferPointer { src in
          let s = row * rect.width
          for x in 0..<rect.width {
            out[x] = GrayRule.gray(
              codes8: SRGB.codes8(src[s + x], table: table), negative: negative)
          }
        }
      }
    }
  }

  /// A render's 8-bit codes (`SRGBCanvas`): the same gray as `init(canvas:negative:)` gives
  /// the linear canvas they are the codes of.
  public init(codes: SRGBCanvas, negative: Bool) {
    let rect = codes.contentRect
    let content = UncheckedSendable(codes.content)
    self.init(
      width: codes.width, height: codes.height, content: rect,
      background: GrayRule.gray(codes8: codes.fill, negative: negative)
    ) { row, out in
      content.value.withUnsafeBufferPointer { src in
        let s = row * rect.width
        for x in 0..<rect.width { out[x] = GrayRule.gray(codes8: src[s + x], negative: negative) }
      }
    }
  }

  /// A canvas's gray: `background` outside `content`, and inside it what `contentRow(row,
  /// out)` writes for the content's row `row` (`content.width` values from `out`).
  private init(
    width: Int, height: Int, content: PixelRect, background: Float,
    contentRow: @escaping @Sendable (Int, UnsafeMutablePointer<Float>) -> Void
  ) {
    self.width = width
    self.height = height
    negativeApplied = true
    load = nil
    uniform = { y in y >= content.y && y < content.maxY ? nil : background }
    row = { y, out in
      guard y >= content.y, y < content.maxY, let base = out.baseAddress else {
        for x in 0..<width { out[x] = background }
        return
      }
      for x in 0..<content.x { out[x] = background }
      for x in content.maxX..<width { out[x] = background }
      contentRow(y - content.y, base + content.x)
    }
  }
}

/// A PNG file's rows as gray, decoded a chunk at a time while the bitmap is made.
///
/// While one chunk's rows are turned into bits, the next chunk is decoded on another thread
/// (decoding is serial; the two overlap). The first decoding error is kept (the rows after it read as
/// white) for `Engrave.bitmap(png:)` to throw.
final class PNGGrayStream: @unchecked Sendable {
  let reader: PNGRowReader
  let negative: Bool
  /// Two chunk buffers: the current rows, and the next ones being decoded.
  private let buffers: [UnsafeMutableRawBufferPointer]
  private var current = 0
  private var start = 0
  private(set) var error: Error?
  /// The chunk being decoded ahead, its buffer and its outcome (read after `group.wait()`).
  private var ahead: (rows: Range<Int>, buffer: Int)?
  private var aheadError: Error?
  private let group = DispatchGroup()

  init(reader: PNGRowReader, negative: Bool) {
    self.reader = reader
    self.negative = negative
    let size = max(1, reader.rowBytes * min(reader.height, GraySource.streamChunk))
    buffers = (0..<2).map { _ in
      UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    }
  }

  deinit {
    group.wait()
    for buffer in buffers { buffer.deallocate() }
  }

  /// Makes `rows` current (decoded ahead, or now), then starts decoding the chunk after it.
  func load(_ rows: Range<Int>) {
    if let ahead, ahead.rows == rows {
      group.wait()
      current = ahead.buffer
      self.ahead = nil
      if error == nil { error = aheadError }
    } else {
      group.wait()
      ahead = nil
      if error == nil, let base = buffers[current].baseAddress {
        do { try reader.read(rows: rows.count, into: base) } catch { self.error = error }
      }
    }
    start = rows.lowerBound
    let next = rows.upperBound..<min(reader.height, rows.upperBound + GraySource.streamChunk)
    guard error == nil, !next.isEmpty, let base = buffers[1 - current].baseAddress else { return }
    ahead = (next, 1 - current)
    let target = UncheckedSendable(base)
    group.enter()
    DispatchQueue.global().async { [self] in
      do {
        try reader.read(rows: next.count, into: target.value)
      } catch {
        aheadError = error
      }
      group.leave()
    }
  }

  func row(_ y: Int, _ out: UnsafeMutableBufferPointer<Float>) {
    let w = reader.width
    guard error == nil else {
      for x in 0..<w { out[x] = 1 }
      return
    }
    let offset = (y - start) * w * 4
    guard let base = buffers[current].baseAddress else { return }
    if reader.sixteen {
      let src = base.assumingMemoryBound(to: UInt16.self) + offset
      for x in 0..<w {
        let p = src + 4 * x
        out[x] = GrayRule.gray(p[0], p[1], p[2], p[3], negative: negative)
      }
    } else {
      let src = base.assumingMemoryBound(to: UInt8.self) + offset
      for x in 0..<w {
        let p = src + 4 * x
        out[x] = GrayRule.gray(codes8: SIMD4(p[0], p[1], p[2], p[3]), negative: negative)
      }
    }
  }
}

extension GraySource {
  init(stream: PNGGrayStream) {
    width = stream.reader.width
    height = stream.reader.height
    negativeApplied = true
    load = { stream.load($0) }
    row = { stream.row($0, $1) }
  }
}

/// The engrave stage: image -> gray -> 1 bit.
public enum Engrave {
  /// A PNG file's engrave bitmap, decoded row by row as the bitmap is made (the file's pixels
  /// are never held whole), read as laser software reads the file (`GrayRule`).
  ///
  /// - Throws: `EmbossError` naming the file for a corrupt or truncated stream.
  public static func bitmap(
    png reader: PNGRowReader, options: EngraveOptions, parallelism: Parallelism = .allCores
  ) throws -> BitImage {
    let stream = PNGGrayStream(reader: reader, negative: options.negative)
    let bits = bitmap(GraySource(stream: stream), options: options, parallelism: parallelism)
    if let error = stream.error { throw error }
    return bits
  }

  /// A picture file's engrave bitmap and the density it stores (0: none): a PNG decoded row
  /// by row as the bitmap is made, a JPEG or WebP decoded whole first.
  public static func bitmap(
    picture path: String, options: EngraveOptions,
    maxPixels: Int = RenderLimits.default.maxPixels, parallelism: Parallelism = .allCores
  ) throws -> (bits: BitImage, pixelsPerMeter: UInt32) {
    let data = try InputFile.read(path, what: "picture")
    switch PictureFormat.sniff(data) {
    case .png?, nil:
      let reader = try PNGRowReader(data: data, path: path, maxPixels: maxPixels)
      return (
        try bitmap(png: reader, options: options, parallelism: parallelism), reader.pixelsPerMeter
      )
    case .jpeg?, .webp?:
      let samples: PNGCodec.Samples
      do {
        samples = try PictureCodec.decodeSamples(data, maxPixels: maxPixels)
      } catch let error as EmbossError {
        throw EmbossError(
          "cannot read \(PictureCodec.describe(data)) '\(path)': \(error.message)")
      }
      return (
        bitmap(
          GraySource(samples: samples, negative: options.negative), options: options,
          parallelism: parallelism), samples.pixelsPerMeter
      )
    }
  }

  /// An image's engrave bitmap (read as its 8-bit PNG holds it; the negative applies to the
  /// color under the alpha).
  public static func bitmap(
    _ image: RGBAImage, options: EngraveOptions, parallelism: Parallelism = .allCores
  ) -> BitImage {
    bitmap(
      GraySource(canvas: CanvasImage(image), negative: options.negative), options: options,
      parallelism: parallelism)
  }

  /// Turns gray, from 0 for black to 1 for white, into an engrave bitmap.
  public static func bitmap(
    _ gray: Plane, options: EngraveOptions, parallelism: Parallelism = .allCores
  ) -> BitImage {
    bitmap(GraySource(plane: gray), options: options, parallelism: parallelism)
  }

  /// Turns gray rows into an engrave bitmap.
  ///
  /// Pure white is never burned and pure black always is, whatever the method (no dots in the surroundings); in error diffusion they pass no
  /// error on.
  ///
  /// Threshold and ordered methods run on all cores in fixed bands of rows; error diffusion
  /// runs row after row with three rows of gray in memory. Either way the bits are written
  /// packed, and the result does not depend on the thread count.
  public static func bitmap(
    _ source: GraySource, options: EngraveOptions, parallelism: Parallelism = .allCores
  ) -> BitImage {
    let w = source.width
    let h = source.height
    let rowBytes = (w + 7) / 8
    let level = Float(options.threshold) / 255
    // The threshold's cut: a gray within a thousandth of an 8-bit level of the threshold
    // counts as at it (white), so equal composite values decide alike however they were
    // computed (black at alpha 127 over white and an opaque gray 128 are both 128/255,
    // a rounding error apart).
    let cut = (Float(options.threshold) - 1e-3) / 255
    let invert = options.negative && !source.negativeApplied
    let gamma = options.gamma
    /// Clamped, gamma, negative: the value the methods compare.
    @Sendable func prepare(_ row: UnsafeMutableBufferPointer<Float>) {
      for x in 0..<row.count {
        var g = min(max(row[x], 0), 1)
        if gamma != 1 { g = powf(g, gamma) }
        row[x] = invert ? 1 - g : g
      }
    }
    var rows = [UInt8](repeating: 0, count: rowBytes * h)
    switch options.method {
    case .threshold, .bayer2, .bayer4, .bayer8, .blueNoise:
      // The threshold for each pixel: fixed, or from a tiled matrix.
      let n: Int
      let matrix: [Int]
      switch options.method {
      case .bayer2, .bayer4, .bayer8:
        n = options.method == .bayer2 ? 2 : (options.method == .bayer4 ? 4 : 8)
        matrix = bayer(n)
      case .blueNoise:
        n = BlueNoise.size
        matrix = BlueNoise.matrix
      default:
        n = 0
        matrix = []
      }
      let levels = UncheckedSendable(matrix.map { (Float($0) + 0.5) / Float(n * n) })
      let bias = 0.5 - level
      let chunk = source.load == nil ? max(h, 1) : GraySource.streamChunk
      rows.withUnsafeMutableBufferPointer { out in
        let out = SharedPointer(out)
        for first in stride(from: 0, to: h, by: chunk) {
          let range = first..<min(h, first + chunk)
          source.load?(range)
          parallelism.forEachBand(range.count, bandSize: 32) { band in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(w, 1))
            defer { buffer.deallocate() }
            for y in band.lowerBound + first..<band.upperBound + first {
              let base = y * rowBytes
              // A uniform row of pure white or black (or any gray, thresholded) is one bit
              // repeated, whatever the method.
              if let gray = source.uniform(y) {
                buffer[0] = gray
                prepare(UnsafeMutableBufferPointer(rebasing: buffer[0..<1]))
                let v = buffer[0]
                if v >= 1 || v <= 0 || n == 0 {
                  if !(v <= 0 || (n == 0 && v < cut)) {
                    for i in 0..<rowBytes { out[base + i] = 0xFF }
                    // Padding bits past the width stay 0.
                    if w & 7 != 0 { out[base + rowBytes - 1] = UInt8(0xFF00 >> (w & 7) & 0xFF) }
                  }
                  continue
                }
              }
              source.row(y, buffer)
              prepare(buffer)
              for x in 0..<w {
                let v = buffer[x]
                let black: Bool
                if n == 0 {
                  black = v < cut
                } else {
                  let t = levels.value[(y % n) * n + x % n]
                  black = v < 1 && (v <= 0 || v + bias < t)
                }
                if !black { out[base + x >> 3] |= 0x80 >> UInt8(x & 7) }
              }
            }
          }
        }
      }
    default:
      guard let (taps, divisor) = options.method.kernel else { break }
      rows.withUnsafeMutableBufferPointer { out in
        diffuse(
          source, taps: taps, divisor: divisor, level: level, serpentine: options.serpentine,
          prepare: prepare, into: out)
      }
    }
    var image = BitImage(width: w, height: h, rows: rows)
    image = image.shorteningRuns(beamWidth: options.dotWidth)
    if options.mirror { image = image.mirrored() }
    return image
  }

  /// Error diffusion, row after row (right to left on odd rows when `serpentine`, the kernel
  /// mirrored), into packed rows (1 = white).
  ///
  /// Only a ring of `1 + deepest tap` rows of gray is held; each is loaded as prepared, then
  /// takes the error pushed into it, added in the same order as on a whole image. Pure white
  /// and black pixels are kept as they are and pass no error on.
  private static func diffuse(
    _ source: GraySource, taps: [(dx: Int, dy: Int, weight: Float)], divisor: Float,
    level: Float, serpentine: Bool, prepare: (UnsafeMutableBufferPointer<Float>) -> Void,
    into out: UnsafeMutableBufferPointer<UInt8>
  ) {
    let w = source.width
    let h = source.height
    guard w > 0, h > 0 else { return }
    let rowBytes = (w + 7) / 8
    let depth = (taps.map(\.dy).max() ?? 0) + 1
    let values = UnsafeMutableBufferPointer<Float>.allocate(capacity: depth * w)
    let originals = UnsafeMutableBufferPointer<Float>.allocate(capacity: depth * w)
    defer {
      values.deallocate()
      originals.deallocate()
    }
    let chunk = GraySource.streamChunk
    func load(_ y: Int) {
      guard y < h else { return }
      if y % chunk == 0 { source.load?(y..<min(h, y + chunk)) }
      let slot = UnsafeMutableBufferPointer(rebasing: values[(y % depth) * w..<(y % depth + 1) * w])
      source.row(y, slot)
      prepare(slot)
      _ = UnsafeMutableBufferPointer(
        rebasing: originals[(y % depth) * w..<(y % depth + 1) * w]
      ).initialize(from: slot)
    }
    for y in 0..<min(depth, h) { load(y) }
    // The taps as plain arrays; rows past the last one take their error in a scratch row.
    let count = taps.count
    let dxs = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
    let dys = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
    let weights = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
    let targets = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: depth)
    let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: w)
    defer {
      dxs.deallocate()
      dys.deallocate()
      weights.deallocate()
      targets.deallocate()
      scratch.deallocate()
    }
    // Dividing by a power of two is multiplying by its exact reciprocal: the same values,
    // without a division's latency on the path from one pixel to the next.
    let reciprocal: Float? =
      divisor.significandBitPattern == 0 && divisor.isNormal ? 1 / divisor : nil
    for (i, tap) in taps.enumerated() {
      dxs[i] = tap.dx
      dys[i] = tap.dy
      weights[i] = tap.weight
    }
    guard let valuesBase = values.baseAddress, let originalsBase = originals.baseAddress,
      let scratchBase = scratch.baseAddress, let bits = out.baseAddress
    else { return }
    // Per row: each tap's target row and its x offset (mirrored on reversed rows).
    let tapRows = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: count)
    let tapOffsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
    defer {
      tapRows.deallocate()
      tapOffsets.deallocate()
    }
    let reach = dxs.map(abs).max() ?? 0
    for y in 0..<h {
      let reverse = serpentine && y % 2 == 1
      for dy in 0..<depth {
        targets[dy] = y + dy < h ? valuesBase + ((y + dy) % depth) * w : scratchBase
      }
      for t in 0..<count {
        tapRows[t] = targets[dys[t]]
        tapOffsets[t] = reverse ? -dxs[t] : dxs[t]
      }
      let current = valuesBase + (y % depth) * w
      let pure = originalsBase + (y % depth) * w
      let row = bits + y * rowBytes
      for step in 0..<w {
        let x = reverse ? w - 1 - step : step
        let original = pure[x]
        if original >= 1 || original <= 0 {
          if original >= 1 { row[x >> 3] |= 0x80 >> UInt8(x & 7) }
          continue
        }
        let old = current[x]
        let isBlack = old < level
        if !isBlack { row[x >> 3] |= 0x80 >> UInt8(x & 7) }
        let error = old - (isBlack ? 0 : 1)
        // Away from the edges every tap lands inside the row.
        let inside = x >= reach && x < w - reach
        for t in 0..<count {
          let tx = x + tapOffsets[t]
          guard inside || UInt(bitPattern: tx) < UInt(w) else { continue }
          if let reciprocal {
            tapRows[t][tx] += error * weights[t] * reciprocal
          } else {
            tapRows[t][tx] += error * weights[t] / divisor
          }
        }
      }
      load(y + depth)
    }
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

  /// A 1-bit grayscale PNG (bit depth 1) with a pHYs chunk when `pixelsPerMeter` > 0, its
  /// bands deflated on all cores.
  public static func png(
    _ image: BitImage, pixelsPerMeter: UInt32, parallelism: Parallelism = .allCores
  ) throws -> Data {
    try PNGCodec.encodeBits(
      rows: image.packedRows(), width: image.width, height: image.height, compression: 9,
      pixelsPerMeter: pixelsPerMeter, parallelism: parallelism)
  }
}
