import EmbossGeometry
import EmbossModel
import EmbossRaster
import EmbossRelief
import EmbossSupport

/// The letters' shadow, as Photoshop's Drop Shadow and Inner Shadow draw it: the ink's
/// coverage moved away from the light by `distance`, blurred by `softness` (a Gaussian, as
/// three box blurs), in the shadow's color at its opacity.
///
/// A raised relief casts it on what it stands on: under the letters, seen where their
/// coverage is below 1 and around them. A lowered relief's walls cast it into the letters:
/// the plate around them, moved and blurred the same way, darkens their floor.
public enum DropShadow {
  /// `image` (the composited picture over `background`) with `shadow` drawn, falling in
  /// `direction` (a unit vector in image coordinates, or zero: straight down into the
  /// picture, blur alone).
  ///
  /// The picture's content grows to hold the shadow (within the canvas); the letters' own
  /// pixels are unchanged where a raised relief's coverage is 1.
  public static func apply(
    to image: CanvasImage, mask: CoverageMask, shadow: ShadowSpec, direction: SIMD2<Float>,
    lowered: Bool, background: Background, parallelism: Parallelism = .allCores
  ) -> CanvasImage {
    let canvas = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
    guard
      let layer = Layer(
        mask: mask, shadow: shadow, direction: direction, lowered: lowered,
        background: background, canvas: canvas, parallelism: parallelism)
    else { return image }
    let content = layer.content(image.contentRect, canvas: canvas)
    let window = mask.window
    return mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
      let coverage = UnsafeBufferPointerBox(coverage)
      return layer.withView { view in
        let view = UncheckedSendable(view)
        return image.recomposited(over: content, parallelism: parallelism) { p, x, y in
          let a =
            window.contains(x: x, y: y)
            ? coverage.buffer[(y - window.y) * window.width + x - window.x] : 0
          return view.value.pixel(p, coverage: a, x: x, y: y)
        }
      }
    }
  }

  /// The shadow as a layer: its alpha over the canvas and how it changes a pixel of the
  /// picture, for `apply`, or for a compositor that draws it as it stores each pixel (an
  /// 8-bit picture's codes, made without a float picture: the same bytes).
  public struct Layer: Sendable {
    /// Where the alpha is held: the moved ink's pixels and as far as its blur reaches (0
    /// outside).
    public let field: PixelRect
    /// The moved, blurred ink over `field`, row-major.
    let alpha: [Float]
    let color: SIMD3<Float>
    let opacity: Float
    let lowered: Bool
    /// The background's color when it is opaque.
    let opaque: SIMD3<Float>?

    /// The layer of `shadow` cast by `mask`'s ink on a picture over `background` (see
    /// `apply`); nil where it draws nothing (invisible, or no ink on `canvas`).
    public init?(
      mask: CoverageMask, shadow: ShadowSpec, direction: SIMD2<Float>, lowered: Bool,
      background: Background, canvas: PixelRect, parallelism: Parallelism = .allCores
    ) {
      let ink = mask.inkBounds.intersection(canvas)
      guard shadow.isVisible, !ink.isEmpty else { return nil }
      let offset = direction * shadow.distance
      let boxes = boxRadii(sigma: shadow.softness)
      let reach = boxes.reduce(0, +) + 1
      // Where the moved ink can be, and where its blur reaches.
      let moved = PixelRect(
        x: ink.x + Int(offset.x.rounded(.down)), y: ink.y + Int(offset.y.rounded(.down)),
        width: ink.width + 1, height: ink.height + 1)
      let field = moved.grown(by: reach)
      // The shadow's alpha over `field` (outside it the moved, blurred ink is 0): on a finer
      // grid for small text, else on the pixels.
      var alpha: [Float]
      if let fine = fineAlpha(
        mask, offset: offset, softness: shadow.softness, over: field, lowered: lowered,
        parallelism: parallelism)
      {
        alpha = fine
      } else {
        alpha = movedCoverage(mask, offset: offset, over: field, parallelism: parallelism)
        blur(
          &alpha, width: field.width, height: field.height, radii: boxes,
          parallelism: parallelism)
      }
      self.field = field
      self.alpha = alpha
      color = shadow.color
      opacity = shadow.opacity
      self.lowered = lowered
      opaque = if case .color(let c) = background { c } else { nil }
    }

    /// The content of a picture whose content is `content`, grown to hold the shadow
    /// (within `canvas`): a raised relief's shadow shows around the letters, a lowered
    /// one's only inside them.
    public func content(_ content: PixelRect, canvas: PixelRect) -> PixelRect {
      lowered ? content : content.union(field.intersection(canvas))
    }

    /// Calls `body` with a raw view of `layer`, or nil without one.
    static func withView<R>(of layer: Layer?, _ body: (View?) -> R) -> R {
      guard let layer else { return body(nil) }
      return layer.withView { body($0) }
    }

    /// Calls `body` with a raw view of the layer.
    func withView<R>(_ body: (View) -> R) -> R {
      alpha.withUnsafeBufferPointer { alpha in
        body(
          View(
            alpha: alpha, field: field, color: color, opacity: opacity, lowered: lowered,
            opaque: opaque))
      }
    }

    /// A layer's raw view, for an inner loop (valid inside `withView` only).
    struct View {
      let alpha: UnsafeBufferPointer<Float>
      let field: PixelRect
      let color: SIMD3<Float>
      let opacity: Float
      let lowered: Bool
      let opaque: SIMD3<Float>?

      /// Pixel `p` of the picture (straight alpha), whose ink coverage is `a`, at canvas
      /// position (`x`, `y`), with the shadow drawn.
      @inline(__always)
      func pixel(_ p: SIMD4<Float>, coverage a: Float, x: Int, y: Int) -> SIMD4<Float> {
        let moved =
          field.contains(x: x, y: y) ? alpha[(y - field.y) * field.width + x - field.x] : 0
        if lowered {
          // The plate (1 - ink), moved and blurred, over the letters' floor.
          let s = opacity * (1 - moved)
          if a <= 0 || s <= 0 { return p }
          if let background = opaque {
            let rgb = SIMD3(p.x, p.y, p.z)
            let under = background * (1 - a)
            return SIMD4(rgb * (1 - s) + (color * a + under) * s, 1)
          }
          return SIMD4(SIMD3(p.x, p.y, p.z) * (1 - s) + color * s, p.w)
        }
        let s = opacity * moved * (1 - a)
        if s <= 0 { return p }
        if let background = opaque {
          return SIMD4(SIMD3(p.x, p.y, p.z) + (color - background) * s, 1)
        }
        // The letters (straight alpha) over the shadow.
        let w = p.w + s
        return SIMD4((SIMD3(p.x, p.y, p.z) * p.w + color * s) / w, w)
      }
    }
  }

  /// How many times finer than the pixels a small mask's shadow is made (`fineAlpha`).
  static let fineScale = HeightField.fineScale
  /// The most pixels a shadow's field may have to be made on the finer grid.
  static let finePixels = 1 << 15

  /// The shadow's alpha over `rect` as a render `fineScale` times the size makes it, seen at
  /// this size; nil where the mask has no outline or `rect` is over `finePixels`.
  ///
  /// The outline, moved by `offset`, is rasterized exactly on the finer grid and blurred
  /// there by `softness` (in pixels). Each pixel then takes the mean of its nodes over the
  /// part of it the shadow falls on: its ink's (weighted by the ink in each node) for a
  /// lowered relief, whose walls shade the floor, its ground's for a raised one, whose
  /// shadow falls beside the letters. On the pixel grid the moved coverage was shared by
  /// the whole pixel and interpolated between centers: small carved text (stone at 16 px)
  /// had its edge pixels shaded twice over, 1x against 4x 2 dB lower than without a shadow.
  static func fineAlpha(
    _ mask: CoverageMask, offset: SIMD2<Float>, softness: Float, over rect: PixelRect,
    lowered: Bool, parallelism: Parallelism
  ) -> [Float]? {
    guard let outline = mask.outline, rect.width * rect.height <= finePixels else { return nil }
    let n = fineScale
    let scale = Float(n)
    let fine = PixelRect(
      x: rect.x * n, y: rect.y * n, width: rect.width * n, height: rect.height * n)
    let grown = outline.scaled(by: scale)
    let ink = grown.areaCoverage(region: fine).pixels
    var moved = grown.translated(by: offset * scale).areaCoverage(region: fine).pixels
    blur(
      &moved, width: fine.width, height: fine.height, radii: boxRadii(sigma: softness * scale),
      parallelism: parallelism)
    var alpha = [Float](repeating: 0, count: rect.width * rect.height)
    moved.withUnsafeBufferPointer { moved in
      let moved = UnsafeBufferPointerBox(moved)
      alpha.withUnsafeMutableBufferPointer { alpha in
        let alpha = SharedPointer(alpha)
        parallelism.forEachBand(rect.height, bandSize: 16) { rows in
          for y in rows {
            for x in 0..<rect.width {
              var (sum, total): (Float, Float) = (0, 0)
              for j in 0..<n {
                let row = (y * n + j) * fine.width + x * n
                for i in 0..<n {
                  // The share of the node that the shadow can fall on.
                  let w = lowered ? ink[row + i] : 1 - ink[row + i]
                  sum += w * moved.buffer[row + i]
                  total += w
                }
              }
              alpha[y * rect.width + x] = total > 0 ? sum / total : 0
            }
          }
        }
      }
    }
    return alpha
  }

  /// The mask's coverage moved by `offset` (bilinear between pixel centers, 0 off the
  /// canvas), over `rect`.
  static func movedCoverage(
    _ mask: CoverageMask, offset: SIMD2<Float>, over rect: PixelRect, parallelism: Parallelism
  ) -> [Float] {
    let (dx, dy) = (Int(offset.x.rounded(.down)), Int(offset.y.rounded(.down)))
    let (fx, fy) = (offset.x - Float(dx), offset.y - Float(dy))
    let window = mask.window
    return [Float](uninitializedCount: rect.width * rect.height) { buffer, count in
      let out = SharedPointer(buffer)
      mask.windowCoverage.pixels.withUnsafeBufferPointer { coverage in
        let coverage = UnsafeBufferPointerBox(coverage)
        @Sendable @inline(__always) func at(_ x: Int, _ y: Int) -> Float {
          window.contains(x: x, y: y)
            ? coverage.buffer[(y - window.y) * window.width + x - window.x] : 0
        }
        parallelism.forEachBand(rect.height, bandSize: 32) { rows in
          for row in rows {
            // Pixel (x, y) of the moved ink is the mask between (x - dx - 1, y - dy - 1) and
            // (x - dx, y - dy), weighted by the offset's fractions.
            let y = rect.y + row - dy
            for column in 0..<rect.width {
              let x = rect.x + column - dx
              let top = at(x - 1, y - 1) * fx + at(x, y - 1) * (1 - fx)
              let bottom = at(x - 1, y) * fx + at(x, y) * (1 - fx)
              out.initialize(row * rect.width + column, to: top * fy + bottom * (1 - fy))
            }
          }
        }
      }
      count = rect.width * rect.height
    }
  }

  /// The radii of three box blurs whose sequence is a Gaussian of standard deviation
  /// `sigma` (within a box's rounding), as Kovesi's "fast almost-Gaussian filtering" picks
  /// them; empty for no blur.
  static func boxRadii(sigma: Float) -> [Int] {
    guard sigma > 0.3 else { return [] }
    let n: Float = 3
    let ideal = (12 * sigma * sigma / n + 1).squareRoot()
    var lower = Int(ideal.rounded(.down))
    if lower % 2 == 0 { lower -= 1 }
    let upper = lower + 2
    let l = Float(lower)
    let m = Int(((12 * sigma * sigma - n * l * l - 4 * n * l - 3 * n) / (-4 * l - 4)).rounded())
    return (0..<3).map { ($0 < m ? lower : upper) / 2 }
  }

  /// Blurs `values` (`width` x `height`, 0 outside) by box blurs of `radii`, each along rows
  /// then columns: every output is the same sums in the same order for any thread count.
  static func blur(
    _ values: inout [Float], width: Int, height: Int, radii: [Int], parallelism: Parallelism
  ) {
    guard !radii.isEmpty, width > 0, height > 0 else { return }
    var scratch = [Float](repeating: 0, count: values.count)
    for radius in radii where radius > 0 {
      let scale = 1 / Float(2 * radius + 1)
      // Rows: values -> scratch, a running sum along each row.
      values.withUnsafeBufferPointer { input in
        let input = UnsafeBufferPointerBox(input)
        scratch.withUnsafeMutableBufferPointer { output in
          let output = SharedPointer(output)
          parallelism.forEachBand(height, bandSize: 16) { rows in
            // Eight rows at a time, a row's running sum in each lane: the same sums in the
            // same order as one row at a time, without waiting on each add (a row's sum is
            // a chain of dependent adds; eight chains side by side keep the adder busy).
            var y = rows.lowerBound
            while y + 8 <= rows.upperBound {
              let starts = SIMD8<Int>(0, 1, 2, 3, 4, 5, 6, 7) &* width &+ y &* width
              @inline(__always) func column(_ i: Int) -> SIMD8<Float> {
                var v = SIMD8<Float>()
                for k in 0..<8 { v[k] = input.buffer[starts[k] + i] }
                return v
              }
              var sum = SIMD8<Float>()
              for i in 0..<min(radius, width) { sum += column(i) }
              for i in 0..<width {
                if i + radius < width { sum += column(i + radius) }
                let v = sum * scale
                for k in 0..<8 { output.buffer[starts[k] + i] = v[k] }
                if i >= radius { sum -= column(i - radius) }
              }
              y += 8
            }
            for y in y..<rows.upperBound {
              let start = y * width
              var sum: Float = 0
              for i in 0..<min(radius, width) { sum += input.buffer[start + i] }
              for i in 0..<width {
                if i + radius < width { sum += input.buffer[start + i + radius] }
                output.buffer[start + i] = sum * scale
                if i >= radius { sum -= input.buffer[start + i - radius] }
              }
            }
          }
        }
      }
      // Columns: scratch -> values, a running sum per column, a row at a time (row-major
      // reads, in bands of columns).
      scratch.withUnsafeBufferPointer { input in
        let input = UnsafeBufferPointerBox(input)
        values.withUnsafeMutableBufferPointer { output in
          let output = SharedPointer(output)
          parallelism.forEachBand(width, bandSize: 256) { columns in
            let (x0, n) = (columns.lowerBound, columns.count)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: n) { sums in
              sums.initialize(repeating: 0)
              guard let sums = sums.baseAddress, let input = input.buffer.baseAddress,
                let output = output.buffer.baseAddress
              else { return }
              // (Eight columns a time, written out: through the buffers, which the compiler
              // could not tell apart, the loops did not vectorize.)
              for y in 0..<min(radius, height) {
                Self.add(input + y * width + x0, to: sums, count: n, sign: 1)
              }
              for y in 0..<height {
                if y + radius < height {
                  Self.add(input + (y + radius) * width + x0, to: sums, count: n, sign: 1)
                }
                Self.scaled(sums, by: scale, to: output + y * width + x0, count: n)
                if y >= radius {
                  Self.add(input + (y - radius) * width + x0, to: sums, count: n, sign: -1)
                }
              }
            }
          }
        }
      }
    }
  }
}

