import Foundation

/// What `emboss render` writes for a laser besides the picture, all computed before any
/// file is written.
public struct LaserRequest: Sendable {
  /// The 1-bit engrave bitmap's path (made with `engraveOptions`).
  public var engrave: String?
  /// Height field as gray: white = surface, black = deepest (or inverted).
  public var depthMap: (path: String, depth: BitDepth, invert: Bool)?
  /// SVG with the engrave bitmap and the cut line.
  public var svg: SVGRequest?
  /// The relief as a 3D model (STL or 3MF).
  public var mesh: MeshRequest?
  /// How the engraving and the SVG's image are made.
  public var engraveOptions = EngraveOptions.standard

  /// No laser outputs.
  public init() {}

  /// Whether no laser output is asked for.
  public var isEmpty: Bool { engrave == nil && depthMap == nil && svg == nil && mesh == nil }

  /// Every path written, with the key of the option that names it (`RenderOption`).
  public var paths: [(option: String, path: String)] {
    var paths: [(String, String)] = []
    if let engrave { paths.append(("engrave", engrave)) }
    if let depthMap { paths.append(("depth-map", depthMap.path)) }
    if let svg { paths.append(("svg", svg.path)) }
    if let mesh { paths.append(("mesh", mesh.path)) }
    return paths
  }

  /// The files, as (path, bytes).
  ///
  /// Throws for a cut region outside the image or on the
  /// background. The render must hold its shape (`RenderOutputs.shape`) for an engraving or
  /// an SVG.
  public func files(
    for render: RenderResult, resolution: Resolution?, parallelism: Parallelism = .allCores
  ) throws -> [(path: String, data: Data)] {
    let relief = render.material.relief
    let ppm = resolution?.pixelsPerMeter ?? 0
    var files: [(String, Data)] = []
    var engravePNG: Data? = nil
    // `--mirror` (engraving the back of a clear sheet) mirrors every laser output alike: the
    // engraving, the SVG's image and cut line, and the depth map. The picture (-o) stays as
    // the finished piece looks from the front.
    let mirror = engraveOptions.mirror
    if engrave != nil || svg != nil {
      let options = engraveOptions
      // Only the shape is engraved: the render over a transparent background, whatever the
      // material's background, so the surroundings count as white (never burned).
      guard let shape = render.shapePicture else {
        throw EmbossError("internal: the render was made without its shape for engraving")
      }
      let gray =
        switch shape {
        case .linear(let canvas): GraySource(canvas: canvas, negative: options.negative)
        case .codes(let codes): GraySource(codes: codes, negative: options.negative)
        }
      let bits = Engrave.bitmap(gray, options: options, parallelism: parallelism)
      engravePNG = try Engrave.png(bits, pixelsPerMeter: ppm)
    }
    if let engrave, let engravePNG { files.append((engrave, engravePNG)) }
    if let depthMap {
      // The relief's highest point is the untouched surface (white), its lowest the deepest cut.
      let raised = relief.direction == .raised
      var range: ClosedRange<Float> = raised ? 0...1 : -1...0
      var plane = render.height.canvasPlane()
      if mirror { plane = plane.mirrored() }
      if depthMap.invert {
        plane.pixels = plane.pixels.map { -$0 }
        range = raised ? -1...0 : 0...1
      }
      files.append(
        (
          depthMap.path,
          try PNGCodec.encodeGray(plane, range: range, depth: depthMap.depth, pixelsPerMeter: ppm)
        ))
    }
    if let svg {
      let dpi = resolution?.dpi ?? 96
      var mask = render.mask
      if let point = svg.cutRegion {
        guard point.x >= 0, point.y >= 0, point.x < mask.width, point.y < mask.height else {
          throw EmbossError(
            "{cut-region} \(point.x),\(point.y) is outside the image (\(mask.width)x\(mask.height))"
          )
        }
        guard let region = CutLine.region(of: mask, at: point.x, point.y) else {
          throw EmbossError(
            "{cut-region} \(point.x),\(point.y) is on the background, not on the shape")
        }
        // The region's mask keeps the outline's chains around it: its cut line is exact too.
        mask = region
      }
      // The region is picked on the picture as seen from the front, then mirrored (the
      // mask's outline with it).
      if mirror { mask = mask.mirrored() }
      var curves = CutLine.make(
        mask: mask, offset: svg.cutOffset, join: svg.cutJoin, dpi: dpi, parallelism: parallelism)
      // An SVG for the cutter with nothing to cut is refused, not written without a word.
      let hasInk = !mask.inkBounds.isEmpty
      guard curves.isEmpty == false || !hasInk else {
        throw EmbossError(
          "{svg} \(svg.path): no cut line is left: the inward {cut-offset} is more than half the ink's width everywhere; give a smaller one"
        )
      }
      if svg.cutOuter { curves = CutLine.outermost(curves) }
      if svg.cutMinSize > 0 {
        curves = CutLine.dropping(curves, smallerThan: svg.cutMinSize)
        guard curves.isEmpty == false || !hasInk else {
          throw EmbossError(
            "{svg} \(svg.path): no cut line is left: every loop is narrower than {cut-min-size}; give a smaller one"
          )
        }
      }
      // The ink's own outline as vectors: the whole shape, mirrored like everything else.
      let ink =
        svg.inkVectors == nil
        ? []
        : CutLine.make(
          mask: mirror ? render.mask.mirrored() : render.mask, offset: 0, dpi: dpi,
          parallelism: parallelism)
      let document = SVGDocument.make(
        canvasWidth: render.picture.width, canvasHeight: render.picture.height, image: engravePNG,
        cut: curves, dpi: dpi, cutColor: svg.cutColor,
        cutWidthMM: svg.cutWidthMM, ink: ink, inkVectors: svg.inkVectors)
      files.append((svg.path, Data(document.utf8)))
    }
    if let mesh {
      files.append(
        (
          mesh.path,
          try mesh.file(
            mask: mirror ? render.mask.mirrored() : render.mask, relief: relief,
            dpi: resolution?.dpi ?? 96, parallelism: parallelism)
        ))
    }
    return files
  }
}

