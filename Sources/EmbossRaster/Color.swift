import EmbossSupport
import Foundation

/// sRGB transfer functions (IEC 61966-2-1).
///
/// Inside the pipeline colors are linear light;
/// encoding happens only at the file edge.
public enum SRGB {
  @inline(__always)
  public static func decode(_ v: Float) -> Float {
    v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
  }

  @inline(__always)
  public static func encode(_ v: Float) -> Float {
    let c = v > 0 ? (v < 1 ? v : 1) : 0  // NaN -> 0
    return c <= 0.0031308 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
  }

  /// Linear value -> 8-bit sRGB code, by table: index = linear * 65535.
  ///
  /// The table's step is
  /// under a twentieth of an 8-bit level everywhere, so results equal exact rounding except
  /// at rare ties.
  static let encode8Table: [UInt8] = (0...65535).map { i in
    UInt8((encode(Float(i) / 65535) * 255).rounded())
  }

  /// 16-bit sRGB code -> linear value.
  static let decode16Table: [Float] = (0...65535).map { i in decode(Float(i) / 65535) }
}

/// A color as written by people: `#rgb`, `#rrggbb`, `#rrggbbaa`, a few CSS names, or
/// `transparent`.
///
/// Values are sRGB-encoded as in CSS; `linear` converts them for the pipeline.
public struct ColorLiteral: Sendable, Equatable {
  /// sRGB-encoded components 0...1.
  public var red: Float
  public var green: Float
  public var blue: Float
  public var alpha: Float

  public init(red: Float, green: Float, blue: Float, alpha: Float = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// Linear-light RGB.
  public var linear: SIMD3<Float> {
    SIMD3(SRGB.decode(red), SRGB.decode(green), SRGB.decode(blue))
  }

  static let names: [String: (UInt32, Float)] = [
    "black": (0x000000, 1), "white": (0xffffff, 1), "gray": (0x808080, 1),
    "grey": (0x808080, 1), "red": (0xff0000, 1), "green": (0x008000, 1),
    "blue": (0x0000ff, 1), "yellow": (0xffff00, 1), "orange": (0xffa500, 1),
    "gold": (0xffd700, 1), "silver": (0xc0c0c0, 1), "navy": (0x000080, 1),
    "transparent": (0x000000, 0),
  ]

  /// Parses a color string; the error says what was expected (without naming where).
  public static func parse(_ text: String) -> Result<ColorLiteral, EmbossError> {
    let s = text.trimmingCharacters(in: .whitespaces).lowercased()
    if let (rgb, alpha) = names[s] {
      return .success(ColorLiteral(hex: rgb, alpha: alpha))
    }
    let expected = "expected a color like \"#rrggbb\", \"#rgb\", \"#rrggbbaa\" or a name"
    guard s.hasPrefix("#") else {
      if let close = suggestion(for: s, among: names.keys.sorted()) {
        return .failure(EmbossError("unknown color name \"\(text)\"; did you mean \"\(close)\"?"))
      }
      return .failure(
        EmbossError(
          "\(expected) (\(names.keys.sorted().joined(separator: ", "))), got \"\(text)\""))
    }
    let digits = Array(s.dropFirst())
    guard digits.allSatisfy(\.isHexDigit), [3, 6, 8].contains(digits.count) else {
      return .failure(EmbossError("\(expected), got \"\(text)\""))
    }
    func value(_ chars: ArraySlice<Character>) -> Float {
      let v = Float(UInt32(String(chars), radix: 16) ?? 0)
      return chars.count == 1 ? v * 17 / 255 : v / 255
    }
    switch digits.count {
    case 3:
      return .success(
        ColorLiteral(
          red: value(digits[0...0]), green: value(digits[1...1]), blue: value(digits[2...2])))
    case 6:
      return .success(
        ColorLiteral(
          red: value(digits[0...1]), green: value(digits[2...3]), blue: value(digits[4...5])))
    default:
      return .success(
        ColorLiteral(
          red: value(digits[0...1]), green: value(digits[2...3]), blue: value(digits[4...5]),
          alpha: value(digits[6...7])))
    }
  }

  init(hex: UInt32, alpha: Float) {
    self.init(
      red: Float((hex >> 16) & 0xff) / 255, green: Float((hex >> 8) & 0xff) / 255,
      blue: Float(hex & 0xff) / 255, alpha: alpha)
  }

  /// A color from hue (degrees), saturation and brightness (0...1), as HSB/HSV.
  public init(hue: Float, saturation: Float, brightness: Float) {
    let h =
      (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
    let c = brightness * saturation
    let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
    let m = brightness - c
    let (r, g, b): (Float, Float, Float)
    switch Int(h) {
    case 0: (r, g, b) = (c, x, 0)
    case 1: (r, g, b) = (x, c, 0)
    case 2: (r, g, b) = (0, c, x)
    case 3: (r, g, b) = (0, x, c)
    case 4: (r, g, b) = (x, 0, c)
    default: (r, g, b) = (c, 0, x)
    }
    self.init(red: r + m, green: g + m, blue: b + m)
  }
}

/// What the embossed picture is composited over.
public enum Background: Sendable, Equatable {
  case transparent
  /// An opaque linear-light color.
  case color(SIMD3<Float>)

  /// Parses `transparent` or any opaque color literal.
  public static func parse(_ text: String) -> Result<Background, EmbossError> {
    ColorLiteral.parse(text).flatMap { c in
      if c.alpha == 0 { return .success(.transparent) }
      if c.alpha < 1 {
        return .failure(
          EmbossError("background must be opaque or \"transparent\", got \"\(text)\""))
      }
      return .success(.color(c.linear))
    }
  }
}
