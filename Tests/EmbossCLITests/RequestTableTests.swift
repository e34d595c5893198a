import ArgumentParser
import EmbossKit
import Foundation
import XCTest

@testable import emboss

/// The command line's render options come from the library's table (`RenderOption`): every
/// option of the table is a flag whose value reaches the request, and the help people know
/// is unchanged.
final class RequestTableTests: XCTestCase {
  /// Three command lines that, together, give every option of the table (some exclude
  /// others: text, a text file or a mask; size, height or cap height; depth or scale).
  static let commandLines: [[String]] = [
    [
      "Hi", "-o", "x.png", "--format", "png", "--depth", "16", "--compression", "9", "--font",
      "DejaVu Sans", "--face-index", "0", "--features", "liga=0", "--variations", "wght=700",
      "--text-direction", "ltr", "--text-case", "upper", "--no-fallback", "--size", "20", "--dpi",
      "254", "--align",
      "left", "--letter-spacing", "-1", "--line-height", "1.2", "--padding", "4", "--canvas",
      "300x100", "--material", "gold", "--set", "surface.shininess=60", "--set",
      "surface.ambient=0.1", "--radius", "3", "--profile", "linear", "--relief-depth", "1.5x",
      "--soften", "1", "--direction", "lowered", "--background", "#202020", "--shading-size",
      "128", "--light-angle", "-30", "--light-altitude", "40", "--shading-image", "ball.png",
      "--background-image", "photo.jpg", "--background-fit", "tile",
      "--engrave", "e.png", "--dither", "atkinson", "--threshold", "100", "--no-serpentine",
      "--gamma", "2.2", "--negative", "--mirror", "--dot-width", "0.1mm", "--depth-map", "d.png",
      "--depth-map-bits", "8", "--depth-map-invert", "--svg", "c.svg", "--cut-offset", "-0.5mm",
      "--cut-join", "miter", "--cut-outer", "--cut-min-size", "1mm", "--cut-color", "#00ff00",
      "--cut-width", "0.2mm", "--ink-vectors", "score", "--cut-region", "5,5", "--mesh", "m.3mf",
      "--mesh-height", "1mm", "--mesh-base", "2mm", "--mesh-wall", "0.5mm", "--mesh-plate",
      "rect", "--mesh-split", "--save-stages", "stages", "--max-pixels", "1000000",
      "--max-memory", "1G",
    ],
    [
      "--mask", "logo.png", "--mask-mode", "coverage", "--mask-threshold", "100", "--invert-mask",
      "-o", "y.png", "--height", "50", "--scale", "5",
    ],
    ["--text-file", "t.txt", "--cap-height", "30", "-o", "z.png"],
  ]

  func testEveryTableOptionIsAFlagThatReachesTheRequest() throws {
    var given: [String: [String]] = [:]
    for line in Self.commandLines {
      let command = try RenderCommand.parse(line)
      let request = try command.request()
      for value in request.values { given[value.option.key, default: []].append(value.value) }
      // Each flag given with a value has it in the request.
      var index = 0
      while index < line.count {
        let word = line[index]
        if word.hasPrefix("--"), let option = RenderOption.named(String(word.dropFirst(2))),
          option.kind != .flag
        {
          XCTAssertTrue(
            request.values.contains(RenderRequest.Value(option, line[index + 1])),
            "\(word) \(line[index + 1]) is not in the request")
          index += 1
        }
        index += 1
      }
    }
    let missing = RenderOption.all.map(\.key).filter { given[$0] == nil }
    XCTAssertEqual(missing, [], "table options the command line does not give")
    XCTAssertEqual(given["serpentine"]?.first, "false", "--no-serpentine")
    XCTAssertEqual(given["mirror"]?.first, "true")
    XCTAssertEqual(given["set"]?.suffix(2), ["surface.shininess=60", "surface.ambient=0.1"])
  }

  /// The command's options that are not the table's are the run's own (threads, messages,
  /// watching, the cache) and the text.
  func testEveryRenderFlagIsInTheTableOrTheRunsOwn() throws {
    let own: Set<String> = [
      "threads", "no-cache", "quiet", "watch", "watch-limit", "timings", "help",
    ]
    let help = RenderCommand.helpMessage(includeHidden: true, columns: 10_000)
    for line in help.split(separator: "\n") {
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("-") else { continue }
      for name in trimmed.prefix(while: { $0 != " " }).split(whereSeparator: { ",/".contains($0) })
      where name.hasPrefix("--") {
        var key = String(name.dropFirst(2))
        if key.hasPrefix("no-"), RenderOption.named(key) == nil, !own.contains(key) {
          key = String(key.dropFirst(3))
        }
        XCTAssertTrue(
          RenderOption.named(key) != nil || own.contains(key), "--\(key) is in no table")
      }
    }
  }

  /// The help people script against, as it was before the table (ArgumentParser's layout at
  /// 80 columns).
  func testHelpIsUnchanged() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures")
    for (command, file) in [
      (RenderCommand.self as any ParsableCommand.Type, "render-help.txt"),
      (EngraveCommand.self, "engrave-help.txt"), (ShadingCommand.self, "shading-help.txt"),
    ] {
      let expected = try String(
        contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)
      let name = command.configuration.commandName ?? ""
      let help = Emboss.helpMessage(for: command, columns: 80)
      XCTAssertEqual(help + "\n", expected, name)
    }
  }

  /// The same request from the command line and from its JSON.
  func testCommandLineRequestRoundTripsThroughJSON() throws {
    for line in Self.commandLines {
      let request = try RenderCommand.parse(line).request()
      let json = try JSONEncoder().encode(request)
      XCTAssertEqual(try JSONDecoder().decode(RenderRequest.self, from: json), request)
    }
  }

  /// A bad value is an argument error naming the flag.
  func testBadValuesNameTheFlag() throws {
    for (line, message) in [
      (["A", "-o", "x.png", "--size", "0"], "--size must be in 1...10000 pixels, got 0"),
      (["A", "-o", "x.png", "--size", "2mm"], "--size 2mm is a physical length: give --dpi too"),
      (["A", "-o", "x.png", "--cut-color", "nope"], "--cut-color nope:"),
      (
        ["A", "-o", "x.png", "--cut-color", "#ff000080"],
        "--cut-color #ff000080: a cut line's color is opaque"
      ),
      (["A", "-o", "x.jpg", "--depth", "16"], "--depth 16 needs a PNG output"),
      (["A", "-o", "x.png", "--mesh-base", "1"], "need --mesh"),
      (["A", "-o", "x.png", "--engrave", "x.png"], "x.png"),
    ] {
      XCTAssertThrowsError(try RenderCommand.parse(line)) { error in
        let text = RenderCommand.message(for: error)
        XCTAssertTrue(text.contains(message), "\(line): \(text)")
      }
    }
  }
}
