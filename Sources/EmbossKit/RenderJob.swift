import Foundation

/// Where a render's mask comes from.
public enum MaskSource: Sendable, Equatable {
  case text(TextMask)
  case picture(PictureMask)
}

/// Text set in a font.
public struct TextMask: Sendable, Equatable {
  /// Real newlines start lines (see `TextMask.unescaped` for the command line's `\n`).
  public var text: String
  /// nil: the bundled default font.
  public var fontPath: String?
  /// The face in the font file (collections hold several).
  public var fontIndex: Int
  /// Size, alignment, spacing, direction, features and variations.
  public var style: TextStyle
  /// Makes the text's ink this many pixels tall (overrides `style.pixelSize`).
  public var inkHeight: Double?
  /// Makes the font's capitals this many pixels tall (`Font.capHeight`).
  ///
  /// It overrides `style.pixelSize`; `inkHeight` wins over it.
  public var capHeight: Double?
  /// A fixed canvas size; nil: the ink plus its padding.
  public var canvas: CanvasSize?
  /// Characters the font lacks are taken from other fonts (installed or bundled); false
  /// makes them an error.
  public var fallback: Bool

  /// Text in a font; see each property for its meaning.
  public init(
    text: String, fontPath: String? = nil, fontIndex: Int = 0, style: TextStyle = TextStyle(),
    inkHeight: Double? = nil, capHeight: Double? = nil, canvas: CanvasSize? = nil,
    fallback: Bool = true
  ) {
    self.text = text
    self.fontPath = fontPath
    self.fontIndex = fontIndex
    self.style = style
    self.inkHeight = inkHeight
    self.capHeight = capHeight
    self.canvas = canvas
    self.fallback = fallback
  }

  /// A `--font` value: a font file (face `index`), or a fontconfig pattern
  /// (`"DejaVu Serif:bold"`) resolved to the installed or bundled file and face that match
  /// it (`index`, when given, overrides the face).
  public static func font(_ value: String, index: Int? = nil, resources: Resources) throws -> (
    path: String, index: Int
  ) {
    if FontCatalog.isPath(value) { return (value, index ?? 0) }
    let entry = try FontCatalog.match(value, bundled: resources.fontsDirectory)
    return (entry.path, index ?? entry.index)
  }

  /// Command-line text: `\n` starts a new line and `\\` is one backslash, so `C:\\new`
  /// is the text `C:\new`; any other backslash is itself.
  public static func unescaped(_ text: String) -> String {
    var result = ""
    var pending = false
    for character in text {
      if pending {
        pending = false
        switch character {
        case "n": result.append("\n")
        case "\\": result.append("\\")
        default:
          result.append("\\")
          result.append(character)
        }
      } else if character == "\\" {
        pending = true
      } else {
        result.append(character)
      }
    }
    if pending { result.append("\\") }
    return result
  }

  /// The largest text file read: 16 MiB.
  public static let fileLimit = 16 << 20

  /// Text from a file, or from standard input for `-`.
  ///
  /// UTF-8 (invalid bytes are an error naming the first one's offset), a leading byte-order
  /// mark dropped, CRLF read as a newline, and one final newline (the last line's end, not an
  /// empty line) dropped. No escapes: a file's newlines are real.
  ///
  /// A file `inputs` holds is taken from it (standard input as `/dev/stdin`).
  public static func read(file path: String, inputs: InputSnapshot = InputSnapshot()) throws
    -> String
  {
    let name = path == "-" ? "standard input" : "'\(path)'"
    let data = try inputs.data(path == "-" ? "/dev/stdin" : path, what: "text", limit: fileLimit)
    var bytes = Array(data)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    if let bad = RawArguments.firstInvalidUTF8(bytes) {
      let offset = bad.offset + (data.count - bytes.count)
      throw EmbossError(
        "text in \(name) is not valid UTF-8: byte 0x\(String(bad.byte, radix: 16, uppercase: true)) at byte offset \(offset)"
      )
    }
    var text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    if text.hasSuffix("\n") { text.removeLast() }
    return text
  }
}

