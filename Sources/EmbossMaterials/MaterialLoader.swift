import Foundation
import Yams
import EmbossSupport
import EmbossRaster
import EmbossModel

/// Where named materials (presets) live: `--material gold` is `<directory>/gold.yaml` in the
/// first directory that has it.
public struct MaterialLibrary: Sendable {
  public var directories: [String]

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

/// Turns material files (YAML) into validated `MaterialSpec`s. Every problem becomes a
/// `Diagnostic` with the file, line and column of the offending node; unknown keys are errors
/// with a suggestion. See docs/materials.md for the format.
public enum MaterialLoader {
  /// Loads the material a reference (preset name or path) names, resolving `extends`.
  /// Throws `MaterialError` with every problem found, or `EmbossError` when the reference
  /// names no file at all.
  /// The largest material file read: 16 MiB.
  public static let fileLimit = 16 << 20

  public static func load(_ reference: String, library: MaterialLibrary) throws -> MaterialSpec {
    var sources: [String] = []
    return try load(reference, library: library, sources: &sources)
  }

  /// `load`, also collecting every file it read (the material and what it extends), even
  /// when loading fails, so a watcher knows what to watch.
  public static func load(_ reference: String, library: MaterialLibrary, sources: inout [String])
    throws -> MaterialSpec
  {
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
    defer { sources = sink.sources }
    let spec = try load(path: path, library: library, chain: [], sink: &sink)
    if sink.hasErrors { throw MaterialError(diagnostics: sink.diagnostics) }
    guard let spec else { throw EmbossError("cannot load material '\(path)'") }
    return spec
  }

  /// Checks a material file (or preset name) without rendering: every problem found in it
  /// and in what it extends, in reading order. Empty when the material is valid.
  public static func check(_ reference: String, library: MaterialLibrary) -> [String] {
    do {
      _ = try load(reference, library: library)
      return []
    } catch let error as MaterialError {
      return error.diagnostics.map(\.description)
    } catch {
      return ["\(reference): error: \(error)"]
    }
  }

  /// Parses material text as if read from `file`, reporting every problem into `sink`.
  /// Returns nil when the text is not usable at all (a syntax error).
  public static func parse(
    yaml: String, file: String, library: MaterialLibrary, sink: inout DiagnosticSink
  ) -> MaterialSpec? {
    parse(yaml: yaml, file: file, library: library, chain: [], sink: &sink)
  }

  static func load(
    path: String, library: MaterialLibrary, chain: [String], sink: inout DiagnosticSink
  ) throws -> MaterialSpec? {
    let data = try InputFile.read(path, what: "material", limit: MaterialLoader.fileLimit)
    if let bad = RawArguments.firstInvalidUTF8(Array(data)) {
      // Where the bad byte is: its line, and its column counted in characters before it.
      let before = data.prefix(bad.offset)
      let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
      let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? before.startIndex
      let column = String(decoding: data[lineStart..<bad.offset], as: UTF8.self).unicodeScalars.count + 1
      sink.error(
        "not UTF-8 text: byte 0x\(String(bad.byte, radix: 16, uppercase: true)) (save the file as UTF-8)",
        at: SourceLocation(file: path, line: line, column: column))
      return nil
    }
    let text = String(decoding: data, as: UTF8.self)
    // An empty file (or a FIFO nobody wrote to) is a mistake, not the defaults.
    guard text.contains(where: { !$0.isWhitespace }) else {
      sink.error("the file is empty; a material sets at least one key (or 'extends: default')", at: SourceLocation(file: path, line: 1, column: 1))
      return nil
    }
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
        root = try Yams.compose(yaml: yaml)
      } catch YamlError.duplicatedKeysInMapping(let keys, let context) {
        duplicates = DuplicateKeys.rename(in: yaml)
        if duplicates.originals.isEmpty {
          // Not found by the line scan (a flow mapping): where Yams saw the first one.
          sink.error(
            "\"\(keys.first ?? "")\": duplicate key",
            at: SourceLocation(file: file, line: context.mark.line, column: context.mark.column))
          return nil
        }
        root = try Yams.compose(yaml: duplicates.text)
      }
    } catch let error as YamlError {
      let (message, location) = describe(error, yaml: yaml, file: file)
      sink.error("not valid YAML: \(message)", at: location)
      return nil
    } catch {
      sink.error(
        "not valid YAML: \(Diagnostic.shortened("\(error)"))", at: SourceLocation(file: file, line: 1, column: 1))
      return nil
    }
    var reader = NodeReader(file: file, sink: sink)
    reader.duplicates = duplicates.originals
    defer { sink = reader.sink }
    guard let root, root.scalar.map({ !$0.string.isEmpty }) ?? true else {
      // An empty file is the built-in material under this file's name.
      var spec = MaterialSpec.builtIn
      spec.name = name
      return spec
    }
    guard let fields = reader.fields(root, path: nil, allowed: topLevelKeys) else { return nil }

