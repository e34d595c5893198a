import EmbossSupport

/// What the letters stand on (or are cut into) when it is a surface rather than a plain
/// background: a flat plate of its own surface and detail, lit by the material's lights and
/// environment (the same room), filling the canvas.
public struct PlateSpec: Sendable, Equatable {
  /// How the plate reflects light.
  public let surface: Surface
  /// Procedural detail on the plate (brushed, hammered, sandblasted, grain, speckle).
  public let detail: DetailSpec

  /// A plate of `surface` with `detail`.
  public init(surface: Surface, detail: DetailSpec = .none) {
    self.surface = surface
    self.detail = detail
  }

  /// The plate with its detail's lengths times `factor`, but those in `fixed` (keys such as
  /// `plate.detail.grain-spacing`).
  public func scaling(by factor: Float, except fixed: Set<String>) -> PlateSpec {
    let keys = Set(fixed.compactMap { $0.hasPrefix("plate.") ? String($0.dropFirst(6)) : nil })
    return PlateSpec(surface: surface, detail: detail.scaling(by: factor, except: keys))
  }
}
