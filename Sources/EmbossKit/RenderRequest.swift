import Foundation

/// Why a request is not valid: one message, naming parameters as `{key}` so that each caller
/// names them its own way (the command line `--key`, a batch `key`, see `message(naming:)`).
public struct RequestError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The message, with `{key}` for each option it names.
  public let template: String

  init(_ template: String) { self.template = template }

  /// A library error's message (an `EmbossError`'s, which names options as `{key}` where
  /// the request gave them).
  init(_ error: any Error) {
    self.template = (error as? EmbossError)?.message ?? "\(error)"
  }

  /// The message with each `{key}` named by `name` (the option's key when `name` is nil).
  public func message(naming name: (RenderOption) -> String) -> String {
    var out = ""
    var rest = Substring(template)
    while let open = rest.firstIndex(of: "{") {
      out += rest[..<open]
      guard let close = rest[open...].firstIndex(of: "}"),
        let option = RenderOption.named(String(rest[rest.index(after: open)..<close]))
      else {
        out.append("{")
        rest = rest[rest.index(after: open)...]
        continue
      }
      out += name(option)
      rest = rest[rest.index(after: close)...]
    }
    return out + rest
  }

  /// The message as the command line says it: `--size`.
  public var description: String { message { "--" + $0.key } }
}

extension EmbossError {
  /// The message with the options it names as `{key}` (a render's errors that come from an
  /// option, such as `{cut-region}`) named as the command line does: `--cut-region`.
  public var commandLineMessage: String { RequestError(message).description }
}

/// One whole render, checked: the text or picture, the font and its features, the layout, the
/// material and its overrides, the relief, and every output with its options.
///
/// A request is made only by its checking initializer (from option values, as the command
/// line, a batch row or JSON give them), so every value it holds is valid; the files it
/// names are read when it is resolved (`job(resources:)`), which is where a missing font or
/// picture is found. Its options are `RenderOption.all`; `values` is its canonical form,
/// which its JSON holds and a batch's resume hash covers.
public struct RenderRequest: Sendable, Equatable {
  /// Two requests are equal when they have the same text and values.
  public static func == (lhs: RenderRequest, rhs: RenderRequest) -> Bool {
    lhs.text == rhs.text && lhs.values == rhs.values
  }

  /// One option's value as written: `size` = `20mm`, `mirror` = `true`.
  public struct Value: Sendable, Hashable {
    /// The option.
    public let option: RenderOption
    /// Its value as written.
    public let value: String

    /// A value for `option`.
    public init(_ option: RenderOption, _ value: String) {
      self.option = option
      self.value = value
    }
  }

  /// The text (real newlines); nil with `text-file` or `mask`.
  public let text: String?
  /// Every option given, in the table's order (a list's values in their order); a flag's
  /// value is `true` or `false`.
  public let values: [Value]

  /// What the values say, each checked.
  let parts: Parts

  /// A request from option values in any order; an option given twice takes its last value
  /// (a list takes them all).
  ///
  /// Throws `RequestError` for a value that does not parse, is out of range, or does not go
  /// with another (a physical length without `dpi`, `svg` without `dpi`, an output that is
  /// also an input, ...).
  public init(text: String?, values: [Value]) throws(RequestError) {
    if let value = values.first(where: { $0.option.scope == .run }) {
      throw RequestError("{\(value.option.key)} is not part of a request")
    }
    var reader = ValueReader(values)
    self.text = text
    self.values = RenderOption.all.flatMap { option in
      (reader.values[option] ?? []).map { Value(option, $0) }
    }
    self.parts = try Parts(text: text, reader: &reader)
  }

  /// The value given for `option` (the last, for a list), or nil.
  public func value(_ option: RenderOption) -> String? {
    values.last { $0.option == option }?.value
  }

  /// The picture's path (`-` for standard output).
  public var output: String { parts.plan.image }

  /// Every path the render writes, with its option.
  public var outputs: [(option: RenderOption, path: String)] {
    parts.plan.paths.map { (RenderOption.named($0.option) ?? .output, $0.path) }
  }

