import CSupport
import Foundation

/// sRGB transfer functions (IEC 61966-2-1).
///
/// Inside the pipeline colors are linear light;
/// encoding happens only at the file edge.
public enum SRGB {
  /// The linear value of an sRGB-encoded value in 0...1.
  @inline(__always)
  public static func decode(_ v: Float) -> Float {
    v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
  }

  /// The sRGB-encoded value (0...1) of a linear value, clamped to 0...1 (NaN gives 0).
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
  package static let encode8Table: [UInt8] = (0...65535).map { i in
    UInt8((encode(Float(i) / 65535) * 255).rounded())
  }

  /// A linear-light, straight-alpha pixel as the 8-bit PNG encoder writes it: sRGB codes by
  /// `encode8Table` (`table`, its storage), alpha rounded; NaN gives 0.
  ///
  /// The four lanes are clamped, scaled and truncated together (the same values as one at a
  /// time: every lane lies in 0.5...65535.5 when it is truncated).
  @inlinable @inline(__always)
  package static func codes8(_ p: SIMD4<Float>, table: UnsafeBufferPointer<UInt8>) -> SIMD4<UInt8> {
    // 0 where not above 0 (NaN too), 1 where above 1.
    var unit = SIMD4<Float>.zero.replacing(with: p, where: p .> 0)
    unit.replace(with: 1, where: unit .> 1)
    let i = emboss_truncate4(unit * SIMD4(65535, 65535, 65535, 255) + 0.5)
    return SIMD4(
      table[Int(i.x)], table[Int(i.y)], table[Int(i.z)], UInt8(truncatingIfNeeded: i.w))
  }

  /// 8-bit sRGB code -> linear value.
  package static let decode8Table: [Float] = (0...255).map { i in decode(Float(i) / 255) }

  /// 16-bit sRGB code -> linear value.
  package static let decode16Table: [Float] = (0...65535).map { i in decode(Float(i) / 65535) }
}

/// A color as written by people: `#rgb`, `#rrggbb`, `#rrggbbaa`, a few CSS names, or
/// `transparent`.
///
/// Values are sRGB-encoded as in CSS; `linear` converts them for the pipeline.
public struct ColorLiteral: Sendable, Equatable {
  /// sRGB-encoded components 0...1.
  public var red: Float
  /// The green component, sRGB-encoded, 0...1.
  public var green: Float
  /// The blue component, sRGB-encoded, 0...1.
  public var blue: Float
  /// The opacity, 0...1.
  public var alpha: Float

