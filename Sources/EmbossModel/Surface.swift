import EmbossSupport
import Foundation

/// How highlights are computed.
public enum SpecularModel: String, Sendable, CaseIterable {
  /// The classic: highlight * max(0, n.h)^shininess, not energy-conserving (the brightness of
  /// a highlight does not grow as it narrows).
  case blinnPhong = "blinn-phong"
  /// Microfacet GGX (Trowbridge-Reitz) with Smith's shadowing and Schlick's Fresnel:
  /// energy-conserving, so a sharper highlight is also a brighter one, as on real metal.
  /// Roughness comes from the shininess: alpha = sqrt(2 / (shininess + 2)).
  case ggx
}

/// The material's surface.
///
/// Colors are linear light. Every value is checked against
/// `Parameters` when the surface is made.
public struct Surface: Sendable, Equatable {
  /// Diffuse color.
  public let base: SIMD3<Float>
  /// Highlight color: the reflectance at normal incidence (F0) with the `ggx` model.
  public let specular: SIMD3<Float>
  /// Sharpness of highlights and reflections: higher is a smaller, sharper highlight.
  public let shininess: Float
  /// Fraction of the base color seen without any light.
  public let ambient: Float
  /// 0...1: how much the highlights take the base color (1 = colored metal such as gold);
  /// with `ggx`, also how much of the diffuse color gives way to reflection.
  public let metallic: Float
  /// How highlights are computed: Blinn-Phong or GGX.
  public let model: SpecularModel
  /// 0...1: how much reflection rises toward white at grazing angles (Schlick's Fresnel
  /// term); 0 keeps it the same at every angle.
  public let fresnel: Float

  /// A surface from validated values; see each property for its meaning.
  public init(
    base: SIMD3<Float> = Parameters.base.defaultValue,
    specular: SIMD3<Float> = Parameters.specular.defaultValue,
    shininess: Float = Parameters.shininess.value, ambient: Float = Parameters.ambient.value,
    metallic: Float = Parameters.metallic.value,
    model: SpecularModel = Parameters.model.defaultValue,
    fresnel: Float = Parameters.fresnel.value
  ) throws(ParameterError) {
    try Parameters.base.check(base)
    try Parameters.specular.check(specular)
    try Parameters.shininess.check(shininess)
    try Parameters.ambient.check(ambient)
    try Parameters.metallic.check(metallic)
    try Parameters.fresnel.check(fresnel)
    self.base = base
    self.specular = specular
    self.shininess = shininess
    self.ambient = ambient
    self.metallic = metallic
    self.model = model
    self.fresnel = fresnel
  }

  /// Every value at its default.
  public static let standard = Surface(defaults: ())

  private init(defaults: Void) {
    base = Parameters.base.defaultValue
    specular = Parameters.specular.defaultValue
    shininess = Parameters.shininess.value
    ambient = Parameters.ambient.value
    metallic = Parameters.metallic.value
    model = Parameters.model.defaultValue
    fresnel = Parameters.fresnel.value
  }
}
