import EmbossBatch
import EmbossKit
import Foundation
import XCTest

/// `RenderRequest`: made only by its checking initializer (from values, a batch row or
/// JSON), its errors naming options in the caller's words.
final class RenderRequestTests: XCTestCase {
  private func request(_ values: [(RenderOption, String)], text: String? = "Hi")
    throws(RequestError) -> RenderRequest
  {
    try RenderRequest(text: text, values: values.map { RenderRequest.Value($0.0, $0.1) })
  }

  private func error(_ text: String?, _ values: [(RenderOption, String)]) -> String? {
    do throws(RequestError) {
      _ = try request(values, text: text)
      return nil
    } catch {
      return error.message { $0.key }
    }
  }

  func testValuesAreCanonicalLastWinsAndListsKeepAll() throws {
    let a = try request([
      (.output, "a.png"), (.size, "20"), (.set, "surface.ambient=0.1"), (.size, "30"),
      (.set, "surface.shininess=60"),
    ])
    let b = try request([
      (.set, "surface.ambient=0.1"), (.size, "30"), (.set, "surface.shininess=60"),
      (.output, "a.png"),
    ])
    XCTAssertEqual(a, b)
    XCTAssertEqual(a.value(.size), "30")
    XCTAssertEqual(
      a.values.filter { $0.option == .set }.map(\.value),
      ["surface.ambient=0.1", "surface.shininess=60"])
    // In the table's order.
    let order = a.values.map { RenderOption.all.firstIndex(of: $0.option) ?? -1 }
    XCTAssertEqual(order, order.sorted())
  }

  func testInvalidRequestsCannotBeMade() {
    let cases: [([(RenderOption, String)], String?, String)] = [
      ([(.size, "0"), (.output, "a.png")], "Hi", "size must be in 1...10000 pixels, got 0"),
      ([(.size, "abc"), (.output, "a.png")], "Hi", "size abc: expected a length"),
      ([(.dpi, "0"), (.output, "a.png")], "Hi", "dpi must be in 1...100000"),
      ([(.size, "5mm"), (.output, "a.png")], "Hi", "size 5mm is a physical length: give dpi too"),
      ([(.maskThreshold, "300"), (.output, "a.png")], "Hi", "mask-threshold must be in 0...255"),
      ([(.compression, "12"), (.output, "a.png")], "Hi", "compression must be in 0...9"),
      ([(.depth, "16"), (.output, "a.jpg")], "Hi", "depth 16 needs a PNG output"),
      ([(.depth, "12"), (.output, "a.png")], "Hi", "depth 12: expected 8 or 16"),
      ([(.svg, "a.svg"), (.output, "a.png")], "Hi", "svg needs dpi"),
      ([(.mesh, "a.stl"), (.output, "a.png")], "Hi", "mesh needs dpi"),
      ([(.meshHeight, "2"), (.output, "a.png")], "Hi", "need mesh"),
      ([(.textFile, "t.txt"), (.output, "a.png")], "Hi", "give the text or text-file, not both"),
      ([(.output, "a.png")], nil, "no text to emboss"),
      ([(.size, "20")], "Hi", "output is missing"),
      ([(.capHeight, "20"), (.size, "20"), (.output, "a.png")], "Hi", "not both"),
      ([(.reliefDepth, "2x"), (.scale, "3"), (.output, "a.png")], "Hi", "not both"),
      ([(.gamma, "nan"), (.output, "a.png")], "Hi", "gamma must be in 0.1...10"),
      ([(.lineHeight, "0"), (.output, "a.png")], "Hi", "line-height must be in (0, 100]"),
      ([(.mirror, "maybe"), (.output, "a.png")], "Hi", "mirror is a flag"),
      ([(.set, "surface.shininess=0"), (.output, "a.png")], "Hi", "surface.shininess"),
      ([(.radius, "-3"), (.output, "a.png")], "Hi", "radius must be a length of 0 or more"),
      ([(.engrave, "a.png"), (.output, "a.png")], "Hi", "a.png"),
      ([(.engrave, "e.jpg"), (.output, "a.png")], "Hi", "engrave"),
      ([(.canvas, "0x10"), (.output, "a.png")], "Hi", "canvas 0x10: expected WIDTHxHEIGHT"),
      ([(.maxMemory, "lots"), (.output, "a.png")], "Hi", "max-memory lots"),
      ([(.dither, "floid"), (.output, "a.png")], "Hi", "dither: "),
      (
        [(.meshPlate, "disc"), (.output, "a.png")], "Hi",
        "mesh-plate disc: expected rect or outline"
      ),
    ]
    for (values, text, expected) in cases {
      let message = error(text, values)
      XCTAssertTrue(message?.contains(expected) == true, "\(values): \(message ?? "accepted")")
    }
  }

  func testMessagesNameOptionsInTheCallersWords() {
    do throws(RequestError) {
      _ = try request([(.capHeight, "20"), (.size, "20"), (.output, "a.png")])
      XCTFail("accepted")
    } catch {
      XCTAssertEqual(error.description, "give --cap-height or --size, not both")
      XCTAssertEqual(
        error.message { "column '\($0.key)'" },
        "give column 'cap-height' or column 'size', not both")
    }
  }

