import EmbossKit
import Foundation
import XCTest

/// JPEG and WebP wherever a picture is read, the output format from `-o`'s extension, and
/// a refused extension refused before anything is written.
final class PictureFormatTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-formats-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }
  func bytes(_ name: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path(name)))
  }

  /// Mean absolute difference of two pictures' 8-bit color channels (same size).
  func meanDifference(_ a: String, _ b: String) throws -> Double {
    let x = try PictureCodec.readSamples(path: path(a))
    let y = try PictureCodec.readSamples(path: path(b))
    XCTAssertEqual(x.width, y.width)
    XCTAssertEqual(x.height, y.height)
    var total = 0.0
    var count = 0
    for i in stride(from: 0, to: min(x.rgba.count, y.rgba.count), by: 4) {
      for c in 0..<3 {
        total += abs(Double(x.rgba[i + c]) - Double(y.rgba[i + c])) / 257
        count += 1
      }
    }
    return total / Double(max(count, 1))
  }

  func testTheOutputsExtensionChoosesItsFormat() throws {
    let common = ["render", "Jpeg", "--size", "64", "--material", "gold"]
    XCTAssertEqual(try run(common + ["-o", "a.png"]).status, 0)
    let jpeg = try run(common + ["-o", "a.jpg"])
    XCTAssertEqual(jpeg.status, 0, jpeg.stderr)
    XCTAssertEqual(Array(try bytes("a.jpg").prefix(3)), [0xFF, 0xD8, 0xFF])
    XCTAssertEqual(try run(common + ["-o", "b.JPEG"]).status, 0)
    XCTAssertEqual(Array(try bytes("b.JPEG").prefix(3)), [0xFF, 0xD8, 0xFF])
    XCTAssertEqual(try run(common + ["-o", "a.webp"]).status, 0)
    XCTAssertEqual(String(decoding: try bytes("a.webp")[8..<12], as: UTF8.self), "WEBP")
    // Lossy, but the same picture: within a few levels on average.
    XCTAssertLessThan(try meanDifference("a.png", "a.jpg"), 3)
    XCTAssertLessThan(try meanDifference("a.png", "a.webp"), 3)
    // The same for the lit ball and the contact sheet.
    XCTAssertEqual(try run(["shading", "--size", "64", "-o", "ball.webp"]).status, 0)
    XCTAssertEqual(PictureFormat.sniff(try bytes("ball.webp")), .webp)
    // Equal pixels give equal bytes.
    XCTAssertEqual(try run(common + ["-o", "c.jpg"]).status, 0)
    XCTAssertEqual(try bytes("a.jpg"), try bytes("c.jpg"))
  }

  /// A JPEG stores a whole DPI in dots per inch, exactly (it stored 118 dots per
  /// centimeter, 299.72 dpi, for 300), and the warning about PNG's pixels per meter is not
  /// given for it; a DPI that is not whole falls back to dots per centimeter.
  func testJPEGStoresAWholeDPIExactly() throws {
    // The JFIF header: "JFIF\0", version (2 bytes), units, x density, y density (big-endian).
    func density(_ name: String) throws -> (unit: UInt8, x: Int, y: Int) {
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
      let jfif = try XCTUnwrap(
        (0..<(bytes.count - 12)).first { bytes[$0..<($0 + 5)].elementsEqual(Array("JFIF\0".utf8)) })
      let units = jfif + 7
      return (
        bytes[units], Int(bytes[units + 1]) << 8 | Int(bytes[units + 2]),
        Int(bytes[units + 3]) << 8 | Int(bytes[units + 4])
      )
    }
    let whole = try run(["render", "A", "--size", "20", "--dpi", "300", "-o", "a.jpg"])
    XCTAssertEqual(whole.status, 0, whole.stderr)
    XCTAssertEqual(whole.stderr, "", "no warning about PNG for a JPEG")
    let stored = try density("a.jpg")
    XCTAssertEqual(stored.unit, 1, "dots per inch")
    XCTAssertEqual(stored.x, 300)
    XCTAssertEqual(stored.y, 300)
    let fraction = try run(["render", "A", "--size", "20", "--dpi", "299.5", "-o", "b.jpg"])
    XCTAssertEqual(fraction.status, 0, fraction.stderr)
    let cm = try density("b.jpg")
    XCTAssertEqual(cm.unit, 2, "dots per centimeter")
    XCTAssertEqual(cm.x, 118)
    // A PNG at the same DPI still warns.
    let png = try run(["render", "A", "--size", "20", "--dpi", "300", "-o", "a.png"])
    XCTAssertTrue(png.stderr.contains("stored in the PNG"), png.stderr)
  }

  /// `--format` names the picture's format whatever the output is called: a FIFO or a
  /// device whose name is not a picture's takes it (it was refused by its extension).
  func testFormatOptionWinsOverTheName() throws {
    let device = path("sink.dev")
    guard mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
      throw XCTSkip("cannot make a device node here (not root)")
    }
    let refused = try run(["render", "A", "--size", "20", "-o", "sink.dev"])
    XCTAssertEqual(refused.status, 64)
    XCTAssertTrue(refused.stderr.contains("--format"), refused.stderr)
    let written = try run(["render", "A", "--size", "20", "-o", "sink.dev", "--format", "jpeg"])
    XCTAssertEqual(written.status, 0, written.stderr)
    var status = stat()
    XCTAssertEqual(stat(device, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "the device is still a device")
    // A regular file named anything holds the format asked for.
    XCTAssertEqual(
      try run(["render", "A", "--size", "20", "-o", "picture.out", "--format", "webp"]).status, 0)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("picture.out"))))
    XCTAssertEqual(Array(bytes[8..<12]), Array("WEBP".utf8))
    XCTAssertEqual(
      try run(["render", "A", "--size", "20", "-o", "p.jpg", "--format", "png"]).status, 0)
    let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("p.jpg"))))
    XCTAssertEqual(Array(png[1..<4]), Array("PNG".utf8))
  }

  func testExtensionsItCannotWriteAreRefusedBeforeWriting() throws {
    for (arguments, message) in [
      (["render", "A", "-o", "a.gif"], "-o a.gif: cannot write .gif files"),
      (["render", "A", "-o", "a.tiff"], "cannot write .tiff"),
      (["render", "A", "--engrave", "e.jpg", "-o", "a.png"], "--engrave e.jpg: cannot write .jpg"),
      (["render", "A", "--depth-map", "d.webp", "-o", "a.png"], "--depth-map d.webp"),
      (["render", "A", "--depth", "16", "-o", "a.jpg"], "--depth 16 needs a PNG output"),
      (["engrave", "x.png", "-o", "e.jpg"], "-o e.jpg: cannot write .jpg files"),
    ] {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 64, "\(arguments)")
      XCTAssertTrue(result.stderr.contains(message), result.stderr)
    }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "nothing written")
  }

  func testJPEGAndWebPAreReadWhereverAPictureIs() throws {
    // A 10 px radius (not the default's 5 px at this size): JPEG's error on the bevel stays
    // within the diff's tolerance below.
    for file in ["logo.jpg", "logo.webp", "logo.png"] {
      XCTAssertEqual(
        try run(["render", "Logo", "--size", "80", "--radius", "10", "-o", file]).status, 0)
    }
    for input in ["logo.jpg", "logo.webp"] {
      // engrave photo.jpg: the first thing a laser user tries.
      let engrave = try run(["engrave", input, "--dpi", "254", "-o", "\(input).1bit.png"])
      XCTAssertEqual(engrave.status, 0, engrave.stderr)
      let bits = try PictureCodec.readSamples(path: path("\(input).1bit.png"))
      let png = try PictureCodec.readSamples(path: path("logo.png"))
      XCTAssertEqual(bits.width, png.width)
      XCTAssertEqual(bits.pixelsPerMeter, 10000)
      // As a mask, as a shading image, in diff.
      XCTAssertEqual(try run(["render", "--mask", input, "-o", "\(input).mask.png"]).status, 0)
      XCTAssertEqual(
        try run(["render", "x", "--shading-image", input, "-o", "\(input).shaded.png"]).status, 0)
      let diff = try run(["diff", "logo.png", input, "--tolerance", "40"])
      XCTAssertEqual(diff.status, 0, String(decoding: diff.stdout, as: UTF8.self) + diff.stderr)
    }
    // The engraving of a JPEG is the engraving of the same pixels as a PNG.
    let samples = try PictureCodec.readSamples(path: path("logo.jpg"))
    let same = try PNGCodec.encodeRaw(
      samples.rgba, width: samples.width, height: samples.height, channels: 4, bitDepth: 16,
      compression: 1, pixelsPerMeter: 0, srgb: true)
    try same.write(to: URL(fileURLWithPath: path("same.png")))
    XCTAssertEqual(try run(["engrave", "same.png", "-o", "same.1bit.png"]).status, 0)
    XCTAssertEqual(try run(["engrave", "logo.jpg", "-o", "jpg.1bit.png"]).status, 0)
    XCTAssertEqual(try bytes("same.1bit.png"), try bytes("jpg.1bit.png"))
  }

  /// A background picture: fill covers the canvas with the picture (the letters over it),
  /// tile repeats it at its own size, fit leaves the background color around it; a missing or
  /// broken one is one error line, exit 1, and nothing written.
  func testBackgroundPicture() throws {
    // A 6 x 4 picture: left half red, right half blue.
    var rgba = [UInt16](repeating: 65535, count: 6 * 4 * 4)
    for y in 0..<4 {
      for x in 0..<6 {
        let i = (y * 6 + x) * 4
        rgba[i] = x < 3 ? 65535 : 0
        rgba[i + 1] = 0
        rgba[i + 2] = x < 3 ? 0 : 65535
      }
    }
    try PNGCodec.encodeRaw(
      rgba, width: 6, height: 4, channels: 4, bitDepth: 16, compression: 1, pixelsPerMeter: 0,
      srgb: true
    ).write(to: URL(fileURLWithPath: path("two.png")))
    func corners(_ file: String) throws -> (left: [UInt16], right: [UInt16], width: Int) {
      let s = try PictureCodec.readSamples(path: path(file))
      let row = (s.height - 1) * s.width * 4
      let right = row + (s.width - 1) * 4
      return (Array(s.rgba[row..<(row + 3)]), Array(s.rgba[right..<(right + 3)]), s.width)
    }
    for fit in ["fill", "tile", "fit"] {
      let result = try run([
        "render", "Ab", "--size", "40", "--background", "#00ff00", "--background-image",
        "two.png", "--background-fit", fit, "-o", "\(fit).png",
      ])
      XCTAssertEqual(result.status, 0, result.stderr)
    }
    // fill: the canvas's left edge is red, its right edge blue.
    let fill = try corners("fill.png")
    XCTAssertEqual(fill.left, [65535, 0, 0])
    XCTAssertEqual(fill.right, [0, 0, 65535])
    // tile: the picture at 1:1 from the top left, so column 0 is red and column 3 blue.
    let tile = try PictureCodec.readSamples(path: path("tile.png"))
    let row = (tile.height - 1) * tile.width * 4
    XCTAssertEqual(Array(tile.rgba[row..<(row + 3)]), [65535, 0, 0])
    XCTAssertEqual(Array(tile.rgba[(row + 12)..<(row + 15)]), [0, 0, 65535])
    // fit: the canvas is wider than the picture's 3:2, so its sides are the background.
    let fit = try corners("fit.png")
    XCTAssertEqual(fit.left, [0, 65535, 0])
    XCTAssertEqual(fit.right, [0, 65535, 0])
    // Errors: one line, exit 1 or 64, an existing output untouched.
    try Data("keep".utf8).write(to: URL(fileURLWithPath: path("keep.png")))
    let missing = try run(["render", "x", "--background-image", "none.png", "-o", "keep.png"])
    XCTAssertEqual(missing.status, 1)
    XCTAssertEqual(missing.stderr, "error: picture file 'none.png' does not exist\n")
    let badFit = try run([
      "render", "x", "--background-image", "two.png", "--background-fit", "cover", "-o",
      "keep.png",
    ])
    XCTAssertEqual(badFit.status, 64)
    XCTAssertTrue(badFit.stderr.contains("expected fill, fit or tile"), badFit.stderr)
    XCTAssertEqual(try bytes("keep.png"), Data("keep".utf8))
  }

  func testBrokenJPEGAndWebPAreErrorsNotCrashes() throws {
    XCTAssertEqual(try run(["render", "Broken", "--size", "64", "-o", "ok.jpg"]).status, 0)
    let good = try bytes("ok.jpg")
    try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path("half.jpg")))
    try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x01, 0x02]).write(
      to: URL(fileURLWithPath: path("junk.jpg")))
    try (Data("RIFF".utf8) + Data([0x20, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data(count: 20))
      .write(to: URL(fileURLWithPath: path("junk.webp")))
    // A header that claims 60000 x 60000 pixels: refused from the header.
    var huge = good
    if let sof = (0..<(huge.count - 9)).first(where: { huge[$0] == 0xFF && huge[$0 + 1] == 0xC0 }) {
      huge[sof + 5] = 0xEA
      huge[sof + 6] = 0x60
      huge[sof + 7] = 0xEA
      huge[sof + 8] = 0x60
    }
    try huge.write(to: URL(fileURLWithPath: path("huge.jpg")))
    for (input, message) in [
      ("junk.jpg", "cannot read JPEG"), ("junk.webp", "cannot read WebP"),
      ("huge.jpg", "over the limit"),
      ("half.jpg", "cannot read JPEG 'half.jpg': file is truncated"),
    ] {
      let result = try run(["engrave", input, "-o", "e.png"])
      XCTAssertEqual(result.status, 1, "\(input): \(result.stderr)")
      XCTAssertTrue(result.stderr.hasPrefix("error: "), result.stderr)
      XCTAssertTrue(result.stderr.contains(message), result.stderr)
      XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("e.png")))
  }
}