extension DropShadow {
  /// `sums[i] += row[i]` (`sign` 1) or `sums[i] -= row[i]` (-1), eight at a time: the same
  /// sum or difference per column.
  @inline(__always)
  static func add(
    _ row: UnsafePointer<Float>, to sums: UnsafeMutablePointer<Float>, count: Int, sign: Float
  ) {
    let (from, to) = (UnsafeRawPointer(row), UnsafeMutableRawPointer(sums))
    var i = 0
    while i + 8 <= count {
      let a = to.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
      let b = from.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
      to.storeBytes(of: sign > 0 ? a + b : a - b, toByteOffset: 4 * i, as: SIMD8<Float>.self)
      i += 8
    }
    while i < count {
      sums[i] = sign > 0 ? sums[i] + row[i] : sums[i] - row[i]
      i += 1
    }
  }

  /// `out[i] = sums[i] * scale`, eight at a time.
  @inline(__always)
  static func scaled(
    _ sums: UnsafeMutablePointer<Float>, by scale: Float, to out: UnsafeMutablePointer<Float>,
    count: Int
  ) {
    let (from, to) = (UnsafeRawPointer(sums), UnsafeMutableRawPointer(out))
    var i = 0
    while i + 8 <= count {
      let v = from.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self) * scale
      to.storeBytes(of: v, toByteOffset: 4 * i, as: SIMD8<Float>.self)
      i += 8
    }
    while i < count {
      out[i] = sums[i] * scale
      i += 1
    }
  }
}

