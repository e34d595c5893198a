import EmbossKit
import Foundation

/// One studio's state: the material file being edited (its text, with undo and redo), the
/// scene it is previewed on (text, font, size), and the stage cache renders go through.
///
/// The file's text is the document: every edit is made on the text (`MaterialDocument`),
/// parsed like the file would be, and only then becomes the current state, so what is
/// previewed is exactly what Save writes, and Save never writes a file `emboss check` would
/// reject. Thread-safe: state behind a lock; renders one at a time on their own queue, a
/// render asked for an older revision than the current one being dropped (superseded).
public final class StudioSession: @unchecked Sendable {
  /// What the preview renders the material on.
  public struct Scene: Sendable, Equatable, Codable {
    /// The text rendered.
    public var text: String
    /// A font file or a fontconfig pattern; nil: the bundled default.
    public var font: String?
    /// The text's em size in pixels.
    public var size: Float

    /// A scene; the defaults are the studio's.
    public init(text: String = "Emboss", font: String? = nil, size: Float = TextStyle.referenceSize)
    {
      self.text = text
      self.font = font
      self.size = size
    }
  }

  /// An edit the page asks for.
  public enum Edit: Sendable, Equatable {
    /// A value at a key path, as YAML (`40`, `"#ff0000"`, `[1, 2, 3]`).
    case set(path: String, yaml: String)
    /// A new item at the end of a list, its keys and YAML values in order.
    case append(list: String, fields: [MaterialDocument.Field])
    case remove(list: String, index: Int)
    case move(list: String, from: Int, to: Int)
  }

