import CFreeType
import Foundation

/// How lines of different widths line up.
public enum TextAlignment: String, Sendable, CaseIterable {
  case left, center, right
}

/// A canvas size in pixels, as `--canvas 4096x4096` gives it.
public struct CanvasSize: Sendable, Equatable {
  public var width: Int
  public var height: Int

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
  public var alignment: TextAlignment
  /// Extra space between letters, in pixels (negative tightens).
  public var letterSpacing: Float
  /// Distance between baselines as a multiple of the font's own line spacing.
  public var lineHeight: Float
  /// Margin around the ink in pixels; nil picks 15% of the em plus 2 px.
  public var padding: Int?

  public init(
    pixelSize: Float = 160, alignment: TextAlignment = .center, letterSpacing: Float = 0,
    lineHeight: Float = 1, padding: Int? = nil
  ) {
    self.pixelSize = pixelSize
    self.alignment = alignment
    self.letterSpacing = letterSpacing
    self.lineHeight = lineHeight
    self.padding = padding
  }

  var resolvedPadding: Int { padding ?? Int((pixelSize * 0.15).rounded()) + 2 }
}

/// Text set in a font and rendered glyph by glyph: every FreeType call (and so every way
/// this can fail: a missing glyph, a broken outline) happens in `init`; `rasterize()` only
/// places the glyph coverage on a canvas and cannot fail.
public struct TextLayout: Sendable {
  /// One glyph's anti-aliased coverage, placed at an integer offset on the canvas.
  struct PlacedGlyph: Sendable {
    var x: Int
    var y: Int
    var coverage: Plane
  }

  public let canvasWidth: Int
  public let canvasHeight: Int
  /// Where the ink lies on the canvas.
  public let inkBounds: PixelRect
  /// The canvas row of the first line's baseline (rounded), for aligning text with text.
  public let firstBaseline: Int
  let glyphs: [PlacedGlyph]

