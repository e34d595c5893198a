import Foundation
import EmbossSupport
import EmbossRaster

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

/// The material's surface. Colors are linear light.
public struct Surface: Sendable, Equatable {
  /// Diffuse color.
  public var base: SIMD3<Float>
  /// Highlight color: the reflectance at normal incidence (F0) with the `ggx` model.
  public var specular: SIMD3<Float>
  /// Sharpness of highlights and reflections: higher is a smaller, sharper highlight.
  public var shininess: Float
  /// Fraction of the base color seen without any light.
  public var ambient: Float
  /// 0...1: how much the highlights take the base color (1 = colored metal such as gold);
  /// with `ggx`, also how much of the diffuse color gives way to reflection.
  public var metallic: Float
  public var model: SpecularModel
  /// 0...1: how much reflection rises toward white at grazing angles (Schlick's Fresnel
  /// term); 0 keeps it the same at every angle.
  public var fresnel: Float

  public init(
    base: SIMD3<Float>, specular: SIMD3<Float> = SIMD3(1, 1, 1), shininess: Float = 32,
    ambient: Float = 0.1, metallic: Float = 0, model: SpecularModel = .blinnPhong,
    fresnel: Float = 0
  ) {
    self.base = base
    self.specular = specular
    self.shininess = shininess
    self.ambient = ambient
    self.metallic = metallic
    self.model = model
    self.fresnel = fresnel
  }
}
