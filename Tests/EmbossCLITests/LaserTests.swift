import EmbossKit
import Foundation
import XCTest

/// One command from text to everything a laser needs, at the right physical size.
final class LaserTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-laser-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }
  func samples(_ name: String) throws -> PNGCodec.Samples {
    try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path(name))))
  }

  func testTextToPreviewEngraveDepthMapAndSVG() throws {
    let result = try run([
      "render", "Tag", "--height", "10mm", "--dpi", "254", "--engrave", "e.png", "--dither",
      "atkinson",
      "--depth-map", "d.png", "--svg", "t.svg", "--cut-offset", "1mm", "-o", "p.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(result.stderr, "", "254 DPI round-trips: no warning")
    let preview = try samples("p.png")
    XCTAssertEqual(preview.pixelsPerMeter, 10000)
    let engrave = try samples("e.png")
    XCTAssertEqual(engrave.pixelsPerMeter, 10000)
    XCTAssertEqual(engrave.width, preview.width)
    XCTAssertTrue(engrave.rgba.allSatisfy { $0 == 0 || $0 == 65535 }, "1 bit")
    let engraveBytes = try Data(contentsOf: URL(fileURLWithPath: path("e.png")))
    XCTAssertEqual(engraveBytes[24], 1, "bit depth 1")
    XCTAssertEqual(engrave.rgba[0], 65535, "the surroundings are never burned")
    let depth = try samples("d.png")
    XCTAssertEqual(depth.rgba[0], 0, "raised text: the background is cut deepest (black)")
    XCTAssertEqual(depth.rgba.max(), 65535, "the plateau is the untouched surface (white)")
    // The ink is 10 mm tall at 254 DPI: 100 pixels, measured on the mask.
    let mask = try PNGCodec.decodeSamples(
      Data(
        try CLIRunner.run(
          [
            "render", "Tag", "--height", "10mm", "--dpi", "254", "--background", "transparent",
            "-o", "-",
          ], in: directory
        ).stdout))
    var rows: [Int] = []
    for y in 0..<mask.height
    where (0..<mask.width).contains(where: { mask.rgba[4 * (y * mask.width + $0) + 3] > 32768 }) {
      rows.append(y)
    }
    XCTAssertEqual(Double((rows.last ?? 0) - (rows.first ?? 0) + 1), 100, accuracy: 2)
    let svg = try String(contentsOfFile: path("t.svg"), encoding: .utf8)
    let width = Double(preview.width) * 25.4 / 254
    XCTAssertTrue(
      svg.contains(String(format: "width=\"%.4fmm\"", width)),
      svg.prefix(300).description)
    XCTAssertTrue(svg.contains("data:image/png;base64,"))
    XCTAssertTrue(svg.contains("<path id=\"cut\" d=\"M"))
  }

  func testDPIThatDoesNotRoundTripWarns() throws {
    let result = try run(["render", "A", "--size", "20", "--dpi", "600", "-o", "a.png"])
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(
      result.stderr,
      "warning: 600 DPI is stored in the PNG as 23622 pixels per meter, 599.9988 DPI, which some software reads as 599; 508 or 635 DPI are stored exactly\n"
    )
  }

  func testEngraveSubcommandAndMirror() throws {
    XCTAssertEqual(try run(["render", "b", "--size", "40", "-o", "b.png"]).status, 0)
    XCTAssertEqual(try run(["engrave", "b.png", "--dpi", "508", "-o", "e.png"]).status, 0)
    XCTAssertEqual(try run(["engrave", "b.png", "--mirror", "-o", "m.png"]).status, 0)
    let plain = try samples("e.png")
    let mirrored = try samples("m.png")
    XCTAssertEqual(plain.pixelsPerMeter, 20000)
    for y in 0..<plain.height {
      for x in 0..<plain.width {
        XCTAssertEqual(
          plain.rgba[4 * (y * plain.width + x)],
          mirrored.rgba[4 * (y * plain.width + plain.width - 1 - x)])
      }
    }
  }

  /// An SVG whose cut line would vanish (an inward offset past the strokes' middles, or a
  /// least size over every loop) is refused with nothing written, not written with no cut.
  func testACutLineThatVanishesIsAnError() throws {
    for (extra, reason) in [
      (
        ["--cut-offset=-5mm"],
        "the inward --cut-offset is more than half the ink's width everywhere"
      ),
      (["--cut-min-size", "50mm"], "every loop is narrower than --cut-min-size"),
    ] {
      let result = try run(
        ["render", "Hi", "--height", "10mm", "--dpi", "254", "--svg", "v.svg", "-o", "v.png"]
          + extra)
      XCTAssertEqual(result.status, 1, result.stderr)
      XCTAssertEqual(
        result.stderr, "error: --svg v.svg: no cut line is left: \(reason); give a smaller one\n")
      XCTAssertFalse(FileManager.default.fileExists(atPath: path("v.svg")))
      XCTAssertFalse(FileManager.default.fileExists(atPath: path("v.png")))
    }
  }

  /// An engraving keeps its picture's resolution when the pixels are square and the density
  /// one `--dpi` accepts; non-square pixels or an absurd density are left out, not turned into
  /// a wrong DPI (300 x 150 DPI became 300 x 300, 4294967295 per meter 109092169 DPI).
  func testEngraveKeepsOnlyAUsablePictureResolution() throws {
    let picture = [UInt8](
      try PNGCodec.encode(
        RGBAImage(width: 8, height: 8, fill: SIMD4(0.2, 0.2, 0.2, 1)), pixelsPerMeter: 11811))
    // The pHYs chunk's data (x, y per meter and the unit), rewritten with its CRC.
    let chunk = try XCTUnwrap(
      (0..<(picture.count - 4)).first { Array(picture[$0..<($0 + 4)]) == Array("pHYs".utf8) })
    func withDensity(_ x: UInt32, _ y: UInt32) -> Data {
      var bytes = picture
      let data = [x, y].flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) }
      }
      bytes.replaceSubrange((chunk + 4)..<(chunk + 12), with: data)
      let crc = BadInputTests.crc32(Array(bytes[chunk..<(chunk + 13)]))
      bytes.replaceSubrange(
        (chunk + 13)..<(chunk + 17),
        with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) })
      return Data(bytes)
    }
    for (x, y, kept) in [
      (UInt32(11811), UInt32(11811), UInt32(11811)), (11811, 5906, 0),
      (4_294_967_295, 4_294_967_295, 0),
    ] {
      try withDensity(x, y).write(to: URL(fileURLWithPath: path("dense.png")))
      XCTAssertEqual(try run(["engrave", "dense.png", "-o", "dense-e.png"]).status, 0)
      XCTAssertEqual(try samples("dense-e.png").pixelsPerMeter, kept, "\(x) x \(y)")
    }
  }

  /// `render --mirror` mirrors every laser output alike: the engraving, the depth map and the
  /// SVG's image and cut line (which must stay on the engraving), while the picture stays as
  /// seen from the front.
  func testMirrorMirrorsEveryLaserOutput() throws {
    func render(_ mirror: Bool, _ suffix: String) throws {
      let result = try run(
        [
          "render", "Rb", "--size", "48", "--dpi", "254", "--engrave", "e\(suffix).png",
          "--depth-map", "d\(suffix).png", "--svg", "t\(suffix).svg", "-o", "p\(suffix).png",
        ] + (mirror ? ["--mirror"] : []))
      XCTAssertEqual(result.status, 0, result.stderr)
    }
    try render(false, "")
    try render(true, "-m")
    XCTAssertEqual(
      try Data(contentsOf: URL(fileURLWithPath: path("p.png"))),
      try Data(contentsOf: URL(fileURLWithPath: path("p-m.png"))), "the picture is not mirrored")
    for (name, channel) in [("e", 0), ("d", 0)] {
      let plain = try samples("\(name).png")
      let mirrored = try samples("\(name)-m.png")
      var differs = false
      for y in 0..<plain.height {
        for x in 0..<plain.width {
          let a = plain.rgba[4 * (y * plain.width + x) + channel]
          let b = mirrored.rgba[4 * (y * plain.width + plain.width - 1 - x) + channel]
          if a != b { differs = true }
        }
      }
      XCTAssertFalse(differs, "\(name).png is the mirror image of the plain one")
    }
    // The cut line lies on the edge of the shape it cuts out: each of its points has the
    // depth map's background (0) and its ink within 2 pixels. The mirrored SVG's line lies on
    // the mirrored shape, and the plain one does not.
    func points(_ file: String) throws -> [SIMD2<Double>] {
      let svg = try String(contentsOfFile: path(file), encoding: .utf8)
      guard let start = svg.range(of: "<path id=\"cut\" d=\""),
        let end = svg[start.upperBound...].firstIndex(of: "\"")
      else { return [] }
      // The nodes (each command's last point, not the Béziers' control points), from
      // millimeters to pixels (254 DPI: 10 pixels a millimeter).
      return svg[start.upperBound..<end].split(whereSeparator: { "MLCZ".contains($0) }).compactMap {
        command in
        let numbers = command.split(whereSeparator: { !"0123456789.-".contains($0) }).compactMap {
          Double($0)
        }
        guard numbers.count >= 2 else { return nil }
        return SIMD2(numbers[numbers.count - 2], numbers[numbers.count - 1]) * 10
      }
    }
    func onEdge(_ svg: String, _ depthMap: String) throws -> Double {
      let depth = try samples(depthMap)
      let line = try points(svg)
      XCTAssertFalse(line.isEmpty)
      let near = line.filter { p in
        var background = false
        var ink = false
        for dy in -2...2 {
          for dx in -2...2 {
            let x = Int(p.x.rounded(.down)) + dx
            let y = Int(p.y.rounded(.down)) + dy
            guard x >= 0, y >= 0, x < depth.width, y < depth.height else { continue }
            if depth.rgba[4 * (y * depth.width + x)] == 0 { background = true } else { ink = true }
          }
        }
        return background && ink
      }
      return Double(near.count) / Double(line.count)
    }
    XCTAssertGreaterThan(try onEdge("t.svg", "d.png"), 0.97)
    XCTAssertGreaterThan(try onEdge("t-m.svg", "d-m.png"), 0.97, "the cut line is mirrored")
    XCTAssertLessThan(try onEdge("t.svg", "d-m.png"), 0.9, "the check tells mirrored from not")
  }

  /// The cut line's options: the slivers a 2 mm offset around "Name Tag" leaves between the
  /// letters are dropped by --cut-min-size, --cut-outer keeps the outer contours only, a
  /// negative offset is accepted without '=', and the styles reach the SVG.
  func testCutLineOptions() throws {
    func loops(_ extra: [String]) throws -> Int {
      let result = try run(
        [
          "render", "Name Tag", "--height", "20mm", "--dpi", "254", "--svg", "t.svg",
          "--cut-offset", "2mm", "-o", "p.png",
        ] + extra)
      XCTAssertEqual(result.status, 0, result.stderr)
      let svg = try String(contentsOfFile: path("t.svg"), encoding: .utf8)
      guard let start = svg.range(of: #"<path id="cut" d=""#) else { return 0 }
      return svg[start.upperBound...].prefix { $0 != "\"" }.filter { $0 == "M" }.count
    }
    let all = try loops([])
    XCTAssertGreaterThan(all, 2, "the outlines and the slivers between letters")
    XCTAssertEqual(try loops(["--cut-min-size", "1mm"]), 2)
    XCTAssertEqual(try loops(["--cut-outer"]), 2)
    let inside = try run(
      [
        "render", "Ok", "--dpi", "254", "--svg", "i.svg", "--cut-offset", "-0.2mm",
        "--cut-color", "blue", "--cut-width", "0.3mm", "--ink-vectors", "fill", "-o", "p.png",
      ])
    XCTAssertEqual(inside.status, 0, inside.stderr)
    let svg = try String(contentsOfFile: path("i.svg"), encoding: .utf8)
    XCTAssertTrue(
      svg.contains(##"stroke="#0000ff" stroke-width="0.3000""##), svg.suffix(300).description)
    XCTAssertTrue(svg.contains(#"<path id="ink""#))
    let bad = try run([
      "render", "A", "--dpi", "254", "--svg", "x.svg", "--cut-color", "nope", "-o", "x.png",
    ])
    XCTAssertEqual(bad.status, 64)
    XCTAssertTrue(bad.stderr.contains("--cut-color nope"), bad.stderr)
  }

  /// A render's engraving is the engraving of the PNG emboss writes for it (over a
  /// transparent background the picture is the shape that is engraved): what the laser burns
  /// is what the user sees, for every method.
  func testRenderEngravingEqualsEngravingItsPNG() throws {
    for method in ["threshold", "floyd-steinberg", "blue-noise"] {
      let render = try run([
        "render", "Ag", "--size", "40", "--background", "transparent", "--dither", method,
        "--engrave", "e1.png", "-o", "r.png",
      ])
      XCTAssertEqual(render.status, 0, render.stderr)
      let engrave = try run(["engrave", "r.png", "--dither", method, "-o", "e2.png"])
      XCTAssertEqual(engrave.status, 0, engrave.stderr)
      XCTAssertEqual(
        try Data(contentsOf: URL(fileURLWithPath: path("e1.png"))),
        try Data(contentsOf: URL(fileURLWithPath: path("e2.png"))), method)
    }
  }

  /// A beam given in millimeters shortens each burned run by its width in pixels at the
  /// DPI: 0.3 mm at 254 dpi is 3 px, 1 at the start and 2 at the end (it was 2 and 2).
  func testDotWidthInMillimeters() throws {
    var gray = Plane(width: 40, height: 1, value: 1)
    for x in 10..<30 { gray[x, 0] = 0 }
    try PNGCodec.encodeGray(gray).write(to: URL(fileURLWithPath: path("run.png")))
    let result = try run([
      "engrave", "run.png", "--dpi", "254", "--dot-width", "0.3mm", "-o", "short.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let bits = try samples("short.png")
    let burned = (0..<40).filter { x in bits.rgba[4 * x] == 0 }
    XCTAssertEqual(burned, Array(11..<28))
  }

  /// The threshold treats equal composite values alike: black at alpha 127 over white and an
  /// opaque gray 128 are both 128/255 (black at 127 burned at threshold 128, the gray did not).
  func testThresholdTreatsEqualCompositeValuesAlike() throws {
    var picture = RGBAImage(width: 2, height: 1, fill: SIMD4(0, 0, 0, 127.0 / 255))
    let gray = SRGB.decode(128.0 / 255)
    picture[1, 0] = SIMD4(gray, gray, gray, 1)
    try PNGCodec.encode(picture).write(to: URL(fileURLWithPath: path("pair.png")))
    let codes = try samples("pair.png")
    XCTAssertEqual(codes.rgba[3], 127 * 257, "black at alpha 127")
    XCTAssertEqual(codes.rgba[4], 128 * 257, "opaque gray 128")
    for (threshold, burned) in [(128, false), (129, true), (127, false)] {
      let result = try run(["engrave", "pair.png", "--threshold", "\(threshold)", "-o", "e.png"])
      XCTAssertEqual(result.status, 0, result.stderr)
      let bits = try samples("e.png")
      XCTAssertEqual(bits.rgba[0] == 0, burned, "alpha 127 at threshold \(threshold)")
      XCTAssertEqual(bits.rgba[4] == 0, burned, "gray 128 at threshold \(threshold)")
    }
  }

  func testPictureAsMask() throws {
    // A dark disk on white, as a scanned logo would be.
    var logo = RGBAImage(width: 80, height: 60, fill: SIMD4(1, 1, 1, 1))
    for y in 0..<60 {
      for x in 0..<80 where (x - 40) * (x - 40) + (y - 30) * (y - 30) < 400 {
        logo[x, y] = SIMD4(0.02, 0.02, 0.02, 1)
      }
    }
    try PNGCodec.encode(logo).write(to: URL(fileURLWithPath: path("logo.png")))
    let result = try run([
      "render", "--mask", "logo.png", "--svg", "l.svg", "--dpi", "254", "--save-stages", "s", "-o",
      "l.png",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let mask = try samples("s/mask.png")
    XCTAssertEqual(mask.width, 80)
    // The canvas's stages carry the resolution, as the render does; the lit ball has none.
    for stage in ["mask", "height", "normals"] {
      XCTAssertEqual(try samples("s/\(stage).png").pixelsPerMeter, 10000, stage)
    }
    XCTAssertEqual(try samples("s/shading.png").pixelsPerMeter, 0)
    XCTAssertEqual(mask.rgba[4 * (30 * 80 + 40)], 65535, "dark is inside")
    XCTAssertEqual(mask.rgba[0], 0)
    XCTAssertEqual(
      try run([
        "render", "--mask", "logo.png", "--invert-mask", "--save-stages", "i", "-o", "i.png",
      ]).status, 0)
    XCTAssertEqual(try samples("i/mask.png").rgba[0], 65535, "inverted: light is inside")
    let blank = try run(["render", "--mask", "l.svg", "-o", "x.png"])
    XCTAssertEqual(blank.status, 1)
  }

  /// `--size` with a unit is the em size at `--dpi`, as CSS `font-size`.
  ///
  /// 24 pt at 300 dpi is 100 px, 1 in at 100 dpi too; a bare number stays pixels, and 160 px
  /// is the default.
  func testSizeTakesLengths() throws {
    func mask(_ arguments: [String]) throws -> [UInt16] {
      let stages = "stages-\(UUID().uuidString)"
      let result = try run(
        ["render", "Hag"] + arguments + ["-o", "x.png", "--save-stages", stages])
      XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
      return try samples(stages + "/mask.png").rgba
    }
    // (Compared as a whole: a failure names the arguments, not every sample.)
    let pixels = try mask(["--size", "100"])
    for same in [
      ["--size", "24pt", "--dpi", "300"], ["--size", "1in", "--dpi", "100"],
      ["--size", "2.54cm", "--dpi", "100"], ["--size", "100px", "--dpi", "300"],
    ] {
      XCTAssertTrue(try mask(same) == pixels, "\(same) is not --size 100")
    }
    XCTAssertFalse(try mask(["--size", "24pt", "--dpi", "254"]) == pixels)
    XCTAssertTrue(try mask([]) == mask(["--size", "160"]), "the default is 160 px")
  }

  /// `--cap-height` makes the font's capitals that tall whatever the text.
  ///
  /// The H of "Hag" (a descender) and of "Hace" (no ascender) is 60 px at 6 mm and 254 dpi,
  /// in the bundled DejaVu Sans Bold (no OS/2 cap height: the H's outline) and in Noto Serif
  /// Bold (OS/2 sCapHeight). Their inks differ, so `--height` would have set them at
  /// different sizes.
  func testCapHeightMakesEveryTextsCapitalsTheSameHeight() throws {
    let serif =
      URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path + "/Fonts/NotoSerif-Bold.ttf"
    for font in [[], ["--font", serif]] {
      var inks: [Int] = []
      for text in ["Hag", "Hace"] {
        let stages = "stages-\(text)-\(font.count)"
        let result = try run(
          ["render", text, "--cap-height", "6mm", "--dpi", "254", "-o", "x.png"] + font + [
            "--save-stages", stages,
          ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let mask = try samples(stages + "/mask.png")
        func ink(_ x: Int, _ y: Int) -> Bool { mask.rgba[4 * (y * mask.width + x)] > 32768 }
        let columns = (0..<mask.width).filter { x in (0..<mask.height).contains { ink(x, $0) } }
        let rows = (0..<mask.height).filter { y in (0..<mask.width).contains { ink($0, y) } }
        inks.append(rows.count)
        // The H's left stem: the first ink columns.
        let left = try XCTUnwrap(columns.first)
        let stem = (0..<mask.height).filter { y in (left..<left + 4).contains { ink($0, y) } }
        XCTAssertEqual(
          Double(try XCTUnwrap(stem.last) - XCTUnwrap(stem.first) + 1), 60, accuracy: 1,
          "\(text) \(font)")
      }
      XCTAssertGreaterThan(inks[0], inks[1] + 10, "Hag's ink is taller than Hace's")
    }
  }

  func testLaserErrors() throws {
    let cases: [([String], Int32, String)] = [
      (["render", "A", "--dpi", "0", "-o", "x.png"], 64, "--dpi must be in 1...100000, got 0.0"),
      (
        ["render", "A", "--height=-5mm", "--dpi", "254", "-o", "x.png"], 64,
        "--height must be a length"
      ),
      (
        ["render", "A", "--height", "5mm", "-o", "x.png"], 64,
        "--height 5mm is a physical length: give --dpi too"
      ),
      (
        ["render", "A", "--engrave", "e.png", "--threshold", "300", "-o", "x.png"], 64,
        "--threshold must be in 0...255, got 300"
      ),
      (
        ["render", "A", "--engrave", "e.png", "--dither", "floyd-stienberg", "-o", "x.png"], 64,
        "--dither: unknown dither 'floyd-stienberg'; did you mean 'floyd-steinberg'? (one of: threshold, floyd-steinberg"
      ),
      (["render", "A", "--svg", "t.svg", "-o", "x.png"], 64, "--svg needs --dpi"),
      (
        ["render", "A", "--size", "24pt", "-o", "x.png"], 64,
        "--size 24pt is a physical length: give --dpi too"
      ),
      (
        ["render", "A", "--size", "1m", "-o", "x.png"], 64,
        "expected a length such as 12, 12px, 2mm, 0.5cm, 0.1in or 9pt"
      ),
      (
        ["render", "A", "--size", "100in", "--dpi", "300", "-o", "x.png"], 64,
        "--size 100in is 30000.0 pixels; it must be 1...10000 pixels"
      ),
      (
        ["render", "A", "--cap-height", "6mm", "-o", "x.png"], 64,
        "--cap-height 6mm is a physical length: give --dpi too"
      ),
      (
        ["render", "A", "--cap-height", "6mm", "--size", "40", "--dpi", "254", "-o", "x.png"], 64,
        "Error: give --cap-height or --size, not both\n"
      ),
      (
        ["render", "A", "--cap-height", "60", "--height", "5mm", "--dpi", "254", "-o", "x.png"],
        64, "Error: give --cap-height or --height, not both\n"
      ),
      (
        ["render", "A", "--cap-height", "0.5", "-o", "x.png"], 64,
        "--cap-height 0.5 is 0.5 pixels; it must be 1...10000 pixels"
      ),
      (
        ["render", "A", "--svg", "t.svg", "--dpi", "254", "--cut-region", "5000,5", "-o", "x.png"],
        1, "error: --cut-region 5000,5 is outside the image"
      ),
      (
        ["render", "A", "--svg", "t.svg", "--dpi", "254", "--cut-region", "0,0", "-o", "x.png"], 1,
        "error: --cut-region 0,0 is on the background, not on the shape\n"
      ),
    ]
    for (arguments, status, message) in cases {
      let result = try run(arguments)
      XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
      XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      for file in ["x.png", "e.png", "t.svg"] {
        XCTAssertFalse(
          FileManager.default.fileExists(atPath: path(file)), "\(arguments) wrote \(file)")
      }
    }
  }
}
