import EmbossBatch
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
    XCTAssertEqual(entries.map(\.status), [.rendered, .rendered, .failed, .rendered])
    let anna = try Data(contentsOf: URL(fileURLWithPath: path("out/001-Anna.png")))
    XCTAssertEqual(entries[0].outputs.first?.sha256, SHA256Digest.hex(anna))
    // The row's size column wins over the command line's default.
    let single = try run([
      "render", "Anna", "--material", "gold", "--size", "40", "-o", "anna.png",
    ])
    XCTAssertEqual(single.status, 0, single.stderr)
    XCTAssertEqual(anna, try Data(contentsOf: URL(fileURLWithPath: path("anna.png"))))
  }

  /// Blank lines in a CSV (a gap between groups, an editor's extra newline at the end) are no
  /// rows, as in JSON Lines: each became a row with no text that failed.
  func testBlankCSVLinesAreNoRows() throws {
    try write("gaps.csv", "text\nAda\n\nBo\r\n\r\nCy\n\n\n")
    let result = try run(["batch", "gaps.csv", "--name", "g/{row}-{text}.png", "--size", "20"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(try files("g").keys.sorted(), ["1-Ada.png", "2-Bo.png", "3-Cy.png"])
    XCTAssertEqual(try manifest("gaps.csv.manifest.jsonl").map(\.row), [1, 2, 3])
  }

  /// A row's `size`, `height` or `cap-height` replaces all three defaults.
  ///
  /// A row with none of them takes the command line's; conflicting defaults (`--cap-height`
  /// with `--size`) are an argument error, as in a render.
  func testARowsSizingColumnReplacesTheDefaults() throws {
    try write("rows.csv", "text,size,height,cap-height\nHa,,,\nHb,40,,\nHc,,,30\nHd,,25,\n")
    let result = try run([
      "batch", "rows.csv", "--name", "out/{row}.png", "--cap-height", "20", "--quiet",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    for (row, text, sizing) in [
      (1, "Ha", ["--cap-height", "20"]), (2, "Hb", ["--size", "40"]),
      (3, "Hc", ["--cap-height", "30"]), (4, "Hd", ["--height", "25"]),
    ] {
      XCTAssertEqual(try run(["render", text, "-o", "single.png"] + sizing).status, 0)
      XCTAssertEqual(
        try Data(contentsOf: URL(fileURLWithPath: path("out/\(row).png"))),
        try Data(contentsOf: URL(fileURLWithPath: path("single.png"))), text)
    }
    let conflict = try run([
      "batch", "rows.csv", "--name", "x/{row}.png", "--cap-height", "20", "--size", "40",
    ])
    XCTAssertEqual(conflict.status, 64)
    XCTAssertTrue(
      conflict.stderr.contains("give --cap-height or --size, not both"), conflict.stderr)
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
      try manifest("rows.csv.manifest.jsonl").map(\.status), [.skipped, .rendered, .skipped])
    XCTAssertEqual(try files("out"), first)
    try write("rows.csv", "text\nOne\nTwo\nThree!\n")
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(
      try manifest("rows.csv.manifest.jsonl").map(\.status), [.skipped, .skipped, .rendered])
    // A run killed before its end leaves only the partial manifest (entries in row order
    // up to where it stopped): the next run takes it up.
    let manifestPath = path("rows.csv.manifest.jsonl")
    let lines = try String(contentsOfFile: manifestPath, encoding: .utf8).split(separator: "\n")
    try (lines[0] + "\n").write(
      toFile: manifestPath + ".partial", atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: manifestPath)
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(
      try manifest("rows.csv.manifest.jsonl").map(\.status), [.skipped, .rendered, .rendered])
    XCTAssertFalse(FileManager.default.fileExists(atPath: manifestPath + ".partial"))
  }

  /// A rerun after a file a row reads was edited (its material, what that extends, a font
  /// file, a mask picture) renders exactly the rows that read it again; the others stay.
  func testRerunRendersRowsWhoseFilesChanged() throws {
    try write("parent.yaml", "surface:\n  base: \"#a08060\"\n")
    try write("m.yaml", "extends: parent.yaml\n")
    try write("other.yaml", "surface:\n  base: \"#6080a0\"\n")
    let fonts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fonts")
    try FileManager.default.copyItem(
      atPath: fonts.appendingPathComponent("DejaVuSans-Bold.ttf").path, toPath: path("font.ttf"))
    XCTAssertEqual(
      try run(["render", "Hi", "--size", "30", "--background", "transparent", "-o", "logo.png"])
        .status, 0)
    try write(
      "rows.csv",
      "text,material,font,mask\nA,m.yaml,,\nB,other.yaml,,\nC,other.yaml,font.ttf,\n,other.yaml,,logo.png\n"
    )
    let arguments = [
      "batch", "rows.csv", "--name", "out/{row}.png", "--size", "24", "--quiet", "--no-cache",
    ]
    let first = try run(arguments)
    XCTAssertEqual(first.status, 0, first.stderr)
    let before = try files("out")
    func statuses() throws -> [String] {
      try manifest("rows.csv.manifest.jsonl").map(\.status.rawValue)
    }
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(try statuses(), ["skipped", "skipped", "skipped", "skipped"])
    // The parent of row 1's material: row 1 again, with the new colour.
    try write("parent.yaml", "surface:\n  base: \"#40a040\"\n")
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(try statuses(), ["rendered", "skipped", "skipped", "skipped"])
    XCTAssertNotEqual(try files("out")["1.png"], before["1.png"])
    // A material several rows read.
    try write("other.yaml", "surface:\n  base: \"#a04040\"\n")
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(try statuses(), ["skipped", "rendered", "rendered", "rendered"])
    // A font file, replaced by another font.
    try FileManager.default.removeItem(atPath: path("font.ttf"))
    try FileManager.default.copyItem(
      atPath: fonts.appendingPathComponent("NotoSerif-Bold.ttf").path,
      toPath: path("font.ttf"))
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(try statuses(), ["skipped", "skipped", "rendered", "skipped"])
    // A mask picture.
    XCTAssertEqual(
      try run(["render", "Ho", "--size", "30", "--background", "transparent", "-o", "logo.png"])
        .status, 0)
    XCTAssertEqual(try run(arguments).status, 0)
    XCTAssertEqual(try statuses(), ["skipped", "skipped", "skipped", "rendered"])
  }

  /// A batch killed (SIGKILL) once some rows are done, then run again, ends with exactly
  /// the files and manifest rows of one uninterrupted run.
  func testKilledBatchResumesToTheSameFiles() throws {
    try write("rows.csv", "text\n" + (1...10).map { "K\($0)\n" }.joined())
    XCTAssertEqual(
      try run(["batch", "rows.csv", "--name", "whole/{text}.png", "--size", "24", "--quiet"])
        .status,
      0)
    let arguments = [
      "batch", "rows.csv", "--name", "killed/{text}.png", "--size", "24", "--quiet",
      "--manifest", "killed.jsonl", "--threads", "1",
    ]
    let process = Process()
    process.executableURL = CLITests.binary
    process.arguments = arguments
    process.currentDirectoryURL = directory
    try process.run()
    // Kill it once a row is in the partial manifest (or let it finish, if it is that fast).
    let partial = path("killed.jsonl.partial")
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning, Date() < deadline {
      if let text = try? String(contentsOfFile: partial, encoding: .utf8), text.contains("\n") {
        kill(process.processIdentifier, SIGKILL)
        break
      }
      usleep(2_000)
    }
    process.waitUntilExit()
    let again = try run(arguments)
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertEqual(try files("killed"), try files("whole"))
    let entries = try manifest("killed.jsonl")
    XCTAssertEqual(entries.map(\.row), Array(1...10))
    XCTAssertTrue(entries.contains { $0.status == .skipped }, "the killed run's rows were kept")
    XCTAssertFalse(FileManager.default.fileExists(atPath: partial))
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
    XCTAssertEqual(try manifest("m-1.jsonl").map(\.shardIndex), [1, 1])
    XCTAssertEqual(try manifest("m-1.jsonl").map(\.batchRows), [5, 5])
  }

  /// A merge that lost a shard, got one twice, or holds a line that is not an entry fails
  /// (exit 1) naming it, and writes nothing; manifests of two batches do not merge.
  func testMergeRefusesAGapADuplicateAndABrokenLine() throws {
    try write(
      "rows.jsonl",
      (1...5).map { "{\"text\": \"N\($0)\", \"size\": 20}" }.joined(separator: "\n") + "\n")
    for shard in ["0/3", "1/3", "2/3"] {
      let result = try run([
        "batch", "rows.jsonl", "--name", "out/{row}.png", "--shard", shard,
        "--manifest", "m-\(shard.prefix(1)).jsonl", "--quiet",
      ])
      XCTAssertEqual(result.status, 0, result.stderr)
    }
    func merge(_ inputs: [String]) throws -> CLIRunner.Result {
      try run(["batch", "merge"] + inputs + ["-o", "all.jsonl"])
    }
    let gap = try merge(["m-0.jsonl", "m-2.jsonl"])
    XCTAssertEqual(gap.status, 1)
    XCTAssertEqual(
      gap.stderr, "error: 2 of 5 rows are in no manifest (rows 2, 5): missing shard 1/3\n")
    let twice = try merge(["m-0.jsonl", "m-1.jsonl", "m-2.jsonl", "m-1.jsonl"])
    XCTAssertEqual(twice.status, 1)
    XCTAssertTrue(twice.stderr.contains("row 2 is in 'm-1.jsonl' and again in 'm-1.jsonl'"))
    let lines = try String(contentsOfFile: path("m-2.jsonl"), encoding: .utf8)
    try write("broken.jsonl", lines + "{\"row\": 9, \"stat\n")
    let broken = try merge(["m-0.jsonl", "m-1.jsonl", "broken.jsonl"])
    XCTAssertEqual(broken.status, 1)
    XCTAssertTrue(
      broken.stderr.hasPrefix("error: broken.jsonl:2: not a manifest entry"), broken.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("all.jsonl")))
    // Another batch (3 rows, unsharded) does not merge with these.
    try write("other.jsonl", "{\"text\": \"X\"}\n{\"text\": \"Y\"}\n{\"text\": \"Z\"}\n")
    XCTAssertEqual(
      try run([
        "batch", "other.jsonl", "--name", "o/{row}.png", "--manifest", "o.jsonl", "--quiet",
      ]).status, 0)
    let mixed = try merge(["m-0.jsonl", "o.jsonl"])
    XCTAssertEqual(mixed.status, 1)
    XCTAssertTrue(mixed.stderr.contains("not the same batch"), mixed.stderr)
    XCTAssertEqual(try merge(["m-2.jsonl", "m-0.jsonl", "m-1.jsonl"]).status, 0)
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
    // A template naming a column the header lacks: an argument error before any row.
    let column = try run(["batch", "rows.csv", "--name", "o/{nosuch}.png"])
    XCTAssertEqual(column.status, 64)
    XCTAssertTrue(
      column.stderr.contains(
        "--name 'o/{nosuch}.png': '{nosuch}' is not a column of 'rows.csv' (its columns: text, who)"
      ), column.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("o")))
  }

  /// Quoting that breaks RFC 4180 stops the batch before anything renders (exit 2).
  ///
  /// The message names the line: a quote never closed took every later row into one field,
  /// and text after a closing quote was dropped; so does a row with more fields than the
  /// header. Quotes escaped by doubling and a quoted newline are fine.
  func testBrokenQuotingIsAnErrorNotLostRows() throws {
    try write("open.csv", "text,size\n\"Ada Lovelace,50\nBob,50\nCarol,50\n")
    let open = try run(["batch", "open.csv", "--name", "o/{row}.png"])
    XCTAssertEqual(open.status, 2)
    XCTAssertEqual(open.stderr, "error: rows 'open.csv', line 2: a quoted field is never closed\n")
    try write("after.csv", "text,size\nA,40\n\"a\"b,50\n")
    let after = try run(["batch", "after.csv", "--name", "o/{row}.png"])
    XCTAssertEqual(after.status, 2)
    XCTAssertEqual(
      after.stderr,
      "error: rows 'after.csv', line 3, column 4: text after a field's closing quote\n")
    try write("wide.csv", "text,size\nA,50,9\n")
    let wide = try run(["batch", "wide.csv", "--name", "o/{row}.png"])
    XCTAssertEqual(wide.status, 2)
    XCTAssertEqual(wide.stderr, "error: rows 'wide.csv', row 1: 3 fields, but the header names 2\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("o")), "nothing rendered")
    try write("fine.csv", "text,size\n\"He said \"\"hi\"\", then\nleft\",40\nB,40,\n")
    let fine = try run(["batch", "fine.csv", "--name", "f/{row}.png", "--quiet"])
    XCTAssertEqual(fine.status, 0, fine.stderr)
    XCTAssertEqual(
      Set(try FileManager.default.contentsOfDirectory(atPath: path("f"))), ["1.png", "2.png"])
  }

  /// A row whose output is the batch's own rows file or manifest fails, and neither is
  /// written over (the rows file became a PNG); a manifest path that is a directory fails
  /// before any row renders.
  func testRowsNeverWriteTheBatchsOwnFiles() throws {
    let rows = "text,file\nA,rows\nB,mani\nC,c.png\n"
    try write("rows", rows)
    let result = try run(["batch", "rows", "--name", "{file}", "--manifest", "mani", "--quiet"])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(
      result.stderr.contains("error: row 1: 'rows' is the rows file of this batch"), result.stderr)
    XCTAssertTrue(
      result.stderr.contains("error: row 2: 'mani' is the manifest of this batch"), result.stderr)
    XCTAssertEqual(try String(contentsOfFile: path("rows"), encoding: .utf8), rows)
    XCTAssertTrue(FileManager.default.fileExists(atPath: path("c.png")))
    try FileManager.default.createDirectory(atPath: path("dd"), withIntermediateDirectories: true)
    let directory = try run(["batch", "rows", "--name", "o/{text}.png", "--manifest", "dd"])
    XCTAssertEqual(directory.status, 2)
    XCTAssertEqual(
      directory.stderr, "error: cannot write the manifest 'dd': it is a directory\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("o")), "no row rendered")
  }
}

extension BatchTests {
  /// Gang sheets: the rows' SVGs packed in row order onto 100 x 60 mm sheets, 3 mm apart.
  ///
  /// None overlaps another or leaves its sheet; each sheet is an SVG of that size in mm with
  /// every row's group, and a preview; the manifest says where each row went. A row too large
  /// for the sheet fails alone.
  func testGangSheets() throws {
    try write("rows.csv", "text\nAnna\nBob\nCharlotte\nDan\nEve\nFrancesca\nGus\n")
    let result = try run([
      "batch", "rows.csv", "--name", "out/{row}.png", "--svg", "out/{row}.svg", "--height",
      "10mm", "--dpi", "200", "--sheet", "100x60mm", "--gap", "3mm", "--quiet",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let entries = try manifest("rows.csv.manifest.jsonl")
    XCTAssertEqual(entries.compactMap(\.sheet), [1, 1, 1, 1, 1, 2, 2])
    // Each row's size from its own SVG; rectangles on one sheet must not overlap.
    var placed: [(sheet: Int, x: Double, y: Double, w: Double, h: Double)] = []
    for entry in entries {
      let svg = try String(contentsOfFile: path("out/\(entry.row).svg"), encoding: .utf8)
      func millimeters(_ name: String) throws -> Double {
        let start = try XCTUnwrap(svg.range(of: " \(name)=\""))
        let end = try XCTUnwrap(svg.range(of: "mm\"", range: start.upperBound..<svg.endIndex))
        return try XCTUnwrap(Double(svg[start.upperBound..<end.lowerBound]))
      }
      let (x, y) = (try XCTUnwrap(entry.x), try XCTUnwrap(entry.y))
      let (w, h) = (try millimeters("width"), try millimeters("height"))
      XCTAssertGreaterThanOrEqual(x, 3 - 1e-9)
      XCTAssertGreaterThanOrEqual(y, 3 - 1e-9)
      XCTAssertLessThanOrEqual(x + w, 97 + 1e-6, "row \(entry.row)")
      XCTAssertLessThanOrEqual(y + h, 57 + 1e-6, "row \(entry.row)")
      for other in placed where other.sheet == entry.sheet {
        let apart =
          x >= other.x + other.w + 3 - 1e-6 || other.x >= x + w + 3 - 1e-6
          || y >= other.y + other.h + 3 - 1e-6 || other.y >= y + h + 3 - 1e-6
        XCTAssertTrue(apart, "row \(entry.row) overlaps another on sheet \(entry.sheet ?? 0)")
      }
      placed.append((entry.sheet ?? 0, x, y, w, h))
    }
    for sheet in ["001", "002"] {
      let svg = try String(contentsOfFile: path("sheets/sheet-\(sheet).svg"), encoding: .utf8)
      XCTAssertTrue(svg.contains("width=\"100mm\" height=\"60mm\" viewBox=\"0 0 100 60\""))
      let preview = try PNGCodec.decodeSamples(
        Data(contentsOf: URL(fileURLWithPath: path("sheets/sheet-\(sheet).png"))))
      XCTAssertEqual([preview.width, preview.height], [400, 240])
    }
    let first = try String(contentsOfFile: path("sheets/sheet-001.svg"), encoding: .utf8)
    XCTAssertEqual(first.components(separatedBy: "<g id=\"row-").count - 1, 5)
    XCTAssertTrue(first.contains("stroke=\"#ff0000\""), "cut lines kept")
    // Too large for the sheet: that row fails, the rest are placed.
    try write("big.csv", "text,height\nHi,10mm\nHuge,80mm\n")
    let big = try run([
      "batch", "big.csv", "--name", "big/{row}.png", "--svg", "big/{row}.svg", "--dpi", "50",
      "--sheet", "100x60mm", "--quiet", "--height", "10mm",
    ])
    XCTAssertEqual(big.status, 1)
    XCTAssertTrue(big.stderr.contains("error: row 2: sheet: "), big.stderr)
    XCTAssertTrue(big.stderr.contains("does not fit on a 100.0 x 60.0 mm sheet"), big.stderr)
    XCTAssertEqual(
      try run(["batch", "big.csv", "--name", "b/{row}.png", "--sheet", "100x60mm"]).status, 64)
  }
}

extension BatchTests {
  /// A gang sheet is to scale.
  ///
  /// Each row's group, read back from the sheet's numbers, is the row's own width and height
  /// (its pixels at 300 dpi) and sits exactly 5 mm from the sheet's edge and from its
  /// neighbours, all within 0.001 mm (a scale rounded to 0.0847 made a 500 px row 0.017 mm
  /// too wide and the gaps 4.99 mm).
  func testGangSheetIsToScale() throws {
    try write("rows.csv", "text\nAnna Maria\nBob\nCharlotte\nDan\n")
    let result = try run([
      "batch", "rows.csv", "--name", "out/{row}.png", "--svg", "out/{row}.svg", "--cap-height",
      "6mm", "--dpi", "300", "--sheet", "120x100mm", "--gap", "5mm", "--quiet",
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    let entries = try manifest("rows.csv.manifest.jsonl")
    let sheet = try String(contentsOfFile: path("sheets/sheet-001.svg"), encoding: .utf8)
    let group = try NSRegularExpression(
      pattern: #"<g id="row-(\d+)" transform="translate\(([-0-9.]+) ([-0-9.]+)\) "#
        + #"scale\(([-0-9.]+) ([-0-9.]+)\)">"#)
    var boxes: [Int: (x: Double, y: Double, w: Double, h: Double)] = [:]
    for match in group.matches(in: sheet, range: NSRange(sheet.startIndex..., in: sheet)) {
      let numbers = (1...5).map { index -> Double in
        let range = Range(match.range(at: index), in: sheet).map { sheet[$0] } ?? ""
        return Double(range) ?? .nan
      }
      let row = Int(numbers[0])
      // The row's own SVG: its viewBox in millimeters.
      let own = try String(contentsOfFile: path("out/\(row).svg"), encoding: .utf8)
      let start = try XCTUnwrap(own.range(of: #"viewBox=""#))
      let end = try XCTUnwrap(own.range(of: "\"", range: start.upperBound..<own.endIndex))
      let box = own[start.upperBound..<end.lowerBound].split(separator: " ").compactMap {
        Double($0)
      }
      XCTAssertEqual(box.count, 4)
      let (sx, sy) = (numbers[3], numbers[4])
      // The row's user unit is the millimeter: the scale is 1 across and down, exactly.
      XCTAssertEqual(sx, 1, accuracy: 1e-12, "row \(row)")
      XCTAssertEqual(sx, sy, "row \(row)")
      let placed = (
        x: numbers[1] + box[0] * sx, y: numbers[2] + box[1] * sy, w: box[2] * sx, h: box[3] * sy
      )
      // The row's picture in pixels (the PNG's header), at 300 dpi.
      let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("out/\(row).png"))))
      func header(_ at: Int) -> Double {
        Double(png[at...(at + 3)].reduce(0) { $0 << 8 | Int($1) })
      }
      XCTAssertEqual(placed.w, header(16) * 25.4 / 300, accuracy: 0.001, "row \(row)'s width")
      XCTAssertEqual(placed.h, header(20) * 25.4 / 300, accuracy: 0.001, "row \(row)'s height")
      let entry = try XCTUnwrap(entries.first { $0.row == row })
      XCTAssertEqual(placed.x, try XCTUnwrap(entry.x), accuracy: 0.001)
      XCTAssertEqual(placed.y, try XCTUnwrap(entry.y), accuracy: 0.001)
      boxes[row] = placed
    }
    XCTAssertEqual(boxes.count, 4)
    // Rows 1 and 2 share the first shelf; 3 starts the second, and 4 follows it.
    let (one, two, three, four) = try (
      XCTUnwrap(boxes[1]), XCTUnwrap(boxes[2]), XCTUnwrap(boxes[3]), XCTUnwrap(boxes[4])
    )
    XCTAssertEqual(one.x, 5, accuracy: 0.001)
    XCTAssertEqual(one.y, 5, accuracy: 0.001)
    XCTAssertEqual(two.x - (one.x + one.w), 5, accuracy: 0.001, "gap between rows")
    XCTAssertEqual(two.y, 5, accuracy: 0.001)
    XCTAssertEqual(three.x, 5, accuracy: 0.001)
    XCTAssertEqual(three.y - (one.y + max(one.h, two.h)), 5, accuracy: 0.001, "gap between shelves")
    XCTAssertEqual(four.x - (three.x + three.w), 5, accuracy: 0.001)
    XCTAssertTrue(sheet.contains(#"width="120mm" height="100mm" viewBox="0 0 120 100""#))
  }

  // MARK: Progress ("Behaves like the Unix tools people know")

  /// Standard error a pipe (a log, `2>file`): whole lines only, no carriage return or escape
  /// sequence, the errors and the summary last.
  func testProgressOnAPipeIsPlainLines() throws {
    try write("rows.csv", "text,material\nAa,\nBb,nosuchmaterial\nCc,\n")
    let result = try run(["batch", "rows.csv", "--name", "out/{row}.png", "--size", "24"])
    XCTAssertEqual(result.status, 1, result.stderr)
    XCTAssertFalse(result.stderr.contains("\r"), result.stderr)
    XCTAssertFalse(result.stderr.contains("\u{1B}"), result.stderr)
    XCTAssertTrue(result.stderr.hasSuffix("\n"), result.stderr)
    let lines = result.stderr.split(separator: "\n")
    XCTAssertTrue(lines.contains { $0.hasPrefix("error: row 2: no material named") }, result.stderr)
    XCTAssertTrue(
      lines.last?.hasPrefix("batch: 2 rendered, 0 already there, 1 failed; manifest") ?? false,
      result.stderr)
  }

  /// Standard error a terminal (`script` gives the batch one): the progress line is erased
  /// before the summary, which starts on a clean line instead of after the bar.
  func testProgressOnATerminalIsClearedBeforeTheSummary() throws {
    let script = URL(fileURLWithPath: "/usr/bin/script")
    guard FileManager.default.isExecutableFile(atPath: script.path) else {
      throw XCTSkip("no script(1) here to give the batch a terminal")
    }
    try write("rows.csv", "text\nAa\nBb\n")
    let command = "'\(CLITests.binary.path)' batch rows.csv --name 'out/{row}.png' --size 24"
    let result = try CLIRunner.launch(script, ["-qec", command, "/dev/null"], in: directory)
    XCTAssertEqual(result.status, 0, result.stderr)
    let screen = String(decoding: result.stdout, as: UTF8.self)
    let summary = try XCTUnwrap(screen.range(of: "batch: 2 rendered"), screen)
    XCTAssertTrue(screen[..<summary.lowerBound].hasSuffix("\r\u{1B}[K"), screen.debugDescription)
    XCTAssertTrue(screen[..<summary.lowerBound].contains("] 2/2 rows"), screen.debugDescription)
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
