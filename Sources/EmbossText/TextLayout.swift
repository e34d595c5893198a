import CFreeType
import EmbossGeometry
import EmbossRaster
import EmbossSupport
import Foundation

/// How lines of different widths line up: `start` and `end` follow each line's paragraph
/// direction (`start` is left in a left-to-right line, right in a right-to-left one).
public enum TextAlignment: String, Sendable, CaseIterable {
  case left, center, right, start, end
}

/// A canvas size in pixels, as `--canvas 4096x4096` gives it.
public struct CanvasSize: Sendable, Equatable {
  /// The width in pixels.
  public var width: Int
  /// The height in pixels.
  public var height: Int

  /// A canvas of `width` x `height` pixels.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// Parses `WIDTHxHEIGHT`.
  public static func parse(_ text: String) -> CanvasSize? {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
      return nil
    }
    return CanvasSize(width: w, height: h)
  }
}

/// How text is set: size, spacing, alignment and the margin around the ink.
public struct TextStyle: Sendable, Equatable {
  /// The em size in pixels (FreeType's pixel size); fractional sizes are exact.
  public var pixelSize: Float
  /// How lines line up with each other.
  public var alignment: TextAlignment
  /// Extra space between letters, in pixels (negative tightens).
  public var letterSpacing: Float
  /// Distance between baselines as a multiple of the font's own line spacing.
  public var lineHeight: Float
  /// Margin around the ink in pixels (fractions are kept: the ink is placed at its exact
  /// sub-pixel position); nil picks `defaultPadding` of the em (26 px at the default 160).
  public var padding: Float?
  /// Each line's paragraph direction.
  public var direction: TextDirection
  /// OpenType features turned on or off.
  public var features: FontFeatures
  /// A variable font's axis values.
  public var variations: FontVariations

  /// A style; see each property for its meaning.
  public init(
    pixelSize: Float = TextStyle.referenceSize, alignment: TextAlignment = .center,
    letterSpacing: Float = 0,
    lineHeight: Float = 1, padding: Float? = nil, direction: TextDirection = .auto,
    features: FontFeatures = .none, variations: FontVariations = .none
  ) {
    self.pixelSize = pixelSize
    self.alignment = alignment
    self.letterSpacing = letterSpacing
    self.lineHeight = lineHeight
    self.padding = padding
    self.direction = direction
    self.features = features
    self.variations = variations
  }

  /// The padding when none is given, as a fraction of the em: 26 px at the default 160 px
  /// (what it was when it was 15% of the em plus 2 px), twice that at twice the size.
  public static let defaultPadding: Float = 0.1625

  /// The default em size, of which every default that scales with the text is a fraction:
  /// 160 px.
  public static let referenceSize: Float = 160

  var resolvedPadding: Double { Double(padding ?? pixelSize * Self.defaultPadding) }
}

/// Text shaped (`Shaper`) and rendered glyph by glyph: every FreeType and HarfBuzz call
/// (and so every way this can fail: a missing glyph, a broken outline) happens in `init`;
/// `rasterize()` only places the glyph coverage on a canvas and cannot fail.
public struct TextLayout: Sendable {
  /// One glyph's anti-aliased coverage, placed at an integer offset on the canvas.
  struct PlacedGlyph: Sendable {
    var x: Int
    var y: Int
    /// The bitmap's size in pixels.
    var width: Int
    var height: Int
    /// FreeType's coverage levels, row-major (`width` a row), 0...`levels`: kept as bytes,
    /// made floats only in the mask (a quarter of the memory: case C's two glyphs held 7 MB
    /// of float planes).
    var levels: [UInt8]
    /// The largest level (full coverage).
    var full: Float
    /// The glyph's outline in canvas pixels (see `GlyphOutline`).
    var contours: [[Outline.Edge]]
  }

  /// The canvas width in pixels.
  public let canvasWidth: Int
  /// The canvas height in pixels.
  public let canvasHeight: Int
  /// Where the ink lies on the canvas: every pixel with some coverage.
  public let inkBounds: PixelRect
  /// The outlines' exact bounding box on the canvas, in pixels (x right, y down): what
  /// padding, centering and `fitting` measure, so a render at twice the size is exactly
  /// twice the render.
  public let exactInk: (minX: Double, minY: Double, maxX: Double, maxY: Double)
  /// The canvas row of the first line's baseline (rounded), for aligning text with text.
  public let firstBaseline: Int
  /// Fonts other than the chosen one that set characters it lacks.
  public let fallbackFonts: [FontUse]
  /// The em size the text is set at, in pixels (after any fitting).
  public let pixelSize: Float
  let glyphs: [PlacedGlyph]

