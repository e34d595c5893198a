import Foundation

/// What the pipeline renders: validated values only, so rendering cannot fail.
public struct RenderInput: Sendable {
  /// The coverage the relief rises from.
  public var mask: CoverageMask
  /// The validated material: surface, lights, environment, relief and background.
  public var material: MaterialSpec
  /// A picture used as the lit ball instead of the material's (`--shading-image`).
  public var shadingImage: RGBAImage?
  /// A picture behind the letters instead of the material's plate or background
  /// (`--background-image`).
  public var backdrop: Backdrop.Picture?
  /// What to make beyond the picture.
  public var outputs: RenderOutputs
  /// Threads; the result does not depend on it.
  public var parallelism: Parallelism

  /// A render of `mask` in `material`; see each property for the others.
  public init(
    mask: CoverageMask, material: MaterialSpec, shadingImage: RGBAImage? = nil,
    backdrop: Backdrop.Picture? = nil, outputs: RenderOutputs = [],
    parallelism: Parallelism = .allCores
  ) {
    self.backdrop = backdrop
    self.mask = mask
    self.material = material
    self.shadingImage = shadingImage
    self.outputs = outputs
    self.parallelism = parallelism
  }
}

/// What a render makes besides the embossed image.
public struct RenderOutputs: OptionSet, Sendable, Hashable {
  /// The set's bits.
  public let rawValue: Int
  /// The set with these bits.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The embossed shape over a transparent background, whatever the material's: what is
  /// engraved (`RenderResult.shapePicture`).
  ///
  /// With `pictureCodes`, made as codes beside the picture's where the picture is (each
  /// pixel shaded once).
  public static let shape = RenderOutputs(rawValue: 1)
  /// The whole lit ball, not only the texels the composite reads (for `--save-stages`).
  public static let wholeShadingImage = RenderOutputs(rawValue: 2)
  /// The picture is wanted only as the 8-bit sRGB codes an 8-bit PNG stores: where nothing
  /// is laid over or under the letters, the compositor writes those codes and no float
  /// picture is made (`RenderResult.picture` is then `.codes`; the same file bytes).
  public static let pictureCodes = RenderOutputs(rawValue: 4)
  /// The whole height field (stage files, depth maps): without it, a render that writes
  /// only codes makes its relief a band at a time and keeps none of it
  /// (`RenderResult.height` is then made again when asked for).
  public static let heightField = RenderOutputs(rawValue: 8)
}

/// The embossed picture as a render holds it.
public enum RenderedPicture: Sendable {
  /// Linear light, straight alpha.
  case linear(CanvasImage)
  /// The 8-bit sRGB codes of the linear picture (see `RenderOutputs.pictureCodes`).
  case codes(SRGBCanvas)

  /// The canvas width in pixels.
  public var width: Int {
    switch self {
    case .linear(let image): image.width
    case .codes(let codes): codes.width
    }
  }

  /// The canvas height in pixels.
  public var height: Int {
    switch self {
    case .linear(let image): image.height
    case .codes(let codes): codes.height
    }
  }

  /// The picture in linear light: the codes' decoded where it is held as codes.
  public var linear: CanvasImage {
    switch self {
    case .linear(let image): image
    case .codes(let codes): codes.linear
    }
  }
}

