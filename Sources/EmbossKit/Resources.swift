import Foundation

/// Finds the files emboss ships: `Fonts/` (the default font) and `Materials/` (presets).
///
/// Search order: `$EMBOSS_RESOURCES`; `<prefix>/share/emboss` next to an installed binary
/// (`<prefix>/bin/emboss`); the executable's directory and the five above it (so
/// `.build/release/emboss` finds the checkout it was built from); the source checkout this
/// library was compiled from.
public struct Resources: Sendable {
  /// The folder that holds `Fonts/` and `Materials/`.
  public let root: String

  /// The bundled font used when none is given.
  public static let defaultFontName = "DejaVuSans-Bold.ttf"
  /// The preset used when no material is given.
  public static let defaultMaterialName = "default"

  /// Resources in `root`, which is not checked (see `locate`).
  public init(root: String) {
    self.root = root
  }

  /// The bundled fonts' folder.
  public var fontsDirectory: String { root + "/Fonts" }
  /// The presets' folder.
  public var materialsDirectory: String { root + "/Materials" }
  /// The default font's file.
  public var defaultFontPath: String { fontsDirectory + "/" + Self.defaultFontName }
  /// The presets, by name.
  public var materialLibrary: MaterialLibrary { MaterialLibrary(directories: [materialsDirectory]) }

  /// The first candidate root holding both `Fonts/` and `Materials/`.
  public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment)
    throws -> Resources
  {
    var candidates: [String] = []
    if let explicit = environment["EMBOSS_RESOURCES"], !explicit.isEmpty {
      candidates.append(explicit)
    }
    let executable = URL(fileURLWithPath: executablePath()).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    candidates.append(
      directory.deletingLastPathComponent().appendingPathComponent("share/emboss").path)
    for _ in 0..<6 {
      candidates.append(directory.path)
      directory = directory.deletingLastPathComponent()
    }
    // Sources/EmbossKit/Resources.swift -> the package root.
    candidates.append(
      URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path)
    for candidate in candidates {
      let resources = Resources(root: candidate)
      if FileManager.default.fileExists(atPath: resources.materialsDirectory + "/default.yaml"),
        FileManager.default.fileExists(atPath: resources.defaultFontPath)
      {
        return resources
      }
    }
    throw EmbossError(
      "cannot find emboss's Fonts/ and Materials/ folders; set EMBOSS_RESOURCES to the folder that holds them"
    )
  }

  /// The running executable's path (`/proc/self/exe`, else the command's first word).
  public static func executablePath() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments.first ?? "."
  }
}
