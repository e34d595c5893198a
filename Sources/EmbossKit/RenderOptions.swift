import Foundation

/// One option of a render: its key (the command line's long flag without the dashes, a
/// batch's column, a request's JSON key), what it takes, its help, its default and whom it is
/// for.
///
/// `RenderOption.all` is the one table of a render's options. The command line's flags (name,
/// help, value name, default, completion), the batch's columns and templates, the request's
/// JSON and its checks (`RenderRequest`) all come from it; nothing reads help text back.
/// Material keys have their own table (`Parameters`): the options that set one (`radius`,
/// `light-angle`, ...) take their help and range from it.
public struct RenderOption: Sendable, Hashable, Identifiable, CustomStringConvertible {
  /// What the option takes.
  public enum Kind: Sendable, Hashable {
    /// One value.
    case value
    /// On or off: `--key` (and `--no-key` when the flag is on by default).
    case flag
    /// Repeatable: each use adds a value (`--set`).
    case list
  }

  /// Whom the option is for.
  public enum Scope: Sendable, Hashable {
    /// Describes the render: a request's value, a batch's column.
    case request
    /// Names a file the render writes: a batch's template, never a column.
    case output
    /// How one run goes (threads, messages, watching): the command line's alone.
    case run
  }

  /// How a shell completes the option's value.
  ///
  /// A struct, not an enum with array payloads: a global's array kept in a multi-payload
  /// enum's spare bits is invisible to LeakSanitizer, which then reports it as leaked.
  public struct Completion: Sendable, Hashable {
    /// What is completed.
    public enum Kind: Sendable, Hashable {
      case none
      /// Files with the extensions in `words`.
      case files
      case directory
      /// One of `words`.
      case choices
      /// A preset's name or a material file.
      case material
    }

    /// What is completed.
    public let kind: Kind
    /// File extensions or choices.
    public let words: [String]

    /// No completion.
    public static let none = Completion(kind: .none, words: [])
    /// Directories.
    public static let directory = Completion(kind: .directory, words: [])
    /// A preset's name or a material file.
    public static let material = Completion(kind: .material, words: [])

    /// Files with these extensions.
    public static func files(_ extensions: [String]) -> Completion {
      Completion(kind: .files, words: extensions)
    }

    /// One of these words.
    public static func choices(_ words: [String]) -> Completion {
      Completion(kind: .choices, words: words)
    }
  }

  /// `size`, `cut-offset`: the flag is `--` and the key.
  public let key: String
  /// What the option takes.
  public let kind: Kind
  /// The value's name in help (`length`, `file`); nil for a flag.
  public let valueName: String?
  /// One paragraph of help.
  public let help: String
  /// Whom the option is for.
  public let scope: Scope
  /// The value when the option is not given, as written (nil: none, or one that depends on
  /// other values, which the help says).
  public let defaultValue: String?
  /// The value may be negative, so a word after the flag that starts with `-` is its value.
  public let negative: Bool
  /// How a shell completes the value.
  public let completion: Completion
  /// A one-letter flag too (`-o`).
  public let short: Character?
  /// Left out of help (an option for tests).
  public let hidden: Bool

  /// The key.
  public var id: String { key }
  /// `--key`, as the command line names it.
  public var description: String { "--" + key }

  init(
    _ key: String, _ kind: Kind = .value, value valueName: String? = nil, scope: Scope = .request,
    default defaultValue: String? = nil, negative: Bool = false,
    completion: Completion = .none, short: Character? = nil, hidden: Bool = false,
    help: String
  ) {
    self.key = key
    self.kind = kind
    self.valueName = kind == .flag ? nil : valueName
    self.help = help
    self.scope = scope
    self.defaultValue = defaultValue
    self.negative = negative
    self.completion = completion
    self.short = short
    self.hidden = hidden
  }

  /// The option with this key; nil when there is none.
  public static func named(_ key: String) -> RenderOption? { byKey[key] }

  private static let byKey = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

