import EmbossModel
import EmbossRaster
import EmbossRelief
import EmbossSupport

/// The physical sizes of a relief's mesh.
public struct MeshSpec: Sendable, Equatable {
  /// Millimetres per canvas pixel (25.4 / dpi).
  public var millimetresPerPixel: Double
  /// The relief's height at the plateau, in mm (a lowered relief goes this deep).
  public var height: Double
  /// The plate's thickness under the relief, in mm.
  public var base: Double
  /// How far the surface may depart from the exact relief, in mm.
  public var tolerance: Double

  /// The default relief height: 1 mm.
  public static let defaultHeight = 1.0
  /// The default plate: 2 mm.
  public static let defaultBase = 2.0

  /// A mesh spec; the tolerance defaults to 0.01 mm or a quarter pixel, the larger.
  public init(
    millimetresPerPixel: Double, height: Double = defaultHeight, base: Double = defaultBase,
    tolerance: Double? = nil
  ) {
    self.millimetresPerPixel = millimetresPerPixel
    self.height = height
    self.base = base
    self.tolerance = tolerance ?? max(0.01, millimetresPerPixel / 4)
  }
}

/// A closed triangle mesh in millimetres: x right, y up (the canvas's top row at the largest
/// y, so the text reads from above), z up from the plate's bottom at 0.
public struct TriangleMesh: Sendable, Equatable {
  /// Vertex positions in mm.
  public var vertices: [SIMD3<Float>] = []
  /// Triangles as vertex indices, counterclockwise seen from outside (outward normals).
  public var triangles: [SIMD3<UInt32>] = []

  /// An empty mesh.
  public init() {}

  /// The enclosed volume in mm³ (positive for outward triangles).
  public var volume: Double {
    var sum = 0.0
    for t in triangles {
      let a = SIMD3<Double>(vertices[Int(t.x)])
      let b = SIMD3<Double>(vertices[Int(t.y)])
      let c = SIMD3<Double>(vertices[Int(t.z)])
      let cross = SIMD3(
        b.y * c.z - b.z * c.y, b.z * c.x - b.x * c.z, b.x * c.y - b.y * c.x)
      sum += (a * cross).sum()
    }
    return sum / 6
  }
}

/// The relief as a solid: a plate the size of the canvas with the relief on top, as a
/// watertight triangle mesh.
///
/// The top surface samples the exact relief at the pixel corners (the outline's distances,
/// as `HeightField` computes them at pixel centers) and is triangulated adaptively: the
/// corner grid is split into cells (square powers of two but along its far edges) while the
/// fan of four triangles around a cell's center departs from any sample inside it by more
/// than the tolerance; each leaf is then a fan around its center through every vertex on its
/// sides (the corners of smaller neighbours too), or for a strip one pixel across, a zigzag
/// between its two sides, so no vertex lies on another triangle's edge (no T-junctions).
/// Flat areas (the plate, the plateau) become a few large triangles. Four walls and a bottom
/// fan close the solid. Every edge is shared by exactly two triangles, with opposite
/// orientations. The result does not depend on the thread count.
public enum ReliefMesh {
  /// The relief's heights (-1...1, as `HeightField`) at the pixel corners: a (width + 1) x
  /// (height + 1) plane whose sample (i, j) is at canvas point (i, j).
  public static func cornerHeights(
    mask: CoverageMask, relief: ReliefSpec, parallelism: Parallelism = .allCores
  ) -> Plane {
    let w = mask.width
    let h = mask.height
    // The corners' coverage: the mean of the four pixels around each (only its 0 and 1
    // count: a corner wholly in or out).
    var coverage = Plane(width: w + 1, height: h + 1)
    for j in 0...h {
      for i in 0...w {
        var sum: Float = 0
        for (x, y) in [(i - 1, j - 1), (i, j - 1), (i - 1, j), (i, j)]
        where x >= 0 && y >= 0 && x < w && y < h {
          sum += mask.plane[x, y]
        }
        coverage[i, j] = sum / 4
      }
    }
    let bounds = mask.inkBounds
    let outline =
      mask.outline
      ?? Outline(
        traced: EdgeDistance.isoline(
          mask: mask.plane, region: bounds.isEmpty ? bounds : bounds.grown(by: 1)))
    // Corner (i, j) is the center of pixel (i, j) of a canvas moved by half a pixel.
    let corners = CoverageMask(
      plane: coverage,
      inkBounds: bounds.isEmpty
        ? bounds
        : PixelRect(x: bounds.x, y: bounds.y, width: bounds.width + 1, height: bounds.height + 1),
      outline: outline.translated(by: SIMD2(0.5, 0.5)))
    return HeightField.make(
      mask: corners, relief: relief, subSamples: false, parallelism: parallelism
    ).canvasPlane()
  }

  /// The solid of `mask`'s relief: see `ReliefMesh`.
  public static func make(
    mask: CoverageMask, relief: ReliefSpec, spec: MeshSpec, parallelism: Parallelism = .allCores
  ) -> TriangleMesh {
    make(heights: cornerHeights(mask: mask, relief: relief, parallelism: parallelism), spec: spec)
  }