/// A render and every stage it went through, with the material it was made with.
public struct RenderResult: Sendable {
  /// The material the picture was rendered in.
  public let material: MaterialSpec
  /// The mask the relief rose from.
  public let mask: CoverageMask
  /// The relief: heights and the slopes the normals come from.
  ///
  /// Where the render made it a band at a time (see `RenderOutputs.heightField`), it is made
  /// again, whole, each time it is asked for.
  public var height: HeightField {
    field ?? HeightField.make(mask: mask, relief: material.relief)
  }
  /// The whole relief, where the render made it whole.
  let field: HeightField?
  /// The shading image: the material's lit ball (or the external one).
  ///
  /// Whole when
  /// `RenderOutputs.wholeShadingImage` was asked for or it was shaded for this lookup map;
  /// otherwise a relight through the cache shades only the texels the composite reads
  /// (`shadingImageIsWhole` is then false).
  public let shadingImage: RGBAImage
  /// Whether `shadingImage` is the whole ball (asked for with `wholeShadingImage`, or given), or
  /// only the pixels the picture read.
  public let shadingImageIsWhole: Bool
  /// The embossed picture over the material's background, as the render holds it.
  public let picture: RenderedPicture
  /// The embossed picture over the material's background, in linear light (decoded from
  /// 8-bit codes where the render made only those: see `RenderOutputs.pictureCodes`).
  public var image: CanvasImage { picture.linear }
  /// The same over a transparent background, without the shadow (with
  /// `RenderOutputs.shape`), as the render holds it: as 8-bit codes where the picture is
  /// held as codes too.
  public let shapePicture: RenderedPicture?
  /// `shapePicture` in linear light.
  public var shape: CanvasImage? { shapePicture?.linear }
  /// The stages that ran (stages reused from a cache are not listed).
  public let timings: StageTimings

  /// The normals as an image: (n + 1) / 2 as RGB, y down, one normal per pixel center.
  public var normals: RGBAImage {
    ShadedMaterial.normalMap(height: height, scale: material.relief.scale)
  }
}

/// The whole render, one pure stage after another. (The lit ball and the shading image are
/// one thing: the picture of the material on a sphere that normals look their colors up in.)
///
///     mask -> height field -> lookup map (normals) --+
///     material's lights and surface -> lit ball -----+-> composite -> embossed image
///
/// `render` is the one function every command (render, shading, sheet, the laser outputs,
/// stage files, watch) goes through; a `StageCache` only memoizes its stages.
public enum Pipeline {
  /// The stage names `RenderResult.timings` lists.
  public static let stageNames = [
    "height field", "normals", "ball geometry", "shading image", "composite",
  ]

