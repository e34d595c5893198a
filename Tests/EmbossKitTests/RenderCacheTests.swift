import XCTest

@testable import EmbossKit
@testable import EmbossCompositing
@testable import EmbossEngrave
@testable import EmbossMaterials
@testable import EmbossModel
@testable import EmbossRaster
@testable import EmbossRelief
@testable import EmbossShading
@testable import EmbossSupport
@testable import EmbossText

/// The stage cache only memoizes: a render through a cache that saw other materials before
/// equals a fresh render byte for byte, and each stage re-runs exactly when its inputs change.
final class RenderCacheTests: XCTestCase {
  /// "Kw4" at 40 px: an acute corner, a crease and an edge, small enough to be quick.
  func mask() throws -> CoverageMask {
    try TextLayout(text: "Kw4", font: try Fixtures.font(), style: TextStyle(pixelSize: 40)).rasterize()
  }

  func material() throws -> MaterialSpec {
    var spec = try MaterialLoader.load("default", library: Fixtures.resources.materialLibrary)
    spec.shadingSize = 96
    return spec
  }

  /// Each edit, applied in turn to the material of the step before, and the stages it must
  /// re-run (the rest come from the cache).
  func edits() -> [(name: String, edit: (inout MaterialSpec) -> Void, stages: [String])] {
    [
      ("light intensity", { $0.lights[0].intensity *= 0.7 }, ["shading image", "composite"]),
      ("light position", { $0.lights[0].position = SIMD3(0.3, 0.8, 0.5) }, ["shading image", "composite"]),
      ("shininess", { $0.surface.shininess += 17 }, ["shading image", "composite"]),
      ("environment", { $0.environment.intensity = 0.4 }, ["shading image", "composite"]),
      ("background", { $0.background = .color(SIMD3(0.1, 0.3, 0.2)) }, ["composite"]),
      ("depth", { $0.relief.depth = .pixels(6) }, ["normals", "shading image", "composite"]),
      // The ball is whole (shaded for a new lookup map), so it serves any lookup.
      ("radius", { $0.relief.radius = 5 }, ["height field", "normals", "composite"]),
      ("profile", { $0.relief.profile = .chiselHard }, ["height field", "normals", "composite"]),
      ("ball size", { $0.shadingSize = 64 }, ["normals", "ball geometry", "shading image", "composite"]),
      ("light again", { $0.lights[0].color = SIMD3(1, 0.8, 0.6) }, ["shading image", "composite"]),
    ]
  }

  /// "none", or how many pixels differ and where the first is.
  static func difference(_ a: Render, _ b: Render) -> String {
    let x = a.image.flattened()
    let y = b.image.flattened()
    guard x.width == y.width, x.height == y.height else { return "sizes differ" }
    let differing = x.pixels.indices.filter { x.pixels[$0] != y.pixels[$0] }
    guard let first = differing.first else { return "none" }
    return "\(differing.count) pixels, first at (\(first % x.width), \(first / x.width)): \(x.pixels[first]) vs \(y.pixels[first])"
  }

  func testCachedRendersEqualFreshRendersAndRerunOnlyWhatChanged() throws {
    let mask = try mask()
    var spec = try material()
    let cache = RenderCache()
    _ = cache.render(mask: mask, material: spec, parallelism: .serial)
    for (name, edit, stages) in edits() {
      edit(&spec)
      let cached = cache.render(mask: mask, material: spec, parallelism: .serial)
      let fresh = Render(mask: mask, material: spec, parallelism: .serial)
      XCTAssertEqual(Self.difference(cached, fresh), "none", "\(name): same picture")
      XCTAssertEqual(cached.timings.stages.map(\.name), stages, "\(name): stages re-run")
    }
    // Nothing changed: nothing runs but the composite.
    let again = cache.render(mask: mask, material: spec, parallelism: .serial)
    XCTAssertEqual(again.timings.stages.map(\.name), ["composite"])
  }

  /// A relight after a relight re-shades only the texels the composite reads; those must be
  /// every texel any lookup touches, or the picture differs from a fresh render.
  func testPartialReshadingReadsEveryTexelItNeeds() throws {
    let mask = try mask()
    var spec = try material()
    let cache = RenderCache()
    _ = cache.render(mask: mask, material: spec, parallelism: .serial)
    for step in 0..<3 {
      spec.lights[0].position = SIMD3(Float(step) * 0.4 - 0.6, 0.7, 0.6)
      let cached = cache.render(mask: mask, material: spec, parallelism: .serial)
      XCTAssertFalse(cached.shadingIsComplete, "step \(step): partial re-shading")
      let fresh = Render(mask: mask, material: spec, parallelism: .serial)
      XCTAssertEqual(Self.difference(cached, fresh), "none", "step \(step)")
    }
  }
}
