import EmbossKit
import Foundation

/// A material's values as the page's controls show them: every parameter's effective value
/// (inherited and default ones included), lists item by item, and which keys the file
/// itself writes.
public struct StudioValues: Sendable, Encodable, Equatable {
  /// Number parameters by key path (`surface.shininess`, `relief.radius`).
  public var numbers: [String: Double] = [:]
  /// Colors (`#rrggbb`), choices, the background and other text values by key path.
  public var texts: [String: String] = [:]
  /// The lights, in order.
  public var lights: [LightValues] = []
  /// The environment's softboxes, in order.
  public var softboxes: [SoftboxValues] = []
  /// Every key path the file writes (`lights[0].angle`), sorted.
  public var written: [String] = []

  /// One light's values.
  public struct LightValues: Sendable, Encodable, Equatable {
    /// `omni`, `distant` or `spot`.
    public var kind: String
    /// The position; for a distant light, the direction it comes from.
    public var position: [Double]
    /// The direction as Photoshop's angle and altitude in degrees.
    public var angle: Double
    /// The height above the surface in degrees (90: straight on).
    public var altitude: Double
    /// Whether the file gives this light by angle and altitude (the page edits those).
    public var byAngle: Bool
    /// The color, `#rrggbb`.
    public var color: String
    /// The brightness, multiplying the color.
    public var intensity: Double
    /// A spot light's target.
    public var target: [Double]
    /// A spot light's cone angle in degrees.
    public var cone: Double
  }

  /// One softbox's values.
  public struct SoftboxValues: Sendable, Encodable, Equatable {
    /// Around the view axis in degrees, counterclockwise from the right.
    public var angle: Double
    /// Above the image plane in degrees.
    public var altitude: Double
    /// Angular width in degrees.
    public var width: Double
    /// Angular height in degrees.
    public var height: Double
    /// The color, `#rrggbb`.
    public var color: String
    /// The brightness, multiplying the color.
    public var intensity: Double
  }

  /// The keys of `surface` under `prefix` (`surface`, `plate.surface`).
  mutating func surface(_ s: Surface, prefix: String) {
    texts["\(prefix).base"] = Self.hex(s.base)
    texts["\(prefix).specular"] = Self.hex(s.specular)
    numbers["\(prefix).shininess"] = Self.exact(s.shininess)
    numbers["\(prefix).ambient"] = Self.exact(s.ambient)
    numbers["\(prefix).metallic"] = Self.exact(s.metallic)
    texts["\(prefix).model"] = s.model.rawValue
    numbers["\(prefix).fresnel"] = Self.exact(s.fresnel)
  }

  /// The keys of `detail` under `prefix` (`detail`, `plate.detail`).
  mutating func detail(_ detail: DetailSpec, prefix: String) {
    numbers["\(prefix).brushed"] = Self.exact(detail.brushed)
    numbers["\(prefix).brushed-angle"] = Self.exact(detail.brushedAngle)
    numbers["\(prefix).brushed-width"] = Self.exact(detail.brushedWidth)
    numbers["\(prefix).brushed-length"] = Self.exact(detail.brushedLength)
    numbers["\(prefix).hammered"] = Self.exact(detail.hammered)
    numbers["\(prefix).hammered-size"] = Self.exact(detail.hammeredSize)
    numbers["\(prefix).sandblasted"] = Self.exact(detail.sandblasted)
    numbers["\(prefix).sandblasted-size"] = Self.exact(detail.sandblastedSize)
    numbers["\(prefix).waviness"] = Self.exact(detail.waviness)
    numbers["\(prefix).waviness-size"] = Self.exact(detail.wavinessSize)
    numbers["\(prefix).grain"] = Self.exact(detail.grain)
    numbers["\(prefix).grain-spacing"] = Self.exact(detail.grainSpacing)
    numbers["\(prefix).grain-angle"] = Self.exact(detail.grainAngle)
    numbers["\(prefix).grain-figure"] = Self.exact(detail.grainFigure)
    texts["\(prefix).grain-color"] = Self.hex(detail.grainColor)
    numbers["\(prefix).speckle"] = Self.exact(detail.speckle)
    numbers["\(prefix).speckle-size"] = Self.exact(detail.speckleSize)
    texts["\(prefix).speckle-color"] = Self.hex(detail.speckleColor)
    numbers["\(prefix).seed"] = Double(detail.seed)
  }