  /// Renders.
  ///
  /// Cannot fail: every input is already validated. With a cache, each stage whose
  /// inputs equal the cache's last ones is reused; the result is the same byte for byte.
  public static func render(
    _ input: RenderInput, cache: StageCache = StageCache(keepsLookupMap: false)
  ) -> RenderResult {
    var timings = StageTimings()
    let material = input.material
    // The ink's corners rounded first where the material asks (the silhouette follows). Part
    // of the mask's making, not a stage of its own (a few milliseconds: the outline's corners
    // and one coverage pass over the mask's window).
    let mask =
      material.relief.roundCorners > 0
      ? input.mask.filleted(radius: material.relief.roundCorners) : input.mask
    let relief = material.relief
    let parallelism = input.parallelism

    // With a plate or a see-through background, the letters and their shadow are made over
    // transparent and then put over it.
    let layered: Bool
    switch material.background {
    case .translucent: layered = true
    default: layered = material.plate != nil || input.backdrop != nil
    }
    // Only the picture's 8-bit codes wanted, nothing laid over or under the letters: the
    // compositor writes the codes, and (unless the field is softened, which blurs it whole,
    // or a cache keeps the lookups for a relight) it makes each band's relief as it needs
    // it, so neither a float picture nor the whole height field is held.
    // A shadow and an occlusion on an opaque background are drawn on each pixel as the
    // compositor stores it.
    let opaqueBackground = if case .color = material.background { true } else { false }
    let plain =
      (!(material.shadow.isVisible || material.occlusion.isVisible) || opaqueBackground)
      && input.backdrop == nil && material.plate == nil && !layered
    // (With the shape wanted, the compositor stores its codes beside the picture's.)
    let codes = plain && input.outputs.contains(.pictureCodes)
    // (Colors that read the relief need the heights, which a relief made in bands does
    // not keep.)
    let streamed =
      codes && !input.outputs.contains(.heightField) && !cache.keepsLookupMap
      && relief.effectiveSoften == 0 && relief.profile != .inflated
      && !HeightField.softensOnFineGrid(mask: mask, relief: relief)
      && !material.detail.colorsReadTheRelief && !material.occlusion.isVisible

    // The lookup map needs only the ball's size, so it comes first. When it is reused, the
    // ball is re-shaded only where the composite reads it (found once, on the first reuse).
    let ballWidth = input.shadingImage?.width ?? material.shadingSize
    let ballHeight = input.shadingImage?.height ?? material.shadingSize
    let field: HeightField?
    let lookupKey: StageCache.LookupKey?
    let lookups: Lookups
    // Whether the lookups are the cache's last (found before they are memoized).
    var reused = false
    if streamed {
      let bands = timings.measure("height field") {
        HeightField.Bands(mask: mask, relief: relief)
      }
      field = nil
      lookupKey = nil
      lookups = .plan(
        timings.measure("normals") {
          ShadedMaterial.lookupPlan(
            bands: bands, mask: mask, scale: relief.scale, shadingWidth: ballWidth,
            shadingHeight: ballHeight, detail: material.detail, camera: material.camera)
        })
    } else {
      let whole = cache.memo(\.height, key: StageCache.HeightKey(mask: mask, relief: relief)) {
        timings.measure("height field") {
          HeightField.make(mask: mask, relief: relief, parallelism: parallelism)
        }
      }
      field = whole
      let key = StageCache.LookupKey(
        field: whole, scale: relief.scale, detail: material.detail, camera: material.camera,
        shadingWidth: ballWidth, shadingHeight: ballHeight)
      lookupKey = key
      reused = cache.lookup?.key == key
      // A cache kept for a relight keeps the whole lookup map; one that serves this render
      // alone keeps the plan, and the compositor makes each band of taps as it goes.
      if cache.keepsLookupMap {
        lookups = .map(
          cache.memo(\.lookup, key: key) {
            timings.measure("normals") {
              ShadedMaterial.lookupMap(
                height: whole, mask: mask, scale: relief.scale, shadingWidth: ballWidth,
                shadingHeight: ballHeight, detail: material.detail, camera: material.camera,
                parallelism: parallelism)
            }
          })
      } else {
        lookups = .plan(
          timings.measure("normals") {
            ShadedMaterial.lookupPlan(
              height: whole, mask: mask, scale: relief.scale, shadingWidth: ballWidth,
              shadingHeight: ballHeight, detail: material.detail, camera: material.camera)
          })
      }
    }
    let ball: RGBAImage
    var whole = true
    if let shadingImage = input.shadingImage {
      ball = shadingImage
    } else {
      let key = StageCache.BallKey(
        surface: material.surface, lights: material.lights, environment: material.environment,
        size: material.shadingSize)
      // A sandblasted surface blurs the whole ball, so it is shaded whole.
      let wantWhole =
        input.outputs.contains(.wholeShadingImage)
        || RoughBall.sigma(material.detail, size: material.shadingSize) > 0
      if let cached = cache.ball, cached.key == key,
        cached.whole || (!wantWhole && lookupKey != nil && cached.lookup == lookupKey)
      {
        ball = cached.value
        whole = cached.whole
      } else if !(reused && !wantWhole), let disk = cache.disk,
        let stored = timings.measure("ball cache", { disk.load(key.digest, size: key.size) })
      {
        // A whole ball from an earlier process: the same floats it would shade.
        ball = stored
        cache.ball = (key, ball, lookupKey, true)
      } else {
        let size = material.shadingSize
        let geometry = cache.memo(\.geometry, key: size) {
          timings.measure("ball geometry") {
            BallGeometry.march(size: size, parallelism: parallelism)
          }
        }
        let partial = reused && !wantWhole
        let (shaded, read) = timings.measure("shading image") { () -> (RGBAImage, [Bool]?) in
          // (Only a kept map is reused, so only a map is asked which texels it reads.)
          let read = partial ? (cache.texelsRead ?? lookups.map?.texelsRead()) : nil
          // A cache kept for relights keeps the environment's terms too: a light change then
          // shades the lights alone (the same floats).
          let reflections =
            cache.keepsLookupMap
            ? cache.memo(
              \.reflections,
              key: StageCache.ReflectionKey(
                surface: material.surface, environment: material.environment, size: size)
            ) {
              geometry.reflections(
                surface: material.surface, environment: material.environment,
                parallelism: parallelism)
            } : nil
          let image = geometry.shade(
            surface: material.surface, lights: material.lights, environment: material.environment,
            only: read, reflections: reflections, parallelism: parallelism)
          return (image, read)
        }
        if partial { cache.texelsRead = read }
        ball = shaded
        whole = read == nil
        if whole { cache.disk?.store(ball, key: key.digest) }
        cache.ball = (key, ball, lookupKey, whole)
      }
    }

    // A sandblasted surface's ball, blurred by its spread of normals.
    let roughness = RoughBall.sigma(material.detail, size: ball.width)
    let lookupBall =
      roughness > 0
      ? timings.measure("roughness") {
        RoughBall.blurred(ball, sigma: roughness, parallelism: parallelism)
      } : ball

    let background = layered ? Background.transparent : material.background
    // The relief's heights and slopes, for colors that read them (wood grain, speckle).
    let depth = field.map { ShadedMaterial.SurfaceDepth($0, scale: relief.scale) }
    // With the shape wanted too, it is composited (over transparent) and the picture made
    // from it: each pixel is shaded once.
    // The shadow and the occlusion as layers, for a picture that draws them as it stores each
    // pixel's code.
    func shadowLayer() -> DropShadow.Layer? {
      guard material.shadow.isVisible else { return nil }
      return timings.measure("shadow") {
        DropShadow.Layer(
          mask: mask, shadow: material.shadow,
          direction: material.shadow.offsetDirection(lights: material.lights),
          lowered: relief.direction == .lowered, background: background,
          canvas: PixelRect(x: 0, y: 0, width: mask.width, height: mask.height),
          parallelism: parallelism)
      }
    }
    func occlusionLayer(_ field: HeightField) -> AmbientOcclusion.Layer? {
      guard material.occlusion.isVisible else { return nil }
      return timings.measure("occlusion") {
        AmbientOcclusion.Layer(
          height: field, mask: mask, occlusion: material.occlusion, scale: relief.scale,
          relief: relief, parallelism: parallelism)
      }
    }
    // Nothing laid over or under the letters and only an 8-bit file wanted: the compositor
    // writes the file's codes.
    if codes {
      // (The occlusion reads the whole field: a relief made in bands has none.)
      let layers = DrawnLayers(shadow: shadowLayer(), occlusion: field.flatMap(occlusionLayer))
      let (codes, shape) = timings.measure("composite") { () -> (SRGBCanvas, SRGBCanvas?) in
        guard input.outputs.contains(.shape) else {
          return (
            lookups.compositeCodes(
              mask: mask, shading: lookupBall, background: background, detail: material.detail,
              surfaceColor: material.surface.base, depth: depth, layers: layers,
              parallelism: parallelism), nil
          )
        }
        let both = lookups.compositeCodesAndShape(
          mask: mask, shading: lookupBall, background: background, detail: material.detail,
          surfaceColor: material.surface.base, depth: depth, layers: layers,
          parallelism: parallelism)
        return (both.picture, both.shape)
      }
      return RenderResult(
        material: material, mask: mask, field: field, shadingImage: ball,
        shadingImageIsWhole: whole, picture: .codes(codes), shapePicture: shape.map { .codes($0) },
        timings: timings)
    }
    // (Only a render that writes codes makes its relief a band at a time.)
    guard let field else { preconditionFailure("a relief made in bands outside codes") }
    var image: CanvasImage
    var shape: CanvasImage? = nil
    switch (input.outputs.contains(.shape), background) {
    case (true, .color(let color)):
      let transparent = timings.measure("composite") {
        lookups.composite(
          mask: mask, shading: lookupBall, background: .transparent, detail: material.detail,
          surfaceColor: material.surface.base, depth: depth, parallelism: parallelism)
      }
      shape = transparent
      image = timings.measure("background") {
        ShadedMaterial.over(transparent, background: color, parallelism: parallelism)
      }
    default:
      image = timings.measure("composite") {
        lookups.composite(
          mask: mask, shading: lookupBall, background: background, detail: material.detail,
          surfaceColor: material.surface.base, depth: depth, parallelism: parallelism)
      }
      if input.outputs.contains(.shape) { shape = image }
    }
    // Only an 8-bit file wanted, over a plate with detail or seen by a camera: the plate's
    // rows, the picture (its shadow drawn) over them and the occlusion over both are made a
    // band at a time and stored as the file's codes (no canvas of floats).
    // (A plate without detail, seen straight on, is one color.)
    let plateVaries =
      material.plate.map { $0.detail.isVisible || material.camera.isFinite } ?? false
    let platedCodes =
      input.backdrop == nil && input.outputs.contains(.pictureCodes) && plateVaries
    // The letters' shadow on the picture (not on the engraving's shape), then the ambient
    // occlusion over both.
    if material.shadow.isVisible && !platedCodes {
      image = timings.measure("shadow") {
        DropShadow.apply(
          to: image, mask: mask, shadow: material.shadow,
          direction: material.shadow.offsetDirection(lights: material.lights),
          lowered: relief.direction == .lowered, background: background,
          parallelism: parallelism)
      }
    }
    if let backdrop = input.backdrop {
      // A picture behind the letters, over the material's background where it leaves any.
      image = timings.measure("background picture") {
        Backdrop.under(
          image,
          layer: Backdrop.layer(
            backdrop, width: image.width, height: image.height,
            background: material.background.rgba, parallelism: parallelism),
          parallelism: parallelism)
      }
    } else if let plate = material.plate {
      let key = StageCache.BallKey(
        surface: plate.surface, lights: material.lights, environment: material.environment,
        size: material.shadingSize)
      let plateBall = cache.memo(\.plateBall, key: key) {
        timings.measure("plate ball") {
          Pipeline.shadingImage(
            material: (try? material.replacing(surface: plate.surface)) ?? material, cache: cache,
            parallelism: parallelism)
        }
      }
      let plateRoughness = RoughBall.sigma(plate.detail, size: plateBall.width)
      let plateLookup =
        plateRoughness > 0
        ? RoughBall.blurred(plateBall, sigma: plateRoughness, parallelism: parallelism)
        : plateBall
      let diffuse = plate.surface.diffuseLight(
        normal: SIMD3(0, 0, 1), point: SIMD3(0, 0, 1), lights: material.lights,
        environment: material.environment)
      if platedCodes {
        let (shadow, occlusion) = (shadowLayer(), occlusionLayer(field))
        let codes = timings.measure("plate") {
          Backdrop.underCodes(
            image, plate: plate, ball: plateLookup, camera: material.camera, diffuse: diffuse,
            hidden: mask, shadow: shadow, occlusion: occlusion, parallelism: parallelism)
        }
        return RenderResult(
          material: material, mask: mask, field: field, shadingImage: ball,
          shadingImageIsWhole: whole, picture: .codes(codes),
          // (The shape as codes too, as the other renders that write codes hold it: the
          // codes of the float shape, which engrave to the same bitmap.)
          shapePicture: shape.map { .codes(SRGBCanvas($0)) }, timings: timings)
      }
      image = timings.measure("plate") {
        // A plate without detail, seen straight on, is one color: only the letters' content
        // is recomposited over it.
        guard plateVaries else {
          return Backdrop.under(
            image, color: Backdrop.centerColor(plateLookup), parallelism: parallelism)
        }
        // (Each row of the plate made as the picture's row is put over it.)
        return Backdrop.under(
          image, plate: plate, ball: plateLookup, camera: material.camera, diffuse: diffuse,
          hidden: mask, parallelism: parallelism)
      }
    } else if layered {
      image = timings.measure("background") {
        Backdrop.under(image, color: material.background.rgba, parallelism: parallelism)
      }
    }
    // Ambient occlusion, on the picture too.
    if material.occlusion.isVisible {
      timings.measure("occlusion") {
        AmbientOcclusion.apply(
          toInPlace: &image, height: field, mask: mask, occlusion: material.occlusion,
          scale: relief.scale, relief: relief, parallelism: parallelism)
      }
    }
    return RenderResult(
      material: material, mask: mask, field: field, shadingImage: ball, shadingImageIsWhole: whole,
      picture: .linear(image), shapePicture: shape.map { .linear($0) }, timings: timings)
  }

