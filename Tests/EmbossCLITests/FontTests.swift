import Foundation
import XCTest

/// Fonts by name through fontconfig, against a configuration that lists only `Fonts/`
/// (`FONTCONFIG_FILE`), so the tests never depend on the machine's fonts.
final class FontTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-fonts-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let config = """
      <?xml version="1.0"?>
      <!DOCTYPE fontconfig SYSTEM "fonts.dtd">
      <fontconfig>
        <dir>\(Self.root.path)/Fonts</dir>
        <cachedir>\(directory.path)/cache</cachedir>
      </fontconfig>
      """
    try Data(config.utf8).write(to: directory.appendingPathComponent("fonts.conf"))
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()

  func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let result = try CLIRunner.launch(
      CLITests.binary, arguments, in: directory,
      adding: ["FONTCONFIG_FILE": directory.appendingPathComponent("fonts.conf").path])
    return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
  }

  func testFontsListsWhatFontconfigFinds() throws {
    let result = try run(["fonts"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      result.stdout, "DejaVu Sans  Bold  \(Self.root.path)/Fonts/DejaVuSans-Bold.ttf\n")
    let none = try run(["fonts", "Nothing Like It"])
    XCTAssertEqual(none.status, 1)
    XCTAssertEqual(none.stderr, "error: no installed font matches 'Nothing Like It'\n")
  }

  /// A pattern names the same face the path does: the same bytes.
  func testPatternRendersTheFileItNames() throws {
    XCTAssertEqual(try run(["render", "Ag", "--size", "30", "-o", "default.png"]).status, 0)
    let named = try run([
      "render", "Ag", "--size", "30", "--font", "DejaVu Sans:bold", "-o", "named.png",
    ])
    XCTAssertEqual(named.status, 0, named.stderr)
    XCTAssertEqual(
      try Data(contentsOf: directory.appendingPathComponent("default.png")),
      try Data(contentsOf: directory.appendingPathComponent("named.png")))
    let sheet = try run([
      "sheet", "--materials", "default", "--font", "DejaVu Sans", "-o", "sheet.png",
    ])
    XCTAssertEqual(sheet.status, 0, sheet.stderr)
  }

  /// Fontconfig answers every pattern with some font; a family that is not installed is an
  /// error (with a suggestion), not a surprise font.
  func testUnknownFamilyIsAnError() throws {
    let typo = try run(["render", "A", "--font", "DejaVu Sas:bold", "-o", "x.png"])
    XCTAssertEqual(typo.status, 1)
    XCTAssertEqual(
      typo.stderr,
      "error: no installed font family 'DejaVu Sas'; did you mean 'DejaVu Sans'? (emboss fonts lists them)\n"
    )
    let missing = try run(["render", "A", "--font", "Noto Serif", "-o", "x.png"])
    XCTAssertEqual(missing.status, 1)
    XCTAssertEqual(
      missing.stderr, "error: no installed font family 'Noto Serif' (emboss fonts lists them)\n")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
  }
}
