import EmbossKit
import XCTest

@testable import EmbossShading

final class ShadingImageTests: XCTestCase {
  var surface: Surface {
    get throws {
      try Surface(
        base: SIMD3(0.6, 0.4, 0.2), specular: SIMD3(1, 1, 1), shininess: 20, ambient: 0.1,
        metallic: 0)
    }
  }
  let omni: [(position: SIMD3<Float>, color: SIMD3<Float>, intensity: Float)] = [
    (SIMD3(-2, 2, 3), SIMD3(1, 0.9, 0.8), 1), (SIMD3(3, -1, 1), SIMD3(0.2, 0.3, 1), 0.5),
  ]
  var lights: [Light] {
    get throws {
      try omni.map {
        .omni(try OmniLight(position: $0.position, color: $0.color, intensity: $0.intensity))
      }
    }
  }

  /// Blinn-Phong written out independently of `Surface.shade`.
  func analytic(_ n: SIMD3<Double>) -> SIMD3<Double> {
    func normalize(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
    let base = SIMD3<Double>(0.6, 0.4, 0.2)
    var color = base * 0.1
    for light in omni {
      let position = SIMD3<Double>(light.position)
      let l = normalize(position - n)
      let diffuse = (n * l).sum()
      guard diffuse > 0 else { continue }
      let h = normalize(l + SIMD3(0, 0, 1))
      let specular = pow(max((n * h).sum(), 0), 20)
      color +=
        SIMD3<Double>(light.color) * Double(light.intensity)
        * (base * diffuse + SIMD3(repeating: specular))
    }
    return color
  }

  func testCenterAndSamplePointsMatchAnalyticBlinnPhong() throws {
    let size = 65  // odd: pixel 32's center is the sphere's center
    let image = ShadingImage.render(
      surface: try surface, lights: try lights, size: size, parallelism: .serial)
    for (i, j) in [(32, 32), (20, 12), (50, 40), (10, 30), (40, 55)] {
      let x = (Double(i) + 0.5) / Double(size) * 2 - 1
      let y = 1 - (Double(j) + 0.5) / Double(size) * 2
      let n = SIMD3(x, y, (1 - x * x - y * y).squareRoot())
      let expected = analytic(n)
      let got = image[i, j]
      for c in 0..<3 {
        XCTAssertEqual(
          Double(got[c]), expected[c], accuracy: 2e-4, "pixel (\(i), \(j)) channel \(c)")
      }
      XCTAssertEqual(got.w, 1)
    }
  }

  /// The environment's terms kept from one shading serve another under other lights: the
  /// same floats as shading everything again (a relight shades the lights alone).
  func testKeptReflectionsShadeTheSameBallUnderOtherLights() throws {
    let material = try Fixtures.material("default")
    XCTAssertGreaterThan(material.environment.intensity, 0)
    let geometry = BallGeometry.march(size: 64, parallelism: .serial)
    let reflections = try XCTUnwrap(
      geometry.reflections(surface: material.surface, environment: material.environment))
    for lights in [material.lights, try self.lights, []] {
      let kept = geometry.shade(
        surface: material.surface, lights: lights, environment: material.environment,
        reflections: reflections)
      let fresh = geometry.shade(
        surface: material.surface, lights: lights, environment: material.environment)
      XCTAssertEqual(kept, fresh)
    }
    XCTAssertNil(geometry.reflections(surface: material.surface, environment: .none))
  }

  func testRimIsAntiAliasedAndOutsideIsTransparent() throws {
    let size = 64
    let image = ShadingImage.render(
      surface: try surface, lights: try lights, size: size, parallelism: .serial)
    XCTAssertEqual(image[0, 0].w, 0, "corner is outside the disk")
    // The disk touches the image's edges (normal.x = -1 maps to column 0): the middle row's
    // first pixel is mostly covered. Along the diagonal, alpha rises from 0 to 1 across the
    // rim, with partial values between.
    XCTAssertGreaterThan(image[0, 32].w, 0.5)
    let diagonal = (0..<32).map { image[$0, $0].w }
    XCTAssertEqual(diagonal[0], 0)
    XCTAssertEqual(diagonal[31], 1)
    XCTAssertTrue(diagonal.contains { $0 > 0.05 && $0 < 0.95 }, "rim has partial coverage")
    XCTAssertEqual(diagonal, diagonal.sorted(), "coverage grows toward the center")
    // The last transparent pixel before the rim keeps the rim's color (not black), so
    // bilinear lookups at the rim never darken.
    guard let outside = diagonal.lastIndex(of: 0) else { return XCTFail("no transparent pixel") }
    let rim = image[outside, outside]
    XCTAssertGreaterThan(rim.x + rim.y + rim.z, 0)
  }

  func testLightAtTopLeftLightsTheTopLeftOfTheBall() throws {
    let light = Light.omni(try OmniLight(position: SIMD3(-3, 3, 2), intensity: 1))
    let image = ShadingImage.render(
      surface: try Surface(base: SIMD3(repeating: 0.5)), lights: [light], size: 64,
      parallelism: .serial)
    XCTAssertGreaterThan(image[16, 16].x, image[48, 48].x + 0.2)
  }

  func testDistantAndSpotLights() throws {
    let distant = Light.distant(try DistantLight(direction: SIMD3(0, 0, 1), intensity: 1))
    let flat = try Surface(base: SIMD3(repeating: 0.5), specular: SIMD3(repeating: 0), ambient: 0)
    let n = SIMD3<Float>(0, 0, 1)
    XCTAssertEqual(flat.shade(normal: n, point: n, lights: [distant]).x, 0.5, accuracy: 1e-6)
    // A spot aimed away from the point gives nothing; aimed at it, full light.
    let away = Light.spot(try SpotLight(position: SIMD3(0, 0, 3), target: SIMD3(5, 0, 3), cone: 20))
    let toward = Light.spot(try SpotLight(position: SIMD3(0, 0, 3), target: .zero, cone: 20))
    XCTAssertEqual(flat.shade(normal: n, point: n, lights: [away]).x, 0)
    XCTAssertEqual(flat.shade(normal: n, point: n, lights: [toward]).x, 0.5, accuracy: 1e-6)
  }

  /// GGX facing the light and the viewer: D = 1 / (pi alpha^2), G = 1, F = F0, so the
  /// highlight is F0 / (4 alpha^2) (times pi D G F / (4 n.v) with n.v = 1).
  func testGGXPeakIsAnalytic() throws {
    let surface = try Surface(
      base: .zero, specular: SIMD3(repeating: 0.5), shininess: 98, ambient: 0, metallic: 0,
      model: .ggx, fresnel: 1)
    let n = SIMD3<Float>(0, 0, 1)
    let light = Light.distant(try DistantLight(direction: n))
    let alpha2: Float = 2 / (98 + 2)
    let color = surface.shade(normal: n, point: n, lights: [light])
    XCTAssertEqual(color.x, 0.5 / (4 * alpha2), accuracy: 1e-3)
  }

  /// Schlick: reflection is F0 facing the viewer and rises toward 1 at grazing angles, by
  /// `fresnel`.
  func testFresnelRisesAtGrazingAngles() throws {
    let environment = try Environment(
      intensity: 1, sky: SIMD3(repeating: 1), horizon: SIMD3(repeating: 1),
      ground: SIMD3(repeating: 1))
    func reflection(_ n: SIMD3<Float>, fresnel: Float) throws -> Float {
      try Surface(
        base: .zero, specular: SIMD3(repeating: 0.04), shininess: 2048, ambient: 0, model: .ggx,
        fresnel: fresnel
      )
      .shade(normal: n, point: n, lights: [], environment: environment).x
    }
    let facing = SIMD3<Float>(0, 0, 1)
    let grazing = normalized(SIMD3<Float>(1, 0, 0.05))
    XCTAssertEqual(try reflection(facing, fresnel: 1), 0.04, accuracy: 1e-4)
    XCTAssertGreaterThan(try reflection(grazing, fresnel: 1), 0.6)
    XCTAssertEqual(try reflection(grazing, fresnel: 0), 0.04, accuracy: 1e-4)
  }

  /// A mirror's flat top reflects the sky just above the horizon when the horizon is lowered,
  /// and a bevel facing down reflects the ground.
  func testEnvironmentReflectsSkyAboveAndGroundBelow() throws {
    let environment = try Environment(
      intensity: 1, sky: SIMD3(0, 0, 1), horizon: SIMD3(0, 1, 0), ground: SIMD3(1, 0, 0),
      horizonAngle: -20)
    let mirror = try Surface(
      base: .zero, specular: SIMD3(repeating: 1), shininess: 2048, ambient: 0, model: .ggx)
    let top = mirror.shade(
      normal: SIMD3(0, 0, 1), point: SIMD3(0, 0, 1), lights: [], environment: environment)
    XCTAssertGreaterThan(top.y, top.x, "sky near the horizon")
    let down = normalized(SIMD3<Float>(0, -1, 1))
    let bottom = mirror.shade(normal: down, point: down, lights: [], environment: environment)
    XCTAssertGreaterThan(bottom.x, 0.9, "ground")
  }

  /// `horizon-softness` turns the sky into the ground over that angle either side of the
  /// horizon: on the line itself half of each, a little below mostly ground, past the
  /// softness all ground; with none, the line is sharp.
  func testHorizonSoftnessBlendsSkyIntoGround() throws {
    func radiance(elevation degrees: Float, softness: Float) throws -> SIMD3<Float> {
      let environment = try Environment(
        intensity: 1, sky: SIMD3(0, 1, 0), horizon: SIMD3(0, 1, 0), ground: SIMD3(1, 0, 0),
        horizonSoftness: softness)
      let a = degrees * .pi / 180
      return environment.radiance(SIMD3(0, sinf(a), cosf(a)), spread: 0, boxes: [])
    }
    XCTAssertEqual(try radiance(elevation: 0, softness: 10).x, 0.5, accuracy: 1e-4)
    XCTAssertEqual(try radiance(elevation: -5, softness: 10).x, 0.84375, accuracy: 1e-3)
    XCTAssertEqual(try radiance(elevation: -10, softness: 10).x, 1, accuracy: 1e-4)
    XCTAssertEqual(try radiance(elevation: -0.5, softness: 0).x, 1, accuracy: 1e-4)
    XCTAssertEqual(try radiance(elevation: 0.5, softness: 0).x, 0, accuracy: 1e-4)
  }
}

/// Highlights roll off instead of clipping: a color below the knee is kept; above it each
/// channel rises steadily toward 1 (reaching it in Float only far above), continuous at the knee, so an
/// overexposed gold highlight keeps its gradation where a clip would flatten it.
final class HighlightShoulderTests: XCTestCase {
  func testChannelsRollOffTowardWhite() {
    let dim = SIMD3<Float>(0.84, 0.5, 0.1)
    XCTAssertEqual(displayable(dim), dim)
    var previous: Float = 0
    for k in 0...400 {
      let v = Float(k) * 0.01
      let out = displayable(SIMD3(v, 0.2, 0.2))
      XCTAssertEqual(out.y, 0.2)
      XCTAssertLessThanOrEqual(out.x, 1)
      if v < 1.5 && v > 0 {
        XCTAssertGreaterThan(out.x, previous)
      } else {
        XCTAssertGreaterThanOrEqual(out.x, previous)
      }
      // Never more than the input, and at most a step as large as the input's.
      XCTAssertLessThanOrEqual(out.x, v + 1e-6)
      XCTAssertLessThanOrEqual(out.x - previous, 0.01 + 1e-5)
      previous = out.x
    }
    // Two overexposed golds stay apart (a clip gives both (1, 1, b)).
    let a = displayable(SIMD3(1.3, 1.1, 0.5))
    let b = displayable(SIMD3(1.8, 1.5, 0.7))
    XCTAssertGreaterThan(b.x - a.x, 0.005)
    XCTAssertGreaterThan(b.y - a.y, 0.02)
    XCTAssertGreaterThan(a.x, a.y)
  }
}