/// What the SVG holds and how its lines look.
public struct SVGRequest: Sendable {
  /// Where the SVG is written.
  public var path: String
  /// The cut line's distance from the ink, in pixels: outside when positive, inside when
  /// negative.
  public var cutOffset: Double
  /// How an offset cut line turns round the outline's convex corners (text's exact outline;
  /// a picture's traced cut line is always round).
  public var cutJoin: CutLine.Join
  /// Only the shape under this pixel is cut around.
  public var cutRegion: (x: Int, y: Int)?
  /// Only the outermost contours: no holes (a sticker's outline).
  public var cutOuter: Bool
  /// Loops narrower than this many pixels (on their bounding box's narrower side) are not
  /// cut: slivers and specks that would fall out as loose pieces.
  public var cutMinSize: Double
  /// The cut line's stroke (laser software makes a layer per color).
  public var cutColor: String
  /// The cut line's stroke width in mm.
  public var cutWidthMM: Double
  /// The ink's outline as vectors too (filled, or scored in a third color).
  public var inkVectors: SVGDocument.InkVectors?

  /// An SVG request; see each property for its meaning.
  public init(
    path: String, cutOffset: Double = 0, cutJoin: CutLine.Join = .round,
    cutRegion: (x: Int, y: Int)? = nil,
    cutOuter: Bool = false, cutMinSize: Double = 0, cutColor: String = SVGDocument.cutColor,
    cutWidthMM: Double = SVGDocument.cutWidthMM, inkVectors: SVGDocument.InkVectors? = nil
  ) {
    self.path = path
    self.cutOffset = cutOffset
    self.cutJoin = cutJoin
    self.cutRegion = cutRegion
    self.cutOuter = cutOuter
    self.cutMinSize = cutMinSize
    self.cutColor = cutColor
    self.cutWidthMM = cutWidthMM
    self.inkVectors = inkVectors
  }
}