  /// A flag's value as a column or JSON gives it: true, 1, yes (or x, y) turn it on; false,
  /// 0, no, n or nothing leave it off.
  public static func flagValue(_ text: String) -> Bool? {
    switch text.trimmingCharacters(in: .whitespaces).lowercased() {
    case "", "0", "false", "no", "n": return false
    case "1", "true", "yes", "y", "x": return true
    default: return nil
    }
  }
}

/// How `text-case` changes the text before it is set.
public enum TextCase: String, Sendable, CaseIterable {
  /// Capitals: `Straße` is `STRASSE`.
  case upper
  /// Small letters.
  case lower

  /// `text` in this case, by Unicode's default (locale-independent) mappings.
  public func apply(_ text: String) -> String {
    switch self {
    case .upper: text.uppercased()
    case .lower: text.lowercased()
    }
  }
}

/// The help of an option that sets a material key: the key's help, range and unit from the
/// parameter table.
private func materialHelp(_ parameter: NumberParameter, lengths: Bool = false) -> String {
  let unit = parameter.unit.isEmpty ? "" : " \(parameter.unit)"
  let range =
    "\(formatNumber(parameter.range.lowerBound))...\(formatNumber(parameter.range.upperBound))\(unit)"
  let what = lengths ? "a length (px, or mm/cm/in/pt with --dpi), " : ""
  return "Sets \(parameter.key): \(parameter.help); \(what)\(range) (default: the material's)."
}

private func choiceNames<Value>(_ parameter: ChoiceParameter<Value>) -> String {
  parameter.names.joined(separator: "|")
}

extension RenderOption {
  // MARK: Text and mask

  /// `--text-file`.
  public static let textFile = RenderOption(
    "text-file", value: "file", completion: .files(["txt"]),
    help:
      "Read the text from this file (- for standard input): UTF-8, real newlines, a leading BOM dropped."
  )
  /// `--font`.
  public static let font = RenderOption(
    "font", value: "file|pattern", completion: .files(["ttf", "otf", "ttc", "otc"]),
    help:
      "A font file (TTF, OTF, TTC), or an installed font by fontconfig pattern: 'DejaVu Serif:bold', 'Noto Sans:style=Light' (emboss fonts lists them; default: the bundled Fonts/DejaVuSans-Bold.ttf)."
  )
  /// `--face-index`.
  public static let faceIndex = RenderOption(
    "face-index", value: "n",
    help:
      "The face in a font collection (.ttc): 0 is the first (default: the first, or the face the pattern matched)."
  )
  /// `--features`.
  public static let features = RenderOption(
    "features", value: "list",
    help:
      "OpenType features in HarfBuzz's syntax: 'liga=0,smcp,ss01' (=0 or a leading - turns one off)."
  )
  /// `--variations`.
  public static let variations = RenderOption(
    "variations", value: "list", help: "A variable font's axis values: 'wght=650,wdth=80'.")
  /// `--text-direction`.
  public static let textDirection = RenderOption(
    "text-direction", value: "text-direction", default: "auto",
    completion: .choices(TextDirection.allCases.map(\.rawValue)),
    help:
      "Each line's direction: auto (from its first strong letter: Arabic or Hebrew starts a right-to-left line), ltr or rtl."
  )
  /// `--text-case`.
  public static let textCase = RenderOption(
    "text-case", value: "upper|lower", completion: .choices(TextCase.allCases.map(\.rawValue)),
    help:
      "Set the text in capitals (upper) or small letters (lower), by Unicode's rules for any script (ß becomes SS); default: as written."
  )
  /// `--no-fallback`.
  public static let noFallback = RenderOption(
    "no-fallback", .flag,
    help:
      "Characters the font lacks are an error, not taken from other installed fonts (for output that never depends on the machine's fonts)."
  )
  /// `--size`.
  public static let size = RenderOption(
    "size", value: "length",
    help:
      "Text size, the em size (as CSS font-size): pixels, or pt/mm/cm/in with --dpi; 1...10000 pixels (default: \(formatNumber(TextStyle.referenceSize)))."
  )
  /// `--height`.
  public static let height = RenderOption(
    "height", value: "length",
    help:
      "Height of the text's ink, top of the highest glyph to the bottom of the lowest: pixels, or mm/cm/in with --dpi (overrides --size)."
  )
  /// `--cap-height`.
  public static let capHeight = RenderOption(
    "cap-height", value: "length",
    help:
      "Height of the font's capitals (its OS/2 cap height, else the H's): pixels, or mm/cm/in/pt with --dpi; the same for every text in the font (instead of --size or --height)."
  )
  /// `--dpi`.
  public static let dpi = RenderOption(
    "dpi", value: "dpi",
    help:
      "Resolution in dots per inch, stored in the PNGs (pHYs) and used for lengths in mm, cm or in. 254, 508 or 1016 are stored exactly."
  )
  /// `--mask`.
  public static let mask = RenderOption(
    "mask", value: "file", completion: .files(["png", "jpg", "jpeg", "webp"]),
    help: "A picture (any PNG) as the mask instead of text.")
  /// `--mask-mode`.
  public static let maskMode = RenderOption(
    "mask-mode", value: "mask-mode", default: "threshold",
    completion: .choices(MaskMode.allCases.map(\.rawValue)),
    help:
      "threshold (dark is inside; edges follow the gray at the threshold, anti-aliased) or coverage (the picture's gray and alpha, anti-aliased)."
  )
  /// `--mask-threshold`.
  public static let maskThreshold = RenderOption(
    "mask-threshold", value: "mask-threshold", default: "128",
    help: "0...255: with --mask-mode threshold, gray below threshold/255 is inside.")
  /// `--invert-mask`.
  public static let invertMask = RenderOption(
    "invert-mask", .flag, help: "Light is inside instead of dark.")

