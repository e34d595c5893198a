import EmbossKit
import EmbossSnapshotTesting
import SnapshotTesting
import XCTest

/// Reference renders, one concern each, named after what they vary.
///
/// Tolerance: at most 2
/// 8-bit levels in any channel, zero pixels beyond it.
final class SnapshotTests: XCTestCase {
  /// The material of every snapshot but the presets', defined here so that a change to a
  /// preset fails only that preset's reference. (It was Materials/default.yaml of 2026-11-22:
  /// polished steel in a studio.)
  static let testMaterial = """
    description: the snapshot tests' material
    surface:
      base: "#a9aeb5"
      specular: "#ffffff"
      shininess: 180
      ambient: 0.03
      metallic: 0.7
      model: ggx
      fresnel: 1
    lights:
      - angle: 125
        altitude: 40
        color: "#ffe2bd"
        intensity: 1.5
    environment:
      intensity: 0.8
      sky: "#8d96a1"
      horizon: "#e4e7eb"
      ground: "#15171b"
      band: "#07080a"
      band-width: 3
      horizon-angle: -18
      softboxes:
        - angle: 130
          altitude: 35
          width: 50
          height: 30
          color: "#fff1dc"
          intensity: 2.2
        - angle: -45
          altitude: 8
          width: 70
          height: 6
          color: "#8fb6ff"
          intensity: 1.6
    relief:
      radius: 10
      profile: round
      depth: 1
      direction: raised
    shading:
      size: 512
    background: "#1b1e24"
    """

  func material() throws -> MaterialSpec {
    var sink = DiagnosticSink()
    let spec = MaterialLoader.parse(
      yaml: Self.testMaterial, file: "snapshot.yaml", library: Fixtures.resources.materialLibrary,
      sink: &sink)
    XCTAssertEqual(sink.diagnostics, [])
    return try XCTUnwrap(spec)
  }

  /// `text` in the test material (or `base`), with `settings` as `--set` gives them.
  func render(
    _ text: String = "Ag", size: Float = 56, base: MaterialSpec? = nil, set settings: String...
  ) throws -> RGBAImage {
    let material = try MaterialLoader.apply(
      settings: ["shading.size=256"] + settings, to: try base ?? self.material())
    // The padding these references were recorded with (15% of the em plus 2 px, the default
    // until it became 0.1625 em): what they check is the relief, not the margin.
    let mask = try TextLayout(
      text: text, font: Fixtures.font(), style: TextStyle(pixelSize: size, padding: size * 0.15 + 2)
    ).rasterize()
    return Pipeline.render(RenderInput(mask: mask, material: material, parallelism: .serial)).image
      .flattened()
  }

  func testMaterial() throws {
    assertSnapshot(of: try render(), as: .png(), named: "test-material")
  }

  func testRadius() throws {
    assertSnapshot(of: try render(set: "relief.radius=4"), as: .png(), named: "radius=4")
  }

  func testProfiles() throws {
    for profile in [ReliefProfile.linear, .smooth] {
      assertSnapshot(
        of: try render(set: "relief.profile=\(profile.rawValue)"), as: .png(),
        named: "profile=\(profile)")
    }
  }

  func testLowered() throws {
    assertSnapshot(
      of: try render(set: "relief.direction=lowered"), as: .png(), named: "direction=lowered")
  }

  func testThreeColoredLights() throws {
    let lights: [Light] = [
      .omni(
        try OmniLight(position: SIMD3(-1.5, 1.5, 1), color: SIMD3(1, 0.2, 0.2), intensity: 0.9)),
      .omni(try OmniLight(position: SIMD3(1.5, 1.5, 1), color: SIMD3(0.2, 1, 0.2), intensity: 0.9)),
      .omni(try OmniLight(position: SIMD3(0, -1.5, 1), color: SIMD3(0.2, 0.2, 1), intensity: 0.9)),
    ]
    let image = try render(base: try material().replacing(lights: lights))
    assertSnapshot(of: image, as: .png(), named: "lights=3")
  }

  func testTransparentBackground() throws {
    assertSnapshot(
      of: try render(set: "background=transparent"), as: .png(), named: "background=transparent")
  }

  func testShadingImage() throws {
    let material = try self.material()
    let image = ShadingImage.render(
      surface: material.surface, lights: material.lights, environment: material.environment,
      size: 96, parallelism: .serial)
    assertSnapshot(of: image, as: .png(), named: "shading=test-material")
  }

