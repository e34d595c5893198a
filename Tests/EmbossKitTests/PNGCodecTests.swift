import CPNG
import EmbossKit
import XCTest

@testable import EmbossCodecs

final class PNGCodecTests: XCTestCase {
  func testEightBitRoundTripIsExactOnCodeValues() throws {
    // Linear values that are exactly 8-bit sRGB codes survive encode -> decode -> encode.
    var image = RGBAImage(width: 16, height: 16)
    for i in 0..<256 {
      let v = SRGB.decode(Float(i) / 255)
      image.pixels[i] = SIMD4(v, v, v, Float(255 - i) / 255)
    }
    let data = try PNGCodec.encode(image)
    let samples = try PNGCodec.decodeSamples(data)
    for i in 0..<256 {
      XCTAssertEqual(Int(samples.rgba[4 * i]) / 257, i)
      XCTAssertEqual(Int(samples.rgba[4 * i + 3]) / 257, 255 - i)
    }
    XCTAssertEqual(try PNGCodec.encode(PNGCodec.decode(data).image), data)
  }

  func testSixteenBitKeepsFinerSteps() throws {
    var image = RGBAImage(width: 2, height: 1)
    image[0, 0] = SIMD4(0.5, 0.5, 0.5, 1)
    image[1, 0] = SIMD4(0.5001, 0.5, 0.5, 1)
    let samples = try PNGCodec.decodeSamples(PNGCodec.encode(image, depth: .sixteen))
    XCTAssertNotEqual(samples.rgba[0], samples.rgba[4])
    XCTAssertEqual(Double(samples.rgba[0]) / 65535, Double(SRGB.encode(0.5)), accuracy: 1e-4)
  }

  func testGrayAndDensityRoundTrip() throws {
    let plane = Plane(width: 3, height: 2, pixels: [0, 0.5, 1, 1, 0.5, 0])
    let samples = try PNGCodec.decodeSamples(PNGCodec.encodeGray(plane, pixelsPerMeter: 10000))
    XCTAssertEqual(samples.pixelsPerMeter, 10000)
    XCTAssertEqual(samples.rgba[0], 0)
    XCTAssertEqual(samples.rgba[8], 65535)
    XCTAssertEqual(samples.rgba[4], 128 * 257)
  }

  func testBadDataIsRefusedWithAReason() throws {
    let good = try PNGCodec.encode(RGBAImage(width: 8, height: 8, fill: SIMD4(1, 0, 0, 1)))
    let cases: [(Data, String)] = [
      (Data(), "file is empty"),
      (Data("hello, not a png".utf8), "not a PNG file (bad signature)"),
      (good.prefix(good.count / 2), "file is truncated"),
    ]
    for (data, message) in cases {
      XCTAssertThrowsError(try PNGCodec.decode(data)) { error in
        XCTAssertEqual((error as? EmbossError)?.message, message)
      }
    }
    var corrupt = good
    corrupt[corrupt.count - 20] ^= 0xff  // inside IDAT: CRC mismatch
    XCTAssertThrowsError(try PNGCodec.decode(corrupt))
  }

