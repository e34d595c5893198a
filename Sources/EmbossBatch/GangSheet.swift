import EmbossKit
import Foundation

/// Packs a batch's rows onto laser-bed-sized sheets, as LightBurn's grid array does: each
/// row's SVG (its engraving and cut line, in millimeters) is placed left to right in shelves
/// from the top, `gap` apart and from the sheet's edges, in row order; a row that does not fit
/// on the current sheet starts the next one.
///
/// Each sheet is one SVG in millimeters, with every row's
/// image and cut line in a group moved to its place (so they stay aligned), and a PNG preview
/// of the engravings at 4 pixels per millimeter. Only one sheet's rows are held at a time.
public final class GangSheetPacker {
  /// A placed row: its SVG's content, where it went and its size, in millimeters.
  struct Item {
    var row: Int
    var content: String
    var viewBox: (x: Double, y: Double, width: Double, height: Double)
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    var image: Data?
    /// The embedded engraving's width and height in the row's user units (nil: one unit a
    /// pixel, as SVGs in pixel units had).
    var imageSize: (width: Double, height: Double)?
  }

  /// The sheet's width in mm (the laser's bed).
  public let width: Double
  /// The sheet's height in mm.
  public let height: Double
  /// The space between engravings, and around the sheet's edge, in mm.
  public let gap: Double
  /// The sheets' SVG paths, with `{sheet}` (and any `{shard}`) fields.
  public let names: NameTemplate
  let shard: Int?
  private var items: [Item] = []
  private var sheet = 1
  private var cursor = (x: 0.0, y: 0.0, shelf: 0.0)
  /// The sheet files written so far.
  public private(set) var written: [String] = []

  /// Pixels per millimeter of the previews.
  static let previewScale = 4.0

  /// A sheet layout of `width` x `height` mm, with `gap` mm between pieces, files named by `names`,
  /// for shard `shard` (nil: no shard in the names).
  public init(width: Double, height: Double, gap: Double, names: NameTemplate, shard: Int?) {
    self.width = width
    self.height = height
    self.gap = gap
    self.names = names
    self.shard = shard
    cursor = (gap, gap, 0)
  }

  /// Places row `row`'s SVG (as emboss writes it: width and height in mm, a viewBox).
  ///
  /// The current sheet is written first when the row does not fit on it. Returns the
  /// sheet's number and the row's top-left corner on it, in millimeters.
  public func place(row: Int, svgPath: String) throws -> (
    sheet: Int, x: Double, y: Double
  ) {
    guard let data = FileManager.default.contents(atPath: svgPath),
      let text = String(data: data, encoding: .utf8)
    else { throw EmbossError("cannot read '\(svgPath)' for the sheet") }
    guard let item = Self.parse(text, row: row) else {
      throw EmbossError("'\(svgPath)' is not an SVG emboss wrote (no size in mm)")
    }
    guard item.width + 2 * gap <= width + 1e-9, item.height + 2 * gap <= height + 1e-9 else {
      throw EmbossError(
        String(
          format: "%.1f x %.1f mm with %.1f mm gaps does not fit on a %.1f x %.1f mm sheet",
          item.width, item.height, gap, width, height))
    }
    if cursor.x + item.width + gap > width + 1e-9 {
      cursor = (gap, cursor.y + cursor.shelf + gap, 0)
    }
    if cursor.y + item.height + gap > height + 1e-9 {
      try flush()
      sheet += 1
      cursor = (gap, gap, 0)
    }
    var placed = item
    placed.x = cursor.x
    placed.y = cursor.y
    items.append(placed)
    cursor.x += item.width + gap
    cursor.shelf = max(cursor.shelf, item.height)
    return (sheet, placed.x, placed.y)
  }

