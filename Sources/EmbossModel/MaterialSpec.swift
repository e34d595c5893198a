import EmbossSupport

/// A fully resolved material: every value present and validated.
///
/// Render stages take this
/// and cannot fail. Produced by `MaterialLoader` from a material file (and what it extends),
/// with command-line overrides applied on top; its parts are checked when they are made
/// (see `Parameters`), and the material itself when it is put together.
public struct MaterialSpec: Sendable, Equatable {
  /// The file's name without extension, or "built-in".
  public let name: String
  /// One line for `emboss materials`.
  public let description: String
  /// How the surface reflects light.
  public let surface: Surface
  /// At least one.
  public let lights: [Light]
  /// What the surface reflects besides the lights (`Environment.none`: nothing).
  public let environment: Environment
  /// The relief's shape and depth.
  public let relief: ReliefSpec
  /// Side of the shading image (the lit ball) in pixels.
  public let shadingSize: Int
  /// What the text is composited over.
  public let background: Background
  /// The shadow the letters cast (`ShadowSpec.none`: none).
  public let shadow: ShadowSpec
  /// Procedural detail on the letters' surface (`DetailSpec.none`: a smooth surface).
  public let detail: DetailSpec
  /// Ambient occlusion (`OcclusionSpec.none`: none).
  public let occlusion: OcclusionSpec
  /// The plate the letters stand on, filling the canvas instead of `background`; nil: none.
  public let plate: PlateSpec?
  /// Where the picture is seen from (`CameraSpec.orthographic`: straight on).
  public let camera: CameraSpec

  /// A material from validated parts; see each property for its meaning.
  public init(
    name: String, description: String = Parameters.description.defaultValue ?? "",
    surface: Surface = .standard, lights: [Light] = [.standard], environment: Environment = .none,
    relief: ReliefSpec = .standard, shadingSize: Int = Parameters.shadingSize.defaultValue,
    background: Background = Parameters.background.defaultValue, shadow: ShadowSpec = .none,
    detail: DetailSpec = .none, occlusion: OcclusionSpec = .none, plate: PlateSpec? = nil,
    camera: CameraSpec = .orthographic
  ) throws(ParameterError) {
    guard !lights.isEmpty else {
      throw ParameterError(key: Parameters.lights.key, message: "needs at least one light")
    }
    try Parameters.shadingSize.check(shadingSize)
    if case .color(let color) = background {
      guard color.x.isFinite, color.y.isFinite, color.z.isFinite, color.min() >= 0 else {
        throw ParameterError(
          key: Parameters.background.key,
          message: "must be a color with finite, non-negative components")
      }
    }
    self.init(
      unchecked: name, description, surface, lights, environment, relief, shadingSize, background,
      shadow, detail, occlusion, plate, camera)
  }

  private init(
    unchecked name: String, _ description: String, _ surface: Surface, _ lights: [Light],
    _ environment: Environment, _ relief: ReliefSpec, _ shadingSize: Int, _ background: Background,
    _ shadow: ShadowSpec, _ detail: DetailSpec, _ occlusion: OcclusionSpec, _ plate: PlateSpec?,
    _ camera: CameraSpec
  ) {
    self.plate = plate
    self.camera = camera
    self.shadow = shadow
    self.detail = detail
    self.occlusion = occlusion
    self.name = name
    self.description = description
    self.surface = surface
    self.lights = lights
    self.environment = environment
    self.relief = relief
    self.shadingSize = shadingSize
    self.background = background
  }

  /// The values a material file starts from before its own keys (the defaults of
  /// `Parameters`, documented in docs/materials.md): a neutral gray metal under one white light.
  public static let builtIn = MaterialSpec(
    unchecked: "built-in", Parameters.description.defaultValue ?? "", .standard, [.standard], .none,
    .standard, Parameters.shadingSize.defaultValue, Parameters.background.defaultValue, .none,
    .none,
    .none, nil, .orthographic)

  /// This material under another name.
  public func renamed(_ name: String) -> MaterialSpec {
    MaterialSpec(
      unchecked: name, description, surface, lights, environment, relief, shadingSize, background,
      shadow, detail, occlusion, plate, camera)
  }

  /// This material with its relief's lengths (the radius, the soften, the corners' rounding
  /// and a depth in pixels)
  /// and its shadow's and detail's (distance, softness, line width) times `factor`, each within its parameter's range, except those in `fixed` (keys such
  /// as `relief.radius`: values given for this render).
  public func scalingRelief(by factor: Float, except fixed: Set<String> = []) -> MaterialSpec {
    guard factor.isFinite, factor > 0, factor != 1 else { return self }
    func scaled(_ value: Float, _ range: ClosedRange<Float>) -> Float {
      min(max(value * factor, range.lowerBound), range.upperBound)
    }
    let r = relief
    var depth = r.depth
    if case .pixels(let p) = depth, !fixed.contains(Parameters.depth.key) {
      depth = .pixels(scaled(p, Parameters.scale.range))
    }
    let radius =
      fixed.contains(Parameters.radius.key) ? r.radius : scaled(r.radius, Parameters.radius.range)
    let soften =
      fixed.contains(Parameters.soften.key) ? r.soften : scaled(r.soften, Parameters.soften.range)
    let roundCorners =
      fixed.contains(Parameters.roundCorners.key)
      ? r.roundCorners : scaled(r.roundCorners, Parameters.roundCorners.range)
    // Every value is within its range, so the check cannot fail; should it, the material
    // stays as it was.
    guard
      let relief = try? ReliefSpec(
        radius: radius, profile: r.profile, depth: depth, direction: r.direction, soften: soften,
        insideCorners: r.insideCorners, roundCorners: roundCorners)
    else { return self }
    return MaterialSpec(
      unchecked: name, description, surface, lights, environment, relief, shadingSize, background,
      shadow.scaling(by: factor, except: fixed), detail.scaling(by: factor, except: fixed),
      occlusion.scaling(by: factor, except: fixed), plate?.scaling(by: factor, except: fixed),
      camera.scaling(by: factor, except: fixed))
  }

  /// This material with some parts replaced, checked as a whole again.
  public func replacing(
    description: String? = nil, surface: Surface? = nil, lights: [Light]? = nil,
    environment: Environment? = nil, relief: ReliefSpec? = nil, shadingSize: Int? = nil,
    background: Background? = nil, shadow: ShadowSpec? = nil, detail: DetailSpec? = nil,
    occlusion: OcclusionSpec? = nil, plate: PlateSpec?? = nil, camera: CameraSpec? = nil
  ) throws(ParameterError) -> MaterialSpec {
    try MaterialSpec(
      name: name, description: description ?? self.description, surface: surface ?? self.surface,
      lights: lights ?? self.lights, environment: environment ?? self.environment,
      relief: relief ?? self.relief, shadingSize: shadingSize ?? self.shadingSize,
      background: background ?? self.background, shadow: shadow ?? self.shadow,
      detail: detail ?? self.detail, occlusion: occlusion ?? self.occlusion,
      plate: plate ?? self.plate, camera: camera ?? self.camera)
  }
}
