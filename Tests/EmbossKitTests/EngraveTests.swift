import EmbossKit
import XCTest

@testable import EmbossEngrave

final class EngraveTests: XCTestCase {
  func flat(_ gray: Float, size: Int = 64) -> Plane {
    Plane(width: size, height: size, value: gray)
  }

  /// Options a library caller could not engrave with (a NaN beam width traps when rounded)
  /// cannot be built.
  func testInvalidOptionsCannotBeBuilt() {
    for (name, make) in [
      ("NaN beam width", { try EngraveOptions(dotWidth: .nan) }),
      ("negative beam width", { try EngraveOptions(dotWidth: -1) }),
      ("infinite beam width", { try EngraveOptions(dotWidth: .infinity) }),
      ("threshold 256", { try EngraveOptions(threshold: 256) }),
      ("threshold -1", { try EngraveOptions(threshold: -1) }),
      ("gamma 0", { try EngraveOptions(gamma: 0) }),
      ("NaN gamma", { try EngraveOptions(gamma: .nan) }),
    ] as [(String, () throws -> EngraveOptions)] {
      XCTAssertThrowsError(try make(), name)
    }
    XCTAssertEqual(try EngraveOptions(), EngraveOptions.standard)
  }

  /// Glowforge: gray by luminance, transparent counts as white, white where
  /// corrected >= threshold / 255.
  func testThresholdIsGlowforges() throws {
    var image = RGBAImage(width: 4, height: 1)
    image[0, 0] = SIMD4(0, 0, 0, 1)  // black: burned
    image[1, 0] = SIMD4(0, 0, 0, 0)  // transparent: white, never burned
    image[2, 0] = SIMD4(1, 1, 1, 1)  // white
    image[3, 0] = SIMD4(0, 0, 0, 0.4)  // corrected = 0.6
    let gray = image.gray()
    XCTAssertEqual(gray.pixels[3], 0.6, accuracy: 1e-6)
    let bits = Engrave.bitmap(gray, options: try EngraveOptions(method: .threshold, threshold: 128))
    XCTAssertEqual(bits.black, [true, false, false, false])
    // corrected 0.6 = 153/255: white at threshold 153, black at 154.
    XCTAssertFalse(Engrave.bitmap(gray, options: try EngraveOptions(threshold: 153))[3, 0])
    XCTAssertTrue(Engrave.bitmap(gray, options: try EngraveOptions(threshold: 154))[3, 0])
  }

  /// Every halftoning method keeps the average: the fraction of black follows the gray level.
  ///
  /// Error diffusion within 3%; an n x n ordered matrix has n * n + 1 levels, so within half
  /// a level; Atkinson diffuses only 3/4 of the error, which clips the extreme tones (its
  /// known look), so it is held to the mid-tones.
  func testEveryMethodTracksTheGrayLevel() throws {
    for method in DitherMethod.allCases where method != .threshold {
      let levels: [Float] = method == .atkinson ? [0.3, 0.5, 0.7] : [0.1, 0.3, 0.5, 0.7, 0.9]
      let tolerance: Double
      switch method {
      case .bayer2: tolerance = 0.5 / 4 + 0.01
      case .bayer4: tolerance = 0.5 / 16 + 0.01
      case .bayer8: tolerance = 0.5 / 64 + 0.01
      case .atkinson: tolerance = 0.06
      default: tolerance = 0.03
      }
      for level in levels {
        let bits = Engrave.bitmap(flat(level), options: try EngraveOptions(method: method))
        XCTAssertEqual(
          bits.blackFraction, Double(1 - level), accuracy: tolerance, "\(method) at \(level)")
      }
    }
  }

  func testOrderedMatricesArePermutations() throws {
    for n in [2, 4, 8] {
      XCTAssertEqual(Engrave.bayer(n).sorted(), Array(0..<(n * n)))
    }
    XCTAssertEqual(Engrave.bayer(2), [0, 2, 3, 1])
    XCTAssertEqual(BlueNoise.matrix.sorted(), Array(0..<(64 * 64)))
  }

  /// Blue noise has no clumps: at 1/8 density no dot touches another 8-connected neighbour
  /// far more often than random dots would (about 61% of random dots have a neighbour).
  func testBlueNoiseSpreadsDots() throws {
    let bits = Engrave.bitmap(flat(0.875), options: try EngraveOptions(method: .blueNoise))
    var touching = 0
    var dots = 0
    for y in 0..<64 {
      for x in 0..<64 where bits[x, y] {
        dots += 1
        var neighbour = false
        for dy in -1...1 {
          for dx in -1...1 where (dx, dy) != (0, 0) {
            if bits[(x + dx + 64) % 64, (y + dy + 64) % 64] { neighbour = true }
          }
        }
        if neighbour { touching += 1 }
      }
    }
    XCTAssertGreaterThan(dots, 400)
    XCTAssertLessThan(Double(touching) / Double(dots), 0.2)
  }

