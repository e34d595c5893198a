import EmbossRaster
import EmbossSupport
import Foundation

/// One SVG file a laser program opens at the right size: the engrave bitmap as an embedded
/// PNG, and the cut line as an unfilled stroked path, both in canvas pixels.
///
/// `width` and
/// `height` are in millimeters at the given DPI, with a matching `viewBox`, so 1 user unit is
/// one pixel and the image and the path line up exactly.
public enum SVGDocument {
  /// The cut line's color: red, what laser software reads as "cut" by default.
  static let stroke = "#ff0000"
  /// The cut line's width in millimeters: a hairline.
  static let strokeWidthMM = 0.1

  public static func make(
    canvasWidth: Int, canvasHeight: Int, image: Data?, cut: [ClosedCurve], dpi: Double
  ) -> String {
    // The view covers the canvas and every curve (an offset cut may leave the canvas).
    var minX = 0.0
    var minY = 0.0
    var maxX = Double(canvasWidth)
    var maxY = Double(canvasHeight)
    for curve in cut {
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
    func number(_ v: Double) -> String {
      let s = String(format: "%.3f", v)
      var trimmed = s
      while trimmed.hasSuffix("0") { trimmed.removeLast() }
      if trimmed.hasSuffix(".") { trimmed.removeLast() }
      return trimmed == "-0" ? "0" : trimmed
    }
    var svg = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
      width="\(number(width * mm))mm" height="\(number(height * mm))mm" \
      viewBox="\(number(minX)) \(number(minY)) \(number(width)) \(number(height))">

      """
    if let image {
      let href = "data:image/png;base64," + image.base64EncodedString()
      svg += """
          <image x="0" y="0" width="\(canvasWidth)" height="\(canvasHeight)" \
        preserveAspectRatio="none" style="image-rendering:pixelated" href="\(href)" xlink:href="\(href)"/>

        """
    }
    if !cut.isEmpty {
      var d = ""
      for curve in cut {
        d += "M\(number(curve.start.x)),\(number(curve.start.y))"
        for (c1, c2, p) in curve.segments {
          d +=
            " C\(number(c1.x)),\(number(c1.y)) \(number(c2.x)),\(number(c2.y)) \(number(p.x)),\(number(p.y))"
        }
        d += " Z "
      }
      svg += """
          <path d="\(d.trimmingCharacters(in: .whitespaces))" fill="none" fill-rule="evenodd" stroke="\(stroke)" stroke-width="\(number(strokeWidthMM / mm))"/>

        """
    }
    return svg + "</svg>\n"
  }
}