/// A picture (a logo, a scan) as the mask.
public struct PictureMask: Sendable, Equatable {
  /// The picture's path (PNG, JPEG or WebP).
  public var path: String
  /// How the picture's pixels become coverage.
  public var mode: MaskMode
  /// Swaps ink and background.
  public var invert: Bool
  /// 0...255, for `MaskMode.threshold`.
  public var threshold: Int
  /// A margin (pixels) around the ink, the canvas cut to it; nil: the picture's own frame.
  public var padding: Float?
  /// A canvas the ink is centered on (before `padding`, which it overrides); nil: the
  /// picture's own frame, or the ink and its padding.
  public var canvas: CanvasSize?

  /// A picture mask; see each property for its meaning.
  public init(
    path: String, mode: MaskMode = .threshold, invert: Bool = false, threshold: Int = 128,
    padding: Float? = nil, canvas: CanvasSize? = nil
  ) {
    self.path = path
    self.mode = mode
    self.invert = invert
    self.threshold = threshold
    self.padding = padding
    self.canvas = canvas
  }

  /// `mask` (read from the picture) on the canvas `canvas` and `padding` ask for: its ink
  /// moved onto that canvas whole, its outline with it.
  func framed(_ mask: CoverageMask, limits: RenderLimits) throws -> CoverageMask {
    guard canvas != nil || padding != nil, !mask.inkBounds.isEmpty else { return mask }
    let ink = mask.inkBounds
    let (width, height): (Int, Int)
    let origin: (x: Int, y: Int)
    if let canvas {
      guard canvas.width >= ink.width, canvas.height >= ink.height else {
        throw EmbossError(
          "mask '\(path)': its ink (\(ink.width)x\(ink.height) pixels) does not fit --canvas \(canvas.width)x\(canvas.height)"
        )
      }
      (width, height) = (canvas.width, canvas.height)
      origin = ((canvas.width - ink.width) / 2, (canvas.height - ink.height) / 2)
    } else {
      let margin = Int((padding ?? 0).rounded())
      (width, height) = (ink.width + 2 * margin, ink.height + 2 * margin)
      origin = (margin, margin)
    }
    try limits.check(width: width, height: height, name: "mask '\(path)' with its padding")
    // The ink's coverage, cut out of the picture (nothing else is ink).
    var coverage = Plane(width: ink.width, height: ink.height)
    for row in 0..<ink.height {
      for column in 0..<ink.width {
        coverage[column, row] = mask[ink.x + column, ink.y + row]
      }
    }
    let window = PixelRect(x: origin.x, y: origin.y, width: ink.width, height: ink.height)
    return CoverageMask(
      width: width, height: height, window: window, coverage: coverage, inkBounds: window,
      outline: mask.outline?.translated(
        by: SIMD2(Float(origin.x - ink.x), Float(origin.y - ink.y))))
  }
}

/// The mask stage's result: the coverage, and for text the fallback fonts it used.
public struct MaskResult: Sendable {
  /// The mask: how much of each pixel is ink.
  public var coverage: CoverageMask
  /// Fonts other than the chosen one that set characters it lacks.
  public var fallbackFonts: [FontUse]
  /// A text's em size in pixels (after any fitting); nil for a picture.
  public var emSize: Float?

  /// A mask, and the fallback fonts that set part of it.
  public init(coverage: CoverageMask, fallbackFonts: [FontUse] = [], emSize: Float? = nil) {
    self.coverage = coverage
    self.fallbackFonts = fallbackFonts
    self.emSize = emSize
  }
}