    var spec = MaterialSpec.builtIn
    if let extends = fields["extends"] {
      if let parent = reader.string(extends.value, path: "extends") {
        spec = resolveParent(
          parent, at: extends.value, file: file, library: library, chain: chain + [file],
          reader: &reader) ?? spec
      }
    }
    spec.name = name
    if let node = fields["description"]?.value, let text = reader.string(node, path: "description") {
      spec.description = text
    }
    if let node = fields["background"]?.value, let value = reader.background(node, path: "background") {
      spec.background = value
    }
    if let node = fields["surface"]?.value, let surface = reader.fields(node, path: "surface", allowed: surfaceKeys) {
      reader.apply(surface, to: &spec.surface)
    }
    if let node = fields["relief"]?.value, let relief = reader.fields(node, path: "relief", allowed: reliefKeys) {
      reader.apply(relief, to: &spec.relief)
    }
    if let node = fields["shading"]?.value, let shading = reader.fields(node, path: "shading", allowed: shadingKeys) {
      if let size = shading["size"]?.value,
        let value = reader.integer(size, path: "shading.size", range: MaterialSpec.shadingSizeRange)
      {
        spec.shadingSize = value
      }
    }
    if let node = fields["lights"]?.value, let lights = reader.lights(node) {
      spec.lights = lights
    }
    if let node = fields["environment"]?.value,
      let environment = reader.fields(node, path: "environment", allowed: environmentKeys)
    {
      reader.apply(environment, to: &spec.environment)
    }
    return spec
  }

  private static func resolveParent(
    _ reference: String, at node: Node, file: String, library: MaterialLibrary, chain: [String],
    reader: inout NodeReader
  ) -> MaterialSpec? {
    let location = reader.location(node)
    // A file (a `/` or a .yaml/.yml name) is relative to the file that names it, never to
    // the working directory; anything else is a preset.
    var path: String?
    if reference.contains("/") || reference.hasSuffix(".yaml") || reference.hasSuffix(".yml") {
      path = reference.hasPrefix("/")
        ? reference
        : URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(reference).path
    } else {
      path = library.presetPath(for: reference)
    }
    guard let path, FileManager.default.fileExists(atPath: path) else {
      var message = "\"extends\": no material named \"\(reference)\""
      if let close = suggestion(for: reference, among: library.presetNames) {
        message += "; did you mean \"\(close)\"?"
      }
      reader.sink.error(message, at: location)
      return nil
    }
    let canonical = URL(fileURLWithPath: path).standardizedFileURL.path
    if let start = chain.firstIndex(where: { URL(fileURLWithPath: $0).standardizedFileURL.path == canonical }) {
      let cycle = (chain[start...] + [path]).map { URL(fileURLWithPath: $0).lastPathComponent }
      reader.sink.error(
        "\"extends\": cycle: \(cycle.joined(separator: " -> "))", at: location)
      return nil
    }
    var parentSink = DiagnosticSink()
    reader.sink.sources.append(path)
    defer { reader.sink.sources += parentSink.sources }
    let parent: MaterialSpec?
    do {
      parent = try load(path: path, library: library, chain: chain, sink: &parentSink)
    } catch {
      reader.sink.error("\"extends\": \(error)", at: location)
      return nil
    }
    for diagnostic in parentSink.diagnostics {
      reader.sink.error(diagnostic.message, at: diagnostic.location)
    }
    return parent
  }

  static let topLevelKeys = [
    "description", "extends", "surface", "lights", "environment", "relief", "shading", "background",
  ]
  static let surfaceKeys = ["base", "specular", "shininess", "ambient", "metallic", "model", "fresnel"]
  static let environmentKeys = [
    "intensity", "sky", "horizon", "ground", "band", "band-width", "horizon-angle", "softboxes",
  ]
  static let softboxKeys = ["angle", "altitude", "width", "height", "color", "intensity"]
  static let reliefKeys = ["radius", "profile", "depth", "scale", "direction", "soften"]
  static let shadingKeys = ["size"]
  static let lightKeys = ["kind", "position", "angle", "altitude", "color", "intensity", "target", "cone"]

  /// A YAML error's message and where to report it: a quoted string that never closes is
  /// reported where it opens, a tab in the indentation at the tab; no message holds the
  /// file's text.
  private static func describe(_ error: YamlError, yaml: String, file: String) -> (String, SourceLocation) {
    func at(_ mark: Mark?) -> SourceLocation {
      SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }
    switch error {
    case .scanner(let context, let problem, let mark, _),
      .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      if let tab = tabInIndentation(yaml, near: mark) {
        return ("a tab is used for indentation; YAML indents with spaces only", SourceLocation(file: file, line: tab.line, column: tab.column))
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
      while let last = levels.last, last.indent > i || (isItem && last.indent == i) { levels.removeLast() }
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
  /// Keys renamed because they repeat an earlier key of their mapping (`DuplicateKeys`).
  var duplicates: [String: String] = [:]

  /// A key's node and the value's node.
  struct Field {
    var key: Node
    var value: Node
  }

  func location(_ node: Node) -> SourceLocation {
    SourceLocation(
      file: file, line: node.mark?.line ?? 1, column: (node.mark?.column ?? 1) + columnOffset)
  }

  /// The fields of a mapping; unknown and duplicate keys are reported (and skipped).
  mutating func fields(_ node: Node, path: String?, allowed: [String]) -> [String: Field]? {
    guard let mapping = node.mapping else {
      let what = path.map { "\"\($0)\": expected a mapping of keys" } ?? "expected a mapping of keys at the top of the file"
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
        sink.error("\"\(path.map { "\($0).\(original)" } ?? original)\": duplicate key", at: location(key))
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
        "\"\(path)\": must be in \(format(range.lowerBound))...\(format(range.upperBound)), got \(text)",
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
  /// `{hue: degrees, saturation: 0...1, brightness: 0...1}`. Returns linear light.
  mutating func color(_ node: Node, path: String) -> SIMD3<Float>? {
    if node.mapping != nil {
      guard let fields = fields(node, path: path, allowed: ["hue", "saturation", "brightness"]) else {
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
        if let v = number(n, path: "\(path).saturation", range: 0...1) { saturation = v } else { ok = false }
      }
      if let n = fields["brightness"]?.value {
        if let v = number(n, path: "\(path).brightness", range: 0...1) { brightness = v } else { ok = false }
      }
      return ok ? ColorLiteral(hue: hue, saturation: saturation, brightness: brightness).linear : nil
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
        sink.error("\"\(path)\": must be an opaque color, got \"\(scalar.string)\"", at: location(node))
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
          "\"\(path)\": expected three numbers [x, y, z], got \(sequence.count)", at: location(node))
        return nil
      }
      let values = sequence.enumerated().map { number($0.element, path: "\(path)[\($0.offset)]", range: range) }
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
        if let value = number(n, path: "\(path).\(name)", range: range) { v[axis] = value } else { ok = false }
      }
      return ok ? v : nil
    }
    sink.error("\"\(path)\": expected [x, y, z], got \(describe(node))", at: location(node))
    return nil
  }

  mutating func apply(_ fields: [String: Field], to surface: inout Surface) {
    if let n = fields["base"]?.value, let v = color(n, path: "surface.base") { surface.base = v }
    if let n = fields["specular"]?.value, let v = color(n, path: "surface.specular") { surface.specular = v }
    if let n = fields["shininess"]?.value,
      let v = number(n, path: "surface.shininess", range: MaterialSpec.shininessRange)
    {
      surface.shininess = v
    }
    if let n = fields["ambient"]?.value, let v = number(n, path: "surface.ambient", range: MaterialSpec.unitRange) {
      surface.ambient = v
    }
    if let n = fields["metallic"]?.value, let v = number(n, path: "surface.metallic", range: MaterialSpec.unitRange) {
      surface.metallic = v
    }
    if let n = fields["model"]?.value, let v = choice(n, path: "surface.model", as: SpecularModel.self) {
      surface.model = v
    }
    read(fields, "fresnel", path: "surface", range: MaterialSpec.unitRange, into: &surface.fresnel)
  }

  /// Reads number `key` of `fields` (path `path.key`, in `range`) into `target`, when given.
  mutating func read(
    _ fields: [String: Field], _ key: String, path: String, range: ClosedRange<Float>, into target: inout Float
  ) {
    if let n = fields[key]?.value, let v = number(n, path: "\(path).\(key)", range: range) { target = v }
  }

  /// Reads color `key` of `fields` (path `path.key`) into `target`, when given.
  mutating func read(_ fields: [String: Field], _ key: String, path: String, into target: inout SIMD3<Float>) {
    if let n = fields[key]?.value, let v = color(n, path: "\(path).\(key)") { target = v }
  }

  mutating func apply(_ fields: [String: Field], to environment: inout Environment) {
    let path = "environment"
    read(fields, "intensity", path: path, range: MaterialSpec.intensityRange, into: &environment.intensity)
    read(fields, "sky", path: path, into: &environment.sky)
    read(fields, "horizon", path: path, into: &environment.horizon)
    read(fields, "ground", path: path, into: &environment.ground)
    read(fields, "band", path: path, into: &environment.band)
    read(fields, "band-width", path: path, range: Environment.bandRange, into: &environment.bandWidth)
    read(fields, "horizon-angle", path: path, range: Environment.angleRange, into: &environment.horizonAngle)
    if let node = fields["softboxes"]?.value {
      guard let sequence = node.sequence else {
        sink.error("\"\(path).softboxes\": expected a list of softboxes, got \(describe(node))", at: location(node))
        return
      }
      var boxes: [Softbox] = []
      for (index, item) in sequence.enumerated() {
        let itemPath = "\(path).softboxes[\(index)]"
        guard let box = self.fields(item, path: itemPath, allowed: MaterialLoader.softboxKeys) else { continue }
        var softbox = Softbox()
        read(box, "angle", path: itemPath, range: MaterialSpec.degreesRange, into: &softbox.angle)
        read(box, "altitude", path: itemPath, range: MaterialSpec.altitudeRange, into: &softbox.altitude)
        read(box, "width", path: itemPath, range: Softbox.sizeRange, into: &softbox.width)
        read(box, "height", path: itemPath, range: Softbox.sizeRange, into: &softbox.height)
        read(box, "color", path: itemPath, into: &softbox.color)
        read(box, "intensity", path: itemPath, range: MaterialSpec.intensityRange, into: &softbox.intensity)
        boxes.append(softbox)
      }
      environment.softboxes = boxes
    }
  }

  mutating func apply(_ fields: [String: Field], to relief: inout ReliefSpec) {
    if let n = fields["radius"]?.value, let v = number(n, path: "relief.radius", range: ReliefSpec.radiusRange) {
      relief.radius = v
    }
    if let n = fields["depth"]?.value,
      let v = number(n, path: "relief.depth", range: ReliefSpec.depthMultipleRange)
    {
      relief.depth = .radiusMultiple(v)
    }
    if let n = fields["scale"]?.value, let v = number(n, path: "relief.scale", range: ReliefSpec.scaleRange) {
      if fields["depth"] != nil {
        sink.error(
          "\"relief.scale\": give either \"relief.depth\" (a multiple of the radius) or \"relief.scale\" (Core Image's per-pixel slope factor), not both",
          at: location(n))
      }
      relief.depth = .scale(v)
    }
    if let n = fields["soften"]?.value, let v = number(n, path: "relief.soften", range: ReliefSpec.softenRange) {
      relief.soften = v
    }
    if let n = fields["profile"]?.value, let v = choice(n, path: "relief.profile", as: ReliefProfile.self) {
      relief.profile = v
    }
    if let n = fields["direction"]?.value, let v = choice(n, path: "relief.direction", as: ReliefDirection.self) {
      relief.direction = v
    }
  }

  /// A non-empty list of lights; each omitted key takes the light defaults.
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
      guard let fields = fields(item, path: path, allowed: MaterialLoader.lightKeys) else { continue }
      var light = Light(position: SIMD3(-1, 1, 1.5))
      apply(fields, path: path, node: item, to: &light)
      lights.append(light)
    }
    return lights
  }
}