  /// Raster-order diffusion drags error rightwards, so dots line up along one diagonal
  /// ("worms"); serpentine scanning mirrors the kernel on reverse rows and balances them.
  func testSerpentineBalancesDiagonalStructure() throws {
    func asymmetry(_ serpentine: Bool) throws -> Double {
      let bits = Engrave.bitmap(
        flat(0.8, size: 128),
        options: try EngraveOptions(method: .floydSteinberg, serpentine: serpentine))
      var right = 0
      var left = 0
      for y in 0..<127 {
        for x in 1..<127 where bits[x, y] {
          if bits[x + 1, y + 1] { right += 1 }
          if bits[x - 1, y + 1] { left += 1 }
        }
      }
      return abs(Double(right - left)) / Double(max(1, right + left))
    }
    XCTAssertLessThan(try asymmetry(true), try asymmetry(false))
    XCTAssertLessThan(try asymmetry(true), 0.2)
  }

  func testNegativeMirrorAndDotWidth() throws {
    var gray = Plane(width: 8, height: 1, value: 1)
    for x in 0..<3 { gray[x, 0] = 0 }
    let plain = Engrave.bitmap(gray, options: try EngraveOptions())
    XCTAssertEqual(plain.black, [true, true, true, false, false, false, false, false])
    XCTAssertEqual(
      Engrave.bitmap(gray, options: try EngraveOptions(negative: true)).black,
      plain.black.map { !$0 })
    XCTAssertEqual(
      Engrave.bitmap(gray, options: try EngraveOptions(mirror: true)).black, plain.black.reversed())
    var run = Plane(width: 12, height: 1, value: 1)
    for x in 2..<10 { run[x, 0] = 0 }
    let shortened = Engrave.bitmap(run, options: try EngraveOptions(dotWidth: 4))
    XCTAssertEqual(shortened.black.enumerated().filter(\.element).map(\.offset), Array(4..<8))
    // The run loses the beam's width in all, for every width: odd, even, fractional.
    var long = Plane(width: 30, height: 1, value: 1)
    for x in 5..<25 { long[x, 0] = 0 }
    for (width, kept) in [
      (1.0, 5..<24), (2.0, 6..<24), (3.0, 6..<23), (4.0, 7..<23), (5.0, 7..<22), (2.4, 6..<24),
      (2.6, 6..<23), (0.4, 5..<25),
    ] as [(Float, Range<Int>)] {
      let bits = Engrave.bitmap(long, options: try EngraveOptions(dotWidth: width))
      XCTAssertEqual(
        bits.black.enumerated().filter(\.element).map(\.offset), Array(kept), "beam \(width) px")
    }
    // A run thinner than the beam keeps its middle pixel.
    XCTAssertEqual(
      BitImage(width: 5, height: 1, black: [false, true, true, true, false]).shorteningRuns(by: 2)
        .black,
      [false, false, true, false, false])
  }

  func testOneBitPNGWithDensity() throws {
    var bits = BitImage(width: 11, height: 3, black: [Bool](repeating: false, count: 33))
    bits[0, 0] = true
    bits[10, 2] = true
    let data = try Engrave.png(bits, pixelsPerMeter: 10000)
    XCTAssertEqual(data[24], 1, "IHDR bit depth 1")
    XCTAssertEqual(data[25], 0, "IHDR color type gray")
    let samples = try PNGCodec.decodeSamples(data)
    XCTAssertEqual(samples.pixelsPerMeter, 10000)
    XCTAssertEqual(samples.rgba[0], 0)
    XCTAssertEqual(samples.rgba[4], 65535)
    XCTAssertEqual(samples.rgba[4 * 32], 0)
  }

