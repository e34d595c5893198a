import EmbossSupport
import Foundation

/// What a shiny surface reflects besides the lights: a sky over a ground with a sharp
/// horizon (a photographer's gradient, or the desert-and-sky of 1980s chrome lettering), and
/// softboxes (soft rectangular area lights).
///
/// In hemisphere space: x right, y up, z toward the
/// viewer; colors linear light.
///
/// The flat top of an embossed letter faces the viewer and reflects the direction straight
/// back at it, which lies on the horizon; `horizonAngle` lowers (negative) or raises the
/// horizon relative to that direction, so the plateau reflects the sky just above it (or the
/// ground), and the bevels sweep across the horizon line.
public struct Environment: Sendable, Equatable {
  /// 0: no environment (only the lights and `ambient`).
  public let intensity: Float
  /// Straight up.
  public let sky: SIMD3<Float>
  /// The sky at the horizon.
  public let horizon: SIMD3<Float>
  /// Below the horizon (and the band).
  public let ground: SIMD3<Float>
  /// The band just below the horizon: the dark line across polished chrome.
  public let band: SIMD3<Float>
  /// The band's height in degrees; 0: no band.
  public let bandWidth: Float
  /// Elevation of the horizon in degrees, relative to the direction the flat top reflects.
  public let horizonAngle: Float
  /// How gradually, in degrees either side of the line, the sky turns into the ground (and
  /// the band's edges soften); 0: a sharp line.
  public let horizonSoftness: Float
  /// Rectangular lights in the environment, reflected by the surface (studio panels).
  public let softboxes: [Softbox]

  /// An environment; see each property for its meaning.
  public init(
    intensity: Float = Parameters.environmentIntensity.value,
    sky: SIMD3<Float> = Parameters.sky.defaultValue,
    horizon: SIMD3<Float> = Parameters.horizon.defaultValue,
    ground: SIMD3<Float> = Parameters.ground.defaultValue,
    band: SIMD3<Float> = Parameters.band.defaultValue,
    bandWidth: Float = Parameters.bandWidth.value,
    horizonAngle: Float = Parameters.horizonAngle.value,
    horizonSoftness: Float = Parameters.horizonSoftness.value,
    softboxes: [Softbox] = []
  ) throws(ParameterError) {
    try Parameters.environmentIntensity.check(intensity)
    for (parameter, color) in [
      (Parameters.sky, sky), (Parameters.horizon, horizon), (Parameters.ground, ground),
      (Parameters.band, band),
    ] {
      try parameter.check(color)
    }
    try Parameters.bandWidth.check(bandWidth)
    try Parameters.horizonAngle.check(horizonAngle)
    try Parameters.horizonSoftness.check(horizonSoftness)
    self.init(
      unchecked: intensity, sky, horizon, ground, band, bandWidth, horizonAngle, horizonSoftness,
      softboxes)
  }

  private init(
    unchecked intensity: Float, _ sky: SIMD3<Float>, _ horizon: SIMD3<Float>,
    _ ground: SIMD3<Float>,
    _ band: SIMD3<Float>, _ bandWidth: Float, _ horizonAngle: Float, _ horizonSoftness: Float,
    _ softboxes: [Softbox]
  ) {
    self.intensity = intensity
    self.sky = sky
    self.horizon = horizon
    self.ground = ground
    self.band = band
    self.bandWidth = bandWidth
    self.horizonAngle = horizonAngle
    self.horizonSoftness = horizonSoftness
    self.softboxes = softboxes
  }

  /// No environment at all: every value at its default.
  public static let none = Environment(
    unchecked: Parameters.environmentIntensity.value, Parameters.sky.defaultValue,
    Parameters.horizon.defaultValue, Parameters.ground.defaultValue, Parameters.band.defaultValue,
    Parameters.bandWidth.value, Parameters.horizonAngle.value, Parameters.horizonSoftness.value,
    [])
}

/// A rectangular area light reflected by shiny surfaces: a photographer's softbox.
public struct Softbox: Sendable, Equatable {
  /// Around the view axis, in degrees, counterclockwise from the right (Photoshop's light
  /// angle: 90 is up, 120 up and to the left).
  public let angle: Float
  /// Above the image plane, in degrees: 90 faces the viewer, 0 grazes the surface.
  public let altitude: Float
  /// Angular width and height in degrees.
  public let width: Float
  /// Angular height in degrees.
  public let height: Float
  /// The softbox's color, linear light.
  public let color: SIMD3<Float>
  /// The softbox's brightness, multiplying `color`.
  public let intensity: Float

  /// A softbox; see each property for its meaning.
  public init(
    angle: Float = Parameters.softboxAngle.value,
    altitude: Float = Parameters.softboxAltitude.value,
    width: Float = Parameters.softboxWidth.value, height: Float = Parameters.softboxHeight.value,
    color: SIMD3<Float> = Parameters.softboxColor.defaultValue,
    intensity: Float = Parameters.softboxIntensity.value
  ) throws(ParameterError) {
    try Parameters.softboxAngle.check(angle)
    try Parameters.softboxAltitude.check(altitude)
    try Parameters.softboxWidth.check(width)
    try Parameters.softboxHeight.check(height)
    try Parameters.softboxColor.check(color)
    try Parameters.softboxIntensity.check(intensity)
    self.angle = angle
    self.altitude = altitude
    self.width = width
    self.height = height
    self.color = color
    self.intensity = intensity
  }

  /// The unit direction toward the box's center.
  public var direction: SIMD3<Float> { Light.direction(angle: angle, altitude: altitude) }

  /// Solid angle in steradians (small-box approximation).
  public var solidAngle: Float { width * height * (.pi / 180) * (.pi / 180) }
}