  /// Writes the current sheet, if it holds any rows: its SVG and its PNG preview.
  public func flush() throws {
    guard !items.isEmpty else { return }
    var values = ["sheet": String(sheet)]
    if let shard { values["shard"] = String(shard) }
    let path = try names.path(for: BatchRow(number: sheet, values: values))
    try FileManager.default.createDirectory(
      at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
    try OutputFile.write(Data(svg().utf8), to: path)
    let preview = (path.hasSuffix(".svg") ? String(path.dropLast(4)) : path) + ".png"
    try OutputFile.write(try previewPNG(), to: preview)
    written += [path, preview]
    items.removeAll()
  }

  /// Decimals of a row's scale, in millimeters per unit of its SVG.
  ///
  /// A row 2^20 units long moves by under 0.000001 mm.
  static let scaleDecimals = 12

  /// The sheet's SVG: 1 user unit = 1 mm, each row in a group scaled from its own units.
  ///
  /// Lengths and positions are written to `SVGNumber.millimeterDecimals` decimals and scales
  /// to `scaleDecimals`, so no length on the sheet is off by 0.001 mm.
  func svg() -> String {
    let n = SVGNumber.millimeters
    let scale = { SVGNumber.fixed($0, decimals: Self.scaleDecimals) }
    var out = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
      width="\(n(width))mm" height="\(n(height))mm" viewBox="0 0 \(n(width)) \(n(height))">

      """
    for item in items {
      let sx = item.width / item.viewBox.width
      let sy = item.height / item.viewBox.height
      let tx = item.x - item.viewBox.x * sx
      let ty = item.y - item.viewBox.y * sy
      out +=
        "  <g id=\"row-\(item.row)\" transform=\"translate(\(n(tx)) \(n(ty))) scale(\(scale(sx)) \(scale(sy)))\">\n"
      out += item.content
      out += "  </g>\n"
    }
    return out + "</svg>\n"
  }

  /// The engravings at `previewScale` pixels per millimeter, black on white.
  func previewPNG() throws -> Data {
    let scale = Self.previewScale
    let w = max(1, Int((width * scale).rounded()))
    let h = max(1, Int((height * scale).rounded()))
    var plane = Plane(width: w, height: h, pixels: [Float](repeating: 1, count: w * h))
    for item in items {
      guard let data = item.image,
        let samples = try? PNGCodec.decodeSamples(data)
      else { continue }
      // The image covers the row's canvas: (0, 0) to its width and height in its units.
      let sx = item.width / item.viewBox.width
      let sy = item.height / item.viewBox.height
      let left = (item.x - item.viewBox.x * sx) * scale
      let top = (item.y - item.viewBox.y * sy) * scale
      let pixelX = sx * scale * (item.imageSize.map { $0.width / Double(samples.width) } ?? 1)
      let pixelY = sy * scale * (item.imageSize.map { $0.height / Double(samples.height) } ?? 1)
      let x0 = max(0, Int(left.rounded(.down)))
      let y0 = max(0, Int(top.rounded(.down)))
      let x1 = min(w, Int((left + Double(samples.width) * pixelX).rounded(.up)))
      let y1 = min(h, Int((top + Double(samples.height) * pixelY).rounded(.up)))
      guard x0 < x1, y0 < y1 else { continue }
      for py in y0..<y1 {
        // The image pixels under this preview pixel (nearest rows and columns of the span).
        let sy0 = max(0, Int(((Double(py) - top) / pixelY).rounded(.down)))
        let sy1 = min(
          samples.height, max(sy0 + 1, Int(((Double(py + 1) - top) / pixelY).rounded(.up))))
        for px in x0..<x1 {
          let sx0 = max(0, Int(((Double(px) - left) / pixelX).rounded(.down)))
          let sx1 = min(
            samples.width, max(sx0 + 1, Int(((Double(px + 1) - left) / pixelX).rounded(.up))))
          guard sx0 < sx1, sy0 < sy1 else { continue }
          var sum = 0.0
          for yy in sy0..<sy1 {
            for xx in sx0..<sx1 {
              let i = (yy * samples.width + xx) * 4
              // Gray over white by alpha (1-bit PNGs are opaque).
              let gray = Double(samples.rgba[i]) / 65535
              let alpha = Double(samples.rgba[i + 3]) / 65535
              sum += gray * alpha + (1 - alpha)
            }
          }
          plane[px, py] = Float(sum / Double((sx1 - sx0) * (sy1 - sy0)))
        }
      }
    }
    return try PNGCodec.encodeGray(
      plane, pixelsPerMeter: UInt32((scale * 1000).rounded()))
  }

  /// The parts of an SVG emboss wrote that a sheet needs: the root's size in mm and viewBox,
  /// what is inside the root, and the embedded engraving.
  static func parse(_ text: String, row: Int) -> Item? {
    guard let open = text.range(of: "<svg"),
      let close = text.range(of: ">", range: open.upperBound..<text.endIndex),
      let end = text.range(of: "</svg>", options: .backwards)
    else { return nil }
    let root = String(text[open.upperBound..<close.lowerBound])
    func attribute(_ name: String) -> String? {
      guard let start = root.range(of: " \(name)=\"") else { return nil }
      guard let stop = root.range(of: "\"", range: start.upperBound..<root.endIndex) else {
        return nil
      }
      return String(root[start.upperBound..<stop.lowerBound])
    }
    // A length in mm, and half a unit of its last decimal: how far from the true one it may be.
    func millimeters(_ name: String) -> (value: Double, error: Double)? {
      guard let text = attribute(name), text.hasSuffix("mm"), let value = Double(text.dropLast(2))
      else { return nil }
      let decimals = text.dropLast(2).split(separator: ".").dropFirst().first?.count ?? 0
      return (value, 0.5 * pow(10, -Double(decimals)))
    }
    guard let w = millimeters("width"), let h = millimeters("height"),
      let box = attribute("viewBox")?.split(separator: " ").compactMap({ Double($0) }),
      box.count == 4, box[2] > 0, box[3] > 0
    else { return nil }
    let size = exactSize(width: w, height: h, units: (box[2], box[3]))
    let content = String(text[close.upperBound..<end.lowerBound])
    var image: Data?
    var imageSize: (width: Double, height: Double)?
    if let tag = content.range(of: "<image ") {
      let element = content[tag.upperBound...].prefix { $0 != ">" }
      func number(_ name: String) -> Double? {
        guard let start = element.range(of: " \(name)=\"") else { return nil }
        return Double(element[start.upperBound...].prefix { $0 != "\"" })
      }
      if let w = number("width"), let h = number("height"), w > 0, h > 0 { imageSize = (w, h) }
    }
    if let start = content.range(of: "href=\"data:image/png;base64,") {
      if let stop = content.range(of: "\"", range: start.upperBound..<content.endIndex) {
        image = Data(base64Encoded: String(content[start.upperBound..<stop.lowerBound]))
      }
    }
    return Item(
      row: row, content: content.hasPrefix("\n") ? String(content.dropFirst()) : content,
      viewBox: (box[0], box[1], box[2], box[3]), x: 0, y: 0, width: size.width,
      height: size.height, image: image, imageSize: imageSize)
  }

  /// A row's size in mm, undoing the rounding of its written size where its DPI is known.
  ///
  /// emboss writes a row's width and height in mm rounded (84.666667 for 1000 px at
  /// 300 dpi); its scale is 25.4 / DPI exactly. The DPI read back from the width, to three
  /// decimals, is taken when it gives both the width and the height as written: the row is
  /// then its units times 25.4 / DPI, the same scale across and down, and its neighbours'
  /// gaps are exact. Otherwise the size is as written.
  static func exactSize(
    width: (value: Double, error: Double), height: (value: Double, error: Double),
    units: (width: Double, height: Double)
  ) -> (width: Double, height: Double) {
    let dpi = (25.4 * units.width / width.value * 1000).rounded() / 1000
    let scale = 25.4 / dpi
    guard dpi > 0, dpi.isFinite,
      abs(units.width * scale - width.value) <= width.error + 1e-9,
      abs(units.height * scale - height.value) <= height.error + 1e-9
    else { return (width.value, height.value) }
    return (units.width * scale, units.height * scale)
  }
}
