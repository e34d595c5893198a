import EmbossRaster
import EmbossSupport
import Foundation

/// Compares two images sample by sample, with a tolerance: the one comparison behind the
/// project's snapshot tests (and users' own).
///
/// Differences are measured on the stored samples (sRGB-encoded for color files) in 8-bit
/// levels: a 16-bit difference d counts as d / 257 levels.
public struct ImageDiff: Sendable {
  /// The result of a comparison.
  public struct Report: Sendable, Equatable {
    /// The images' width in pixels.
    public var width: Int
    /// The images' height in pixels.
    public var height: Int
    /// Pixels with some channel more than `tolerance` levels off.
    public var badPixels: Int
    /// The largest difference of any channel, in 8-bit levels, and where it is.
    public var worstDifference: Double
    /// The column of the worst difference.
    public var worstX: Int
    /// The row of the worst difference.
    public var worstY: Int
    /// Peak signal-to-noise ratio over all channels in dB; infinite for identical images.
    public var psnr: Double
    /// Pixels beyond the tolerance forgiven as anti-aliasing.
    public var antialiasedPixels: Int = 0
    /// Pixels left out by `Options.ignore`.
    public var ignoredPixels: Int = 0
    /// The first forgiven pixels, row by row, and why: at most `forgivenListLimit` of the
    /// `antialiasedPixels`.
    public var forgivenPixels: [ForgivenPixel] = []

    /// Bad pixels over the pixels compared (ignored ones left out).
    public var badFraction: Double {
      let compared = width * height - ignoredPixels
      return compared <= 0 ? 0 : Double(badPixels) / Double(compared)
    }

    /// One line: the bad pixels, the worst difference and where, and the PSNR.
    public var summary: String {
      let psnrText = psnr.isInfinite ? "inf" : String(format: "%.2f", psnr)
      var text = String(
        format:
          "%d of %d pixels differ beyond tolerance (%.4f%%); worst channel difference %.2f levels at (%d, %d); PSNR %@ dB",
        badPixels, width * height - ignoredPixels, badFraction * 100, worstDifference, worstX,
        worstY, psnrText)
      if antialiasedPixels > 0 { text += "; \(antialiasedPixels) forgiven as anti-aliasing" }
      if ignoredPixels > 0 { text += "; \(ignoredPixels) ignored" }
      return text
    }

    /// How many forgiven pixels a report lists (`antialiasedPixels` counts them all).
    public static let forgivenListLimit = 1000

    /// The report as JSON (`psnr` null for identical images).
    ///
    /// `forgivenPixels` lists the first forgiven pixels as `{"x", "y", "reason"}` objects;
    /// `forgivenPixelsOmitted` counts the forgiven pixels left off that list.
    public func json(options: Options, maxBadFraction: Double) -> String {
      let psnrText = psnr.isInfinite ? "null" : String(format: "%.4f", psnr)
      let match = badFraction <= maxBadFraction
      let forgivenText = forgivenPixels.map {
        "{\"x\":\($0.x),\"y\":\($0.y),\"reason\":\"\($0.reason.rawValue)\"}"
      }.joined(separator: ",")
      return
        "{\"width\":\(width),\"height\":\(height),\"pixels\":\(width * height - ignoredPixels),"
        + "\"badPixels\":\(badPixels),\"badFraction\":\(String(format: "%.8f", badFraction)),"
        + "\"antialiasedPixels\":\(antialiasedPixels),\"ignoredPixels\":\(ignoredPixels),"
        + "\"worstDifference\":\(String(format: "%.4f", worstDifference)),\"worstX\":\(worstX),"
        + "\"worstY\":\(worstY),\"psnr\":\(psnrText),\"tolerance\":\(options.tolerance),"
        + "\"maxBadFraction\":\(maxBadFraction),\"match\":\(match),"
        + "\"forgivenPixels\":[\(forgivenText)],"
        + "\"forgivenPixelsOmitted\":\(antialiasedPixels - forgivenPixels.count)}"
    }
  }

  /// A pixel beyond the tolerance that was forgiven, and why.
  public struct ForgivenPixel: Sendable, Equatable {
    /// Which image's pixel looks anti-aliased.
    public enum Reason: String, Sendable {
      /// Anti-aliased in the expected image.
      case antialiasedInExpected = "antialiased in expected"
      /// Anti-aliased in the actual image (and not in the expected one).
      case antialiasedInActual = "antialiased in actual"
    }