  /// The request with every file it reads read once, into the job's `inputs`.
  ///
  /// The files are the material file and every file it extends, the font file (a pattern's
  /// match too), a mask picture, a text file (standard input included) and a shading image.
  /// The render takes these
  /// bytes, and `ResolvedRequest.digest` covers them, so what a batch hashes is what it
  /// renders.
  ///
  /// Throws for a file that cannot be read and a font pattern that matches nothing; a
  /// material with errors is the render's error (`RenderJob.run`), with every problem.
  public func resolve(resources: Resources, parallelism: Parallelism = .allCores) throws
    -> ResolvedRequest
  {
    var inputs = InputSnapshot()
    var sources: [String] = []
    _ = try? MaterialLoader.load(
      parts.material, library: resources.materialLibrary, sources: &sources, inputs: &inputs)
    if let conflict = OutputConflicts.overwritesMaterial(
      outputs: parts.plan.paths.map { (option: "{\($0.option)}", path: $0.path) },
      sources: sources)
    {
      throw EmbossError(conflict)
    }
    let source: MaskSource
    switch parts.source {
    case .picture(let picture):
      try inputs.read(picture.path, what: "picture")
      source = .picture(picture)
    case .text(let text), .textFile(let text):
      let face = try parts.font.map {
        try TextMask.font($0, index: parts.faceIndex, resources: resources)
      }
      if let face { try inputs.read(face.path, what: "font", limit: Font.fileLimit) }
      let body: String
      if case .textFile(let path) = parts.source {
        try inputs.read(
          path == "-" ? "/dev/stdin" : path, what: "text", limit: TextMask.fileLimit)
        body = try TextMask.read(file: path, inputs: inputs)
      } else {
        body = text
      }
      var mask = parts.text
      mask.text = parts.textCase?.apply(body) ?? body
      mask.fontPath = face?.path
      mask.fontIndex = face?.index ?? parts.faceIndex ?? 0
      source = .text(mask)
    }
    if let shading = parts.shadingImage { try inputs.read(shading, what: "picture") }
    if let backdrop = parts.backgroundImage { try inputs.read(backdrop, what: "picture") }
    return ResolvedRequest(
      request: self,
      job: RenderJob(
        mask: source, material: parts.material, settings: parts.settings,
        shadingImagePath: parts.shadingImage, backgroundImagePath: parts.backgroundImage,
        backgroundFit: parts.backgroundFit, output: parts.plan, parallelism: parallelism,
        limits: parts.limits, inputs: inputs))
  }

  /// The job: the font pattern matched and every file read (`resolve`), every value as the
  /// pipeline takes it.
  public func job(resources: Resources, parallelism: Parallelism = .allCores) throws -> RenderJob {
    try resolve(resources: resources, parallelism: parallelism).job
  }

  /// The value of a flag: true when given as true.
  func flag(_ option: RenderOption) -> Bool {
    value(option).flatMap(RenderOption.flagValue) ?? false
  }
}

/// A request whose files are read (`RenderRequest.resolve`): its job renders from the
/// bytes read, and its digest covers them.
public struct ResolvedRequest: Sendable {
  /// The request.
  public let request: RenderRequest
  /// The render, reading its files from `inputs`.
  public let job: RenderJob

  /// Every file the render reads, with its bytes and their SHA-256, in reading order.
  public var inputs: InputSnapshot { job.inputs }

  /// The SHA-256 of everything the render's outputs depend on.
  ///
  /// That is emboss's `version` (which covers the bundled font and the code), the request's
  /// text and values, and every file it reads, by path and content. Two resolved requests
  /// with one digest render the same bytes.
  public func digest(version: String) -> String {
    var words = [version, "text", request.text ?? ""]
    words += request.values.map { $0.option.key + "=" + $0.value }
    words.append("files")
    for file in inputs.files { words += [file.path, file.sha256] }
    return SHA256Digest.hex(Data(words.joined(separator: "\u{0}").utf8))
  }
}

