import EmbossKit
import XCTest

final class MaterialLoaderTests: XCTestCase {
  let library = Fixtures.resources.materialLibrary

  /// Parses `yaml` as `test.yaml` and returns its diagnostics as printed.
  func errors(_ yaml: String) -> [String] {
    var sink = DiagnosticSink()
    _ = MaterialLoader.parse(yaml: yaml, file: "test.yaml", library: library, sink: &sink)
    return sink.diagnostics.map(\.description)
  }

  func testDefaultMaterialLoads() throws {
    let spec = try Fixtures.material()
    XCTAssertEqual(spec.name, "default")
    XCTAssertEqual(spec.lights.count, 1)
    XCTAssertEqual(spec.lights[0].kind, .distant)
    XCTAssertEqual(spec.surface.model, .ggx)
    XCTAssertEqual(spec.environment.softboxes.count, 2)
    // Depth follows the radius: at radius 10 it is Core Image's scale 10, as before.
    XCTAssertEqual(
      spec.relief,
      try ReliefSpec(
        radius: 10, profile: .round, depth: .radiusMultiple(1), direction: .raised,
        insideCorners: .mitre))
    XCTAssertEqual(spec.relief.scale, 10)
    XCTAssertEqual(spec.shadingSize, 512)
  }

  func testOmittedKeysTakeDefaults() throws {
    var sink = DiagnosticSink()
    let spec = MaterialLoader.parse(
      yaml: "surface:\n  shininess: 90\n", file: "x.yaml", library: library, sink: &sink)
    XCTAssertEqual(sink.diagnostics, [])
    XCTAssertEqual(spec?.surface.shininess, 90)
    XCTAssertEqual(spec?.surface.base, MaterialSpec.builtIn.surface.base)
    XCTAssertEqual(spec?.lights, MaterialSpec.builtIn.lights)
  }

  func testUnknownKeySuggestsTheNearest() throws {
    XCTAssertEqual(
      errors("surface:\n  shinyness: 10\n"),
      ["test.yaml:2:3: error: \"surface.shinyness\": unknown key; did you mean \"shininess\"?"])
    XCTAssertEqual(
      errors("colour: red\n"),
      [
        "test.yaml:1:1: error: \"colour\": unknown key (known keys: description, extends, surface, lights, environment, relief, shadow, occlusion, detail, camera, plate, shading, background)"
      ])
  }

  func testOutOfRangeNumbers() throws {
    XCTAssertEqual(
      errors("surface:\n  shininess: 0\n"),
      ["test.yaml:2:14: error: \"surface.shininess\": must be in 1...2048, got 0"])
    XCTAssertEqual(
      errors("relief:\n  radius: -3\n"),
      ["test.yaml:2:11: error: \"relief.radius\": must be in 0.5...1000, got -3"])
  }

  /// The shadow section: its keys over the defaults, each checked where it is written; the
  /// angle stays the lights' until given; `--set` reaches it.
  func testShadowSection() throws {
    var sink = DiagnosticSink()
    let spec = try XCTUnwrap(
      MaterialLoader.parse(
        yaml: "shadow:\n  opacity: 0.5\n  softness: 2\n  color: \"#102030\"\n", file: "x.yaml",
        library: library, sink: &sink))
    XCTAssertEqual(sink.diagnostics, [])
    XCTAssertEqual(spec.shadow.opacity, 0.5)
    XCTAssertEqual(spec.shadow.softness, 2)
    XCTAssertEqual(spec.shadow.distance, Parameters.shadowDistance.defaultValue)
    XCTAssertNil(spec.shadow.angle)
    XCTAssertEqual(MaterialSpec.builtIn.shadow, .none)
    XCTAssertFalse(MaterialSpec.builtIn.shadow.isVisible)
    XCTAssertEqual(
      errors("shadow:\n  opacity: 2\n  distanse: 3\n"),
      [
        "test.yaml:2:12: error: \"shadow.opacity\": must be in 0...1, got 2",
        "test.yaml:3:3: error: \"shadow.distanse\": unknown key; did you mean \"distance\"?",
      ])
    let set = try MaterialLoader.apply(settings: ["shadow.angle=45", "shadow.opacity=1"], to: spec)
    XCTAssertEqual(set.shadow.angle, 45)
    XCTAssertEqual(set.shadow.opacity, 1)
    XCTAssertEqual(set.shadow.softness, 2)
    // The shadow's lengths scale with the text as the relief's do, but those given.
    let scaled = set.scalingRelief(by: 2, except: [Parameters.shadowSoftness.key])
    XCTAssertEqual(scaled.shadow.distance, 2 * Parameters.shadowDistance.value)
    XCTAssertEqual(scaled.shadow.softness, 2)
  }