  /// The material's lit ball alone, whole, at `size` (default: the material's): the
  /// pipeline's shading stage, as `emboss shading` writes it.
  public static func shadingImage(
    material: MaterialSpec, size: Int? = nil, cache: StageCache = StageCache(),
    parallelism: Parallelism = .allCores
  ) -> RGBAImage {
    let size = size ?? material.shadingSize
    let key = StageCache.BallKey(
      surface: material.surface, lights: material.lights, environment: material.environment,
      size: size)
    if let cached = cache.ball, cached.key == key, cached.whole { return cached.value }
    if let stored = cache.disk?.load(key.digest, size: size) { return stored }
    let geometry = cache.memo(\.geometry, key: size) {
      BallGeometry.march(size: size, parallelism: parallelism)
    }
    let ball = geometry.shade(
      surface: material.surface, lights: material.lights, environment: material.environment,
      only: nil, parallelism: parallelism)
    cache.disk?.store(ball, key: key.digest)
    return ball
  }
}

/// Where a render's pixels look up their colors: a lookup map kept in a cache, or a plan whose
/// bands the compositor makes as it goes (the same bytes).
enum Lookups {
  case map(ShadedMaterial.LookupMap)
  case plan(ShadedMaterial.LookupPlan)

  /// The kept lookup map, if these lookups are one.
  var map: ShadedMaterial.LookupMap? {
    if case .map(let map) = self { return map }
    return nil
  }