extension RenderRequest: Codable {
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// `{"text": "Hi", "size": "20mm", "set": ["surface.shininess=60"], "mirror": true, ...}`:
  /// a value is a string, a number or (for a flag) a boolean; a list option is an array.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    var text: String? = nil
    var values: [Value] = []
    for key in container.allKeys {
      if key.stringValue == "text" {
        text = try container.decode(String.self, forKey: key)
        continue
      }
      guard let option = RenderOption.named(key.stringValue), option.scope != .run else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container,
          debugDescription: "'\(key.stringValue)' is not an option of a render")
      }
      func scalar(_ key: Key) throws -> String {
        if let bool = try? container.decode(Bool.self, forKey: key) { return String(bool) }
        if let string = try? container.decode(String.self, forKey: key) { return string }
        if let number = try? container.decode(Double.self, forKey: key) {
          return number == number.rounded() && abs(number) < 1e15
            ? String(Int(number)) : String(number)
        }
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container,
          debugDescription: "'\(key.stringValue)' takes a string, a number or true/false")
      }
      if option.kind == .list, let list = try? container.decode([String].self, forKey: key) {
        values += list.map { Value(option, $0) }
      } else {
        values.append(Value(option, try scalar(key)))
      }
    }
    do {
      try self.init(text: text, values: values)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: [], debugDescription: error.message { $0.key }))
    }
  }

  /// The text and the values, as `init(from:)` reads them.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    if let text { try container.encode(text, forKey: Key(stringValue: "text")) }
    var lists: [RenderOption: [String]] = [:]
    for value in values {
      let key = Key(stringValue: value.option.key)
      switch value.option.kind {
      case .list: lists[value.option, default: []].append(value.value)
      case .flag: try container.encode(RenderOption.flagValue(value.value) ?? false, forKey: key)
      case .value: try container.encode(value.value, forKey: key)
      }
    }
    for (option, list) in lists { try container.encode(list, forKey: Key(stringValue: option.key)) }
  }
}

extension RenderRequest {
  /// Where the mask comes from, checked.
  enum Source: Sendable, Equatable {
    case text(String)
    case textFile(String)
    case picture(PictureMask)
  }

  /// The request's values as the pipeline's types, each checked once.
  struct Parts: Sendable {
    var source: Source
    /// A font file or a fontconfig pattern; nil: the bundled font.
    var font: String?
    /// The text's case, or as written.
    var textCase: TextCase?
    var faceIndex: Int?
    /// Style, sizes, canvas and fallback; the text and font are set when resolved.
    var text: TextMask
    var material: String
    var settings: [MaterialSetting]
    var shadingImage: String?
    var backgroundImage: String?
    var backgroundFit: Backdrop.Fit
    var plan: OutputPlan
    var limits: RenderLimits

