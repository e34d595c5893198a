import EmbossModel
import EmbossSupport
import Yams

/// One value given on the command line on top of the material, as if written in its file:
/// `--set key=value`, or a flag such as `--radius` (which sets `relief.radius`).
///
/// Problems are
/// reported like a file's, located in the setting: `--set:1:COLUMN` (the column within
/// `key=value`) or the flag as written.
public struct MaterialSetting: Sendable, Equatable {
  /// Where the value came from: `--set`, or a flag and what followed it (`--radius 2mm`).
  public var origin: String
  /// A key path as in a file: `surface.shininess`, `lights[0].intensity`, `lights[1]`.
  public var key: String
  /// YAML (`0.5`, `[0, 1, 2]`, `{hue: 30}`); a value starting with `#` is a color.
  public var value: String
  /// From `--set key=value` (diagnostics count columns within it), not from a flag.
  public var isSet: Bool
  /// A `--set` without `=`.
  var malformed = false

  /// `key=value`, as `--set` gives it.
  public init(set text: String) {
    origin = "--set"
    isSet = true
    if let equals = text.firstIndex(of: "="), equals != text.startIndex {
      key = String(text[..<equals])
      value = String(text[text.index(after: equals)...])
    } else {
      key = text
      value = ""
      malformed = true
    }
  }

  /// A flag's value for a key (`--radius 2mm` at 300 dpi: `relief.radius`, `23.622`).
  public init(flag: String, written: String, key: String, value: String) {
    origin = written.isEmpty ? flag : "\(flag) \(written)"
    isSet = false
    self.key = key
    self.value = value
  }
}

extension MaterialLoader {
  /// The material a reference names (see `load`), with `settings` applied on top.
  public static func load(
    _ reference: String, library: MaterialLibrary, settings: [MaterialSetting],
    sources: inout [String]
  ) throws -> MaterialSpec {
    try apply(settings, to: try load(reference, library: library, sources: &sources))
  }

  /// The material a reference names, read through `inputs` (see `load`), with `settings`
  /// applied on top.
  public static func load(
    _ reference: String, library: MaterialLibrary, settings: [MaterialSetting],
    sources: inout [String], inputs: inout InputSnapshot
  ) throws -> MaterialSpec {
    try apply(
      settings, to: try load(reference, library: library, sources: &sources, inputs: &inputs))
  }

  /// Applies `key=value` settings (as `--set` gives them), in order.
  public static func apply(settings: [String], to material: MaterialSpec) throws -> MaterialSpec {
    try apply(settings.map(MaterialSetting.init(set:)), to: material)
  }

  /// Applies settings on top of a resolved material, in order; throws `MaterialError` with
  /// every problem.
  ///
  /// `lights[N]` with N the number of lights adds one.
  public static func apply(_ settings: [MaterialSetting], to material: MaterialSpec) throws
    -> MaterialSpec
  {
    var spec = material
    var sink = DiagnosticSink()
    for setting in settings {
      apply(setting, to: &spec, sink: &sink, anyLight: false)
    }
    if sink.hasErrors { throw MaterialError(sink) }
    return spec
  }

  /// The problems settings have whatever material they are applied to (syntax, unknown keys,
  /// types, ranges), for checking arguments before any file is read: a light index is taken
  /// to exist.
  ///
  /// Nil when there are none; else the first `DiagnosticSink.limit` and a count of the rest.
  public static func problems(in settings: [MaterialSetting]) -> MaterialError? {
    var spec = MaterialSpec.builtIn
    var sink = DiagnosticSink()
    for setting in settings {
      apply(setting, to: &spec, sink: &sink, anyLight: true)
    }
    return sink.hasErrors ? MaterialError(sink) : nil
  }

  /// The sections set a key at a time (`surface.shininess=40`) or whole
  /// (`surface={shininess: 40, base: gold}`), over the material's own.
  private static let sections = [
    "surface", "relief", "shadow", "occlusion", "detail", "camera", "environment", "shading",
  ]