extension Pipeline {
  /// The mask stage: the one that reads files (a font, a picture) and so can fail.
  ///
  /// A text
  /// mask is memoized in `cache` (the font is read again only when the text's inputs change).
  public static func mask(
    _ source: MaskSource, resources: Resources, limits: RenderLimits = .default,
    cache: StageCache = StageCache(keepsLookupMap: false), inputs: InputSnapshot = InputSnapshot(),
    timings: inout StageTimings
  ) throws -> MaskResult {
    switch source {
    case .picture(let picture):
      return try timings.measure("mask") {
        MaskResult(
          coverage: try picture.framed(
            try ImageMask.read(
              path: picture.path, mode: picture.mode, invert: picture.invert,
              threshold: picture.threshold,
              limits: limits, inputs: inputs), limits: limits))
      }
    case .text(var text):
      text.fontPath = text.fontPath ?? resources.defaultFontPath
      let key = MaskSource.text(text)
      let fontPath = text.fontPath ?? resources.defaultFontPath
      let fontKey = StageCache.FontKey(
        path: fontPath, index: text.fontIndex, sha256: inputs.file(fontPath)?.sha256)
      if let cached = cache.mask, cached.key == key, cached.font == fontKey,
        cached.limits == limits
      {
        return cached.value
      }
      // The font stays open between renders (a batch's rows, a studio's scene changes).
      let font = try cache.memo(\.font, key: fontKey) {
        try timings.measure("font") {
          try Font(path: fontPath, index: text.fontIndex, inputs: inputs)
        }
      }
      let fallback = text.fallback ? FontCatalog.Fallback(bundled: resources.fontsDirectory) : nil
      let layout = try timings.measure("layout") {
        if let inkHeight = text.inkHeight {
          return try TextLayout.fitting(
            inkHeight: inkHeight, text: text.text, font: font, style: text.style,
            canvas: text.canvas, limits: limits, fallback: fallback)
        }
        if let capHeight = text.capHeight {
          return try TextLayout.fitting(
            capHeight: capHeight, text: text.text, font: font, style: text.style,
            canvas: text.canvas, limits: limits, fallback: fallback)
        }
        return try TextLayout(
          text: text.text, font: font, style: text.style, canvas: text.canvas, limits: limits,
          fallback: fallback)
      }
      let mask = MaskResult(
        coverage: timings.measure("mask") { layout.rasterize() },
        fallbackFonts: layout.fallbackFonts, emSize: layout.pixelSize)
      cache.mask = (key, fontKey, mask, limits)
      return mask
    }
  }
}

/// Every file a render writes, all made in memory before any is written, then written all
/// or nothing (`OutputFile.write`).
public struct OutputPlan: Sendable {
  /// The embossed picture: a path, or `-` for standard output.
  public var image: String
  /// The picture's format; nil: from `image`'s extension.
  public var format: PictureFormat?
  /// Bits per channel of the picture: 8 or 16.
  public var depth: BitDepth
  /// The PNG's compression level, 0...9 (see `PNGCodec.fastLevels`).
  public var compression: Int
  /// Stored in every PNG (pHYs) and used for the SVG's millimeters.
  public var resolution: Resolution?
  /// Engrave bitmap, depth map, SVG.
  public var laser: LaserRequest
  /// `mask.png`, `height.png`, `normals.png` and `shading.png` go here.
  public var stagesDirectory: String?

  /// Files for a render whose picture goes to `image`; see each property for the others.
  public init(
    image: String, format: PictureFormat? = nil, depth: BitDepth = .eight,
    compression: Int = PNGCodec.defaultCompression, resolution: Resolution? = nil,
    laser: LaserRequest = LaserRequest(), stagesDirectory: String? = nil
  ) {
    self.image = image
    self.format = format
    self.depth = depth
    self.compression = compression
    self.resolution = resolution
    self.laser = laser
    self.stagesDirectory = stagesDirectory
  }

  /// The intermediate stages' file names, named after what they hold.
  public static let stageNames = ["mask.png", "height.png", "normals.png", "shading.png"]