    init(text: String?, reader r: inout ValueReader) throws(RequestError) {
      typealias O = RenderOption
      let dpi = try r.dpi()
      func pixels(_ option: RenderOption, negative: Bool = false) throws(RequestError) -> Double? {
        try r.pixels(option, dpi: dpi, negative: negative)
      }

      // The mask.
      let textFile = r.string(.textFile)
      let maskPath = r.string(.mask)
      if textFile != nil, text != nil {
        throw RequestError("give the text or {text-file}, not both")
      }
      if text == nil, textFile == nil, maskPath == nil {
        throw RequestError(
          "no text to emboss: give it as an argument (emboss render \"Hello\" -o hello.png), or {text-file} FILE, or a picture with {mask} FILE"
        )
      }
      if textFile != nil, maskPath != nil {
        throw RequestError("give {text-file} or {mask}, not both")
      }
      let threshold = try r.integer(.maskThreshold) ?? 128
      guard (0...255).contains(threshold) else {
        throw RequestError("{mask-threshold} must be in 0...255, got \(threshold)")
      }
      let maskMode: MaskMode = try r.choice(.maskMode) ?? .threshold
      let invert = try r.flag(.invertMask)
      if let maskPath {
        source = .picture(
          PictureMask(path: maskPath, mode: maskMode, invert: invert, threshold: threshold))
      } else if let textFile {
        source = .textFile(textFile)
      } else {
        source = .text(text ?? "")
      }

      // The font and the layout.
      font = r.string(.font)
      textCase = try r.choice(.textCase)
      faceIndex = try r.integer(.faceIndex)
      if let faceIndex, !(0...65_535).contains(faceIndex) {
        throw RequestError("{face-index} must be in 0...65535, got \(faceIndex)")
      }
      if faceIndex != nil, maskPath != nil {
        throw RequestError("{face-index} needs text, not {mask}")
      }
      var size = TextStyle.referenceSize
      if let written = r.string(.size), let pixels = try pixels(.size) {
        guard pixels >= 1, pixels <= 10_000 else {
          throw RequestError(
            Length.parse(written)?.isPhysical == true
              ? "{size} \(written) is \(pixels) pixels; it must be 1...10000 pixels"
              : "{size} must be in 1...10000 pixels, got \(written)")
        }
        size = Float(pixels)
      }
      let spacing = try pixels(.letterSpacing, negative: true) ?? 0
      guard abs(spacing) <= 10_000 else {
        throw RequestError(
          "{letter-spacing} must be within 10000 pixels either way, got \(r.string(.letterSpacing) ?? "")"
        )
      }
      let lineHeight = try r.number(.lineHeight, Float.self) ?? 1
      guard lineHeight.isFinite, lineHeight > 0, lineHeight <= 100 else {
        throw RequestError("{line-height} must be in (0, 100], got \(formatNumber(lineHeight))")
      }
      let padding = try pixels(.padding)
      if let padding, padding > 100_000 {
        throw RequestError(
          "{padding} must be in 0...100000 pixels, got \(r.string(.padding) ?? "")")
      }
      let inkHeight = try pixels(.height)
      if let inkHeight, !(2...20_000).contains(inkHeight) {
        throw RequestError(
          "{height} \(r.string(.height) ?? "") is \(inkHeight) pixels; it must be 2...20000 pixels")
      }
      let capHeight = try pixels(.capHeight)
      if let capHeight {
        if r.string(.size) != nil { throw RequestError("give {cap-height} or {size}, not both") }
        if inkHeight != nil { throw RequestError("give {cap-height} or {height}, not both") }
        guard capHeight >= 1, capHeight <= 10_000 else {
          throw RequestError(
            "{cap-height} \(r.string(.capHeight) ?? "") is \(capHeight) pixels; it must be 1...10000 pixels"
          )
        }
      }
      var canvas: CanvasSize? = nil
      if let written = r.string(.canvas) {
        guard let (w, h) = Length.parseSize(written) else {
          throw RequestError(
            "{canvas} \(written): expected WIDTHxHEIGHT with positive lengths such as 1000x200 or 100mmx30mm"
          )
        }
        let width: Double
        let height: Double
        do {
          width = try w.pixels(dpi: dpi, option: "{canvas}", dpiName: "{dpi}")
          height = try h.pixels(dpi: dpi, option: "{canvas}", dpiName: "{dpi}")
        } catch {
          throw RequestError(error.message)
        }
        guard width >= 1, height >= 1 else {
          throw RequestError("{canvas} \(w)x\(h) is under a pixel wide or high")
        }
        canvas = CanvasSize(width: Int(width.rounded()), height: Int(height.rounded()))
      }
      let features: FontFeatures
      let variations: FontVariations
      do {
        features = try r.string(.features).map { try FontFeatures(parsing: $0) } ?? .none
      } catch {
        throw RequestError("{features}: " + RequestError(error).template)
      }
      do {
        variations = try r.string(.variations).map { try FontVariations(parsing: $0) } ?? .none
      } catch {
        throw RequestError("{variations}: " + RequestError(error).template)
      }
      // A picture keeps its own frame unless asked: --canvas centers its ink on a canvas of
      // that size, --padding puts that margin around its ink.
      if case .picture(var picture) = source {
        picture.padding = padding.map(Float.init)
        picture.canvas = canvas
        source = .picture(picture)
      }
      self.text = TextMask(
        text: "",
        style: TextStyle(
          pixelSize: size, alignment: try r.choice(.align) ?? .center,
          letterSpacing: Float(spacing),
          lineHeight: lineHeight, padding: padding.map(Float.init),
          direction: try r.choice(.textDirection) ?? .auto, features: features,
          variations: variations),
        inkHeight: inkHeight, capHeight: capHeight, canvas: canvas,
        fallback: !(try r.flag(.noFallback)))

      // The material and its overrides.
      material = r.string(.material) ?? Resources.defaultMaterialName
      settings = try r.materialSettings(dpi: dpi)
      shadingImage = r.string(.shadingImage)
      backgroundImage = r.string(.backgroundImage)
      backgroundFit = try r.choice(.backgroundFit) ?? .fill

      // The outputs.
      let (image, format, depth, compression) = try r.picture()
      let engravePath = r.string(.engrave)
      let depthMapPath = r.string(.depthMap)
      for (option, path) in [(O.engrave, engravePath), (O.depthMap, depthMapPath)] {
        guard let path else { continue }
        do {
          _ = try PictureFormat.forOutput(path, option: "{\(option.key)}", allowed: [.png])
        } catch {
          throw RequestError(error.message)
        }
      }
      let engraveOptions = try r.engraveOptions(dpi: dpi)
      var laser = LaserRequest()
      laser.engraveOptions = engraveOptions
      laser.engrave = engravePath
      if let depthMapPath {
        laser.depthMap = (
          depthMapPath, try r.bitDepth(.depthMapBits) ?? .sixteen, try r.flag(.depthMapInvert)
        )
      }
      let cutOffset = try pixels(.cutOffset, negative: true) ?? 0
      guard cutOffset > -1000 else {
        throw RequestError(
          "{cut-offset} must be more than -1000 pixels, got \(r.string(.cutOffset) ?? "")")
      }
      let cutMinSize = try pixels(.cutMinSize) ?? 0
      let cutWidth = try pixels(.cutWidth)
      if let cutWidth, cutWidth <= 0 { throw RequestError("{cut-width} must be more than 0") }
      let cutColorText = r.string(.cutColor) ?? SVGDocument.cutColor
      let cutColor: String
      switch ColorLiteral.parse(cutColorText) {
      case .success(let color):
        // Laser software picks a line's layer by its RGB color and burns it whatever its
        // opacity: a see-through cut color would be dropped without a word.
        guard color.alpha >= 1 else {
          throw RequestError(
            "{cut-color} \(cutColorText): a cut line's color is opaque (laser software picks its layer by the RGB color); leave out the alpha"
          )
        }
        cutColor = color.hex
      case .failure(let error): throw RequestError("{cut-color} \(cutColorText): \(error.message)")
      }
      var cutRegion: (x: Int, y: Int)? = nil
      if let written = r.string(.cutRegion) {
        let parts = written.split(separator: ",").map {
          Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2, let x = parts[0], let y = parts[1] else {
          throw RequestError("{cut-region} \(written): expected x,y in pixels such as 10,20")
        }
        cutRegion = (x, y)
      }
      let cutJoin: CutLine.Join = try r.choice(.cutJoin) ?? .round
      let inkVectors: SVGDocument.InkVectors? = try r.choice(.inkVectors)
      let cutOuter = try r.flag(.cutOuter)
      if let svg = r.string(.svg) {
        guard let dpi else {
          throw RequestError("{svg} needs {dpi}: the SVG's size is in millimeters")
        }
        laser.svg = SVGRequest(
          path: svg, cutOffset: cutOffset, cutJoin: cutJoin, cutRegion: cutRegion,
          cutOuter: cutOuter,
          cutMinSize: cutMinSize, cutColor: cutColor,
          cutWidthMM: cutWidth.map { $0 * 25.4 / dpi } ?? SVGDocument.cutWidthMM,
          inkVectors: inkVectors)
      }
      let meshPlate: MeshSpec.Plate? = try r.choice(.meshPlate)
      let meshSplit = try r.flag(.meshSplit)
      let millimetres = 25.4 / (dpi ?? 96)
      let meshHeight =
        try pixels(.meshHeight, negative: true).map { $0 * millimetres } ?? MeshSpec.defaultHeight
      let meshBase =
        try pixels(.meshBase, negative: true).map { $0 * millimetres } ?? MeshSpec.defaultBase
      let meshWall = try pixels(.meshWall, negative: true).map { $0 * millimetres } ?? 0
      if let mesh = r.string(.mesh) {
        guard dpi != nil else {
          throw RequestError("{mesh} needs {dpi}: the model's size is in millimeters")
        }
        guard let format = MeshFile.Format(path: mesh) else {
          throw RequestError("{mesh} \(mesh): the name must end in .stl or .3mf")
        }
        guard meshHeight > 0 else { throw RequestError("{mesh-height} must be more than 0") }
        guard meshBase >= 0 else { throw RequestError("{mesh-base} must not be negative") }
        guard meshWall >= 0 else { throw RequestError("{mesh-wall} must not be negative") }
        if meshSplit {
          guard format == .threeMF else {
            throw RequestError("{mesh-split} needs a .3mf {mesh}: an STL holds one object")
          }
          guard meshBase > 0 else {
            throw RequestError("{mesh-split} needs a plate: {mesh-base} more than 0")
          }
        }
        if meshPlate == .outline {
          guard meshBase > 0 else {
            throw RequestError("{mesh-plate} outline needs {mesh-base} more than 0")
          }
          guard cutOffset >= 0 else {
            throw RequestError(
              "{mesh-plate} outline needs a {cut-offset} of 0 or more: the plate holds the ink")
          }
        }
        laser.mesh = MeshRequest(
          path: mesh, format: format, height: meshHeight, base: meshBase, wall: meshWall,
          plate: meshPlate ?? .rectangle, plateOffset: cutOffset, plateJoin: cutJoin,
          split: meshSplit)
      } else if [O.meshHeight, .meshBase, .meshWall, .meshPlate].contains(where: {
        r.values[$0] != nil
      })
        || meshSplit
      {
        throw RequestError(
          "{mesh-height}, {mesh-base}, {mesh-wall}, {mesh-plate} and {mesh-split} need {mesh}")
      }
      plan = OutputPlan(
        image: image, format: format, depth: depth, compression: compression,
        resolution: dpi.map(Resolution.init(dpi:)), laser: laser,
        stagesDirectory: r.string(.saveStages))

      // The limits.
      let maxPixels = try r.integer(.maxPixels) ?? RenderLimits.default.maxPixels
      guard maxPixels > 0 else {
        throw RequestError("{max-pixels} must be positive, got \(maxPixels)")
      }
      var maxMemory = RenderLimits.defaultMemory
      if let written = r.string(.maxMemory) {
        guard let bytes = RenderLimits.parseBytes(written) else {
          throw RequestError(
            "{max-memory} \(written): expected a size such as 8G, 512M or 100000000 (bytes)")
        }
        maxMemory = bytes
      }
      limits = RenderLimits(maxPixels: maxPixels, maxMemory: maxMemory)

      // No output overwrites an input or another output.
      var inputs: [(option: String, path: String)] = []
      if let maskPath { inputs.append(("{mask}", maskPath)) }
      if let textFile, textFile != "-" { inputs.append(("{text-file}", textFile)) }
      if let font, FontCatalog.isPath(font) { inputs.append(("{font}", font)) }
      if let shadingImage { inputs.append(("{shading-image}", shadingImage)) }
      if let backgroundImage { inputs.append(("{background-image}", backgroundImage)) }
      if FileManager.default.fileExists(atPath: material) {
        inputs.append(("{material}", material))
      }
      let outputs = plan.paths.map { (option: "{\($0.option)}", path: $0.path) }
      if let conflict = OutputConflicts.check(outputs: outputs, inputs: inputs) {
        throw RequestError(conflict)
      }
    }

  }

