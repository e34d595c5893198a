import EmbossRaster

/// The plane triangulation of a region of the corner grid bounded by closed polygons (the
/// ink's outline, or an outline grown into a plate): cells wholly inside are the
/// subdivision's fans and strips, as `ReliefMesh` makes them; pixels the boundary crosses
/// are cut along it, each inked piece triangulated by ear clipping.
///
/// The boundary is first moved off the grid by at most `margin` pixels: no polygon vertex
/// within `margin` of a grid line, no crossing of a grid line within `margin` of a grid
/// node, so no triangle is a sliver that 32-bit coordinates would flatten. Vertices are
/// shared by position through a `VertexTable`, so two regions cut by the same polygons meet
/// vertex for vertex along them.
struct RegionMesh {
  /// Where the grid's points are: the corner grid's nodes, and points on the boundary.
  final class VertexTable {
    /// Positions in pixels (y down).
    private(set) var points: [SIMD2<Double>] = []
    /// The grid node of each point (row-major over the corner grid), or -1 on the boundary.
    private(set) var nodes: [Int32] = []
    private var byNode: [Int32: Int32] = [:]
    private var byPosition: [SIMD2<Double>: Int32] = [:]
    let columns: Int

    init(columns: Int) { self.columns = columns }

    func node(_ i: Int, _ j: Int) -> Int32 {
      let key = Int32(j * columns + i)
      if let id = byNode[key] { return id }
      let id = Int32(points.count)
      points.append(SIMD2(Double(i), Double(j)))
      nodes.append(key)
      byNode[key] = id
      return id
    }

    func boundary(_ p: SIMD2<Double>) -> Int32 {
      if let id = byPosition[p] { return id }
      let id = Int32(points.count)
      points.append(p)
      nodes.append(-1)
      byPosition[p] = id
      return id
    }
  }

  /// How far the boundary is kept from grid lines and nodes, in pixels.
  static let margin = 0.004

  /// `value` at least `margin` from the nearest integer.
  @inline(__always)
  static func offGrid(_ value: Double) -> Double {
    let floor = value.rounded(.down)
    let fraction = value - floor
    if fraction < margin { return floor + margin }
    if fraction > 1 - margin { return floor + 1 - margin }
    return value
  }

  /// A piece of one polygon edge inside one pixel.
  struct Fragment {
    var pixel: Int32
    var start: Int32
    var end: Int32
    /// Perimeter positions (0..<4 clockwise from the top left corner) where the fragment
    /// enters and leaves the pixel; -1 where it starts or ends at a polygon vertex inside.
    var entry: Double
    var exit: Double
  }

  /// The corner grid's width (`width` + 1).
  let columns: Int
  /// The grid's width in pixels.
  let width: Int
  /// The grid's height in pixels.
  let height: Int
  /// Where the vertices are kept (shared with other regions on the same grid).
  let table: VertexTable
  /// The boundary's pieces in each pixel it crosses, sorted by pixel.
  let fragments: [Fragment]
  /// Whether each grid node is in the region.
  let inside: [Bool]
  /// A prefix sum over the pixels the boundary crosses ((width + 1) x (height + 1)).
  let crossed: [Int32]