  /// Every path written, with the key of the option that names it (`RenderOption`).
  public var paths: [(option: String, path: String)] {
    var paths = [("output", image)]
    paths += laser.paths
    if let stagesDirectory {
      paths += Self.stageNames.map { ("save-stages", stagesDirectory + "/" + $0) }
    }
    return paths
  }

  /// What the pipeline must make for these files.
  public var outputs: RenderOutputs {
    var outputs: RenderOutputs = []
    if laser.engrave != nil || laser.svg != nil { outputs.insert(.shape) }
    if stagesDirectory != nil { outputs.insert(.wholeShadingImage) }
    // (The engraving reads the shape, the SVG the mask and the shape, the model the mask:
    // only the depth map and the stages read the heights.)
    if stagesDirectory != nil || laser.depthMap != nil { outputs.insert(.heightField) }
    // An 8-bit PNG is made from its codes alone.
    if depth == .eight, (try? format ?? PictureFormat.forOutput(image)) == .png {
      outputs.insert(.pictureCodes)
    }
    return outputs
  }

  /// The files for a render, as (path, bytes): the laser outputs, the stages, then the picture.
  public func files(
    for result: RenderResult, timings: inout StageTimings, parallelism: Parallelism = .allCores
  ) throws -> [(path: String, data: Data)] {
    var files: [(path: String, data: Data)] = []
    if !laser.isEmpty {
      files += try timings.measure("laser outputs") {
        try laser.files(for: result, resolution: resolution, parallelism: parallelism)
      }
    }
    if let stagesDirectory {
      files += try timings.measure("stage files") {
        try stageFiles(result).map { (stagesDirectory + "/" + $0.name, $0.data) }
      }
    }
    // The picture's format is the one asked for, or follows its extension (PNG; JPEG or
    // WebP for previews).
    let format = try self.format ?? PictureFormat.forOutput(image)
    if case .codes(let codes) = result.picture, format == .png, depth == .eight {
      let png = try timings.measure("png encode") {
        try PNGCodec.encode(
          codes, compression: compression, pixelsPerMeter: resolution?.pixelsPerMeter ?? 0,
          parallelism: parallelism)
      }
      files.append((image, png))
      return files
    }
    var picture = result.image
    // 16 bits over a transparent background: the alpha is the ink's exact area from the
    // outline, not the 8-bit coverage the relief was built from.
    if format == .png, depth == .sixteen, let outline = result.mask.outline {
      picture = Self.exactAlpha(picture, outline: outline)
    }
    let png = try timings.measure("png encode") {
      try PictureCodec.encode(
        picture, format: format, depth: depth, compression: compression,
        pixelsPerMeter: resolution?.pixelsPerMeter ?? 0, parallelism: parallelism)
    }
    files.append((image, png))
    return files
  }

  /// `image` (over a transparent background) with each ink pixel's alpha the exact area.
  ///
  /// The area of ink in each pixel comes from `Outline.areaCoverage`: full precision where the
  /// mask's coverage has 8 bits (FreeType's). Only pixels the mask counts as ink change (their
  /// color is the shaded color, straight alpha); an opaque background, or an outline traced
  /// from pixels (a picture's), leaves the image as it is.
  static func exactAlpha(_ image: CanvasImage, outline: Outline) -> CanvasImage {
    guard image.fill.w == 0, !outline.isTraced, outline.count > 0 else { return image }
    let rect = image.contentRect
    let area = outline.areaCoverage(region: rect)
    var out = image
    for i in 0..<(rect.width * rect.height) where out.content.pixels[i].w > 0 {
      out.content.pixels[i].w = area.pixels[i]
    }
    return out
  }