  // MARK: Layout

  /// `--align`.
  public static let align = RenderOption(
    "align", value: "align", default: "center",
    completion: .choices(TextAlignment.allCases.map(\.rawValue)),
    help:
      "Line alignment: left, center, right, or start/end (left/right as each line's direction has it)."
  )
  /// `--letter-spacing`.
  public static let letterSpacing = RenderOption(
    "letter-spacing", value: "length", default: "0", negative: true,
    help: "Extra space between letters: px, or mm/cm/in/pt with --dpi (negative tightens).")
  /// `--line-height`.
  public static let lineHeight = RenderOption(
    "line-height", value: "line-height", default: "1.0",
    help: "Baseline distance as a multiple of the font's line spacing.")
  /// `--padding`.
  public static let padding = RenderOption(
    "padding", value: "length",
    help:
      "Margin around the ink: px, or mm/cm/in/pt with --dpi (default: 15% of the size plus 2 px)."
  )
  /// `--canvas`.
  public static let canvas = RenderOption(
    "canvas", value: "WxH",
    help:
      "A fixed canvas WIDTHxHEIGHT with the text centered at its exact position, in px or a unit with --dpi: 1000x200, 100mmx30mm (default: fit the text)."
  )

  // MARK: Material

  /// `--material`.
  public static let material = RenderOption(
    "material", value: "name|file", default: "default", completion: .material,
    help: "A preset name from Materials/ or a material file path.")
  /// `--set`.
  public static let set = RenderOption(
    "set", .list, value: "key=value",
    help:
      "Override one material value, as in the file: surface.shininess=60, lights[0].intensity=0.5, lights[1].color=#ff8800 (repeatable; keys: emboss parameters)."
  )

  // MARK: Relief and composite (material keys)