    /// The pixel's column.
    public var x: Int
    /// The pixel's row.
    public var y: Int
    /// Why it was forgiven.
    public var reason: Reason

    /// A forgiven pixel.
    public init(x: Int, y: Int, reason: Reason) {
      self.x = x
      self.y = y
      self.reason = reason
    }
  }

  /// How two pictures are compared.
  public struct Options: Sendable, Equatable {
    /// Largest channel difference that still matches, in 8-bit levels.
    public var tolerance: Double
    /// A pixel beyond the tolerance still matches when it looks anti-aliased in either image.
    ///
    /// The test is pixelmatch's (`isAntialiased(x:y:in:other:)`), asked of the expected image
    /// and then of the actual one: an edge anti-aliased differently matches, a picture moved
    /// by a whole pixel does not.
    public var antialiasing: Bool
    /// Rectangles left out of the comparison (a date, a version number).
    public var ignore: [PixelRect]

    /// Options; the defaults compare exactly.
    public init(tolerance: Double = 0, antialiasing: Bool = false, ignore: [PixelRect] = []) {
      self.tolerance = tolerance
      self.antialiasing = antialiasing
      self.ignore = ignore
    }
  }

  /// What became of each pixel.
  public enum Verdict: UInt8, Sendable {
    case equal
    /// Different, within the tolerance.
    case close
    case bad
    /// Beyond the tolerance, forgiven as anti-aliasing.
    case antialiased
    case ignored
  }

  /// Each pixel's verdict, row by row (same sizes only).
  public static func verdicts(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options
  ) -> [Verdict] {
    judge(expected: expected, actual: actual, options: options, listing: 0).verdicts
  }

  /// Each pixel's verdict, and the first `listing` forgiven pixels with their reasons.
  static func judge(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options, listing: Int
  ) -> (verdicts: [Verdict], forgiven: [ForgivenPixel]) {
    let w = expected.width
    let h = expected.height
    // The largest channel difference between the two images' pixel i, in levels; two fully
    // transparent pixels are equal whatever color they hide.
    func difference(_ i: Int) -> Double {
      if expected.rgba[4 * i + 3] == 0 && actual.rgba[4 * i + 3] == 0 { return 0 }
      var worst = 0
      for c in 0..<4 {
        worst = max(worst, abs(Int(expected.rgba[4 * i + c]) - Int(actual.rgba[4 * i + c])))
      }
      return Double(worst) / 257
    }
    var out = [Verdict](repeating: .equal, count: w * h)
    var forgiven: [ForgivenPixel] = []
    for y in 0..<h {
      for x in 0..<w {
        let i = y * w + x
        if options.ignore.contains(where: { $0.contains(x: x, y: y) }) {
          out[i] = .ignored
          continue
        }
        let d = difference(i)
        if d == 0 { continue }
        if d <= options.tolerance {
          out[i] = .close
          continue
        }
        out[i] = .bad
        guard options.antialiasing else { continue }
        let reason: ForgivenPixel.Reason
        if isAntialiased(x: x, y: y, in: expected, other: actual) {
          reason = .antialiasedInExpected
        } else if isAntialiased(x: x, y: y, in: actual, other: expected) {
          reason = .antialiasedInActual
        } else {
          continue
        }
        out[i] = .antialiased
        if forgiven.count < listing { forgiven.append(ForgivenPixel(x: x, y: y, reason: reason)) }
      }
    }
    return (out, forgiven)
  }

