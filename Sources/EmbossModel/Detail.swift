import EmbossSupport
import Foundation

/// Procedural surface detail, seeded, in lengths that scale with the text.
///
/// Brushed lines, hammered dents and a sandblasted grain tilt the surface; wood grain and
/// stone speckle color it. The seed makes every render of a material draw the same pattern.
///
/// Every value is checked against `Parameters` when the detail is made.
public struct DetailSpec: Sendable, Equatable, Hashable {
  /// 0...1: how strongly brushed; 0 is a smooth surface.
  public var brushed: Float { values.brushed }
  /// The grain's direction in degrees, counterclockwise from the right.
  public var brushedAngle: Float { values.brushedAngle }
  /// How far apart the brushed lines are, in pixels.
  public var brushedWidth: Float { values.brushedWidth }
  /// How far a brushed line runs before it fades, in line widths.
  public var brushedLength: Float { values.brushedLength }
  /// 0...1: how deep the hammer's dents are; 0 is none.
  public var hammered: Float { values.hammered }
  /// The dents' size (about their diameter), in pixels.
  public var hammeredSize: Float { values.hammeredSize }
  /// 0...1: how rough a sandblasted (matte) grain makes the surface; 0 is none.
  public var sandblasted: Float { values.sandblasted }
  /// The sandblasted grain's size, in pixels.
  public var sandblastedSize: Float { values.sandblastedSize }
  /// 0...1: how wavy a polished surface is (broad, smooth undulations); 0 is flat.
  public var waviness: Float { values.waviness }
  /// The undulations' size (about their width), in pixels.
  public var wavinessSize: Float { values.wavinessSize }
  /// 0...1: how strongly wood grain colors the surface; 0 is none.
  public var grain: Float { values.grain }
  /// How far apart the grain's lines are, in pixels.
  public var grainSpacing: Float { values.grainSpacing }
  /// The grain's direction in degrees, counterclockwise from the right.
  public var grainAngle: Float { values.grainAngle }
  /// 0...1: how much the grain's lines wave (its figure).
  public var grainFigure: Float { values.grainFigure }
  /// The color of the grain's dark lines (late wood), linear light, as `surface.base` is the
  /// wood's own color.
  public var grainColor: SIMD3<Float> { values.grainColor }
  /// 0...1: how strongly stone's speckle colors the surface; 0 is none.
  public var speckle: Float { values.speckle }
  /// The flecks' size, in pixels.
  public var speckleSize: Float { values.speckleSize }
  /// The dark flecks' color, linear light.
  public var speckleColor: SIMD3<Float> { values.speckleColor }
  /// Which pattern.
  public var seed: Int { values.seed }

  /// The values, every one checked.
  public struct Values: Sendable, Equatable, Hashable {
    /// See `DetailSpec.brushed`.
    public var brushed = Parameters.detailBrushed.value
    /// See `DetailSpec.brushedAngle`.
    public var brushedAngle = Parameters.detailBrushedAngle.value
    /// See `DetailSpec.brushedWidth`.
    public var brushedWidth = Parameters.detailBrushedWidth.value
    /// See `DetailSpec.brushedLength`.
    public var brushedLength = Parameters.detailBrushedLength.value
    /// See `DetailSpec.hammered`.
    public var hammered = Parameters.detailHammered.value
    /// See `DetailSpec.hammeredSize`.
    public var hammeredSize = Parameters.detailHammeredSize.value
    /// See `DetailSpec.sandblasted`.
    public var sandblasted = Parameters.detailSandblasted.value
    /// See `DetailSpec.sandblastedSize`.
    public var sandblastedSize = Parameters.detailSandblastedSize.value
    /// See `DetailSpec.waviness`.
    public var waviness = Parameters.detailWaviness.value
    /// See `DetailSpec.wavinessSize`.
    public var wavinessSize = Parameters.detailWavinessSize.value
    /// See `DetailSpec.grain`.
    public var grain = Parameters.detailGrain.value
    /// See `DetailSpec.grainSpacing`.
    public var grainSpacing = Parameters.detailGrainSpacing.value
    /// See `DetailSpec.grainAngle`.
    public var grainAngle = Parameters.detailGrainAngle.value
    /// See `DetailSpec.grainFigure`.
    public var grainFigure = Parameters.detailGrainFigure.value
    /// See `DetailSpec.grainColor`.
    public var grainColor = Parameters.detailGrainColor.defaultValue
    /// See `DetailSpec.speckle`.
    public var speckle = Parameters.detailSpeckle.value
    /// See `DetailSpec.speckleSize`.
    public var speckleSize = Parameters.detailSpeckleSize.value
    /// See `DetailSpec.speckleColor`.
    public var speckleColor = Parameters.detailSpeckleColor.defaultValue
    /// See `DetailSpec.seed`.
    public var seed = Parameters.detailSeed.defaultValue