  /// `mask.png` (coverage), `height.png` (gray, black lowest and white highest: 0...1 when
  /// raised, -1...0 when lowered; always 16-bit), `normals.png` ((n + 1) / 2 as RGB, y down)
  /// and `shading.png` (the whole lit ball), at `depth` bits per channel.
  func stageFiles(_ result: RenderResult) throws -> [(name: String, data: Data)] {
    let range: ClosedRange<Float> = result.material.relief.direction == .raised ? 0...1 : -1...0
    let normals = result.normals
    // The canvas-sized stages carry the render's resolution, as its other PNGs do (the lit
    // ball is not on the canvas: it has none).
    let ppm = resolution?.pixelsPerMeter ?? 0
    // (n + 1) / 2 as stored, not sRGB-encoded: 8 or 16 bits a channel.
    func encodeNormals<T: FixedWidthInteger>(_: T.Type) throws -> Data {
      let levels = Float(T.max)
      return try PNGCodec.encodeRaw(
        normals.pixels.flatMap { p in
          [p.x, p.y, p.z, p.w].map { T((min(max($0, 0), 1) * levels).rounded()) }
        },
        width: normals.width, height: normals.height, channels: 4, bitDepth: T.bitWidth,
        compression: compression, pixelsPerMeter: ppm, srgb: false)
    }
    let normalData =
      depth == .eight ? try encodeNormals(UInt8.self) : try encodeNormals(UInt16.self)
    let names = Self.stageNames
    return [
      (
        names[0],
        try PNGCodec.encodeGray(
          result.mask.plane, depth: depth, compression: compression, pixelsPerMeter: ppm)
      ),
      (
        names[1],
        try PNGCodec.encodeGray(
          result.height.canvasPlane(), range: range, depth: .sixteen, compression: compression,
          pixelsPerMeter: ppm)
      ),
      (names[2], normalData),
      (names[3], try PNGCodec.encode(result.shadingImage, depth: depth, compression: compression)),
    ]
  }
}

/// A whole `emboss render`, from references to files: load the material (a preset or a file,
/// then the command line's settings) and the mask (the steps that can fail), run the
/// pipeline (which cannot), and make every output file.
public struct RenderJob: Sendable {
  /// The text or picture the relief rises from.
  public var mask: MaskSource
  /// A preset name or a path.
  public var material: String
  /// Applied in order on top of the material: `--set` values, then flags (`MaterialFlags`).
  public var settings: [MaterialSetting]
  /// An external shading image (PNG) replacing the material's lit ball.
  public var shadingImagePath: String?
  /// A picture behind the letters (`--background-image`), and how it covers the canvas.
  public var backgroundImagePath: String?
  /// How the background picture covers the canvas.
  public var backgroundFit: Backdrop.Fit
  /// The files to make.
  public var output: OutputPlan
  /// How many threads the stages use.
  public var parallelism: Parallelism
  /// Sizes past which inputs are refused before any memory is taken.
  public var limits: RenderLimits
  /// Files already read (`RenderRequest.resolve`): the material and what it extends, the
  /// font, the mask picture and the shading image are taken from here when it holds them,
  /// from the file system when not.
  public var inputs: InputSnapshot

  /// A render job; see each property for its meaning.
  public init(
    mask: MaskSource, material: String = Resources.defaultMaterialName,
    settings: [MaterialSetting] = [],
    shadingImagePath: String? = nil, backgroundImagePath: String? = nil,
    backgroundFit: Backdrop.Fit = .fill, output: OutputPlan, parallelism: Parallelism = .allCores,
    limits: RenderLimits = .default, inputs: InputSnapshot = InputSnapshot()
  ) {
    self.backgroundImagePath = backgroundImagePath
    self.backgroundFit = backgroundFit
    self.inputs = inputs
    self.mask = mask
    self.material = material
    self.settings = settings
    self.shadingImagePath = shadingImagePath
    self.output = output
    self.parallelism = parallelism
    self.limits = limits
  }

  /// A finished render and its files, not yet written.
  public struct Output: Sendable {
    /// What the pipeline made: the picture and every stage.
    public var result: RenderResult
    /// Every file to write, as (path, bytes), the picture last.
    public var files: [(path: String, data: Data)]
    /// Every stage, loading and encoding included.
    public var timings: StageTimings
    /// Fonts other than the chosen one that set characters it lacks.
    public var fallbackFonts: [FontUse]