  /// Reads the values of options, each parsed as its type or a `RequestError` naming it.
  struct ValueReader {
    let values: [RenderOption: [String]]

    func string(_ option: RenderOption) -> String? { values[option]?.last }

    /// `dpi`, checked.
    func dpi() throws(RequestError) -> Double? {
      let dpi = try number(.dpi, Double.self)
      if let dpi, !(dpi.isFinite && Resolution.range.contains(dpi)) {
        throw RequestError("{dpi} must be in 1...100000, got \(dpi)")
      }
      return dpi
    }

    /// A length option in pixels at `dpi` (physical lengths need one).
    func pixels(_ option: RenderOption, dpi: Double?, negative: Bool = false) throws(RequestError)
      -> Double?
    {
      guard let length = try length(option) else { return nil }
      do {
        return try length.pixels(
          dpi: dpi, option: "{\(option.key)}", allowNegative: negative, dpiName: "{dpi}")
      } catch {
        throw RequestError(error.message)
      }
    }

    /// `material`'s overrides: `set` values, then the options that set material keys, each
    /// checked as a file's keys are.
    func materialSettings(dpi: Double?) throws(RequestError) -> [MaterialSetting] {
      let r = self
      let settings: [MaterialSetting]
      var flags = MaterialFlags()
      flags.radius = try r.length(.radius)
      flags.profile = try r.choice(.profile)
      if let written = r.string(.reliefDepth) {
        guard let depth = MaterialFlags.Depth.parse(written) else {
          throw RequestError(
            "{relief-depth} \(written): expected a multiple of the radius such as 1.5x, or a length such as 10, 10px or 0.5mm"
          )
        }
        flags.reliefDepth = depth
      }
      flags.scale = try r.number(.scale, Float.self)
      if flags.scale != nil, flags.reliefDepth != nil {
        throw RequestError("give either {relief-depth} or {scale}, not both")
      }
      flags.soften = try r.length(.soften)
      flags.direction = try r.choice(.direction)
      flags.background = r.string(.background)
      flags.shadingSize = try r.integer(.shadingSize)
      flags.lightAngle = try r.number(.lightAngle, Float.self)
      flags.lightAltitude = try r.number(.lightAltitude, Float.self)
      do {
        settings = r.list(.set).map(MaterialSetting.init(set:)) + (try flags.settings(dpi: dpi))
      } catch {
        throw RequestError(error)
      }
      if let problems = MaterialLoader.problems(in: settings) {
        let lines = problems.diagnostics.map { "\($0.location): \($0.message)" }
        let omitted = problems.omitted > 0 ? [MaterialError.omittedLine(problems.omitted)] : []
        throw RequestError((lines + omitted).joined(separator: "\n"))
      }
      return settings
    }

