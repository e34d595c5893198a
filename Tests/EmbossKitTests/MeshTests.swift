import EmbossKit
import Foundation
import XCTest

/// The relief as a solid: closed and oriented by construction, to size, within its
/// tolerance of the exact relief, the same bytes for any thread count.
final class MeshTests: XCTestCase {
  func textMask(_ text: String = "Ag&", size: Float = 80) throws -> CoverageMask {
    try TextLayout(text: text, font: try Fixtures.font(), style: TextStyle(pixelSize: size))
      .rasterize()
  }

  /// What keeps a mesh from being closed, or nil.
  ///
  /// Closed: every edge in exactly two triangles, once each way; no triangle without area;
  /// no two vertices at one point; every vertex used.
  static func closedness(_ mesh: TriangleMesh) -> String? {
    var directed: [SIMD2<UInt32>: Int] = [:]
    for t in mesh.triangles {
      for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
        directed[SIMD2(a, b), default: 0] += 1
      }
      let p = SIMD3<Double>(mesh.vertices[Int(t.x)])
      let q = SIMD3<Double>(mesh.vertices[Int(t.y)])
      let r = SIMD3<Double>(mesh.vertices[Int(t.z)])
      let e = q - p
      let f = r - p
      let n = SIMD3(e.y * f.z - e.z * f.y, e.z * f.x - e.x * f.z, e.x * f.y - e.y * f.x)
      if (n * n).sum() <= 1e-18 { return "degenerate triangle \(t)" }
    }
    for (edge, count) in directed {
      if count != 1 { return "edge \(edge) used \(count) times the same way" }
      if directed[SIMD2(edge.y, edge.x)] != 1 {
        let (a, b) = (mesh.vertices[Int(edge.x)], mesh.vertices[Int(edge.y)])
        return "edge \(edge) (\(a) to \(b)) has no opposite"
      }
    }
    if Set(mesh.vertices.map { [$0.x, $0.y, $0.z] }).count != mesh.vertices.count {
      return "two vertices at one point"
    }
    var used = [Bool](repeating: false, count: mesh.vertices.count)
    for t in mesh.triangles { for v in [t.x, t.y, t.z] { used[Int(v)] = true } }
    if let unused = used.firstIndex(of: false) { return "vertex \(unused) unused" }
    return nil
  }

  /// How many connected pieces a mesh has (triangles sharing an edge).
  static func pieces(_ mesh: TriangleMesh) -> Int {
    var parent = Array(0..<mesh.triangles.count)
    func find(_ i: Int) -> Int {
      var i = i
      while parent[i] != i {
        parent[i] = parent[parent[i]]
        i = parent[i]
      }
      return i
    }
    var byEdge: [SIMD2<UInt32>: Int] = [:]
    for (k, t) in mesh.triangles.enumerated() {
      for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
        let key = SIMD2(min(a, b), max(a, b))
        if let other = byEdge[key] { parent[find(k)] = find(other) } else { byEdge[key] = k }
      }
    }
    return Set(mesh.triangles.indices.map(find)).count
  }

  /// The largest distance, in mm along z, between the top surface and the corner samples.
  static func departure(_ mesh: TriangleMesh, heights: Plane, spec: MeshSpec) -> Double {
    let h = heights.height - 1
    var worst = 0.0
    for t in mesh.triangles {
      let p = [t.x, t.y, t.z].map {
        SIMD3<Double>(mesh.vertices[Int($0)]) / spec.millimetresPerPixel
      }
      // Top triangles only (facing up).
      let e = p[1] - p[0]
      let f = p[2] - p[0]
      let area = e.x * f.y - e.y * f.x
      guard area > 1e-12 else { continue }
      let xs = p.map(\.x)
      let ys = p.map(\.y)
      let (i0, i1) = (Int(xs.min()!.rounded(.up)), Int(xs.max()!.rounded(.down)))
      let (y0, y1) = (Int(ys.min()!.rounded(.up)), Int(ys.max()!.rounded(.down)))
      guard i0 <= i1, y0 <= y1 else { continue }
      for i in i0...i1 {
        for y in y0...y1 {
          let q = SIMD2(Double(i), Double(y))
          let l1 = ((p[1].x - q.x) * (p[2].y - q.y) - (p[1].y - q.y) * (p[2].x - q.x)) / area
          let l2 = ((p[2].x - q.x) * (p[0].y - q.y) - (p[2].y - q.y) * (p[0].x - q.x)) / area
          let l3 = 1 - l1 - l2
          guard l1 >= -1e-9, l2 >= -1e-9, l3 >= -1e-9 else { continue }
          let z = (l1 * p[0].z + l2 * p[1].z + l3 * p[2].z) * spec.millimetresPerPixel
          let exact = spec.base + spec.height * Double(heights[i, h - y])
          worst = max(worst, abs(z - exact))
        }
      }
    }
    return worst
  }

  func testTextGivesAClosedSolidToSizeWithinTheTolerance() throws {
    let mask = try textMask()
    for direction in [ReliefDirection.raised, .lowered] {
      let relief = try ReliefSpec(radius: 5, direction: direction)
      let spec = MeshSpec(millimetresPerPixel: 0.1, height: 1, base: 2)
      let heights = ReliefMesh.cornerHeights(mask: mask, relief: relief, parallelism: .serial)
      let mesh = ReliefMesh.make(heights: heights, spec: spec)
      XCTAssertNil(Self.closedness(mesh), "\(direction)")
      let xs = mesh.vertices.map(\.x)
      let ys = mesh.vertices.map(\.y)
      let zs = mesh.vertices.map(\.z)
      XCTAssertEqual(Double(xs.min()!), 0)
      XCTAssertEqual(Double(xs.max()!), Double(mask.width) * 0.1, accuracy: 1e-5)
      XCTAssertEqual(Double(ys.min()!), 0)
      XCTAssertEqual(Double(ys.max()!), Double(mask.height) * 0.1, accuracy: 1e-5)
      XCTAssertEqual(zs.min(), 0)
      XCTAssertEqual(Double(zs.max()!), direction == .raised ? 3 : 2, accuracy: 1e-6)
      if direction == .lowered {
        XCTAssertEqual(Double(zs.filter { $0 > 0 }.min()!), 1, accuracy: 1e-6, "the deepest cut")
      }
      XCTAssertLessThanOrEqual(
        Self.departure(mesh, heights: heights, spec: spec), spec.tolerance + 1e-5)
      XCTAssertEqual(spec.tolerance, 0.025, "a quarter pixel")
      // The volume: the plate and the relief's integral over the corner samples (the
      // trapezoidal rule), within 0.5%.
      var integral = 0.0
      for j in 0..<heights.height {
        for i in 0..<heights.width {
          let weight =
            (i == 0 || i == heights.width - 1 ? 0.5 : 1)
            * (j == 0 || j == heights.height - 1 ? 0.5 : 1)
          integral += weight * Double(heights[i, j])
        }
      }
      let expected =
        Double(mask.width * mask.height) * 0.01 * 2 + integral * 0.01 * spec.height
      XCTAssertEqual(mesh.volume, expected, accuracy: expected * 0.005, "\(direction)")
      // Adaptive: fewer than half the triangles of a full-resolution grid, even on a bevel
      // this narrow and steep (5 px rising 1 mm at 0.1 mm a pixel).
      XCTAssertLessThan(mesh.triangles.count, mask.width * mask.height, "\(direction)")
    }
  }

  func testCornerHeightsAreTheExactReliefAtTheCorners() throws {
    // A rectangle on pixel boundaries: its distance at a corner is known exactly.
    let mask = Fixtures.mask(width: 100, height: 80) { x, y in
      x >= 20 && x <= 80 && y >= 20 && y <= 60
    }
    let relief = try ReliefSpec(radius: 10, profile: .linear)
    let heights = ReliefMesh.cornerHeights(mask: mask, relief: relief, parallelism: .serial)
    XCTAssertEqual(heights.width, 101)
    XCTAssertEqual(heights.height, 81)
    var worst: Float = 0
    for j in 0...80 {
      for i in 0...100 {
        let d = Float(min(i - 20, 80 - i, j - 20, 60 - j))
        let exact = d <= 0 ? 0 : min(1, d / 10)
        worst = max(worst, abs(heights[i, j] - exact))
      }
    }
    XCTAssertLessThan(worst, 1e-3)
  }

  func testAPictureWithAHoleAndAnyThreadCountGiveTheSameClosedSolid() throws {
    // A ring: ink with a hole, from a picture (a traced outline).
    let ring = Fixtures.mask(width: 90, height: 70) { x, y in
      let r = ((x - 45) * (x - 45) + (y - 35) * (y - 35)).squareRoot()
      return r <= 28 && r >= 12
    }
    let relief = try ReliefSpec(radius: 6)
    let spec = MeshSpec(millimetresPerPixel: 25.4 / 300)
    let one = try ReliefMesh.make(mask: ring, relief: relief, spec: spec, parallelism: .serial)[0]
    XCTAssertNil(Self.closedness(one))
    let four = try ReliefMesh.make(
      mask: ring, relief: relief, spec: spec, parallelism: Parallelism(threads: 4))[0]
    XCTAssertEqual(one, four)
    XCTAssertEqual(MeshFile.stl(one), MeshFile.stl(four))
    XCTAssertEqual(try MeshFile.threeMF([one]), try MeshFile.threeMF([four]))
  }

  func testAFlatPlateIsAFewTriangles() {
    let flat = Plane(width: 301, height: 101)
    let mesh = ReliefMesh.make(heights: flat, spec: MeshSpec(millimetresPerPixel: 0.1))
    XCTAssertNil(Self.closedness(mesh))
    XCTAssertLessThan(mesh.triangles.count, 200)
    XCTAssertEqual(mesh.volume, 30 * 10 * 2, accuracy: 1e-3)
  }

  func testSTLAndThreeMFFiles() throws {
    let mesh = try ReliefMesh.make(
      mask: try textMask("e", size: 40), relief: try ReliefSpec(radius: 5),
      spec: MeshSpec(millimetresPerPixel: 0.1))[0]
    let stl = MeshFile.stl(mesh)
    XCTAssertEqual(stl.count, 84 + 50 * mesh.triangles.count)
    XCTAssertEqual(
      stl.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 80, as: UInt32.self) },
      UInt32(mesh.triangles.count))
    // The first triangle's vertices, as written.
    let first = (0..<9).map { k in
      stl.withUnsafeBytes {
        Float(bitPattern: $0.loadUnaligned(fromByteOffset: 96 + 4 * k, as: UInt32.self))
      }
    }
    let t = mesh.triangles[0]
    XCTAssertEqual(
      first,
      [t.x, t.y, t.z].flatMap { v in
        [mesh.vertices[Int(v)].x, mesh.vertices[Int(v)].y, mesh.vertices[Int(v)].z]
      })
    let package = try MeshFile.threeMF([mesh])
    XCTAssertEqual(Array(package.prefix(4)), [0x50, 0x4b, 0x03, 0x04], "a zip")
    for name in ["[Content_Types].xml", "_rels/.rels", "3D/3dmodel.model"] {
      XCTAssertNotNil(package.range(of: Data(name.utf8)), name)
    }
    XCTAssertEqual(try MeshFile.threeMF([mesh]), package, "the same bytes every time")
    var decimals: [UInt8] = []
    for value: Float in [0, 1, -2.5, 0.0001, 123.45678, -0.00004] {
      MeshFile.appendDecimal(value, to: &decimals)
      decimals.append(32)
    }
    XCTAssertEqual(String(decoding: decimals, as: UTF8.self), "0 1 -2.5 0.0001 123.4568 0 ")
  }

  func testPlatesLettersAndWallsGiveClosedSolids() throws {
    try closedSolids(
      try TextLayout(
        text: "Ro&", font: try Fixtures.font(), style: TextStyle(pixelSize: 60, padding: 12)
      ).rasterize())
    // Glyphs that overlap (tight spacing; joined scripts do it too): one region, not two
    // outlines crossing.
    try closedSolids(
      try TextLayout(
        text: "TT", font: try Fixtures.font(),
        style: TextStyle(pixelSize: 60, letterSpacing: -10, padding: 12)
      ).rasterize(), parts: 1)
  }

  /// Every plate, letter, wall and split case of `mask` is closed; `parts`: the letters'
  /// connected pieces, when given.
  func closedSolids(_ mask: CoverageMask, parts: Int? = nil) throws {
    let cases: [(name: String, base: Double, wall: Double, plate: MeshSpec.Plate, split: Bool)] = [
      ("letters alone", 0, 0, .rectangle, false),
      ("letters alone on a wall", 0, 0.5, .rectangle, false),
      ("a wall on the plate", 2, 0.5, .rectangle, false),
      ("an outline plate", 2, 0, .outline, false),
      ("an outline plate and a wall", 2, 0.5, .outline, false),
      ("split", 2, 0, .rectangle, true),
      ("split outline", 2, 0.3, .outline, true),
    ]
    for direction in [ReliefDirection.raised, .lowered] {
      let relief = try ReliefSpec(radius: 4, direction: direction)
      for c in cases where direction == .raised || (c.base > 0 && !c.split) {
        var spec = MeshSpec(millimetresPerPixel: 0.1, height: 1, base: c.base)
        spec.wall = c.wall
        spec.plate = c.plate
        spec.plateOffset = 6
        let objects = try ReliefMesh.make(mask: mask, relief: relief, spec: spec, split: c.split)
        XCTAssertEqual(objects.count, c.split ? 2 : 1, c.name)
        for (k, mesh) in objects.enumerated() {
          XCTAssertNil(Self.closedness(mesh), "\(direction) \(c.name) \(k)")
          XCTAssertGreaterThan(mesh.volume, 0, "\(direction) \(c.name) \(k)")
        }
        if let parts, c.name == "letters alone" {
          XCTAssertEqual(Self.pieces(objects[0]), parts, "\(direction) \(c.name)")
        }
      }
    }
  }

  /// A speck inside one pixel is left out of a solid: alone, it is an error, not an empty
  /// file.
  func testASpeckAloneIsAnError() throws {
    var plane = Plane(width: 20, height: 20)
    plane[10, 10] = 0.6
    let speck = CoverageMask(plane: plane)
    let request = MeshRequest(path: "s.stl", format: .stl, base: 0)
    XCTAssertThrowsError(
      try request.file(mask: speck, relief: try ReliefSpec(radius: 2), dpi: 254)
    ) { error in
      XCTAssertTrue(
        (error as? EmbossError)?.message.contains("too small to stand as a solid") ?? false,
        "\(error)")
    }
    // On a plate it is simply left out.
    XCTAssertNoThrow(
      try MeshRequest(path: "s.stl", format: .stl).file(
        mask: speck, relief: try ReliefSpec(radius: 2), dpi: 254))
  }
}