  /// The compositor over these lookups.
  func composite(
    mask: CoverageMask, shading: RGBAImage, background: Background, detail: DetailSpec,
    surfaceColor: SIMD3<Float>, depth: ShadedMaterial.SurfaceDepth?, parallelism: Parallelism
  ) -> CanvasImage {
    switch self {
    case .map(let map):
      ShadedMaterial.composite(
        map: map, mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, parallelism: parallelism)
    case .plan(let plan):
      ShadedMaterial.composite(
        plan: plan, mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, parallelism: parallelism)
    }
  }

  /// The compositor over these lookups, writing 8-bit sRGB codes (the same codes the PNG
  /// encoder makes of `composite`'s picture, with `layers` drawn as `DropShadow.apply` and
  /// `AmbientOcclusion.apply` draw them).
  func compositeCodes(
    mask: CoverageMask, shading: RGBAImage, background: Background, detail: DetailSpec,
    surfaceColor: SIMD3<Float>, depth: ShadedMaterial.SurfaceDepth?,
    layers: DrawnLayers?, parallelism: Parallelism
  ) -> SRGBCanvas {
    switch self {
    case .map(let map):
      ShadedMaterial.compositeCodes(
        map: map, mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, layers: layers, parallelism: parallelism)
    case .plan(let plan):
      ShadedMaterial.compositeCodes(
        plan: plan, mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, layers: layers, parallelism: parallelism)
    }
  }