  /// `--radius`.
  public static let radius = RenderOption(
    "radius", value: "length", help: materialHelp(Parameters.radius, lengths: true))
  /// `--profile`.
  public static let profile = RenderOption(
    "profile", value: choiceNames(Parameters.profile),
    completion: .choices(Parameters.profile.names),
    help:
      "Sets \(Parameters.profile.key): \(Parameters.profile.names.joined(separator: ", ")) (default: the material's)."
  )
  /// `--relief-depth`.
  public static let reliefDepth = RenderOption(
    "relief-depth", value: "Nx|length",
    help:
      "Sets \(Parameters.depth.key): the plateau's height, a multiple of the radius such as 1.5x (following the radius, so a design looks the same at any resolution), or a length (px, or mm/cm/in/pt with --dpi) (default: the material's)."
  )
  /// `--scale`.
  public static let scale = RenderOption(
    "scale", value: "number", help: materialHelp(Parameters.scale))
  /// `--soften`.
  public static let soften = RenderOption(
    "soften", value: "length", help: materialHelp(Parameters.soften, lengths: true))
  /// `--direction`.
  public static let direction = RenderOption(
    "direction", value: choiceNames(Parameters.direction),
    completion: .choices(Parameters.direction.names),
    help:
      "Sets \(Parameters.direction.key): \(Parameters.direction.names.joined(separator: ", ")) (default: the material's)."
  )
  /// `--background`.
  public static let background = RenderOption(
    "background", value: "color",
    help:
      "Sets \(Parameters.background.key): a color such as '#202020', or 'transparent' (default: the material's)."
  )
  /// `--shading-size`.
  public static let shadingSize = RenderOption(
    "shading-size", value: "pixels",
    help:
      "Sets \(Parameters.shadingSize.key): \(Parameters.shadingSize.help), \(Parameters.shadingSize.range.lowerBound)...\(Parameters.shadingSize.range.upperBound) pixels (default: the material's)."
  )

  /// `--background-image`.
  public static let backgroundImage = RenderOption(
    "background-image", value: "file", completion: .files(["png", "jpg", "jpeg", "webp"]),
    help:
      "A picture behind the letters (PNG, JPEG or WebP) instead of the material's plate or background color; the letters' shadow falls on it."
  )
  /// `--background-fit`.
  public static let backgroundFit = RenderOption(
    "background-fit", value: "fit", default: "fill",
    completion: .choices(Backdrop.Fit.allCases.map(\.rawValue)),
    help:
      "How the background picture covers the canvas: fill (scaled to cover it, centered, cropped), fit (scaled to fit inside, centered, the rest the background color) or tile (at its own size, repeated)."
  )

  // MARK: Key light

  /// `--light-angle`.
  public static let lightAngle = RenderOption(
    "light-angle", value: "degrees", negative: true, help: materialHelp(Parameters.lightAngle))
  /// `--light-altitude`.
  public static let lightAltitude = RenderOption(
    "light-altitude", value: "degrees", negative: true,
    help:
      "Key light height above the surface in degrees, \(formatNumber(Parameters.lightAltitude.range.lowerBound))...\(formatNumber(Parameters.lightAltitude.range.upperBound)) (90: straight on; default with --light-angle: \(formatNumber(Parameters.lightAltitude.value))). Either makes the material's first light a distant light."
  )

  /// `--shading-image`.
  public static let shadingImage = RenderOption(
    "shading-image", value: "file", completion: .files(["png", "jpg", "jpeg", "webp"]),
    help:
      "A matcap PNG to use instead of the material's lit ball (its lights and surface are then unused)."
  )

  // MARK: The picture

  /// `--output`.
  public static let output = RenderOption(
    "output", value: "file", scope: .output, completion: .files(["png", "jpg", "jpeg", "webp"]),
    short: "o",
    help:
      "Output picture: .png, or .jpg / .webp for previews (chosen by the extension); - for PNG on standard output."
  )
  /// `--format`.
  public static let format = RenderOption(
    "format", value: "png|jpeg|webp",
    help:
      "The picture's format, whatever the output's name (a FIFO, a device); default: from the extension."
  )
  /// `--depth`.
  public static let depth = RenderOption(
    "depth", value: "depth", default: "8", help: "Bits per channel: 8 or 16 (PNG).")
  /// `--compression`.
  public static let compression = RenderOption(
    "compression", value: "compression", default: String(PNGCodec.defaultCompression),
    help:
      "PNG compression, 0 (none) ... 9 (smallest): 1-3 ISA-L's igzip (fast), 4-9 zlib's levels."
  )

  // MARK: Engrave bitmap