  func testJSONIsTheValuesAndIsCheckedWhenRead() throws {
    let json = #"""
      {"text": "Hi", "output": "a.png", "size": 20, "mirror": true, "set": ["surface.ambient=0.1"]}
      """#
    let request = try JSONDecoder().decode(RenderRequest.self, from: Data(json.utf8))
    XCTAssertEqual(request.text, "Hi")
    XCTAssertEqual(request.value(.size), "20")
    XCTAssertEqual(request.value(.mirror), "true")
    XCTAssertEqual(
      try JSONDecoder().decode(RenderRequest.self, from: JSONEncoder().encode(request)), request)
    for bad in [
      #"{"text": "Hi", "output": "a.png", "size": 0}"#,
      #"{"text": "Hi", "output": "a.png", "colour": "red"}"#,
      #"{"text": "Hi", "output": "a.png", "threads": 4}"#,
      #"{"text": "Hi", "output": "a.png", "size": [1, 2]}"#,
    ] {
      XCTAssertThrowsError(try JSONDecoder().decode(RenderRequest.self, from: Data(bad.utf8)), bad)
    }
  }

  func testTheJobIsTheRequest() throws {
    let job = try request([
      (.output, "a.png"), (.size, "10mm"), (.dpi, "254"), (.align, "left"), (.mirror, "true"),
      (.engrave, "e.png"), (.radius, "2mm"),
    ]).job(resources: try Resources.locate())
    guard case .text(let text) = job.mask else { return XCTFail("not text") }
    XCTAssertEqual(text.text, "Hi")
    XCTAssertEqual(text.style.pixelSize, 100, accuracy: 1e-4)
    XCTAssertEqual(text.style.alignment, .left)
    XCTAssertEqual(job.output.laser.engrave, "e.png")
    XCTAssertEqual(job.output.laser.engraveOptions.mirror, true)
    XCTAssertEqual(job.output.resolution?.dpi, 254)
    XCTAssertEqual(job.settings.map(\.key), ["relief.radius"])
  }

  /// `text-case`, an option added as a table row, a `render` property and the line that
  /// uses it: on the command line, in a batch column and in JSON alike.
  func testTextCaseSetsTheTextsCase() throws {
    let resources = try Resources.locate()
    func text(_ request: RenderRequest) throws -> String {
      guard case .text(let mask) = try request.job(resources: resources).mask else { return "" }
      return mask.text
    }
    XCTAssertEqual(
      try text(try request([(.output, "a.png"), (.textCase, "upper")], text: "Straße 1b")),
      "STRASSE 1B")
    XCTAssertEqual(
      try text(try request([(.output, "a.png"), (.textCase, "lower")], text: "ÉCOLE")), "école")
    XCTAssertEqual(try text(try request([(.output, "a.png")], text: "Mixed")), "Mixed")
    XCTAssertEqual(
      error("Hi", [(.output, "a.png"), (.textCase, "title")]),
      "text-case title: expected upper or lower")
    let row = try BatchRequests(
      defaults: [], templates: [(.output, try NameTemplate("{row}.png", option: "--name"))]
    ).request(for: BatchRow(number: 1, values: ["text": "ada", "text-case": "upper"]))
    XCTAssertEqual(try text(row), "ADA")
    let json = try JSONDecoder().decode(
      RenderRequest.self,
      from: Data(#"{"text": "ada", "output": "a.png", "text-case": "upper"}"#.utf8))
    XCTAssertEqual(try text(json), "ADA")
  }

  func testBatchRowsBecomeRequests() throws {
    let requests = try BatchRequests(
      defaults: [
        RenderRequest.Value(.height, "40"), RenderRequest.Value(.material, "gold"),
      ],
      templates: [(.output, try NameTemplate("out/{row}.png", option: "--name"))])
    let row = BatchRow(
      number: 3,
      values: [
        "text": "A\\nB", "size": "30", "mirror": "yes",
        "set": "surface.ambient=0.1; surface.shininess=9",
        "customer": "x",
      ])
    let request = try requests.request(for: row)
    XCTAssertEqual(request.text, "A\nB")
    XCTAssertNil(request.value(.height), "a row's size drops the defaults' height")
    XCTAssertEqual(request.value(.size), "30")
    XCTAssertEqual(request.value(.material), "gold")
    XCTAssertEqual(request.value(.mirror), "true")
    XCTAssertEqual(
      request.values.filter { $0.option == .set }.map(\.value),
      ["surface.ambient=0.1", "surface.shininess=9"])
    XCTAssertEqual(request.output, "out/3.png")
    XCTAssertThrowsError(
      try requests.request(for: BatchRow(number: 1, values: ["text": "A", "engrave": "e.png"])))
    XCTAssertThrowsError(
      try requests.request(for: BatchRow(number: 1, values: ["text": "A", "mirror": "perhaps"])))
    XCTAssertThrowsError(
      try BatchRequests(
        defaults: [RenderRequest.Value(.engrave, "e.png")],
        templates: [(.output, try NameTemplate("o.png", option: "--name"))]))
  }
}

/// A request's files are read once (`resolve`): the render takes the bytes read, and the
/// digest covers exactly those bytes.
final class ResolvedRequestTests: XCTestCase {
  func testTheRenderTakesTheBytesReadAndTheDigestFollowsThem() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-resolve-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let parent = folder.appendingPathComponent("base.yaml").path
    let child = folder.appendingPathComponent("m.yaml").path
    try "surface:\n  base: \"#c03020\"\n".write(toFile: parent, atomically: true, encoding: .utf8)
    try "extends: base.yaml\n".write(toFile: child, atomically: true, encoding: .utf8)
    let text = folder.appendingPathComponent("t.txt").path
    try "Hi\n".write(toFile: text, atomically: true, encoding: .utf8)
    let resources = try Resources.locate()
    let request = try RenderRequest(
      text: nil,
      values: [
        .init(.textFile, text), .init(.material, child), .init(.size, "24"),
        .init(.shadingSize, "64"), .init(.output, "-"),
      ])
    let resolved = try request.resolve(resources: resources, parallelism: .serial)
    XCTAssertEqual(resolved.inputs.files.map(\.path), [child, parent, text])
    let digest = resolved.digest(version: "test")
    XCTAssertEqual(try request.resolve(resources: resources).digest(version: "test"), digest)
    XCTAssertNotEqual(resolved.digest(version: "other"), digest)
    let red = try resolved.job.run(resources: resources).png

    // The parent edited after the files were read: the resolved job still renders what was
    // read (and hashed); a new resolve reads the new bytes and has a new digest.
    try "surface:\n  base: \"#2040c0\"\n".write(toFile: parent, atomically: true, encoding: .utf8)
    try "Ho\n".write(toFile: text, atomically: true, encoding: .utf8)
    XCTAssertEqual(try resolved.job.run(resources: resources).png, red)
    let blue = try request.resolve(resources: resources, parallelism: .serial)
    XCTAssertNotEqual(blue.digest(version: "test"), digest)
    XCTAssertNotEqual(try blue.job.run(resources: resources).png, red)
    guard case .text(let mask) = blue.job.mask else { return XCTFail("a text mask") }
    XCTAssertEqual(mask.text, "Ho")
  }

  func testAFileThatCannotBeReadFailsTheResolve() throws {
    let resources = try Resources.locate()
    let request = try RenderRequest(
      text: "A", values: [.init(.font, "/nonexistent/font.ttf"), .init(.output, "-")])
    XCTAssertThrowsError(try request.resolve(resources: resources)) { error in
      XCTAssertEqual("\(error)", "font file '/nonexistent/font.ttf' does not exist")
    }
  }
}

/// A batch run by the library: rows rendered on several workers at once (the thread
/// sanitizer's pass covers this, as it does not run the command line's batch tests), the
/// manifest in row order, a rerun skipping every row.
final class LibraryBatchTests: XCTestCase {
  func testRowsRenderInParallelAndResume() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-library-batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let rows = folder.appendingPathComponent("rows.csv").path
    try "text,material,mirror\nA,gold,\nB,chrome,yes\nC,,\nD,gold,1\n".write(
      toFile: rows, atomically: true, encoding: .utf8)
    let requests = try BatchRequests(
      defaults: [RenderRequest.Value(.size, "16"), RenderRequest.Value(.shadingSize, "64")],
      templates: [
        (.output, try NameTemplate(folder.path + "/out/{row}-{text}.png", option: "--name")),
        (.engrave, try NameTemplate(folder.path + "/out/{row}-e.png", option: "--engrave")),
      ])
    let runner = BatchRunner(
      rowsPath: rows, manifestPath: rows + ".manifest.jsonl", shard: nil, workers: 3,
      version: "test")
    let resources = try Resources.locate()
    let first = try runner.run(
      requests: requests, resources: resources, progress: { _ in }, entry: { _ in })
    XCTAssertEqual(first.rendered, 4)
    XCTAssertEqual(first.failed, 0)
    let entries = try BatchManifestEntry.readAll(rows + ".manifest.jsonl")
    XCTAssertEqual(entries.map(\.row), [1, 2, 3, 4])
    XCTAssertEqual(entries.map(\.status), Array(repeating: .rendered, count: 4))
    XCTAssertEqual(entries[1].outputs.map(\.path).last, folder.path + "/out/2-e.png")
    // The same picture as one render of the same request.
    let single = try requests.request(
      for: BatchRow(number: 2, values: ["text": "B", "material": "chrome", "mirror": "yes"]))
    let job = try single.job(resources: resources, parallelism: .serial)
    let png = try job.run(resources: resources).png
    XCTAssertEqual(png, try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out/2-B.png")))
    let again = try runner.run(
      requests: requests, resources: resources, progress: { _ in }, entry: { _ in })
    XCTAssertEqual(again.skipped, 4)
  }
}
