/// A contact sheet: one tile per material, the same sample text embossed in each, the
/// material's name under it, so a designer compares materials at a glance.
public enum ContactSheet {
  /// One tile's inputs.
  public struct Entry: Sendable {
    /// The name shown under the material's tile.
    public var name: String
    /// The material rendered in the tile.
    public var material: MaterialSpec

    /// A tile for `material`, labeled `name`.
    public init(name: String, material: MaterialSpec) {
      self.name = name
      self.material = material
    }
  }

  /// The light angles of a sheet of lights (`lightEntries`), in degrees counterclockwise
  /// from the right: every 60 degrees from the right.
  public static let lightAngles: [Float] = [0, 60, 120, 180, 240, 300]
  /// The light altitudes of a sheet of lights, in degrees above the surface.
  public static let lightAltitudes: [Float] = [25, 55]

  /// One tile per light direction: `material` with its brightest light moved to each angle
  /// and altitude (a distant light of the same color and intensity; the other lights stay),
  /// row by row (one row per altitude), labeled `angle° altitude°`.
  public static func lightEntries(
    material: MaterialSpec, angles: [Float] = lightAngles, altitudes: [Float] = lightAltitudes
  ) throws -> [Entry] {
    guard
      let key = material.lights.indices.max(by: {
        let (a, b) = (material.lights[$0], material.lights[$1])
        return a.intensity * a.color.max() < b.intensity * b.color.max()
      })
    else { return [] }
    var entries: [Entry] = []
    for altitude in altitudes {
      for angle in angles {
        var lights = material.lights
        lights[key] = .distant(
          try DistantLight(
            direction: Light.direction(angle: angle, altitude: altitude),
            color: lights[key].color, intensity: lights[key].intensity))
        entries.append(
          Entry(
            name: "\(formatNumber(angle))° \(formatNumber(altitude))°",
            material: try material.replacing(lights: lights)))
      }
    }
    return entries
  }

  /// Lays tiles out left to right, top to bottom, `columns` a row.
  ///
  /// Every tile has the same
  /// size (the sample's mask plus a label strip) and its material's background; a transparent
  /// background shows as neutral gray. Labels are set in `font` at a fifth of `textSize`
  /// (at least 12 px), white or near-black, whichever stands out from the background.
  ///
  /// - Returns: linear light, straight alpha, every pixel opaque.
  public static func render(
    entries: [Entry], sample: TextLayout, font: Font, textSize: Float, columns: Int,
    parallelism: Parallelism = .allCores, limits: RenderLimits = .default
  ) throws -> RGBAImage {
    let mask = sample.rasterize()
    let labelSize = max(12, (textSize * 0.2).rounded())
    let layouts = try entries.map {
      try TextLayout(text: $0.name, font: font, style: TextStyle(pixelSize: labelSize, padding: 0))
    }
    let labels = layouts.map { $0.rasterize() }
    // Labels share a baseline: the deepest first baseline, plus a gap above.
    let baseline = (layouts.map(\.firstBaseline).max() ?? 0) + Int(labelSize * 0.3)
    let labelHeight =
      baseline + (layouts.map { $0.canvasHeight - $0.firstBaseline }.max() ?? 0)
      + Int(labelSize * 0.4)
    let tileWidth = max(mask.width, (labels.map(\.width).max() ?? 0) + 8)
    let tileHeight = mask.height + labelHeight
    let columns = max(1, min(columns, entries.count))
    let rows = (entries.count + columns - 1) / columns
    // The sheet (RGBA floats) and one tile's render at a time, checked before either is made.
    try limits.check(
      width: tileWidth * columns, height: tileHeight * rows, bytesPerPixel: 20, name: "the sheet")
    try limits.check(width: tileWidth, height: tileHeight)
    var sheet = RGBAImage(
      width: tileWidth * columns, height: tileHeight * rows, fill: SIMD4(0.2, 0.2, 0.2, 1))
    // One pipeline, one cache: tiles whose relief matches the tile before reuse its height
    // field and lookup map.
    let cache = StageCache()
    for (index, entry) in entries.enumerated() {
      var material = entry.material
      if material.background == .transparent {
        material = (try? material.replacing(background: .color(SIMD3(repeating: 0.18)))) ?? material
      }
      let tile = Pipeline.render(
        RenderInput(mask: mask, material: material, parallelism: parallelism), cache: cache
      ).image.flattened()
      let x0 = (index % columns) * tileWidth
      let y0 = (index / columns) * tileHeight
      let background: SIMD3<Float>
      if case .color(let c) = material.background { background = c } else { background = .zero }
      // Tile background, then the embossed sample centered horizontally.
      for y in 0..<tileHeight {
        for x in 0..<tileWidth { sheet[x0 + x, y0 + y] = SIMD4(background, 1) }
      }
      let dx = x0 + (tileWidth - mask.width) / 2
      for y in 0..<mask.height {
        for x in 0..<mask.width { sheet[dx + x, y0 + y] = tile[x, y] }
      }
      // The label, flat, centered under the sample.
      let luminance = (background * SIMD3(0.2126, 0.7152, 0.0722)).sum()
      let ink: SIMD3<Float> = luminance > 0.3 ? SIMD3(repeating: 0.02) : SIMD3(repeating: 0.9)
      let label = labels[index]
      let lx = x0 + (tileWidth - label.width) / 2
      let ly = y0 + mask.height + baseline - layouts[index].firstBaseline
      for y in 0..<label.height {
        for x in 0..<label.width {
          let a = label[x, y]
          guard a > 0 else { continue }
          let under = sheet[lx + x, ly + y]
          sheet[lx + x, ly + y] = SIMD4(ink * a + SIMD3(under.x, under.y, under.z) * (1 - a), 1)
        }
      }
    }
    return sheet
  }
}