  /// A tall 1-bit image with bands of white rows (deflated once and reused) between inked
  /// ones (runs, and random dots), its width no multiple of 8: the PNG decodes to the same bits at every level (0:
  /// stored; any other: zlib's run-length strategy), on one thread or several, the same bytes.
  func testOneBitPNGRoundTripsWithWhiteBands() throws {
    let (width, height) = (301, 600)
    var bits = BitImage(
      width: width, height: height, black: [Bool](repeating: false, count: width * height))
    // Dots in some rows (deflated again at the level), runs in others (kept as runs).
    var seed: UInt32 = 12345
    for y in 100..<164 {
      for x in 0..<width {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        bits[x, y] = seed >> 31 == 1
      }
    }
    for y in 0..<height where (y / 100) % 2 == 1 && y >= 164 || y == 599 {
      for x in 150..<width where (x * 7 + y * 3) % 11 < 4 || x > 280 { bits[x, y] = true }
    }
    for level in [0, 1, 3, 6, 9] {
      let serial = try PNGCodec.encodeBits(
        rows: bits.packedRows(), width: width, height: height, compression: level,
        parallelism: .serial)
      let parallel = try PNGCodec.encodeBits(
        rows: bits.packedRows(), width: width, height: height, compression: level)
      XCTAssertEqual(serial, parallel, "level \(level): bytes across thread counts")
      let samples = try PNGCodec.decodeSamples(parallel)
      let black = (0..<width * height).map { samples.rgba[4 * $0] == 0 }
      XCTAssertEqual(black, bits.black, "level \(level): bits")
    }
  }

  func testUnknownDitherListsTheValidOnes() throws {
    guard case .failure(let error) = DitherMethod.parse("flyod") else { return XCTFail() }
    XCTAssertTrue(error.message.hasPrefix("unknown dither 'flyod'"), error.message)
    XCTAssertTrue(error.message.contains("did you mean 'floyd-steinberg'?"), error.message)
    XCTAssertEqual(try DitherMethod.parse("fs").get(), .floydSteinberg)
    XCTAssertEqual(try DitherMethod.parse("ordered").get(), .bayer8)
    XCTAssertTrue(
      error.message.contains("floyd-steinberg, atkinson, jarvis-judice-ninke"), error.message)
  }

  /// White (and transparent) is never burned and black always is, whatever the method.
  func testPureWhiteNeverBurnsPureBlackAlwaysDoes() throws {
    var image = RGBAImage(width: 64, height: 64, fill: SIMD4(0, 0, 0, 0))
    for y in 20..<44 { for x in 20..<44 { image[x, y] = SIMD4(0.2, 0.2, 0.2, 1) } }
    for method in DitherMethod.allCases {
      let bits = Engrave.bitmap(image, options: try EngraveOptions(method: method, threshold: 200))
      let outside = (0..<64 * 64).filter { i in
        !(20..<44).contains(i % 64) || !(20..<44).contains(i / 64)
      }
      // (`black` is made whole on each use: taken once.)
      let burned = bits.black
      XCTAssertFalse(
        outside.contains { burned[$0] }, "\(method) burned the transparent surroundings")
      let negative = Engrave.bitmap(
        image, options: try EngraveOptions(method: method, negative: true)
      ).black
      XCTAssertFalse(
        outside.contains { negative[$0] },
        "\(method) negative burned the transparent surroundings")
    }
    let black = Plane(width: 16, height: 16, value: 0)
    for method in DitherMethod.allCases {
      XCTAssertEqual(
        Engrave.bitmap(black, options: try EngraveOptions(method: method)).blackFraction, 1,
        "\(method)"
      )
    }
  }

  /// On a horizontal gray ramp, the black fraction of every eighth of the width follows that
  /// eighth's mean gray.
  func testRampIsReproducedBinByBin() throws {
    var ramp = Plane(width: 256, height: 48)
    for y in 0..<48 { for x in 0..<256 { ramp[x, y] = Float(x) / 255 } }
    for method in DitherMethod.allCases where method != .threshold {
      let bits = Engrave.bitmap(ramp, options: try EngraveOptions(method: method))
      // Atkinson clips the extreme tones (it diffuses 3/4 of the error): mid-tones only.
      for bin in method == .atkinson ? 2..<6 : 1..<7 {
        let columns = (bin * 32)..<((bin + 1) * 32)
        var black = 0
        for y in 0..<48 { for x in columns where bits[x, y] { black += 1 } }
        let fraction = Double(black) / Double(32 * 48)
        let meanGray = Double(columns.map { Float($0) / 255 }.reduce(0, +)) / 32
        let tolerance = method == .bayer2 ? 0.14 : (method == .atkinson ? 0.08 : 0.05)
        XCTAssertEqual(fraction, 1 - meanGray, accuracy: tolerance, "\(method), bin \(bin)")
      }
    }
  }

  /// A picture with every gray level, alpha and color in it, 61 x 600 (more than two of the
  /// streamed reader's 256-row chunks).
  func picture() -> RGBAImage {
    var image = RGBAImage(width: 61, height: 600)
    for y in 0..<600 {
      for x in 0..<61 {
        image[x, y] = SIMD4(
          Float(x) / 60, Float(y) / 599, Float((x * 7 + y * 3) % 256) / 255,
          y < 40 ? Float(x) / 60 : 1)
      }
    }
    return image
  }