  func testHugeHeaderIsRefusedBeforeAllocating() throws {
    // A valid 1x1 PNG whose IHDR claims 100000 x 100000 (CRC fixed up).
    var data = try PNGCodec.encode(RGBAImage(width: 1, height: 1))
    let big: [UInt8] = [0x00, 0x01, 0x86, 0xA0]
    data.replaceSubrange(16..<20, with: big)
    data.replaceSubrange(20..<24, with: big)
    let crc = crc32(Array(data[12..<29]))
    data.replaceSubrange(
      29..<33,
      with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xff), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)])
    XCTAssertThrowsError(try PNGCodec.decode(data)) { error in
      XCTAssertEqual(
        (error as? EmbossError)?.message,
        "image is 100000x100000 (10000000000 pixels), over the limit of 100000000 pixels")
    }
  }

  /// Several 64-row deflate bands, compressed in parallel and stitched into one zlib
  /// stream: libpng must read back every sample (it checks CRCs and the Adler-32).
  func testBandedEncodingRoundTripsAcrossBands() throws {
    var random = SeededGenerator(state: 7)
    let width = 37
    let height = 700
    var image = RGBAImage(width: width, height: height)
    for i in 0..<image.pixels.count {
      image.pixels[i] = SIMD4(
        Float.random(in: 0...1, using: &random), Float(i % width) / Float(width),
        Float(i / width) / Float(height), Float.random(in: 0...1, using: &random))
    }
    for depth in BitDepth.allCases {
      let one = try PNGCodec.encode(image, depth: depth, parallelism: .serial)
      let three = try PNGCodec.encode(image, depth: depth, parallelism: Parallelism(threads: 3))
      XCTAssertEqual(one, three, "bytes do not depend on the thread count")
      let samples = try PNGCodec.decodeSamples(one)
      for i in stride(from: 0, to: width * height, by: 97) {
        let p = image.pixels[i]
        let scale: Float = depth == .eight ? 255 : 65535
        let expected = [SRGB.encode(p.x), SRGB.encode(p.y), SRGB.encode(p.z), p.w].map {
          ($0 * scale).rounded()
        }
        for c in 0..<4 {
          let got = Float(samples.rgba[4 * i + c]) / (depth == .eight ? 257 : 1)
          XCTAssertEqual(got, expected[c], accuracy: 1, "pixel \(i) channel \(c) depth \(depth)")
        }
      }
    }
  }

  /// Every zlib level reads back the same pixels over several stitched bands, with bytes
  /// that do not depend on the thread count; an opaque picture is written as RGB (color type
  /// 2), one with any translucent pixel as RGBA (6), at 8 and 16 bits.
  func testEveryLevelReadsBackTheSamePixelsAndOpaquePicturesAreRGB() throws {
    var random = SeededGenerator(state: 11)
    let (width, height) = (29, 600)
    var opaque = RGBAImage(width: width, height: height)
    for i in 0..<opaque.pixels.count {
      // Smooth ramps with noise, as a render's bevels: matches for the compressors to find.
      let (x, y) = (Float(i % width), Float(i / width))
      opaque.pixels[i] = SIMD4(
        x / Float(width), (y / 40).truncatingRemainder(dividingBy: 1),
        Float.random(in: 0...0.05, using: &random) + 0.5, 1)
    }
    var translucent = opaque
    translucent[3, 400] = SIMD4(0.2, 0.3, 0.4, 0.5)
    for (image, colorType) in [(opaque, UInt8(2)), (translucent, 6)] {
      for depth in BitDepth.allCases {
        let reference = try PNGCodec.decodeSamples(
          PNGCodec.encode(image, depth: depth, compression: 6))
        var sizes: [Int: Int] = [:]
        for level in [0, 1, 2, 3, 4, 9] {
          let data = try PNGCodec.encode(image, depth: depth, compression: level)
          sizes[level] = data.count
          XCTAssertEqual(data[25], colorType, "color type, \(depth), level \(level)")
          XCTAssertEqual(
            try PNGCodec.decodeSamples(data).rgba, reference.rgba,
            "pixels at level \(level), \(depth)")
          XCTAssertEqual(
            data,
            try PNGCodec.encode(
              image, depth: depth, compression: level, parallelism: Parallelism(threads: 3)),
            "bytes on three threads, level \(level)")
        }
        XCTAssertLessThan(sizes[1]!, sizes[0]!, "level 1 compresses")
        XCTAssertLessThan(sizes[9]!, sizes[1]!, "level 9 is smaller than level 1")
      }
    }
  }

  /// A band's bytes do not depend on where igzip's state lies in memory.
  ///
  /// ISA-L 2.30-2.32's level 1-2 compressor hashed a stream's second byte from a register
  /// holding the stream's address, so a band's bytes depended on where malloc put the
  /// compressor (about 1 band in 4000 differed between runs, and between thread counts).
  /// Here the compressor lives at addresses where that hash spoils a match in this band
  /// (found by scanning 65536 of them with the unprimed compressor): its bytes must be the
  /// heap-placed compressor's.
  func testIgzipBandsDoNotDependOnWhereTheCompressorLives() throws {
    if ProcessInfo.processInfo.environment["EMBOSS_SANITIZER_PASS"] != nil {
      throw XCTSkip("maps memory at fixed addresses, which the sanitizers' layouts may own")
    }
    // 29 pixels of 16-bit RGB: ramps, bands of 40 rows, and hashed noise.
    let (width, rowBytes) = (29, 29 * 6)
    var rows = [UInt8](repeating: 0, count: 128 * rowBytes)
    for y in 0..<128 {
      for x in 0..<width {
        let h = UInt32(x) &* 73_856_093 ^ UInt32(y) &* 19_349_663
        let v = [UInt16(x * 2259), UInt16(y % 40 * 1638), UInt16(32768 + h % 3277)]
        for c in 0..<3 {
          rows[y * rowBytes + 6 * x + 2 * c] = UInt8(v[c] >> 8)
          rows[y * rowBytes + 6 * x + 2 * c + 1] = UInt8(v[c] & 0xff)
        }
      }
    }
    func band(igzipLevel: Int32, at memory: UnsafeMutableRawPointer?) throws -> [UInt8] {
      var message = [CChar](repeating: 0, count: 256)
      let state = try XCTUnwrap(
        emboss_deflate_band_begin_at(
          igzipLevel + 1, igzipLevel, rowBytes, 64, memory, &message, message.count))
      var buffer = emboss_png_buffer()
      defer { emboss_png_buffer_free(&buffer) }
      let status = rows.withUnsafeBufferPointer { r in
        emboss_deflate_band_rows(
          state, r.baseAddress! + 64 * rowBytes, 64, r.baseAddress! + 63 * rowBytes, 1,
          &buffer, &message, message.count)
      }
      var (adler, size) = (UInt32(0), 0)
      emboss_deflate_band_end(state, &adler, &size)
      XCTAssertEqual(status, 0)
      return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.size))
    }
    let mapFixedNoReplace: Int32 = 0x10_0000
    var tried = 0
    for (address, levels) in [(0x5000_0a06_0000, [1]), (0x5000_1210_0000, [1, 2])] {
      let length = 0x2_0000
      guard
        let memory = mmap(
          UnsafeMutableRawPointer(bitPattern: address), length, PROT_READ | PROT_WRITE,
          MAP_PRIVATE | MAP_ANONYMOUS | mapFixedNoReplace, -1, 0),
        memory != MAP_FAILED
      else { continue }
      defer { munmap(memory, length) }
      // A kernel without MAP_FIXED_NOREPLACE takes the address as a hint.
      guard Int(bitPattern: memory) == address else { continue }
      XCTAssertGreaterThanOrEqual(length - 0x800, emboss_igzip_stream_size())
      for level in levels {
        tried += 1
        XCTAssertEqual(
          try band(igzipLevel: Int32(level), at: memory + 0x800),
          try band(igzipLevel: Int32(level), at: nil),
          "igzip level \(level), compressor at \(String(address + 0x800, radix: 16))")
      }
    }
    if tried == 0 { throw XCTSkip("the test's addresses are taken on this machine") }
  }

  func testOutputIsReproducible() throws {
    let image = RGBAImage(width: 40, height: 30, fill: SIMD4(0.2, 0.4, 0.6, 0.8))
    XCTAssertEqual(
      try PNGCodec.encode(image), try PNGCodec.encode(image, parallelism: Parallelism(threads: 5)))
  }

  private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  /// Bands of background alone are deflated once and repeated: with zlib (level 4) the file
  /// is byte for byte the one made from every pixel, wherever the content lies (first,
  /// middle or last band, a short last band, no content), at 8 and 16 bits, on one thread
  /// or all; at the default level, whose igzip gives background bands to zlib, it holds the
  /// same pixels and is the same file on any thread count.
  func testRepeatedBackgroundBandsEncodeLikeEveryPixel() throws {
    var content = RGBAImage(width: 9, height: 30)
    for y in 0..<30 {
      for x in 0..<9 { content[x, y] = SIMD4(Float(x) / 8, Float(y) / 29, 0.3, 1) }
    }
    let fill = SIMD4<Float>(0.1, 0.12, 0.15, 1)
    for contentY in [0, 226, 300, 600, 1070] {
      for height in [1100, 1024] where contentY + 30 <= height {
        let canvas = CanvasImage(
          width: 21, height: height, fill: fill,
          contentRect: PixelRect(x: 4, y: contentY, width: 9, height: 30), content: content)
        for depth in [BitDepth.eight, .sixteen] {
          let label = "content at \(contentY), height \(height), \(depth)"
          for parallelism in [Parallelism.serial, .allCores] {
            XCTAssertEqual(
              try PNGCodec.encode(canvas, depth: depth, compression: 4, parallelism: parallelism),
              try PNGCodec.encode(
                canvas.flattened(), depth: depth, compression: 4, parallelism: parallelism),
              label)
          }
          let fast = try PNGCodec.encode(canvas, depth: depth, parallelism: .serial)
          XCTAssertEqual(fast, try PNGCodec.encode(canvas, depth: depth, parallelism: .allCores))
          XCTAssertEqual(
            try PNGCodec.decodeSamples(fast).rgba,
            try PNGCodec.decodeSamples(PNGCodec.encode(canvas.flattened(), depth: depth)).rgba,
            label)
        }
      }
    }
    let empty = CanvasImage(
      width: 21, height: 700, fill: fill, contentRect: PixelRect(x: 0, y: 0, width: 0, height: 0),
      content: RGBAImage(width: 0, height: 0))
    XCTAssertEqual(
      try PNGCodec.encode(empty, compression: 4),
      try PNGCodec.encode(empty.flattened(), compression: 4))
  }
}

