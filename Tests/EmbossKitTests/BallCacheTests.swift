import EmbossKit
import Foundation
import XCTest

/// The lit-ball cache on disk only saves time: a render through it is the render without it,
/// byte for byte; a damaged or foreign file is never trusted, and is replaced.
final class BallCacheTests: XCTestCase {
  var directory: String = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "emboss-ball-cache-\(UUID().uuidString)"
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The keys (and batch manifests) are SHA-256 digests: FIPS 180-2's test vectors, and one
  /// longer than a block.
  func testSHA256KnownAnswers() {
    XCTAssertEqual(
      SHA256Digest.hex(Data()),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    XCTAssertEqual(
      SHA256Digest.hex(Data("abc".utf8)),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    XCTAssertEqual(
      SHA256Digest.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    XCTAssertEqual(
      SHA256Digest.hex(Data(repeating: 0x61, count: 1_000_000)),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  func mask() throws -> CoverageMask {
    try TextLayout(text: "Kw4", font: try Fixtures.font(), style: TextStyle(pixelSize: 40))
      .rasterize()
  }

  func material(_ name: String = "default", _ settings: [String] = []) throws -> MaterialSpec {
    try MaterialLoader.apply(
      settings: ["shading.size=96"] + settings,
      to: try MaterialLoader.load(name, library: Fixtures.resources.materialLibrary))
  }

  func render(_ mask: CoverageMask, _ spec: MaterialSpec, disk: BallCache?) -> RenderResult {
    Pipeline.render(
      RenderInput(mask: mask, material: spec, parallelism: .serial),
      cache: StageCache(disk: disk))
  }

  func balls() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
      .filter { $0.hasSuffix(".ball") }.sorted()
  }

  func testACachedBallRendersTheSameBytesAndSkipsShading() throws {
    let mask = try mask()
    let cache = BallCache(directory: directory)
    for name in ["default", "chrome", "gold", "mercury"] {
      let spec = try material(name)
      let fresh = render(mask, spec, disk: nil)
      let first = render(mask, spec, disk: cache)
      XCTAssertTrue(first.timings.stages.map(\.name).contains("shading image"), name)
      let second = render(mask, spec, disk: cache)
      // The stages up to the composite (a material's shadow or occlusion may follow it).
      XCTAssertEqual(
        Array(second.timings.stages.map(\.name).prefix(4)),
        ["height field", "normals", "ball cache", "composite"],
        "\(name): the ball comes from the cache")
      XCTAssertFalse(second.timings.stages.map(\.name).contains("shading image"), name)
      XCTAssertEqual(second.shadingImage, fresh.shadingImage, name)
      XCTAssertEqual(RenderCacheTests.difference(second.image, fresh.image), "none", name)
      XCTAssertEqual(RenderCacheTests.difference(first.image, fresh.image), "none", name)
    }
    // One ball per surface: each material's, and its plate's where it has one (mercury's).
    let plates = try ["default", "chrome", "gold", "mercury"].filter {
      try material($0).plate != nil
    }
    XCTAssertEqual(balls().count, 4 + plates.count, "one ball per surface")
    // The whole ball `emboss shading` writes comes from the same files.
    let spec = try material("chrome")
    XCTAssertEqual(
      Pipeline.shadingImage(material: spec, cache: StageCache(disk: cache), parallelism: .serial),
      Pipeline.shadingImage(material: spec, parallelism: .serial))
  }

  func testEveryInputOfTheBallIsInItsKey() throws {
    let mask = try mask()
    let cache = BallCache(directory: directory)
    _ = render(mask, try material(), disk: cache)
    for setting in [
      "lights[0].intensity=0.37", "surface.shininess=49", "environment.intensity=0.4",
      "shading.size=64",
    ] {
      let spec = try material("default", [setting])
      let cached = render(mask, spec, disk: cache)
      XCTAssertTrue(cached.timings.stages.map(\.name).contains("shading image"), setting)
      XCTAssertEqual(
        RenderCacheTests.difference(cached.image, render(mask, spec, disk: nil).image), "none",
        setting)
    }
    XCTAssertEqual(balls().count, 5)
    // What the ball does not depend on shares it.
    let spec = try material("default", ["relief.radius=5", "background=#203040"])
    XCTAssertFalse(
      render(mask, spec, disk: cache).timings.stages.map(\.name).contains("shading image"))
  }

  func testADamagedOrForeignFileIsIgnoredAndReplaced() throws {
    let mask = try mask()
    let spec = try material("gold")
    let fresh = render(mask, spec, disk: nil)
    let cache = BallCache(directory: directory)
    _ = render(mask, spec, disk: cache)
    let path = directory + "/" + balls()[0]
    let good = try Data(contentsOf: URL(fileURLWithPath: path))
    var flipped = good
    flipped[good.count / 2] ^= 0x10
    var wrongKey = good
    wrongKey[20] ^= 1
    let damages: [(String, Data)] = [
      ("a flipped bit", flipped), ("a truncated file", good.prefix(good.count - 5)),
      ("an empty file", Data()), ("another key inside", wrongKey),
      ("foreign bytes", Data(repeating: 0x5a, count: good.count)),
    ]
    for (name, damaged) in damages {
      try damaged.write(to: URL(fileURLWithPath: path))
      let result = render(mask, spec, disk: cache)
      XCTAssertTrue(result.timings.stages.map(\.name).contains("shading image"), name)
      XCTAssertEqual(RenderCacheTests.difference(result.image, fresh.image), "none", name)
      XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), good, "\(name): replaced")
    }
    // An unwritable folder: renders all the same.
    let blocked = BallCache(directory: directory + "/" + balls()[0] + "/inside")
    XCTAssertEqual(
      RenderCacheTests.difference(render(mask, spec, disk: blocked).image, fresh.image), "none")
  }

  func testTheFolderKeepsAtMostItsCapacity() throws {
    let mask = try mask()
    let cache = BallCache(directory: directory)
    for k in 0..<(BallCache.capacity + 3) {
      _ = render(
        mask, try material("default", ["lights[0].intensity=\(0.3 + Double(k) * 0.01)"]),
        disk: cache)
    }
    XCTAssertEqual(balls().count, BallCache.capacity)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
      !$0.hasSuffix(".ball")
    }
    XCTAssertEqual(leftovers, [], "no temporary file is left behind")
  }

  func testTheUsersCacheFollowsXDG() {
    XCTAssertEqual(
      BallCache.user(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"])?.directory,
      "/x/cache/emboss")
    XCTAssertEqual(
      BallCache.user(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"])?.directory,
      "/home/u/.cache/emboss")
    XCTAssertNil(BallCache.user(environment: [:])?.directory)
  }
}