    /// Every value at its default: a smooth, uncolored surface.
    public init() {}

    /// Checks every value against its parameter.
    func check() throws(ParameterError) {
      try Parameters.detailBrushed.check(brushed)
      try Parameters.detailBrushedAngle.check(brushedAngle)
      try Parameters.detailBrushedWidth.check(brushedWidth)
      try Parameters.detailBrushedLength.check(brushedLength)
      try Parameters.detailHammered.check(hammered)
      try Parameters.detailHammeredSize.check(hammeredSize)
      try Parameters.detailSandblasted.check(sandblasted)
      try Parameters.detailSandblastedSize.check(sandblastedSize)
      try Parameters.detailWaviness.check(waviness)
      try Parameters.detailWavinessSize.check(wavinessSize)
      try Parameters.detailGrain.check(grain)
      try Parameters.detailGrainSpacing.check(grainSpacing)
      try Parameters.detailGrainAngle.check(grainAngle)
      try Parameters.detailGrainFigure.check(grainFigure)
      try Parameters.detailGrainColor.check(grainColor)
      try Parameters.detailSpeckle.check(speckle)
      try Parameters.detailSpeckleSize.check(speckleSize)
      try Parameters.detailSpeckleColor.check(speckleColor)
      try Parameters.detailSeed.check(seed)
    }
  }

  /// The checked values.
  public let values: Values

  /// Detail from values, each checked against its parameter.
  public init(_ values: Values) throws(ParameterError) {
    try values.check()
    self.values = values
  }

  /// Brushed detail (the other kinds at their defaults); see each property for its meaning.
  public init(
    brushed: Float = Parameters.detailBrushed.value,
    brushedAngle: Float = Parameters.detailBrushedAngle.value,
    brushedWidth: Float = Parameters.detailBrushedWidth.value,
    seed: Int = Parameters.detailSeed.defaultValue
  ) throws(ParameterError) {
    var v = Values()
    v.brushed = brushed
    v.brushedAngle = brushedAngle
    v.brushedWidth = brushedWidth
    v.seed = seed
    try self.init(v)
  }

  /// A smooth surface (every value at its default).
  public static let none = DetailSpec(unchecked: Values())

  private init(unchecked values: Values) {
    self.values = values
  }

  /// Whether the surface has any detail.
  public var isVisible: Bool { tiltsNormals || colors }

  /// Whether the detail tilts the surface's normals (brushed, hammered, sandblasted, wavy).
  public var tiltsNormals: Bool { brushed > 0 || hammered > 0 || sandblasted > 0 || waviness > 0 }

  /// Whether the detail colors the surface (wood grain, speckle, and brushed lines, which
  /// also change how much light it returns).
  public var colors: Bool { grain > 0 || speckle > 0 || brushed > 0 }

  /// Whether the detail's colors read the relief at each pixel: wood grain is a solid (its
  /// rings at the surface's depth) and speckle lies on the surface (foreshortened along its
  /// slope), so the compositor needs the whole height field.
  public var colorsReadTheRelief: Bool { grain > 0 || speckle > 0 }

  /// The keys whose values are lengths in pixels, with their parameters and values.
  nonisolated(unsafe) static let lengths: [(NumberParameter, WritableKeyPath<Values, Float>)] = [
    (Parameters.detailBrushedWidth, \.brushedWidth),
    (Parameters.detailHammeredSize, \.hammeredSize),
    (Parameters.detailSandblastedSize, \.sandblastedSize),
    (Parameters.detailWavinessSize, \.wavinessSize),
    (Parameters.detailGrainSpacing, \.grainSpacing),
    (Parameters.detailSpeckleSize, \.speckleSize),
  ]

  /// The detail with its lengths times `factor` (within their range), but those whose keys
  /// are in `fixed`.
  public func scaling(by factor: Float, except fixed: Set<String>) -> DetailSpec {
    var v = values
    for (parameter, path) in Self.lengths where !fixed.contains(parameter.key) {
      v[keyPath: path] = min(
        max(v[keyPath: path] * factor, parameter.range.lowerBound), parameter.range.upperBound)
    }
    return (try? DetailSpec(v)) ?? self
  }
}