  /// A cell of the subdivision: its top-left corner and sides, in pixels.
  struct Cell {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
  }

  /// The solid over corner heights `heights` (-1...1): the top at `base + height * h` mm.
  public static func make(heights: Plane, spec: MeshSpec) -> TriangleMesh {
    let columns = heights.width
    let rows = heights.height
    let w = columns - 1
    let h = rows - 1
    var mesh = TriangleMesh()
    guard w >= 1, h >= 1 else { return mesh }
    let tolerance = Float(spec.tolerance / max(spec.height, 1e-9))
    let leaves = heights.pixels.withUnsafeBufferPointer {
      subdivide(heights: $0, columns: columns, width: w, height: h, tolerance: tolerance)
    }
    // Every leaf's corners are vertices; a side takes every vertex on it.
    var used = [Bool](repeating: false, count: columns * rows)
    for cell in leaves {
      for (i, j) in [
        (cell.x, cell.y), (cell.x + cell.width, cell.y), (cell.x, cell.y + cell.height),
        (cell.x + cell.width, cell.y + cell.height),
      ] {
        used[j * columns + i] = true
      }
    }
    let scale = spec.millimetresPerPixel
    let height = spec.height
    let base = spec.base
    var index = [Int32](repeating: -1, count: columns * rows)
    func vertex(_ i: Int, _ j: Int) -> UInt32 {
      let k = j * columns + i
      if index[k] < 0 {
        index[k] = Int32(mesh.vertices.count)
        mesh.vertices.append(
          SIMD3(
            Float(Double(i) * scale), Float(Double(h - j) * scale),
            Float(base + height * Double(heights.pixels[k]))))
      }
      return UInt32(index[k])
    }
    // Triangles are listed clockwise in canvas coordinates (y down), which is
    // counterclockwise seen from above once y points up.
    func triangle(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
      mesh.triangles.append(SIMD3(a, c, b))
    }
    var ring: [UInt32] = []
    var near: [UInt32] = []
    var far: [UInt32] = []
    for cell in leaves {
      let (x, y, cw, ch) = (cell.x, cell.y, cell.width, cell.height)
      if cw == 1 || ch == 1 {
        // A strip one pixel across: zipped between its two long sides (every vertex on
        // them), each triangle with a vertex on both.
        near.removeAll(keepingCapacity: true)
        far.removeAll(keepingCapacity: true)
        if cw == 1 {
          for j in y...(y + ch) where used[j * columns + x] { near.append(vertex(x, j)) }
          for j in y...(y + ch) where used[j * columns + x + 1] { far.append(vertex(x + 1, j)) }
        } else {
          for i in x...(x + cw) where used[(y + 1) * columns + i] { near.append(vertex(i, y + 1)) }
          for i in x...(x + cw) where used[y * columns + i] { far.append(vertex(i, y)) }
        }
        // The position along the strip of each side's vertices.
        func along(_ v: UInt32) -> Float {
          cw == 1 ? -mesh.vertices[Int(v)].y : mesh.vertices[Int(v)].x
        }
        var a = 0
        var b = 0
        while a + 1 < near.count || b + 1 < far.count {
          let advanceNear =
            b + 1 >= far.count || (a + 1 < near.count && along(near[a + 1]) <= along(far[b + 1]))
          if advanceNear {
            triangle(near[a], far[b], near[a + 1])
            a += 1
          } else {
            triangle(near[a], far[b], far[b + 1])
            b += 1
          }
        }
        continue
      }
      ring.removeAll(keepingCapacity: true)
      for i in x..<(x + cw) where used[y * columns + i] { ring.append(vertex(i, y)) }
      for j in y..<(y + ch) where used[j * columns + x + cw] { ring.append(vertex(x + cw, j)) }
      for i in stride(from: x + cw, to: x, by: -1) where used[(y + ch) * columns + i] {
        ring.append(vertex(i, y + ch))
      }
      for j in stride(from: y + ch, to: y, by: -1) where used[j * columns + x] {
        ring.append(vertex(x, j))
      }
      let center = vertex(x + cw / 2, y + ch / 2)
      for k in 0..<ring.count {
        triangle(center, ring[k], ring[(k + 1) % ring.count])
      }
    }
    // The top's rim, clockwise on the canvas: the top row left to right, the right column
    // down, the bottom row right to left, the left column up.
    var rim: [(Int, Int)] = []
    for i in 0..<w where used[i] { rim.append((i, 0)) }
    for j in 0..<h where used[j * columns + w] { rim.append((w, j)) }
    for i in stride(from: w, to: 0, by: -1) where used[h * columns + i] { rim.append((i, h)) }
    for j in stride(from: h, to: 0, by: -1) where used[j * columns] { rim.append((0, j)) }
    let top = rim.map { vertex($0.0, $0.1) }
    let bottom = rim.map { (i, j) -> UInt32 in
      mesh.vertices.append(SIMD3(Float(Double(i) * scale), Float(Double(h - j) * scale), 0))
      return UInt32(mesh.vertices.count - 1)
    }
    mesh.vertices.append(SIMD3(Float(Double(w) * scale / 2), Float(Double(h) * scale / 2), 0))
    let middle = UInt32(mesh.vertices.count - 1)
    for k in 0..<rim.count {
      let n = (k + 1) % rim.count
      // The wall under the rim's piece k -> n, facing out.
      triangle(top[n], top[k], bottom[k])
      triangle(top[n], bottom[k], bottom[n])
      // The bottom, facing down.
      triangle(middle, bottom[n], bottom[k])
    }
    return mesh
  }