final class ImageDiffTests: XCTestCase {
  func samples(_ values: [UInt8]) -> PNGCodec.Samples {
    PNGCodec.Samples(
      width: values.count / 4, height: 1, rgba: values.map { UInt16($0) * 257 }, pixelsPerMeter: 0)
  }

  func testOneLevelWithinToleranceAndTwoLevelsPast() throws {
    let expected = samples([10, 20, 30, 255, 100, 100, 100, 255])
    let oneOff = samples([11, 20, 30, 255, 100, 100, 100, 255])
    let twoOff = samples([10, 20, 30, 255, 100, 102, 100, 255])
    XCTAssertEqual(
      ImageDiff.compare(expected: expected, actual: oneOff, tolerance: 1)?.badPixels, 0)
    let report = ImageDiff.compare(expected: expected, actual: twoOff, tolerance: 1)
    XCTAssertEqual(report?.badPixels, 1)
    XCTAssertEqual(report?.worstDifference, 2)
    XCTAssertEqual(report?.worstX, 1)
    XCTAssertNil(
      ImageDiff.compare(expected: expected, actual: samples([1, 2, 3, 4]), tolerance: 1))
    XCTAssertEqual(
      ImageDiff.compare(expected: expected, actual: expected, tolerance: 0)?.psnr, .infinity)
  }

