import EmbossEngrave
import EmbossGeometry
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
  /// The plate's thickness under the relief, in mm; 0: the letters alone, each a part with
  /// a flat bottom.
  public var base: Double
  /// A straight wall under the relief's edge, in mm (raised: the letters stand this high on
  /// the plate before the bevel starts; lowered: they are cut this deep first).
  public var wall: Double = 0
  /// The plate's shape.
  public var plate: Plate = .rectangle
  /// How far the plate's outline is outside the ink, in pixels (`Plate.outline`).
  public var plateOffset: Double = 0
  /// How the plate's outline turns round the ink's convex corners (`Plate.outline`), as the
  /// SVG's cut line at the same offset does, so the printed tag and the laser's outline agree.
  public var plateJoin: CutLine.Join = .round
  /// How far the surface may depart from the exact relief, in mm.
  public var tolerance: Double

  /// The shape of the plate under the relief.
  public enum Plate: String, Sendable, CaseIterable {
    /// The canvas.
    case rectangle = "rect"
    /// The ink's outline grown by `plateOffset` (a tag, a keychain).
    case outline
  }

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
    let plane = mask.plane
    for j in 0...h {
      for i in 0...w {
        var sum: Float = 0
        for (x, y) in [(i - 1, j - 1), (i, j - 1), (i - 1, j), (i, j)]
        where x >= 0 && y >= 0 && x < w && y < h {
          sum += plane[x, y]
        }
        coverage[i, j] = sum / 4
      }
    }
    let bounds = mask.inkBounds
    let outline =
      mask.outline
      ?? Outline(
        traced: EdgeDistance.isoline(
          mask: plane, region: bounds.isEmpty ? bounds : bounds.grown(by: 1)))
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

  /// Why a mesh cannot be made.
  public enum Problem: Error, Equatable {
    /// The plate's outline (the ink grown by the offset) reaches past the canvas.
    case plateBeyondCanvas
    /// The ink itself reaches the canvas's edge, where the outline must be cut (no plate,
    /// a wall, the split): it needs a margin.
    case inkAtCanvasEdge
    /// Clipper could not grow the outline.
    case outlineFailed
  }

  /// The solid (or, `split`, the plate and the letters as two solids) of `mask`'s relief:
  /// see `ReliefMesh`.
  ///
  /// A plate the canvas's size without a wall is the corner grid's rectangle; a plate that
  /// follows the outline, letters without a plate (`base` 0), a wall under the bevel and
  /// the split cut the grid along the outline (`RegionMesh`). With `split` the letters
  /// stand on the plate's flat top (raised only).
  public static func make(
    mask: CoverageMask, relief: ReliefSpec, spec: MeshSpec, split: Bool = false,
    parallelism: Parallelism = .allCores
  ) throws(Problem) -> [TriangleMesh] {
    let heights = cornerHeights(mask: mask, relief: relief, parallelism: parallelism)
    if spec.base > 0, spec.plate == .rectangle, spec.wall == 0, !split {
      return [make(heights: heights, spec: spec)]
    }
    // The outline within a 100th of a pixel: a fraction of the slivers a flattening to
    // 0.005 px would cut the pixels into.
    // Unioned: glyphs that overlap (tight spacing, joined scripts) are one region.
    guard let loops = CutLine.regionPolygons(mask: mask, simplifiedWithin: 0.01),
      let ink = CutLine.unioned(loops, simplifiedWithin: 0.01)
    else {
      throw .outlineFailed
    }
    let inkRings = CutLine.orientedByNesting(ink)
    var plateRings: [[SIMD2<Double>]]? = nil
    if spec.plate == .outline && spec.base > 0 {
      // The plate's rounded corners within a 50th of a pixel.
      guard
        let grown = CutLine.regionPolygons(
          mask: mask, offset: spec.plateOffset, join: spec.plateJoin, arcTolerance: 0.02,
          simplifiedWithin: 0.01)
      else {
        throw .outlineFailed
      }
      plateRings = CutLine.orientedByNesting(grown)
    }
    let inset = RegionMesh.margin * 4
    for (rings, problem) in [
      (inkRings, Problem.inkAtCanvasEdge), (plateRings ?? [], .plateBeyondCanvas),
    ] {
      for ring in rings {
        for p in ring
        where p.x < inset || p.y < inset || p.x > Double(mask.width) - inset
          || p.y > Double(mask.height) - inset
        {
          throw problem
        }
      }
    }
    let holes = inkRings.map { Array($0.reversed()) }
    let sign = relief.direction == .raised ? 1.0 : -1.0
    // The letters' top: the relief over the wall, on the plate.
    let letters = Layer(polygons: inkRings, outside: false, lift: spec.base + sign * spec.wall)
    if split {
      let plate =
        plateRings.map { Layer(polygons: $0, outside: false, lift: spec.base, flat: true) }
        ?? Layer(polygons: [], outside: true, lift: spec.base, flat: true)
      return [
        solid([plate], bottom: 0, heights: heights, spec: spec),
        solid([letters], bottom: spec.base, heights: heights, spec: spec),
      ]
    }
    let layers: [Layer]
    switch (spec.base > 0, plateRings, spec.wall > 0) {
    case (false, _, _):
      layers = [Layer(polygons: inkRings, outside: false, lift: spec.wall)]
    case (true, nil, _):
      layers = [letters, Layer(polygons: holes, outside: true, lift: spec.base, flat: true)]
    case (true, let plate?, false):
      layers = [Layer(polygons: plate, outside: false, lift: spec.base)]
    case (true, let plate?, true):
      layers = [
        letters, Layer(polygons: plate + holes, outside: false, lift: spec.base, flat: true),
      ]
    }
    return [solid(layers, bottom: 0, heights: heights, spec: spec)]
  }

  /// The lowest wall a top stands on above its bottom, in mm.
  static let minimumWall = 0.001

  /// One part of a solid's top: a region and the height over it.
  struct Layer {
    /// The region's boundary (see `RegionMesh.triangulate`).
    var polygons: [[SIMD2<Double>]]
    var outside: Bool
    /// Millimetres added to the relief's height.
    var lift: Double
    /// Flat: the lift alone, without the relief.
    var flat = false
  }

  /// The closed solid whose top is `layers` (each cut from the corner grid) and whose bottom
  /// is flat at `bottom` mm: walls where the top ends (down to the bottom) and where two
  /// layers meet at different heights; vertices at one point shared, so a top that comes
  /// down to the bottom (letters without a plate) closes without a wall.
  static func solid(_ layers: [Layer], bottom: Double, heights: Plane, spec: MeshSpec)
    -> TriangleMesh
  {
    // A top that would come down to the bottom at its rim (letters without a plate or a
    // wall) stands on a wall of a micrometre instead: the top then touches the bottom
    // nowhere, not even across a stroke thinner than a pixel.
    let layers = layers.map { layer -> Layer in
      var layer = layer
      if !layer.flat, layer.lift < bottom + minimumWall { layer.lift = bottom + minimumWall }
      return layer
    }
    let columns = heights.width
    let w = columns - 1
    let h = heights.height - 1
    let table = RegionMesh.VertexTable(columns: columns)
    let tolerance = Float(spec.tolerance / max(spec.height, 1e-9))
    let (tops, bottoms) = heights.pixels.withUnsafeBufferPointer { z in
      let regions = layers.map { layer in
        RegionMesh(
          polygons: layer.polygons, outside: layer.outside, columns: columns, width: w,
          height: h, table: table)
      }
      let tops = zip(layers, regions).map { layer, region in
        region.triangles(heights: z, tolerance: layer.flat ? .infinity : tolerance)
      }
      // The bottom is flat: the same cut pixels (so the same rim), the rest in the largest
      // cells.
      let bottoms = zip(layers, regions).map { layer, region in
        layer.flat ? nil : region.triangles(heights: z, tolerance: .infinity)
      }
      return (tops, bottoms)
    }
    var mesh = TriangleMesh()
    var index: [SIMD2<UInt64>: UInt32] = [:]
    func vertex(_ id: Int32, _ z: Double) -> UInt32 {
      let key = SIMD2(UInt64(id), z.bitPattern)
      if let k = index[key] { return k }
      let p = table.points[Int(id)]
      let k = UInt32(mesh.vertices.count)
      mesh.vertices.append(
        SIMD3(
          Float(p.x * spec.millimetresPerPixel),
          Float((Double(h) - p.y) * spec.millimetresPerPixel),
          Float(z)))
      index[key] = k
      return k
    }
    func z(_ id: Int32, _ layer: Layer) -> Double {
      let node = table.nodes[Int(id)]
      guard !layer.flat, node >= 0 else { return layer.lift }
      return layer.lift + spec.height * Double(heights.pixels[Int(node)])
    }
    // Stored counterclockwise from above (the plane triangles are clockwise on screen).
    func triangle(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
      guard a != b, b != c, c != a else { return }
      mesh.triangles.append(SIMD3(a, c, b))
    }
    // Which layer uses each directed plane edge.
    var owner: [SIMD2<Int32>: Int] = [:]
    for (l, top) in tops.enumerated() {
      for t in top {
        for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] { owner[SIMD2(a, b)] = l }
      }
    }
    for (l, top) in tops.enumerated() {
      let layer = layers[l]
      for t in top {
        let (za, zb, zc) = (z(t.x, layer), z(t.y, layer), z(t.z, layer))
        // A triangle of the top lying on the bottom (letters without a plate, where three
        // points of their rim make one) is no solid: neither it nor the bottom under it.
        if za == bottom && zb == bottom && zc == bottom { continue }
        triangle(vertex(t.x, za), vertex(t.y, zb), vertex(t.z, zc))
        for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
          let upperA = vertex(a, z(a, layer))
          let upperB = vertex(b, z(b, layer))
          let lowerA: UInt32
          let lowerB: UInt32
          if let other = owner[SIMD2(b, a)] {
            // Two layers meet: one wall between them, made from the first one's side.
            guard other > l else { continue }
            lowerA = vertex(a, z(a, layers[other]))
            lowerB = vertex(b, z(b, layers[other]))
          } else {
            lowerA = vertex(a, bottom)
            lowerB = vertex(b, bottom)
          }
          triangle(upperB, upperA, lowerA)
          triangle(upperB, lowerA, lowerB)
        }
      }
      // The bottom, facing down (without the triangles left out of the top: those of a
      // cut pixel are the same in both).
      for t in bottoms[l] ?? top {
        if z(t.x, layer) == bottom && z(t.y, layer) == bottom && z(t.z, layer) == bottom {
          continue
        }
        triangle(vertex(t.x, bottom), vertex(t.z, bottom), vertex(t.y, bottom))
      }
    }
    return mesh
  }

  /// A cell of the subdivision: its top-left corner and sides, in pixels.
  struct Cell {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    /// Its corners: top left, top right, bottom right, bottom left.
    var corners: [(Int, Int)] {
      [(x, y), (x + width, y), (x + width, y + height), (x, y + height)]
    }
  }

  /// What the subdivision does with a cell.
  enum Decision {
    /// Inside the surface: a leaf when flat enough (see `subdivide`), else split.
    case fill
    /// Outside: no leaf.
    case drop
    /// Split whatever its heights.
    case split
    /// A leaf cut by a region's boundary (one pixel).
    case clip
  }

  /// A leaf of the subdivision.
  struct Leaf {
    var cell: Cell
    var kind: Decision
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
      subdivide(heights: $0, columns: columns, width: w, height: h, tolerance: tolerance) { _ in
        .fill
      }
    }
    // Every leaf's corners are vertices; a side takes every vertex on it.
    var used = [Bool](repeating: false, count: columns * rows)
    for leaf in leaves {
      for (i, j) in leaf.cell.corners { used[j * columns + i] = true }
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
    // Triangles are made clockwise in canvas coordinates (y down), which is
    // counterclockwise seen from above once y points up: they are stored the other way.
    func triangle(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
      mesh.triangles.append(SIMD3(a, c, b))
    }
    var top: [SIMD3<Int32>] = []
    for leaf in leaves {
      triangulate(leaf.cell, columns: columns, used: used, into: &top) {
        Int32(vertex($0, $1))
      }
    }
    for t in top { triangle(UInt32(t.x), UInt32(t.y), UInt32(t.z)) }
    // The top's rim, clockwise on the canvas: the top row left to right, the right column
    // down, the bottom row right to left, the left column up.
    var rim: [(Int, Int)] = []
    for i in 0..<w where used[i] { rim.append((i, 0)) }
    for j in 0..<h where used[j * columns + w] { rim.append((w, j)) }
    for i in stride(from: w, to: 0, by: -1) where used[h * columns + i] { rim.append((i, h)) }
    for j in stride(from: h, to: 0, by: -1) where used[j * columns] { rim.append((0, j)) }
    let upper = rim.map { vertex($0.0, $0.1) }
    let bottom = rim.map { (i, j) -> UInt32 in
      mesh.vertices.append(SIMD3(Float(Double(i) * scale), Float(Double(h - j) * scale), 0))
      return UInt32(mesh.vertices.count - 1)
    }
    mesh.vertices.append(SIMD3(Float(Double(w) * scale / 2), Float(Double(h) * scale / 2), 0))
    let middle = UInt32(mesh.vertices.count - 1)
    for k in 0..<rim.count {
      let n = (k + 1) % rim.count
      // The wall under the rim's piece k -> n, facing out.
      triangle(upper[n], upper[k], bottom[k])
      triangle(upper[n], bottom[k], bottom[n])
      // The bottom, facing down.
      triangle(middle, bottom[n], bottom[k])
    }
    return mesh
  }

  /// The triangles of a filled leaf, clockwise on the canvas (y down), through every used
  /// grid node on its sides: a fan around its center, or for a strip one pixel across, a
  /// zigzag between its two long sides (each triangle with a vertex on both).
  static func triangulate(
    _ cell: Cell, columns: Int, used: [Bool], into triangles: inout [SIMD3<Int32>],
    vertex: (Int, Int) -> Int32
  ) {
    let (x, y, cw, ch) = (cell.x, cell.y, cell.width, cell.height)
    if cw == 1 || ch == 1 {
      // Points along each long side, with their position along the strip.
      var near: [(Int, Int32)] = []
      var far: [(Int, Int32)] = []
      if cw == 1 {
        for j in y...(y + ch) where used[j * columns + x] { near.append((j, vertex(x, j))) }
        for j in y...(y + ch) where used[j * columns + x + 1] {
          far.append((j, vertex(x + 1, j)))
        }
      } else {
        for i in x...(x + cw) where used[(y + 1) * columns + i] {
          near.append((i, vertex(i, y + 1)))
        }
        for i in x...(x + cw) where used[y * columns + i] { far.append((i, vertex(i, y))) }
      }
      var a = 0
      var b = 0
      while a + 1 < near.count || b + 1 < far.count {
        if b + 1 >= far.count || (a + 1 < near.count && near[a + 1].0 <= far[b + 1].0) {
          triangles.append(SIMD3(near[a].1, far[b].1, near[a + 1].1))
          a += 1
        } else {
          triangles.append(SIMD3(near[a].1, far[b].1, far[b + 1].1))
          b += 1
        }
      }
      return
    }
    var ring: [Int32] = []
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
      triangles.append(SIMD3(center, ring[k], ring[(k + 1) % ring.count]))
    }
  }

  /// The subdivision's leaves in a fixed (depth-first) order.
  ///
  /// A cell is split at the largest power of two below its side (or in halves when its side
  /// is one), along its longer side only when it is twice as long as the other, so cells
  /// are square powers of two but along the grid's far edges. `keep` decides first (see
  /// `Decision`); a filled cell is a leaf when it is even on both sides and the fan of four
  /// triangles around its center is within `tolerance` of every sample it holds, or when it
  /// is one pixel across and both its long sides are within half of it of a straight line.
  static func subdivide(
    heights: UnsafeBufferPointer<Float>, columns: Int, width: Int, height: Int, tolerance: Float,
    keep: (Cell) -> Decision
  ) -> [Leaf] {
    @inline(__always) func cut(_ n: Int) -> Int {
      var p = 1
      while p * 2 < n { p *= 2 }
      return p
    }
    var leaves: [Leaf] = []
    var stack = [Cell(x: 0, y: 0, width: width, height: height)]
    var children: [Cell] = []
    while let cell = stack.popLast() {
      let (w, h) = (cell.width, cell.height)
      let decision = keep(cell)
      if decision == .drop { continue }
      if decision == .clip {
        leaves.append(Leaf(cell: cell, kind: .clip))
        continue
      }
      var leaf = false
      if decision == .fill {
        if w == 1 || h == 1 {
          leaf = straightSides(heights, columns: columns, cell: cell, within: tolerance / 2)
        } else if w % 2 == 0 && h % 2 == 0 {
          leaf = fanError(heights, columns: columns, cell: cell, within: tolerance)
        }
      }
      if leaf {
        leaves.append(Leaf(cell: cell, kind: .fill))
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
