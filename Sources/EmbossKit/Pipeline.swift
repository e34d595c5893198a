import Foundation

/// The whole render, one pure stage after another:
/// mask -> height field -> (normals x shading image) -> embossed image.
///
/// Each stage is a function of its inputs only; this type just keeps every intermediate, so
/// callers can write stages out.
public struct Render: Sendable {
  public var mask: CoverageMask
  public var height: HeightField
  /// The shading image as the composite read it. A cached re-render shades only the pixels
  /// the composite reads (`shadingIsComplete` is then false); `stageFiles` renders the whole
  /// ball.
  public var shading: RGBAImage
  public var shadingIsComplete: Bool
  public var image: CanvasImage
  /// The stages that ran (stages reused from a cache are not listed).
  public var timings: StageTimings

  /// Renders a mask with a material. Cannot fail: every input is already validated.
  ///
  /// - Parameter shadingImage: an external shading image (see `ShadingImage.read`) used
  ///   instead of rendering the material's lit ball.
  public init(
    mask: CoverageMask, material: MaterialSpec, shadingImage: RGBAImage? = nil,
    parallelism: Parallelism = .allCores
  ) {
    self = RenderCache().render(
      mask: mask, material: material, shadingImage: shadingImage, parallelism: parallelism)
  }

  init(
    mask: CoverageMask, height: HeightField, shading: RGBAImage, shadingIsComplete: Bool,
    image: CanvasImage, timings: StageTimings
  ) {
    self.mask = mask
    self.height = height
    self.shading = shading
    self.shadingIsComplete = shadingIsComplete
    self.image = image
    self.timings = timings
  }

  /// The intermediate stages as PNG files, named after what they hold: `mask.png` (coverage),
  /// `height.png` (gray, black lowest and white highest: 0...1 when raised, -1...0 when
  /// lowered; always 16-bit), `normals.png` ((n + 1) / 2 as RGB, y down, one normal per pixel
  /// center) and `shading.png` (the lit hemisphere), at `depth` bits per channel.
  public static let stageNames = ["mask.png", "height.png", "normals.png", "shading.png"]

  public func stageFiles(
    material: MaterialSpec, depth: BitDepth = .eight, compression: Int = PNGCodec.defaultCompression
  ) throws -> [(name: String, data: [UInt8])] {
    let relief = material.relief
    let scale = relief.scale
    let ball = shadingIsComplete
      ? shading
      : ShadingImage.render(
        surface: material.surface, lights: material.lights, environment: material.environment,
        size: material.shadingSize)
    let range: ClosedRange<Float> = relief.direction == .raised ? 0...1 : -1...0
    let normals = ShadedMaterial.normalMap(height: height, scale: scale)
    let normalData: Data
    switch depth {
    case .eight:
      normalData = try PNGCodec.encodeRaw(
        normals.pixels.flatMap { p in [p.x, p.y, p.z, p.w].map { UInt8((min(max($0, 0), 1) * 255).rounded()) } },
        width: normals.width, height: normals.height, channels: 4, bitDepth: 8,
        compression: compression, pixelsPerMeter: 0, srgb: false)
    case .sixteen:
      normalData = try PNGCodec.encodeRaw(
        normals.pixels.flatMap { p in
          [p.x, p.y, p.z, p.w].map { UInt16((min(max($0, 0), 1) * 65535).rounded()) }
        },
        width: normals.width, height: normals.height, channels: 4, bitDepth: 16,
        compression: compression, pixelsPerMeter: 0, srgb: false)
    }
    let names = Self.stageNames
    return [
      (names[0], Array(try PNGCodec.encodeGray(mask.plane, depth: depth, compression: compression))),
      (
        names[1],
        Array(
          try PNGCodec.encodeGray(
            height.canvasPlane(), range: range, depth: .sixteen, compression: compression))
      ),
      (names[2], Array(normalData)),
      (names[3], Array(try PNGCodec.encode(ball, depth: depth, compression: compression))),
    ]
  }
}

/// Remembers the last result of each stage with the inputs it came from, so a render whose
/// inputs changed only in part re-runs only the stages downstream of the change: a light
/// edit re-shades the ball and re-composites, never touching the mask or the height field.
///
/// Every entry is keyed by the stage's inputs, compared by value (arrays compare their
/// storage first, so an unchanged mask or height field costs nothing to check). Not
/// thread-safe: one render at a time.
public final class RenderCache {
  private struct HeightKey: Equatable {
    var mask: CoverageMask
    var radius: Float
    var profile: ReliefProfile
    var direction: ReliefDirection
    var soften: Float
  }

  private struct ShadingKey: Equatable {
    var surface: Surface
    var lights: [Light]
    var environment: Environment
    var size: Int
  }