  /// A gray picture from rows of 8-bit levels (opaque).
  func gray(_ rows: [[Int]]) -> PNGCodec.Samples {
    PNGCodec.Samples(
      width: rows[0].count, height: rows.count,
      rgba: rows.flatMap { $0.flatMap { [$0, $0, $0, 255].map { UInt16($0) * 257 } } },
      pixelsPerMeter: 0)
  }

  /// A black disk on white, each pixel's coverage from `n` x `n` sub-samples.
  func disk(centerX: Double, centerY: Double, radius: Double, subsamples n: Int)
    -> PNGCodec.Samples
  {
    let size = 40
    var rows: [[Int]] = []
    for y in 0..<size {
      rows.append(
        (0..<size).map { x in
          var inside = 0
          for sy in 0..<n {
            for sx in 0..<n {
              let dx = Double(x) + (Double(sx) + 0.5) / Double(n) - centerX
              let dy = Double(y) + (Double(sy) + 0.5) / Double(n) - centerY
              if dx * dx + dy * dy < radius * radius { inside += 1 }
            }
          }
          return Int((255 * (1 - Double(inside) / Double(n * n))).rounded())
        })
    }
    return gray(rows)
  }

  func testTheDetectorOnAHandMadeImage() throws {
    // A soft vertical edge: black, a gray column, white.
    let edge = gray(Array(repeating: [0, 0, 128, 255, 255, 255, 255], count: 5))
    XCTAssertTrue(ImageDiff.isAntialiased(x: 2, y: 2, in: edge, other: edge), "the gray column")
    XCTAssertFalse(ImageDiff.isAntialiased(x: 1, y: 2, in: edge, other: edge), "flat black")
    XCTAssertFalse(ImageDiff.isAntialiased(x: 3, y: 2, in: edge, other: edge), "flat white")
    // The flat regions beside it must be flat in the other image too.
    let noise = gray((0..<5).map { y in (0..<7).map { x in 7 * (7 * y + x) } })
    XCTAssertFalse(ImageDiff.isAntialiased(x: 2, y: 2, in: edge, other: noise))
    // A lone spot has brighter neighbours but no darker ones.
    let spot = gray((0..<5).map { y in (0..<5).map { x in x == 2 && y == 2 ? 128 : 255 } })
    XCTAssertFalse(ImageDiff.isAntialiased(x: 2, y: 2, in: spot, other: spot))
    // Three neighbours as bright as it: a band, not an anti-aliased edge.
    let band = gray(Array(repeating: [0, 0, 128, 128, 255], count: 5))
    XCTAssertFalse(ImageDiff.isAntialiased(x: 2, y: 2, in: band, other: band))
    // A gradient has darker and brighter neighbours but no flat patch beside it.
    let ramp = gray(Array(repeating: [0, 60, 120, 180, 240], count: 5))
    XCTAssertFalse(ImageDiff.isAntialiased(x: 2, y: 2, in: ramp, other: ramp))
    // compare asks the expected image first, then the actual one.
    let moved = gray(Array(repeating: [0, 0, 0, 128, 255, 255, 255], count: 5))
    let options = ImageDiff.Options(antialiasing: true)
    let report = try XCTUnwrap(ImageDiff.compare(expected: edge, actual: moved, options: options))
    XCTAssertEqual(report.badPixels, 0)
    XCTAssertEqual(report.antialiasedPixels, 10)
    XCTAssertEqual(
      report.forgivenPixels.prefix(2),
      [
        ImageDiff.ForgivenPixel(x: 2, y: 0, reason: .antialiasedInExpected),
        ImageDiff.ForgivenPixel(x: 3, y: 0, reason: .antialiasedInActual),
      ])
  }