  /// `--engrave`.
  public static let engrave = RenderOption(
    "engrave", value: "file", scope: .output, completion: .files(["png"]),
    help: "Also write a 1-bit engrave bitmap (black = burn) of the render here.")
  /// `--dither`.
  public static let dither = RenderOption(
    "dither", value: "method", default: "threshold",
    completion: .choices(DitherMethod.allCases.map(\.rawValue)),
    help:
      "threshold, floyd-steinberg, atkinson, jarvis-judice-ninke, stucki, burkes, sierra, sierra-2row, sierra-lite, bayer2, bayer4, bayer8 or blue-noise."
  )
  /// `--threshold`.
  public static let threshold = RenderOption(
    "threshold", value: "threshold", default: "128",
    help: "0...255: gray at or above threshold/255 stays white (unburned).")
  /// On by default: `--no-serpentine` turns it off.
  public static let serpentine = RenderOption(
    "serpentine", .flag, default: "true",
    help: "Error diffusion alternates direction row by row.")
  /// `--gamma`.
  public static let gamma = RenderOption(
    "gamma", value: "gamma", default: "1.0",
    help: "Gray is raised to this power before dithering (2.2: linear light).")
  /// `--negative`.
  public static let negative = RenderOption(
    "negative", .flag, help: "Burn the light parts (slate, glass, anodized aluminum).")
  /// `--mirror`.
  public static let mirror = RenderOption(
    "mirror", .flag, help: "Mirror left to right (engraving the back of acrylic).")
  /// `--dot-width`.
  public static let dotWidth = RenderOption(
    "dot-width", value: "length", default: "0",
    help:
      "Beam width (px, or mm with --dpi): burned runs are shortened by it in all (whole pixels), half at each end."
  )

  // MARK: Depth map

  /// `--depth-map`.
  public static let depthMap = RenderOption(
    "depth-map", value: "file", scope: .output, completion: .files(["png"]),
    help:
      "Also write the height field as gray here: white = surface, black = deepest (LightBurn 3D, CNC)."
  )
  /// `--depth-map-bits`.
  public static let depthMapBits = RenderOption(
    "depth-map-bits", value: "depth-map-bits", default: "16", help: "8 or 16.")
  /// `--depth-map-invert`.
  public static let depthMapInvert = RenderOption(
    "depth-map-invert", .flag, help: "Black = surface, white = deepest.")

  // MARK: SVG and cut line

  /// `--svg`.
  public static let svg = RenderOption(
    "svg", value: "file", scope: .output, completion: .files(["svg"]),
    help: "Also write an SVG (size in mm, needs --dpi) with the engrave bitmap and the cut line.")
  /// `--cut-offset`.
  public static let cutOffset = RenderOption(
    "cut-offset", value: "length", default: "0", negative: true,
    help:
      "Cut this far outside the ink (px, or mm with --dpi), like a sticker outline; negative cuts inside it (-0.5mm)."
  )
  /// `--cut-join`.
  public static let cutJoin = RenderOption(
    "cut-join", value: "cut-join", default: "round",
    completion: .choices(CutLine.Join.allCases.map(\.rawValue)),
    help:
      "How an offset cut line turns round convex corners: round (exactly the offset from the ink everywhere) or miter (sharp, squared off past 4 offsets); text only, a picture's cut line is round."
  )
  /// `--cut-outer`.
  public static let cutOuter = RenderOption(
    "cut-outer", .flag,
    help: "Cut the outer contour only: no holes (the inside of an o), as a sticker needs.")
  /// `--cut-min-size`.
  public static let cutMinSize = RenderOption(
    "cut-min-size", value: "length", default: "0",
    help:
      "Do not cut loops narrower than this (px, or mm with --dpi) on their narrower side: slivers and specks that would fall out as loose pieces."
  )
  /// `--cut-color`.
  public static let cutColor = RenderOption(
    "cut-color", value: "color", default: SVGDocument.cutColor,
    help: "The cut line's color (laser software makes a layer per color).")
  /// `--cut-width`.
  public static let cutWidth = RenderOption(
    "cut-width", value: "length",
    help: "The cut line's stroke width (px, or mm with --dpi; default 0.1mm).")
  /// `--ink-vectors`.
  public static let inkVectors = RenderOption(
    "ink-vectors", value: "fill|score",
    completion: .choices(SVGDocument.InkVectors.allCases.map(\.rawValue)),
    help:
      "Also write the ink's outline as vectors in the SVG: fill (vector engrave, black) or score (stroked in blue)."
  )
  /// `--cut-region`.
  public static let cutRegion = RenderOption(
    "cut-region", value: "x,y", help: "Cut only around the shape under this pixel (flood fill).")