  /// The region of the grid `polygons` bound, cut along them.
  ///
  /// Finds every pixel the boundary crosses, and which nodes are inside. Its triangles come
  /// from `triangles`, at any tolerance, without cutting the grid again.
  ///
  /// - Parameters:
  ///   - polygons: closed polygons with the region on the right of travel on screen (outer
  ///     boundaries clockwise, holes counterclockwise); every point strictly inside the grid.
  ///   - outside: the region is what the polygons leave out (their complement in the grid).
  ///   - columns: the corner grid's width (`width` + 1).
  ///   - width: the grid's width in pixels.
  ///   - height: the grid's height in pixels.
  ///   - table: where the vertices are kept (shared with other regions on the same grid).
  init(
    polygons: [[SIMD2<Double>]], outside: Bool, columns: Int, width: Int, height: Int,
    table: VertexTable
  ) {
    self.columns = columns
    self.width = width
    self.height = height
    self.table = table
    // Off the grid, without repeated points.
    var rings: [[SIMD2<Double>]] = []
    for polygon in polygons {
      var ring: [SIMD2<Double>] = []
      for p in polygon {
        let q = SIMD2(Self.offGrid(p.x), Self.offGrid(p.y))
        if ring.last != q { ring.append(q) }
      }
      while ring.count > 1 && ring.first == ring.last { ring.removeLast() }
      if ring.count >= 3 { rings.append(ring) }
    }
    // Walk every edge through the pixels it crosses.
    var fragments: [Fragment] = []
    var rowCrossings = [[Double]](repeating: [], count: height + 1)
    for ring in rings {
      for k in ring.indices {
        Self.walk(
          ring[k], ring[(k + 1) % ring.count], width: width, table: table,
          fragments: &fragments, rowCrossings: &rowCrossings)
      }
    }
    // Nodes inside: the parity of the crossings left of them on their row.
    var inside = [Bool](repeating: false, count: columns * (height + 1))
    for j in 0...height {
      let xs = rowCrossings[j].sorted()
      var next = 0
      var parity = false
      for i in 0...width {
        while next < xs.count && xs[next] < Double(i) {
          parity.toggle()
          next += 1
        }
        inside[j * columns + i] = parity != outside
      }
    }
    // Pixels the boundary crosses, and a prefix sum of them for whole cells.
    fragments.sort { ($0.pixel, $0.start) < ($1.pixel, $1.start) }
    var crossed = [Int32](repeating: 0, count: (width + 1) * (height + 1))
    for f in fragments {
      let (y, x) = Int(f.pixel).quotientAndRemainder(dividingBy: width)
      crossed[(y + 1) * (width + 1) + x + 1] = 1
    }
    for y in 1...height {
      for x in 1...width {
        let k = y * (width + 1) + x
        crossed[k] += crossed[k - 1] + crossed[k - width - 1] - crossed[k - width - 2]
      }
    }
    self.fragments = fragments
    self.inside = inside
    self.crossed = crossed
  }

  /// Whether the boundary crosses any pixel of `cell`.
  private func crosses(_ cell: ReliefMesh.Cell) -> Bool {
    let w1 = width + 1
    let (x0, y0, x1, y1) = (cell.x, cell.y, cell.x + cell.width, cell.y + cell.height)
    return crossed[y1 * w1 + x1] - crossed[y0 * w1 + x1] - crossed[y1 * w1 + x0]
      + crossed[y0 * w1 + x0] > 0
  }

  /// The region's triangles.
  ///
  /// - Parameters:
  ///   - heights: the corner grid's heights, which decide how far inside cells are split.
  ///   - tolerance: how far a filled cell's fan may depart from the heights.
  /// - Returns: triangles as vertex ids of `table`, clockwise on screen (the fans'
  ///   orientation). The cut pixels' triangles are the same at any tolerance.
  func triangles(heights: UnsafeBufferPointer<Float>, tolerance: Float) -> [SIMD3<Int32>] {
    let (columns, width, inside, fragments, table) = (
      self.columns, self.width, self.inside, self.fragments, self.table
    )
    let leaves = ReliefMesh.subdivide(
      heights: heights, columns: columns, width: width, height: height, tolerance: tolerance,
      keep: { cell in
        if crosses(cell) { return cell.width == 1 && cell.height == 1 ? .clip : .split }
        return inside[cell.y * columns + cell.x] ? .fill : .drop
      })
    var used = [Bool](repeating: false, count: columns * (height + 1))
    var triangles: [SIMD3<Int32>] = []
    // Cut pixels first: they say which of their corners are vertices.
    var filled: [ReliefMesh.Cell] = []
    for leaf in leaves {
      guard leaf.kind == .clip else {
        filled.append(leaf.cell)
        for (i, j) in leaf.cell.corners { used[j * columns + i] = true }
        continue
      }
      let pixel = Int32(leaf.cell.y * width + leaf.cell.x)
      // The pixel's fragments (leaves come in the subdivision's order, not the pixels').
      var low = 0
      var high = fragments.count
      while low < high {
        let middle = (low + high) / 2
        if fragments[middle].pixel < pixel { low = middle + 1 } else { high = middle }
      }
      let start = low
      var end = start
      while end < fragments.count && fragments[end].pixel == pixel { end += 1 }
      for piece in Self.pieces(
        Array(fragments[start..<end]), cell: leaf.cell,
        cornerInside: inside[leaf.cell.y * columns + leaf.cell.x], table: table)
      {
        for id in piece where table.nodes[Int(id)] >= 0 { used[Int(table.nodes[Int(id)])] = true }
        Self.earClip(piece, table: table, into: &triangles)
      }
    }
    for cell in filled {
      ReliefMesh.triangulate(cell, columns: columns, used: used, into: &triangles) {
        table.node($0, $1)
      }
    }
    return triangles
  }