  /// Sets `text` (lines split at `\n`) in `font`.
  ///
  /// - Parameters:
  ///   - text: the text; `\n` starts a line.
  ///   - font: the font.
  ///   - style: size, alignment, spacing and padding.
  ///   - canvas: a fixed canvas the ink is centered in; nil fits the canvas to the ink plus
  ///     the style's padding.
  ///   - limits: the largest canvas and text allowed.
  ///   - fallback: where characters the font lacks are looked for; nil: nowhere (they are an
  ///     error).
  ///   - shaper: turns each line into positioned glyphs.
  /// - Throws: `EmbossError` for characters no font has, features or variations the font
  ///   refuses, or a canvas over the limits.
  public init(
    text: String, font: Font, style: TextStyle, canvas: CanvasSize? = nil,
    limits: RenderLimits = .default, fallback: FontCatalog.Fallback? = nil,
    shaper: any Shaper = HarfBuzzShaper()
  ) throws {
    try self.init(
      text: text, font: font, style: style, canvas: canvas, limits: limits, fallback: fallback,
      shaper: shaper, measureOnly: false)
  }

  /// With `measureOnly`, no glyph is rasterized and no canvas limit applies: only the exact
  /// ink box is wanted.
  init(
    text: String, font: Font, style: TextStyle, canvas: CanvasSize?, limits: RenderLimits,
    fallback: FontCatalog.Fallback?, shaper: any Shaper, measureOnly: Bool
  ) throws {
    guard style.pixelSize.isFinite, style.pixelSize >= 1, style.pixelSize <= 10_000 else {
      throw EmbossError("text size must be in 1...10000 pixels, got \(style.pixelSize)")
    }
    guard style.letterSpacing.isFinite, style.lineHeight.isFinite, style.lineHeight > 0 else {
      throw EmbossError("letter spacing and line height must be finite, line height above 0")
    }
    let scalars = text.replacingOccurrences(of: "\r\n", with: "\n").unicodeScalars
    guard scalars.count <= limits.maxTextLength else {
      throw EmbossError(
        "text is \(scalars.count) characters long; the limit is \(limits.maxTextLength)")
    }
    let fonts = try FontSet(primary: font, fallback: fallback, style: style)
    let face = font.face
    let unitsPerEm = Double(max(1, face.pointee.units_per_EM))
    let scale = Double(style.pixelSize) / unitsPerEm
    let ascender = Double(face.pointee.ascender) * scale
    let lineAdvance = Double(face.pointee.height) * scale * Double(style.lineHeight)

    // Pass 1: each line shaped into positioned glyphs (`Shaper`), and each glyph's exact
    // outline box, in layout pixels.
    struct Pending {
      var font: Font
      var index: UInt32
      var penX: Double
      /// Up from the baseline (a mark's offset).
      var penY: Double
      /// The outline's exact box relative to the pen, in pixels, FreeType's y up; nil when
      /// the glyph has no outline points (a space).
      var box: (xMin: Double, yMin: Double, xMax: Double, yMax: Double)?
    }
    var lines: [[Pending]] = []
    var widths: [Double] = []
    var rightToLeft: [Bool] = []
    for line in String(String.UnicodeScalarView(scalars)).split(
      separator: "\n", omittingEmptySubsequences: false)
    {
      let shaped = try shaper.shape(line, fonts: fonts, style: style)
      var pending: [Pending] = []
      for glyph in shaped.glyphs {
        let status = FT_Load_Glyph(
          glyph.font.face, glyph.glyph, FT_Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP))
        guard status == 0, let slot = glyph.font.face.pointee.glyph else {
          throw EmbossError(
            "cannot load glyph \(glyph.glyph) from '\(glyph.font.path)': \(FreeTypeError.message(status))"
          )
        }
        var box: (Double, Double, Double, Double)? = nil
        if slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE, slot.pointee.outline.n_points > 0 {
          var bbox = FT_BBox()
          if FT_Outline_Get_BBox(&slot.pointee.outline, &bbox) == 0 {
            box = (
              Double(bbox.xMin) / 64, Double(bbox.yMin) / 64, Double(bbox.xMax) / 64,
              Double(bbox.yMax) / 64
            )
          }
        }
        pending.append(
          Pending(font: glyph.font, index: glyph.glyph, penX: glyph.x, penY: glyph.y, box: box))
      }
      lines.append(pending)
      widths.append(shaped.width)
      rightToLeft.append(shaped.rightToLeft)
    }
    if let missing = fonts.missingError() { throw missing }
    fallbackFonts = fonts.fallbackUses
    pixelSize = style.pixelSize
    let blockWidth = widths.max() ?? 0