    /// The embossed picture's PNG.
    public var png: Data { files.last?.data ?? Data() }
  }

  /// The material: the file (or preset), then the settings.
  public func loadMaterial(library: MaterialLibrary, sources: inout [String]) throws -> MaterialSpec
  {
    var inputs = self.inputs
    return try MaterialLoader.load(
      material, library: library, settings: settings, sources: &sources, inputs: &inputs)
  }

  /// Renders; with a cache, stages whose inputs did not change since the cache's last render
  /// are reused (see `StageCache`).
  ///
  /// `materialSources` receives the material files read.
  public func run(
    resources: Resources, cache: StageCache = StageCache(keepsLookupMap: false),
    materialSources: inout [String]
  )
    throws -> Output
  {
    var timings = StageTimings()
    var spec = try timings.measure("material") {
      try loadMaterial(library: resources.materialLibrary, sources: &materialSources)
    }
    let maskResult = try Pipeline.mask(
      self.mask, resources: resources, limits: limits, cache: cache, inputs: inputs,
      timings: &timings)
    let mask = maskResult.coverage
    // A material's relief lengths are for text at the reference size: text of another size
    // scales them (the same look at any size), except those given for this render
    // (`--radius`, `--soften`, `--relief-depth`, `--set`).
    if let em = maskResult.emSize {
      spec = spec.scalingRelief(
        by: em / TextStyle.referenceSize, except: Set(settings.map(\.key)))
    }
    // The render's memory, now that the mask tells how much of it is edge.
    try limits.checkRender(mask: mask, radius: spec.relief.radius)
    // The lit ball: RGBA floats, checked like any image before it is made.
    if shadingImagePath == nil {
      try limits.check(
        width: spec.shadingSize, height: spec.shadingSize, bytesPerPixel: 16,
        name: "the shading image")
    }
    if let margin = output.laser.svg?.cutOffset, margin > 0 {
      let grow = 2 * (Int(min(margin, Double(1 << 24)).rounded(.up)) + 3)
      try limits.check(width: mask.width + grow, height: mask.height + grow)
    }
    let shadingImage = try shadingImagePath.map { path in
      try timings.measure("read shading") {
        try ShadingImage.read(path: path, limits: limits, inputs: inputs)
      }
    }
    let backdrop = try backgroundImagePath.map { path in
      try timings.measure("read background") { () throws -> Backdrop.Picture in
        // The picture, and the canvas-sized layer it becomes (RGBA floats).
        try limits.check(
          width: mask.width, height: mask.height, bytesPerPixel: 16,
          name: "the background picture's layer")
        let decoded = try PictureCodec.read(path: path, maxPixels: limits.maxPixels, inputs: inputs)
        return Backdrop.Picture(image: decoded.image, fit: backgroundFit)
      }
    }
    let result = Pipeline.render(
      RenderInput(
        mask: mask, material: spec, shadingImage: shadingImage, backdrop: backdrop,
        outputs: output.outputs, parallelism: parallelism),
      cache: cache)
    timings.append(result.timings)
    let files = try output.files(for: result, timings: &timings, parallelism: parallelism)
    return Output(
      result: result, files: files, timings: timings, fallbackFonts: maskResult.fallbackFonts)
  }

  /// Renders, discarding the list of material files read.
  public func run(resources: Resources, cache: StageCache = StageCache(keepsLookupMap: false))
    throws -> Output
  {
    var sources: [String] = []
    return try run(resources: resources, cache: cache, materialSources: &sources)
  }

  /// Writes the output's files, all or nothing (creating the stages directory if needed).
  public func write(_ output: Output) throws {
    try OutputFile.write(output.files, creating: self.output.stagesDirectory.map { [$0] } ?? [])
  }
}