extension NodeReader {
  /// Applies a light's fields (see the material reference) onto `light`.
  mutating func apply(_ fields: [String: Field], path: String, node: Node, to light: inout Light) {
    if let n = fields["kind"]?.value, let v = choice(n, path: "\(path).kind", as: LightKind.self) { light.kind = v }
    if let n = fields["position"]?.value,
      let v = vector(n, path: "\(path).position", range: MaterialSpec.positionRange)
    {
      light.position = v
    }
    if let n = fields["color"]?.value, let v = color(n, path: "\(path).color") { light.color = v }
    if let n = fields["intensity"]?.value,
      let v = number(n, path: "\(path).intensity", range: MaterialSpec.intensityRange)
    {
      light.intensity = v
    }
    if let n = fields["target"]?.value,
      let v = vector(n, path: "\(path).target", range: MaterialSpec.positionRange)
    {
      light.target = v
    }
    if let n = fields["cone"]?.value, let v = number(n, path: "\(path).cone", range: MaterialSpec.coneRange) {
      light.coneAngle = v
    }
    // A distant light may be given as Photoshop gives it: angle and altitude in degrees.
    let angleNode = fields["angle"]?.value
    let altitudeNode = fields["altitude"]?.value
    if angleNode != nil || altitudeNode != nil {
      if let position = fields["position"] {
        sink.error(
          "\"\(path).position\": give either a position or an angle and altitude, not both",
          at: location(position.key))
      } else if let kind = fields["kind"]?.value, light.kind != .distant {
        sink.error(
          "\"\(path).kind\": angle and altitude describe a distant light; write kind: distant or give a position",
          at: location(kind))
      } else {
        let angle = angleNode.flatMap { number($0, path: "\(path).angle", range: MaterialSpec.degreesRange) }
        let altitude = altitudeNode.flatMap {
          number($0, path: "\(path).altitude", range: MaterialSpec.altitudeRange)
        }
        if (angleNode == nil || angle != nil) && (altitudeNode == nil || altitude != nil) {
          light.kind = .distant
          light.position = Light.direction(angle: angle ?? 120, altitude: altitude ?? 30)
        }
      }
    }
    if light.kind == .distant, light.position == .zero {
      sink.error("\"\(path).position\": a distant light needs a direction other than [0, 0, 0]",
                 at: location(fields["position"]?.value ?? node))
    }
  }
}