    /// How the engraving is made.
    func engraveOptions(dpi: Double?) throws(RequestError) -> EngraveOptions {
      let r = self
      let engraveThreshold = try r.integer(.threshold) ?? 128
      guard (0...255).contains(engraveThreshold) else {
        throw RequestError("{threshold} must be in 0...255, got \(engraveThreshold)")
      }
      let gamma = try r.number(.gamma, Float.self) ?? 1
      guard gamma.isFinite, gamma >= 0.1, gamma <= 10 else {
        throw RequestError("{gamma} must be in 0.1...10, got \(formatNumber(gamma))")
      }
      var method = DitherMethod.threshold
      if let written = r.string(.dither) {
        switch DitherMethod.parse(written) {
        case .success(let parsed): method = parsed
        case .failure(let error): throw RequestError("{dither}: \(error.message)")
        }
      }
      let serpentine = r.values[.serpentine] == nil ? true : try r.flag(.serpentine)
      let negative = try r.flag(.negative)
      let mirror = try r.flag(.mirror)
      let dotWidth = Float(try r.pixels(.dotWidth, dpi: dpi) ?? 0)
      let engraveOptions: EngraveOptions
      do {
        engraveOptions = try EngraveOptions(
          method: method, threshold: engraveThreshold, serpentine: serpentine, gamma: gamma,
          negative: negative, mirror: mirror, dotWidth: dotWidth)
      } catch {
        throw RequestError(error.message)
      }
      return engraveOptions
    }