  /// Sets `text` (lines split at `\n`) in `font`.
  ///
  /// - Parameter canvas: a fixed canvas the ink is centered in; nil fits the canvas to the ink
  ///   plus the style's padding.
  public init(
    text: String, font: Font, style: TextStyle, canvas: CanvasSize? = nil,
    limits: RenderLimits = .default
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
    let face = font.face
    let size = FT_F26Dot6((Double(style.pixelSize) * 64).rounded())
    var status = FT_Set_Char_Size(face, 0, size, 72, 72)
    guard status == 0 else {
      throw EmbossError(
        "cannot set font '\(font.path)' to \(style.pixelSize) px: \(FreeTypeError.message(status))")
    }
    let unitsPerEm = Double(max(1, face.pointee.units_per_EM))
    let scale = Double(style.pixelSize) / unitsPerEm
    let ascender = Double(face.pointee.ascender) * scale
    let lineAdvance = Double(face.pointee.height) * scale * Double(style.lineHeight)

    // Pass 1: glyph indices, advances and kerning, per line, in layout pixels.
    struct Pending {
      var index: UInt32
      var penX: Double
    }
    var lines: [[Pending]] = []
    var widths: [Double] = []
    for line in String(String.UnicodeScalarView(scalars)).split(
      separator: "\n", omittingEmptySubsequences: false)
    {
      var pending: [Pending] = []
      var penX = 0.0
      var previous: UInt32? = nil
      for scalar in line.unicodeScalars {
        if scalar == "\t" || scalar.properties.generalCategory == .control {
          throw EmbossError(
            "text contains the control character U+\(Self.hex(scalar)); only line breaks are allowed")
        }
        guard let index = font.glyphIndex(for: scalar) else {
          throw EmbossError(
            "font '\(font.name)' (\(font.path)) has no glyph for '\(Character(scalar))' (U+\(Self.hex(scalar)))"
          )
        }
        if let previous, font.hasKerning {
          var kern = FT_Vector()
          if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_UNFITTED.rawValue), &kern) == 0 {
            penX += Double(kern.x) / 64
          }
        }
        status = FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP))
        guard status == 0, let slot = face.pointee.glyph else {
          throw EmbossError(
            "cannot load glyph for '\(Character(scalar))' from '\(font.path)': \(FreeTypeError.message(status))"
          )
        }
        pending.append(Pending(index: index, penX: penX))
        penX += Double(slot.pointee.linearHoriAdvance) / 65536 + Double(style.letterSpacing)
        previous = index
      }
      if !pending.isEmpty { penX -= Double(style.letterSpacing) }
      lines.append(pending)
      widths.append(penX)
    }
    let blockWidth = widths.max() ?? 0

    // Pass 2: render each glyph at its exact sub-pixel position (26.6 fixed point).
    var rendered: [PlacedGlyph] = []
    for (lineNumber, line) in lines.enumerated() {
      let offset: Double
      switch style.alignment {
      case .left: offset = 0
      case .center: offset = (blockWidth - widths[lineNumber]) / 2
      case .right: offset = blockWidth - widths[lineNumber]
      }
      let baseline = ascender + Double(lineNumber) * lineAdvance
      for glyph in line {
        let x64 = Int((Double(glyph.penX + offset) * 64).rounded())
        let y64 = Int((baseline * 64).rounded())
        if let placed = try Self.render(
          font: font, index: glyph.index, x64: x64, y64: y64)
        {
          rendered.append(placed)
        }
      }
    }
    guard !rendered.isEmpty else {
      throw EmbossError("the text renders no ink (it is empty or only spaces)")
    }

    // Canvas: fit the ink plus padding, or center the ink in a fixed canvas.
    var minX = Int.max
    var minY = Int.max
    var maxX = Int.min
    var maxY = Int.min
    for g in rendered {
      minX = min(minX, g.x)
      minY = min(minY, g.y)
      maxX = max(maxX, g.x + g.coverage.width)
      maxY = max(maxY, g.y + g.coverage.height)
    }
    let inkWidth = maxX - minX
    let inkHeight = maxY - minY
    let shiftX: Int
    let shiftY: Int
    if let canvas {
      guard canvas.width >= inkWidth + 4, canvas.height >= inkHeight + 4 else {
        throw EmbossError(
          "the text needs at least \(inkWidth + 4)x\(inkHeight + 4) pixels; the canvas is \(canvas.width)x\(canvas.height)"
        )
      }
      canvasWidth = canvas.width
      canvasHeight = canvas.height
      shiftX = (canvas.width - inkWidth) / 2 - minX
      shiftY = (canvas.height - inkHeight) / 2 - minY
    } else {
      let padding = max(2, style.resolvedPadding)
      canvasWidth = inkWidth + 2 * padding
      canvasHeight = inkHeight + 2 * padding
      shiftX = padding - minX
      shiftY = padding - minY
    }
    guard canvasWidth.multipliedReportingOverflow(by: canvasHeight).partialValue <= limits.maxPixels,
      canvasWidth <= 1 << 20, canvasHeight <= 1 << 20
    else {
      throw EmbossError(
        "the image would be \(canvasWidth)x\(canvasHeight) pixels, over the limit of \(limits.maxPixels) pixels (raise it with --max-pixels)"
      )
    }
    glyphs = rendered.map { PlacedGlyph(x: $0.x + shiftX, y: $0.y + shiftY, coverage: $0.coverage) }
    firstBaseline = Int(ascender.rounded()) + shiftY
    inkBounds = PixelRect(x: minX + shiftX, y: minY + shiftY, width: inkWidth, height: inkHeight)
  }

  /// Sets `text` so that its ink, from the top of the highest glyph to the bottom of the
  /// lowest, is `inkHeight` pixels tall (to the pixel): the size is found by measuring at
  /// 100 px and scaling, then refined.
  public static func fitting(
    inkHeight: Double, text: String, font: Font, style: TextStyle, canvas: CanvasSize? = nil,
    limits: RenderLimits = .default
  ) throws -> TextLayout {
    guard inkHeight.isFinite, inkHeight >= 2, inkHeight <= 20_000 else {
      throw EmbossError("the text height must be 2...20000 pixels, got \(inkHeight)")
    }
    var sized = style
    sized.pixelSize = 100
    for _ in 0..<4 {
      let measured = try TextLayout(text: text, font: font, style: sized, limits: limits)
      let height = Double(measured.inkBounds.height)
      if abs(height - inkHeight) < 0.5 { break }
      sized.pixelSize = Float(Double(sized.pixelSize) * inkHeight / height)
    }
    return try TextLayout(text: text, font: font, style: sized, canvas: canvas, limits: limits)
  }

  /// The coverage mask: 0 outside the ink, 1 inside, anti-aliased in between. Overlapping
  /// glyphs combine by maximum, so a shared edge does not double its coverage.
  public func rasterize() -> CoverageMask {
    var plane = Plane(width: canvasWidth, height: canvasHeight)
    plane.pixels.withUnsafeMutableBufferPointer { out in
      for glyph in glyphs {
        glyph.coverage.pixels.withUnsafeBufferPointer { src in
          for row in 0..<glyph.coverage.height {
            let dst = (glyph.y + row) * canvasWidth + glyph.x
            let s = row * glyph.coverage.width
            for col in 0..<glyph.coverage.width {
              out[dst + col] = max(out[dst + col], src[s + col])
            }
          }
        }
      }
    }
    return CoverageMask(plane: plane, inkBounds: inkBounds)
  }

  /// Renders one glyph with its origin at (x64, y64)/64 pixels (y down); nil for blank glyphs.
  private static func render(font: Font, index: UInt32, x64: Int, y64: Int) throws -> PlacedGlyph? {
    let face = font.face
    var status = FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP))
    guard status == 0, let slot = face.pointee.glyph else {
      throw EmbossError("cannot load glyph \(index) from '\(font.path)': \(FreeTypeError.message(status))")
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
    status = FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL)
    guard status == 0 else {
      throw EmbossError("cannot render glyph \(index) from '\(font.path)': \(FreeTypeError.message(status))")
    }
    let bitmap = slot.pointee.bitmap
    let width = Int(bitmap.width)
    let height = Int(bitmap.rows)
    guard width > 0, height > 0, let buffer = bitmap.buffer else { return nil }
    let pitch = Int(bitmap.pitch)
    let levels = Float(max(1, Int(bitmap.num_grays) - 1))
    var coverage = Plane(width: width, height: height)
    var ink = false
    for y in 0..<height {
      let row = pitch >= 0 ? y * pitch : (height - 1 - y) * -pitch
      for x in 0..<width {
        let v = Float(buffer[row + x]) / levels
        coverage[x, y] = v
        if v > 0 { ink = true }
      }
    }
    guard ink else { return nil }
    return PlacedGlyph(
      x: wholeX + Int(slot.pointee.bitmap_left), y: wholeY - Int(slot.pointee.bitmap_top),
      coverage: coverage)
  }

  private static func hex(_ scalar: Unicode.Scalar) -> String {
    let s = String(scalar.value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
  }
}
