import EmbossSupport
import Foundation

/// The shape of the bevel between the mask edge and the plateau.
public enum ReliefProfile: String, Sendable, CaseIterable {
  /// A quarter circle (fillet): steep at the edge, flat at the top, as CIHeightFieldFromMask.
  case round
  /// A straight slope (chisel): constant angle from edge to plateau.
  case linear
  /// An S-curve (smoothstep): flat at the edge and at the top, a pillow-like bevel.
  case smooth
  /// Photoshop's "Chisel Hard": the straight slope of `linear`, with exact mitre creases.
  case chiselHard = "chisel-hard"
  /// Photoshop's "Chisel Soft": the straight slope with its creases and top edge rounded
  /// (a softened chisel: `soften` of at least 15% of the radius).
  case chiselSoft = "chisel-soft"
  /// Swollen across the whole shape, as a balloon or a drop of liquid: round across every
  /// stroke and around its ends, with no crease (see `HeightField.make`). Its `t` is not a
  /// distance: it is the inflation's swell `sqrt(2φ)` over the radius, where `-∇²φ = 1`
  /// inside the ink and `φ = 0` on its outline; its height `1 - (1 - t)²` levels off at the
  /// plateau.
  case inflated

  /// The derivative dh/dt at `t` (0 past the plateau).
  ///
  /// The round profile's is infinite at the
  /// edge itself; it is taken a ten-thousandth of the radius in.
  @inlinable @inline(__always)
  public func slope(_ t: Float) -> Float {
    guard t < 1 else { return 0 }
    switch self {
    case .round:
      let u = 1 - max(t, 1e-4)
      return u / (1 - u * u).squareRoot()
    case .linear, .chiselHard, .chiselSoft:
      return t >= 0 ? 1 : 0
    case .smooth:
      return t >= 0 ? 6 * t * (1 - t) : 0
    case .inflated:
      return t >= 0 ? 2 * (1 - t) : 0
    }
  }

  /// The least `soften`, as a fraction of the radius, that the profile implies.
  public var impliedSoften: Float { self == .chiselSoft ? 0.15 : 0 }

  /// Height (0...1) at `t` = distance from the edge / radius, for t in 0...1.
  @inlinable @inline(__always)
  public func height(_ t: Float) -> Float {
    let t = min(max(t, 0), 1)
    switch self {
    case .round:
      let u = 1 - t
      return (1 - u * u).squareRoot()
    case .linear, .chiselHard, .chiselSoft:
      return t
    case .smooth:
      return t * t * (3 - 2 * t)
    case .inflated:
      return t * (2 - t)
    }
  }
}

/// Whether the letters stand out of the surface or are pressed into it.
public enum ReliefDirection: String, Sendable, CaseIterable {
  case raised
  case lowered
}

/// What the bevel does at an inside corner of the ink (a reflex vertex of its outline, such as
/// where a W's strokes meet or a t's crossbar leaves its stem).
public enum InsideCorners: String, Sendable, CaseIterable {
  /// The distance to the corner itself: the bevel turns around it as a cone (the exact
  /// distance to the outline).
  case round
  /// Each face runs on as a plane to the corner's bisector, where the two meet in a sharp
  /// seam, as a CAD chamfer or a carved letter has it; a corner so sharp that its mitre would
  /// reach past `InsideCorners.mitreLimit` radii stays round.
  case mitre

  /// How far along its bisector a mitre may reach, in radii.
  ///
  /// Corners turning more than about 168 degrees (a W's notches turn about 154) stay round.
  /// Other features cut a mitre short
  /// where they are nearer, so a long one runs along the stroke's middle, as a V-cut's seam.
  public static let mitreLimit: Float = 10
}

/// How tall the relief is, which sets how steep its slopes look.
public enum ReliefDepth: Sendable, Equatable {
  /// Core Image's `inputScale`: the slopes of the 0...1 height field, per pixel, times this.
  /// The same value looks twice as steep at twice the resolution.
  case scale(Float)
  /// The plateau's height as a multiple of the radius: follows the radius, so a design keeps
  /// its look at any resolution. 1 (the default) at radius 10 is `scale(10)`.
  case radiusMultiple(Float)
  /// The plateau's height in pixels (a length: mm at a DPI become pixels before this).
  case pixels(Float)
}

