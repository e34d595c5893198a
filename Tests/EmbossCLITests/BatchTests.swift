import EmbossKit
import Foundation
import XCTest

/// `emboss batch`: rows from CSV or JSON Lines, named outputs, a manifest, a bad row that
/// does not stop the others, resuming, shards.
final class BatchTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "emboss-batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  func write(_ name: String, _ text: String, bom: Bool = false) throws {
    let bytes = (bom ? Data([0xEF, 0xBB, 0xBF]) : Data()) + Data(text.utf8)
    try bytes.write(to: URL(fileURLWithPath: path(name)))
  }

  func manifest(_ name: String) throws -> [BatchManifestEntry] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path(name)))
    return try data.split(separator: UInt8(ascii: "\n")).map {
      try JSONDecoder().decode(BatchManifestEntry.self, from: Data($0))
    }
  }

  /// Every file under `folder`, by relative path.
  func files(_ folder: String) throws -> [String: Data] {
    let root = URL(fileURLWithPath: path(folder))
    var out: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
      out[name] = try Data(contentsOf: root.appendingPathComponent(name))
    }
    return out
  }

  /// RFC 4180 quoting (commas, quotes, a newline in a field), a byte-order mark, a column
  /// that sets an option, a data column, an empty value (the default), and a bad row that
  /// fails alone: exit 1, its row number in the error, the others rendered.
  func testCSVRowsManifestAndABadRow() throws {
    try write(
      "names.csv",
      #"""
      text,material,size,note
      Anna,gold,40,first
      "Bob, Jr.",chrome,36,"says ""hi"""
      Zoe,nosuchmaterial,36,bad
      "Two
      Lines",,30,newline

      """#, bom: true)
    let result = try run([
      "batch", "names.csv", "--name", "out/{row:03}-{text}.png", "--size", "24", "--quiet",
    ])
    XCTAssertEqual(result.status, 1, result.stderr)
    XCTAssertTrue(result.stderr.contains("error: row 3: no material named 'nosuchmaterial'"))
    XCTAssertEqual(
      try files("out").keys.sorted(), ["001-Anna.png", "002-Bob-Jr.png", "004-Two-Lines.png"])
    let entries = try manifest("names.csv.manifest.jsonl")
    XCTAssertEqual(entries.map(\.row), [1, 2, 3, 4], "in row order")
    XCTAssertEqual(entries.map(\.status), ["rendered", "rendered", "failed", "rendered"])
    let anna = try Data(contentsOf: URL(fileURLWithPath: path("out/001-Anna.png")))
    XCTAssertEqual(entries[0].outputs.first?.sha256, SHA256Digest.hex(anna))
    // The row's size column wins over the command line's default.
    let single = try run([
      "render", "Anna", "--material", "gold", "--size", "40", "-o", "anna.png",
    ])
    XCTAssertEqual(single.status, 0, single.stderr)
    XCTAssertEqual(anna, try Data(contentsOf: URL(fileURLWithPath: path("anna.png"))))
  }

  /// A rerun renders nothing that is already there as the manifest says; a deleted output
  /// or a changed row is rendered again, to the same bytes.
  func testRerunSkipsWhatIsDoneAndRedoesTheRest() throws {
    try write("rows.csv", "text\nOne\nTwo\nThree\n")
    let arguments = ["batch", "rows.csv", "--name", "out/{text}.png", "--size", "24", "--quiet"]
    XCTAssertEqual(try run(arguments).status, 0)
    let first = try files("out")
    try FileManager.default.removeItem(atPath: path("out/Two.png"))
    let again = try run(arguments)
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertEqual(
      try manifest("rows.csv.manifest.jsonl").map(\.status), ["skipped", "rendered", "skipped"])
    XCTAssertEqual(try files("out"), first)
    try write("rows.csv", "text\nOne\nTwo\nThree!\n")
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(
      try manifest("rows.csv.manifest.jsonl").map(\.status), ["skipped", "skipped", "rendered"])
    // A run killed before its end leaves only the partial manifest (entries in row order
    // up to where it stopped): the next run takes it up.
    let manifestPath = path("rows.csv.manifest.jsonl")
    let lines = try String(contentsOfFile: manifestPath, encoding: .utf8).split(separator: "\n")
    try (lines[0] + "\n").write(
      toFile: manifestPath + ".partial", atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: manifestPath)
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(
      try manifest("rows.csv.manifest.jsonl").map(\.status), ["skipped", "rendered", "rendered"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: manifestPath + ".partial"))
  }

  /// Shards 0/2 and 1/2 together write exactly the files of one run over all rows.
  func testShardsTogetherEqualTheWhole() throws {
    try write(
      "rows.jsonl",
      (1...5).map { "{\"text\": \"N\($0)\", \"size\": \(20 + $0)}" }.joined(separator: "\n") + "\n")
    XCTAssertEqual(
      try run(["batch", "rows.jsonl", "--name", "whole/{row}-{text}.png", "--quiet"]).status, 0)
    for shard in ["0/2", "1/2"] {
      let result = try run([
        "batch", "rows.jsonl", "--name", "sharded/{row}-{text}.png", "--shard", shard,
        "--manifest", "m-\(shard.prefix(1)).jsonl", "--quiet",
      ])
      XCTAssertEqual(result.status, 0, result.stderr)
    }
    XCTAssertEqual(try manifest("m-0.jsonl").map(\.row), [1, 3, 5])
    XCTAssertEqual(try manifest("m-1.jsonl").map(\.row), [2, 4])
    let whole = try files("whole")
    XCTAssertEqual(whole.count, 5)
    XCTAssertEqual(try files("sharded"), whole)
    // The shards' manifests merge into one in row order.
    let merge = try run(["batch", "merge", "m-1.jsonl", "m-0.jsonl", "-o", "all.jsonl"])
    XCTAssertEqual(merge.status, 0, merge.stderr)
    XCTAssertEqual(try manifest("all.jsonl").map(\.row), [1, 2, 3, 4, 5])
  }

  /// Two rows naming one file: the later one fails before anything is rendered; a
  /// template's errors and a bad default option are argument errors (64); rows that cannot
  /// be read exit 2.
  func testCollisionsAndErrors() throws {
    try write("rows.csv", "text,who\nA,x\nB,x\n")
    let collide = try run(["batch", "rows.csv", "--name", "{who}.png", "--quiet"])
    XCTAssertEqual(collide.status, 1)
    XCTAssertTrue(
      collide.stderr.contains("error: row 2: 'x.png' is also row 1's output"), collide.stderr)
    XCTAssertEqual(try run(["batch", "rows.csv", "--name", "same.png"]).status, 64)
    XCTAssertEqual(try run(["batch", "rows.csv", "--name", "{who.png"]).status, 64)
    XCTAssertEqual(try run(["batch", "rows.csv", "--name", "{who}.png", "--size", "x"]).status, 64)
    XCTAssertEqual(try run(["batch", "rows.csv", "--name", "{who}.png", "-o", "a.png"]).status, 64)
    XCTAssertEqual(try run(["batch", "missing.csv", "--name", "{text}.png"]).status, 2)
  }
}

final class NameTemplateTests: XCTestCase {
  func testSlugsKeepNamesSafe() throws {
    XCTAssertEqual(NameTemplate.slug("Bob, Jr."), "Bob-Jr")
    XCTAssertEqual(NameTemplate.slug("../../etc/passwd"), "etc-passwd")
    XCTAssertEqual(NameTemplate.slug("Zoë Ångström"), "Zoë-Ångström")
    XCTAssertEqual(NameTemplate.slug("..."), "_")
    XCTAssertEqual(NameTemplate.slug(""), "_")
    let template = try NameTemplate("tags/{row:04}-{text}.png", option: "--name")
    XCTAssertEqual(
      try template.path(for: BatchRow(number: 7, values: ["text": "a/b"])), "tags/0007-a-b.png")
    XCTAssertThrowsError(try template.path(for: BatchRow(number: 1, values: [:])))
    XCTAssertThrowsError(try NameTemplate("{row:x}.png", option: "--name"))
    XCTAssertThrowsError(try NameTemplate("a}.png", option: "--name"))
  }
}