    /// The picture's path, format (nil: from the name), bits per channel and compression.
    func picture() throws(RequestError) -> (
      path: String, format: PictureFormat?, depth: BitDepth, compression: Int
    ) {
      let r = self
      guard let image = r.string(.output) else {
        throw RequestError("{output} is missing: give the picture's file")
      }
      let format: PictureFormat? = try r.choice(.format)
      let depth: BitDepth = try r.bitDepth(.depth) ?? .eight
      let compression = try r.integer(.compression) ?? PNGCodec.defaultCompression
      guard (0...9).contains(compression) else {
        throw RequestError("{compression} must be in 0...9, got \(compression)")
      }
      let pictureFormat: PictureFormat
      do throws(EmbossError) {
        if let format {
          pictureFormat = format
        } else {
          pictureFormat = try PictureFormat.forOutput(image)
        }
      } catch {
        throw RequestError(error.message + " (or name the format with {format})")
      }
      if pictureFormat != .png, depth == .sixteen {
        throw RequestError("{depth} 16 needs a PNG output; \(pictureFormat.name) has 8 bits")
      }
      return (image, format, depth, compression)
    }

    func list(_ option: RenderOption) -> [String] { values[option] ?? [] }

    func flag(_ option: RenderOption) throws(RequestError) -> Bool {
      guard let text = string(option) else { return false }
      guard let on = RenderOption.flagValue(text) else {
        throw RequestError("{\(option.key)} is a flag: true/false, 1/0 or yes/no, got '\(text)'")
      }
      return on
    }