  /// Every way of reading a picture gives the same bits, for every method: streamed from the
  /// PNG file (8 and 16 bits) in chunks, from its decoded samples, from the image in memory,
  /// on one core or all.
  func testStreamedPNGEngravesLikeTheWholePicture() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let image = picture()
    for depth in [BitDepth.eight, .sixteen] {
      let path = directory.appendingPathComponent("p\(depth.rawValue).png").path
      try PNGCodec.encode(image, depth: depth).write(to: URL(fileURLWithPath: path))
      let samples = try PNGCodec.readSamples(path: path)
      for method in DitherMethod.allCases {
        for options in [
          try EngraveOptions(method: method), try EngraveOptions(method: method, negative: true),
          try EngraveOptions(method: method, threshold: 90, gamma: 1.5, mirror: true, dotWidth: 2),
        ] {
          let whole = Engrave.bitmap(
            GraySource(samples: samples, negative: options.negative), options: options)
          let streamed = try Engrave.bitmap(png: PNGRowReader(path: path), options: options)
          // Compared with ==: a failure would print two whole bitmaps.
          XCTAssertTrue(streamed == whole, "\(method) \(depth)")
          let serial = try Engrave.bitmap(
            png: PNGRowReader(path: path), options: options, parallelism: .serial)
          XCTAssertTrue(serial == whole, "\(method) \(depth) serial")
          if depth == .eight {
            // The image in memory is read as its 8-bit PNG holds it.
            XCTAssertTrue(Engrave.bitmap(image, options: options) == whole, "\(method) memory")
          }
        }
      }
    }
  }

  /// An interlaced PNG (decoded whole, as libpng needs every pass) engraves like the same
  /// picture stored plainly.
  func testInterlacedPNGEngravesLikeAPlainOne() throws {
    let fixtures = Fixtures.root.appendingPathComponent("Tests/EmbossKitTests/Fixtures")
    for method in [DitherMethod.threshold, .floydSteinberg, .bayer4] {
      let options = try EngraveOptions(method: method)
      XCTAssertEqual(
        try Engrave.bitmap(
          png: PNGRowReader(path: fixtures.appendingPathComponent("interlaced.png").path),
          options: options),
        try Engrave.bitmap(
          png: PNGRowReader(path: fixtures.appendingPathComponent("plain.png").path),
          options: options))
    }
  }

  /// A stream that breaks after the first rows is an error naming the file, not a partial
  /// bitmap.
  func testCorruptStreamIsAnError() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var bytes = [UInt8](try PNGCodec.encode(picture(), compression: 0))
    // Past the first chunk's rows, inside the image data: a corrupt deflate stream.
    for i in stride(from: bytes.count * 2 / 3, to: bytes.count * 2 / 3 + 4000, by: 7) {
      bytes[i] = 0xFF
    }
    let path = directory.appendingPathComponent("broken.png").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    XCTAssertThrowsError(
      try Engrave.bitmap(png: PNGRowReader(path: path), options: try EngraveOptions())
    ) { error in
      let message = (error as? EmbossError)?.message ?? ""
      XCTAssertTrue(message.hasPrefix("cannot read PNG '\(path)': "), message)
    }
  }

  /// A canvas's background rows (made as one repeated bit where they can be) engrave like
  /// the same pixels given one by one, for every method, over transparent, white, black and
  /// gray backgrounds, at a width that is not a multiple of 8.
  func testCanvasBackgroundRowsEngraveLikeTheirPixels() throws {
    var content = RGBAImage(width: 13, height: 7)
    for y in 0..<7 { for x in 0..<13 { content[x, y] = SIMD4(Float(x) / 12, 0.5, 0.2, 1) } }
    for fill: SIMD4<Float> in [
      .zero, SIMD4(1, 1, 1, 1), SIMD4(0, 0, 0, 1), SIMD4(0.2, 0.2, 0.2, 1),
    ] {
      let canvas = CanvasImage(
        width: 29, height: 23, fill: fill, contentRect: PixelRect(x: 5, y: 9, width: 13, height: 7),
        content: content)
      for method in DitherMethod.allCases {
        for negative in [false, true] {
          let options = try EngraveOptions(method: method, negative: negative)
          XCTAssertTrue(
            Engrave.bitmap(GraySource(canvas: canvas, negative: negative), options: options)
              == Engrave.bitmap(canvas.flattened(), options: options), "\(method) \(fill)")
        }
      }
    }
  }
}