    // The exact ink box in layout coordinates (origin on the first line's pen, y down).
    func lineOffset(_ lineNumber: Int) -> Double {
      switch (style.alignment, rightToLeft[lineNumber]) {
      case (.left, _), (.start, false), (.end, true): return 0
      case (.center, _): return (blockWidth - widths[lineNumber]) / 2
      case (.right, _), (.start, true), (.end, false): return blockWidth - widths[lineNumber]
      }
    }
    var ink = (
      minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity
    )
    for (lineNumber, line) in lines.enumerated() {
      let baseline = ascender + Double(lineNumber) * lineAdvance
      for glyph in line {
        guard let box = glyph.box else { continue }
        let x = glyph.penX + lineOffset(lineNumber)
        ink.minX = min(ink.minX, x + box.xMin)
        ink.maxX = max(ink.maxX, x + box.xMax)
        ink.minY = min(ink.minY, baseline - glyph.penY - box.yMax)
        ink.maxY = max(ink.maxY, baseline - glyph.penY - box.yMin)
      }
    }
    guard ink.minX < ink.maxX, ink.minY < ink.maxY else {
      throw EmbossError("the text renders no ink (it is empty or only spaces)")
    }

    // Canvas: fit the ink plus padding, or center the ink in a fixed canvas, at the exact
    // sub-pixel offset (no snapping to whole pixels).
    let inkWidth = ink.maxX - ink.minX
    let inkHeight = ink.maxY - ink.minY
    let shiftX: Double
    let shiftY: Double
    if let canvas {
      let needW = Int(inkWidth.rounded(.up)) + 4
      let needH = Int(inkHeight.rounded(.up)) + 4
      guard canvas.width >= needW, canvas.height >= needH else {
        throw EmbossError(
          "the text needs at least \(needW)x\(needH) pixels; the canvas is \(canvas.width)x\(canvas.height)"
        )
      }
      canvasWidth = canvas.width
      canvasHeight = canvas.height
      shiftX = (Double(canvas.width) - inkWidth) / 2 - ink.minX
      shiftY = (Double(canvas.height) - inkHeight) / 2 - ink.minY
    } else {
      let padding = max(0, style.resolvedPadding)
      // One pixel of slack past the exact box holds the anti-aliased edge.
      let w = (inkWidth + 2 * padding).rounded(.up)
      let h = (inkHeight + 2 * padding).rounded(.up)
      guard measureOnly || (w <= Double(1 << 20) && h <= Double(1 << 20)) else {
        throw EmbossError(
          "the image would be \(Int(w))x\(Int(h)) pixels, over the limit of \(limits.maxPixels) pixels (raise it with --max-pixels)"
        )
      }
      canvasWidth = Int(w) + (padding < 1 ? 2 : 0)
      canvasHeight = Int(h) + (padding < 1 ? 2 : 0)
      shiftX = padding + (padding < 1 ? 1 : 0) - ink.minX
      shiftY = padding + (padding < 1 ? 1 : 0) - ink.minY
    }
    if measureOnly {
      glyphs = []
      firstBaseline = 0
      inkBounds = PixelRect(x: 0, y: 0, width: 0, height: 0)
      exactInk = (ink.minX + shiftX, ink.minY + shiftY, ink.maxX + shiftX, ink.maxY + shiftY)
      return
    }
    // Checked before any glyph is rasterized: the canvas, and the glyph bitmaps together
    // (glyphs drawn over each other with a negative spacing can need more than the canvas).
    try limits.check(width: canvasWidth, height: canvasHeight)
    var glyphPixels = 0.0
    for line in lines {
      for glyph in line {
        guard let box = glyph.box else { continue }
        glyphPixels +=
          ((box.xMax - box.xMin).rounded(.up) + 2) * ((box.yMax - box.yMin).rounded(.up) + 2)
      }
    }
    guard glyphPixels <= Double(limits.maxPixels) else {
      throw EmbossError(
        "the glyphs would need \(Int(min(glyphPixels, 1e18))) pixels of bitmaps, over the limit of \(limits.maxPixels) pixels (raise it with --max-pixels)"
      )
    }
    try limits.checkMemory(
      pixels: Int(glyphPixels) / (RenderLimits.bytesPerPixel / 4),
      what: "the glyphs would need \(Int(glyphPixels)) pixels of bitmaps")

