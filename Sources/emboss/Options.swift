import ArgumentParser
import EmbossKit
import Foundation

extension BitDepth: ExpressibleByArgument {
  /// `8` or `16`.
  public init?(argument: String) {
    self.init(rawValue: Int(argument) ?? 0)
  }
}

/// The material and `--set` values: every command that renders a material.
struct MaterialOptions: ParsableArguments {
  @Option(
    name: .long(.material), help: .option(.material), completion: .option(.material))
  var material: String = RenderOption.material.defaultValue ?? Resources.defaultMaterialName

  @Option(name: .long(.set), help: .option(.set))
  var set: [String] = []
}

/// The key light's direction: it changes the lit ball.
struct LightOptions: ParsableArguments {
  // Values may be negative without `=` (`--light-angle -30`): the next word is the value.
  @Option(
    name: .long(.lightAngle), parsing: .unconditional, help: .option(.lightAngle))
  var lightAngle: String?

  @Option(name: .long(.lightAltitude), parsing: .unconditional, help: .option(.lightAltitude))
  var lightAltitude: String?
}

/// The relief and how it is composited: flags of `render`.
struct ReliefOptions: ParsableArguments {
  @Option(name: .long(.radius), help: .option(.radius)) var radius: String?
  @Option(name: .long(.profile), help: .option(.profile)) var profile: ReliefProfile?
  @Option(name: .long(.reliefDepth), help: .option(.reliefDepth)) var reliefDepth: String?
  @Option(name: .long(.scale), help: .option(.scale)) var scale: String?
  @Option(name: .long(.soften), help: .option(.soften)) var soften: String?
  @Option(name: .long(.direction), help: .option(.direction)) var direction: ReliefDirection?
  @Option(name: .long(.background), help: .option(.background)) var background: String?
  @Option(
    name: .long(.backgroundImage), help: .option(.backgroundImage),
    completion: .option(.backgroundImage))
  var backgroundImage: String?
  @Option(
    name: .long(.backgroundFit), help: .option(.backgroundFit),
    completion: .option(.backgroundFit))
  var backgroundFit: String?
  @Option(name: .long(.shadingSize), help: .option(.shadingSize)) var shadingSize: String?
}

/// Threads.
struct ThreadOptions: ParsableArguments {
  @Option(help: "Threads to use (default: all cores). Output does not depend on it.")
  var threads: Int?

  func validate() throws {
    if let threads, threads < 1 || threads > 1024 {
      throw ValidationError("--threads must be in 1...1024, got \(threads)")
    }
  }

  var parallelism: Parallelism {
    threads.map { Parallelism(threads: $0) } ?? .allCores
  }
}

/// The lit-ball cache.
struct CacheOption: ParsableArguments {
  @Flag(
    name: .customLong("no-cache"),
    help: ArgumentHelp(
      "Do not read or write lit balls in the cache ($XDG_CACHE_HOME/emboss, else ~/.cache/emboss).",
      discussion: "The cache only saves time: output is the same byte for byte without it."))
  var noCache = false

  /// The cache to use: the user's, unless --no-cache.
  var ballCache: BallCache? { noCache ? nil : BallCache.user() }
}

/// PNG output options.
struct OutputOptions: ParsableArguments {
  @Option(
    name: .shortAndLong(.output), help: .option(.output), completion: .option(.output))
  var output: String

  @Option(name: .long(.format), help: .option(.format)) var format: PictureFormat?

  @Option(name: .long(.depth), help: .option(.depth))
  var depth: BitDepth = .eight

  @Option(name: .long(.compression), help: .option(.compression))
  var compression: String =
    RenderOption.compression.defaultValue ?? String(PNGCodec.defaultCompression)
}

/// Refuses an output path whose extension asks for a format this output cannot be (an
/// engraving or depth map is a PNG: `--engrave e.jpg` would be lossy).
func requirePNG(_ path: String?, option: String) throws {
  guard let path else { return }
  do {
    _ = try PictureFormat.forOutput(path, option: option, allowed: [.png])
  } catch {
    throw ValidationError(error.message)
  }
}

/// `--quiet`: warnings and notes are not printed (errors still are).
struct QuietOption: ParsableArguments {
  @Flag(
    name: [.customShort("q"), .long],
    help: "Print no warnings or notes on standard error (errors are still printed).")
  var quiet = false

  /// Prints `line` (a warning or a note) unless quiet.
  func say(_ line: String) {
    if !quiet { printError(line) }
  }
}

/// Shell completion for a picture path (read or written).
let pictureCompletion = CompletionKind.file(extensions: ["png", "jpg", "jpeg", "webp"])

/// Shell completion for `--font`: font files (a fontconfig name is typed).
let fontCompletion = CompletionKind.file(extensions: ["ttf", "otf", "ttc", "otc"])

/// Shell completion for a batch's manifest (JSON Lines).
let manifestCompletion = CompletionKind.file(extensions: ["jsonl"])

/// Shell completion for `--material`, `check` and `studio`: the preset names and the material files under the
/// word typed so far.
let materialCompletion = CompletionKind.custom { _, _, typed in
  var out = (try? Resources.locate().materialLibrary.presetNames) ?? []
  let folder =
    typed.range(of: "/", options: .backwards).map { String(typed[..<$0.upperBound]) } ?? ""
  let listed =
    (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
  for name in listed.sorted() where !name.hasPrefix(".") {
    var isDirectory: ObjCBool = false
    let path = folder + name
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
    if isDirectory.boolValue {
      out.append(path + "/")
    } else if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
      out.append(path)
    }
  }
  return out.filter { $0.hasPrefix(typed) }
}