  /// `compositeCodes` and the shape's codes, made with it (see
  /// `ShadedMaterial.compositeCodesAndShape(map:...)`).
  func compositeCodesAndShape(
    mask: CoverageMask, shading: RGBAImage, background: Background, detail: DetailSpec,
    surfaceColor: SIMD3<Float>, depth: ShadedMaterial.SurfaceDepth?,
    layers: DrawnLayers?, parallelism: Parallelism
  ) -> (picture: SRGBCanvas, shape: SRGBCanvas) {
    switch self {
    case .map(let map):
      ShadedMaterial.compositeCodesAndShape(
        map: map, mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, layers: layers, parallelism: parallelism)
    case .plan(let plan):
      ShadedMaterial.compositeCodesAndShape(
        plan: plan, mask: mask, shading: shading, background: background, detail: detail,
        surfaceColor: surfaceColor, depth: depth, layers: layers, parallelism: parallelism)
    }
  }
}

/// Remembers the last result of each stage with the inputs it came from, so a render whose
/// inputs changed only in part re-runs only the stages downstream of the change: a light
/// edit re-shades the ball and re-composites, never touching the mask or the height field.
///
/// It only memoizes `Pipeline.render`'s stages: every entry is keyed by the stage's inputs,
/// compared by value (arrays compare their storage first, so an unchanged mask or height
/// field costs nothing to check). Not thread-safe: one render at a time.
public final class StageCache {
  /// What the height field depends on (not the depth: that scales the normals).
  struct HeightKey: Equatable {
    var mask: CoverageMask
    var radius: Float
    var profile: ReliefProfile
    var direction: ReliefDirection
    var soften: Float