/// The relief as a solid for a 3D printer or a CNC mill (`{mesh}`): a plate (the canvas, or
/// the ink's outline grown) with the relief on it, or the letters alone, in millimetres.
public struct MeshRequest: Sendable {
  /// Where the model is written.
  public var path: String
  /// STL or 3MF.
  public var format: MeshFile.Format
  /// The relief's height at the plateau, in mm (a lowered relief's depth).
  public var height: Double
  /// The plate's thickness, in mm; 0: the letters alone.
  public var base: Double
  /// A straight wall under the bevel, in mm.
  public var wall: Double
  /// The plate's shape.
  public var plate: MeshSpec.Plate
  /// How far the plate's outline is outside the ink, in pixels (`plate` outline).
  public var plateOffset: Double
  /// How the plate's outline turns round convex corners (`plate` outline): the cut line's.
  public var plateJoin: CutLine.Join
  /// The plate and the letters as two objects (3MF), for a two-colour print.
  public var split: Bool

  /// A mesh request; see each property.
  public init(
    path: String, format: MeshFile.Format, height: Double = MeshSpec.defaultHeight,
    base: Double = MeshSpec.defaultBase, wall: Double = 0, plate: MeshSpec.Plate = .rectangle,
    plateOffset: Double = 0, plateJoin: CutLine.Join = .round, split: Bool = false
  ) {
    self.path = path
    self.format = format
    self.height = height
    self.base = base
    self.wall = wall
    self.plate = plate
    self.plateOffset = plateOffset
    self.plateJoin = plateJoin
    self.split = split
  }

  /// The model's file for `mask`'s relief at `dpi`.
  ///
  /// Throws for a mask with no ink, a lowered relief at least as deep as the plate (or with
  /// no plate, or split), and a plate outline that reaches past the canvas.
  public func file(
    mask: CoverageMask, relief: ReliefSpec, dpi: Double, parallelism: Parallelism = .allCores
  ) throws -> Data {
    guard !mask.inkBounds.isEmpty else {
      throw EmbossError("{mesh} \(path): there is no ink to make a relief of")
    }
    func mm(_ value: Double) -> String { SVGNumber.fixed(value, decimals: 3) + " mm" }
    if relief.direction == .lowered {
      guard base > 0, !split else {
        throw EmbossError(
          "{mesh} \(path): lowered text is carved into a plate: give {mesh-base} more than 0"
            + (split ? " and no {mesh}-split" : ""))
      }
      // Compared to a micrometre: 2mm at 254 dpi is 1.9999999999999998 mm.
      guard base > height + wall + 0.001 else {
        throw EmbossError(
          "{mesh} \(path): the plate ({mesh-base} \(mm(base))) must be thicker than the lowered relief is deep ({mesh-height} \(mm(height))"
            + (wall > 0 ? " and {mesh}-wall \(mm(wall)))" : ")"))
      }
    }
    var spec = MeshSpec(millimetresPerPixel: 25.4 / dpi, height: height, base: base)
    spec.wall = wall
    spec.plate = plate
    spec.plateOffset = plateOffset
    spec.plateJoin = plateJoin
    let objects: [TriangleMesh]
    do {
      objects = try ReliefMesh.make(
        mask: mask, relief: relief, spec: spec, split: split, parallelism: parallelism)
    } catch .plateBeyondCanvas {
      throw EmbossError(
        "{mesh} \(path): the plate's outline (the ink grown by {cut-offset}) reaches past the canvas; give more {padding} or a smaller {cut-offset}"
      )
    } catch .inkAtCanvasEdge {
      throw EmbossError(
        "{mesh} \(path): the ink reaches the edge of the canvas, where this model's outline is cut; give some {padding}"
      )
    } catch .outlineFailed {
      throw EmbossError("{mesh} \(path): cannot grow the ink's outline for the plate")
    }
    guard objects.allSatisfy({ !$0.triangles.isEmpty }) else {
      throw EmbossError(
        "{mesh} \(path): the ink is too small to stand as a solid (specks smaller than a pixel are left out)"
      )
    }
    do {
      return try MeshFile.encode(
        objects, names: split ? ["plate", "letters"] : ["relief"], format: format)
    } catch {
      throw EmbossError("{mesh} \(path): cannot make the 3MF package: \(error.message)")
    }
  }
}
