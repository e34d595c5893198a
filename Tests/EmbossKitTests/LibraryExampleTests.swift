import EmbossKit
import Foundation
import XCTest

/// The library examples of README.md and the DocC articles, as written there, so that they
/// compile and work (each writes into a temporary folder instead of the current one).
final class LibraryExampleTests: XCTestCase {
  var folder = ""

  override func setUpWithError() throws {
    folder =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-example-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  }

  override func tearDown() {
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// README.md "Use it as a library" and RenderingInTenLines.md, first listing.
  func testRenderJobExample() throws {
    let path = folder + "/hello.png"
    // --- example ---
    let resources = try Resources.locate()
    let job = RenderJob(
      mask: .text(TextMask(text: "Hello", style: TextStyle(pixelSize: 96))),
      material: "gold",
      settings: [MaterialSetting(set: "relief.radius=6")],
      output: OutputPlan(image: path))
    let output = try job.run(resources: resources)
    try job.write(output)
    // --- end ---
    let written = try PNGCodec.decodeSamples(Data(contentsOf: URL(fileURLWithPath: path)))
    XCTAssertEqual(written.width, output.result.image.width)
    XCTAssertEqual(output.result.material.relief.radius, 6)
    XCTAssertEqual(output.result.material.name, "gold")
    XCTAssertTrue(stride(from: 3, to: written.rgba.count, by: 4).contains { written.rgba[$0] > 0 })
  }

  /// README.md "Use it as a library", second listing: a request.
  func testRequestExample() throws {
    let current = FileManager.default.currentDirectoryPath
    _ = FileManager.default.changeCurrentDirectoryPath(folder)
    defer { _ = FileManager.default.changeCurrentDirectoryPath(current) }
    // --- example ---
    let resources = try Resources.locate()
    let request = try RenderRequest(
      text: "Hello",
      values: [
        .init(.output, "hello.png"), .init(.material, "gold"), .init(.size, "20mm"),
        .init(.dpi, "300"), .init(.engrave, "hello-1bit.png"),
      ])
    let job = try request.job(resources: resources)
    try job.write(try job.run(resources: resources))
    // --- end ---
    let written = try PNGCodec.decodeSamples(
      Data(contentsOf: URL(fileURLWithPath: folder + "/hello.png")))
    // 20 mm at 300 dpi is an em of 236 pixels: the picture is taller than that.
    XCTAssertGreaterThan(written.height, 236)
    XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/hello-1bit.png"))
    do {
      _ = try RenderRequest(
        text: "Hi", values: [.init(.output, "a.png"), .init(.size, "20 furlongs")])
      XCTFail("accepted")
    } catch {
      XCTAssertTrue(error.message { $0.key }.hasPrefix("size 20 furlongs: expected a length"))
    }
  }

  /// RenderingInTenLines.md, second listing: the stages by hand.
  func testStagesExample() throws {
    let path = folder + "/hi.png"
    // --- example ---
    let resources = try Resources.locate()
    let material = try MaterialLoader.load("chrome", library: resources.materialLibrary)
    let font = try Font(path: resources.defaultFontPath)
    let layout = try TextLayout(text: "Hi", font: font, style: TextStyle(pixelSize: 120))
    let result = Pipeline.render(RenderInput(mask: layout.rasterize(), material: material))
    let png = try PNGCodec.encode(result.image)
    try OutputFile.write(png, to: path)
    // --- end ---
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), png)
    XCTAssertEqual(result.mask.width, result.image.width)
    XCTAssertGreaterThan(result.height.canvasWidth, 0)
  }
}