  /// Whether the pixel at (x, y) of `image` looks anti-aliased, by pixelmatch's test.
  ///
  /// The test follows Vysniauskas's "Anti-aliased pixel and intensity slope detector" (2009).
  /// The pixel is anti-aliased when, among its 8 neighbours in `image`, at most 2 have its
  /// brightness (YIQ's Y, over white), some are darker and some brighter, and the darkest or
  /// the brightest has at least 3 identical neighbours ("siblings") in `image` and in
  /// `other` alike: it sits on a slope next to a flat region that both images share. As
  /// in pixelmatch, a pixel on the border counts the outside as one equal neighbour, and
  /// the first darkest (brightest) neighbour in pixelmatch's order, column by column, is
  /// the one checked. Both images have `image`'s size.
  public static func isAntialiased(
    x: Int, y: Int, in image: PNGCodec.Samples, other: PNGCodec.Samples
  ) -> Bool {
    let w = image.width
    let h = image.height
    let x0 = max(0, x - 1)
    let x1 = min(w - 1, x + 1)
    let y0 = max(0, y - 1)
    let y1 = min(h - 1, y + 1)
    let center = brightness(image, y * w + x)
    var equal = x == 0 || y == 0 || x == w - 1 || y == h - 1 ? 1 : 0
    var darkest: (delta: Double, index: Int)?
    var brightest: (delta: Double, index: Int)?
    for nx in x0...x1 {
      for ny in y0...y1 where nx != x || ny != y {
        let n = ny * w + nx
        let delta = brightness(image, n) - center
        if delta == 0 {
          equal += 1
          if equal > 2 { return false }
        } else if delta < (darkest?.delta ?? 0) {
          darkest = (delta, n)
        } else if delta > (brightest?.delta ?? 0) {
          brightest = (delta, n)
        }
      }
    }
    guard let darkest, let brightest else { return false }
    func settled(_ n: Int) -> Bool {
      hasManySiblings(n, in: image) && hasManySiblings(n, in: other)
    }
    return settled(darkest.index) || settled(brightest.index)
  }

  /// A pixel's brightness: YIQ's Y of its color over white (straight alpha), in 16-bit units.
  static func brightness(_ image: PNGCodec.Samples, _ i: Int) -> Double {
    let alpha = Double(image.rgba[4 * i + 3]) / 65535
    func blended(_ c: Int) -> Double { 65535 + (Double(image.rgba[4 * i + c]) - 65535) * alpha }
    return 0.298_895_31 * blended(0) + 0.586_622_47 * blended(1) + 0.114_482_23 * blended(2)
  }

  /// Whether pixel `i` has at least 3 identical neighbours (the outside counting as one on the
  /// border); two fully transparent pixels are identical.
  static func hasManySiblings(_ i: Int, in image: PNGCodec.Samples) -> Bool {
    let w = image.width
    let h = image.height
    let x = i % w
    let y = i / w
    func same(_ n: Int) -> Bool {
      if image.rgba[4 * i + 3] == 0 && image.rgba[4 * n + 3] == 0 { return true }
      return (0..<4).allSatisfy { image.rgba[4 * i + $0] == image.rgba[4 * n + $0] }
    }
    var siblings = x == 0 || y == 0 || x == w - 1 || y == h - 1 ? 1 : 0
    for nx in max(0, x - 1)...min(w - 1, x + 1) {
      for ny in max(0, y - 1)...min(h - 1, y + 1) where (nx != x || ny != y) && same(ny * w + nx) {
        siblings += 1
        if siblings > 2 { return true }
      }
    }
    return false
  }

  /// The JSON object `diff --json` prints for images of different sizes (which are not
  /// compared): `match` false, the reason, and both sizes.
  public static func sizeMismatchJSON(
    expected: (width: Int, height: Int), actual: (width: Int, height: Int)
  ) -> String {
    "{\"match\":false,\"error\":\"sizes differ\","
      + "\"expected\":{\"width\":\(expected.width),\"height\":\(expected.height)},"
      + "\"actual\":{\"width\":\(actual.width),\"height\":\(actual.height)}}"
  }

  /// Compares equal-sized sample sets.
  ///
  /// Returns nil when sizes differ.
  public static func compare(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, tolerance: Double
  ) -> Report? {
    compare(expected: expected, actual: actual, options: Options(tolerance: tolerance))
  }