extension CanvasImage {
  /// The canvas with every pixel of `content` (which must hold the current content) made
  /// anew by `pixel` from its current color (the content's, or the fill outside it) and its
  /// canvas position, in fixed bands; the fill stays.
  func recomposited(
    over content: PixelRect, parallelism: Parallelism,
    _ pixel: @Sendable (SIMD4<Float>, Int, Int) -> SIMD4<Float>
  ) -> CanvasImage {
    let fill = self.fill
    let old = contentRect
    let pixels = [SIMD4<Float>](uninitializedCount: content.width * content.height) {
      buffer, count in
      let out = SharedPointer(buffer)
      self.content.pixels.withUnsafeBufferPointer { source in
        let source = UnsafeBufferPointerBox(source)
        parallelism.forEachBand(content.height, bandSize: 32) { rows in
          for row in rows {
            let y = content.y + row
            for column in 0..<content.width {
              let x = content.x + column
              let p =
                old.contains(x: x, y: y)
                ? source.buffer[(y - old.y) * old.width + x - old.x] : fill
              out.initialize(row * content.width + column, to: pixel(p, x, y))
            }
          }
        }
      }
      count = content.width * content.height
    }
    return CanvasImage(
      width: width, height: height, fill: fill, contentRect: content,
      content: RGBAImage(width: content.width, height: content.height, pixels: pixels))
  }
}