    init(mask: CoverageMask, relief: ReliefSpec) {
      self.mask = mask
      radius = relief.radius
      profile = relief.profile
      direction = relief.direction
      soften = relief.soften
    }
  }

  struct BallKey: Equatable {
    var surface: Surface
    var lights: [Light]
    var environment: Environment
    var size: Int

    /// The key on disk (see `BallCache`).
    var digest: [UInt8] {
      BallCache.key(surface: surface, lights: lights, environment: environment, size: size)
    }
  }

  /// What the environment's terms of a lit ball depend on (not the lights).
  struct ReflectionKey: Equatable {
    var surface: Surface
    var environment: Environment
    var size: Int
  }

  struct LookupKey: Equatable {
    var field: HeightField
    var scale: Float
    var detail: DetailSpec
    var camera: CameraSpec
    var shadingWidth: Int
    var shadingHeight: Int
  }

  /// A font file's face, by path and face index.
  struct FontKey: Equatable {
    var path: String
    var index: Int
    /// The file's SHA-256 when it was read through a snapshot: other bytes at the same path
    /// are another font.
    var sha256: String?
  }

  var font: (key: FontKey, value: Font)?
  var mask: (key: MaskSource, font: FontKey?, value: MaskResult, limits: RenderLimits)?
  var height: (key: HeightKey, value: HeightField)?
  var geometry: (key: Int, value: BallGeometry)?
  /// The ball, the lookup map it was shaded for and whether every texel was shaded.
  var ball: (key: BallKey, value: RGBAImage, lookup: LookupKey?, whole: Bool)?
  /// The environment's terms of the last ball shaded (nil: it reflects nothing), kept where
  /// the lookup map is: a light change then shades the lights alone.
  var reflections: (key: ReflectionKey, value: BallGeometry.Reflections?)?
  /// The plate's lit ball (whole).
  var plateBall: (key: BallKey, value: RGBAImage)?
  var lookup: (key: LookupKey, value: ShadedMaterial.LookupMap)? {
    didSet { if oldValue?.key != lookup?.key { texelsRead = nil } }
  }
  /// The texels the cached lookup map reads (found on its first reuse).
  var texelsRead: [Bool]?

  /// Whole lit balls kept between processes (see `BallCache`); nil: none.
  public let disk: BallCache?
  /// Whether the lookup map (every pixel's taps in the ball) is kept for the next render.
  ///
  /// Kept, a light change re-composites from it (a watch, the studio, a contact sheet). A
  /// cache for renders of different shapes (one render, a batch) does not: each band of taps
  /// is then made as it is composited and let go, and the taps are never all held (the same
  /// bytes).
  public let keepsLookupMap: Bool

  /// An empty cache: the first render computes every stage, except a lit ball `disk` holds.
  public init(disk: BallCache? = nil, keepsLookupMap: Bool = true) {
    self.disk = disk
    self.keepsLookupMap = keepsLookupMap
  }

  /// The entry at `slot` when its key is `key`, else `make()`, remembered.
  func memo<Key: Equatable, Value>(
    _ slot: ReferenceWritableKeyPath<StageCache, (key: Key, value: Value)?>, key: Key,
    make: () throws -> Value
  ) rethrows -> Value {
    if let cached = self[keyPath: slot], cached.key == key { return cached.value }
    let value = try make()
    self[keyPath: slot] = (key, value)
    return value
  }
}
