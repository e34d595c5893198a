import EmbossKit
import XCTest

@testable import EmbossMaterials

/// The parameter table is the one definition: the docs, the reader's keys and the spec
/// types' checks all follow it.
final class ParameterTableTests: XCTestCase {
  func testDocsTableIsTheGeneratedTable() throws {
    let docs = try String(
      contentsOfFile: Fixtures.resources.root + "/docs/materials.md", encoding: .utf8)
    let start = try XCTUnwrap(
      docs.range(
        of: "-->\n",
        range: try XCTUnwrap(docs.range(of: "<!-- parameters:")).lowerBound..<docs.endIndex))
    let end = try XCTUnwrap(docs.range(of: "<!-- /parameters -->"))
    XCTAssertEqual(
      String(docs[start.upperBound..<end.lowerBound]), Parameters.markdownTable,
      "docs/materials.md: regenerate with `emboss parameters --markdown`")
  }

  func testKeysAreUniqueAndSectionsComeFromTheTable() {
    let keys = Parameters.all.map(\.row.key)
    XCTAssertEqual(Set(keys).count, keys.count)
    XCTAssertEqual(
      Parameters.keys(in: "relief"),
      [
        "radius", "profile", "depth", "scale", "soften", "round-corners", "direction",
        "inside-corners",
      ])
    XCTAssertEqual(
      Parameters.keys(in: "lights[]"),
      ["kind", "position", "angle", "altitude", "color", "intensity", "target", "cone"])
    XCTAssertEqual(
      Parameters.topLevelKeys,
      [
        "description", "extends", "surface", "lights", "environment", "relief", "shadow",
        "occlusion", "detail", "camera", "plate", "shading", "background",
      ])
    XCTAssertEqual(
      Parameters.keys(in: "shadow"), ["opacity", "distance", "softness", "color", "angle"])
    // Every key a light kind reads is a light key.
    for (_, used) in NodeReader.lightKeys {
      XCTAssertTrue(Set(used).isSubset(of: Parameters.keys(in: "lights[]")))
    }
  }

  /// The built-in material is the table's defaults.
  func testBuiltInIsTheDefaults() throws {
    let builtIn = MaterialSpec.builtIn
    XCTAssertEqual(builtIn.relief.radius, Parameters.radius.defaultValue)
    XCTAssertEqual(builtIn.surface.shininess, Parameters.shininess.defaultValue)
    XCTAssertEqual(builtIn.shadingSize, Parameters.shadingSize.defaultValue)
    XCTAssertEqual(
      builtIn.lights, [.omni(try OmniLight(position: Parameters.lightPosition.defaultValue))])
  }

  /// Spec types cannot hold a value outside the table: `ReliefSpec(radius: .nan)` once trapped
  /// in the height field.
  func testCheckedInitializersRefuseWhatTheTableRefuses() {
    XCTAssertThrowsError(try ReliefSpec(radius: .nan)) { error in
      XCTAssertEqual("\(error)", "\"relief.radius\": must be a finite number, got nan")
    }
    XCTAssertThrowsError(try ReliefSpec(radius: 0))
    XCTAssertThrowsError(try ReliefSpec(depth: .radiusMultiple(101)))
    XCTAssertThrowsError(try ReliefSpec(depth: .pixels(-1)))
    XCTAssertThrowsError(try Surface(shininess: 0))
    XCTAssertThrowsError(try Surface(base: SIMD3(.infinity, 0, 0)))
    XCTAssertThrowsError(try SpotLight(cone: 91))
    XCTAssertThrowsError(try DistantLight(direction: .zero)) { error in
      XCTAssertEqual(
        "\(error)", "\"lights[].position\": a distant light needs a direction other than [0, 0, 0]")
    }
    XCTAssertThrowsError(try Environment(horizonAngle: 90))
    XCTAssertThrowsError(try Softbox(width: 0))
    XCTAssertThrowsError(try MaterialSpec(name: "x", lights: []))
    XCTAssertThrowsError(try MaterialSpec(name: "x", shadingSize: 8))
    XCTAssertThrowsError(try ShadowSpec(opacity: 1.5))
    XCTAssertThrowsError(try ShadowSpec(softness: .nan))
    XCTAssertThrowsError(try ShadowSpec(distance: -1))
    XCTAssertThrowsError(try ShadowSpec(color: SIMD3(-1, 0, 0)))
    XCTAssertThrowsError(try ShadowSpec(angle: 400))
    XCTAssertThrowsError(try OcclusionSpec(strength: -0.1))
    XCTAssertThrowsError(try OcclusionSpec(radius: .infinity))
    XCTAssertThrowsError(try DetailSpec(brushed: 2))
    XCTAssertThrowsError(try DetailSpec(brushedWidth: 0))
    XCTAssertThrowsError(try DetailSpec(seed: -1))
    XCTAssertNoThrow(try ReliefSpec(radius: 0.5, depth: .scale(1000)))
  }

