import ArgumentParser
import CSupport
import EmbossKit
import Foundation

@main
struct Emboss: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "emboss",
    abstract: "Render text embossed in metal, plastic or wood, as a PNG.",
    discussion: """
      Examples:
        emboss render "Hello" -o hello.png
        emboss render "Gold" --material Materials/default.yaml --profile linear -o gold.png
        emboss shading -o ball.png
      """ + "\n\n" + ExitStatus.paragraph(),
    version: "0.1.0",
    subcommands: [
      RenderCommand.self, ShadingCommand.self, SheetCommand.self, MaterialsCommand.self,
      CheckCommand.self, ParametersCommand.self, FontsCommand.self, DiffCommand.self,
      EngraveCommand.self, BatchCommand.self, StudioCommand.self,
      BenchCommand.self,
    ]
  )

  /// Prints the man page's EXIT STATUS section, which install.sh puts in place of the
  /// generic one swift-argument-parser's generate-manual plugin writes.
  @Flag(name: .customLong("manual-exit-status"), help: .private)
  var manualExitStatus = false

  /// `emboss` alone prints its help, as a command with subcommands does.
  func run() throws {
    guard manualExitStatus else { throw CleanExit.helpRequest(self) }
    try printLine(ExitStatus.manual)
  }

  /// Runtime failures print one `error:` line (or one per diagnostic) and exit 1; argument
  /// errors go through ArgumentParser and exit 64.
  static func main() {
    emboss_keep_freed_memory()
    // A reader that goes away makes writes fail with EPIPE, which ends the command quietly
    // (exit 0) instead of killing the process.
    signal(SIGPIPE, SIG_IGN)
    // A standard stream closed by the caller (`>&-`) would let the next file opened take its
    // number, and "standard output" would be that file. Park /dev/null there, read-only, so
    // writes to it fail (EBADF) and no file can.
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
      _ = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }
    do {
      // `--padding -5`: the parser would take `-5` for an option and say the value is missing.
      var command = try parseAsRoot(
        RawArguments.joiningNegativeValues(Array(CommandLine.arguments.dropFirst())))
      // Invalid UTF-8 reaches the commands as U+FFFD (replacement glyphs in a render): an
      // argument error naming the byte.
      if let bad = RawArguments.firstInvalid() {
        let what =
          (command as? RenderCommand)?.text == bad.decoded ? "the text" : "argument \(bad.index)"
        printError(
          "error: \(what) is not valid UTF-8: byte 0x\(String(bad.byte, radix: 16, uppercase: true)) at byte offset \(bad.offset) (\"\(bad.decoded)\")"
        )
        Foundation.exit(64)
      }
      try command.run()
    } catch is StandardStream.OutputClosed {
      // The reader of standard output went away (`emboss fonts | head -1`): not an error.
      Foundation.exit(0)
    } catch let error as EmbossError {
      fail(error.commandLineMessage)
    } catch let error as MaterialError {
      for line in error.lines { printError(line) }
      Foundation.exit(1)
    } catch {
      exit(withError: error)
    }
  }

  /// Prints `error: message` and exits 1.
  ///
  /// The message is made and let go within the print: a string still held when the process
  /// exits would be reported by LeakSanitizer as leaked (it cannot see the pointer inside a
  /// Swift string).
  static func fail(_ message: @autoclosure () -> String) -> Never {
    printError("error: \(message())")
    Foundation.exit(1)
  }
}

func printError(_ line: String) {
  StandardStream.writeError(line)
}

/// A line on standard output; a closed or full stream or a reader that went away is an error
/// (Swift's `print` would drop the line and exit 0).
func printLine(_ line: String, terminator: String = "\n") throws {
  try StandardStream.writeOutput(Data((line + terminator).utf8))
}