  /// The subdivision's leaves in a fixed (depth-first) order.
  ///
  /// A cell is split at the largest power of two below its side (or in halves when its side
  /// is one), along its longer side only when it is twice as long as the other, so cells
  /// are square powers of two but along the grid's far edges. A cell is a leaf when it is
  /// even on both sides and the fan of four triangles around its center is within
  /// `tolerance` of every sample it holds, or when it is one pixel across and both its long
  /// sides are within half of it of a straight line.
  static func subdivide(
    heights: UnsafeBufferPointer<Float>, columns: Int, width: Int, height: Int, tolerance: Float
  ) -> [Cell] {
    @inline(__always) func cut(_ n: Int) -> Int {
      var p = 1
      while p * 2 < n { p *= 2 }
      return p
    }
    var leaves: [Cell] = []
    var stack = [Cell(x: 0, y: 0, width: width, height: height)]
    var children: [Cell] = []
    while let cell = stack.popLast() {
      let (w, h) = (cell.width, cell.height)
      let leaf: Bool
      if w == 1 || h == 1 {
        leaf = straightSides(heights, columns: columns, cell: cell, within: tolerance / 2)
      } else if w % 2 == 0 && h % 2 == 0 {
        leaf = fanError(heights, columns: columns, cell: cell, within: tolerance)
      } else {
        leaf = false
      }
      if leaf {
        leaves.append(cell)
        continue
      }
      let splitX = w > 1 && !(h > 1 && h >= 2 * w)
      let splitY = h > 1 && !(w > 1 && w >= 2 * h)
      let xs = splitX ? [(cell.x, cut(w)), (cell.x + cut(w), w - cut(w))] : [(cell.x, w)]
      let ys = splitY ? [(cell.y, cut(h)), (cell.y + cut(h), h - cut(h))] : [(cell.y, h)]
      children.removeAll(keepingCapacity: true)
      for (y, ch) in ys {
        for (x, cw) in xs { children.append(Cell(x: x, y: y, width: cw, height: ch)) }
      }
      // Pushed in reverse so they come off in order.
      stack += children.reversed()
    }
    return leaves
  }

  /// Whether a strip's two long sides are each within `tolerance` of the line between
  /// their ends (a single pixel: always).
  static func straightSides(
    _ z: UnsafeBufferPointer<Float>, columns: Int, cell: Cell, within tolerance: Float
  ) -> Bool {
    let vertical = cell.width == 1
    let length = vertical ? cell.height : cell.width
    guard length > 1 else { return true }
    for side in 0...1 {
      func sample(_ k: Int) -> Float {
        vertical
          ? z[(cell.y + k) * columns + cell.x + side] : z[(cell.y + side) * columns + cell.x + k]
      }
      let first = sample(0)
      let last = sample(length)
      for k in 1..<length {
        let t = Float(k) / Float(length)
        if abs(sample(k) - (first + t * (last - first))) > tolerance { return false }
      }
    }
    return true
  }

  /// Whether the four triangles from the cell's center to its sides are within `tolerance`
  /// of every sample in the cell.
  static func fanError(
    _ z: UnsafeBufferPointer<Float>, columns: Int, cell: Cell, within tolerance: Float
  ) -> Bool {
    let (x, y, w, h) = (cell.x, cell.y, cell.width, cell.height)
    let rx = w / 2
    let ry = h / 2
    let cx = x + rx
    let cy = y + ry
    let center = z[cy * columns + cx]
    let tl = z[y * columns + x]
    let tr = z[y * columns + x + w]
    let bl = z[(y + h) * columns + x]
    let br = z[(y + h) * columns + x + w]
    // In coordinates scaled to a square of half-side 1 around the center.
    let sx = 1 / Float(rx)
    let sy = 1 / Float(ry)
    for j in y...(y + h) {
      let v = Float(j - cy) * sy
      for i in x...(x + w) {
        let u = Float(i - cx) * sx
        // The triangle (center, p, q) the sample lies in, its distance t (0 at the center,
        // 1 on the side) and where along the side a (0 at p, 1 at q).
        let value: Float
        if abs(v) >= abs(u) {
          let t = abs(v)
          guard t > 0 else { continue }
          let a = (u / t + 1) * 0.5
          let side = v < 0 ? tl + a * (tr - tl) : bl + a * (br - bl)
          value = center + t * (side - center)
        } else {
          let t = abs(u)
          let a = (v / t + 1) * 0.5
          let side = u < 0 ? tl + a * (bl - tl) : tr + a * (br - tr)
          value = center + t * (side - center)
        }
        if abs(z[j * columns + i] - value) > tolerance { return false }
      }
    }
    return true
  }
}
