#if canImport(Glibc)
import Glibc
#endif

/// Limits that keep absurd requests from exhausting the machine, as ImageMagick's policy
/// limits do.
///
/// Each error that hits one names the option that raises it. Every size derived
/// from the options is checked here before anything of that size is allocated.
public struct RenderLimits: Sendable, Equatable {
  /// Largest image, in pixels, that is read or rendered (`--max-pixels`).
  public var maxPixels: Int
  /// Longest text, in Unicode scalars.
  public var maxTextLength: Int
  /// Most memory a render may need, in bytes (`--max-memory`), estimated from its pixel
  /// count at `bytesPerPixel`.
  public var maxMemory: Int

  /// Limits; the defaults are the command line's.
  public init(
    maxPixels: Int = 100_000_000, maxTextLength: Int = 10_000,
    maxMemory: Int = RenderLimits.defaultMemory
  ) {
    self.maxPixels = maxPixels
    self.maxTextLength = maxTextLength
    self.maxMemory = maxMemory
  }

  /// The command line's limits.
  public static let `default` = RenderLimits()

  /// Peak bytes per canvas pixel of a render before its sub-samples: the mask, distances,
  /// heights and slopes of the relief, the lookup map, the composite in Float RGBA, the encoded
  /// PNG and the laser outputs.
  ///
  /// Measured whole-process peaks of large renders with few edges
  /// are 40-45 bytes per pixel.
  public static let bytesPerPixel = 48

  /// Peak bytes per sub-sampled pixel (4 x 4 slopes, weights, lookups and their growth while
  /// built): edge, crease and bevel pixels.
  public static let bytesPerSampledPixel = 800

  /// What the process holds before any image: code, fonts, libraries (about 25 MiB).
  public static let baseBytes = 32 << 20

  /// Half of the machine's physical memory (8 GiB where it cannot be read).
  public static let defaultMemory: Int = {
    let pages = sysconf(Int32(_SC_PHYS_PAGES))
    let size = sysconf(Int32(_SC_PAGESIZE))
    guard pages > 0, size > 0 else { return 8 << 30 }
    let (bytes, overflow) = pages.multipliedReportingOverflow(by: size)
    return overflow ? Int.max / 2 : bytes / 2
  }()

  /// Throws unless a `width` x `height` image fits both limits (its memory estimated at
  /// `bytesPerPixel`).
  public func check(
    width: Int, height: Int, bytesPerPixel: Int = RenderLimits.bytesPerPixel,
    name: String = "the image"
  ) throws {
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    guard !overflow, width <= 1 << 20, height <= 1 << 20, pixels <= maxPixels else {
      throw EmbossError(
        "\(name) would be \(width)x\(height) pixels, over the limit of \(maxPixels) pixels (raise it with --max-pixels)"
      )
    }
    try checkMemory(
      pixels: pixels, what: "\(name) would be \(width)x\(height) pixels",
      bytesPerPixel: bytesPerPixel)
  }

  /// Throws when `pixels` would need more than the memory budget.
  public func checkMemory(
    pixels: Int, what: String, bytesPerPixel: Int = RenderLimits.bytesPerPixel
  ) throws {
    let (bytes, overflow) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
    guard !overflow, bytes <= maxMemory else {
      throw EmbossError(
        "\(what), which needs about \(Self.describe(bytes: overflow ? Int.max : bytes)) of memory, over the budget of \(Self.describe(bytes: maxMemory)) (raise it with --max-memory)"
      )
    }
  }

  /// "1.5 GiB", "300 MiB", "2.4 MiB", "640 KiB".
  public static func describe(bytes: Int) -> String {
    func format(_ value: Double, _ unit: String) -> String {
      value >= 10 ? "\(Int(value.rounded())) \(unit)" : "\((value * 10).rounded() / 10) \(unit)"
    }
    let value = Double(bytes)
    if value >= Double(1 << 30) { return format(value / Double(1 << 30), "GiB") }
    if value >= Double(1 << 20) { return format(value / Double(1 << 20), "MiB") }
    return format(value / Double(1 << 10), "KiB")
  }

  /// A size such as `8G`, `512M`, `64K` or a plain number of bytes; nil when malformed.
  public static func parseBytes(_ text: String) -> Int? {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
    var digits = Substring(text.uppercased())
    if digits.hasSuffix("IB") {
      digits = digits.dropLast(2)
    } else if digits.hasSuffix("B") {
      digits = digits.dropLast()
    }
    var factor = 1
    if let last = digits.last, let unit = units[last] {
      factor = unit
      digits = digits.dropLast()
    }
    guard let value = Double(digits), value.isFinite, value > 0 else { return nil }
    let bytes = value * Double(factor)
    guard bytes < Double(Int.max / 2) else { return nil }
    return Int(bytes)
  }
}