  /// Why a request could not be done; `message` is shown to the user.
  public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the user.
    public var message: String
    /// A failure saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
  }

  /// Where fonts and presets are found.
  public let resources: Resources
  /// The material file edited (absolute).
  public private(set) var path: String
  private let lock = NSLock()
  private var history: [String]
  private var position = 0
  /// The text on disk when last read or written (nil: the file does not exist yet).
  private var diskText: String?
  private var savedText: String?
  /// Whether the last edit pushed a history entry that later edits of the same gesture
  /// replace.
  private var revision = 1
  private var scene: Scene
  /// The scene as a render request, its font read (`RenderRequest.resolve`): what the
  /// previews render, but for the material, which is the edited text.
  private var preview: ResolvedRequest
  private var material: MaterialSpec
  private var notice: String?
  private let renderQueue = DispatchQueue(label: "emboss.studio.render")
  private let cache = StageCache()

  /// Opens a material file; a path that does not exist yet starts a new material that
  /// extends the default one.
  public init(materialPath: String, scene: Scene = Scene(), resources: Resources) throws {
    self.resources = resources
    let absolute = URL(fileURLWithPath: materialPath).standardizedFileURL.path
    path = absolute
    self.scene = scene
    preview = try Self.preview(of: scene, resources: resources)
    let text: String
    if FileManager.default.fileExists(atPath: absolute) {
      let data = try InputFile.read(absolute, what: "material", limit: MaterialLoader.fileLimit)
      text = String(decoding: data, as: UTF8.self)
      diskText = text
      savedText = text
    } else {
      text = "# A new material.\nextends: default\n"
    }
    history = [text]
    material = try Self.parse(text, path: absolute, resources: resources)
  }

  /// The request a scene previews: its text, font and size, checked as any request's values
  /// are (the page's own limits first: a preview stays quick).
  static func preview(of scene: Scene, resources: Resources) throws -> ResolvedRequest {
    guard !scene.text.isEmpty, scene.text.count <= 200 else {
      throw Failure("the preview text must be 1 to 200 characters")
    }
    guard scene.size.isFinite, (8...1000).contains(scene.size) else {
      throw Failure("the preview size must be 8 to 1000 pixels")
    }
    // The previews are PNGs made in memory; the request names no file.
    var values = [RenderRequest.Value(.size, "\(scene.size)"), RenderRequest.Value(.output, "-")]
    if let font = scene.font { values.append(RenderRequest.Value(.font, font)) }
    let request: RenderRequest
    do {
      request = try RenderRequest(text: scene.text, values: values)
    } catch {
      throw Failure(error.message { $0.key })
    }
    return try request.resolve(resources: resources, parallelism: .allCores)
  }

  static func parse(_ text: String, path: String, resources: Resources) throws -> MaterialSpec {
    var sink = DiagnosticSink()
    let spec = MaterialLoader.parse(
      yaml: text, file: path, library: resources.materialLibrary, sink: &sink)
    if sink.hasErrors { throw MaterialError(sink) }
    guard let spec else { throw Failure("the material cannot be read") }
    return spec
  }

  // MARK: State

  /// The state the page shows.
  public func state() -> StudioState {
    lock.withLock { stateLocked() }
  }

  private func stateLocked() -> StudioState {
    let text = history[position]
    let notice = self.notice
    self.notice = nil
    return StudioState(
      revision: revision, path: path, text: text,
      values: StudioValues.make(material: material, text: text),
      scene: scene, canUndo: position > 0, canRedo: position + 1 < history.count,
      unsaved: text != savedText, notice: notice)
  }

  /// Applies edits in order, all or none.
  ///
  /// `coalesce`: the edits continue the last gesture
  /// (a slider being dragged), so they replace its undo step instead of adding one.
  public func apply(_ edits: [Edit], coalesce: Bool) throws -> StudioState {
    try lock.withLock {
      var document = MaterialDocument(text: history[position])
      do {
        for edit in edits {
          try apply(edit, to: &document)
        }
      } catch let error as MaterialDocument.EditError {
        throw Failure(error.message)
      }
      let spec = try Self.parse(document.text, path: path, resources: resources)
      guard document.text != history[position] else { return stateLocked() }
      if coalesce && position > 0 && position + 1 == history.count {
        history[position] = document.text
      } else {
        history.removeSubrange((position + 1)...)
        history.append(document.text)
        position += 1
      }
      material = spec
      revision += 1
      return stateLocked()
    }
  }

  private func apply(_ edit: Edit, to document: inout MaterialDocument) throws {
    switch edit {
    case .set(let path, let yaml):
      try materializeList(for: path, in: &document)
      try document.set(path, to: yaml)
    case .append(let list, let fields):
      try materializeList(for: list + "[0]", in: &document)
      try document.appendItem(of: list, fields: fields)
    case .remove(let list, let index):
      try materializeList(for: list + "[0]", in: &document)
      try document.removeItem(of: list, at: index)
    case .move(let list, let from, let to):
      try materializeList(for: list + "[0]", in: &document)
      try document.moveItem(of: list, from: from, to: to)
    }
  }

  /// A list item edited in a file that does not write the list (it is inherited): the
  /// effective list is written into the file first.
  private func materializeList(for path: String, in document: inout MaterialDocument) throws {
    guard let list = MaterialDocument.lists.first(where: { path.hasPrefix($0 + "[") }),
      !MaterialDocument.contains(document.text, key: list)
    else { return }
    let spec = try Self.parse(document.text, path: self.path, resources: resources)
    let items =
      list == "lights"
      ? spec.lights.map(StudioValues.fields(of:))
      : spec.environment.softboxes.map(StudioValues.fields(of:))
    try document.writeList(list, items: items)
  }

  /// Goes back one step in the history of texts (a drag is one step).
  public func undo() -> StudioState { step(-1) }
  /// Goes forward one step after an undo.
  public func redo() -> StudioState { step(1) }

  private func step(_ delta: Int) -> StudioState {
    lock.withLock {
      let target = position + delta
      if history.indices.contains(target),
        let spec = try? Self.parse(history[target], path: path, resources: resources)
      {
        position = target
        material = spec
        revision += 1
      }
      return stateLocked()
    }
  }

  /// Changes what the preview shows.
  public func setScene(_ scene: Scene) throws -> StudioState {
    let preview = try Self.preview(of: scene, resources: resources)
    return lock.withLock {
      self.scene = scene
      self.preview = preview
      revision += 1
      return stateLocked()
    }
  }

  // MARK: Files

  /// Writes the current text to the file (atomically), if it differs from what is there.
  public func save() throws -> StudioState {
    try lock.withLock {
      let text = history[position]
      _ = try Self.parse(text, path: path, resources: resources)
      try OutputFile.write(Data(text.utf8), to: path)
      diskText = text
      savedText = text
      return stateLocked()
    }
  }

  /// Writes the current text to a new file next to the edited one (`name`: a file name
  /// ending in .yaml, nothing that exists), which is edited from then on.
  public func saveAs(name: String) throws -> StudioState {
    guard name.hasSuffix(".yaml"), name.count > 5, name.count <= 100,
      !name.hasPrefix("."),
      name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
    else {
      throw Failure(
        "a new material's name is a file name ending in .yaml (letters, digits, - _ .)")
    }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
    let target = directory.appendingPathComponent(name).path
    guard !FileManager.default.fileExists(atPath: target) else {
      throw Failure("\(name) already exists; choose another name")
    }
    return try lock.withLock {
      let text = history[position]
      // `extends` with a relative path still resolves: the new file is in the same folder.
      _ = try Self.parse(text, path: target, resources: resources)
      try OutputFile.write(Data(text.utf8), to: target)
      path = target
      diskText = text
      savedText = text
      revision += 1
      return stateLocked()
    }
  }

  /// Reads the file again; when another program changed it, its text becomes the current
  /// state (an undo step) and the next state says so.
  public func checkDisk() {
    lock.withLock {
      guard let data = try? InputFile.read(path, what: "material", limit: MaterialLoader.fileLimit)
      else { return }
      let text = String(decoding: data, as: UTF8.self)
      guard text != diskText else { return }
      diskText = text
      guard text != history[position] else { return }
      do {
        material = try Self.parse(text, path: path, resources: resources)
        history.removeSubrange((position + 1)...)
        history.append(text)
        position += 1
        savedText = text
        revision += 1
        notice = "\(URL(fileURLWithPath: path).lastPathComponent) changed on disk: reloaded"
      } catch {
        notice =
          "\(URL(fileURLWithPath: path).lastPathComponent) changed on disk but does not load: \(error)"
      }
    }
  }

  // MARK: Rendering

  /// The stages the page can show.
  public enum Stage: String, Sendable, CaseIterable {
    case picture, ball, mask, height, normals
  }

  /// A rendered stage as PNG, and how long it took.
  public struct Rendered: Sendable {
    /// The stage's picture, as PNG.
    public var png: Data
    /// How long the render took, in milliseconds.
    public var milliseconds: Double
    /// The revision rendered.
    public var revision: Int
  }

  /// Renders a stage of the current state; nil when `revision` is older than the current
  /// one by the time its turn comes (a newer change superseded it).
  public func render(_ stage: Stage, revision wanted: Int?) async throws -> Rendered? {
    try await withCheckedThrowingContinuation { continuation in
      renderQueue.async {
        continuation.resume(with: Result { try self.renderNow(stage, revision: wanted) })
      }
    }
  }

  private func renderNow(_ stage: Stage, revision wanted: Int?) throws -> Rendered? {
    let (edited, preview, revision) = lock.withLock {
      (self.material, self.preview, self.revision)
    }
    if let wanted, wanted < revision { return nil }
    let clock = ContinuousClock()
    let start = clock.now
    var timings = StageTimings()
    let job = preview.job
    let masked = try Pipeline.mask(
      job.mask, resources: resources, limits: job.limits, cache: cache, inputs: job.inputs,
      timings: &timings)
    let mask = masked.coverage
    // The relief's lengths scale with the text's size, as `emboss render` scales them.
    var material = edited
    if let em = masked.emSize {
      material = material.scalingRelief(by: em / TextStyle.referenceSize, except: [])
    }
    try job.limits.checkRender(mask: mask, radius: material.relief.radius)
    let png: Data
    switch stage {
    case .ball:
      png = try PNGCodec.encode(
        Pipeline.shadingImage(material: material, cache: cache), compression: 1)
    case .picture, .mask, .height, .normals:
      let result = Pipeline.render(RenderInput(mask: mask, material: material), cache: cache)
      switch stage {
      case .mask: png = try PNGCodec.encodeGray(result.mask.plane, compression: 1)
      case .height:
        let range: ClosedRange<Float> = material.relief.direction == .raised ? 0...1 : -1...0
        png = try PNGCodec.encodeGray(result.height.canvasPlane(), range: range, compression: 1)
      case .normals:
        // (n + 1) / 2 as stored, not sRGB-encoded, as --save-stages writes it.
        let normals = result.normals
        png = try PNGCodec.encodeRaw(
          normals.pixels.flatMap { p in
            [p.x, p.y, p.z, p.w].map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
          }, width: normals.width, height: normals.height, channels: 4, bitDepth: 8,
          compression: 1, pixelsPerMeter: 0, srgb: false)
      default:
        png = try PNGCodec.encode(result.image, compression: 1)
      }
    }
    let elapsed = clock.now - start
    let ms =
      Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) * 1e-15
    return Rendered(png: png, milliseconds: ms, revision: revision)
  }
}

/// What the page shows: the revision (renders name it), the file's text, the material's
/// values (effective, inherited ones included) and the scene.
public struct StudioState: Sendable, Encodable {
  /// The document's revision; renders name the one they show.
  public var revision: Int
  /// The material file's path.
  public var path: String
  /// The file's text, as it would be saved.
  public var text: String
  /// The material's values, inherited and default ones included.
  public var values: StudioValues
  /// What the preview renders the material on.
  public var scene: StudioSession.Scene
  /// Whether there is an edit to undo.
  public var canUndo: Bool
  /// Whether there is an undone edit to redo.
  public var canRedo: Bool
  /// Whether the text differs from the file on disk.
  public var unsaved: Bool
  /// A message for the user (the file changed on disk), shown once.
  public var notice: String?
}
