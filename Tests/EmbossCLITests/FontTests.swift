import Foundation
import XCTest

/// Fonts by name and fallback fonts through fontconfig, against a configuration that lists
/// no fonts of the machine (`FONTCONFIG_FILE`): only the bundled `Fonts/`, which emboss adds
/// itself, so the tests never depend on the machine's fonts.
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
    let result = try run(["fonts", "DejaVu Sans"])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      result.stdout, "DejaVu Sans  Bold  \(Self.root.path)/Fonts/DejaVuSans-Bold.ttf\n")
    // Every bundled face, a collection's second face with its index.
    let all = try run(["fonts"])
    XCTAssertEqual(all.status, 0, all.stderr)
    for file in [
      "DejaVuSans-Bold.ttf", "NotoSerif-Bold.ttf", "NotoSansArabic-Bold.ttf",
      "NotoSansHebrew-Bold.ttf", "NotoSansDevanagari-Bold.ttf", "Inter-Variable.ttf",
      "Collection.ttc", "Collection.ttc (face 1)",
    ] {
      XCTAssertTrue(all.stdout.contains("\(Self.root.path)/Fonts/\(file)\n"), file)
    }
    // A variable font's named instances are listed by style, and a style pattern picks one.
    XCTAssertTrue(all.stdout.contains("Inter                 Black "), all.stdout)
    let arabic = try run(["fonts", ":lang=ar"])
    XCTAssertEqual(
      arabic.stdout.split(separator: "\n").map { String($0.prefix(16)) },
      ["DejaVu Sans     ", "Noto Sans Arabic"], arabic.stdout)
    let none = try run(["fonts", "Nothing Like It"])
    XCTAssertEqual(none.status, 1)
    XCTAssertEqual(none.stderr, "error: no installed font matches 'Nothing Like It'\n")
  }

  /// A Type 1 font is refused by name, and `fonts` does not list what cannot be used.
  ///
  /// Shaping reads OpenType tables, so a Type 1 font rendered no ink and the message said the
  /// text was empty. Needs a Type 1 font on the machine (Debian's fonts-urw-base35); skipped
  /// without one.
  func testType1FontsAreRefusedAndNotListed() throws {
    let folder = "/usr/share/fonts/X11/Type1"
    let type1 =
      (try? FileManager.default.contentsOfDirectory(atPath: folder))?
      .filter { $0.hasSuffix(".pfb") }.sorted() ?? []
    guard let first = type1.first else { throw XCTSkip("no Type 1 font in \(folder)") }
    let config = """
      <?xml version="1.0"?>
      <!DOCTYPE fontconfig SYSTEM "fonts.dtd">
      <fontconfig>
        <dir>\(folder)</dir>
        <cachedir>\(directory.path)/cache</cachedir>
      </fontconfig>
      """
    try Data(config.utf8).write(to: directory.appendingPathComponent("fonts.conf"))
    let listed = try run(["fonts"])
    XCTAssertEqual(listed.status, 0, listed.stderr)
    XCTAssertFalse(listed.stdout.contains(".pfb"), listed.stdout)
    XCTAssertTrue(listed.stdout.contains("DejaVuSans-Bold.ttf"), listed.stdout)
    let path = "\(folder)/\(first)"
    let render = try run(["render", "Hi", "--font", path, "-o", "x.png"])
    XCTAssertEqual(render.status, 1)
    XCTAssertEqual(
      render.stderr,
      "error: cannot use font '\(path)': it is a Type 1 font; emboss reads TrueType and OpenType fonts (.ttf, .otf, .ttc)\n"
    )
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
    let missing = try run(["render", "A", "--font", "Liberation Serif", "-o", "x.png"])
    XCTAssertEqual(missing.status, 1)
    XCTAssertEqual(
      missing.stderr,
      "error: no installed font family 'Liberation Serif' (emboss fonts lists them)\n")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
  }

  /// A style the family lacks is an error with a suggestion too: fontconfig would render
  /// another face of the family without a word.
  func testUnknownStyleIsAnError() throws {
    let typo = try run(["render", "A", "--font", "DejaVu Sans:style=Boldd", "-o", "x.png"])
    XCTAssertEqual(typo.status, 1)
    XCTAssertEqual(
      typo.stderr,
      "error: no style 'Boldd' in the font family 'DejaVu Sans'; did you mean 'Bold'?\n")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
    let right = try run(["render", "A", "--font", "DejaVu Sans:style=bold", "-o", "x.png"])
    XCTAssertEqual(right.status, 0, right.stderr)
  }

  func data(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }

  /// A character the font lacks comes from the best font that has it (here the bundled Noto
  /// Sans Devanagari), and the fallback is named.
  ///
  /// The glyphs are the ones that font sets on
  /// its own: the same mask as the word rendered in it.
  func testFallbackFontSetsWhatTheFontLacks() throws {
    let word = "नमस्ते"
    let fallback = try run(["render", word, "--save-stages", "a", "-o", "a.png"])
    XCTAssertEqual(fallback.status, 0, fallback.stderr)
    XCTAssertEqual(
      fallback.stderr,
      "note: '\(word)' set in fallback font Noto Sans Devanagari Bold (\(Self.root.path)/Fonts/NotoSansDevanagari-Bold.ttf)\n"
    )
    let direct = try run(
      [
        "render", word, "--font", "Fonts/NotoSansDevanagari-Bold.ttf", "--save-stages", "b", "-o",
        "b.png",
      ].map { $0.hasPrefix("Fonts/") ? Self.root.path + "/" + $0 : $0 })
    XCTAssertEqual(direct.status, 0, direct.stderr)
    XCTAssertEqual(direct.stderr, "")
    XCTAssertEqual(try data("a/mask.png"), try data("b/mask.png"))
    // Text the font covers never asks for a fallback.
    let plain = try run(["render", "Hi", "-o", "c.png"])
    XCTAssertEqual(plain.stderr, "")
  }

  /// `--no-fallback` keeps the chosen font alone: every missing character is named, with the
  /// font, and nothing is written.
  func testNoFallbackNamesEveryMissingCharacter() throws {
    let result = try run(["render", "Hi नम ༀ", "--no-fallback", "-o", "x.png"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.stderr,
      "error: font 'DejaVu Sans Bold' (\(Self.root.path)/Fonts/DejaVuSans-Bold.ttf) has no glyphs for 'न' (U+0928), 'म' (U+092E), 'ༀ' (U+0F00) (fallback fonts are off)\n"
    )
    // With fallback, only what no font has is named.
    let none = try run(["render", "Hi नम ༀ", "-o", "x.png"])
    XCTAssertEqual(none.status, 1)
    XCTAssertEqual(
      none.stderr,
      "error: font 'DejaVu Sans Bold' (\(Self.root.path)/Fonts/DejaVuSans-Bold.ttf) has no glyph for 'ༀ' (U+0F00); no installed font has it either (emboss fonts lists the fonts)\n"
    )
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
  }

  /// Typography options reach the render: features, variations, direction, face index;
  /// their mistakes are argument errors or located font errors.
  func testTypographyOptions() throws {
    let serif = Self.root.path + "/Fonts/NotoSerif-Bold.ttf"
    XCTAssertEqual(try run(["render", "office", "--font", serif, "-o", "liga.png"]).status, 0)
    XCTAssertEqual(
      try run(["render", "office", "--font", serif, "--features", "liga=0", "-o", "no.png"])
        .status, 0)
    XCTAssertNotEqual(try data("liga.png"), try data("no.png"))
    let named = try run([
      "render", "office", "--font", "Noto Serif:bold", "--features", "liga=0", "-o", "named.png",
    ])
    XCTAssertEqual(named.status, 0, named.stderr)
    XCTAssertEqual(try data("named.png"), try data("no.png"))

    let inter = Self.root.path + "/Fonts/Inter-Variable.ttf"
    XCTAssertEqual(
      try run(["render", "Ink", "--font", inter, "--variations", "wght=900", "-o", "w.png"]).status,
      0)
    // The named instance Black is wght=900: the same picture.
    let black = try run(["render", "Ink", "--font", "Inter:style=Black", "-o", "black.png"])
    XCTAssertEqual(black.status, 0, black.stderr)
    XCTAssertEqual(try data("black.png"), try data("w.png"))
    let badAxis = try run([
      "render", "Ink", "--font", inter, "--variations", "wdth=80", "-o", "w.png",
    ])
    XCTAssertEqual(badAxis.status, 1)
    XCTAssertEqual(
      badAxis.stderr,
      "error: font 'Inter' has no variation axis 'wdth' (its axes: wght 100...900)\n")
    let syntax = try run(["render", "Ink", "--features", "liga=", "-o", "w.png"])
    XCTAssertEqual(syntax.status, 64)
    XCTAssertTrue(syntax.stderr.contains("'liga=' is not a font feature"), syntax.stderr)

    let ttc = Self.root.path + "/Fonts/Collection.ttc"
    let face1 = try run(["render", "שלום", "--font", ttc, "--face-index", "1", "-o", "t.png"])
    XCTAssertEqual(face1.status, 0, face1.stderr)
    let face5 = try run(["render", "שלום", "--font", ttc, "--face-index", "5", "-o", "t.png"])
    XCTAssertEqual(face5.status, 1)
    XCTAssertEqual(
      face5.stderr,
      "error: font '\(ttc)' has 2 faces (index 0...1); there is no face 5\n")

    // An RTL paragraph puts the Latin word at the other end: a different picture.
    XCTAssertEqual(try run(["render", "ab שלום", "-o", "auto.png"]).status, 0)
    XCTAssertEqual(
      try run(["render", "ab שלום", "--text-direction", "rtl", "-o", "rtl.png"]).status, 0)
    XCTAssertNotEqual(try data("auto.png"), try data("rtl.png"))
  }
}
