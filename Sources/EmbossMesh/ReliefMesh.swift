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
/// as `HeightField` computes them at pixel centers) and is triangulated adaptively: a
/// quadtree over the corner grid splits a cell while the fan of four triangles around its
/// center departs from any sample inside it by more than the tolerance; each leaf is then a
/// fan around its center through every vertex on its sides (the corners of smaller
/// neighbours too), so no vertex lies on another triangle's edge (no T-junctions). Flat
/// areas (the plate, the plateau) become a few large triangles. Four walls and a bottom fan
/// close the solid. Every edge is shared by exactly two triangles, with opposite
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

  /// A cell of the quadtree: its top-left corner and side, in pixels.
  struct Cell {
    var x: Int
    var y: Int
    var size: Int
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
      quadtree(heights: $0, columns: columns, width: w, height: h, tolerance: tolerance)
    }
    // Every leaf's corners are vertices; a side takes every vertex on it.
    var used = [Bool](repeating: false, count: columns * rows)
    for cell in leaves {
      for (i, j) in [
        (cell.x, cell.y), (cell.x + cell.size, cell.y), (cell.x, cell.y + cell.size),
        (cell.x + cell.size, cell.y + cell.size),
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
    for cell in leaves {
      let (x, y, s) = (cell.x, cell.y, cell.size)
      if s == 1 {
        let (tl, tr, br, bl) = (vertex(x, y), vertex(x + 1, y), vertex(x + 1, y + 1), vertex(x, y + 1))
        triangle(tl, tr, br)
        triangle(tl, br, bl)
        continue
      }
      ring.removeAll(keepingCapacity: true)
      for i in x..<(x + s) where used[y * columns + i] { ring.append(vertex(i, y)) }
      for j in y..<(y + s) where used[j * columns + x + s] { ring.append(vertex(x + s, j)) }
      for i in stride(from: x + s, to: x, by: -1) where used[(y + s) * columns + i] {
        ring.append(vertex(i, y + s))
      }
      for j in stride(from: y + s, to: y, by: -1) where used[j * columns + x] {
        ring.append(vertex(x, j))
      }
      let center = vertex(x + s / 2, y + s / 2)
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

  /// The quadtree's leaves in a fixed (depth-first, Z) order: cells inside the grid whose
  /// center fan is within `tolerance` of every sample they hold, or 1 pixel wide.
  static func quadtree(
    heights: UnsafeBufferPointer<Float>, columns: Int, width: Int, height: Int, tolerance: Float
  ) -> [Cell] {
    var root = 1
    while root < max(width, height) { root *= 2 }
    var leaves: [Cell] = []
    var stack = [Cell(x: 0, y: 0, size: root)]
    while let cell = stack.popLast() {
      guard cell.x < width, cell.y < height else { continue }
      let inside = cell.x + cell.size <= width && cell.y + cell.size <= height
      if inside
        && (cell.size == 1
          || fanError(heights, columns: columns, cell: cell, within: tolerance))
      {
        leaves.append(cell)
        continue
      }
      let half = cell.size / 2
      // Pushed in reverse so they come off in Z order.
      stack.append(Cell(x: cell.x + half, y: cell.y + half, size: half))
      stack.append(Cell(x: cell.x, y: cell.y + half, size: half))
      stack.append(Cell(x: cell.x + half, y: cell.y, size: half))
      stack.append(Cell(x: cell.x, y: cell.y, size: half))
    }
    return leaves
  }

  /// Whether the four triangles from the cell's center to its sides are within `tolerance`
  /// of every sample in the cell.
  static func fanError(
    _ z: UnsafeBufferPointer<Float>, columns: Int, cell: Cell, within tolerance: Float
  ) -> Bool {
    let (x, y, s) = (cell.x, cell.y, cell.size)
    let r = s / 2
    let cx = x + r
    let cy = y + r
    let center = z[cy * columns + cx]
    let tl = z[y * columns + x]
    let tr = z[y * columns + x + s]
    let bl = z[(y + s) * columns + x]
    let br = z[(y + s) * columns + x + s]
    let inverse = 1 / Float(r)
    for j in y...(y + s) {
      let v = j - cy
      for i in x...(x + s) {
        let u = i - cx
        // The triangle (center, p, q) the sample lies in, its distance t (0 at the center,
        // 1 on the side) and where along the side a (0 at p, 1 at q).
        let value: Float
        if abs(v) >= abs(u) {
          let t = Float(abs(v)) * inverse
          guard t > 0 else { continue }
          let a = (Float(u) / Float(abs(v)) + 1) * 0.5
          let side = v < 0 ? tl + a * (tr - tl) : bl + a * (br - bl)
          value = center + t * (side - center)
        } else {
          let t = Float(abs(u)) * inverse
          let a = (Float(v) / Float(abs(u)) + 1) * 0.5
          let side = u < 0 ? tl + a * (bl - tl) : tr + a * (br - tr)
          value = center + t * (side - center)
        }
        if abs(z[j * columns + i] - value) > tolerance { return false }
      }
    }
    return true
  }
}
