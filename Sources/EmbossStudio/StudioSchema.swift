import EmbossKit

/// The parameter table as the page builds its controls from it: one entry per parameter,
/// with its kind, range, unit, default and help (`Parameters`, the one definition).
public struct StudioSchema: Sendable, Encodable {
  public struct Entry: Sendable, Encodable, Equatable {
    public var key: String
    /// One of number, integer, color, vector, choice, text, background, list.
    public var kind: String
    public var min: Double?
    public var max: Double?
    public var unit: String
    public var defaultText: String
    public var choices: [String]?
    public var help: String
    public var flag: String?
  }

  public var parameters: [Entry]

  public static func make() -> StudioSchema {
    StudioSchema(parameters: Parameters.all.map(entry))
  }

  static func entry(_ p: any ParameterDefinition) -> Entry {
    let row = p.row
    var e = Entry(
      key: row.key, kind: "text", unit: row.unit, defaultText: row.defaultText, help: row.help,
      flag: row.flag)
    switch p {
    case let n as NumberParameter:
      e.kind = "number"
      e.min = Double(n.range.lowerBound)
      e.max = Double(n.range.upperBound)
    case let n as IntegerParameter:
      e.kind = "integer"
      e.min = Double(n.range.lowerBound)
      e.max = Double(n.range.upperBound)
    case is ColorParameter:
      e.kind = "color"
    case let v as VectorParameter:
      e.kind = "vector"
      e.min = Double(v.range.lowerBound)
      e.max = Double(v.range.upperBound)
    case let c as any ChoiceDefinition:
      e.kind = "choice"
      e.choices = c.names
    case is BackgroundParameter:
      e.kind = "background"
    case is ListParameter:
      e.kind = "list"
    default:
      e.kind = "text"
    }
    return e
  }
}
