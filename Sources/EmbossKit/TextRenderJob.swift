import Foundation

/// Command-line values that replace the material file's.
public struct MaterialOverrides: Sendable, Equatable {
  public var radius: Float?
  public var profile: ReliefProfile?
  /// Core Image's per-pixel slope factor (`--scale`); wins over the material's depth.
  public var scale: Float?
  /// The relief's depth (`--relief-depth`).
  public var depth: ReliefDepth?
  public var soften: Float?
  public var direction: ReliefDirection?
  public var background: Background?
  public var shadingSize: Int?
  /// The key light (the material's first light) as a distant light from this direction, in
  /// degrees (Photoshop's angle and altitude: see `Light.direction`).
  public var lightAngle: Float?
  public var lightAltitude: Float?

  public init(
    radius: Float? = nil, profile: ReliefProfile? = nil, scale: Float? = nil,
    depth: ReliefDepth? = nil, soften: Float? = nil,
    direction: ReliefDirection? = nil, background: Background? = nil, shadingSize: Int? = nil
  ) {
    self.depth = depth
    self.soften = soften
    self.radius = radius
    self.profile = profile
    self.scale = scale
    self.direction = direction
    self.background = background
    self.shadingSize = shadingSize
  }

  public func applied(to material: MaterialSpec) -> MaterialSpec {
    var m = material
    if let radius { m.relief.radius = radius }
    if let profile { m.relief.profile = profile }
    if let depth { m.relief.depth = depth }
    if let scale { m.relief.depth = .scale(scale) }
    if let soften { m.relief.soften = soften }
    if let direction { m.relief.direction = direction }
    if let background { m.background = background }
    if let shadingSize { m.shadingSize = shadingSize }
    if lightAngle != nil || lightAltitude != nil, !m.lights.isEmpty {
      m.lights[0].kind = .distant
      m.lights[0].position = Light.direction(angle: lightAngle ?? 120, altitude: lightAltitude ?? 30)
    }
    return m
  }
}

/// Everything `emboss render` does for text, from arguments to PNG bytes: load the font and
/// material (the steps that can fail), then run the pipeline (which cannot) and encode.
public struct TextRenderJob: Sendable {
  public var text: String
  /// Makes the text's ink this many pixels tall (overrides `style.pixelSize`).
  public var inkHeight: Double?
  /// A picture as the mask instead of the text.
  public var maskImage: (path: String, mode: MaskMode, invert: Bool, threshold: Int)?
  /// nil: the bundled default font.
  public var fontPath: String?
  public var style: TextStyle
  public var canvas: CanvasSize?
  /// A preset name or a path.
  public var material: String
  /// `key=value` settings applied to the loaded material (see `MaterialLoader.apply`).
  public var settings: [String]
  /// Applied last.
  public var overrides: MaterialOverrides
  /// An external shading image (PNG) replacing the material's lit ball.
  public var shadingImagePath: String?
  public var depth: BitDepth
  public var compression: Int
  /// Stored in the PNG's pHYs chunk when set.
  public var resolution: Resolution?
  public var parallelism: Parallelism
  public var limits: RenderLimits
  /// Pixels an output needs past the ink on each side (a cut line's offset): the canvas grown
  /// by it is checked against `limits` before rendering.
  public var outputMargin: Double = 0

  public init(
    text: String, fontPath: String? = nil, style: TextStyle = TextStyle(),
    canvas: CanvasSize? = nil, material: String = Resources.defaultMaterialName,
    settings: [String] = [], overrides: MaterialOverrides = MaterialOverrides(),
    shadingImagePath: String? = nil, depth: BitDepth = .eight,
    compression: Int = PNGCodec.defaultCompression, parallelism: Parallelism = .allCores,
    limits: RenderLimits = .default
  ) {
    self.text = text
    self.inkHeight = nil
    self.maskImage = nil
    self.resolution = nil
    self.fontPath = fontPath
    self.style = style
    self.canvas = canvas
    self.material = material
    self.settings = settings
    self.overrides = overrides
    self.shadingImagePath = shadingImagePath
    self.depth = depth
    self.compression = compression
    self.parallelism = parallelism
    self.limits = limits
  }

  public struct Output: Sendable {
    public var render: Render
    public var material: MaterialSpec
    public var png: Data
    /// Every stage, loading and encoding included.
    public var timings: StageTimings
  }

  /// Renders; with a cache, stages whose inputs did not change since the cache's last render
  /// are reused (see `RenderCache`).
  public func run(resources: Resources, cache: RenderCache? = nil) throws -> Output {
    var sources: [String] = []
    return try run(resources: resources, cache: cache, materialSources: &sources)
  }

  /// `run`, also collecting the material files read (see `MaterialLoader.load`).
  public func run(resources: Resources, cache: RenderCache?, materialSources: inout [String])
    throws -> Output
  {
    let cache = cache ?? RenderCache()
    var timings = StageTimings()
    let spec = try timings.measure("material") {
      let file = try MaterialLoader.load(material, library: resources.materialLibrary, sources: &materialSources)
      return overrides.applied(to: try MaterialLoader.apply(settings: settings, to: file))
    }
    let mask: CoverageMask
    if let image = maskImage {
      mask = try timings.measure("mask") {
        try ImageMask.read(
          path: image.path, mode: image.mode, invert: image.invert, threshold: image.threshold,
          limits: limits)
      }
    } else {
      let fontPath = self.fontPath ?? resources.defaultFontPath
      let key = RenderCache.TextKey(
        text: text, fontPath: fontPath, style: style, inkHeight: inkHeight, canvas: canvas,
        limits: limits)
      mask = try cache.textMask(key) {
        let font = try timings.measure("font") { try Font(path: fontPath) }
        let layout = try timings.measure("layout") {
          if let inkHeight {
            return try TextLayout.fitting(
              inkHeight: inkHeight, text: text, font: font, style: style, canvas: canvas, limits: limits)
          }
          return try TextLayout(text: text, font: font, style: style, canvas: canvas, limits: limits)
        }
        return timings.measure("mask") { layout.rasterize() }
      }
    }
    // The render's memory, now that the mask tells how much of it is edge.
    try limits.checkRender(mask: mask, radius: spec.relief.radius)
    // The lit ball: RGBA floats, checked like any image before it is made.
    if shadingImagePath == nil {
      try limits.check(width: spec.shadingSize, height: spec.shadingSize, bytesPerPixel: 16, name: "the shading image")
    }
    if outputMargin > 0 {
      let grow = 2 * (Int(min(outputMargin, Double(1 << 24)).rounded(.up)) + 3)
      try limits.check(width: mask.width + grow, height: mask.height + grow)
    }
    let shadingImage = try shadingImagePath.map { path in
      try timings.measure("read shading") { try ShadingImage.read(path: path, limits: limits) }
    }
    let render = cache.render(mask: mask, material: spec, shadingImage: shadingImage, parallelism: parallelism)
    timings.append(render.timings)
    let png = try timings.measure("png encode") {
      try PNGCodec.encode(
        render.image, depth: depth, compression: compression,
        pixelsPerMeter: resolution?.pixelsPerMeter ?? 0, parallelism: parallelism)
    }
    return Output(render: render, material: spec, png: png, timings: timings)
  }
}