extension MaterialLoader {
  /// Applies `key.path=value` settings (as `--set` gives them) on top of a resolved material,
  /// in order. Paths name a key as in a file: `surface.shininess`, `relief.profile`,
  /// `background`, `lights[0].intensity`, `lights[1].position`; `lights[N]` with N the number of
  /// lights adds one. Values are YAML (`0.5`, `[0, 1, 2]`, `{hue: 30}`); a value starting
  /// with `#` is a color. Problems are reported like a file's, located in the setting (file
  /// `--set`, line 1, the column within `key=value`).
  public static func apply(settings: [String], to material: MaterialSpec) throws -> MaterialSpec {
    var spec = material
    var sink = DiagnosticSink()
    for setting in settings {
      apply(setting, to: &spec, sink: &sink)
    }
    if sink.hasErrors { throw MaterialError(diagnostics: sink.diagnostics) }
    return spec
  }

  private static func apply(_ setting: String, to spec: inout MaterialSpec, sink: inout DiagnosticSink) {
    let file = "--set"
    guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
      sink.error("\"\(setting)\": expected key=value, such as surface.shininess=40", at: SourceLocation(file: file, line: 1, column: 1))
      return
    }
    let path = String(setting[..<equals])
    let text = String(setting[setting.index(after: equals)...])
    let valueColumn = path.unicodeScalars.count + 2
    // A shell user writes --set surface.base=#ff0000: in YAML that would be a comment.
    let yaml = text.hasPrefix("#") ? "\"\(text)\"" : text
    let value: Node
    do {
      value = try Yams.compose(yaml: yaml) ?? Node("", Tag(.null), .plain)
    } catch {
      sink.error("\"\(path)\": the value is not valid YAML: \(text)", at: SourceLocation(file: file, line: 1, column: valueColumn))
      return
    }
    // Locations inside the value point into the setting.
    var reader = NodeReader(file: file, sink: sink, columnOffset: valueColumn - 1)
    defer { sink = reader.sink }
    let at = SourceLocation(file: file, line: 1, column: 1)
    // Every part of the path names a key: "surface.", ".x" and "a..b" name nothing.
    let components = path.split(separator: ".", omittingEmptySubsequences: false)
    guard !components.contains(where: \.isEmpty) else {
      reader.sink.error("\"\(path)\": a key path has a name on each side of every dot, such as surface.shininess", at: at)
      return
    }
    let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
    let head = parts[0]
    let rest = parts.count > 1 ? parts[1] : nil
    func single(_ key: String) -> Node { Node([(Node(key), value)]) }