  private struct LookupKey: Equatable {
    var field: HeightField
    var scale: Float
    var shadingWidth: Int
    var shadingHeight: Int
  }

  /// Everything a text mask depends on.
  public struct TextKey: Equatable, Sendable {
    public var text: String
    public var fontPath: String
    public var style: TextStyle
    public var inkHeight: Double?
    public var canvas: CanvasSize?
    public var limits: RenderLimits

    public init(
      text: String, fontPath: String, style: TextStyle, inkHeight: Double? = nil,
      canvas: CanvasSize?, limits: RenderLimits
    ) {
      self.text = text
      self.fontPath = fontPath
      self.style = style
      self.inkHeight = inkHeight
      self.canvas = canvas
      self.limits = limits
    }
  }

  private var text: (key: TextKey, value: CoverageMask)?
  private var height: (key: HeightKey, value: HeightField)?
  private var geometry: BallGeometry?
  /// The ball, the lookup map it was shaded for and whether every pixel was shaded.
  private var shading: (key: ShadingKey, value: RGBAImage, lookup: LookupKey, complete: Bool)?
  /// The lookup map and, once needed, the ball pixels it reads.
  private var lookup: (key: LookupKey, value: ShadedMaterial.LookupMap, read: [Bool]?)?

  public init() {}

  /// The text mask for `key`, made by `make` unless the last one had the same key. (The font
  /// file is read again only when the key changes.)
  public func textMask(_ key: TextKey, make: () throws -> CoverageMask) rethrows -> CoverageMask {
    if let cached = text, cached.key == key { return cached.value }
    let mask = try make()
    text = (key, mask)
    return mask
  }

  /// Renders like `Render.init`, reusing every stage whose inputs are unchanged.
  public func render(
    mask: CoverageMask, material: MaterialSpec, shadingImage: RGBAImage? = nil,
    parallelism: Parallelism = .allCores
  ) -> Render {
    var timings = StageTimings()
    let relief = material.relief
    let heightKey = HeightKey(
      mask: mask, radius: relief.radius, profile: relief.profile, direction: relief.direction,
      soften: relief.soften)
    let field: HeightField
    if let cached = height, cached.key == heightKey {
      field = cached.value
    } else {
      field = timings.measure("height field") {
        HeightField.make(mask: mask, relief: relief, parallelism: parallelism)
      }
      height = (heightKey, field)
    }

    // The lookup map needs only the ball's size, so it comes first. When it is reused, the
    // ball is re-shaded only where the composite reads it (found once, on the first reuse).
    let ballWidth = shadingImage?.width ?? material.shadingSize
    let ballHeight = shadingImage?.height ?? material.shadingSize
    let lookupKey = LookupKey(
      field: field, scale: relief.scale, shadingWidth: ballWidth, shadingHeight: ballHeight)
    let map: ShadedMaterial.LookupMap
    let reused: Bool
    if let cached = lookup, cached.key == lookupKey {
      map = cached.value
      reused = true
    } else {
      map = timings.measure("normals") {
        ShadedMaterial.lookupMap(
          height: field, mask: mask, scale: relief.scale, shadingWidth: ballWidth,
          shadingHeight: ballHeight, parallelism: parallelism)
      }
      lookup = (lookupKey, map, nil)
      reused = false
    }

    let ball: RGBAImage
    var complete = true
    if let shadingImage {
      ball = shadingImage
    } else {
      let key = ShadingKey(
        surface: material.surface, lights: material.lights, environment: material.environment,
        size: material.shadingSize)
      if let cached = shading, cached.key == key, cached.lookup == lookupKey || cached.complete {
        ball = cached.value
        complete = cached.complete
      } else {
        let geometry: BallGeometry
        if let cached = self.geometry, cached.size == material.shadingSize {
          geometry = cached
        } else {
          geometry = timings.measure("ball geometry") {
            BallGeometry.march(size: material.shadingSize, parallelism: parallelism)
          }
          self.geometry = geometry
        }
        let known = lookup?.read
        let (shaded, read) = timings.measure("shading image") { () -> (RGBAImage, [Bool]?) in
          let read = reused ? (known ?? map.texelsRead(mask: mask)) : nil
          let image = geometry.shade(
            surface: material.surface, lights: material.lights, environment: material.environment,
            only: read, parallelism: parallelism)
          return (image, read)
        }
        if reused { lookup?.read = read }
        ball = shaded
        complete = read == nil
        shading = (key, ball, lookupKey, complete)
      }
    }

    let image = timings.measure("composite") {
      ShadedMaterial.composite(
        map: map, mask: mask, shading: ball, background: material.background,
        parallelism: parallelism)
    }
    return Render(
      mask: mask, height: field, shading: ball, shadingIsComplete: complete, image: image,
      timings: timings)
  }
}
