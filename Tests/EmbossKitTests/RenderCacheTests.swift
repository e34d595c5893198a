import EmbossKit
import XCTest

/// The stage cache only memoizes: a render through a cache that saw other materials before
/// equals a fresh render byte for byte, and each stage re-runs exactly when its inputs change.
final class RenderCacheTests: XCTestCase {
  /// "Kw4" at 40 px: an acute corner, a crease and an edge, small enough to be quick.
  func mask() throws -> CoverageMask {
    try TextLayout(text: "Kw4", font: try Fixtures.font(), style: TextStyle(pixelSize: 40))
      .rasterize()
  }

  func material() throws -> MaterialSpec {
    try MaterialLoader.apply(
      settings: ["shading.size=96"],
      to: try MaterialLoader.load("default", library: Fixtures.resources.materialLibrary))
  }

  /// Each edit (a `--set` value), applied in turn to the material of the step before, and the
  /// stages it must re-run (the rest come from the cache).
  func edits() -> [(name: String, setting: String, stages: [String])] {
    [
      ("light intensity", "lights[0].intensity=0.37", ["shading image", "composite"]),
      ("light position", "lights[0].position=[0.3, 0.8, 0.5]", ["shading image", "composite"]),
      ("shininess", "surface.shininess=49", ["shading image", "composite"]),
      ("environment", "environment.intensity=0.4", ["shading image", "composite"]),
      ("background", "background=#1a4d3a", ["composite"]),
      ("depth", "relief.depth=6px", ["normals", "shading image", "composite"]),
      // The ball is whole (shaded for a new lookup map), so it serves any lookup.
      ("radius", "relief.radius=5", ["height field", "normals", "composite"]),
      ("profile", "relief.profile=chisel-hard", ["height field", "normals", "composite"]),
      ("ball size", "shading.size=64", ["normals", "ball geometry", "shading image", "composite"]),
      ("light again", "lights[0].color=#ffccaa", ["shading image", "composite"]),
    ]
  }

  func render(
    _ mask: CoverageMask, _ spec: MaterialSpec, outputs: RenderOutputs = [],
    cache: StageCache = StageCache(keepsLookupMap: false)
  )
    -> RenderResult
  {
    Pipeline.render(
      RenderInput(mask: mask, material: spec, outputs: outputs, parallelism: .serial), cache: cache)
  }

  /// "none", or how many pixels differ and where the first is.
  static func difference(_ a: CanvasImage?, _ b: CanvasImage?) -> String {
    guard let x = a?.flattened(), let y = b?.flattened() else {
      return a == nil && b == nil ? "none" : "one is missing"
    }
    guard x.width == y.width, x.height == y.height else { return "sizes differ" }
    let differing = x.pixels.indices.filter { x.pixels[$0] != y.pixels[$0] }
    guard let first = differing.first else { return "none" }
    return
      "\(differing.count) pixels, first at (\(first % x.width), \(first / x.width)): \(x.pixels[first]) vs \(y.pixels[first])"
  }

  /// A render that keeps no lookup map makes each band of taps as it composites it: the
  /// same bytes as compositing from the whole map, for every kind of lookup (sub-sampled
  /// edges and creases, hammered ridges, brushed spreads, a camera, a softened field, a
  /// plate, the shape as well as the picture).
  func testBandsMadeAsCompositedEqualTheKeptLookupMap() throws {
    let mask = try mask()
    let base = try material()
    for settings in [
      [], ["detail.hammered=0.7"], ["detail.brushed=0.8", "camera.distance=300"],
      ["relief.soften=2", "detail.sandblasted=0.6"],
      ["detail.grain=0.8", "plate.detail.speckle=0.7"],
      ["detail.grain=0.8", "relief.direction=lowered", "plate.detail.grain=0.5"],
      ["detail.speckle=0.8", "relief.profile=linear", "plate.detail.speckle=0.5"],
    ] {
      let spec = try MaterialLoader.apply(settings: settings, to: base)
      let kept = render(mask, spec, outputs: .shape, cache: StageCache())
      let made = render(mask, spec, outputs: .shape, cache: StageCache(keepsLookupMap: false))
      XCTAssertEqual(Self.difference(kept.image, made.image), "none", "\(settings)")
      XCTAssertEqual(Self.difference(kept.shape, made.shape), "none", "\(settings) shape")
    }
  }