    func integer(_ option: RenderOption) throws(RequestError) -> Int? {
      guard let text = string(option) else { return nil }
      guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
        throw RequestError("{\(option.key)} takes a whole number, got '\(text)'")
      }
      return value
    }

    func number<T: BinaryFloatingPoint & LosslessStringConvertible>(
      _ option: RenderOption, _: T.Type
    )
      throws(RequestError) -> T?
    {
      guard let text = string(option) else { return nil }
      guard let value = T(text.trimmingCharacters(in: .whitespaces)) else {
        throw RequestError("{\(option.key)} takes a number, got '\(text)'")
      }
      return value
    }

    func length(_ option: RenderOption) throws(RequestError) -> Length? {
      guard let text = string(option) else { return nil }
      guard let length = Length.parse(text) else {
        throw RequestError(
          "{\(option.key)} \(text): expected a length such as 12, 12px, 2mm, 0.5cm, 0.1in or 9pt")
      }
      return length
    }

    func choice<T: RawRepresentable & CaseIterable>(_ option: RenderOption) throws(RequestError)
      -> T?
    where T.RawValue == String {
      guard let text = string(option) else { return nil }
      guard let value = T(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
        let names = T.allCases.map(\.rawValue)
        throw RequestError(
          "{\(option.key)} \(text): expected \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")"
        )
      }
      return value
    }

    func bitDepth(_ option: RenderOption) throws(RequestError) -> BitDepth? {
      guard let text = string(option) else { return nil }
      guard let depth = BitDepth(rawValue: Int(text.trimmingCharacters(in: .whitespaces)) ?? 0)
      else {
        throw RequestError("{\(option.key)} \(text): expected 8 or 16")
      }
      return depth
    }
  }
}

extension RenderRequest {
  /// The material overrides that `values` give, checked.
  ///
  /// That is `set`, `radius`, `light-angle`, ... at `dpi`: for the commands that load a
  /// material without rendering text (`emboss shading`, the studio).
  public static func materialSettings(_ values: [Value]) throws(RequestError) -> [MaterialSetting] {
    let reader = ValueReader(values)
    return try reader.materialSettings(dpi: try reader.dpi())
  }

  /// How `values` say a picture is engraved (`dither`, `threshold`, ..., `dot-width` at
  /// `dpi`), checked: for `emboss engrave`.
  public static func engraveOptions(_ values: [Value]) throws(RequestError) -> EngraveOptions {
    let reader = ValueReader(values)
    return try reader.engraveOptions(dpi: try reader.dpi())
  }

  /// The picture `values` name (`output`), its format (nil: from its name), bits per channel
  /// and compression, checked.
  public static func picture(_ values: [Value]) throws(RequestError) -> (
    path: String, format: PictureFormat, depth: BitDepth, compression: Int
  ) {
    let picture = try ValueReader(values).picture()
    return (
      picture.path, picture.format ?? (try? PictureFormat.forOutput(picture.path)) ?? .png,
      picture.depth, picture.compression
    )
  }
}

extension RenderRequest.ValueReader {
  /// The values' last for each option (all of a list's).
  init(_ values: [RenderRequest.Value]) {
    var latest: [RenderOption: [String]] = [:]
    for value in values {
      if value.option.kind == .list {
        latest[value.option, default: []].append(value.value)
      } else {
        latest[value.option] = [value.value]
      }
    }
    self.init(values: latest)
  }
}
