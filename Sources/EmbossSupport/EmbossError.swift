/// A failure the user can act on: one line, naming what went wrong and where.
///
/// The command line prints it as `error: <message>` and exits with status 1.
public struct EmbossError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The message, without the `error:` prefix.
  public let message: String

  /// An error saying `message`.
  public init(_ message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
