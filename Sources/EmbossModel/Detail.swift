import EmbossSupport
import Foundation

/// Procedural surface detail on the letters: brushed metal's lines, seeded so every render of
/// a material has the same pattern, in lengths that scale with the text.
///
/// Every value is checked against `Parameters` when the detail is made.
public struct DetailSpec: Sendable, Equatable, Hashable {
  /// 0...1: how strongly brushed; 0 is a smooth surface.
  public let brushed: Float
  /// The grain's direction in degrees, counterclockwise from the right.
  public let brushedAngle: Float
  /// How far apart the brushed lines are, in pixels.
  public let brushedWidth: Float
  /// Which pattern.
  public let seed: Int

  /// Detail from validated values; see each property for its meaning.
  public init(
    brushed: Float = Parameters.detailBrushed.value,
    brushedAngle: Float = Parameters.detailBrushedAngle.value,
    brushedWidth: Float = Parameters.detailBrushedWidth.value,
    seed: Int = Parameters.detailSeed.defaultValue
  ) throws(ParameterError) {
    try Parameters.detailBrushed.check(brushed)
    try Parameters.detailBrushedAngle.check(brushedAngle)
    try Parameters.detailBrushedWidth.check(brushedWidth)
    try Parameters.detailSeed.check(seed)
    self.brushed = brushed
    self.brushedAngle = brushedAngle
    self.brushedWidth = brushedWidth
    self.seed = seed
  }

  /// A smooth surface (every value at its default).
  public static let none = DetailSpec(defaults: ())

  private init(defaults: Void) {
    brushed = Parameters.detailBrushed.value
    brushedAngle = Parameters.detailBrushedAngle.value
    brushedWidth = Parameters.detailBrushedWidth.value
    seed = Parameters.detailSeed.defaultValue
  }

  /// Whether the surface has any detail.
  public var isVisible: Bool { brushed > 0 }

  /// The detail with its lengths times `factor` (within their range), but those whose keys
  /// are in `fixed`.
  public func scaling(by factor: Float, except fixed: Set<String>) -> DetailSpec {
    let width = Parameters.detailBrushedWidth
    guard !fixed.contains(width.key) else { return self }
    let scaled = min(max(brushedWidth * factor, width.range.lowerBound), width.range.upperBound)
    return
      (try? DetailSpec(
        brushed: brushed, brushedAngle: brushedAngle, brushedWidth: scaled, seed: seed)) ?? self
  }
}
