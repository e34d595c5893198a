import EmbossRaster
import EmbossSupport
import Foundation
import XCTest

@testable import EmbossCodecs

/// JPEG and WebP decoding against pictures saved by another program (Pillow), and the
/// encoders' round trips.
final class PictureCodecTests: XCTestCase {
  let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/pictures")

  func samples(_ name: String) throws -> PNGCodec.Samples {
    try PictureCodec.readSamples(path: folder.appendingPathComponent(name).path)
  }

  /// Mean absolute difference of the color channels, in 8-bit levels.
  func difference(_ a: PNGCodec.Samples, _ b: PNGCodec.Samples) -> Double {
    XCTAssertEqual(a.width, b.width)
    XCTAssertEqual(a.height, b.height)
    var total = 0.0
    var n = 0
    for i in stride(from: 0, to: min(a.rgba.count, b.rgba.count), by: 4) {
      for c in 0..<3 {
        total += abs(Double(a.rgba[i + c]) - Double(b.rgba[i + c])) / 257
        n += 1
      }
    }
    return total / Double(max(n, 1))
  }

  /// A JPEG with an EXIF orientation is turned upright, as every viewer shows it.
  ///
  /// A 32 x 16 picture, black on its left half, with orientation 6 (turn 90 degrees
  /// clockwise) is 16 x 32, black on top; with 3 (turn 180) it stays 32 x 16, black on the
  /// right. Every orientation's mapping against Pillow's `ImageOps.exif_transpose` on a
  /// 3 x 2 picture.
  func testJPEGOrientationIsApplied() throws {
    func gray(_ s: PNGCodec.Samples, _ x: Int, _ y: Int) -> Int {
      Int(s.rgba[4 * (y * s.width + x)]) / 257
    }
    let six = try samples("exif-orientation-6.jpg")
    XCTAssertEqual([six.width, six.height], [16, 32])
    XCTAssertLessThan(gray(six, 8, 4), 20)
    XCTAssertGreaterThan(gray(six, 8, 27), 235)
    let three = try samples("exif-orientation-3.jpg")
    XCTAssertEqual([three.width, three.height], [32, 16])
    XCTAssertLessThan(gray(three, 27, 8), 20)
    XCTAssertGreaterThan(gray(three, 4, 8), 235)
    // Stored 3 x 2: 1 2 3 / 4 5 6. Shown (rows, Pillow's exif_transpose) per orientation.
    let stored = PNGCodec.Samples(
      width: 3, height: 2, rgba: (1...6).flatMap { [UInt16($0), 0, 0, 65535] }, pixelsPerMeter: 0)
    let shown: [Int: [[UInt16]]] = [
      2: [[3, 2, 1], [6, 5, 4]], 3: [[6, 5, 4], [3, 2, 1]], 4: [[4, 5, 6], [1, 2, 3]],
      5: [[1, 4], [2, 5], [3, 6]], 6: [[4, 1], [5, 2], [6, 3]], 7: [[6, 3], [5, 2], [4, 1]],
      8: [[3, 6], [2, 5], [1, 4]],
    ]
    for (orientation, rows) in shown {
      let turned = PictureCodec.oriented(stored, orientation)
      XCTAssertEqual(turned.height, rows.count, "\(orientation)")
      XCTAssertEqual(
        stride(from: 0, to: turned.rgba.count, by: 4).map { turned.rgba[$0] }, rows.flatMap { $0 },
        "orientation \(orientation)")
    }
  }

  func testJPEGVariantsDecodeToTheSamePicture() throws {
    let reference = try samples("small.jpg")
    XCTAssertGreaterThan(reference.width, 10)
    XCTAssertTrue(
      stride(from: 3, to: reference.rgba.count, by: 4).allSatisfy {
        reference.rgba[$0] == 65535
      }, "JPEG is opaque")
    // Saved again by Pillow at its quality 75: a few levels of its own loss.
    XCTAssertLessThan(difference(reference, try samples("progressive.jpg")), 6)
    // CMYK as Adobe writes it (inverted), converted back to RGB.
    XCTAssertLessThan(difference(reference, try samples("cmyk.jpg")), 6)
    let gray = try samples("gray.jpg")
    for i in stride(from: 0, to: gray.rgba.count, by: 4) {
      XCTAssertEqual(gray.rgba[i], gray.rgba[i + 1])
      XCTAssertEqual(gray.rgba[i], gray.rgba[i + 2])
    }
  }

  func testWebPKeepsAlpha() throws {
    let lossless = try samples("lossless.webp")
    let lossy = try samples("small-alpha.webp")
    XCTAssertTrue(lossless.rgba.enumerated().contains { $0.offset % 4 == 3 && $0.element == 0 })
    XCTAssertTrue(lossless.rgba.enumerated().contains { $0.offset % 4 == 3 && $0.element == 65535 })
    XCTAssertEqual(lossless.width, lossy.width)
    XCTAssertEqual(
      PictureCodec.size(of: try Data(contentsOf: folder.appendingPathComponent("lossless.webp")))?
        .width, lossless.width)
    XCTAssertEqual(
      PictureCodec.size(of: try Data(contentsOf: folder.appendingPathComponent("cmyk.jpg")))?
        .height, lossless.height)
  }

  func testEncodersRoundTrip() throws {
    var image = RGBAImage(width: 32, height: 16, fill: SIMD4(0.2, 0.4, 0.6, 1))
    for x in 0..<16 { image.pixels[x] = SIMD4(1, 0, 0, 0.5) }
    for format in [PictureFormat.jpeg, .webp] {
      let data = try PictureCodec.encode(image, format: format)
      XCTAssertEqual(PictureFormat.sniff(data), format)
      let back = try PictureCodec.decodeSamples(data)
      XCTAssertEqual(back.width, 32)
      XCTAssertEqual(back.height, 16)
      // Far from the red edge: the flat color within a few levels.
      let i = 4 * (12 * 32 + 24)
      let expected = SRGB.encode(0.4) * 255
      XCTAssertEqual(Double(back.rgba[i + 1]) / 257, Double(expected), accuracy: 4, "\(format)")
      if format == .jpeg {
        // Half-transparent red over white: pink, opaque.
        XCTAssertEqual(back.rgba[3], 65535)
        XCTAssertGreaterThan(back.rgba[1], 20000)
      }
    }
    XCTAssertThrowsError(try PictureFormat.forOutput("a.bmp"))
    XCTAssertEqual(try PictureFormat.forOutput("-"), .png)
    XCTAssertEqual(try PictureFormat.forOutput("dir.v2/out"), .png)
    XCTAssertEqual(try PictureFormat.forOutput("A.JPG"), .jpeg)
  }
}