  /// Asked only for an 8-bit picture, the compositor writes the codes itself, from a relief
  /// made a band at a time: the same codes, and the same PNG bytes, as the float picture's
  /// from the whole field.
  ///
  /// A shadow and an occlusion on an opaque background are drawn as each pixel is stored
  /// (raised and lowered, tinted or not, with the content grown to hold them), and over a
  /// plate with detail, made a band at a time with the picture over it; where something else
  /// is laid under the letters (a see-through background under a shadow or an occlusion)
  /// the picture stays float.
  func testPictureCodesAreTheFloatPicturesCodes() throws {
    let mask = try mask()
    let base = try material()
    for (settings, codes) in [
      ([String](), true), (["detail.hammered=0.7"], true),
      (["detail.brushed=0.8", "camera.distance=300"], true),
      (["relief.soften=2", "relief.direction=lowered"], true),
      (["relief.profile=chisel-hard", "relief.direction=lowered", "relief.radius=4"], true),
      (["detail.grain=0.8", "background=transparent"], true),
      (["detail.speckle=0.8", "relief.direction=lowered"], true),
      // A plate with detail: its rows, the picture over them (its shadow drawn) and the
      // occlusion over both, stored as codes a band at a time.
      (["plate.detail.speckle=0.7"], true),
      (["plate.detail.grain=0.6", "shadow.opacity=0.6", "occlusion.strength=0.6"], true),
      (
        [
          "plate.detail.brushed=0.7", "shadow.opacity=0.8", "shadow.distance=7",
          "relief.direction=lowered", "occlusion.strength=0.5",
        ], true
      ),
      (
        [
          "plate.detail.speckle=0.5", "detail.grain=0.8", "occlusion.strength=0.6",
          "relief.soften=2", "shadow.opacity=0.7", "shadow.distance=40",
        ], true
      ),
      (["shadow.opacity=0.6"], true),
      (["shadow.opacity=0.8", "shadow.distance=7", "relief.direction=lowered"], true),
      (["shadow.opacity=0.6", "relief.soften=2", "detail.brushed=0.8"], true),
      (["shadow.opacity=0.7", "shadow.distance=40", "detail.grain=0.8"], true),
      (["shadow.opacity=0.6", "background=transparent"], false),
      (["occlusion.strength=0.6"], true),
      (["occlusion.strength=0.7", "shadow.opacity=0.6", "relief.direction=lowered"], true),
      (["occlusion.strength=0.6", "shadow.opacity=0.6", "relief.soften=2"], true),
      (["occlusion.strength=0.6", "background=transparent"], false),
    ] {
      let spec = try MaterialLoader.apply(settings: settings, to: base)
      let float = render(mask, spec)
      let made = render(mask, spec, outputs: .pictureCodes)
      guard case .linear(let image) = float.picture else {
        return XCTFail("\(settings): a float picture without pictureCodes")
      }
      switch made.picture {
      case .codes(let made):
        XCTAssertTrue(codes, "\(settings): codes made")
        let expected = SRGBCanvas(image)
        XCTAssertEqual(made.fill, expected.fill, "\(settings): fill")
        XCTAssertEqual(made.contentRect, expected.contentRect, "\(settings): content")
        XCTAssertEqual(
          zip(made.content, expected.content).filter { $0 != $1 }.count, 0,
          "\(settings): pixels whose codes differ from the float picture's")
        XCTAssertEqual(
          try PNGCodec.encode(made), try PNGCodec.encode(image), "\(settings): PNG bytes")
      case .linear(let made):
        XCTAssertFalse(codes, "\(settings): float kept")
        XCTAssertEqual(Self.difference(made, image), "none", "\(settings)")
      }
      XCTAssertEqual(made.picture.width, image.width)
      XCTAssertEqual(made.picture.height, image.height)
      // With the shape wanted too (an engraving), the compositor stores the shape's codes
      // beside the picture's, through a plan and through a kept map: the same picture, and
      // the codes of the float shape (over transparent, without the shadow), which engrave
      // to the same bitmap.
      let floatShape = try XCTUnwrap(render(mask, spec, outputs: .shape).shape)
      for cache in [StageCache(keepsLookupMap: false), StageCache()] {
        let both = render(mask, spec, outputs: [.pictureCodes, .shape], cache: cache)
        let route = cache.keepsLookupMap ? "kept map" : "plan"
        XCTAssertEqual(
          Self.difference(both.image, made.image), "none", "\(settings) \(route): picture")
        switch (both.picture, both.shapePicture) {
        case (.codes, .codes(let shape)?):
          XCTAssertTrue(codes, "\(settings) \(route): codes made")
          XCTAssertEqual(shape, SRGBCanvas(floatShape), "\(settings) \(route): shape codes")
          for negative in [false, true] {
            let options = try EngraveOptions(negative: negative)
            XCTAssertEqual(
              Engrave.bitmap(GraySource(codes: shape, negative: negative), options: options),
              Engrave.bitmap(GraySource(canvas: floatShape, negative: negative), options: options),
              "\(settings) \(route): engraving, negative \(negative)")
          }
        case (.linear, .linear(let shape)?):
          XCTAssertFalse(codes, "\(settings) \(route): float kept")
          XCTAssertEqual(Self.difference(shape, floatShape), "none", "\(settings) \(route)")
        default:
          XCTFail("\(settings) \(route): the picture and the shape held differently, or no shape")
        }
      }
      // Unless softened, such a render made its relief a band at a time and kept none of it;
      // asked for, the whole field is made again, the same.
      XCTAssertTrue(made.height == float.height, "\(settings): height field")
    }
  }

