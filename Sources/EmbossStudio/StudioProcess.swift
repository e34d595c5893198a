import CSupport
import Dispatch
import EmbossKit
import Foundation

extension StudioServer {
  /// Edits the material file at `materialPath` in the browser until Ctrl-C (or SIGTERM,
  /// SIGHUP), then exits 0: the studio's process, started by `emboss studio` (the
  /// `emboss-studio` executable, so that no other command loads the HTTP library and what it
  /// links).
  ///
  /// Prints the page's address on standard output. Throws (before serving) when the
  /// material file cannot be edited, `font` is not a font, or no port can be listened on.
  public static func serve(
    materialPath: String, scene: StudioSession.Scene, resources: Resources, port: UInt16
  ) throws -> Never {
    let session = try StudioSession(
      materialPath: materialPath, scene: scene, resources: resources)
    if let font = scene.font { _ = try TextMask.font(font, resources: resources) }
    let server = StudioServer(session: session)
    let started = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var failure: (any Error)? = nil
    Task {
      do { try await server.start(port: port) } catch { failure = error }
      started.signal()
    }
    started.wait()
    if let failure { throw EmbossError("cannot start the studio: \(failure)") }
    try printLine("emboss studio: editing \(session.path)")
    try printLine("open \(server.url)")
    if let opener = ["xdg-open", "sensible-browser"].first(where: onPath) {
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
          StandardStream.writeError("emboss studio: stopped")
          Foundation.exit(0)
        }
      }
      source.resume()
      signalSources.append(source)
    }
    dispatchMain()
  }

  nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []

  private static func printLine(_ line: String) throws {
    try StandardStream.writeOutput(Data((line + "\n").utf8))
  }

  private static func onPath(_ name: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
    }
  }
}
