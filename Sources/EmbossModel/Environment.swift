import Foundation
import EmbossSupport
import EmbossRaster

/// What a shiny surface reflects besides the lights: a sky over a ground with a sharp
/// horizon (a photographer's gradient, or the desert-and-sky of 1980s chrome lettering), and
/// softboxes (soft rectangular area lights). In hemisphere space: x right, y up, z toward the
/// viewer; colors linear light.
///
/// The flat top of an embossed letter faces the viewer and reflects the direction straight
/// back at it, which lies on the horizon; `horizonAngle` lowers (negative) or raises the
/// horizon relative to that direction, so the plateau reflects the sky just above it (or the
/// ground), and the bevels sweep across the horizon line.
public struct Environment: Sendable, Equatable {
  /// 0: no environment (only the lights and `ambient`).
  public var intensity: Float
  /// Straight up.
  public var sky: SIMD3<Float>
  /// The sky at the horizon.
  public var horizon: SIMD3<Float>
  /// Below the horizon (and the band).
  public var ground: SIMD3<Float>
  /// The band just below the horizon: the dark line across polished chrome.
  public var band: SIMD3<Float>
  /// The band's height in degrees; 0: no band.
  public var bandWidth: Float
  /// Elevation of the horizon in degrees, relative to the direction the flat top reflects.
  public var horizonAngle: Float
  public var softboxes: [Softbox]

  public init(
    intensity: Float = 0, sky: SIMD3<Float> = SIMD3(0.35, 0.5, 0.8),
    horizon: SIMD3<Float> = SIMD3(0.9, 0.92, 0.95), ground: SIMD3<Float> = SIMD3(0.12, 0.1, 0.08),
    band: SIMD3<Float> = SIMD3(0.02, 0.02, 0.025), bandWidth: Float = 0, horizonAngle: Float = 0,
    softboxes: [Softbox] = []
  ) {
    self.intensity = intensity
    self.sky = sky
    self.horizon = horizon
    self.ground = ground
    self.band = band
    self.bandWidth = bandWidth
    self.horizonAngle = horizonAngle
    self.softboxes = softboxes
  }

  /// No environment at all.
  public static let none = Environment()

  public static let angleRange: ClosedRange<Float> = -89...89
  public static let bandRange: ClosedRange<Float> = 0...45
}

/// A rectangular area light reflected by shiny surfaces: a photographer's softbox.
public struct Softbox: Sendable, Equatable {
  /// Around the view axis, in degrees, counterclockwise from the right (Photoshop's light
  /// angle: 90 is up, 120 up and to the left).
  public var angle: Float
  /// Above the image plane, in degrees: 90 faces the viewer, 0 grazes the surface.
  public var altitude: Float
  /// Angular width and height in degrees.
  public var width: Float
  public var height: Float
  public var color: SIMD3<Float>
  public var intensity: Float

  public init(
    angle: Float = 120, altitude: Float = 45, width: Float = 30, height: Float = 20,
    color: SIMD3<Float> = SIMD3(1, 1, 1), intensity: Float = 1
  ) {
    self.angle = angle
    self.altitude = altitude
    self.width = width
    self.height = height
    self.color = color
    self.intensity = intensity
  }

  public static let sizeRange: ClosedRange<Float> = 1...180

  /// The unit direction toward the box's center.
  public var direction: SIMD3<Float> { Light.direction(angle: angle, altitude: altitude) }

  /// Solid angle in steradians (small-box approximation).
  public var solidAngle: Float { width * height * (.pi / 180) * (.pi / 180) }

}
