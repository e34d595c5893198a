import ArgumentParser
import EmbossKit
import Foundation

struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render text embossed in a material.",
    discussion:
      "In the text, \\n starts a new line and \\\\ is one backslash (C:\\\\new is C:\\new). A text file's newlines are real.\n\n"
      + ExitStatus.paragraph("render")
  )

  @Argument(help: "The text to emboss (ignored with --mask).")
  var text: String?

  @Option(
    name: .customLong("text-file"),
    help: ArgumentHelp(
      "Read the text from this file (- for standard input): UTF-8, real newlines, a leading BOM dropped.",
      valueName: "file"), completion: .file(extensions: ["txt"]))
  var textFile: String?

  @OptionGroup var output: OutputOptions

  @Option(
    help: ArgumentHelp(
      "A font file (TTF, OTF, TTC), or an installed font by fontconfig pattern: 'DejaVu Serif:bold', 'Noto Sans:style=Light' (emboss fonts lists them; default: the bundled Fonts/DejaVuSans-Bold.ttf).",
      valueName: "file|pattern"), completion: fontCompletion)
  var font: String?

  @Option(
    name: .customLong("face-index"),
    help: ArgumentHelp(
      "The face in a font collection (.ttc): 0 is the first (default: the first, or the face the pattern matched).",
      valueName: "n"))
  var faceIndex: Int?

  @Option(
    help: ArgumentHelp(
      "OpenType features in HarfBuzz's syntax: 'liga=0,smcp,ss01' (=0 or a leading - turns one off).",
      valueName: "list"), transform: FontFeatures.argument)
  var features: FontFeatures = .none

  @Option(
    help: ArgumentHelp(
      "A variable font's axis values: 'wght=650,wdth=80'.", valueName: "list"),
    transform: FontVariations.argument)
  var variations: FontVariations = .none

  @Option(
    name: .customLong("text-direction"),
    help:
      "Each line's direction: auto (from its first strong letter: Arabic or Hebrew starts a right-to-left line), ltr or rtl."
  )
  var textDirection: TextDirection = .auto

  @Flag(
    name: .customLong("no-fallback"),
    help:
      "Characters the font lacks are an error, not taken from other installed fonts (for output that never depends on the machine's fonts)."
  )
  var noFallback = false

  @Option(
    help: ArgumentHelp(
      "Text size, the em size (as CSS font-size): pixels, or pt/mm/cm/in with --dpi; 1...10000 pixels (default: 160).",
      valueName: "length"), transform: Length.argument)
  var size: Length?

  @Option(
    help: ArgumentHelp(
      "Height of the text's ink, top of the highest glyph to the bottom of the lowest: pixels, or mm/cm/in with --dpi (overrides --size).",
      valueName: "length"), transform: Length.argument)
  var height: Length?

  @Option(
    name: .customLong("cap-height"),
    help: ArgumentHelp(
      "Height of the font's capitals (its OS/2 cap height, else the H's): pixels, or mm/cm/in/pt with --dpi; the same for every text in the font (instead of --size or --height).",
      valueName: "length"), transform: Length.argument)
  var capHeight: Length?

  @OptionGroup var resolution: ResolutionOption

  @Option(
    help: ArgumentHelp("A picture (any PNG) as the mask instead of text.", valueName: "file"),
    completion: pictureCompletion)
  var mask: String?

  @Option(
    name: .customLong("mask-mode"),
    help:
      "threshold (dark is inside; edges follow the gray at the threshold, anti-aliased) or coverage (the picture's gray and alpha, anti-aliased)."
  )
  var maskMode: MaskMode = .threshold

  @Option(
    name: .customLong("mask-threshold"),
    help: "0...255: with --mask-mode threshold, gray below threshold/255 is inside.")
  var maskThreshold: Int = 128

  @Flag(name: .customLong("invert-mask"), help: "Light is inside instead of dark.")
  var invertMask = false

  @Option(
    help:
      "Line alignment: left, center, right, or start/end (left/right as each line's direction has it)."
  )
  var align: TextAlignment = .center

  @Option(
    name: .customLong("letter-spacing"), parsing: .unconditional,
    help: ArgumentHelp(
      "Extra space between letters: px, or mm/cm/in/pt with --dpi (negative tightens).",
      valueName: "length"), transform: Length.argument)
  var letterSpacing: Length = .zero

  @Option(
    name: .customLong("line-height"),
    help: "Baseline distance as a multiple of the font's line spacing.")
  var lineHeight: Float = 1

  @Option(
    help: ArgumentHelp(
      "Margin around the ink: px, or mm/cm/in/pt with --dpi (default: 15% of the size plus 2 px).",
      valueName: "length"), transform: Length.argument)
  var padding: Length?

  @Option(
    help: ArgumentHelp(
      "A fixed canvas WIDTHxHEIGHT with the text centered at its exact position, in px or a unit with --dpi: 1000x200, 100mmx30mm (default: fit the text).",
      valueName: "WxH"), transform: CanvasArgument.argument)
  var canvas: CanvasArgument?

  @OptionGroup(title: "Material") var material: MaterialOptions

  @OptionGroup(title: "Relief and composite") var relief: ReliefOptions

  @OptionGroup(title: "Key light") var light: LightOptions

  @OptionGroup var threads: ThreadOptions

  @OptionGroup var cache: CacheOption

  @Option(
    name: .customLong("shading-image"),
    help: ArgumentHelp(
      "A matcap PNG to use instead of the material's lit ball (its lights and surface are then unused).",
      valueName: "file"), completion: pictureCompletion)
  var shadingImage: String?

  @Option(
    help: ArgumentHelp(
      "Also write a 1-bit engrave bitmap (black = burn) of the render here.", valueName: "file"),
    completion: .file(extensions: ["png"]))
  var engrave: String?

  @OptionGroup(title: "Engrave bitmap") var engraving: EngraveArguments

  @OptionGroup var messages: QuietOption

  @Option(
    name: .customLong("depth-map"),
    help: ArgumentHelp(
      "Also write the height field as gray here: white = surface, black = deepest (LightBurn 3D, CNC).",
      valueName: "file"), completion: .file(extensions: ["png"]))
  var depthMap: String?

  @Option(name: .customLong("depth-map-bits"), help: "8 or 16.")
  var depthMapBits: BitDepth = .sixteen

  @Flag(name: .customLong("depth-map-invert"), help: "Black = surface, white = deepest.")
  var depthMapInvert = false

  @Option(
    help: ArgumentHelp(
      "Also write an SVG (size in mm, needs --dpi) with the engrave bitmap and the cut line.",
      valueName: "file"), completion: .file(extensions: ["svg"]))
  var svg: String?

  @Option(
    name: .customLong("cut-offset"), parsing: .unconditional,
    help: ArgumentHelp(
      "Cut this far outside the ink (px, or mm with --dpi), like a sticker outline; negative cuts inside it (-0.5mm).",
      valueName: "length"), transform: Length.argument)
  var cutOffset: Length = .zero

  @Option(
    name: .customLong("cut-join"),
    help:
      "How an offset cut line turns round convex corners: round (exactly the offset from the ink everywhere) or miter (sharp, squared off past 4 offsets); text only, a picture's cut line is round."
  )
  var cutJoin: CutLine.Join = .round

  @Flag(
    name: .customLong("cut-outer"),
    help: "Cut the outer contour only: no holes (the inside of an o), as a sticker needs.")
  var cutOuter = false

  @Option(
    name: .customLong("cut-min-size"),
    help: ArgumentHelp(
      "Do not cut loops narrower than this (px, or mm with --dpi) on their narrower side: slivers and specks that would fall out as loose pieces.",
      valueName: "length"), transform: Length.argument)
  var cutMinSize: Length = .zero

  @Option(
    name: .customLong("cut-color"),
    help: ArgumentHelp(
      "The cut line's color (laser software makes a layer per color).", valueName: "color"))
  var cutColor: String = SVGDocument.cutColor

  @Option(
    name: .customLong("cut-width"),
    help: ArgumentHelp(
      "The cut line's stroke width (px, or mm with --dpi; default 0.1mm).", valueName: "length"),
    transform: Length.argument)
  var cutWidth: Length?

  @Option(
    name: .customLong("ink-vectors"),
    help: ArgumentHelp(
      "Also write the ink's outline as vectors in the SVG: fill (vector engrave, black) or score (stroked in blue).",
      valueName: "fill|score"))
  var inkVectors: SVGDocument.InkVectors?

  @Option(
    name: .customLong("cut-region"),
    help: ArgumentHelp(
      "Cut only around the shape under this pixel (flood fill).", valueName: "x,y"),
    transform: PixelPoint.argument)
  var cutRegion: PixelPoint?

  @Option(
    help: ArgumentHelp(
      "Also write the relief as a 3D model here: a plate the canvas's size with the relief on it, in mm (needs --dpi): binary STL (.stl) or 3MF (.3mf).",
      valueName: "file"), completion: .file(extensions: ["stl", "3mf"]))
  var mesh: String?

  @Option(
    name: .customLong("mesh-height"),
    help: ArgumentHelp(
      "The relief's height on the model at the plateau, a lowered relief's depth (1mm, 0.04in; a bare number is pixels; default 1mm).",
      valueName: "length"), transform: Length.argument)
  var meshHeight: Length?

  @Option(
    name: .customLong("mesh-base"),
    help: ArgumentHelp(
      "The plate under the relief (2mm, 0.1in; a bare number is pixels; default 2mm); 0: the letters alone, each a part with a flat bottom.",
      valueName: "length"),
    transform: Length.argument)
  var meshBase: Length?

  @Option(
    name: .customLong("mesh-wall"),
    help: ArgumentHelp(
      "A straight wall under the bevel (raised: the letters stand this high before it starts; lowered: they are cut this deep first; default 0).",
      valueName: "length"),
    transform: Length.argument)
  var meshWall: Length?

  @Option(
    name: .customLong("mesh-plate"),
    help: ArgumentHelp(
      "The plate's shape: rect (the canvas) or outline (the ink's outline grown by --cut-offset: a tag, a keychain).",
      valueName: "rect|outline"))
  var meshPlate: MeshSpec.Plate?

  @Flag(
    name: .customLong("mesh-split"),
    help:
      "The plate and the letters as two objects in the 3MF, for a two-colour print (raised text).")
  var meshSplit = false

  @Option(
    name: .customLong("save-stages"),
    help: ArgumentHelp(
      "Also write mask.png, height.png, normals.png and shading.png here.", valueName: "dir"),
    completion: .directory)
  var saveStages: String?

  @Flag(
    help:
      "Re-render whenever the material file (or what it extends) changes; errors keep the last good image."
  )
  var watch = false

  @Option(name: .customLong("watch-limit"), help: .hidden)
  var watchLimit: Int?

  @Flag(help: "Print each stage's time to standard error.")
  var timings = false

  @Option(name: .customLong("max-pixels"), help: "Refuse images larger than this many pixels.")
  var maxPixels: Int = RenderLimits.default.maxPixels

  @Option(
    name: .customLong("max-memory"),
    help: ArgumentHelp(
      "Refuse renders estimated to need more memory than this: 8G, 512M (default: half the machine's memory).",
      valueName: "size"), transform: ByteCount.argument)
  var maxMemory: ByteCount?

  func validate() throws {
    try requirePNG(engrave, option: "--engrave")
    try requirePNG(depthMap, option: "--depth-map")
    if textFile != nil, text != nil {
      throw ValidationError("give the text or --text-file, not both")
    }
    if text == nil, textFile == nil, mask == nil {
      throw ValidationError(
        "no text to emboss: give it as an argument (emboss render \"Hello\" -o hello.png), or --text-file FILE, or a picture with --mask FILE"
      )
    }
    if textFile != nil, mask != nil {
      throw ValidationError("give --text-file or --mask, not both")
    }
    _ = try pixelSize()
    let spacing = try resolution.pixels(
      letterSpacing, option: "--letter-spacing", allowNegative: true)
    guard abs(spacing) <= 10_000 else {
      throw ValidationError(
        "--letter-spacing must be within 10000 pixels either way, got \(letterSpacing)")
    }
    guard lineHeight.isFinite, lineHeight > 0, lineHeight <= 100 else {
      throw ValidationError("--line-height must be in (0, 100], got \(lineHeight)")
    }
    if let padding {
      let pixels = try resolution.pixels(padding, option: "--padding")
      guard pixels <= 100_000 else {
        throw ValidationError("--padding must be in 0...100000 pixels, got \(padding)")
      }
    }
    guard (0...255).contains(maskThreshold) else {
      throw ValidationError("--mask-threshold must be in 0...255, got \(maskThreshold)")
    }
    if let height {
      let pixels = try resolution.pixels(height, option: "--height")
      guard pixels >= 2, pixels <= 20_000 else {
        throw ValidationError("--height \(height) is \(pixels) pixels; it must be 2...20000 pixels")
      }
    }
    if let capHeight {
      if size != nil { throw ValidationError("give --cap-height or --size, not both") }
      if height != nil { throw ValidationError("give --cap-height or --height, not both") }
      let pixels = try resolution.pixels(capHeight, option: "--cap-height")
      guard pixels >= 1, pixels <= 10_000 else {
        throw ValidationError(
          "--cap-height \(capHeight) is \(pixels) pixels; it must be 1...10000 pixels")
      }
    }
    let offset = try resolution.pixels(cutOffset, option: "--cut-offset", allowNegative: true)
    guard offset > -1000 else {
      throw ValidationError("--cut-offset must be more than -1000 pixels, got \(cutOffset)")
    }
    _ = try resolution.pixels(cutMinSize, option: "--cut-min-size")
    if let cutWidth {
      guard try resolution.pixels(cutWidth, option: "--cut-width") > 0 else {
        throw ValidationError("--cut-width must be more than 0")
      }
    }
    if case .failure(let error) = ColorLiteral.parse(cutColor) {
      throw ValidationError("--cut-color \(cutColor): \(error.message)")
    }
    if svg != nil && resolution.dpi == nil {
      throw ValidationError("--svg needs --dpi: the SVG's size is in millimeters")
    }
    if let mesh {
      guard resolution.dpi != nil else {
        throw ValidationError("--mesh needs --dpi: the model's size is in millimeters")
      }
      guard MeshFile.Format(path: mesh) != nil else {
        throw ValidationError("--mesh \(mesh): the name must end in .stl or .3mf")
      }
    } else if meshHeight != nil || meshBase != nil || meshWall != nil || meshPlate != nil
      || meshSplit
    {
      throw ValidationError(
        "--mesh-height, --mesh-base, --mesh-wall, --mesh-plate and --mesh-split need --mesh")
    }
    let (height, base, wall) = try meshSizes()
    guard height > 0 else { throw ValidationError("--mesh-height must be more than 0") }
    guard base >= 0 else { throw ValidationError("--mesh-base must not be negative") }
    guard wall >= 0 else { throw ValidationError("--mesh-wall must not be negative") }
    if meshSplit {
      guard let mesh, MeshFile.Format(path: mesh) == .threeMF else {
        throw ValidationError("--mesh-split needs a .3mf --mesh: an STL holds one object")
      }
      guard base > 0 else {
        throw ValidationError("--mesh-split needs a plate: --mesh-base more than 0")
      }
    }
    if meshPlate == .outline {
      guard base > 0 else {
        throw ValidationError("--mesh-plate outline needs --mesh-base more than 0")
      }
      guard try resolution.pixels(cutOffset, option: "--cut-offset", allowNegative: true) >= 0
      else {
        throw ValidationError(
          "--mesh-plate outline needs a --cut-offset of 0 or more: the plate holds the ink")
      }
    }
    if let canvas { _ = try canvasSize(canvas) }
    if watch, output.output == "-" {
      throw ValidationError("--watch writes a file; give -o a path, not -")
    }
    if let faceIndex, !(0...65_535).contains(faceIndex) {
      throw ValidationError("--face-index must be in 0...65535, got \(faceIndex)")
    }
    if faceIndex != nil, mask != nil {
      throw ValidationError("--face-index needs text, not --mask")
    }
    guard maxPixels > 0 else {
      throw ValidationError("--max-pixels must be positive, got \(maxPixels)")
    }
    _ = try materialSettings(material, relief: relief, light: light, dpi: resolution.dpi)
    if let conflict = OutputConflicts.check(outputs: try plan().paths, inputs: inputPaths) {
      throw ValidationError(conflict)
    }
  }

  /// The job, every argument turned into library values (all checked in `validate`).
  func job(resources: Resources) throws -> RenderJob {
    let source: MaskSource
    if let mask {
      source = .picture(
        PictureMask(path: mask, mode: maskMode, invert: invertMask, threshold: maskThreshold))
    } else {
      let face = try font.map { try TextMask.font($0, index: faceIndex, resources: resources) }
      source = .text(
        TextMask(
          text: try textFile.map(TextMask.read(file:)) ?? TextMask.unescaped(text ?? ""),
          fontPath: face?.path, fontIndex: face?.index ?? faceIndex ?? 0,
          style: TextStyle(
            pixelSize: try pixelSize(), alignment: align,
            letterSpacing: Float(
              try resolution.pixels(letterSpacing, option: "--letter-spacing", allowNegative: true)),
            lineHeight: lineHeight,
            padding: try padding.map { Float(try resolution.pixels($0, option: "--padding")) },
            direction: textDirection, features: features, variations: variations),
          inkHeight: try height.map { try resolution.pixels($0, option: "--height") },
          capHeight: try capHeight.map { try resolution.pixels($0, option: "--cap-height") },
          canvas: try canvas.map(canvasSize), fallback: !noFallback))
    }
    return RenderJob(
      mask: source, material: material.material,
      settings: try materialSettings(material, relief: relief, light: light, dpi: resolution.dpi),
      shadingImagePath: shadingImage, output: try plan(), parallelism: threads.parallelism,
      limits: RenderLimits(
        maxPixels: maxPixels,
        maxMemory: maxMemory?.bytes ?? RenderLimits.defaultMemory))
  }

  /// The mesh's relief height, plate and wall, in mm.
  private func meshSizes() throws -> (height: Double, base: Double, wall: Double) {
    let millimetres = 25.4 / (resolution.dpi ?? 96)
    func mm(_ length: Length?, _ option: String) throws -> Double? {
      try length.map {
        try resolution.pixels($0, option: option, allowNegative: true) * millimetres
      }
    }
    return (
      try mm(meshHeight, "--mesh-height") ?? MeshSpec.defaultHeight,
      try mm(meshBase, "--mesh-base") ?? MeshSpec.defaultBase, try mm(meshWall, "--mesh-wall") ?? 0
    )
  }

  /// Every file this command writes.
  private func plan() throws -> OutputPlan {
    var laser = LaserRequest()
    laser.engraveOptions = try engraving.options(resolution: resolution)
    if let engrave { laser.engrave = (engrave, try engraving.options(resolution: resolution)) }
    if let depthMap { laser.depthMap = (depthMap, depthMapBits, depthMapInvert) }
    if let svg {
      let point = cutRegion
      let dpi = resolution.dpi ?? 96
      laser.svg = SVGRequest(
        path: svg,
        cutOffset: try resolution.pixels(cutOffset, option: "--cut-offset", allowNegative: true),
        cutJoin: cutJoin,
        cutRegion: point.map { (x: $0.x, y: $0.y) }, cutOuter: cutOuter,
        cutMinSize: try resolution.pixels(cutMinSize, option: "--cut-min-size"),
        cutColor: try ColorLiteral.parse(cutColor).get().hex,
        cutWidthMM: try cutWidth.map {
          try resolution.pixels($0, option: "--cut-width") * 25.4 / dpi
        }
          ?? SVGDocument.cutWidthMM,
        inkVectors: inkVectors)
    }
    if let mesh, let format = MeshFile.Format(path: mesh) {
      let (height, base, wall) = try meshSizes()
      laser.mesh = MeshRequest(
        path: mesh, format: format, height: height, base: base, wall: wall,
        plate: meshPlate ?? .rectangle,
        plateOffset: try resolution.pixels(cutOffset, option: "--cut-offset", allowNegative: true),
        split: meshSplit)
    }
    return OutputPlan(
      image: output.output, format: output.format, depth: output.depth,
      compression: output.compression,
      resolution: resolution.resolution, laser: laser, stagesDirectory: saveStages)
  }

  func run() throws {
    let resources = try Resources.locate()
    // The warning is about PNG's pixels per meter: a JPEG stores a whole DPI exactly.
    let writesPNG =
      (try? output.outputFormat()) == .png || engrave != nil || depthMap != nil
      || saveStages != nil
    if writesPNG, let warning = resolution.resolution?.roundTripWarning {
      messages.say("warning: \(warning)")
    }
    let job = try job(resources: resources)
    if watch {
      let output = self.output.output
      var watcher = MaterialWatcher(job: job, resources: resources)
      watcher.ballCache = cache.ballCache
      watcher.run(limit: watchLimit) { result in
        try write(result, job: job)
      } report: { event in
        switch event {
        case .rendered(let milliseconds, let stages):
          let line = String(
            format: "rendered %@ in %.1f ms (%@)", output, milliseconds,
            stages.joined(separator: ", "))
          // Watching goes on when standard output has gone away; the file is the output.
          try? StandardStream.writeOutput(Data((line + "\n").utf8))
        case .failed(let lines):
          for line in lines { printError(line) }
          printError("waiting for the next change; \(output) keeps the last good render")
        }
      }
      return
    }
    try write(try job.run(resources: resources, cache: StageCache(disk: cache.ballCache)), job: job)
  }

  /// The em size in pixels: `--size` (pt, mm, cm or in with --dpi), 160 without it.
  private func pixelSize() throws -> Float {
    guard let size else { return TextStyle.referenceSize }
    let pixels = try resolution.pixels(size, option: "--size")
    guard pixels >= 1, pixels <= 10_000 else {
      throw ValidationError(
        size.isPhysical
          ? "--size \(size) is \(pixels) pixels; it must be 1...10000 pixels"
          : "--size must be in 1...10000 pixels, got \(size)")
    }
    return Float(pixels)
  }

  /// The canvas in whole pixels (rounded).
  private func canvasSize(_ canvas: CanvasArgument) throws -> CanvasSize {
    let w = try resolution.pixels(canvas.width, option: "--canvas")
    let h = try resolution.pixels(canvas.height, option: "--canvas")
    guard w >= 1, h >= 1 else {
      throw ValidationError(
        "--canvas \(canvas.width)x\(canvas.height) is under a pixel wide or high")
    }
    return CanvasSize(width: Int(w.rounded()), height: Int(h.rounded()))
  }

  private var inputPaths: [(option: String, path: String)] {
    var paths: [(String, String)] = []
    if let mask { paths.append(("--mask", mask)) }
    if let textFile, textFile != "-" { paths.append(("--text-file", textFile)) }
    if let font, FontCatalog.isPath(font) { paths.append(("--font", font)) }
    if let shadingImage { paths.append(("--shading-image", shadingImage)) }
    if FileManager.default.fileExists(atPath: material.material) {
      paths.append(("--material", material.material))
    }
    return paths
  }

  private func write(_ result: RenderJob.Output, job: RenderJob) throws {
    // Fallback fonts make the picture depend on the machine's fonts: say which were used.
    for use in result.fallbackFonts {
      messages.say("note: '\(use.characters)' set in fallback font \(use.name) (\(use.path))")
    }
    var all = result.timings
    try all.measure("write") { try job.write(result) }
    if timings {
      for stage in all.stages {
        printError(String(format: "%-14@ %8.2f ms", stage.name, stage.seconds * 1000))
      }
      printError(String(format: "%-14@ %8.2f ms", "total", all.total * 1000))
    }
  }
}