    // Pass 2: render each glyph at its exact sub-pixel position on the canvas (26.6 fixed
    // point).
    var rendered: [PlacedGlyph] = []
    for (lineNumber, line) in lines.enumerated() {
      let baseline = ascender + Double(lineNumber) * lineAdvance + shiftY
      for glyph in line where glyph.box != nil {
        let x64 = Int(((glyph.penX + lineOffset(lineNumber) + shiftX) * 64).rounded())
        let y64 = Int(((baseline - glyph.penY) * 64).rounded())
        if let placed = try Self.render(
          font: glyph.font, index: glyph.index, x64: x64, y64: y64)
        {
          rendered.append(placed)
        }
      }
    }
    guard !rendered.isEmpty else {
      throw EmbossError("the text renders no ink (it is empty or only spaces)")
    }
    var bounds: PixelRect? = nil
    for g in rendered {
      let rect = PixelRect(x: g.x, y: g.y, width: g.width, height: g.height)
      guard let b = bounds else {
        bounds = rect
        continue
      }
      let x0 = min(b.x, rect.x)
      let y0 = min(b.y, rect.y)
      bounds = PixelRect(
        x: x0, y: y0, width: max(b.maxX, rect.maxX) - x0, height: max(b.maxY, rect.maxY) - y0)
    }
    glyphs = rendered
    firstBaseline = Int((ascender + shiftY).rounded())
    inkBounds = (bounds ?? PixelRect(x: 0, y: 0, width: 0, height: 0))
      .intersection(PixelRect(x: 0, y: 0, width: canvasWidth, height: canvasHeight))
    exactInk = (ink.minX + shiftX, ink.minY + shiftY, ink.maxX + shiftX, ink.maxY + shiftY)
  }

  /// Sets `text` so that its ink, from the top of the highest glyph's outline to the bottom
  /// of the lowest, is exactly `inkHeight` pixels tall (fractions included): unhinted
  /// outlines scale linearly with the size, so one measurement at 100 px gives the size.
  public static func fitting(
    inkHeight: Double, text: String, font: Font, style: TextStyle, canvas: CanvasSize? = nil,
    limits: RenderLimits = .default, fallback: FontCatalog.Fallback? = nil,
    shaper: any Shaper = HarfBuzzShaper()
  ) throws -> TextLayout {
    guard inkHeight.isFinite, inkHeight >= 2, inkHeight <= 20_000 else {
      throw EmbossError("the text height must be 2...20000 pixels, got \(inkHeight)")
    }
    var sized = style
    sized.pixelSize = 100
    let measured = try TextLayout(
      text: text, font: font, style: sized, canvas: nil, limits: limits, fallback: fallback,
      shaper: shaper, measureOnly: true)
    let height = measured.exactInk.maxY - measured.exactInk.minY
    sized.pixelSize = Float(100 * inkHeight / height)
    return try laidOut(
      text: text, font: font, style: sized, reason: "a text height of \(inkHeight) pixels",
      canvas: canvas, limits: limits, fallback: fallback, shaper: shaper)
  }

  /// `text` at `style`'s size, which a fitting (`reason`) chose: an error when that size is
  /// not in 1...10000 pixels.
  private static func laidOut(
    text: String, font: Font, style: TextStyle, reason: String, canvas: CanvasSize?,
    limits: RenderLimits, fallback: FontCatalog.Fallback?, shaper: any Shaper
  ) throws -> TextLayout {
    guard style.pixelSize >= 1, style.pixelSize <= 10_000 else {
      throw EmbossError(
        "\(reason) needs a size of \(style.pixelSize) pixels; sizes must be 1...10000")
    }
    return try TextLayout(
      text: text, font: font, style: style, canvas: canvas, limits: limits, fallback: fallback,
      shaper: shaper)
  }

  /// Sets `text` at the size that makes `font`'s capitals `capHeight` pixels tall.
  ///
  /// The size comes from the font's cap height (`Font.capHeight`), not from the text's
  /// letters, so every text set with the same `capHeight` gets the same size.
  public static func fitting(
    capHeight: Double, text: String, font: Font, style: TextStyle, canvas: CanvasSize? = nil,
    limits: RenderLimits = .default, fallback: FontCatalog.Fallback? = nil,
    shaper: any Shaper = HarfBuzzShaper()
  ) throws -> TextLayout {
    guard capHeight.isFinite, capHeight >= 1, capHeight <= 10_000 else {
      throw EmbossError("the cap height must be 1...10000 pixels, got \(capHeight)")
    }
    // The H's outline depends on the variation instance.
    font.apply(style.variations)
    guard let perEm = font.capHeight else {
      throw EmbossError(
        "font '\(font.path)' gives no cap height (no OS/2 sCapHeight and no H): use --size or --height"
      )
    }
    var sized = style
    sized.pixelSize = Float(capHeight / perEm)
    return try laidOut(
      text: text, font: font, style: sized, reason: "a cap height of \(capHeight) pixels",
      canvas: canvas, limits: limits, fallback: fallback, shaper: shaper)
  }

  /// The coverage mask: 0 outside the ink, 1 inside, anti-aliased in between.
  ///
  /// Overlapping
  /// glyphs combine by maximum, so a shared edge does not double its coverage. The mask
  /// carries the glyphs' exact outline, their contours unioned (`Outline`). Only the glyphs'
  /// bitmaps' bounds on the canvas are stored (the mask's window): the rest of a large canvas
  /// costs nothing.
  public func rasterize() -> CoverageMask {
    let canvas = PixelRect(x: 0, y: 0, width: canvasWidth, height: canvasHeight)
    var window = PixelRect(x: 0, y: 0, width: 0, height: 0)
    for glyph in glyphs {
      let rect = PixelRect(x: glyph.x, y: glyph.y, width: glyph.width, height: glyph.height)
        .intersection(canvas)
      guard !rect.isEmpty else { continue }
      window = window.union(rect)
    }
    var plane = Plane(width: window.width, height: window.height)
    plane.pixels.withUnsafeMutableBufferPointer { out in
      for glyph in glyphs {
        glyph.levels.withUnsafeBufferPointer { src in
          // Clipped to the canvas (a glyph's anti-aliased edge may touch past a zero padding).
          let x0 = max(0, -glyph.x)
          let x1 = min(glyph.width, canvasWidth - glyph.x)
          let full = glyph.full
          for row in 0..<glyph.height
          where glyph.y + row >= 0 && glyph.y + row < canvasHeight {
            guard x0 < x1 else { break }
            let dst = (glyph.y + row - window.y) * window.width + glyph.x - window.x
            let s = row * glyph.width
            for col in x0..<x1 {
              out[dst + col] = max(out[dst + col], Float(src[s + col]) / full)
            }
          }
        }
      }
    }
    return CoverageMask(
      width: canvasWidth, height: canvasHeight, window: window, coverage: plane,
      inkBounds: inkBounds, outline: Outline(contours: glyphs.flatMap(\.contours)))
  }

  /// Renders one glyph with its origin at (x64, y64)/64 pixels (y down); nil for blank glyphs.
  private static func render(font: Font, index: UInt32, x64: Int, y64: Int) throws -> PlacedGlyph? {
    let face = font.face
    var status = FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP))
    guard status == 0, let slot = face.pointee.glyph else {
      throw EmbossError(
        "cannot load glyph \(index) from '\(font.path)': \(FreeTypeError.message(status))")
    }
    guard slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else {
      throw EmbossError("font '\(font.path)' has no outline for glyph \(index)")
    }
    // Whole pixels go to the placement, the fraction into the outline, so every glyph is
    // rasterized at its true position. FreeType's y points up, ours down.
    let wholeX = x64 >> 6
    let wholeY = y64 >> 6
    let fracX = x64 - wholeX * 64
    let fracY = y64 - wholeY * 64
    FT_Outline_Translate(&slot.pointee.outline, FT_Pos(fracX), FT_Pos(-fracY))
    let contours = GlyphOutline.contours(&slot.pointee.outline, originX: wholeX, originY: wholeY)
    status = FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL)
    guard status == 0 else {
      throw EmbossError(
        "cannot render glyph \(index) from '\(font.path)': \(FreeTypeError.message(status))")
    }
    let bitmap = slot.pointee.bitmap
    let width = Int(bitmap.width)
    let height = Int(bitmap.rows)
    guard width > 0, height > 0, let buffer = bitmap.buffer else { return nil }
    let pitch = Int(bitmap.pitch)
    let levels = Float(max(1, Int(bitmap.num_grays) - 1))
    // The rows copied as they are (no zeroing first); any ink found from the bytes' union.
    var ink: UInt8 = 0
    let bytes = [UInt8](uninitializedCount: width * height) { out, count in
      for y in 0..<height {
        let row = pitch >= 0 ? y * pitch : (height - 1 - y) * -pitch
        for x in 0..<width {
          let byte = buffer[row + x]
          ink |= byte
          out[y * width + x] = byte
        }
      }
      count = width * height
    }
    guard ink != 0 else { return nil }
    return PlacedGlyph(
      x: wholeX + Int(slot.pointee.bitmap_left), y: wholeY - Int(slot.pointee.bitmap_top),
      width: width, height: height, levels: bytes, full: levels, contours: contours)
  }
}