  /// Each light kind reads its own keys; a key it does not use is an error where it is
  /// written, not silently ignored.
  func testLightKindsReportKeysTheyDoNotUse() throws {
    var sink = DiagnosticSink()
    _ = MaterialLoader.parse(
      yaml: """
        lights:
          - kind: omni
            cone: 20
          - angle: 45
            target: [0, 0, 0]
          - kind: spot
            altitude: 10
        """, file: "l.yaml", library: Fixtures.resources.materialLibrary, sink: &sink)
    XCTAssertEqual(
      sink.diagnostics.map(\.description),
      [
        "l.yaml:3:5: error: \"lights[0].cone\": an omni light has no \"cone\" (only spot lights do)",
        "l.yaml:5:5: error: \"lights[1].target\": a distant light has no \"target\" (only spot lights do)",
        "l.yaml:7:5: error: \"lights[2].altitude\": a spot light has no \"altitude\" (only distant lights do)",
      ])
  }

  func testEachKindKeepsItsValues() throws {
    let spec = try MaterialLoader.apply(
      settings: [
        "lights[0]={kind: spot, position: [0, 0, 3], target: [1, 0, 0], cone: 12, intensity: 2}",
        "lights[1]={angle: 90, altitude: 0}", "lights[2]={kind: omni, position: [1, 2, 3]}",
        // Changing the kind keeps what the kinds share.
        "lights[0].kind=omni",
      ], to: MaterialSpec.builtIn)
    XCTAssertEqual(spec.lights[0], .omni(try OmniLight(position: SIMD3(0, 0, 3), intensity: 2)))
    guard case .distant(let distant) = spec.lights[1] else { return XCTFail("\(spec.lights[1])") }
    XCTAssertEqual(distant.direction.y, 1, accuracy: 1e-6)
    XCTAssertEqual(spec.lights[2], .omni(try OmniLight(position: SIMD3(1, 2, 3))))
  }

  /// A relief depth in a file may be a multiple (`1.5`, `1.5x`) or pixels (`12px`).
  func testDepthAsMultipleOrPixels() throws {
    for (text, depth) in [
      ("1.5", ReliefDepth.radiusMultiple(1.5)), ("2x", .radiusMultiple(2)), ("12px", .pixels(12)),
    ] {
      let spec = try MaterialLoader.apply(settings: ["relief.depth=\(text)"], to: .builtIn)
      XCTAssertEqual(spec.relief.depth, depth, text)
    }
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["relief.depth=2000px"], to: .builtIn))
    { error in
      XCTAssertEqual(
        "\(error)", "--set:1:14: error: \"relief.depth\": must be in 0...1000, got 2000")
    }
  }

  /// Flags become settings on the table's keys, reported as `--set` is, at the flag.
  func testFlagsAreLocatedSettings() throws {
    var flags = MaterialFlags()
    flags.radius = Length(value: 0, unit: .px)
    flags.lightAngle = 45
    let settings = try flags.settings(dpi: nil)
    XCTAssertEqual(settings.map(\.key), ["relief.radius", "lights[0]"])
    XCTAssertEqual(
      MaterialLoader.problems(in: settings)?.lines,
      ["--radius 0: error: \"relief.radius\": must be in 0.5...1000, got 0"])
    flags.radius = Length(value: 2, unit: .mm)
    XCTAssertThrowsError(try flags.settings(dpi: nil)) { error in
      XCTAssertEqual("\(error)", "--radius 2mm is a physical length: give --dpi too")
    }
    let spec = try MaterialLoader.apply(try flags.settings(dpi: 254), to: .builtIn)
    XCTAssertEqual(spec.relief.radius, 20)
    XCTAssertEqual(spec.lights[0].kind, .distant)
  }
}