  /// Walks edge a -> b through the pixels it crosses, appending one fragment per pixel, and
  /// the x of every crossing of a node row to `rowCrossings`.
  ///
  /// The walk always goes from the edge's lower end (by x, then y) to the other, so an edge
  /// walked either way (the same boundary seen from its two sides) crosses the same pixels
  /// at the same points.
  static func walk(
    _ a: SIMD2<Double>, _ b: SIMD2<Double>, width: Int, table: VertexTable,
    fragments: inout [Fragment], rowCrossings: inout [[Double]]
  ) {
    let forward = (a.x, a.y) < (b.x, b.y)
    let (lo, hi) = forward ? (a, b) : (b, a)
    // The pixels from lo to hi, and the points where the walk leaves each but the last.
    var pixels: [(Int, Int)] = []
    var crossings: [SIMD2<Double>] = []
    var px = Int(lo.x.rounded(.down))
    var py = Int(lo.y.rounded(.down))
    let endX = Int(hi.x.rounded(.down))
    let endY = Int(hi.y.rounded(.down))
    let stepX = hi.x > lo.x ? 1 : -1
    let stepY = hi.y > lo.y ? 1 : -1
    let d = hi - lo
    var steps = abs(endX - px) + abs(endY - py) + 2
    pixels.append((px, py))
    while px != endX || py != endY, steps > 0 {
      steps -= 1
      // The next vertical and horizontal grid lines toward hi, and when the edge meets them.
      let lineX = Double(stepX > 0 ? px + 1 : px)
      let lineY = Double(stepY > 0 ? py + 1 : py)
      let tx = d.x != 0 && px != endX ? (lineX - lo.x) / d.x : .infinity
      let ty = d.y != 0 && py != endY ? (lineY - lo.y) / d.y : .infinity
      if tx < ty {
        let y = lo.y + (lineX - lo.x) * d.y / d.x
        // Inside this row, away from its nodes.
        crossings.append(
          SIMD2(lineX, min(max(y, Double(py) + margin), Double(py) + 1 - margin)))
        px += stepX
      } else {
        let x = lo.x + (lineY - lo.y) * d.x / d.y
        let point = SIMD2(min(max(x, Double(px) + margin), Double(px) + 1 - margin), lineY)
        crossings.append(point)
        rowCrossings[Int(lineY)].append(point.x)
        py += stepY
      }
      pixels.append((px, py))
    }
    if !forward {
      pixels.reverse()
      crossings.reverse()
    }
    // The perimeter position of a point on pixel (px, py)'s sides.
    func perimeter(_ p: SIMD2<Double>, _ pixel: (Int, Int)) -> Double {
      let u = p.x - Double(pixel.0)
      let v = p.y - Double(pixel.1)
      if v <= 0 { return u }
      if u >= 1 { return 1 + v }
      if v >= 1 { return 2 + (1 - u) }
      return 3 + (1 - v)
    }
    var current = table.boundary(a)
    var entry = -1.0
    for (k, pixel) in pixels.enumerated() {
      let last = k == pixels.count - 1
      let end = last ? table.boundary(b) : table.boundary(crossings[k])
      fragments.append(
        Fragment(
          pixel: Int32(pixel.1 * width + pixel.0), start: current, end: end, entry: entry,
          exit: last ? -1 : perimeter(crossings[k], pixel)))
      if !last {
        current = end
        entry = perimeter(crossings[k], pixels[k + 1])
      }
    }
  }

