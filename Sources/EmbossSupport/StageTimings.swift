/// How long each stage of a render took, in order.
public struct StageTimings: Sendable {
  /// Each stage's name and wall time in seconds, in the order they ran.
  public private(set) var stages: [(name: String, seconds: Double)] = []

  /// No stages yet.
  public init() {}

  /// The sum of the stages' times, in seconds.
  public var total: Double { stages.reduce(0) { $0 + $1.seconds } }

  /// Runs `body`, recording its wall time under `name`.
  public mutating func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let elapsed = clock.now - start
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    stages.append((name, seconds))
    return result
  }

  /// Adds `other`'s stages after these.
  public mutating func append(_ other: StageTimings) {
    stages += other.stages
  }
}