/// How a mask becomes a relief.
///
/// Every value is checked against `Parameters` when it is made.
public struct ReliefSpec: Sendable, Equatable {
  /// Distance from the edge, in pixels, over which the height rises to the plateau.
  public let radius: Float
  /// The bevel's shape from the edge to the plateau.
  public let profile: ReliefProfile
  /// How deep the relief looks.
  public let depth: ReliefDepth
  /// Raised out of the surface, or lowered into it.
  public let direction: ReliefDirection
  /// Blur of the relief in pixels (Photoshop's and Krita's "soften"): the standard deviation
  /// of a Gaussian over the heights.
  ///
  /// 0: exact, sharp creases.
  public let soften: Float
  /// What the bevel does at inside corners.
  public let insideCorners: InsideCorners
  /// The radius, in pixels, every corner of the ink's outline is rounded to first (0: none).
  public let roundCorners: Float

  /// A relief from validated values; see each property for its meaning.
  public init(
    radius: Float = Parameters.radius.value,
    profile: ReliefProfile = Parameters.profile.defaultValue,
    depth: ReliefDepth = .radiusMultiple(Parameters.depth.value),
    direction: ReliefDirection = Parameters.direction.defaultValue,
    soften: Float = Parameters.soften.value,
    insideCorners: InsideCorners = Parameters.insideCorners.defaultValue,
    roundCorners: Float = Parameters.roundCorners.value
  ) throws(ParameterError) {
    try Parameters.radius.check(radius)
    switch depth {
    case .radiusMultiple(let k): try Parameters.depth.check(k)
    case .scale(let s): try Parameters.scale.check(s)
    case .pixels(let p):
      // A length: as tall as Core Image's scale allows.
      do { try Parameters.scale.check(p) } catch {
        throw ParameterError(key: Parameters.depth.key, message: error.message + " pixels")
      }
    }
    try Parameters.soften.check(soften)
    try Parameters.roundCorners.check(roundCorners)
    self.radius = radius
    self.profile = profile
    self.depth = depth
    self.direction = direction
    self.soften = soften
    self.insideCorners = insideCorners
    self.roundCorners = roundCorners
  }

  /// Every value at its default.
  public static let standard = ReliefSpec(defaults: ())

  private init(defaults: Void) {
    radius = Parameters.radius.value
    profile = Parameters.profile.defaultValue
    depth = .radiusMultiple(Parameters.depth.value)
    direction = Parameters.direction.defaultValue
    soften = Parameters.soften.value
    insideCorners = Parameters.insideCorners.defaultValue
    roundCorners = Parameters.roundCorners.value
  }

  /// CIShadedMaterial's `inputScale` the depth comes to at this radius: the factor on the
  /// per-pixel slopes of the 0...1 height field.
  public var scale: Float {
    switch depth {
    case .scale(let s): return s
    case .radiusMultiple(let k): return k * radius
    case .pixels(let p): return p
    }
  }

  /// The blur the relief asks for: `soften`, at least what the profile implies (whatever
  /// its size).
  public var blur: Float { max(soften, profile.impliedSoften * radius) }

  /// The blur the relief gets on the pixel grid: `blur`; none when that is under
  /// `leastSoften`.
  public var effectiveSoften: Float {
    blur < Self.leastSoften ? 0 : blur
  }

  /// The least blur, in pixels, a relief is softened by.
  ///
  /// A smaller one leaves its creases sharp within a pixel, and the exact relief (each
  /// crease pixel sampled 4 x 4 from its own faces) is nearer a render at a larger size than
  /// the softened one (a normal per pixel, its slopes blurred). Measured 1x against 4x
  /// (`matte-plastic`, 40 px): at 0.15 px 34.8 dB softened, 39.9 exact; at 0.35 px both
  /// 35.2; at 0.5 px 37.0 softened, 32.5 exact.
  public static let leastSoften: Float = 0.35
}