  /// The region's pieces of one cut pixel.
  ///
  /// Chains of fragments from where the boundary enters to where it leaves, joined along
  /// the pixel's sides (clockwise, with the corners passed on the way). Without a chain
  /// across it, the whole pixel or nothing.
  static func pieces(
    _ fragments: [Fragment], cell: ReliefMesh.Cell, cornerInside: Bool, table: VertexTable
  ) -> [[Int32]] {
    let corners = cell.corners.map { table.node($0.0, $0.1) }
    var chains: [(entry: Double, exit: Double, points: [Int32])] = []
    var startingAt: [Int32: Int] = [:]
    for (k, f) in fragments.enumerated() where f.entry < 0 { startingAt[f.start] = k }
    for f in fragments where f.entry >= 0 {
      var points = [f.start]
      var g = f
      var steps = 0
      while g.exit < 0, let k = startingAt[g.end], steps <= fragments.count {
        points.append(g.end)
        g = fragments[k]
        steps += 1
      }
      guard g.exit >= 0 else { continue }
      points.append(g.end)
      chains.append((f.entry, g.exit, points))
    }
    guard !chains.isEmpty else { return cornerInside ? [corners] : [] }
    chains.sort { $0.entry < $1.entry }
    var done = [Bool](repeating: false, count: chains.count)
    var pieces: [[Int32]] = []
    for first in chains.indices where !done[first] {
      var piece: [Int32] = []
      var c = first
      while !done[c] {
        done[c] = true
        piece += chains[c].points
        let s = chains[c].exit
        // The next entry clockwise from here.
        var next = 0
        var best = Double.infinity
        for (k, chain) in chains.enumerated() {
          var gap = chain.entry - s
          if gap <= 0 { gap += 4 }
          if gap < best {
            best = gap
            next = k
          }
        }
        // Corners on the way, in order: 1 top right, 2 bottom right, 3 bottom left, 4 (0)
        // top left.
        var passed: [(gap: Double, corner: Int)] = []
        for corner in 1...4 {
          var gap = Double(corner) - s
          if gap <= 0 { gap += 4 }
          if gap < best { passed.append((gap, corner)) }
        }
        for (_, corner) in passed.sorted(by: { $0.gap < $1.gap }) {
          piece.append(corners[corner % 4])
        }
        c = next
      }
      pieces.append(piece)
    }
    return pieces
  }

  /// Triangulates a simple polygon (clockwise on screen) by ear clipping.
  static func earClip(_ polygon: [Int32], table: VertexTable, into triangles: inout [SIMD3<Int32>])
  {
    var ring = polygon
    // Repeated points (a chain ending on the corner it starts from) add nothing.
    var k = 0
    while ring.count > 1 && k < ring.count {
      if ring[k] == ring[(k + 1) % ring.count] { ring.remove(at: k) } else { k += 1 }
    }
    func point(_ id: Int32) -> SIMD2<Double> { table.points[Int(id)] }
    func cross(_ a: Int32, _ b: Int32, _ c: Int32) -> Double {
      let p = point(a)
      let q = point(b)
      let r = point(c)
      return (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }
    var stuck = 0
    var i = 0
    while ring.count > 3 {
      let n = ring.count
      let (a, b, c) = (ring[(i + n - 1) % n], ring[i % n], ring[(i + 1) % n])
      var ear = cross(a, b, c) > 1e-12
      if ear {
        for v in ring where v != a && v != b && v != c {
          if cross(a, b, v) >= 0 && cross(b, c, v) >= 0 && cross(c, a, v) >= 0 {
            ear = false
            break
          }
        }
      }
      if ear {
        triangles.append(SIMD3(a, b, c))
        ring.remove(at: i % n)
        stuck = 0
        i = max(0, i - 1)
      } else {
        i += 1
        stuck += 1
        if stuck > 2 * n {
          // No ear (points on one line): a fan, which is then exact.
          for k in 1..<(ring.count - 1) { triangles.append(SIMD3(ring[0], ring[k], ring[k + 1])) }
          return
        }
      }
    }
    if ring.count == 3, cross(ring[0], ring[1], ring[2]) > 1e-12 {
      triangles.append(SIMD3(ring[0], ring[1], ring[2]))
    }
  }
}
