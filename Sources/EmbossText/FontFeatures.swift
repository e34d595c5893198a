import CHarfBuzz
import EmbossSupport
import Foundation

/// OpenType features in HarfBuzz's syntax, as `--features "liga=0,smcp,ss01"` gives them:
/// `smcp` or `+smcp` turns a feature on, `-liga` or `liga=0` off, `aalt=2` picks an
/// alternate, `kern[3:5]=0` limits one to characters 3..<5 of each line.
public struct FontFeatures: Sendable, Hashable {
  /// Each feature in HarfBuzz's canonical form (`liga=0`, `smcp`), in order: a later one
  /// wins over an earlier one for the same characters.
  public let items: [String]

  /// No features: the font's defaults.
  public static let none = FontFeatures(checked: [])

  private init(checked items: [String]) { self.items = items }

  /// Parses a comma-separated list; an empty string is no features.
  ///
  /// - Throws: `EmbossError` naming the first item HarfBuzz cannot read.
  public init(parsing text: String) throws {
    var items: [String] = []
    for raw in text.split(separator: ",") {
      let item = raw.trimmingCharacters(in: .whitespaces)
      guard !item.isEmpty else { continue }
      guard var feature = Self.parse(item) else {
        throw EmbossError(
          "'\(item)' is not a font feature; write a tag, with =0 to turn it off (liga=0, smcp, ss01, -kern)"
        )
      }
      var buffer = [CChar](repeating: 0, count: 128)
      hb_feature_to_string(&feature, &buffer, UInt32(buffer.count))
      items.append(cString(buffer))
    }
    self.items = items
  }

  private static func parse(_ item: String) -> hb_feature_t? {
    var feature = hb_feature_t()
    let ok = item.withCString { hb_feature_from_string($0, -1, &feature) }
    // HarfBuzz pads a short tag with spaces; a tag must be four printable characters.
    guard ok != 0, item.count <= 64 else { return nil }
    let tag = FontTag.string(feature.tag)
    guard tag.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else { return nil }
    return feature
  }

  /// The features for `hb_shape`.
  var harfBuzz: [hb_feature_t] { items.compactMap(Self.parse) }

  /// The tags turned on (a value other than 0).
  var enabledTags: [String] {
    harfBuzz.filter { $0.value != 0 }.map { FontTag.string($0.tag) }
  }

  /// Refuses a feature turned on that `font` does not have (turning one off is always
  /// fine): a typo such as `scmp` would otherwise do nothing, silently.
  func check(against font: Font) throws {
    let available = font.featureTags
    for tag in enabledTags where !available.contains(tag) {
      var message = "font '\(font.name)' has no OpenType feature '\(tag)'"
      if let close = suggestion(for: tag, among: available.sorted()) {
        message += "; did you mean '\(close)'?"
      }
      throw EmbossError(message + " (its features: \(available.sorted().joined(separator: ", ")))")
    }
  }
}

/// Variation axis values of a variable font, as `--variations "wght=650,wdth=80"` gives
/// them.
public struct FontVariations: Sendable, Hashable {
  /// One axis and its value.
  public struct Value: Sendable, Hashable {
    /// The axis tag, as HarfBuzz packs it.
    public var tag: hb_tag_t
    /// The axis value.
    public var value: Float
  }

  /// The values in order: a later one wins for the same axis.
  public let values: [Value]

  /// No variations: the font's defaults.
  public static let none = FontVariations(checked: [])

  private init(checked values: [Value]) { self.values = values }

  /// Parses a comma-separated list of `tag=value`.
  ///
  /// - Throws: `EmbossError` naming the first item that is not one.
  public init(parsing text: String) throws {
    var values: [Value] = []
    for raw in text.split(separator: ",") {
      let item = raw.trimmingCharacters(in: .whitespaces)
      guard !item.isEmpty else { continue }
      var variation = hb_variation_t()
      let ok = item.withCString { hb_variation_from_string($0, -1, &variation) }
      guard ok != 0, variation.value.isFinite, item.contains("=") || item.contains(" ") else {
        throw EmbossError("'\(item)' is not a font variation; write axis=value (wght=650, wdth=80)")
      }
      values.append(Value(tag: variation.tag, value: variation.value))
    }
    self.values = values
  }

  /// Refuses an axis `font` lacks and a value outside its range.
  func check(against font: Font) throws {
    guard !values.isEmpty else { return }
    let axes = font.axes
    guard !axes.isEmpty else {
      throw EmbossError("font '\(font.name)' is not a variable font; it has no axes to set")
    }
    let list = axes.map { "\($0.tag) \(Self.number($0.minimum))...\(Self.number($0.maximum))" }
      .joined(separator: ", ")
    for value in values {
      let tag = FontTag.string(value.tag)
      guard let axis = axes.first(where: { $0.tag == tag }) else {
        throw EmbossError("font '\(font.name)' has no variation axis '\(tag)' (its axes: \(list))")
      }
      guard Double(value.value) >= axis.minimum, Double(value.value) <= axis.maximum else {
        throw EmbossError(
          "\(tag)=\(Self.number(Double(value.value))) is outside font '\(font.name)''s range \(Self.number(axis.minimum))...\(Self.number(axis.maximum))"
        )
      }
    }
  }

  private static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
  }
}