  /// Every acute inside corner the issue named, and thin strokes: no slits, dents or sparkles.
  func testAcuteCornersAndThinStrokes() throws {
    assertSnapshot(
      of: try render("AVWMNK vwxyk47", size: 48), as: .png(), named: "text=AVWMNK vwxyk47")
    let chrome = try Fixtures.material("chrome")
    assertSnapshot(
      of: try render("oSe8&@", size: 40, base: chrome), as: .png(),
      named: "text=oSe8&@ material=chrome")
  }

  /// Each preset, as it ships.
  func testPresets() throws {
    for name in Fixtures.resources.materialLibrary.presetNames {
      let image = try render(base: try Fixtures.material(name))
      assertSnapshot(of: image, as: .png(), named: "material=\(name)")
    }
  }

  func testChiselProfilesAndSoften() throws {
    for profile in [ReliefProfile.chiselHard, .chiselSoft] {
      assertSnapshot(
        of: try render(set: "relief.profile=\(profile.rawValue)"), as: .png(),
        named: "profile=\(profile.rawValue)")
    }
    assertSnapshot(of: try render(set: "relief.soften=2"), as: .png(), named: "soften=2")
  }

  /// A drop shadow, an inner shadow (lowered), brushed lines and ambient occlusion.
  func testShadowsAndBrushing() throws {
    assertSnapshot(
      of: try render(set: "shadow.opacity=0.8"), as: .png(), named: "shadow.opacity=0.8")
    let lowered = try MaterialLoader.apply(
      settings: ["shadow.opacity=0.8", "relief.direction=lowered"], to: try self.material())
    assertSnapshot(of: try render(base: lowered), as: .png(), named: "shadow-lowered")
    assertSnapshot(
      of: try render(set: "detail.brushed=0.8"), as: .png(), named: "detail.brushed=0.8")
    assertSnapshot(
      of: try render(set: "occlusion.strength=0.8"), as: .png(), named: "occlusion.strength=0.8")
  }

  /// Hammered dents, a sandblasted grain, wood grain and speckle on a plate, a camera at a
  /// finite distance, and a see-through background.
  func testSurfaceDetailPlateAndCamera() throws {
    func material(_ settings: [String]) throws -> MaterialSpec {
      try MaterialLoader.apply(settings: settings, to: try self.material())
    }
    assertSnapshot(
      of: try render(set: "detail.hammered=0.7"), as: .png(), named: "detail.hammered=0.7")
    assertSnapshot(
      of: try render(set: "detail.sandblasted=0.8"), as: .png(), named: "detail.sandblasted=0.8")
    assertSnapshot(
      of: try render(
        base: try material([
          "detail.grain=0.8", "plate.detail.grain=0.8", "relief.direction=lowered",
          "surface.base=#b27a48",
        ])), as: .png(), named: "grain-plate-lowered")
    assertSnapshot(
      of: try render(
        base: try material([
          "detail.speckle=0.7", "plate.surface.base=#8d8a84", "plate.detail.speckle=0.7",
          "shadow.opacity=0.7",
        ])), as: .png(), named: "speckle-plate-shadow")
    assertSnapshot(
      of: try render(set: "camera.distance=300"), as: .png(), named: "camera.distance=300")
    assertSnapshot(
      of: try render(set: "background=#20406080"), as: .png(), named: "background-translucent")
  }
}

final class DeterminismTests: XCTestCase {
  /// The same scene gives the same bytes on 1, 2 and 7 threads, over more than three of the
  /// 64-row bands the PNG encoder (and the stages' 16-row bands) split the work into.
  func testSameBytesOnAnyThreadCount() throws {
    let resources = Fixtures.resources
    var outputs: [Data] = []
    for threads in [1, 2, 7] {
      // With a shadow, brushed lines, every other kind of detail, a plate and a camera, whose
      // stages have bands of their own.
      let job = RenderJob(
        mask: .text(
          TextMask(
            text: "Same\nbytes\nacross\nbands", style: TextStyle(pixelSize: 40, lineHeight: 5.5))),
        settings: [
          "shadow.opacity=0.7", "detail.brushed=0.5", "detail.hammered=0.4",
          "detail.sandblasted=0.3", "detail.grain=0.5", "detail.speckle=0.5",
          "plate.detail.brushed=0.6", "plate.detail.speckle=0.4", "camera.distance=400",
        ].map(MaterialSetting.init(set:)),
        output: OutputPlan(image: "-"), parallelism: Parallelism(threads: threads))
      let output = try job.run(resources: resources)
      XCTAssertGreaterThan(output.result.image.height, 3 * 256)
      outputs.append(output.png)
    }
    XCTAssertEqual(outputs[0], outputs[1])
    XCTAssertEqual(outputs[0], outputs[2])
  }
}
