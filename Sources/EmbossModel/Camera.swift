import EmbossSupport

/// Where the picture is seen from: straight on from infinitely far (Core Image's convention:
/// every point of a flat face looks up the same place on the ball), or from a camera at a
/// finite distance above the canvas's center, which sees each point from its own direction,
/// so a polished flat face shows the room moving across it.
public struct CameraSpec: Sendable, Equatable, Hashable {
  /// The camera's height above the canvas's center, in pixels; 0: infinitely far.
  public let distance: Float

  /// A camera from a validated value.
  public init(distance: Float = Parameters.cameraDistance.value) throws(ParameterError) {
    try Parameters.cameraDistance.check(distance)
    self.distance = distance
  }

  /// Infinitely far: every point seen straight on.
  public static let orthographic = CameraSpec(unchecked: 0)

  private init(unchecked distance: Float) {
    self.distance = distance
  }

  /// Whether the view changes across the canvas.
  public var isFinite: Bool { distance > 0 }

  /// How far a point at `offset` pixels from the canvas's center turns its normal (added to
  /// its x, y): the direction to the camera, tilted back to straight up, turns the normal the
  /// other way (to first order, offset / distance).
  @inline(__always)
  public func tilt(at offset: SIMD2<Float>) -> SIMD2<Float> {
    distance > 0 ? offset / distance : .zero
  }

  /// The camera with its distance times `factor` (within its range), unless its key is in
  /// `fixed`.
  public func scaling(by factor: Float, except fixed: Set<String>) -> CameraSpec {
    let parameter = Parameters.cameraDistance
    guard distance > 0, !fixed.contains(parameter.key) else { return self }
    let scaled = min(
      max(distance * factor, parameter.range.lowerBound), parameter.range.upperBound)
    return (try? CameraSpec(distance: scaled)) ?? self
  }
}
