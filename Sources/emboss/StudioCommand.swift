import ArgumentParser
import CSupport
import Dispatch
import EmbossKit
import EmbossStudio
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
    let session = try StudioSession(
      materialPath: path,
      scene: .init(text: TextMask.unescaped(text), font: font, size: size), resources: resources)
    if let font { _ = try TextMask.font(font, resources: resources) }
    let server = StudioServer(session: session)
    let started = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var failure: (any Error)? = nil
    Task {
      do { try await server.start(port: UInt16(port)) } catch { failure = error }
      started.signal()
    }
    started.wait()
    if let failure { throw EmbossError("cannot start the studio: \(failure)") }
    try printLine("emboss studio: editing \(session.path)")
    try printLine("open \(server.url)")
    if let opener = ["xdg-open", "sensible-browser"].first(where: Self.onPath) {
      try printLine("(\(opener) '\(server.url)' opens it; Ctrl-C stops the server)")
    } else {
      try printLine("(Ctrl-C stops the server)")
    }
    // Ctrl-C (and SIGTERM, SIGHUP) stop the server cleanly, then the process exits 0. These
    // handlers own the signals: a save's staged file is removed here, not by a handler of
    // its own that would end the process by the signal.
    emboss_temp_leave_signals()
    for number in [SIGINT, SIGTERM, SIGHUP] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler {
        Task {
          await server.stop()
          emboss_temp_discard_all()
          printError("emboss studio: stopped")
          Foundation.exit(0)
        }
      }
      source.resume()
      Self.signalSources.append(source)
    }
    dispatchMain()
  }

  nonisolated(unsafe) static var signalSources: [any DispatchSourceSignal] = []

  static func onPath(_ name: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
    }
  }
}