  private static func apply(
    _ setting: MaterialSetting, to spec: inout MaterialSpec, sink: inout DiagnosticSink,
    anyLight: Bool
  ) {
    let file = setting.origin
    let line = setting.isSet ? 1 : 0
    let path = setting.key
    let at = SourceLocation(file: file, line: line, column: 1)
    guard !setting.malformed else {
      sink.error("\"\(path)\": expected key=value, such as surface.shininess=40", at: at)
      return
    }
    let text = setting.value
    let valueColumn = setting.isSet ? path.unicodeScalars.count + 2 : 1
    // A shell user writes --set surface.base=#ff0000: in YAML that would be a comment.
    let yaml = text.hasPrefix("#") ? "\"\(text)\"" : text
    let value: Node
    do {
      value = try Yams.compose(yaml: yaml, .basic) ?? Node("", Tag(.null), .plain)
    } catch {
      sink.error(
        "\"\(path)\": the value is not valid YAML: \(Diagnostic.shortened(text))",
        at: SourceLocation(file: file, line: line, column: valueColumn))
      return
    }
    // Locations inside the value point into the setting (flags have no columns).
    var reader = NodeReader(file: file, sink: sink, columnOffset: valueColumn - 1)
    reader.lineOverride = setting.isSet ? nil : 0
    defer { sink = reader.sink }
    // Every part of the path names a key: "surface.", ".x" and "a..b" name nothing.
    let components = path.split(separator: ".", omittingEmptySubsequences: false)
    guard !components.contains(where: \.isEmpty) else {
      reader.sink.error(
        "\"\(path)\": a key path has a name on each side of every dot, such as surface.shininess",
        at: at)
      return
    }
    let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
    let head = parts[0]
    let rest = parts.count > 1 ? parts[1] : nil
    func single(_ key: String) -> Node { Node([(Node(key), value)]) }
    func update(_ build: () throws(ParameterError) -> MaterialSpec) {
      do {
        spec = try build()
      } catch {
        reader.sink.error(error.description, at: at)
      }
    }

    // A section's unknown key, at the key (the value's node, made from the text after `=`,
    // would put it at the value).
    if let key = rest, Self.sections.contains(head),
      !(head == "environment" && key.hasPrefix("softboxes[")),
      case let allowed = Parameters.keys(in: head), !allowed.contains(key)
    {
      var message = "\"\(path)\": unknown key"
      if let close = suggestion(for: key, among: allowed) {
        message += "; did you mean \"\(close)\"?"
      } else {
        message += " (known keys: \(allowed.joined(separator: ", ")))"
      }
      reader.sink.error(
        message,
        at: SourceLocation(
          file: file, line: line, column: setting.isSet ? head.unicodeScalars.count + 2 : 1))
      return
    }

    if head.hasPrefix("lights[") && head.hasSuffix("]") {
      let count = spec.lights.count
      guard var index = Int(head.dropFirst(7).dropLast()), index >= 0, anyLight || index <= count
      else {
        reader.sink.error(
          "\"\(path)\": no light \(head.dropFirst(6)); the material has \(count) (index \(count) adds one)",
          at: at)
        return
      }
      if anyLight { index = min(index, count) }
      let mapping = rest.map(single) ?? value
      guard
        let fields = reader.fields(mapping, path: head, allowed: Parameters.keys(in: "lights[]"))
      else { return }
      let base = index < count ? spec.lights[index] : .standard
      guard let light = reader.light(fields, path: head, node: mapping, over: base) else { return }
      var lights = spec.lights
      if index < count { lights[index] = light } else { lights.append(light) }
      update { () throws(ParameterError) in try spec.replacing(lights: lights) }
      return
    }
    switch (head, rest) {
    case ("description", nil):
      if let v = reader.string(value, path: head) {
        update { () throws(ParameterError) in try spec.replacing(description: v) }
      }
    case ("background", nil):
      if let v = reader.background(value, path: head) {
        update { () throws(ParameterError) in try spec.replacing(background: v) }
      }
    case ("surface", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let surface = reader.surface(fields, over: spec.surface, at: value)
        update { () throws(ParameterError) in try spec.replacing(surface: surface) }
      }
    case ("relief", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let relief = reader.relief(fields, over: spec.relief, at: value)
        update { () throws(ParameterError) in try spec.replacing(relief: relief) }
      }
    case ("shadow", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let shadow = reader.shadow(fields, over: spec.shadow, at: value)
        update { () throws(ParameterError) in try spec.replacing(shadow: shadow) }
      }
    case ("occlusion", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let occlusion = reader.occlusion(fields, over: spec.occlusion, at: value)
        update { () throws(ParameterError) in try spec.replacing(occlusion: occlusion) }
      }
    case ("detail", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let detail = reader.detail(fields, over: spec.detail, at: value)
        update { () throws(ParameterError) in try spec.replacing(detail: detail) }
      }
    case ("camera", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let camera = reader.camera(fields, over: spec.camera, at: value)
        update { () throws(ParameterError) in try spec.replacing(camera: camera) }
      }
    case ("plate", let key?):
      // plate.surface.base=..., plate.detail.grain=...: the section's keys under the plate's
      // (which starts from the letters' surface).
      let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
      let mapping = parts.count == 2 ? Node([(Node(parts[1]), value)]) : value
      guard let section = parts.first, Parameters.keys(in: "plate").contains(section) else {
        reader.sink.error(
          "\"\(path)\": not a key that can be set; the plate takes plate.surface.KEY and plate.detail.KEY",
          at: at)
        return
      }
      let base = spec.plate ?? PlateSpec(surface: spec.surface)
      let errors = reader.sink.errorCount
      let plate = reader.plate(
        [section: NodeReader.Field(key: Node(section), value: mapping)], over: base)
      guard reader.sink.errorCount == errors else { return }
      update { () throws(ParameterError) in try spec.replacing(plate: .some(plate)) }
    case ("environment", let key?) where key.hasPrefix("softboxes["):
      // environment.softboxes[N].KEY=value or environment.softboxes[N]={...}: one softbox's
      // keys over its own (N the count adds one).
      let boxes = spec.environment.softboxes
      let count = boxes.count
      let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
      let item = parts[0]
      guard item.hasSuffix("]"), var index = Int(item.dropFirst(10).dropLast()), index >= 0
      else {
        reader.sink.error(
          "\"\(path)\": a softbox is environment.softboxes[N], N a number from 0",
          at: at)
        return
      }
      guard anyLight || index <= count else {
        reader.sink.error(
          "\"\(path)\": no softbox \(item.dropFirst(9)); the material has \(count) (index \(count) adds one)",
          at: at)
        return
      }
      if anyLight { index = min(index, count) }
      let itemPath = "environment.\(item)"
      let mapping = parts.count == 2 ? single(parts[1]) : value
      guard
        let fields = reader.fields(
          mapping, path: itemPath, allowed: Parameters.keys(in: "environment.softboxes[]")),
        let box = reader.softbox(
          fields, path: itemPath, over: index < count ? boxes[index] : nil, at: mapping)
      else { return }
      var list = boxes
      if index < count { list[index] = box } else { list.append(box) }
      let e = spec.environment
      update { () throws(ParameterError) in
        try spec.replacing(
          environment: Environment(
            intensity: e.intensity, sky: e.sky, horizon: e.horizon, ground: e.ground,
            band: e.band, bandWidth: e.bandWidth, horizonAngle: e.horizonAngle,
            horizonSoftness: e.horizonSoftness, softboxes: list))
      }
    case ("environment", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head))
      {
        let environment = reader.environment(fields, over: spec.environment, at: value)
        update { () throws(ParameterError) in try spec.replacing(environment: environment) }
      }
    case ("shading", let key):
      if let fields = reader.fields(
        key.map(single) ?? value, path: head, allowed: Parameters.keys(in: head)),
        let size = fields["size"]?.value,
        let v = reader.integer(
          size, path: Parameters.shadingSize.key, range: Parameters.shadingSize.range)
      {
        update { () throws(ParameterError) in try spec.replacing(shadingSize: v) }
      }
    default:
      var message = "\"\(path)\": not a key that can be set"
      let known =
        Parameters.topLevelKeys.filter { $0 != "extends" && $0 != "lights" } + ["lights[0]"]
      if head == "plate" || head == "lights" {
        message +=
          head == "plate"
          ? "; the plate takes plate.surface.KEY and plate.detail.KEY"
          : "; a light is lights[N], N a number from 0"
      } else if let close = suggestion(for: head, among: known), close != head {
        message += "; did you mean \"\(close)\"?"
      }
      reader.sink.error(message, at: at)
    }
  }
}
