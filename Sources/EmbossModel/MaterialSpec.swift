import EmbossSupport
import EmbossRaster

/// A fully resolved material: every value present and validated. Render stages take this
/// and cannot fail. Produced by `MaterialLoader` from a material file (and what it extends),
/// with command-line overrides applied on top.
public struct MaterialSpec: Sendable, Equatable {
  /// The file's name without extension, or "built-in".
  public var name: String
  /// One line for `emboss materials`.
  public var description: String
  public var surface: Surface
  public var lights: [Light]
  /// What the surface reflects besides the lights (`Environment.none`: nothing).
  public var environment: Environment
  public var relief: ReliefSpec
  /// Side of the shading image in pixels.
  public var shadingSize: Int
  public var background: Background

  public init(
    name: String, description: String, surface: Surface, lights: [Light],
    environment: Environment = .none, relief: ReliefSpec, shadingSize: Int, background: Background
  ) {
    self.environment = environment
    self.name = name
    self.description = description
    self.surface = surface
    self.lights = lights
    self.relief = relief
    self.shadingSize = shadingSize
    self.background = background
  }

  /// The values a material file starts from before its own keys (documented in
  /// docs/materials.md): a neutral gray metal under one white light.
  public static let builtIn = MaterialSpec(
    name: "built-in",
    description: "Neutral gray metal under one white light",
    surface: Surface(
      base: SIMD3(repeating: 0.5), specular: SIMD3(repeating: 1), shininess: 32, ambient: 0.1,
      metallic: 0),
    lights: [Light(kind: .omni, position: SIMD3(-1, 1, 1.5), color: SIMD3(repeating: 1), intensity: 1)],
    relief: ReliefSpec(),
    shadingSize: 512,
    background: .transparent)

  public static let shadingSizeRange: ClosedRange<Int> = 16...4096
  public static let shininessRange: ClosedRange<Float> = 1...2048
  public static let intensityRange: ClosedRange<Float> = 0...100
  public static let unitRange: ClosedRange<Float> = 0...1
  public static let positionRange: ClosedRange<Float> = -1000...1000
  public static let coneRange: ClosedRange<Float> = 1...90
  public static let degreesRange: ClosedRange<Float> = -360...360
  public static let altitudeRange: ClosedRange<Float> = -90...90
}
