import ArgumentParser
import EmbossKit
import Foundation

struct MaterialsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "materials", abstract: "List the material presets with a line about each.",
    discussion: ExitStatus.paragraph("materials"))

  func run() throws {
    let library = try Resources.locate().materialLibrary
    let names = library.presetNames
    let width = names.map(\.count).max() ?? 0
    for name in names {
      let padded = name.padding(toLength: width, withPad: " ", startingAt: 0)
      do {
        let material = try MaterialLoader.load(name, library: library)
        // One line each, whatever the file holds: line breaks, tabs and escape codes (which
        // a terminal would act on) are shown as spaces.
        let shown = String(
          String.UnicodeScalarView(
            material.description.unicodeScalars.map {
              $0.properties.generalCategory == .control ? " " : $0
            }))
        try printLine("\(padded)  \(shown)")
      } catch {
        try printLine("\(padded)  (invalid: run 'emboss check \(name)')")
      }
    }
  }
}

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Validate material files without rendering.",
    discussion:
      "Prints each problem as file:line:column: error: ..., and 'FILE: ok' for valid files. After \(DiagnosticSink.limit) problems (in a file, or in all the files together) one line says how many more there are.\n\n"
      + ExitStatus.paragraph("check")
  )

  @Argument(
    help: ArgumentHelp("Material files or preset names.", valueName: "file"),
    completion: materialCompletion)
  var files: [String]

  func validate() throws {
    guard !files.isEmpty else { throw ValidationError("give at least one material file") }
  }

  func run() throws {
    let library = try Resources.locate().materialLibrary
    var failed = false
    // Problems still to print in this run, and those counted instead.
    var room = DiagnosticSink.limit
    var omitted = 0
    for file in files {
      guard let problems = MaterialLoader.problems(file, library: library) else {
        try printLine("\(file): ok")
        continue
      }
      failed = true
      let shown = problems.diagnostics.prefix(room)
      for diagnostic in shown { printError(diagnostic.description) }
      room -= shown.count
      omitted += problems.diagnostics.count - shown.count + problems.omitted
    }
    if omitted > 0 { printError(MaterialError.omittedLine(omitted)) }
    if failed { throw ExitCode(1) }
  }
}

struct SheetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sheet",
    abstract: "Render a contact sheet: the same text in every material, labelled.",
    discussion: ExitStatus.paragraph("sheet"))

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Output picture: .png, or .jpg / .webp (chosen by the extension); - for PNG on standard output.",
      valueName: "file"), completion: pictureCompletion)
  var output: String

  @Option(help: "The sample text.")
  var text: String = "Aa"

  @Option(help: "Text size in pixels.")
  var size: Float = 120

  @Option(help: "Tiles a row (default: 5; with --lights, one per light angle).")
  var columns: Int?

  @Flag(
    help:
      "One material (the first of --materials, or the default) under a grid of light directions: its brightest light moved to every 60 degrees, at 25 and 55 degrees above the surface."
  )
  var lights = false

  @Option(
    name: .customLong("set"),
    help: ArgumentHelp(
      "Set a material key in every tile, as in a material file (repeatable).",
      valueName: "key=value"))
  var settings: [String] = []

  @Option(
    parsing: .upToNextOption,
    help: ArgumentHelp("Materials to show (default: every preset).", valueName: "name|file"),
    completion: materialCompletion)
  var materials: [String] = []

  @Option(
    help: ArgumentHelp(
      "A font file, or an installed font by fontconfig pattern such as 'DejaVu Serif:bold' (default: the bundled font).",
      valueName: "file|pattern"), completion: fontCompletion)
  var font: String?

  @Option(name: .customLong("max-pixels"), help: "Refuse sheets larger than this many pixels.")
  var maxPixels: Int = RenderLimits.default.maxPixels

  func validate() throws {
    do { _ = try PictureFormat.forOutput(output) } catch { throw ValidationError(error.message) }
    guard maxPixels > 0 else {
      throw ValidationError("--max-pixels must be positive, got \(maxPixels)")
    }
    if let conflict = OutputConflicts.check(
      outputs: [("-o", output)],
      inputs: (font.flatMap { FontCatalog.isPath($0) ? [("--font", $0)] : nil } ?? [])
        + materials.map { ("--materials", $0) })
    {
      throw ValidationError(conflict)
    }
    guard size.isFinite, size >= 8, size <= 1000 else {
      throw ValidationError("--size must be in 8...1000, got \(size)")
    }
    if let columns, !(1...100).contains(columns) {
      throw ValidationError("--columns must be in 1...100, got \(columns)")
    }
    if lights, materials.count > 1 {
      throw ValidationError("--lights shows one material; give one with --materials")
    }
    // Settings are arguments: checked once here, as render and shading check them (not once
    // per tile, after the materials are read).
    do {
      _ = try RenderRequest.materialSettings(settings.map { RenderRequest.Value(.set, $0) })
    } catch {
      throw ValidationError(error.commandLineMessage)
    }
  }

  func run() throws {
    let resources = try Resources.locate()
    let library = resources.materialLibrary
    let names =
      materials.isEmpty
      ? (lights ? [Resources.defaultMaterialName] : library.presetNames) : materials
    let settings = self.settings.map(MaterialSetting.init(set:))
    var entries: [ContactSheet.Entry] = []
    var problems: [MaterialError] = []
    var sources: [String] = []
    for name in names {
      do {
        entries.append(
          ContactSheet.Entry(
            name: URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent,
            material: try MaterialLoader.load(
              name, library: library, settings: settings, sources: &sources)))
      } catch let error as MaterialError {
        problems.append(error)
      }
    }
    if !problems.isEmpty { throw MaterialError(combining: problems) }
    if let conflict = OutputConflicts.overwritesMaterial(
      outputs: [("-o", output)], sources: sources)
    {
      throw EmbossError(conflict)
    }
    if lights, let first = entries.first {
      entries = try ContactSheet.lightEntries(material: first.material)
    }
    let columns =
      self.columns ?? (lights ? ContactSheet.lightAngles.count : 5)
    let file =
      try font.map { try TextMask.font($0, resources: resources) }
      ?? (path: resources.defaultFontPath, index: 0)
    let face = try Font(path: file.path, index: file.index)
    let limits = RenderLimits(maxPixels: maxPixels)
    let sample = try TextLayout(
      text: TextMask.unescaped(text), font: face,
      style: TextStyle(pixelSize: size), limits: limits)
    let sheet = try ContactSheet.render(
      entries: entries, sample: sample, font: face, textSize: size, columns: columns, limits: limits
    )
    try OutputFile.write(
      try PictureCodec.encode(sheet, format: try PictureFormat.forOutput(output)), to: output)
  }
}

