/// Limits that keep absurd requests from exhausting the machine, as ImageMagick's policy
/// limits do. Each error that hits one names the option that raises it.
public struct RenderLimits: Sendable, Equatable {
  /// Largest image, in pixels, that is read or rendered (`--max-pixels`).
  public var maxPixels: Int
  /// Longest text, in Unicode scalars.
  public var maxTextLength: Int

  public init(maxPixels: Int = 100_000_000, maxTextLength: Int = 10_000) {
    self.maxPixels = maxPixels
    self.maxTextLength = maxTextLength
  }

  public static let `default` = RenderLimits()
}
