import EmbossBatch
import EmbossKit
import Foundation
import XCTest

/// Replays every input kept in FuzzRegressions/ (fuzzer seeds and any input that once
/// crashed) through the code paths the fuzz targets in Fuzz/ exercise.
///
/// Passing means no crash.
final class FuzzRegressionTests: XCTestCase {
  func inputs(_ target: String) throws -> [(String, Data)] {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("FuzzRegressions/\(target)")
    return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
      ($0, try Data(contentsOf: folder.appendingPathComponent($0)))
    }
  }

  func testPNGInputs() throws {
    let all = try inputs("png")
    XCTAssertFalse(all.isEmpty)
    for (_, data) in all {
      if let decoded = try? PNGCodec.decode(data, maxPixels: 1 << 22) {
        _ = ShadingImage.extendingRim(decoded.image)
        _ = try PNGCodec.encode(decoded.image, parallelism: .serial)
      }
    }
  }

  func testMaterialInputs() throws {
    let all = try inputs("material")
    XCTAssertFalse(all.isEmpty)
    for (name, data) in all {
      let text = String(decoding: data, as: UTF8.self)
      var sink = DiagnosticSink()
      let spec = MaterialLoader.parse(
        yaml: text, file: name, library: MaterialLibrary(directories: []), sink: &sink)
      // Either a material or located problems: never nothing at all.
      XCTAssertTrue(spec != nil || sink.hasErrors, "\(name): no material and no diagnostic")
      for diagnostic in sink.diagnostics {
        XCTAssertEqual(diagnostic.location.file, name)
        XCTAssertGreaterThanOrEqual(diagnostic.location.line, 1, "\(name): \(diagnostic)")
      }
      guard let spec else {
        XCTAssertFalse(name.hasPrefix("set-"), "\(name) must parse, so that its lines reach --set")
        continue
      }
      let settings = text.split(separator: "\n").prefix(8).map(String.init)
      do {
        _ = try MaterialLoader.apply(settings: settings, to: spec)
        XCTAssertFalse(
          name.hasPrefix("set-"), "\(name): its lines once crashed --set; they must be refused")
      } catch let error as MaterialError {
        // Refused settings are located in the setting, as a file's problems are.
        XCTAssertTrue(
          error.diagnostics.allSatisfy { $0.location.file == "--set" }, "\(name): \(error)")
      }
    }
  }

  func testTextInputs() throws {
    let font = try Fixtures.font()
    let all = try inputs("text")
    XCTAssertFalse(all.isEmpty)
    for (_, data) in all where data.count >= 3 {
      let bytes = [UInt8](data)
      let style = TextStyle(
        pixelSize: Float(bytes[0] % 48) + 1, alignment: TextAlignment.allCases[Int(bytes[1]) % 3],
        letterSpacing: Float(Int8(bitPattern: bytes[2])) / 4, lineHeight: 1,
        padding: Float(bytes[2] % 5))
      let text = String(decoding: bytes[3...], as: UTF8.self)
      guard
        let layout = try? TextLayout(
          text: text, font: font, style: style,
          limits: RenderLimits(maxPixels: 1 << 20, maxTextLength: 200))
      else { continue }
      _ = HeightField.make(
        mask: layout.rasterize(), relief: try ReliefSpec(radius: 3), parallelism: .serial)
    }
  }

  func testRequestInputs() throws {
    let all = try inputs("request")
    XCTAssertFalse(all.isEmpty)
    for (name, data) in all {
      let request = RequestFuzzing.exercise([UInt8](data))
      // The seeds are valid requests, one for each way a request is made.
      if name.hasPrefix("seed-") { XCTAssertNotNil(request, name) }
    }
  }
}