  /// A color from sRGB-encoded components in 0...1.
  public init(red: Float, green: Float, blue: Float, alpha: Float = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// `#rrggbb` (the alpha left out), as SVG writes colors.
  public var hex: String {
    "#"
      + [red, green, blue].map {
        let v = Int((min(max($0, 0), 1) * 255).rounded())
        return String(v, radix: 16).count == 1 ? "0" + String(v, radix: 16) : String(v, radix: 16)
      }.joined()
  }

  /// Linear-light RGB.
  public var linear: SIMD3<Float> {
    SIMD3(SRGB.decode(red), SRGB.decode(green), SRGB.decode(blue))
  }

  /// The 148 CSS named colors (CSS Color Module Level 4), and `transparent`.
  static let names: [String: (UInt32, Float)] = [
    "aliceblue": (0xf0f8ff, 1), "antiquewhite": (0xfaebd7, 1), "aqua": (0x00ffff, 1),
    "aquamarine": (0x7fffd4, 1), "azure": (0xf0ffff, 1), "beige": (0xf5f5dc, 1),
    "bisque": (0xffe4c4, 1), "black": (0x000000, 1), "blanchedalmond": (0xffebcd, 1),
    "blue": (0x0000ff, 1), "blueviolet": (0x8a2be2, 1), "brown": (0xa52a2a, 1),
    "burlywood": (0xdeb887, 1), "cadetblue": (0x5f9ea0, 1), "chartreuse": (0x7fff00, 1),
    "chocolate": (0xd2691e, 1), "coral": (0xff7f50, 1), "cornflowerblue": (0x6495ed, 1),
    "cornsilk": (0xfff8dc, 1), "crimson": (0xdc143c, 1), "cyan": (0x00ffff, 1),
    "darkblue": (0x00008b, 1), "darkcyan": (0x008b8b, 1), "darkgoldenrod": (0xb8860b, 1),
    "darkgray": (0xa9a9a9, 1), "darkgreen": (0x006400, 1), "darkgrey": (0xa9a9a9, 1),
    "darkkhaki": (0xbdb76b, 1), "darkmagenta": (0x8b008b, 1), "darkolivegreen": (0x556b2f, 1),
    "darkorange": (0xff8c00, 1), "darkorchid": (0x9932cc, 1), "darkred": (0x8b0000, 1),
    "darksalmon": (0xe9967a, 1), "darkseagreen": (0x8fbc8f, 1), "darkslateblue": (0x483d8b, 1),
    "darkslategray": (0x2f4f4f, 1), "darkslategrey": (0x2f4f4f, 1),
    "darkturquoise": (0x00ced1, 1), "darkviolet": (0x9400d3, 1), "deeppink": (0xff1493, 1),
    "deepskyblue": (0x00bfff, 1), "dimgray": (0x696969, 1), "dimgrey": (0x696969, 1),
    "dodgerblue": (0x1e90ff, 1), "firebrick": (0xb22222, 1), "floralwhite": (0xfffaf0, 1),
    "forestgreen": (0x228b22, 1), "fuchsia": (0xff00ff, 1), "gainsboro": (0xdcdcdc, 1),
    "ghostwhite": (0xf8f8ff, 1), "gold": (0xffd700, 1), "goldenrod": (0xdaa520, 1),
    "gray": (0x808080, 1), "green": (0x008000, 1), "greenyellow": (0xadff2f, 1),
    "grey": (0x808080, 1), "honeydew": (0xf0fff0, 1), "hotpink": (0xff69b4, 1),
    "indianred": (0xcd5c5c, 1), "indigo": (0x4b0082, 1), "ivory": (0xfffff0, 1),
    "khaki": (0xf0e68c, 1), "lavender": (0xe6e6fa, 1), "lavenderblush": (0xfff0f5, 1),
    "lawngreen": (0x7cfc00, 1), "lemonchiffon": (0xfffacd, 1), "lightblue": (0xadd8e6, 1),
    "lightcoral": (0xf08080, 1), "lightcyan": (0xe0ffff, 1),
    "lightgoldenrodyellow": (0xfafad2, 1), "lightgray": (0xd3d3d3, 1),
    "lightgreen": (0x90ee90, 1), "lightgrey": (0xd3d3d3, 1), "lightpink": (0xffb6c1, 1),
    "lightsalmon": (0xffa07a, 1), "lightseagreen": (0x20b2aa, 1), "lightskyblue": (0x87cefa, 1),
    "lightslategray": (0x778899, 1), "lightslategrey": (0x778899, 1),
    "lightsteelblue": (0xb0c4de, 1), "lightyellow": (0xffffe0, 1), "lime": (0x00ff00, 1),
    "limegreen": (0x32cd32, 1), "linen": (0xfaf0e6, 1), "magenta": (0xff00ff, 1),
    "maroon": (0x800000, 1), "mediumaquamarine": (0x66cdaa, 1), "mediumblue": (0x0000cd, 1),
    "mediumorchid": (0xba55d3, 1), "mediumpurple": (0x9370db, 1),
    "mediumseagreen": (0x3cb371, 1), "mediumslateblue": (0x7b68ee, 1),
    "mediumspringgreen": (0x00fa9a, 1), "mediumturquoise": (0x48d1cc, 1),
    "mediumvioletred": (0xc71585, 1), "midnightblue": (0x191970, 1), "mintcream": (0xf5fffa, 1),
    "mistyrose": (0xffe4e1, 1), "moccasin": (0xffe4b5, 1), "navajowhite": (0xffdead, 1),
    "navy": (0x000080, 1), "oldlace": (0xfdf5e6, 1), "olive": (0x808000, 1),
    "olivedrab": (0x6b8e23, 1), "orange": (0xffa500, 1), "orangered": (0xff4500, 1),
    "orchid": (0xda70d6, 1), "palegoldenrod": (0xeee8aa, 1), "palegreen": (0x98fb98, 1),
    "paleturquoise": (0xafeeee, 1), "palevioletred": (0xdb7093, 1), "papayawhip": (0xffefd5, 1),
    "peachpuff": (0xffdab9, 1), "peru": (0xcd853f, 1), "pink": (0xffc0cb, 1),
    "plum": (0xdda0dd, 1), "powderblue": (0xb0e0e6, 1), "purple": (0x800080, 1),
    "rebeccapurple": (0x663399, 1), "red": (0xff0000, 1), "rosybrown": (0xbc8f8f, 1),
    "royalblue": (0x4169e1, 1), "saddlebrown": (0x8b4513, 1), "salmon": (0xfa8072, 1),
    "sandybrown": (0xf4a460, 1), "seagreen": (0x2e8b57, 1), "seashell": (0xfff5ee, 1),
    "sienna": (0xa0522d, 1), "silver": (0xc0c0c0, 1), "skyblue": (0x87ceeb, 1),
    "slateblue": (0x6a5acd, 1), "slategray": (0x708090, 1), "slategrey": (0x708090, 1),
    "snow": (0xfffafa, 1), "springgreen": (0x00ff7f, 1), "steelblue": (0x4682b4, 1),
    "tan": (0xd2b48c, 1), "teal": (0x008080, 1), "thistle": (0xd8bfd8, 1),
    "tomato": (0xff6347, 1), "turquoise": (0x40e0d0, 1), "violet": (0xee82ee, 1),
    "wheat": (0xf5deb3, 1), "white": (0xffffff, 1), "whitesmoke": (0xf5f5f5, 1),
    "yellow": (0xffff00, 1), "yellowgreen": (0x9acd32, 1), "transparent": (0x000000, 0),
  ]

  /// Parses a color string; the error says what was expected (without naming where).
  public static func parse(_ text: String) -> Result<ColorLiteral, EmbossError> {
    let s = text.trimmingCharacters(in: .whitespaces).lowercased()
    if let (rgb, alpha) = names[s] {
      return .success(ColorLiteral(hex: rgb, alpha: alpha))
    }
    let expected =
      "expected a color like \"#rrggbb\", \"#rgb\", \"#rrggbbaa\", rgb(...), hsl(...) or a CSS name"
    if let open = s.firstIndex(of: "("), s.hasSuffix(")") {
      return functional(
        name: String(s[..<open]).trimmingCharacters(in: .whitespaces),
        arguments: String(s[s.index(after: open)..<s.index(before: s.endIndex)]), text: text)
    }
    guard s.hasPrefix("#") else {
      if let close = suggestion(for: s, among: names.keys.sorted()) {
        return .failure(EmbossError("unknown color name \"\(text)\"; did you mean \"\(close)\"?"))
      }
      return .failure(EmbossError("\(expected), got \"\(text)\""))
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

  /// `rgb(255, 0, 0)`, `rgb(100% 0% 0% / 50%)`, `rgba(...)`, `hsl(120, 100%, 50%)`,
  /// `hsl(120deg 100% 50% / 0.5)`, `hsla(...)`, as CSS writes them.
  static func functional(name: String, arguments: String, text: String) -> Result<
    ColorLiteral, EmbossError
  > {
    func fail(_ why: String) -> Result<ColorLiteral, EmbossError> {
      .failure(EmbossError("\(why), got \"\(text)\""))
    }
    // Components separated by commas or spaces; the alpha after "/" (or a fourth one).
    let parts = arguments.replacingOccurrences(of: "/", with: " / ")
      .split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    var values = parts.filter { $0 != "/" }
    guard values.count == 3 || values.count == 4 else {
      return fail("\(name)() takes three values and an optional alpha")
    }
    func number(_ v: String, percentOf scale: Float) -> Float? {
      if v.hasSuffix("%") {
        return Float(v.dropLast()).map { $0 / 100 * scale }
      }
      if v.hasSuffix("deg") { return Float(v.dropLast(3)) }
      return Float(v)
    }
    // A value out of its range is an error naming it (CSS would clamp it silently: a
    // channel of 300 or an alpha of 1.5 is a typo, not a color).
    func outOfRange(_ v: String, _ what: String, _ range: String) -> Result<
      ColorLiteral, EmbossError
    > {
      fail("\(what) \(v) is out of range (\(range))")
    }
    var alpha: Float = 1
    if values.count == 4 {
      let text = values.removeLast()
      guard let a = number(text, percentOf: 1), a.isFinite else {
        return fail("the alpha is a number 0...1 or a percentage")
      }
      guard (0...1).contains(a) else { return outOfRange(text, "the alpha", "0...1 or 0%...100%") }
      alpha = a
    }
    switch name {
    case "rgb", "rgba":
      let channels = values.map { number($0, percentOf: 255) }
      guard channels.allSatisfy({ $0?.isFinite ?? false }) else {
        return fail("rgb() takes numbers 0...255 or percentages")
      }
      for (text, value) in zip(values, channels) where !(0...255).contains(value ?? 0) {
        return outOfRange(text, "the channel", "0...255 or 0%...100%")
      }
      let c = channels.map { ($0 ?? 0) / 255 }
      return .success(ColorLiteral(red: c[0], green: c[1], blue: c[2], alpha: alpha))
    case "hsl", "hsla":
      guard let h = number(values[0], percentOf: 360), let sat = number(values[1], percentOf: 1),
        let light = number(values[2], percentOf: 1), h.isFinite, sat.isFinite, light.isFinite,
        values[1].hasSuffix("%"), values[2].hasSuffix("%")
      else {
        return fail("hsl() takes a hue in degrees and two percentages")
      }
      for (text, value) in [(values[1], sat), (values[2], light)] where !(0...1).contains(value) {
        return outOfRange(text, "the percentage", "0%...100%")
      }
      let s = sat
      let l = light
      // HSL to HSB: brightness = l + s * min(l, 1 - l).
      let brightness = l + s * min(l, 1 - l)
      let saturation = brightness == 0 ? 0 : 2 * (1 - l / brightness)
      var color = ColorLiteral(hue: h, saturation: saturation, brightness: brightness)
      color.alpha = alpha
      return .success(color)
    default:
      return fail("unknown color function \(name)(); rgb() and hsl() are known")
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
  /// A linear-light color with an opacity strictly between 0 and 1 (`#rrggbbaa`): the picture
  /// keeps an alpha channel, the letters over a see-through tint.
  case translucent(SIMD3<Float>, alpha: Float)

  /// Parses `transparent` or any color literal, with alpha (`#rrggbbaa`) or without.
  public static func parse(_ text: String) -> Result<Background, EmbossError> {
    ColorLiteral.parse(text).flatMap { c in
      if c.alpha == 0 { return .success(.transparent) }
      if c.alpha < 1 { return .success(.translucent(c.linear, alpha: c.alpha)) }
      return .success(.color(c.linear))
    }
  }

  /// The background as a straight-alpha linear color (transparent: all zero).
  public var rgba: SIMD4<Float> {
    switch self {
    case .transparent: .zero
    case .color(let c): SIMD4(c, 1)
    case .translucent(let c, let alpha): SIMD4(c, alpha)
    }
  }
}