  // MARK: 3D model

  /// `--mesh`.
  public static let mesh = RenderOption(
    "mesh", value: "file", scope: .output, completion: .files(["stl", "3mf"]),
    help:
      "Also write the relief as a 3D model here: a plate the canvas's size with the relief on it, in mm (needs --dpi): binary STL (.stl) or 3MF (.3mf)."
  )
  /// `--mesh-height`.
  public static let meshHeight = RenderOption(
    "mesh-height", value: "length",
    help:
      "The relief's height on the model at the plateau, a lowered relief's depth (1mm, 0.04in; a bare number is pixels; default 1mm)."
  )
  /// `--mesh-base`.
  public static let meshBase = RenderOption(
    "mesh-base", value: "length",
    help:
      "The plate under the relief (2mm, 0.1in; a bare number is pixels; default 2mm); 0: the letters alone, each a part with a flat bottom."
  )
  /// `--mesh-wall`.
  public static let meshWall = RenderOption(
    "mesh-wall", value: "length",
    help:
      "A straight wall under the bevel (raised: the letters stand this high before it starts; lowered: they are cut this deep first; default 0)."
  )
  /// `--mesh-plate`.
  public static let meshPlate = RenderOption(
    "mesh-plate", value: "rect|outline",
    help:
      "The plate's shape: rect (the canvas) or outline (the ink's outline grown by --cut-offset: a tag, a keychain)."
  )
  /// `--mesh-split`.
  public static let meshSplit = RenderOption(
    "mesh-split", .flag,
    help:
      "The plate and the letters as two objects in the 3MF, for a two-colour print (raised text).")

  // MARK: Stages, limits

  /// `--save-stages`.
  public static let saveStages = RenderOption(
    "save-stages", value: "dir", scope: .output, completion: .directory,
    help: "Also write mask.png, height.png, normals.png and shading.png here.")
  /// `--max-pixels`.
  public static let maxPixels = RenderOption(
    "max-pixels", value: "max-pixels", default: String(RenderLimits.default.maxPixels),
    help: "Refuse images larger than this many pixels.")
  /// `--max-memory`.
  public static let maxMemory = RenderOption(
    "max-memory", value: "size",
    help:
      "Refuse renders estimated to need more memory than this: 8G, 512M (default: half the machine's memory)."
  )

  /// Every option of a request, in the order of `emboss render --help`'s sections.
  ///
  /// The command line's own options (threads, messages, watching) are not here: they are
  /// how a run goes, not what it makes.
  public static let all: [RenderOption] = [
    textFile, output, format, depth, compression, font, faceIndex, features, variations,
    textDirection, textCase, noFallback, size, height, capHeight, dpi, mask, maskMode,
    maskThreshold, invertMask, align, letterSpacing, lineHeight, padding, canvas, material, set,
    radius, profile,
    reliefDepth, scale, soften, direction, background, backgroundImage, backgroundFit, shadingSize,
    lightAngle, lightAltitude,
    shadingImage, engrave, dither, threshold, serpentine, gamma, negative, mirror, dotWidth,
    depthMap, depthMapBits, depthMapInvert, svg, cutOffset, cutJoin, cutOuter, cutMinSize,
    cutColor, cutWidth, inkVectors, cutRegion, mesh, meshHeight, meshBase, meshWall, meshPlate,
    meshSplit, saveStages, maxPixels, maxMemory,
  ]

  /// The options a size option replaces: a batch row's `size`, `height` or `cap-height`
  /// drops the defaults' others.
  public static let sizing: [RenderOption] = [size, height, capHeight]
}
