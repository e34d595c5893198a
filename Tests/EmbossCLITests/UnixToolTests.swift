import EmbossKit
import Foundation
import XCTest

/// Conventions people know from Unix tools ("Behaves like the Unix tools people know"): a
/// bounded error report, an empty file that means the defaults, an exit status documented
/// per command, shell completion for every path.
final class UnixToolTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("emboss-unix-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func run(_ arguments: [String]) throws -> CLIRunner.Result {
    try CLIRunner.run(arguments, in: directory)
  }

  func write(_ name: String, _ text: String) throws {
    try Data(text.utf8).write(to: directory.appendingPathComponent(name))
  }

  func read(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }

  /// Standard error's lines.
  func lines(_ result: CLIRunner.Result) -> [String] {
    result.stderr.split(separator: "\n").map(String.init)
  }

  // MARK: Error output limit

  /// A material repeating a key 5,000 times prints its first 20 problems and one line with
  /// the count of the rest, for `render` and `check`, with the usual exit status.
  func testTwentyErrorsThenACount() throws {
    try write("repeated.yaml", "relief:\n" + String(repeating: "  radius: 3\n", count: 5_000))
    for arguments in [
      ["render", "A", "--material", "repeated.yaml", "-o", "a.png"], ["check", "repeated.yaml"],
    ] {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 1, arguments.joined(separator: " "))
      let lines = lines(result)
      XCTAssertEqual(lines.count, 21, arguments.joined(separator: " "))
      XCTAssertEqual(lines.first, #"repeated.yaml:3:3: error: "relief.radius": duplicate key"#)
      XCTAssertEqual(lines[19], #"repeated.yaml:22:3: error: "relief.radius": duplicate key"#)
      XCTAssertEqual(lines.last, "4979 more errors not shown")
    }
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("a.png").path))
  }

  /// The limit holds for a whole run: `check` of three files with 10 problems each prints 20
  /// and counts 10, and still says which files are fine.
  func testTheLimitIsPerRun() throws {
    for name in ["a", "b", "c"] {
      try write("\(name).yaml", "relief:\n" + String(repeating: "  radius: 3\n", count: 11))
    }
    try write("fine.yaml", "relief:\n  radius: 3\n")
    let result = try run(["check", "a.yaml", "fine.yaml", "b.yaml", "c.yaml"])
    XCTAssertEqual(result.status, 1)
    let lines = lines(result)
    XCTAssertEqual(lines.count, 21, result.stderr)
    XCTAssertEqual(lines.filter { $0.hasPrefix("a.yaml:") }.count, 10)
    XCTAssertEqual(lines.filter { $0.hasPrefix("b.yaml:") }.count, 10)
    XCTAssertEqual(lines.last, "10 more errors not shown")
    XCTAssertEqual(String(decoding: result.stdout, as: UTF8.self), "fine.yaml: ok\n")
  }

  // MARK: An empty material file

  /// An empty material file sets nothing: it is the built-in defaults (docs/materials.md).
  ///
  /// So are files of blank lines or comments: each renders byte for byte what a file that
  /// restates one of the defaults renders, and `check` passes them. That is not the `default`
  /// preset.
  func testAnEmptyMaterialIsTheBuiltInDefaults() throws {
    try write("empty.yaml", "")
    try write("blank.yaml", "\n   \n\n")
    try write("comments.yaml", "# a material of my own\n\n# (nothing set yet)\n")
    try write("restated.yaml", "relief:\n  radius: \(Parameters.radius.value)\n")
    var pictures: [String: Data] = [:]
    for name in ["empty", "blank", "comments", "restated", "default"] {
      let material = name == "default" ? name : "\(name).yaml"
      let result = try run([
        "render", "Aa", "--size", "40", "--material", material, "-o", "\(name).png",
      ])
      XCTAssertEqual(result.status, 0, result.stderr)
      XCTAssertEqual(result.stderr, "", name)
      pictures[name] = try read("\(name).png")
    }
    for name in ["empty", "blank", "comments"] {
      XCTAssertEqual(pictures[name], pictures["restated"], name)
    }
    XCTAssertNotEqual(pictures["empty"], pictures["default"])
    let check = try run(["check", "empty.yaml", "blank.yaml", "comments.yaml", "/dev/null"])
    XCTAssertEqual(check.status, 0, check.stderr)
    XCTAssertEqual(
      String(decoding: check.stdout, as: UTF8.self),
      "empty.yaml: ok\nblank.yaml: ok\ncomments.yaml: ok\n/dev/null: ok\n")
  }

  // MARK: Shell completion

  /// `check` and `studio` complete what they take as `--material` does: preset names, material
  /// files (.yaml, .yml) and folders, nothing else.
  func testCheckAndStudioCompleteMaterials() throws {
    let script = try run(["--generate-completion-script", "bash"])
    XCTAssertEqual(script.status, 0, script.stderr)
    let text = String(decoding: script.stdout, as: UTF8.self)
    try write("mine.yaml", "")
    try write("notes.txt", "")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
    for command in ["check", "studio"] {
      let function = try XCTUnwrap(
        text.components(separatedBy: "\n_emboss_\(command)() {").dropFirst().first?
          .components(separatedBy: "\n}").first, command)
      XCTAssertTrue(
        function.contains("---completion \(command) -- positional@0"), "\(command): \(function)")
      // What the script asks the binary when Tab is pressed after `emboss COMMAND `.
      let offered = try run([
        "---completion", command, "--", "positional@0", "2", "0", "emboss", command, "",
      ])
      XCTAssertEqual(offered.status, 0, offered.stderr)
      let words = String(decoding: offered.stdout, as: UTF8.self).split(separator: "\n")
      for expected in ["gold", "default", "mine.yaml", "sub/"] {
        XCTAssertTrue(words.contains(Substring(expected)), "\(command): \(words)")
      }
      XCTAssertFalse(words.contains("notes.txt"), "\(command): \(words)")
    }
  }

  // MARK: Exit status, per command

  /// Every command, as typed (`batch merge`), from the command tree the binary describes
  /// (`--experimental-dump-help`, what the man page is made from), less ArgumentParser's
  /// own `help`.
  func commands() throws -> [[String]] {
    let dump = try run(["--experimental-dump-help"])
    XCTAssertEqual(dump.status, 0, dump.stderr)
    let root = try XCTUnwrap(
      (try JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any])?["command"]
        as? [String: Any])
    func walk(_ command: [String: Any], _ path: [String]) -> [[String]] {
      let children = (command["subcommands"] as? [[String: Any]]) ?? []
      return [path]
        + children.flatMap { child -> [[String]] in
          guard let name = child["commandName"] as? String, name != "help" else { return [] }
          return walk(child, path + [name])
        }
    }
    return walk(root, [])
  }

  /// Every command's --help ends its description with what its exit statuses mean, and the
  /// man page's EXIT STATUS section (`--manual-exit-status`, which install.sh puts there)
  /// lists every command.
  func testEveryCommandDocumentsItsExitStatus() throws {
    let commands = try commands()
    XCTAssertGreaterThan(commands.count, 12, "\(commands)")
    let manual = try run(["--manual-exit-status"])
    XCTAssertEqual(manual.status, 0, manual.stderr)
    let section = String(decoding: manual.stdout, as: UTF8.self)
    for command in commands {
      let help = try run(command + ["--help"])
      XCTAssertEqual(help.status, 0, help.stderr)
      let text = String(decoding: help.stdout, as: UTF8.self)
      XCTAssertTrue(
        text.contains("\nExit status: "), "emboss \(command.joined(separator: " ")) --help")
      if !command.isEmpty {
        XCTAssertTrue(
          section.contains("\n.It Cm \(command.joined(separator: " "))\n"),
          "EXIT STATUS lacks \(command)")
      }
    }
    XCTAssertTrue(section.contains("\n.It Cm diff\n0 when the bad fraction"), section)
    XCTAssertEqual(
      section.components(separatedBy: "\n").filter { $0.hasPrefix(".It") }.count, commands.count - 1
    )
  }
}