  func testEdgesAntialiasedDifferentlyAreForgiven() throws {
    let options = ImageDiff.Options(antialiasing: true)
    let eight = disk(centerX: 20, centerY: 20, radius: 12, subsamples: 8)
    let pairs = [
      ("8 vs 16 sub-samples", disk(centerX: 20, centerY: 20, radius: 12, subsamples: 16)),
      ("moved by 0.1 px", disk(centerX: 20.1, centerY: 20, radius: 12, subsamples: 8)),
    ]
    for (name, other) in pairs {
      let strict = try XCTUnwrap(ImageDiff.compare(expected: eight, actual: other, tolerance: 0))
      XCTAssertGreaterThan(strict.badPixels, 0, name)
      let report = try XCTUnwrap(
        ImageDiff.compare(expected: eight, actual: other, options: options))
      XCTAssertEqual(report.badPixels, 0, "\(name): \(report.summary)")
      XCTAssertEqual(report.antialiasedPixels, strict.badPixels, name)
      XCTAssertEqual(report.forgivenPixels.count, report.antialiasedPixels, name)
    }
    // A whole pixel is no anti-aliasing.
    let moved = disk(centerX: 21, centerY: 20, radius: 12, subsamples: 8)
    let report = try XCTUnwrap(ImageDiff.compare(expected: eight, actual: moved, options: options))
    XCTAssertGreaterThan(report.badPixels, 0, report.summary)
  }

  func testReportsListAtMostAThousandForgivenPixels() throws {
    // 100 soft vertical edges of 100 pixels, anti-aliased at two gray levels.
    func edges(_ level: Int) -> PNGCodec.Samples {
      gray(Array(repeating: (0..<700).map { [0, 0, 0, level, 255, 255, 255][$0 % 7] }, count: 100))
    }
    let report = try XCTUnwrap(
      ImageDiff.compare(
        expected: edges(128), actual: edges(100), options: ImageDiff.Options(antialiasing: true)))
    XCTAssertEqual(report.badPixels, 0)
    XCTAssertEqual(report.antialiasedPixels, 10_000)
    XCTAssertEqual(report.forgivenPixels.count, ImageDiff.Report.forgivenListLimit)
    XCTAssertEqual(
      report.forgivenPixels.last,
      ImageDiff.ForgivenPixel(x: 696, y: 9, reason: .antialiasedInExpected))
    let json = report.json(options: ImageDiff.Options(antialiasing: true), maxBadFraction: 0)
    XCTAssertTrue(json.contains("\"forgivenPixelsOmitted\":9000}"), json.suffix(200).description)
    XCTAssertTrue(json.contains("{\"x\":3,\"y\":0,\"reason\":\"antialiased in expected\"}"))
  }
}
