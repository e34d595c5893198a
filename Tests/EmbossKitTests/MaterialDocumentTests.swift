import EmbossMaterials
import Foundation
import XCTest

/// Editing a material file's text value by value: only the changed value's characters
/// change, comments and layout stay, and every edit is checked by parsing again.
final class MaterialDocumentTests: XCTestCase {
  let gold = """
    # Polished gold.
    description: Polished yellow gold  # shown in listings

    surface:
      base: "#ffd27a"
      shininess: 300   # sharp
      metallic: 1

    lights:
      # The key light.
      - angle: 125
        altitude: 35
        color: "#fff2d8"
      # A fill.
      - kind: omni
        position: [-1, 1, 1.5]
        intensity: 0.4

    relief:
      radius: 10
      profile: round

    """

  /// The lines that differ between two texts (same line count).
  func changedLines(_ a: String, _ b: String) -> [String] {
    let x = a.components(separatedBy: "\n")
    let y = b.components(separatedBy: "\n")
    XCTAssertEqual(x.count, y.count)
    return zip(x, y).filter { $0 != $1 }.map(\.1)
  }

  func testReplacingAScalarKeepsItsCommentAndEverythingElse() throws {
    var document = MaterialDocument(text: gold)
    try document.set("surface.shininess", to: "40")
    XCTAssertEqual(changedLines(gold, document.text), ["  shininess: 40   # sharp"])
    try document.set("description", to: "Rose gold")
    XCTAssertEqual(
      document.text.components(separatedBy: "\n")[1], "description: Rose gold  # shown in listings")
    try document.set("surface.base", to: "\"#ff0000\"")
    XCTAssertTrue(document.text.contains("  base: \"#ff0000\"\n"))
  }

  func testListItemValuesAndFlowVectors() throws {
    var document = MaterialDocument(text: gold)
    try document.set("lights[0].angle", to: "90")
    try document.set("lights[1].position", to: "[2, 0.5, 3]")
    XCTAssertEqual(
      changedLines(gold, document.text), ["  - angle: 90", "    position: [2, 0.5, 3]"])
    try document.set("lights[1].position", to: "[2, 0.5, 4]")
    XCTAssertTrue(document.text.contains("    position: [2, 0.5, 4]\n"))
  }

  func testAMissingKeyIsAddedInTableOrderWithTheSectionsIndentation() throws {
    var document = MaterialDocument(text: gold)
    try document.set("surface.ambient", to: "0.05")
    // ambient comes after shininess and before metallic in the parameter table.
    XCTAssertTrue(
      document.text.contains("  shininess: 300   # sharp\n  ambient: 0.05\n  metallic: 1\n"),
      document.text)
    try document.set("lights[0].intensity", to: "2")
    XCTAssertTrue(
      document.text.contains("    color: \"#fff2d8\"\n    intensity: 2\n"), document.text)
    try document.set("environment.intensity", to: "0.5")
    XCTAssertTrue(document.text.contains("environment:\n  intensity: 0.5\n"), document.text)
    XCTAssertTrue(document.text.hasPrefix("# Polished gold.\n"))
  }

  func testListItemsAreRemovedMovedAndAddedWithTheirComments() throws {
    var document = MaterialDocument(text: gold)
    try document.moveItem(of: "lights", from: 1, to: 0)
    XCTAssertTrue(
      document.text.contains(
        "lights:\n  # A fill.\n  - kind: omni\n    position: [-1, 1, 1.5]\n    intensity: 0.4\n  # The key light.\n  - angle: 125\n"
      ), document.text)
    try document.removeItem(of: "lights", at: 0)
    XCTAssertFalse(document.text.contains("A fill"))
    XCTAssertTrue(document.text.contains("relief:\n  radius: 10\n"))
    try document.appendItem(
      of: "lights", fields: [.init("kind", "distant"), .init("position", "[0, 0, 1]")])
    XCTAssertTrue(
      document.text.contains(
        "    color: \"#fff2d8\"\n  - kind: distant\n    position: [0, 0, 1]\n"),
      document.text)
  }

  func testAnInheritedListIsWrittenAsBlocks() throws {
    var document = MaterialDocument(text: "extends: gold  # keep\nrelief:\n  radius: 12\n")
    try document.writeList(
      "lights", items: [[.init("kind", "omni"), .init("position", "[1, 1, 1]")]])
    XCTAssertEqual(
      document.text,
      "extends: gold  # keep\nlights:\n  - kind: omni\n    position: [1, 1, 1]\nrelief:\n  radius: 12\n"
    )
  }

  func testEditsThatCannotBeMadeSafelyThrowAndChangeNothing() {
    var document = MaterialDocument(text: "surface: {base: \"#ffffff\"}\ndescription: |\n  long\n")
    XCTAssertThrowsError(try document.set("description", to: "x"))
    XCTAssertThrowsError(try document.set("surface.shininess", to: "[1"))
    XCTAssertThrowsError(try document.set("bad..path", to: "1"))
    XCTAssertThrowsError(try document.removeItem(of: "lights", at: 0))
    XCTAssertEqual(document.text, "surface: {base: \"#ffffff\"}\ndescription: |\n  long\n")
    // A flow mapping gets the key inside its braces.
    XCTAssertNoThrow(try document.set("surface.shininess", to: "64"))
    XCTAssertTrue(document.text.hasPrefix("surface: {base: \"#ffffff\", shininess: 64}\n"))
  }

  func testEveryPresetTakesAnEditOfEveryScalarItHolds() throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Materials")
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
    where name.hasSuffix(".yaml") {
      let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
      var document = MaterialDocument(text: text)
      for path in ["surface.shininess", "relief.radius", "lights[0].intensity"] {
        XCTAssertNoThrow(try document.set(path, to: "7"), "\(name) \(path)")
      }
      // Each edit changed lines only where the value is, or added one line.
      XCTAssertLessThanOrEqual(
        document.text.components(separatedBy: "\n").count,
        text.components(separatedBy: "\n").count + 5, name)
    }
  }
}