    if head.hasPrefix("lights[") && head.hasSuffix("]") {
      guard let index = Int(head.dropFirst(7).dropLast()), index >= 0, index <= spec.lights.count else {
        reader.sink.error("\"\(path)\": no light \(head.dropFirst(6)); the material has \(spec.lights.count) (index \(spec.lights.count) adds one)", at: at)
        return
      }
      var light = index < spec.lights.count ? spec.lights[index] : Light(position: SIMD3(-1, 1, 1.5))
      let mapping = rest.map(single) ?? value
      guard let fields = reader.fields(mapping, path: head, allowed: MaterialLoader.lightKeys) else { return }
      let before = reader.sink.diagnostics.count
      reader.apply(fields, path: head, node: mapping, to: &light)
      guard reader.sink.diagnostics.count == before else { return }
      if index < spec.lights.count { spec.lights[index] = light } else { spec.lights.append(light) }
      return
    }
    switch (head, rest) {
    case ("description", nil):
      if let v = reader.string(value, path: head) { spec.description = v }
    case ("background", nil):
      if let v = reader.background(value, path: head) { spec.background = v }
    case ("surface", let key?):
      if let fields = reader.fields(single(key), path: head, allowed: surfaceKeys) { reader.apply(fields, to: &spec.surface) }
    case ("relief", let key?):
      if let fields = reader.fields(single(key), path: head, allowed: reliefKeys) { reader.apply(fields, to: &spec.relief) }
    case ("environment", let key?):
      if let fields = reader.fields(single(key), path: head, allowed: environmentKeys) {
        reader.apply(fields, to: &spec.environment)
      }
    case ("shading", let key?):
      if let fields = reader.fields(single(key), path: head, allowed: shadingKeys), let size = fields["size"]?.value,
        let v = reader.integer(size, path: "shading.size", range: MaterialSpec.shadingSizeRange)
      {
        spec.shadingSize = v
      }
    default:
      var message = "\"\(path)\": not a key that can be set"
      let known = ["description", "background", "surface", "relief", "environment", "shading", "lights[0]"]
      if let close = suggestion(for: head, among: known) { message += "; did you mean \"\(close)\"?" }
      reader.sink.error(message, at: at)
    }
  }
}

/// A number as people write it: no trailing ".0".
func format(_ value: Float) -> String {
  value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
}