  /// Compares equal-sized sample sets with `options`; nil when sizes differ.
  public static func compare(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options
  ) -> Report? {
    guard expected.width == actual.width, expected.height == actual.height else { return nil }
    let (verdicts, forgivenList) = judge(
      expected: expected, actual: actual, options: options, listing: Report.forgivenListLimit)
    var bad = 0
    var forgiven = 0
    var ignored = 0
    var worst = 0.0
    var worstIndex = 0
    var squared = 0.0
    let count = expected.width * expected.height
    for i in 0..<count {
      switch verdicts[i] {
      case .ignored:
        ignored += 1
        continue
      case .bad: bad += 1
      case .antialiased: forgiven += 1
      case .equal, .close: break
      }
      if expected.rgba[4 * i + 3] == 0 && actual.rgba[4 * i + 3] == 0 { continue }
      var pixelWorst = 0.0
      for c in 0..<4 {
        let d = abs(Double(expected.rgba[4 * i + c]) - Double(actual.rgba[4 * i + c])) / 257
        squared += d * d
        pixelWorst = max(pixelWorst, d)
      }
      if pixelWorst > worst {
        worst = pixelWorst
        worstIndex = i
      }
    }
    let compared = count - ignored
    let mse = compared == 0 ? 0 : squared / Double(compared * 4)
    let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
    return Report(
      width: expected.width, height: expected.height, badPixels: bad, worstDifference: worst,
      worstX: count == 0 ? 0 : worstIndex % expected.width,
      worstY: count == 0 ? 0 : worstIndex / expected.width, psnr: psnr,
      antialiasedPixels: forgiven, ignoredPixels: ignored, forgivenPixels: forgivenList)
  }

  /// The differences alone, at the images' size, as 8-bit RGBA samples.
  ///
  /// Beyond the tolerance red, forgiven as anti-aliasing yellow, within the tolerance dark
  /// orange, ignored blue, equal a dimmed gray copy of the expected image.
  public static func differences(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options
  ) -> [UInt8] {
    let verdicts = verdicts(expected: expected, actual: actual, options: options)
    var out = [UInt8](repeating: 255, count: verdicts.count * 4)
    for (i, verdict) in verdicts.enumerated() {
      let rgb: (UInt8, UInt8, UInt8)
      switch verdict {
      case .bad: rgb = (255, 0, 0)
      case .antialiased: rgb = (255, 220, 0)
      case .close: rgb = (160, 80, 0)
      case .ignored: rgb = (40, 60, 160)
      case .equal:
        let e = expected.rgba[(4 * i)..<(4 * i + 4)].map { Int($0 >> 8) }
        let gray = UInt8((e[0] + e[1] + e[2]) / 3 * e[3] / 255 / 3)
        rgb = (gray, gray, gray)
      }
      (out[4 * i], out[4 * i + 1], out[4 * i + 2]) = rgb
    }
    return out
  }

  /// `differences` as an 8-bit PNG.
  public static func differencesPNG(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options
  ) throws -> Data {
    try PNGCodec.encodeRaw(
      differences(expected: expected, actual: actual, options: options), width: expected.width,
      height: expected.height, channels: 4, bitDepth: 8, compression: PNGCodec.defaultCompression,
      pixelsPerMeter: 0, srgb: true)
  }

  /// A picture of the comparison: expected | differences | actual, side by side.
  ///
  /// The middle panel is `differences` (magenta where one image is larger). 8-bit RGBA.
  public static func picture(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options
  ) -> (width: Int, height: Int, rgba: [UInt8]) {
    let w = max(expected.width, actual.width)
    let h = max(expected.height, actual.height)
    let outWidth = 3 * w
    var out = [UInt8](repeating: 0, count: outWidth * h * 4)
    let same = expected.width == actual.width && expected.height == actual.height
    let middle = same ? differences(expected: expected, actual: actual, options: options) : []
    for y in 0..<h {
      for x in 0..<w {
        for (panel, s) in [(0, expected), (2, actual)] where x < s.width && y < s.height {
          let i = 4 * (y * s.width + x)
          let o = 4 * (y * outWidth + panel * w + x)
          for c in 0..<4 { out[o + c] = UInt8(s.rgba[i + c] >> 8) }
        }
        let o = 4 * (y * outWidth + w + x)
        if same {
          let i = 4 * (y * w + x)
          for c in 0..<4 { out[o + c] = middle[i + c] }
        } else {
          (out[o], out[o + 1], out[o + 2], out[o + 3]) = (255, 0, 255, 255)
        }
      }
    }
    return (outWidth, h, out)
  }

  /// `picture` encoded as an 8-bit PNG.
  public static func picturePNG(
    expected: PNGCodec.Samples, actual: PNGCodec.Samples, options: Options
  ) throws -> Data {
    let p = picture(expected: expected, actual: actual, options: options)
    return try PNGCodec.encodeRaw(
      p.rgba, width: p.width, height: p.height, channels: 4, bitDepth: 8,
      compression: PNGCodec.defaultCompression, pixelsPerMeter: 0, srgb: true)
  }
}
