import ArgumentParser
import EmbossKit
import Foundation

struct StudioCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "studio",
    abstract:
      "Edit a material live in the browser: sliders, draggable lights, saved back to the file.",
    discussion: """
      Starts a server on this machine only (127.0.0.1 and ::1) and prints the page's address,
      which carries a per-run token. Every control comes from the parameter table; a light's
      handle on the lit ball can be dragged; Save writes back only the values you changed,
      keeping the file's comments and layout, and only when the file stays valid. A file that
      does not exist yet starts a new material (extends: default). Ctrl-C stops the server.

      Example:
        emboss studio Materials/gold.yaml --text Gold
      """ + "\n\n" + ExitStatus.paragraph("studio"))

  @Argument(
    help: ArgumentHelp(
      "The material file to edit, or a preset name (its file in Materials/ is edited).",
      valueName: "material"), completion: materialCompletion)
  var material: String = Resources.defaultMaterialName

  @Option(help: ArgumentHelp("The preview's text.", valueName: "text"))
  var text: String = "Emboss"

  @Option(
    help: ArgumentHelp(
      "The preview's font: a file, or a fontconfig name (default: the bundled font).",
      valueName: "file|name"), completion: fontCompletion)
  var font: String?

  @Option(help: ArgumentHelp("The preview's text size in pixels (8...1000).", valueName: "px"))
  var size: Float = TextStyle.referenceSize

  @Option(help: ArgumentHelp("The port to listen on (0: any free port).", valueName: "port"))
  var port: Int = 0

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
    guard size.isFinite, (8...1000).contains(size) else {
      throw ValidationError("--size must be 8...1000 pixels")
    }
    guard !text.isEmpty else { throw ValidationError("--text must not be empty") }
  }

  func run() throws {
    let resources = try Resources.locate()
    let library = resources.materialLibrary
    // A path edits that file (new if missing); a bare name edits the preset's file.
    let isPath = material.contains("/") || material.hasSuffix(".yaml")
    guard let path = isPath ? material : library.presetPath(for: material) else {
      throw EmbossError(
        "no material named '\(material)' (presets: \(library.presetNames.joined(separator: ", ")))"
      )
    }
    // The studio's own process takes this one's place (the same process id, signals and
    // standard streams): emboss itself never loads the HTTP library.
    let server = try Self.serverExecutable()
    let arguments =
      [server, "--serve", path, text, "\(size)", "\(port)"] + (font.map { [$0] } ?? [])
    let argv = arguments.map { strdup($0) } + [nil]
    execv(server, argv)
    let reason = String(cString: strerror(errno))
    for pointer in argv { free(pointer) }
    throw EmbossError("cannot start the studio (\(server)): \(reason)")
  }

  /// `emboss-studio`: beside this executable (a build folder), or in `../libexec/emboss`
  /// (an install).
  static func serverExecutable() throws -> String {
    let directory = URL(fileURLWithPath: Resources.executablePath()).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    let candidates = [
      directory.appendingPathComponent("emboss-studio").path,
      directory.deletingLastPathComponent().appendingPathComponent("libexec/emboss/emboss-studio")
        .path,
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      throw EmbossError(
        "cannot find the studio's server: none of \(candidates.joined(separator: ", ")) (install.sh installs it; `swift build` builds it beside emboss)"
      )
    }
    return found
  }
}
