import EmbossSupport
import Foundation

/// The files a mesh is written as: binary STL and 3MF, both in millimetres.
public enum MeshFile {
  /// The format a mesh file is written in, by its name's extension.
  public enum Format: String, Sendable, CaseIterable {
    /// Binary STL (no unit in the file; millimetres by convention).
    case stl
    /// 3MF: a zip package whose model says `unit="millimeter"`.
    case threeMF = "3mf"

    /// The format a path's extension names (case-insensitive), nil for another.
    public init?(path: String) {
      let ext = (path as NSString).pathExtension.lowercased()
      self.init(rawValue: ext)
    }
  }

  /// `objects` in `format` (an STL holds their triangles together; a 3MF one object each,
  /// named `names`).
  ///
  /// - Throws: `EmbossError` only when the zip library cannot be loaded or fails (a 3MF).
  public static func encode(
    _ objects: [TriangleMesh], names: [String] = [], format: Format
  ) throws(EmbossError) -> Data {
    switch format {
    case .stl:
      var all = TriangleMesh()
      for object in objects {
        let base = UInt32(all.vertices.count)
        all.vertices += object.vertices
        all.triangles += object.triangles.map { $0 &+ base }
      }
      return stl(all)
    case .threeMF: return try threeMF(objects, names: names)
    }
  }

  /// Binary STL: an 80-byte header, the triangle count, and per triangle its unit normal,
  /// its three vertices (32-bit floats, little-endian) and a zero attribute.
  public static func stl(_ mesh: TriangleMesh) -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(84 + 50 * mesh.triangles.count)
    var header = Array("emboss relief, binary STL, millimetres".utf8)
    header += [UInt8](repeating: 0x20, count: 80 - header.count)
    out += header
    func append(_ value: UInt32) {
      out += [
        UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff),
        UInt8(value >> 24),
      ]
    }
    func append(_ v: SIMD3<Float>) {
      append(v.x.bitPattern)
      append(v.y.bitPattern)
      append(v.z.bitPattern)
    }
    append(UInt32(mesh.triangles.count))
    for t in mesh.triangles {
      let a = mesh.vertices[Int(t.x)]
      let b = mesh.vertices[Int(t.y)]
      let c = mesh.vertices[Int(t.z)]
      let e = SIMD3<Double>(b - a)
      let f = SIMD3<Double>(c - a)
      var n = SIMD3(e.y * f.z - e.z * f.y, e.z * f.x - e.x * f.z, e.x * f.y - e.y * f.x)
      let length = (n * n).sum().squareRoot()
      if length > 0 { n /= length }
      append(SIMD3<Float>(n))
      append(a)
      append(b)
      append(c)
      out += [0, 0]
    }
    return Data(out)
  }

  /// The 3MF package: content types, the relationship to the model, and the model (one
  /// object per mesh, each a build item; millimetres, coordinates to 0.1 micrometre).
  ///
  /// - Throws: `EmbossError` when the zip library cannot be loaded or fails.
  public static func threeMF(
    _ objects: [TriangleMesh], names: [String] = []
  ) throws(EmbossError) -> Data {
    let contentTypes = """
      <?xml version="1.0" encoding="UTF-8"?>
      <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
        <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
        <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>
      </Types>

      """
    let relationships = """
      <?xml version="1.0" encoding="UTF-8"?>
      <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
        <Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>
      </Relationships>

      """
    var model: [UInt8] = []
    model.reserveCapacity(
      objects.reduce(1024) { $0 + 60 * $1.vertices.count + 50 * $1.triangles.count })
    model += Array(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
       <metadata name="Application">emboss</metadata>
       <resources>

      """.utf8)
    for (k, mesh) in objects.enumerated() {
      let name = k < names.count ? names[k] : "relief"
      model += Array(
        "  <object id=\"\(k + 1)\" type=\"model\" name=\"\(name)\">\n   <mesh>\n    <vertices>\n"
          .utf8)
      for v in mesh.vertices {
        model += Array("     <vertex x=\"".utf8)
        appendDecimal(v.x, to: &model)
        model += Array("\" y=\"".utf8)
        appendDecimal(v.y, to: &model)
        model += Array("\" z=\"".utf8)
        appendDecimal(v.z, to: &model)
        model += Array("\"/>\n".utf8)
      }
      model += Array("    </vertices>\n    <triangles>\n".utf8)
      for t in mesh.triangles {
        model += Array("     <triangle v1=\"\(t.x)\" v2=\"\(t.y)\" v3=\"\(t.z)\"/>\n".utf8)
      }
      model += Array("    </triangles>\n   </mesh>\n  </object>\n".utf8)
    }
    model += Array(" </resources>\n <build>\n".utf8)
    for k in objects.indices { model += Array("  <item objectid=\"\(k + 1)\"/>\n".utf8) }
    model += Array(" </build>\n</model>\n".utf8)
    return try ZipArchive.make([
      ("[Content_Types].xml", Data(contentTypes.utf8)),
      ("_rels/.rels", Data(relationships.utf8)),
      ("3D/3dmodel.model", Data(model)),
    ])
  }

  /// `value` in fixed point with 4 decimals (no exponent, no trailing zeros past the point).
  package static func appendDecimal(_ value: Float, to out: inout [UInt8]) {
    var units = Int64((Double(value) * 10_000).rounded())
    if units < 0 {
      out.append(UInt8(ascii: "-"))
      units = -units
    }
    out += Array(String(units / 10_000).utf8)
    var fraction = units % 10_000
    guard fraction != 0 else { return }
    var digits = 4
    while fraction % 10 == 0 {
      fraction /= 10
      digits -= 1
    }
    out.append(UInt8(ascii: "."))
    let text = String(fraction)
    out += [UInt8](repeating: UInt8(ascii: "0"), count: digits - text.count)
    out += Array(text.utf8)
  }
}
