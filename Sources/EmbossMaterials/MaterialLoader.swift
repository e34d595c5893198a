import EmbossModel
import EmbossSupport
import Foundation
import Yams

/// Where named materials (presets) live: `--material gold` is `<directory>/gold.yaml` in the
/// first directory that has it.
public struct MaterialLibrary: Sendable {
  /// Folders searched for presets, in order.
  public var directories: [String]

  /// A library of the presets in `directories`.
  public init(directories: [String]) {
    self.directories = directories
  }

  /// The file for a reference: a path when it names an existing file or has a `/` or a
  /// `.yaml`/`.yml` extension, else a preset name looked up in the library's directories.
  public func path(for reference: String) -> String? {
    if reference.contains("/") || reference.hasSuffix(".yaml") || reference.hasSuffix(".yml")
      || FileManager.default.fileExists(atPath: reference)
    {
      return reference
    }
    return presetPath(for: reference)
  }

  /// The preset file for a name, from the library's directories.
  public func presetPath(for name: String) -> String? {
    for directory in directories {
      let candidate = directory + "/" + name + ".yaml"
      if FileManager.default.fileExists(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Names of every preset, sorted.
  public var presetNames: [String] {
    var names = Set<String>()
    for directory in directories {
      let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      for file in files where file.hasSuffix(".yaml") { names.insert(String(file.dropLast(5))) }
    }
    return names.sorted()
  }
}

/// Turns material files (YAML) into validated `MaterialSpec`s.
///
/// Every problem becomes a
/// `Diagnostic` with the file, line and column of the offending node; unknown keys are errors
/// with a suggestion. See docs/materials.md for the format.
public enum MaterialLoader {
  /// Loads the material a reference (preset name or path) names, resolving `extends`.
  ///
  /// Throws `MaterialError` with every problem found, or `EmbossError` when the reference
  /// names no file at all.
  /// The largest material file read: 16 MiB.
  public static let fileLimit = 16 << 20

  /// Loads a preset or a file with no settings on top.
  public static func load(_ reference: String, library: MaterialLibrary) throws -> MaterialSpec {
    var sources: [String] = []
    return try load(reference, library: library, sources: &sources)
  }

  /// `load`, also collecting every file it read (the material and what it extends), even
  /// when loading fails, so a watcher knows what to watch.
  public static func load(_ reference: String, library: MaterialLibrary, sources: inout [String])
    throws -> MaterialSpec
  {
    var inputs = InputSnapshot()
    return try load(reference, library: library, sources: &sources, inputs: &inputs)
  }

  /// `load`, reading the files through `inputs`: a file it holds is not read again, and a
  /// file read is added to it.
  public static func load(
    _ reference: String, library: MaterialLibrary, sources: inout [String],
    inputs: inout InputSnapshot
  ) throws -> MaterialSpec {
    guard let path = library.path(for: reference) else {
      var message = "no material named '\(reference)'"
      if let close = suggestion(for: reference, among: library.presetNames) {
        message += "; did you mean '\(close)'?"
      }
      message += " (presets: \(library.presetNames.joined(separator: ", ")))"
      throw EmbossError(message)
    }
    var sink = DiagnosticSink()
    sink.sources = [path]
    sink.inputs = inputs
    defer {
      sources = sink.sources
      inputs = sink.inputs
    }
    let spec = try load(path: path, library: library, chain: [], sink: &sink)
    if sink.hasErrors { throw MaterialError(sink) }
    guard let spec else { throw EmbossError("cannot load material '\(path)'") }
    return spec
  }

  /// Checks a material file (or preset name) without rendering: the lines of `problems`.
  ///
  /// Empty when the material is valid.
  public static func check(_ reference: String, library: MaterialLibrary) -> [String] {
    problems(reference, library: library)?.lines ?? []
  }

  /// Checks a material file (or preset name) without rendering: the problems found in it and
  /// in what it extends, in reading order (the first `DiagnosticSink.limit`, and a count of
  /// the rest).
  ///
  /// Nil when the material is valid; a reference that names no file is one problem located at
  /// the reference.
  public static func problems(_ reference: String, library: MaterialLibrary) -> MaterialError? {
    do {
      _ = try load(reference, library: library)
      return nil
    } catch let error as MaterialError {
      return error
    } catch {
      return MaterialError(diagnostics: [
        Diagnostic(
          location: SourceLocation(file: reference, line: 0, column: 1), message: "\(error)")
      ])
    }
  }

  /// Parses material text as if read from `file`, reporting every problem into `sink`.
  ///
  /// Returns nil when the text is not usable at all (a syntax error).
  public static func parse(
    yaml: String, file: String, library: MaterialLibrary, sink: inout DiagnosticSink
  ) -> MaterialSpec? {
    parse(yaml: yaml, file: file, library: library, chain: [], sink: &sink)
  }

  static func load(
    path: String, library: MaterialLibrary, chain: [String], sink: inout DiagnosticSink
  ) throws -> MaterialSpec? {
    let input = try sink.inputs.read(path, what: "material", limit: MaterialLoader.fileLimit)
    let data = input.data
    // An empty file sets nothing: it is the built-in material, as a file of comments is. A
    // pipe or FIFO that gave nothing is a writer that never came or failed (`<(false)`).
    if input.isPipe, data.isEmpty {
      sink.error(
        "nothing was written to this pipe or FIFO",
        at: SourceLocation(file: path, line: 1, column: 1))
      return nil
    }
    if let bad = RawArguments.firstInvalidUTF8(Array(data)) {
      // Where the bad byte is: its line, and its column counted in characters before it.
      let before = data.prefix(bad.offset)
      let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
      let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? before.startIndex
      let column =
        String(decoding: data[lineStart..<bad.offset], as: UTF8.self).unicodeScalars.count + 1
      sink.error(
        "not UTF-8 text: byte 0x\(String(bad.byte, radix: 16, uppercase: true)) (save the file as UTF-8)",
        at: SourceLocation(file: path, line: line, column: column))
      return nil
    }
    let text = String(decoding: data, as: UTF8.self)
    return parse(yaml: text, file: path, library: library, chain: chain, sink: &sink)
  }

  static func parse(
    yaml: String, file: String, library: MaterialLibrary, chain: [String],
    sink: inout DiagnosticSink
  ) -> MaterialSpec? {
    let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
    var root: Node?
    // Duplicate keys stop Yams before anything else is read; renamed, they are reported where
    // they occur (the second time), with the file's other problems.
    var duplicates = DuplicateKeys.Renamed(text: yaml, originals: [:])
    do {
      do {
        root = try Yams.compose(yaml: yaml, .basic)
      } catch YamlError.duplicatedKeysInMapping(let keys, let context) {
        duplicates = DuplicateKeys.rename(in: yaml)
        if duplicates.originals.isEmpty {
          // Not found by the line scan (a flow mapping): where Yams saw the first one.
          sink.error(
            "\"\(keys.first ?? "")\": duplicate key",
            at: SourceLocation(file: file, line: context.mark.line, column: context.mark.column))
          return nil
        }
        root = try Yams.compose(yaml: duplicates.text, .basic)
      }
    } catch let error as YamlError {
      let (message, location) = describe(error, yaml: yaml, file: file)
      sink.error("not valid YAML: \(message)", at: location)
      return nil
    } catch {
      sink.error(
        "not valid YAML: \(Diagnostic.shortened("\(error)"))",
        at: SourceLocation(file: file, line: 1, column: 1))
      return nil
    }
    var reader = NodeReader(file: file, sink: sink)
    reader.duplicates = duplicates.originals
    defer { sink = reader.sink }
    guard let root, root.scalar.map({ !$0.string.isEmpty }) ?? true else {
      // An empty file is the built-in material under this file's name.
      return MaterialSpec.builtIn.renamed(name)
    }
    guard let fields = reader.fields(root, path: nil, allowed: Parameters.topLevelKeys) else {
      return nil
    }

    var base = MaterialSpec.builtIn
    if let extends = fields["extends"] {
      if let parent = reader.string(extends.value, path: "extends") {
        base =
          resolveParent(
            parent, at: extends.value, file: file, library: library, chain: chain + [file],
            reader: &reader) ?? base
      }
    }
    var description = base.description
    var background = base.background
    var surface = base.surface
    var relief = base.relief
    var shadow = base.shadow
    var detail = base.detail
    var occlusion = base.occlusion
    var shadingSize = base.shadingSize
    var lights = base.lights
    var environment = base.environment
    if let node = fields["description"]?.value, let text = reader.string(node, path: "description")
    {
      description = text
    }
    if let node = fields["background"]?.value,
      let value = reader.background(node, path: "background")
    {
      background = value
    }
    if let node = fields["surface"]?.value,
      let values = reader.fields(node, path: "surface", allowed: Parameters.keys(in: "surface"))
    {
      surface = reader.surface(values, over: surface, at: node)
    }
    if let node = fields["relief"]?.value,
      let values = reader.fields(node, path: "relief", allowed: Parameters.keys(in: "relief"))
    {
      relief = reader.relief(values, over: relief, at: node)
    }
    if let node = fields["shadow"]?.value,
      let values = reader.fields(node, path: "shadow", allowed: Parameters.keys(in: "shadow"))
    {
      shadow = reader.shadow(values, over: shadow, at: node)
    }
    if let node = fields["detail"]?.value,
      let values = reader.fields(node, path: "detail", allowed: Parameters.keys(in: "detail"))
    {
      detail = reader.detail(values, over: detail, at: node)
    }
    if let node = fields["occlusion"]?.value,
      let values = reader.fields(
        node, path: "occlusion", allowed: Parameters.keys(in: "occlusion"))
    {
      occlusion = reader.occlusion(values, over: occlusion, at: node)
    }
    if let node = fields["shading"]?.value,
      let values = reader.fields(node, path: "shading", allowed: Parameters.keys(in: "shading")),
      let size = values["size"]?.value,
      let value = reader.integer(size, path: "shading.size", range: Parameters.shadingSize.range)
    {
      shadingSize = value
    }
    if let node = fields["lights"]?.value, let values = reader.lights(node) {
      lights = values
    }
    if let node = fields["environment"]?.value,
      let values = reader.fields(
        node, path: "environment", allowed: Parameters.keys(in: "environment"))
    {
      environment = reader.environment(values, over: environment, at: node)
    }
    var camera = base.camera
    if let node = fields["camera"]?.value,
      let values = reader.fields(node, path: "camera", allowed: Parameters.keys(in: "camera"))
    {
      camera = reader.camera(values, over: camera, at: node)
    }
    var plate = base.plate
    if let node = fields["plate"]?.value,
      let values = reader.fields(node, path: "plate", allowed: Parameters.keys(in: "plate"))
    {
      plate = reader.plate(values, over: plate ?? PlateSpec(surface: surface))
    }
    return reader.make(at: root) { () throws(ParameterError) in
      try MaterialSpec(
        name: name, description: description, surface: surface, lights: lights,
        environment: environment, relief: relief, shadingSize: shadingSize, background: background,
        shadow: shadow, detail: detail, occlusion: occlusion, plate: plate,
        camera: camera)
    }
  }

  /// `path` relative to the working directory when it lies under it, else as it is.
  private static func relativeToWorkingDirectory(_ path: String) -> String {
    let standard = URL(fileURLWithPath: path).standardizedFileURL.path
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
      .path
    let prefix = here.hasSuffix("/") ? here : here + "/"
    return standard.hasPrefix(prefix) ? String(standard.dropFirst(prefix.count)) : standard
  }

  /// The most materials one chain of `extends` holds (the file and its parents).
  public static let maxExtendsDepth = 32

  private static func resolveParent(
    _ reference: String, at node: Node, file: String, library: MaterialLibrary, chain: [String],
    reader: inout NodeReader
  ) -> MaterialSpec? {
    let location = reader.location(node)
    // A file (a `/` or a .yaml/.yml name) is relative to the file that names it, never to
    // the working directory; anything else is a preset.
    var path: String?
    let isFile =
      reference.contains("/") || reference.hasSuffix(".yaml") || reference.hasSuffix(".yml")
    if isFile {
      path =
        reference.hasPrefix("/")
        ? reference
        : URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(reference)
          .path
    } else {
      path = library.presetPath(for: reference)
    }
    guard let path, FileManager.default.fileExists(atPath: path) else {
      if isFile, let path {
        // A file, not a preset: say which file is missing, where it was looked for. It is
        // a source all the same: a watcher waits for it to come back.
        reader.sink.sources.append(path)
        let shown = reference.hasPrefix("/") ? path : relativeToWorkingDirectory(path)
        reader.sink.error(
          "\"extends\": file not found: \"\(reference)\" (looked for \(shown), next to the file that extends it)",
          at: location)
        return nil
      }
      var message = "\"extends\": no material named \"\(reference)\""
      if let close = suggestion(for: reference, among: library.presetNames) {
        message += "; did you mean \"\(close)\"?"
      }
      reader.sink.error(message, at: location)
      return nil
    }
    // Compared with symbolic links resolved: a link to a folder above (`loop -> .`) names
    // the same file by ever longer paths.
    func canonical(_ path: String) -> String {
      URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
    let target = canonical(path)
    if let start = chain.firstIndex(where: { canonical($0) == target }) {
      let cycle = (chain[start...] + [path]).map { URL(fileURLWithPath: $0).lastPathComponent }
      reader.sink.error(
        "\"extends\": cycle: \(cycle.joined(separator: " -> "))", at: location)
      return nil
    }
    // Each parent is loaded by a nested call: a chain thousands of files long would run out
    // of stack.
    guard chain.count < maxExtendsDepth else {
      reader.sink.error(
        "\"extends\": more than \(maxExtendsDepth) materials extend one another in this chain (from \(URL(fileURLWithPath: chain[0]).lastPathComponent)); a chain that long is refused",
        at: location)
      return nil
    }
    var parentSink = DiagnosticSink()
    parentSink.inputs = reader.sink.inputs
    reader.sink.sources.append(path)
    defer {
      reader.sink.sources += parentSink.sources
      reader.sink.inputs = parentSink.inputs
    }
    let parent: MaterialSpec?
    do {
      parent = try load(path: path, library: library, chain: chain, sink: &parentSink)
    } catch {
      reader.sink.error("\"extends\": \(error)", at: location)
      return nil
    }
    reader.sink.append(parentSink)
    return parent
  }

  /// A YAML error's message and where to report it: a quoted string that never closes is
  /// reported where it opens, a tab in the indentation at the tab; no message holds the
  /// file's text.
  private static func describe(_ error: YamlError, yaml: String, file: String) -> (
    String, SourceLocation
  ) {
    func at(_ mark: Mark?) -> SourceLocation {
      SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }
    switch error {
    case .scanner(let context, let problem, let mark, _),
      .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      if let tab = tabInIndentation(yaml, near: mark) {
        return (
          "a tab is used for indentation; YAML indents with spaces only",
          SourceLocation(file: file, line: tab.line, column: tab.column)
        )
      }
      if let context, context.text.contains("quoted scalar") {
        return ("this quoted string is never closed", at(context.mark))
      }
      let text = context.map { "\(problem) \($0.text)" } ?? problem
      return (Diagnostic.shortened(text), at(mark))
    case .reader(let problem, _, _, _):
      return (Diagnostic.shortened(problem), at(nil))
    case .duplicatedKeysInMapping(let keys, let context):
      return ("\"\(keys.first ?? "")\": duplicate key", at(context.mark))
    default:
      return (Diagnostic.shortened("\(error)"), at(nil))
    }
  }

  /// The first tab in the leading whitespace of the error's line (or the line before it,
  /// where libyaml noticed the problem only on the next token).
  static func tabInIndentation(_ yaml: String, near mark: Mark) -> (line: Int, column: Int)? {
    let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
    for line in [mark.line, mark.line - 1] where line >= 1 && line <= lines.count {
      let indentation = lines[line - 1].prefix { $0 == " " || $0 == "\t" }
      if let tab = indentation.firstIndex(of: "\t") {
        return (line, indentation.distance(from: indentation.startIndex, to: tab) + 1)
      }
    }
    return nil
  }
}

/// Finds keys repeated in one block mapping by scanning the lines (Yams refuses the whole
/// file at the first duplicate, and names only the first occurrence).
enum DuplicateKeys {
  struct Renamed {
    /// The text with every repeated key (after its first use) renamed.
    var text: String
    /// The new names and the keys they stand for.
    var originals: [String: String]
  }

  static let prefix = "__emboss_duplicate_"

  static func rename(in yaml: String) -> Renamed {
    struct Level {
      var indent: Int
      var keys: Set<String>
    }
    var levels: [Level] = []
    var originals: [String: String] = [:]
    var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var blockIndent: Int? = nil  // inside a literal or folded block scalar deeper than this
    for (number, line) in lines.enumerated() {
      let characters = Array(line)
      var i = 0
      while i < characters.count, characters[i] == " " { i += 1 }
      if i == characters.count || characters[i] == "#" { continue }
      if let block = blockIndent {
        if i > block { continue }
        blockIndent = nil
      }
      var isItem = false
      while i + 1 < characters.count, characters[i] == "-", characters[i + 1] == " " {
        isItem = true
        i += 2
        while i < characters.count, characters[i] == " " { i += 1 }
      }
      // A plain key: up to ": " or a final ":".
      var end = i
      while end < characters.count, characters[end] != ":", characters[end] != "#" { end += 1 }
      let rest = characters[min(end, characters.count)...]
      guard end > i, end < characters.count, characters[end] == ":",
        end + 1 == characters.count || characters[end + 1] == " ",
        !"\"'{[&*!|>%@`".contains(characters[i])
      else { continue }
      let key = String(characters[i..<end]).trimmingCharacters(in: .whitespaces)
      while let last = levels.last, last.indent > i || (isItem && last.indent == i) {
        levels.removeLast()
      }
      if levels.last?.indent != i { levels.append(Level(indent: i, keys: [])) }
      if levels[levels.count - 1].keys.contains(key) {
        let name = "\(prefix)\(originals.count)"
        originals[name] = key
        lines[number] = String(characters[..<i]) + name + String(characters[end...])
      } else {
        levels[levels.count - 1].keys.insert(key)
      }
      let value = String(rest.dropFirst()).trimmingCharacters(in: .whitespaces)
      if value.hasPrefix("|") || value.hasPrefix(">") { blockIndent = i }
    }
    return Renamed(text: lines.joined(separator: "\n"), originals: originals)
  }
}

/// Reads typed values out of YAML nodes, reporting each problem at the node's location.
struct NodeReader {
  let file: String
  var sink: DiagnosticSink
  /// Added to every column (for values parsed out of a longer line, such as `--set`).
  var columnOffset = 0
  /// Reports every problem on this line (0: a command-line flag, which has no lines).
  var lineOverride: Int? = nil
  /// Keys renamed because they repeat an earlier key of their mapping (`DuplicateKeys`).
  var duplicates: [String: String] = [:]

  /// A key's node and the value's node.
  struct Field {
    var key: Node
    var value: Node
  }

  func location(_ node: Node) -> SourceLocation {
    SourceLocation(
      file: file, line: lineOverride ?? node.mark?.line ?? 1,
      column: (node.mark?.column ?? 1) + columnOffset)
  }

  /// The fields of a mapping; unknown and duplicate keys are reported (and skipped).
  mutating func fields(_ node: Node, path: String?, allowed: [String]) -> [String: Field]? {
    guard let mapping = node.mapping else {
      let what =
        path.map { "\"\($0)\": expected a mapping of keys" }
        ?? "expected a mapping of keys at the top of the file"
      sink.error("\(what), got \(describe(node))", at: location(node))
      return nil
    }
    var result: [String: Field] = [:]
    for (key, value) in mapping {
      guard let name = key.scalar?.string else {
        sink.error("keys must be plain words, got \(describe(key))", at: location(key))
        continue
      }
      if let original = duplicates[name] {
        sink.error(
          "\"\(path.map { "\($0).\(original)" } ?? original)\": duplicate key", at: location(key))
        continue
      }
      let full = path.map { "\($0).\(name)" } ?? name
      guard allowed.contains(name) else {
        var message = "\"\(full)\": unknown key"
        if let close = suggestion(for: name, among: allowed) {
          message += "; did you mean \"\(close)\"?"
        } else {
          message += " (known keys: \(allowed.joined(separator: ", ")))"
        }
        sink.error(message, at: location(key))
        continue
      }
      if result[name] != nil {
        sink.error("\"\(full)\": duplicate key", at: location(key))
        continue
      }
      result[name] = Field(key: key, value: value)
    }
    return result
  }

  /// A short description of what a node holds, for "got ..." in messages.
  func describe(_ node: Node) -> String {
    switch node {
    case .scalar(let scalar):
      if scalar.string.isEmpty && scalar.style == .plain { return "nothing" }
      return "\"\(Diagnostic.shortened(scalar.string, to: 60))\""
    case .mapping: return "a mapping"
    case .sequence: return "a list"
    case .alias: return "an alias"
    }
  }

  mutating func string(_ node: Node, path: String) -> String? {
    guard let scalar = node.scalar, !(scalar.string.isEmpty && scalar.style == .plain) else {
      sink.error("\"\(path)\": expected text, got \(describe(node))", at: location(node))
      return nil
    }
    return scalar.string
  }

  /// A finite number in `range`, written as a plain (unquoted) YAML number.
  mutating func number(_ node: Node, path: String, range: ClosedRange<Float>) -> Float? {
    guard let scalar = node.scalar, scalar.style == .plain, !scalar.string.isEmpty else {
      sink.error("\"\(path)\": expected a number, got \(describe(node))", at: location(node))
      return nil
    }
    let text = scalar.string
    let lowered = text.lowercased()
    if [".nan", ".inf", "+.inf", "-.inf", "nan", "inf", "-inf", "+inf", "infinity", "-infinity"]
      .contains(lowered)
    {
      sink.error("\"\(path)\": must be a finite number, got \(text)", at: location(node))
      return nil
    }
    guard let value = Double(text) else {
      sink.error("\"\(path)\": expected a number, got \"\(text)\"", at: location(node))
      return nil
    }
    guard value.isFinite else {
      sink.error("\"\(path)\": must be a finite number, got \(text)", at: location(node))
      return nil
    }
    guard value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
      sink.error(
        "\"\(path)\": must be in \(formatNumber(range.lowerBound))...\(formatNumber(range.upperBound)), got \(text)",
        at: location(node))
      return nil
    }
    return Float(value)
  }

  mutating func integer(_ node: Node, path: String, range: ClosedRange<Int>) -> Int? {
    guard let scalar = node.scalar, scalar.style == .plain, let value = Int(scalar.string) else {
      sink.error("\"\(path)\": expected a whole number, got \(describe(node))", at: location(node))
      return nil
    }
    guard range.contains(value) else {
      sink.error(
        "\"\(path)\": must be in \(range.lowerBound)...\(range.upperBound), got \(scalar.string)",
        at: location(node))
      return nil
    }
    return value
  }

  mutating func choice<E: RawRepresentable & CaseIterable>(_ node: Node, path: String, as: E.Type)
    -> E? where E.RawValue == String
  {
    guard let text = string(node, path: path) else { return nil }
    if let value = E(rawValue: text) { return value }
    let names = E.allCases.map(\.rawValue)
    var message = "\"\(path)\": unknown value \"\(text)\""
    if let close = suggestion(for: text, among: names) { message += "; did you mean \"\(close)\"?" }
    message += " (one of: \(names.joined(separator: ", ")))"
    sink.error(message, at: location(node))
    return nil
  }

  /// An opaque color: `"#rrggbb"` (quoted: `#` starts a YAML comment) or a name, or a mapping
  /// `{hue: degrees, saturation: 0...1, brightness: 0...1}`.
  ///
  /// Returns linear light.
  mutating func color(_ node: Node, path: String) -> SIMD3<Float>? {
    if node.mapping != nil {
      guard let fields = fields(node, path: path, allowed: ["hue", "saturation", "brightness"])
      else {
        return nil
      }
      var ok = true
      var hue: Float = 0
      var saturation: Float = 1
      var brightness: Float = 1
      if let n = fields["hue"]?.value {
        if let v = number(n, path: "\(path).hue", range: 0...360) { hue = v } else { ok = false }
      } else {
        sink.error("\"\(path)\": a hue color needs \"hue\"", at: location(node))
        ok = false
      }
      if let n = fields["saturation"]?.value {
        if let v = number(n, path: "\(path).saturation", range: 0...1) {
          saturation = v
        } else {
          ok = false
        }
      }
      if let n = fields["brightness"]?.value {
        if let v = number(n, path: "\(path).brightness", range: 0...1) {
          brightness = v
        } else {
          ok = false
        }
      }
      return ok
        ? ColorLiteral(hue: hue, saturation: saturation, brightness: brightness).linear : nil
    }
    guard let scalar = node.scalar, !(scalar.string.isEmpty && scalar.style == .plain) else {
      sink.error(
        "\"\(path)\": expected a color such as \"#rrggbb\", got nothing (an unquoted # starts a YAML comment: write the color in quotes)",
        at: location(node))
      return nil
    }
    switch ColorLiteral.parse(scalar.string) {
    case .success(let color):
      guard color.alpha == 1 else {
        sink.error(
          "\"\(path)\": must be an opaque color, got \"\(scalar.string)\"", at: location(node))
        return nil
      }
      return color.linear
    case .failure(let error):
      sink.error("\"\(path)\": \(error.message)", at: location(node))
      return nil
    }
  }

  mutating func background(_ node: Node, path: String) -> Background? {
    guard let scalar = node.scalar, !(scalar.string.isEmpty && scalar.style == .plain) else {
      sink.error(
        "\"\(path)\": expected a color such as \"#rrggbb\" or transparent, got nothing (an unquoted # starts a YAML comment: write the color in quotes)",
        at: location(node))
      return nil
    }
    switch Background.parse(scalar.string) {
    case .success(let value): return value
    case .failure(let error):
      sink.error("\"\(path)\": \(error.message)", at: location(node))
      return nil
    }
  }

  /// `[x, y, z]` or `{x:, y:, z:}`.
  mutating func vector(_ node: Node, path: String, range: ClosedRange<Float>) -> SIMD3<Float>? {
    if let sequence = node.sequence {
      guard sequence.count == 3 else {
        sink.error(
          "\"\(path)\": expected three numbers [x, y, z], got \(sequence.count)", at: location(node)
        )
        return nil
      }
      let values = sequence.enumerated().map {
        number($0.element, path: "\(path)[\($0.offset)]", range: range)
      }
      guard let x = values[0], let y = values[1], let z = values[2] else { return nil }
      return SIMD3(x, y, z)
    }
    if node.mapping != nil {
      guard let fields = fields(node, path: path, allowed: ["x", "y", "z"]) else { return nil }
      var v = SIMD3<Float>.zero
      var ok = true
      for (axis, name) in ["x", "y", "z"].enumerated() {
        guard let n = fields[name]?.value else {
          sink.error("\"\(path)\": missing \"\(name)\"", at: location(node))
          ok = false
          continue
        }
        if let value = number(n, path: "\(path).\(name)", range: range) {
          v[axis] = value
        } else {
          ok = false
        }
      }
      return ok ? v : nil
    }
    sink.error("\"\(path)\": expected [x, y, z], got \(describe(node))", at: location(node))
    return nil
  }

  /// The key a parameter has in its section: the last part of its table key
  /// (`surface.shininess` is `shininess` in `surface`, `lights[].angle` is `angle`).
  static func field(of parameter: some ParameterDefinition) -> String {
    String(parameter.row.key.split(separator: ".").last ?? "")
  }

  /// Reads `parameter` from its section's `fields` (at `path`, the section's path) into
  /// `target`, in the parameter's range.
  mutating func read(
    _ fields: [String: Field], _ parameter: NumberParameter, path: String,
    into target: inout Float
  ) {
    let key = Self.field(of: parameter)
    if let n = fields[key]?.value, let v = number(n, path: "\(path).\(key)", range: parameter.range)
    {
      target = v
    }
  }

  /// Reads color `parameter` from its section's `fields` into `target`, when given.
  mutating func read(
    _ fields: [String: Field], _ parameter: ColorParameter, path: String,
    into target: inout SIMD3<Float>
  ) {
    let key = Self.field(of: parameter)
    if let n = fields[key]?.value, let v = color(n, path: "\(path).\(key)") { target = v }
  }

  /// Reads vector `parameter` from its section's `fields` into `target`, in its range.
  mutating func read(
    _ fields: [String: Field], _ parameter: VectorParameter, path: String,
    into target: inout SIMD3<Float>
  ) {
    let key = Self.field(of: parameter)
    if let n = fields[key]?.value, let v = vector(n, path: "\(path).\(key)", range: parameter.range)
    {
      target = v
    }
  }

  /// Reads choice `parameter` from its section's `fields` into `target`, when given.
  mutating func read<E: RawRepresentable & CaseIterable>(
    _ fields: [String: Field], _ parameter: ChoiceParameter<E>, path: String,
    into target: inout E
  ) where E.RawValue == String {
    let key = Self.field(of: parameter)
    if let n = fields[key]?.value, let v = choice(n, path: "\(path).\(key)", as: E.self) {
      target = v
    }
  }

  /// A value put together from checked parts; a failure (which the parts' own checks should
  /// have caught) is reported at `node`.
  mutating func make<T>(at node: Node, _ build: () throws(ParameterError) -> T) -> T? {
    do {
      return try build()
    } catch {
      sink.error(error.description, at: location(node))
      return nil
    }
  }

  /// `base` with the surface keys in `fields` replaced.
  mutating func surface(
    _ fields: [String: Field], over base: Surface, at node: Node, path: String = "surface"
  ) -> Surface {
    var color = base.base
    var specular = base.specular
    var shininess = base.shininess
    var ambient = base.ambient
    var metallic = base.metallic
    var model = base.model
    var fresnel = base.fresnel
    read(fields, Parameters.base, path: path, into: &color)
    read(fields, Parameters.specular, path: path, into: &specular)
    read(fields, Parameters.shininess, path: path, into: &shininess)
    read(fields, Parameters.ambient, path: path, into: &ambient)
    read(fields, Parameters.metallic, path: path, into: &metallic)
    read(fields, Parameters.model, path: path, into: &model)
    read(fields, Parameters.fresnel, path: path, into: &fresnel)
    return make(at: node) { () throws(ParameterError) in
      try Surface(
        base: color, specular: specular, shininess: shininess, ambient: ambient, metallic: metallic,
        model: model, fresnel: fresnel)
    } ?? base
  }

  /// `base` with the environment keys in `fields` replaced (`softboxes` replaces the list).
  mutating func environment(_ fields: [String: Field], over base: Environment, at node: Node)
    -> Environment
  {
    let path = "environment"
    var intensity = base.intensity
    var sky = base.sky
    var horizon = base.horizon
    var ground = base.ground
    var band = base.band
    var bandWidth = base.bandWidth
    var horizonAngle = base.horizonAngle
    var horizonSoftness = base.horizonSoftness
    var boxes = base.softboxes
    read(fields, Parameters.environmentIntensity, path: path, into: &intensity)
    read(fields, Parameters.sky, path: path, into: &sky)
    read(fields, Parameters.horizon, path: path, into: &horizon)
    read(fields, Parameters.ground, path: path, into: &ground)
    read(fields, Parameters.band, path: path, into: &band)
    read(fields, Parameters.bandWidth, path: path, into: &bandWidth)
    read(fields, Parameters.horizonAngle, path: path, into: &horizonAngle)
    read(fields, Parameters.horizonSoftness, path: path, into: &horizonSoftness)
    if let node = fields["softboxes"]?.value {
      if let sequence = node.sequence {
        boxes = []
        for (index, item) in sequence.enumerated() {
          let itemPath = "\(path).softboxes[\(index)]"
          guard
            let box = self.fields(
              item, path: itemPath, allowed: Parameters.keys(in: "environment.softboxes[]"))
          else { continue }
          if let softbox = softbox(box, path: itemPath, over: nil, at: item) {
            boxes.append(softbox)
          }
        }
      } else {
        sink.error(
          "\"\(path).softboxes\": expected a list of softboxes, got \(describe(node))",
          at: location(node))
      }
    }
    return make(at: node) { () throws(ParameterError) in
      try Environment(
        intensity: intensity, sky: sky, horizon: horizon, ground: ground, band: band,
        bandWidth: bandWidth, horizonAngle: horizonAngle, horizonSoftness: horizonSoftness,
        softboxes: boxes)
    } ?? base
  }

  /// A softbox from the keys in `fields` (item `path`, such as
  /// `environment.softboxes[1]`), the others `base`'s (a new one's defaults where nil);
  /// nil when a value is invalid (reported).
  mutating func softbox(_ fields: [String: Field], path: String, over base: Softbox?, at node: Node)
    -> Softbox?
  {
    var angle = base?.angle ?? Parameters.softboxAngle.value
    var altitude = base?.altitude ?? Parameters.softboxAltitude.value
    var width = base?.width ?? Parameters.softboxWidth.value
    var height = base?.height ?? Parameters.softboxHeight.value
    var color = base?.color ?? Parameters.softboxColor.defaultValue
    var strength = base?.intensity ?? Parameters.softboxIntensity.value
    read(fields, Parameters.softboxAngle, path: path, into: &angle)
    read(fields, Parameters.softboxAltitude, path: path, into: &altitude)
    read(fields, Parameters.softboxWidth, path: path, into: &width)
    read(fields, Parameters.softboxHeight, path: path, into: &height)
    read(fields, Parameters.softboxColor, path: path, into: &color)
    read(fields, Parameters.softboxIntensity, path: path, into: &strength)
    return make(at: node) { () throws(ParameterError) in
      try Softbox(
        angle: angle, altitude: altitude, width: width, height: height, color: color,
        intensity: strength)
    }
  }

  /// `base` with the relief keys in `fields` replaced.
  mutating func relief(_ fields: [String: Field], over base: ReliefSpec, at node: Node)
    -> ReliefSpec
  {
    let path = "relief"
    var radius = base.radius
    var depth = base.depth
    var soften = base.soften
    var profile = base.profile
    var direction = base.direction
    var insideCorners = base.insideCorners
    var roundCorners = base.roundCorners
    read(fields, Parameters.radius, path: path, into: &radius)
    if let n = fields["depth"]?.value, let v = self.depth(n) { depth = v }
    if let n = fields["scale"]?.value,
      let v = number(n, path: "relief.scale", range: Parameters.scale.range)
    {
      if fields["depth"] != nil {
        sink.error(
          "\"relief.scale\": give either \"relief.depth\" (a multiple of the radius) or \"relief.scale\" (Core Image's per-pixel slope factor), not both",
          at: location(n))
      }
      depth = .scale(v)
    }
    read(fields, Parameters.soften, path: path, into: &soften)
    read(fields, Parameters.profile, path: path, into: &profile)
    read(fields, Parameters.direction, path: path, into: &direction)
    read(fields, Parameters.insideCorners, path: path, into: &insideCorners)
    read(fields, Parameters.roundCorners, path: path, into: &roundCorners)
    return make(at: node) { () throws(ParameterError) in
      try ReliefSpec(
        radius: radius, profile: profile, depth: depth, direction: direction, soften: soften,
        insideCorners: insideCorners, roundCorners: roundCorners)
    } ?? base
  }

  /// `base` with the shadow keys in `fields` replaced.
  mutating func shadow(_ fields: [String: Field], over base: ShadowSpec, at node: Node)
    -> ShadowSpec
  {
    let path = "shadow"
    var opacity = base.opacity
    var distance = base.distance
    var softness = base.softness
    var color = base.color
    var angle = base.angle ?? 0
    read(fields, Parameters.shadowOpacity, path: path, into: &opacity)
    read(fields, Parameters.shadowDistance, path: path, into: &distance)
    read(fields, Parameters.shadowSoftness, path: path, into: &softness)
    read(fields, Parameters.shadowColor, path: path, into: &color)
    read(fields, Parameters.shadowAngle, path: path, into: &angle)
    let given = fields[Self.field(of: Parameters.shadowAngle)] != nil
    return make(at: node) { () throws(ParameterError) in
      try ShadowSpec(
        opacity: opacity, distance: distance, softness: softness, color: color,
        angle: given ? angle : base.angle)
    } ?? base
  }

  /// `base` with the occlusion keys in `fields` replaced.
  mutating func occlusion(_ fields: [String: Field], over base: OcclusionSpec, at node: Node)
    -> OcclusionSpec
  {
    var strength = base.strength
    var radius = base.radius
    read(fields, Parameters.occlusionStrength, path: "occlusion", into: &strength)
    read(fields, Parameters.occlusionRadius, path: "occlusion", into: &radius)
    return make(at: node) { () throws(ParameterError) in
      try OcclusionSpec(strength: strength, radius: radius)
    } ?? base
  }

  /// `base` with the camera keys in `fields` replaced.
  mutating func camera(_ fields: [String: Field], over base: CameraSpec, at node: Node)
    -> CameraSpec
  {
    var distance = base.distance
    read(fields, Parameters.cameraDistance, path: "camera", into: &distance)
    return make(at: node) { () throws(ParameterError) in try CameraSpec(distance: distance) }
      ?? base
  }

  /// `base` with the plate's `surface` and `detail` sections in `fields` replaced.
  mutating func plate(_ fields: [String: Field], over base: PlateSpec) -> PlateSpec {
    var surface = base.surface
    var detail = base.detail
    if let node = fields["surface"]?.value,
      let values = self.fields(node, path: "plate.surface", allowed: Parameters.keys(in: "surface"))
    {
      surface = self.surface(values, over: surface, at: node, path: "plate.surface")
    }
    if let node = fields["detail"]?.value,
      let values = self.fields(node, path: "plate.detail", allowed: Parameters.keys(in: "detail"))
    {
      detail = self.detail(values, over: detail, at: node, path: "plate.detail")
    }
    return PlateSpec(surface: surface, detail: detail)
  }

  /// `base` with the detail keys in `fields` replaced (`path`: the section's, for messages).
  mutating func detail(
    _ fields: [String: Field], over base: DetailSpec, at node: Node, path: String = "detail"
  ) -> DetailSpec {
    var v = base.values
    read(fields, Parameters.detailBrushed, path: path, into: &v.brushed)
    read(fields, Parameters.detailBrushedAngle, path: path, into: &v.brushedAngle)
    read(fields, Parameters.detailBrushedWidth, path: path, into: &v.brushedWidth)
    read(fields, Parameters.detailBrushedLength, path: path, into: &v.brushedLength)
    read(fields, Parameters.detailHammered, path: path, into: &v.hammered)
    read(fields, Parameters.detailHammeredSize, path: path, into: &v.hammeredSize)
    read(fields, Parameters.detailSandblasted, path: path, into: &v.sandblasted)
    read(fields, Parameters.detailSandblastedSize, path: path, into: &v.sandblastedSize)
    read(fields, Parameters.detailWaviness, path: path, into: &v.waviness)
    read(fields, Parameters.detailWavinessSize, path: path, into: &v.wavinessSize)
    read(fields, Parameters.detailGrain, path: path, into: &v.grain)
    read(fields, Parameters.detailGrainSpacing, path: path, into: &v.grainSpacing)
    read(fields, Parameters.detailGrainAngle, path: path, into: &v.grainAngle)
    read(fields, Parameters.detailGrainFigure, path: path, into: &v.grainFigure)
    read(fields, Parameters.detailGrainColor, path: path, into: &v.grainColor)
    read(fields, Parameters.detailSpeckle, path: path, into: &v.speckle)
    read(fields, Parameters.detailSpeckleSize, path: path, into: &v.speckleSize)
    read(fields, Parameters.detailSpeckleColor, path: path, into: &v.speckleColor)
    if let n = fields["seed"]?.value,
      let seed = integer(n, path: "\(path).seed", range: Parameters.detailSeed.range)
    {
      v.seed = seed
    }
    let values = v
    return make(at: node) { () throws(ParameterError) in try DetailSpec(values) } ?? base
  }

  /// `relief.depth`: a multiple of the radius (`1.5`, or `1.5x`), or pixels (`12px`).
  mutating func depth(_ node: Node) -> ReliefDepth? {
    let path = Parameters.depth.key
    if let scalar = node.scalar, scalar.style == .plain {
      let text = scalar.string.lowercased()
      for (suffix, isPixels) in [("px", true), ("x", false)] where text.hasSuffix(suffix) {
        // The message quotes what the file has, not the number left without its unit.
        guard Double(String(text.dropLast(suffix.count))) != nil else {
          sink.error(
            "\"\(path)\": expected a multiple of the radius (1.5 or 1.5x) or pixels (12px), got \"\(scalar.string)\"",
            at: location(node))
          return nil
        }
        let number = Node.scalar(
          Node.Scalar(String(scalar.string.dropLast(suffix.count)), Tag(.str), .plain, node.mark))
        let range = isPixels ? Parameters.scale.range : Parameters.depth.range
        guard let value = self.number(number, path: path, range: range) else { return nil }
        return isPixels ? .pixels(value) : .radiusMultiple(value)
      }
    }
    return number(node, path: path, range: Parameters.depth.range).map(ReliefDepth.radiusMultiple)
  }

  /// A non-empty list of lights; each omitted key takes its default.
  mutating func lights(_ node: Node) -> [Light]? {
    guard let sequence = node.sequence else {
      sink.error("\"lights\": expected a list of lights, got \(describe(node))", at: location(node))
      return nil
    }
    guard !sequence.isEmpty else {
      sink.error("\"lights\": needs at least one light", at: location(node))
      return nil
    }
    var lights: [Light] = []
    for (index, item) in sequence.enumerated() {
      let path = "lights[\(index)]"
      guard let fields = fields(item, path: path, allowed: Parameters.keys(in: "lights[]")) else {
        continue
      }
      if let light = light(fields, path: path, node: item, over: .standard) { lights.append(light) }
    }
    // A light with a problem (reported) leaves the list as it was.
    return lights.count == sequence.count ? lights : nil
  }

  /// The keys each kind of light reads (the others are reported as unused).
  static let lightKeys: [LightKind: [String]] = [
    .omni: ["kind", "position", "color", "intensity"],
    .distant: ["kind", "position", "angle", "altitude", "color", "intensity"],
    .spot: ["kind", "position", "target", "cone", "color", "intensity"],
  ]

  /// A light from its fields, keys not given taken from `base` where it has them (`--set`
  /// changes one key of an existing light; a file's light starts from the default light).
  ///
  /// Keys the light's kind does not use are errors, as pbrt-v4's ReportUnused: a cone on an
  /// omni light is a mistake, not something to ignore.
  mutating func light(_ fields: [String: Field], path: String, node: Node, over base: Light)
    -> Light?
  {
    let angleNode = fields["angle"]?.value
    let altitudeNode = fields["altitude"]?.value
    let byAngle = angleNode != nil || altitudeNode != nil
    // The kind: as written; a light given by angle and altitude is distant; else the base's.
    var kind = byAngle ? .distant : base.kind
    var ok = true
    if let n = fields["kind"]?.value {
      // An unknown kind is reported; the values are still read, for their own problems.
      if let written = choice(n, path: "\(path).kind", as: LightKind.self) {
        kind = written
      } else {
        ok = false
      }
    }
    let used = ok ? Self.lightKeys[kind] ?? [] : Parameters.keys(in: "lights[]")
    for (key, field) in fields.sorted(by: { $0.key < $1.key }) where !used.contains(key) {
      let owners = LightKind.allCases.filter { Self.lightKeys[$0]?.contains(key) ?? false }.map(
        \.rawValue)
      sink.error(
        "\"\(path).\(key)\": \(kind == .omni ? "an" : "a") \(kind.rawValue) light has no \"\(key)\" (only \(owners.joined(separator: " and ")) lights do)",
        at: location(field.key))
      ok = false
    }
    // What carries over from the base light.
    var position = Parameters.lightPosition.defaultValue
    var target = Parameters.lightTarget.defaultValue
    var cone = Parameters.lightCone.value
    switch base {
    case .omni(let light): position = light.position
    case .distant(let light): position = light.direction
    case .spot(let light):
      position = light.position
      target = light.target
      cone = light.cone
    }
    var color = base.color
    var intensity = base.intensity
    read(fields, Parameters.lightColor, path: path, into: &color)
    read(fields, Parameters.lightIntensity, path: path, into: &intensity)
    read(fields, Parameters.lightPosition, path: path, into: &position)
    if kind == .spot {
      read(fields, Parameters.lightTarget, path: path, into: &target)
      read(fields, Parameters.lightCone, path: path, into: &cone)
    }
    if kind == .distant, byAngle {
      // A distant light may be given as Photoshop gives it: angle and altitude in degrees.
      if let position = fields["position"] {
        sink.error(
          "\"\(path).position\": give either a position or an angle and altitude, not both",
          at: location(position.key))
        return nil
      }
      var angle = Parameters.lightAngle.value
      var altitude = Parameters.lightAltitude.value
      let before = sink.errorCount
      read(fields, Parameters.lightAngle, path: path, into: &angle)
      read(fields, Parameters.lightAltitude, path: path, into: &altitude)
      guard sink.errorCount == before else { return nil }
      position = Light.direction(angle: angle, altitude: altitude)
    }
    guard ok else { return nil }
    let at = fields["position"]?.value ?? node
    if kind == .distant, position == .zero {
      sink.error(
        "\"\(path).position\": a distant light needs a direction other than [0, 0, 0]",
        at: location(at))
      return nil
    }
    return make(at: at) { () throws(ParameterError) -> Light in
      switch kind {
      case .omni:
        return .omni(try OmniLight(position: position, color: color, intensity: intensity))
      case .distant:
        return .distant(try DistantLight(direction: position, color: color, intensity: intensity))
      case .spot:
        return .spot(
          try SpotLight(
            position: position, target: target, cone: cone, color: color, intensity: intensity))
      }
    }
  }
}