  /// The values of `material`, whose file text is `text`.
  public static func make(material m: MaterialSpec, text: String) -> StudioValues {
    var v = StudioValues()
    let written = MaterialDocument.writtenKeys(text)
    v.written = written.sorted()
    v.texts["description"] = m.description
    switch m.background {
    case .transparent: v.texts["background"] = "transparent"
    case .color(let c): v.texts["background"] = hex(c)
    case .translucent(let c, let alpha):
      v.texts["background"] = hex(c) + String(format: "%02x", Int((alpha * 255).rounded()))
    }
    v.surface(m.surface, prefix: "surface")
    // The plate's values: its own, or those a plate would start from (the letters' surface,
    // no detail).
    let plate = m.plate ?? PlateSpec(surface: m.surface)
    v.surface(plate.surface, prefix: "plate.surface")
    v.detail(plate.detail, prefix: "plate.detail")
    let e = m.environment
    v.numbers["environment.intensity"] = exact(e.intensity)
    v.texts["environment.sky"] = hex(e.sky)
    v.texts["environment.horizon"] = hex(e.horizon)
    v.texts["environment.ground"] = hex(e.ground)
    v.texts["environment.band"] = hex(e.band)
    v.numbers["environment.band-width"] = exact(e.bandWidth)
    v.numbers["environment.horizon-angle"] = exact(e.horizonAngle)
    v.numbers["environment.horizon-softness"] = exact(e.horizonSoftness)
    let r = m.relief
    v.numbers["relief.radius"] = exact(r.radius)
    v.texts["relief.profile"] = r.profile.rawValue
    v.texts["relief.direction"] = r.direction.rawValue
    v.texts["relief.inside-corners"] = r.insideCorners.rawValue
    v.numbers["relief.soften"] = exact(r.soften)
    v.numbers["relief.round-corners"] = exact(r.roundCorners)
    switch r.depth {
    case .radiusMultiple(let x): v.numbers["relief.depth"] = exact(x)
    case .pixels(let px): v.texts["relief.depth"] = "\(formatNumber(px))px"
    case .scale(let x): v.numbers["relief.scale"] = exact(x)
    }
    let shadow = m.shadow
    v.numbers["shadow.opacity"] = exact(shadow.opacity)
    v.numbers["shadow.distance"] = exact(shadow.distance)
    v.numbers["shadow.softness"] = exact(shadow.softness)
    v.texts["shadow.color"] = hex(shadow.color)
    // Given, or the brightest light's (which the shadow falls away from).
    let away = shadow.offsetDirection(lights: m.lights)
    v.numbers["shadow.angle"] =
      shadow.angle.map(exact)
      ?? (away == .zero ? 0 : round4(atan2(away.y, -away.x) * 180 / .pi))
    v.numbers["occlusion.strength"] = exact(m.occlusion.strength)
    v.numbers["occlusion.radius"] = exact(m.occlusion.radius)
    v.detail(m.detail, prefix: "detail")
    v.numbers["camera.distance"] = exact(m.camera.distance)
    v.numbers["shading.size"] = Double(m.shadingSize)
    for (i, light) in m.lights.enumerated() {
      let p = light.position
      let length = max((p * p).sum().squareRoot(), 1e-9)
      var target: SIMD3<Float> = Parameters.lightTarget.defaultValue
      var cone = Parameters.lightCone.value
      if case .spot(let spot) = light {
        target = spot.target
        cone = spot.cone
      }
      v.lights.append(
        LightValues(
          kind: light.kind.rawValue, position: [p.x, p.y, p.z].map(round4),
          angle: round4(atan2(p.y, p.x) * 180 / .pi),
          altitude: round4(asin(max(-1, min(1, p.z / length))) * 180 / .pi),
          byAngle: written.contains("lights[\(i)].angle")
            || written.contains("lights[\(i)].altitude"),
          color: hex(light.color), intensity: exact(light.intensity),
          target: [target.x, target.y, target.z].map(round4), cone: exact(cone)))
    }
    v.softboxes = e.softboxes.map {
      SoftboxValues(
        angle: exact($0.angle), altitude: exact($0.altitude), width: exact($0.width),
        height: exact($0.height), color: hex($0.color), intensity: exact($0.intensity))
    }
    return v
  }

  /// A light as list-item keys (for writing an inherited list into the file).
  static func fields(of light: Light) -> [MaterialDocument.Field] {
    var fields = [MaterialDocument.Field("kind", light.kind.rawValue)]
    fields.append(.init("position", vector(light.position)))
    if case .spot(let spot) = light {
      fields.append(.init("target", vector(spot.target)))
      fields.append(.init("cone", formatNumber(spot.cone)))
    }
    fields.append(.init("color", "\"\(hex(light.color))\""))
    fields.append(.init("intensity", formatNumber(light.intensity)))
    return fields
  }

  /// A softbox as list-item keys.
  static func fields(of box: Softbox) -> [MaterialDocument.Field] {
    [
      .init("angle", formatNumber(box.angle)), .init("altitude", formatNumber(box.altitude)),
      .init("width", formatNumber(box.width)), .init("height", formatNumber(box.height)),
      .init("color", "\"\(hex(box.color))\""), .init("intensity", formatNumber(box.intensity)),
    ]
  }

  static func vector(_ p: SIMD3<Float>) -> String {
    "[\(formatNumber(p.x)), \(formatNumber(p.y)), \(formatNumber(p.z))]"
  }

  /// A linear color as the `#rrggbb` a file writes (sRGB, clamped to 0...1).
  static func hex(_ c: SIMD3<Float>) -> String {
    let codes = [c.x, c.y, c.z].map { Int((SRGB.encode($0) * 255).rounded()) }
    return "#" + codes.map { String(format: "%02x", $0) }.joined()
  }

  private static func round4(_ x: Float) -> Double { (Double(x) * 10000).rounded() / 10000 }

  /// A Float as the Double it reads as (0.02, not 0.019999999552965164).
  private static func exact(_ x: Float) -> Double { Double(x.description) ?? Double(x) }
}
