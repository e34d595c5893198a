import Foundation

/// A length as people give it on the command line: `12` or `12px` (pixels), `20mm`, `2cm`,
/// `0.5in`, `9pt` (points, 1/72 in).
///
/// Physical units need a resolution to become pixels.
public struct Length: Sendable, Equatable, CustomStringConvertible {
  /// A length's unit.
  public enum Unit: String, Sendable, CaseIterable {
    case px, mm, cm, `in`, pt
  }

  /// The number as given.
  public var value: Double
  /// The unit as given (`px` when none was).
  public var unit: Unit

  /// A length of `value` `unit`.
  public init(value: Double, unit: Unit) {
    self.value = value
    self.unit = unit
  }

  /// Parses `NUMBER[px|mm|cm|in]`; nil for anything else (NaN and infinity included).
  public static func parse(_ text: String) -> Length? {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    for unit in [Unit.mm, .cm, .in, .pt, .px] where trimmed.hasSuffix(unit.rawValue) {
      guard let value = Double(trimmed.dropLast(unit.rawValue.count)), value.isFinite else {
        return nil
      }
      return Length(value: value, unit: unit)
    }
    guard let value = Double(trimmed), value.isFinite else { return nil }
    return Length(value: value, unit: .px)
  }

  /// Whether the unit needs a resolution to become pixels (anything but `px`).
  public var isPhysical: Bool { unit != .px }

  /// In pixels at `dpi` (ignored for pixel lengths).
  public func pixels(dpi: Double?) -> Double? {
    switch unit {
    case .px: return value
    case .mm: return dpi.map { value / 25.4 * $0 }
    case .cm: return dpi.map { value / 2.54 * $0 }
    case .in: return dpi.map { value * $0 }
    case .pt: return dpi.map { value / 72 * $0 }
    }
  }

  /// The longest length any option takes, in pixels: no image is wider than 2^20 pixels, so
  /// no length needs to be longer (and each one converts to an integer safely).
  public static let longest = Double(1 << 20)

  /// In pixels at `dpi`, for the option named `option`.
  ///
  /// Throws `EmbossError` for a physical length without a resolution, a negative one (unless
  /// allowed) or one over `longest`. `dpiName` names the resolution's option in the message.
  public func pixels(
    dpi: Double?, option: String, allowNegative: Bool = false, dpiName: String = "--dpi"
  ) throws(EmbossError) -> Double {
    guard allowNegative || value >= 0 else {
      throw EmbossError("\(option) must be a length of 0 or more, got \(self)")
    }
    guard let pixels = pixels(dpi: dpi) else {
      throw EmbossError("\(option) \(self) is a physical length: give \(dpiName) too")
    }
    guard pixels.isFinite, abs(pixels) <= Self.longest else {
      throw EmbossError(
        "\(option) \(self) is \(pixels) pixels; a length can be at most \(Int(Self.longest)) pixels"
      )
    }
    return pixels
  }

  /// `WIDTHxHEIGHT`, each a positive length (`1000x200`, `100mmx30mm`).
  ///
  /// Nil for anything else. Any "x" may be the separator ("px" holds one too): the split is
  /// where both sides are lengths.
  public static func parseSize(_ text: String) -> (width: Length, height: Length)? {
    let lowered = text.lowercased()
    for index in lowered.indices where lowered[index] == "x" {
      guard let width = Length.parse(String(lowered[..<index])),
        let height = Length.parse(String(lowered[lowered.index(after: index)...])),
        width.value > 0, height.value > 0
      else { continue }
      return (width, height)
    }
    return nil
  }

  /// The length as people write it: `12`, `20mm`.
  public var description: String {
    let number = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    // Pixels are written as plain numbers, as people give them.
    return unit == .px ? number : number + unit.rawValue
  }
}

/// Pixels per inch as PNG stores them: pHYs holds whole pixels per meter.
public struct Resolution: Sendable, Equatable {
  /// Pixels per inch.
  public var dpi: Double

  /// A resolution of `dpi` pixels per inch.
  public init(dpi: Double) {
    self.dpi = dpi
  }

  /// The resolutions accepted, in dpi.
  public static let range: ClosedRange<Double> = 1...100_000

  /// The pHYs value: pixels per meter, rounded.
  public var pixelsPerMeter: UInt32 { UInt32((dpi / 0.0254).rounded()) }

  /// What a reader computes back from pHYs.
  public var storedDPI: Double { Double(pixelsPerMeter) * 0.0254 }

  /// A warning when the DPI does not survive pHYs exactly (600 DPI is stored as 23622 px/m,
  /// 599.9988 DPI, which some software truncates to 599), naming the nearest exact DPIs
  /// (multiples of 127: 254, 508, 1016...); nil when it does.
  public var roundTripWarning: String? {
    guard abs(storedDPI - dpi) > 1e-9 else { return nil }
    // A whole DPI stored a little over (72 as 72.009) reads back as itself, truncated or
    // rounded: nothing to warn about.
    guard dpi != dpi.rounded() || storedDPI.rounded(.down) != dpi else { return nil }
    let below = (dpi / 127).rounded(.down) * 127
    let above = below + 127
    let choices = [below, above].filter { $0 >= 127 }.map { String(Int($0)) }
    return String(
      format:
        "%@ DPI is stored in the PNG as %u pixels per meter, %.4f DPI, which some software reads as %d; %@ DPI %@ stored exactly",
      format(dpi), pixelsPerMeter, storedDPI, Int(storedDPI), choices.joined(separator: " or "),
      choices.count > 1 ? "are" : "is")
  }

  private func format(_ v: Double) -> String {
    v == v.rounded() ? String(Int(v)) : String(v)
  }
}

/// Numbers as emboss writes them into SVG files.
///
/// A fixed number of decimals, trailing zeros dropped (`12.5`, `3`, never `-0`). A gang
/// sheet's lengths in millimeters get `millimeterDecimals`, so none moves by more than half a
/// nanometer (six significant digits would move a 600 mm sheet's lengths by up to 0.5 µm).
public enum SVGNumber {
  /// Decimals of a length in millimeters: lengths are exact to 0.0000005 mm.
  public static let millimeterDecimals = 6

  /// `value` rounded to `decimals` decimals, without trailing zeros.
  public static func fixed(_ value: Double, decimals: Int) -> String {
    var text = String(format: "%.\(max(0, decimals))f", value)
    if text.contains(".") {
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
    }
    return text == "-0" ? "0" : text
  }

  /// A length in millimeters, to `millimeterDecimals` decimals.
  public static func millimeters(_ value: Double) -> String {
    fixed(value, decimals: millimeterDecimals)
  }
}