  func testCachedRendersEqualFreshRendersAndRerunOnlyWhatChanged() throws {
    let mask = try mask()
    var spec = try material()
    let cache = StageCache()
    _ = render(mask, spec, cache: cache)
    for (name, setting, stages) in edits() {
      spec = try MaterialLoader.apply(settings: [setting], to: spec)
      let cached = render(mask, spec, cache: cache)
      let fresh = render(mask, spec)
      XCTAssertEqual(Self.difference(cached.image, fresh.image), "none", "\(name): same picture")
      XCTAssertEqual(cached.timings.stages.map(\.name), stages, "\(name): stages re-run")
      XCTAssertEqual(cached.material, spec, "\(name): the result carries its material")
    }
    // Nothing changed: nothing runs but the composite.
    let again = render(mask, spec, cache: cache)
    XCTAssertEqual(again.timings.stages.map(\.name), ["composite"])
  }

  /// A relight after a relight re-shades only the texels the composite reads; those must be
  /// every texel any lookup touches, or the picture differs from a fresh render.
  func testPartialReshadingReadsEveryTexelItNeeds() throws {
    let mask = try mask()
    var spec = try material()
    let cache = StageCache()
    _ = render(mask, spec, cache: cache)
    for step in 0..<3 {
      spec = try MaterialLoader.apply(
        settings: ["lights[0].position=[\(Float(step) * 0.4 - 0.6), 0.7, 0.6]"], to: spec)
      let cached = render(mask, spec, cache: cache)
      XCTAssertFalse(cached.shadingImageIsWhole, "step \(step): partial re-shading")
      let fresh = render(mask, spec)
      XCTAssertEqual(Self.difference(cached.image, fresh.image), "none", "step \(step)")
    }
  }

  /// The engraving's shape and the saved ball come from the same pipeline: after partial
  /// relights, asking for them gives the whole ball and the shape a fresh render gives.
  func testShapeAndWholeBallAfterPartialRelights() throws {
    let mask = try mask()
    var spec = try MaterialLoader.apply(settings: ["background=#202020"], to: try material())
    let cache = StageCache()
    _ = render(mask, spec, cache: cache)
    for step in 0..<2 {
      spec = try MaterialLoader.apply(
        settings: ["lights[0].intensity=\(0.5 + Float(step) * 0.2)"], to: spec)
      _ = render(mask, spec, cache: cache)
    }
    let cached = render(mask, spec, outputs: [.shape, .wholeShadingImage], cache: cache)
    let fresh = render(mask, spec, outputs: [.shape, .wholeShadingImage])
    XCTAssertTrue(cached.shadingImageIsWhole)
    XCTAssertEqual(cached.shadingImage, fresh.shadingImage)
    XCTAssertEqual(Self.difference(cached.shape, fresh.shape), "none")
    XCTAssertEqual(cached.shape?.fill, .zero, "the shape is over a transparent background")
    XCTAssertEqual(Self.difference(cached.image, fresh.image), "none")
  }
}
