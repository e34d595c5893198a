import EmbossRaster
import EmbossSupport
import Foundation

/// One SVG file a laser program opens at the right size: the engrave bitmap as an embedded
/// PNG, and the cut line as an unfilled stroked path.
///
/// Its user unit is the millimeter: `width` and `height` are in millimeters, with a matching
/// `viewBox`, and every coordinate is written in millimeters with `decimals` decimals, so no
/// point moves by more than 0.00005 mm and no length changes by more than 0.0001 mm, however
/// large the sheet (six significant digits would move points on a 600 mm sheet by 0.001 mm).
public enum SVGDocument {
  /// The cut line's default color: red, what laser software reads as "cut" by default.
  public static let cutColor = "#ff0000"
  /// The cut line's default width in millimeters: a hairline.
  public static let cutWidthMM = 0.1
  /// The scored ink outline's color: blue, a third layer after black (engrave) and red.
  public static let scoreColor = "#0000ff"
  /// Decimals of every number written, in millimeters.
  public static let decimals = 4

  /// How the ink's outline is written as vectors, besides the bitmap.
  public enum InkVectors: String, Sendable, CaseIterable {
    /// Filled black: laser software engraves it as a vector fill.
    case fill
    /// Stroked in `scoreColor`: scored (a light cut along the letters' edges).
    case score
  }

  /// The SVG document's text for an engraving: its picture, the cut line and the ink as vectors,
  /// sized in millimeters.
  public static func make(
    canvasWidth: Int, canvasHeight: Int, image: Data?, cut: [ClosedCurve], dpi: Double,
    cutColor: String = cutColor, cutWidthMM: Double = cutWidthMM,
    ink: [ClosedCurve] = [], inkVectors: InkVectors? = nil
  ) -> String {
    // The view covers the canvas and every curve (an offset cut may leave the canvas).
    var minX = 0.0
    var minY = 0.0
    var maxX = Double(canvasWidth)
    var maxY = Double(canvasHeight)
    for curve in cut + ink {
      for p in [curve.start] + curve.segments.flatMap({ [$0.0, $0.1, $0.2] }) {
        minX = min(minX, p.x.rounded(.down))
        minY = min(minY, p.y.rounded(.down))
        maxX = max(maxX, p.x.rounded(.up))
        maxY = max(maxY, p.y.rounded(.up))
      }
    }
    let width = maxX - minX
    let height = maxY - minY
    let mm = 25.4 / dpi
    /// A length in pixels, written in millimeters.
    func number(_ v: Double) -> String {
      let s = String(format: "%.\(decimals)f", v * mm)
      return Double(s) == 0 ? String(format: "%.\(decimals)f", 0.0) : s
    }
    var svg = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
      width="\(number(width))mm" height="\(number(height))mm" \
      viewBox="\(number(minX)) \(number(minY)) \(number(width)) \(number(height))">

      """
    if let image {
      let href = "data:image/png;base64," + image.base64EncodedString()
      svg += """
          <image x="0" y="0" width="\(number(Double(canvasWidth)))" height="\(number(Double(canvasHeight)))" \
        preserveAspectRatio="none" style="image-rendering:pixelated" href="\(href)" xlink:href="\(href)"/>

        """
    }
    func point(_ p: SIMD2<Double>) -> String { "\(number(p.x)),\(number(p.y))" }
    func pathData(_ curves: [ClosedCurve]) -> String {
      var d = ""
      for curve in curves {
        d += "M\(point(curve.start))"
        var from = curve.start
        for (c1, c2, p) in curve.segments {
          if ClosedCurve.isLine(from, c1, c2, p) {
            d += " L\(point(p))"
          } else {
            d += " C\(point(c1)) \(point(c2)) \(point(p))"
          }
          from = p
        }
        d += " Z "
      }
      return d.trimmingCharacters(in: .whitespaces)
    }
    let stroke = String(format: "%.\(decimals)f", cutWidthMM)
    if let inkVectors, !ink.isEmpty {
      switch inkVectors {
      case .fill:
        svg += """
            <path id="ink" d="\(pathData(ink))" fill="#000000" fill-rule="evenodd" stroke="none"/>

          """
      case .score:
        svg += """
            <path id="ink" d="\(pathData(ink))" fill="none" fill-rule="evenodd" stroke="\(scoreColor)" stroke-width="\(stroke)"/>

          """
      }
    }
    if !cut.isEmpty {
      svg += """
          <path id="cut" d="\(pathData(cut))" fill="none" fill-rule="evenodd" stroke="\(cutColor)" stroke-width="\(stroke)"/>

        """
    }
    return svg + "</svg>\n"
  }
}
