import EmbossKit

/// The parameter table as the page builds its controls from it: one entry per parameter,
/// with its kind, range, unit, default and help (`Parameters`, the one definition).
public struct StudioSchema: Sendable, Encodable {
  /// One parameter as the page shows it.
  public struct Entry: Sendable, Encodable, Equatable {
    /// The key, as in a material file.
    public var key: String
    /// One of number, integer, color, vector, choice, text, background, list.
    public var kind: String
    /// The smallest value allowed (numbers and vectors).
    public var min: Double?
    /// The largest value allowed (numbers and vectors).
    public var max: Double?
    /// The unit, or empty.
    public var unit: String
    /// The default, as the parameter table shows it.
    public var defaultText: String
    /// The default as a material file writes it (numbers), for a control that adds an
    /// item to a list; nil where there is none.
    public var defaultValue: String?
    /// The names a choice takes.
    public var choices: [String]?
    /// One line of help.
    public var help: String
    /// The command-line flag that overrides the key, if any.
    public var flag: String?
  }

  /// Every parameter, in the table's order.
  public var parameters: [Entry]

  /// The schema of `Parameters`.
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
      e.defaultValue = n.defaultValue.map(formatNumber)
    case let n as IntegerParameter:
      e.kind = "integer"
      e.defaultValue = String(n.defaultValue)
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