struct ParametersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "parameters",
    abstract: "List every material parameter: key, type, default, range, flag and meaning.",
    discussion:
      "The same table as docs/materials.md; keys are what a material file, --set and the flags set.\n\n"
      + ExitStatus.paragraph("parameters")
  )

  @Flag(help: "Print the table as Markdown (as in docs/materials.md).")
  var markdown = false

  func run() throws {
    if markdown {
      try printLine(Parameters.markdownTable, terminator: "")
      return
    }
    for row in Parameters.all.map(\.row) {
      let unit = row.unit.isEmpty ? "" : " (\(row.unit))"
      var line = "\(row.key): \(row.type.replacingOccurrences(of: "`", with: ""))\(unit)"
      if !row.defaultText.isEmpty {
        line += ", default \(row.defaultText.replacingOccurrences(of: "`", with: ""))"
      }
      if !row.rangeText.isEmpty { line += ", \(row.rangeText)" }
      if let flag = row.flag { line += ", flag \(flag)" }
      try printLine(line)
      try printLine("    \(row.help.replacingOccurrences(of: "`", with: ""))")
    }
  }
}

struct FontsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fonts",
    abstract:
      "List the fonts --font can name (family, style, file): installed ones through fontconfig, and the bundled ones.",
    discussion:
      "PATTERN is a fontconfig pattern: 'DejaVu Serif', 'Noto Sans:style=Light', ':lang=ar'. The bundled default font is Fonts/DejaVuSans-Bold.ttf; the other bundled fonts (Fonts/README.md) are also fallback fonts.\n\n"
      + ExitStatus.paragraph("fonts")
  )

  @Argument(help: ArgumentHelp("Only the fonts matching this pattern.", valueName: "pattern"))
  var pattern: String?

  func run() throws {
    let resources = try Resources.locate()
    let entries = try FontCatalog.list(pattern, bundled: resources.fontsDirectory)
    let family = entries.map(\.family.count).max() ?? 0
    let style = entries.map(\.style.count).max() ?? 0
    for entry in entries {
      // Fontconfig numbers a variable font's named instances as index + (instance << 16);
      // the style names the instance.
      let face = entry.index & 0xFFFF == 0 ? "" : " (face \(entry.index & 0xFFFF))"
      try printLine(
        entry.family.padding(toLength: family, withPad: " ", startingAt: 0) + "  "
          + entry.style.padding(toLength: style, withPad: " ", startingAt: 0) + "  " + entry.path
          + face)
    }
    if entries.isEmpty, let pattern { throw EmbossError("no installed font matches '\(pattern)'") }
  }
}