  /// A plate: its surface starts from the letters', its detail from none; its errors are
  /// located under `plate.`; `--set plate.surface.KEY` and `plate.detail.KEY` make one.
  func testPlateSection() throws {
    var sink = DiagnosticSink()
    let spec = try XCTUnwrap(
      MaterialLoader.parse(
        yaml:
          "surface:\n  shininess: 77\nplate:\n  surface:\n    base: \"#808080\"\n  detail:\n    grain: 0.5\n",
        file: "x.yaml", library: library, sink: &sink))
    XCTAssertEqual(sink.diagnostics, [])
    let plate = try XCTUnwrap(spec.plate)
    XCTAssertEqual(plate.surface.shininess, 77)
    XCTAssertEqual(plate.surface.base.x, 0.2158605, accuracy: 1e-4)
    XCTAssertEqual(plate.detail.grain, 0.5)
    XCTAssertEqual(plate.detail.brushed, 0)
    XCTAssertNil(MaterialSpec.builtIn.plate)
    XCTAssertEqual(
      errors("plate:\n  surface:\n    shininess: 0\n  detail:\n    grian: 1\n  colour: 2\n"),
      [
        "test.yaml:3:16: error: \"plate.surface.shininess\": must be in 1...2048, got 0",
        "test.yaml:5:5: error: \"plate.detail.grian\": unknown key; did you mean \"grain\"?",
        "test.yaml:6:3: error: \"plate.colour\": unknown key (known keys: surface, detail)",
      ])
    let base = try Fixtures.material()
    let set = try MaterialLoader.apply(
      settings: ["plate.detail.brushed=0.4", "plate.surface.metallic=0"], to: base)
    XCTAssertEqual(set.plate?.detail.brushed, 0.4)
    XCTAssertEqual(set.plate?.surface.metallic, 0)
    XCTAssertEqual(set.plate?.surface.base, base.surface.base)
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["plate.detail.grain=2"], to: base)) {
      XCTAssertEqual(
        "\($0)", "--set:1:20: error: \"plate.detail.grain\": must be in 0...1, got 2")
    }
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["plate.shine=2"], to: base)) {
      XCTAssertTrue("\($0)".hasPrefix("--set:1:1: error: \"plate.shine\": not a key"), "\($0)")
    }
    // The plate's lengths scale with the text.
    let scaled = try set.replacing(
      plate: .some(
        PlateSpec(surface: base.surface, detail: try DetailSpec(brushed: 0.5, brushedWidth: 2))))
    XCTAssertEqual(scaled.scalingRelief(by: 3).plate?.detail.brushedWidth, 6)
  }

  /// The camera: 0 (infinitely far) unless given, a length that scales with the text.
  func testCameraSection() throws {
    XCTAssertFalse(MaterialSpec.builtIn.camera.isFinite)
    let base = try Fixtures.material()
    let set = try MaterialLoader.apply(settings: ["camera.distance=800"], to: base)
    XCTAssertEqual(set.camera.distance, 800)
    XCTAssertEqual(set.scalingRelief(by: 2).camera.distance, 1600)
    XCTAssertEqual(
      errors("camera:\n  distance: -1\n"),
      ["test.yaml:2:13: error: \"camera.distance\": must be in 0...100000, got -1"])
  }

  func testNaNAndInfinityAreRefused() throws {
    XCTAssertEqual(
      errors("surface:\n  ambient: .nan\n"),
      ["test.yaml:2:12: error: \"surface.ambient\": must be a finite number, got .nan"])
    XCTAssertEqual(
      errors("relief:\n  scale: .inf\n"),
      ["test.yaml:2:10: error: \"relief.scale\": must be a finite number, got .inf"])
  }

  func testWrongTypes() throws {
    XCTAssertEqual(
      errors("surface:\n  shininess: shiny\n"),
      ["test.yaml:2:14: error: \"surface.shininess\": expected a number, got \"shiny\""])
    XCTAssertEqual(
      errors("surface: 3\n"),
      ["test.yaml:1:10: error: \"surface\": expected a mapping of keys, got \"3\""])
    XCTAssertEqual(
      errors("shading:\n  size: 12.5\n"),
      ["test.yaml:2:9: error: \"shading.size\": expected a whole number, got \"12.5\""])
    // The depth's unit is not cut off the value the message quotes ("12px" is valid).
    XCTAssertEqual(
      errors("relief:\n  depth: 12pxx\n"),
      [
        "test.yaml:2:10: error: \"relief.depth\": expected a multiple of the radius (1.5 or 1.5x) or pixels (12px), got \"12pxx\""
      ])
  }

  func testBadColors() throws {
    XCTAssertEqual(
      errors("surface:\n  base: \"#ggg\"\n"),
      [
        "test.yaml:2:9: error: \"surface.base\": expected a color like \"#rrggbb\", \"#rgb\", \"#rrggbbaa\", rgb(...), hsl(...) or a CSS name, got \"#ggg\""
      ])
    XCTAssertEqual(
      errors("surface:\n  base: #ff0000\n"),
      [
        "test.yaml:2:8: error: \"surface.base\": expected a color such as \"#rrggbb\", got nothing (an unquoted # starts a YAML comment: write the color in quotes)"
      ])
    // Values out of range are errors naming the value (they were clamped: rgb(300, 0, 0, 0)
    // passed as transparent black).
    XCTAssertEqual(
      errors("surface:\n  base: \"rgb(300, 0, 0)\"\n"),
      [
        "test.yaml:2:9: error: \"surface.base\": the channel 300 is out of range (0...255 or 0%...100%), got \"rgb(300, 0, 0)\""
      ])
    XCTAssertEqual(
      errors("surface:\n  base: \"rgb(0 0 0 / 150%)\"\n"),
      [
        "test.yaml:2:9: error: \"surface.base\": the alpha 150% is out of range (0...1 or 0%...100%), got \"rgb(0 0 0 / 150%)\""
      ])
    XCTAssertEqual(
      errors("surface:\n  base: \"hsl(10, 50%, -5%)\"\n"),
      [
        "test.yaml:2:9: error: \"surface.base\": the percentage -5% is out of range (0%...100%), got \"hsl(10, 50%, -5%)\""
      ])
    XCTAssertEqual(errors("surface:\n  base: \"rgb(255, 0%, 100%)\"\n"), [])
  }

  func testHueColors() throws {
    var sink = DiagnosticSink()
    let spec = MaterialLoader.parse(
      yaml: "lights:\n  - position: [0, 0, 1]\n    color: {hue: 120, brightness: 1}\n",
      file: "x.yaml",
      library: library, sink: &sink)
    XCTAssertEqual(sink.diagnostics, [])
    XCTAssertEqual(spec?.lights.first?.color, SIMD3(0, 1, 0))
  }

  func testEmptyLightListAndBadLights() throws {
    XCTAssertEqual(
      errors("lights: []\n"), ["test.yaml:1:9: error: \"lights\": needs at least one light"])
    XCTAssertEqual(
      errors("lights:\n  - position: [1, 2]\n    kind: omnii\n"),
      [
        "test.yaml:2:15: error: \"lights[0].position\": expected three numbers [x, y, z], got 2",
        "test.yaml:3:11: error: \"lights[0].kind\": unknown value \"omnii\"; did you mean \"omni\"? (one of: omni, distant, spot)",
      ])
  }

  func testReportsEveryErrorNotJustTheFirst() throws {
    XCTAssertEqual(
      errors("surface:\n  shininess: 0\n  ambient: 2\nrelief:\n  profile: roundd\n").count, 3)
  }

  func testSyntaxErrorHasALocation() throws {
    let result = errors("surface:\n  base: [1, 2\n")
    XCTAssertEqual(result.count, 1)
    XCTAssertTrue(result[0].hasPrefix("test.yaml:3:1: error: not valid YAML:"), result[0])
  }

  func testExtendsOverridesAndDetectsCycles() throws {
    let directory = try Fixtures.temporaryDirectory()
    let local = MaterialLibrary(directories: [directory.path])
    try "surface:\n  shininess: 7\n  ambient: 0.3\n".write(
      to: directory.appendingPathComponent("parent.yaml"), atomically: true, encoding: .utf8)
    try "extends: parent\nsurface:\n  shininess: 9\n".write(
      to: directory.appendingPathComponent("child.yaml"), atomically: true, encoding: .utf8)
    let child = try MaterialLoader.load("child", library: local)
    XCTAssertEqual(child.surface.shininess, 9)
    XCTAssertEqual(child.surface.ambient, 0.3)

    try "extends: b\n".write(
      to: directory.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
    try "extends: a\n".write(
      to: directory.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
    XCTAssertThrowsError(try MaterialLoader.load("a", library: local)) { error in
      let path = directory.appendingPathComponent("b.yaml").path
      XCTAssertEqual(
        "\(error)", "\(path):1:10: error: \"extends\": cycle: a.yaml -> b.yaml -> a.yaml")
    }
    // A cycle through a link to the folder itself: the same file by ever longer paths.
    let folder = directory.appendingPathComponent("linked")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent("loop").path, withDestinationPath: ".")
    try "extends: loop/e.yaml\n".write(
      to: folder.appendingPathComponent("e.yaml"), atomically: true, encoding: .utf8)
    XCTAssertThrowsError(
      try MaterialLoader.load(folder.appendingPathComponent("e.yaml").path, library: local)
    ) { error in
      XCTAssertTrue("\(error)".hasSuffix("error: \"extends\": cycle: e.yaml -> e.yaml"), "\(error)")
    }
    // A chain thousands of files long would overflow the stack: refused past the limit, while
    // one exactly at it loads.
    let limit = MaterialLoader.maxExtendsDepth
    for i in 1...(limit + 10) {
      try "extends: deep\(i + 1).yaml\n".write(
        to: directory.appendingPathComponent("deep\(i).yaml"), atomically: true, encoding: .utf8)
    }
    try "surface:\n  shininess: 5\n".write(
      to: directory.appendingPathComponent("deep\(limit + 11).yaml"), atomically: true,
      encoding: .utf8)
    XCTAssertThrowsError(
      try MaterialLoader.load(directory.appendingPathComponent("deep1.yaml").path, library: local)
    ) { error in
      XCTAssertTrue(
        "\(error)".contains("more than \(limit) materials extend one another"), "\(error)")
    }
    let atLimit = try MaterialLoader.load(
      directory.appendingPathComponent("deep12.yaml").path, library: local)
    XCTAssertEqual(atLimit.surface.shininess, 5)
    try "extends: parnt\n".write(
      to: directory.appendingPathComponent("typo.yaml"), atomically: true, encoding: .utf8)
    XCTAssertThrowsError(try MaterialLoader.load("typo", library: local)) { error in
      let path = directory.appendingPathComponent("typo.yaml").path
      XCTAssertEqual(
        "\(error)",
        "\(path):1:10: error: \"extends\": no material named \"parnt\"; did you mean \"parent\"?")
    }
  }

  func testUnknownPresetName() throws {
    XCTAssertThrowsError(try MaterialLoader.load("defualt", library: library)) { error in
      XCTAssertTrue(
        (error as? EmbossError)?.message.hasPrefix(
          "no material named 'defualt'; did you mean 'default'?") ?? false, "\(error)")
    }
  }

  func testColorLiterals() throws {
    XCTAssertEqual(try ColorLiteral.parse("#fff").get(), ColorLiteral(red: 1, green: 1, blue: 1))
    XCTAssertEqual(try ColorLiteral.parse("#80ff0040").get().alpha, 64.0 / 255)
    XCTAssertEqual(try Background.parse("transparent").get(), .transparent)
    XCTAssertThrowsError(try ColorLiteral.parse("#12345").get())
    // A see-through background keeps its alpha.
    XCTAssertEqual(
      try Background.parse("#ff000080").get(), .translucent(SIMD3(1, 0, 0), alpha: 128.0 / 255))
    XCTAssertEqual(
      ColorLiteral(hue: 0, saturation: 1, brightness: 1), ColorLiteral(red: 1, green: 0, blue: 0))
  }

  func testEditDistanceSuggestions() throws {
    XCTAssertEqual(editDistance("shinyness", "shininess"), 1)
    XCTAssertEqual(editDistance("abcd", "abdc"), 1)
    XCTAssertEqual(suggestion(for: "radus", among: Parameters.keys(in: "relief")), "radius")
    XCTAssertNil(suggestion(for: "zzzzzz", among: Parameters.keys(in: "relief")))
  }

  func testSettingsOverrideTheResolvedMaterial() throws {
    let base = try Fixtures.material()
    let spec = try MaterialLoader.apply(
      settings: [
        "surface.shininess=90", "lights[0].intensity=0.5", "lights[1].color=#ff0000",
        "relief.profile=linear", "background=transparent", "lights[1]={kind: omni}",
        "lights[2]={kind: omni}",
        "lights[3].position=[0, 0, 2]",
        "shading.size=128",
      ], to: base)
    XCTAssertEqual(spec.surface.shininess, 90)
    XCTAssertEqual(spec.lights[0].intensity, 0.5)
    XCTAssertEqual(spec.lights[0].position, base.lights[0].position, "other keys of the light stay")
    XCTAssertEqual(spec.lights[1].color, SIMD3(1, 0, 0))
    XCTAssertEqual(spec.lights.count, 4, "index == count adds a light")
    XCTAssertEqual(spec.lights[3].position, SIMD3(0, 0, 2))
    XCTAssertEqual(spec.relief.profile, .linear)
    XCTAssertEqual(spec.background, .transparent)
    XCTAssertEqual(spec.shadingSize, 128)
  }

  /// `environment.softboxes[N].KEY` sets one key of one softbox, the others its own;
  /// `environment.softboxes[N]={...}` merges a mapping; N the count adds one; a missing
  /// softbox or an unknown key is located in the setting.
  func testSettingsReachEachSoftbox() throws {
    let base = try MaterialLoader.apply(
      settings: ["environment.softboxes=[{angle: 10}, {angle: 20, intensity: 2}]"],
      to: try Fixtures.material())
    let spec = try MaterialLoader.apply(
      settings: [
        "environment.softboxes[1].intensity=0.5", "environment.softboxes[0]={width: 12}",
        "environment.softboxes[2].color=#ff0000",
      ], to: base)
    let boxes = spec.environment.softboxes
    XCTAssertEqual(boxes.count, 3, "index == count adds a softbox")
    XCTAssertEqual(boxes[1].intensity, 0.5)
    XCTAssertEqual(boxes[1].angle, 20, "other keys of the softbox stay")
    XCTAssertEqual(boxes[0].width, 12)
    XCTAssertEqual(boxes[0].angle, 10)
    XCTAssertEqual(boxes[2].color, SIMD3(1, 0, 0))
    XCTAssertEqual(boxes[2].angle, Parameters.softboxAngle.value, "a new one's defaults")
    XCTAssertEqual(spec.environment.sky, base.environment.sky, "the rest of the room stays")
    XCTAssertThrowsError(
      try MaterialLoader.apply(settings: ["environment.softboxes[5].angle=3"], to: base)
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:1: error: \"environment.softboxes[5].angle\": no softbox [5]; the material has 2 (index 2 adds one)"
      )
    }
    XCTAssertThrowsError(
      try MaterialLoader.apply(settings: ["environment.softboxes[0].intensty=3"], to: base)
    ) { error in
      XCTAssertTrue("\(error)".hasPrefix("--set:1:"), "\(error)")
      XCTAssertTrue("\(error)".contains("intensity"), "a suggestion: \(error)")
    }
    XCTAssertThrowsError(
      try MaterialLoader.apply(settings: ["environment.softboxes[0].altitude=120"], to: base)
    ) { error in
      XCTAssertTrue("\(error)".contains("must be in -90...90"), "\(error)")
    }
    XCTAssertThrowsError(
      try MaterialLoader.apply(settings: ["environment.softboxes[x].angle=3"], to: base)
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:1: error: \"environment.softboxes[x].angle\": a softbox is environment.softboxes[N], N a number from 0"
      )
    }
    // Checked before any file is read: an index is taken to exist.
    XCTAssertNil(
      MaterialLoader.problems(in: [MaterialSetting(set: "environment.softboxes[3].width=40")]))
  }

  func testBadSettingsAreLocatedInTheSetting() throws {
    let base = try Fixtures.material()
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["surface.shininess=0"], to: base)) {
      error in
      XCTAssertEqual(
        "\(error)", "--set:1:19: error: \"surface.shininess\": must be in 1...2048, got 0")
    }
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["lights[7].intensity=1"], to: base)) {
      error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:1: error: \"lights[7].intensity\": no light [7]; the material has 1 (index 1 adds one)"
      )
    }
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["surfce.shininess=3"], to: base)) {
      error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:1: error: \"surfce.shininess\": not a key that can be set; did you mean \"surface\"?"
      )
    }
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["shininess"], to: base)) { error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:1: error: \"shininess\": expected key=value, such as surface.shininess=40")
    }
    // An unknown key is pointed at, not the value after it.
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["surface.shinyness=5"], to: base)) {
      error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:9: error: \"surface.shinyness\": unknown key; did you mean \"shininess\"?")
    }
    XCTAssertThrowsError(
      try MaterialLoader.apply(settings: ["surface={shininess: 5, shinyness: 5}"], to: base)
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:24: error: \"surface.shinyness\": unknown key; did you mean \"shininess\"?")
    }
    XCTAssertThrowsError(try MaterialLoader.apply(settings: ["plate=1"], to: base)) { error in
      XCTAssertEqual(
        "\(error)",
        "--set:1:1: error: \"plate\": not a key that can be set; the plate takes plate.surface.KEY and plate.detail.KEY"
      )
    }
  }

  func testASectionIsSetWholeAsAMapping() throws {
    let base = try Fixtures.material()
    let whole = try MaterialLoader.apply(
      settings: ["surface={shininess: 12, base: \"#ff0000\"}", "relief={radius: 3}"], to: base)
    let keyed = try MaterialLoader.apply(
      settings: ["surface.shininess=12", "surface.base=#ff0000", "relief.radius=3"], to: base)
    XCTAssertEqual(whole, keyed)
    XCTAssertEqual(whole.surface.shininess, 12)
    XCTAssertNotEqual(whole, base)
  }

  func testEnvironmentAndNewSurfaceKeys() throws {
    var sink = DiagnosticSink()
    let spec = MaterialLoader.parse(
      yaml: """
        surface:
          model: ggx
          fresnel: 0.5
        lights:
          - angle: 90
            altitude: 0
        environment:
          intensity: 2
          sky: "#000000"
          band-width: 5
          horizon-angle: -10
          softboxes:
            - angle: 180
              altitude: 30
              width: 40
        relief:
          depth: 1.5
          soften: 2
        """, file: "x.yaml", library: library, sink: &sink)
    XCTAssertEqual(sink.diagnostics, [])
    XCTAssertEqual(spec?.surface.model, .ggx)
    XCTAssertEqual(spec?.surface.fresnel, 0.5)
    XCTAssertEqual(spec?.lights[0].kind, .distant)
    XCTAssertEqual(spec?.lights[0].position.y ?? 0, 1, accuracy: 1e-6, "angle 90 is up")
    XCTAssertEqual(spec?.environment.intensity, 2)
    XCTAssertEqual(spec?.environment.bandWidth, 5)
    XCTAssertEqual(spec?.environment.softboxes.first?.width, 40)
    XCTAssertEqual(spec?.relief.depth, .radiusMultiple(1.5))
    XCTAssertEqual(spec?.relief.soften, 2)
  }

  func testNewKeysReportLocatedErrors() throws {
    XCTAssertEqual(
      errors("surface:\n  model: phong\n"),
      [
        "test.yaml:2:10: error: \"surface.model\": unknown value \"phong\" (one of: blinn-phong, ggx)"
      ])
    XCTAssertEqual(
      errors("environment:\n  horizon-angle: 95\n"),
      ["test.yaml:2:18: error: \"environment.horizon-angle\": must be in -89...89, got 95"])
    XCTAssertEqual(
      errors("environment:\n  horizon-softness: -3\n"),
      ["test.yaml:2:21: error: \"environment.horizon-softness\": must be in 0...45, got -3"])
    XCTAssertEqual(
      errors("environment:\n  softboxes:\n    - widht: 3\n"),
      [
        "test.yaml:3:7: error: \"environment.softboxes[0].widht\": unknown key; did you mean \"width\"?"
      ])
    XCTAssertEqual(
      errors("lights:\n  - position: [1, 1, 1]\n    angle: 30\n"),
      [
        "test.yaml:2:5: error: \"lights[0].position\": give either a position or an angle and altitude, not both"
      ])
    XCTAssertEqual(
      errors("relief:\n  depth: 1\n  scale: 10\n"),
      [
        "test.yaml:3:10: error: \"relief.scale\": give either \"relief.depth\" (a multiple of the radius) or \"relief.scale\" (Core Image's per-pixel slope factor), not both"
      ])
  }

  func testSettingsReachTheEnvironment() throws {
    let spec = try MaterialLoader.apply(
      settings: ["environment.intensity=0.5", "environment.sky=#ff0000"],
      to: try Fixtures.material())
    XCTAssertEqual(spec.environment.intensity, 0.5)
    XCTAssertEqual(spec.environment.sky, SIMD3(1, 0, 0))
  }

  /// Paths with an empty part were an index out of range (found by fuzzing).
  func testEmptyKeyPathsAreLocatedErrors() throws {
    let base = try Fixtures.material()
    for setting in [".=1", "surface.=1", ".shininess=1", "surface..shininess=1"] {
      XCTAssertThrowsError(try MaterialLoader.apply(settings: [setting], to: base), setting) {
        error in
        XCTAssertTrue("\(error)".hasPrefix("--set:1:1: error: "), "\(error)")
        XCTAssertTrue(
          "\(error)".contains("a key path has a name on each side of every dot"), "\(error)")
      }
    }
  }

  // MARK: Diagnostics that were wrong (issue 9)

  /// A duplicate key is reported where it repeats, with its full path, beside the file's other
  /// problems; a 5 MB file gives one short line, not a dump of the file.
  func testDuplicateKeyIsLocatedAtItsSecondUse() throws {
    XCTAssertEqual(
      errors("relief:\n  radius: 4\n  profile: linear\n  radius: 5\nsurface:\n  shininess: -3\n"),
      [
        "test.yaml:4:3: error: \"relief.radius\": duplicate key",
        "test.yaml:6:14: error: \"surface.shininess\": must be in 1...2048, got -3",
      ])
    XCTAssertEqual(
      errors(
        "lights:\n  - kind: omni\n    kind: spot\n  - kind: omni\ndescription: a\ndescription: b\n"),
      [
        "test.yaml:3:5: error: \"lights[0].kind\": duplicate key",
        "test.yaml:6:1: error: \"description\": duplicate key",
      ])
    let filler = String(repeating: "# \(String(repeating: "x", count: 70))\n", count: 70_000)
    let big = errors("description: big\n" + filler + "description: again\n")
    XCTAssertEqual(big, ["test.yaml:70002:1: error: \"description\": duplicate key"])
  }

  func testUnclosedQuoteIsReportedWhereItOpens() throws {
    XCTAssertEqual(
      errors("description: \"never closed\nrelief:\n  radius: 4\n"),
      ["test.yaml:1:14: error: not valid YAML: this quoted string is never closed"])
  }

  func testTabIndentationIsNamed() throws {
    XCTAssertEqual(
      errors("relief:\n\tradius: 4\n"),
      [
        "test.yaml:2:1: error: not valid YAML: a tab is used for indentation; YAML indents with spaces only"
      ])
    XCTAssertEqual(
      errors("relief:\n  radius: 4\n  \tprofile: linear\n"),
      [
        "test.yaml:3:3: error: not valid YAML: a tab is used for indentation; YAML indents with spaces only"
      ])
  }

  func testMisspelledColorNameGetsASuggestion() throws {
    XCTAssertEqual(
      errors("surface:\n  base: silvr\n"),
      [
        "test.yaml:2:9: error: \"surface.base\": unknown color name \"silvr\"; did you mean \"silver\"?"
      ])
  }

  /// Bytes that are not UTF-8 are located at their line and column.
  func testNonUTF8IsLocated() throws {
    let directory = try Fixtures.temporaryDirectory()
    let file = directory.appendingPathComponent("latin1.yaml")
    try Data("description: caf".utf8 + [0xE9] + Array("\nrelief:\n  radius: 4\n".utf8)).write(
      to: file)
    XCTAssertEqual(
      MaterialLoader.check(file.path, library: library),
      ["\(file.path):1:17: error: not UTF-8 text: byte 0xE9 (save the file as UTF-8)"])
    try Data("description: ok\nrelief:\n  radius: 4 ".utf8 + [0xFF] + [0x0A]).write(to: file)
    XCTAssertEqual(
      MaterialLoader.check(file.path, library: library),
      ["\(file.path):3:13: error: not UTF-8 text: byte 0xFF (save the file as UTF-8)"])
  }

  /// `extends: other.yaml` is found next to the file that names it, whatever the working
  /// directory; a preset name is a preset.
  func testExtendsIsRelativeToTheFileThatNamesIt() throws {
    let directory = try Fixtures.temporaryDirectory()
    let sub = directory.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try "surface:\n  shininess: 33\n".write(
      to: sub.appendingPathComponent("base.yaml"), atomically: true, encoding: .utf8)
    try "extends: base.yaml\nrelief:\n  radius: 4\n".write(
      to: sub.appendingPathComponent("child.yaml"), atomically: true, encoding: .utf8)
    // A decoy in the working directory must not be picked.
    let previous = FileManager.default.currentDirectoryPath
    XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
    try "surface:\n  shininess: 99\n".write(
      to: directory.appendingPathComponent("base.yaml"), atomically: true, encoding: .utf8)
    let child = try MaterialLoader.load("sub/child.yaml", library: library)
    XCTAssertEqual(child.surface.shininess, 33)
  }

  func testNoMessageRepeatsTheInput() throws {
    let long = String(repeating: "y", count: 10_000)
    let result = errors("description: [\(long)\n")
    XCTAssertEqual(result.count, 1)
    XCTAssertLessThan(result[0].count, 300, result[0])
    let shininess = errors("surface:\n  shininess: \"\(long)\"\n")
    XCTAssertEqual(shininess.count, 1)
    XCTAssertLessThan(shininess[0].count, 300, shininess[0])
  }

  // MARK: A limit on errors ("Behaves like the Unix tools people know")

  /// A sink keeps the first `DiagnosticSink.limit` problems in file order, whatever order
  /// they were reported in, and counts the rest.
  func testSinkKeepsTheFirstProblemsInFileOrder() throws {
    var sink = DiagnosticSink()
    for line in (1...50).reversed() {
      sink.error("line \(line)", at: SourceLocation(file: "a.yaml", line: line, column: 1))
    }
    sink.error("other", at: SourceLocation(file: "b.yaml", line: 1, column: 1))
    XCTAssertEqual(sink.errorCount, 51)
    XCTAssertEqual(sink.omitted, 51 - DiagnosticSink.limit)
    XCTAssertEqual(sink.diagnostics.map(\.message), (1...DiagnosticSink.limit).map { "line \($0)" })
    var merged = DiagnosticSink()
    merged.error("first", at: SourceLocation(file: "c.yaml", line: 9, column: 1))
    merged.append(sink)
    XCTAssertEqual(merged.errorCount, 52)
    XCTAssertEqual(merged.diagnostics.first?.message, "first")
    XCTAssertEqual(merged.diagnostics.count, DiagnosticSink.limit)
    let error = MaterialError(merged)
    XCTAssertEqual(error.lines.last, "32 more errors not shown")
    XCTAssertEqual(error.lines.count, DiagnosticSink.limit + 1)
  }

  /// A file repeating one key 5,000 times gives 20 diagnostics and a count of the other 4,979.
  func testThousandsOfErrorsAreCounted() throws {
    var sink = DiagnosticSink()
    let yaml = "relief:\n" + String(repeating: "  radius: 3\n", count: 5_000)
    _ = MaterialLoader.parse(yaml: yaml, file: "test.yaml", library: library, sink: &sink)
    XCTAssertEqual(sink.diagnostics.count, DiagnosticSink.limit)
    XCTAssertEqual(
      sink.diagnostics.first?.description, "test.yaml:3:3: error: \"relief.radius\": duplicate key")
    XCTAssertEqual(sink.omitted, 4_979)
    XCTAssertEqual(
      MaterialError(combining: [MaterialError(sink), MaterialError(sink)]).omitted, 2 * 4_979 + 20)
  }
}
