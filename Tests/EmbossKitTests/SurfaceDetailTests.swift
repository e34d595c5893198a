import EmbossKit
import XCTest

@testable import EmbossCompositing

/// Procedural detail: nothing without it, the same pattern for a seed and another for
/// another seed, the same pattern at four times the size with four times the lengths, and
/// tilts and tints within their bounds.
final class SurfaceDetailTests: XCTestCase {
  func detail(_ change: (inout DetailSpec.Values) -> Void) throws -> DetailSpec {
    var v = DetailSpec.Values()
    change(&v)
    return try DetailSpec(v)
  }

  func testNoDetailIsNone() throws {
    XCTAssertNil(SurfaceDetail(.none, base: SIMD3(repeating: 0.5)))
    XCTAssertFalse(DetailSpec.none.isVisible)
    let grain = try detail { $0.grain = 0.5 }
    XCTAssertTrue(grain.colors)
    XCTAssertFalse(grain.tiltsNormals)
    let hammered = try detail { $0.hammered = 0.5 }
    XCTAssertTrue(hammered.tiltsNormals)
    XCTAssertFalse(hammered.colors)
  }

  func testHammeredDentsAreDishesThatMeetInRidges() throws {
    let spec = try detail {
      $0.hammered = 1
      $0.hammeredSize = 10
      $0.seed = 4
    }
    let hammer = try XCTUnwrap(Hammering(spec))
    let large = try XCTUnwrap(
      Hammering(
        try detail {
          $0.hammered = 1
          $0.hammeredSize = 40
          $0.seed = 4
        }))
    let other = try XCTUnwrap(
      Hammering(
        try detail {
          $0.hammered = 1
          $0.hammeredSize = 10
          $0.seed = 5
        }))
    var differs = 0
    var ridges = 0
    for i in 0..<900 {
      let p = SIMD2(Float(i % 30) * 1.7 + 0.3, Float(i / 30) * 1.9 + 0.2)
      let t = hammer.tilt(at: p)
      // At most the rim's tilt.
      XCTAssertLessThanOrEqual((t * t).sum().squareRoot(), hammer.tilt * 1.0001)
      // The same dents at four times the size (tilts are slopes: the same).
      let t4 = large.tilt(at: p * 4)
      XCTAssertEqual(t.x, t4.x, accuracy: 1e-4)
      XCTAssertEqual(t.y, t4.y, accuracy: 1e-4)
      if other.tilt(at: p) != t { differs += 1 }
      // Across a ridge the tilt jumps; inside a dish it changes by tilt / size a pixel.
      let step = hammer.tilt(at: p + SIMD2(0.25, 0)) - t
      if (step * step).sum().squareRoot() > 0.2 * hammer.tilt { ridges += 1 }
    }
    XCTAssertGreaterThan(differs, 800)
    XCTAssertGreaterThan(ridges, 5)
    XCTAssertLessThan(ridges, 200)
    // Inside a dish, the normal leans toward its center: the tilt changes sign across it.
    let offset = hammer.normalOffset(x: 3, y: 7)
    XCTAssertGreaterThanOrEqual(offset.rough, 0.5 * hammer.tilt / hammer.size)
  }

  /// Wood grain is a solid: a surface `d` pixels below the plate shows the rings that lie
  /// `d * ringLean` further across the grain, so a cut's walls show the lines moved with
  /// their depth (and bent where they run over the cut's edge), and the plate (depth 0)
  /// shows what it always did.
  func testWoodGrainIsASolidWhoseRingsLeanWithDepth() throws {
    for angle: Float in [0, 90] {
      let spec = try detail {
        $0.grain = 1
        $0.grainSpacing = 6
        $0.grainAngle = angle
        $0.grainFigure = 0.6
        $0.seed = 5
      }
      let grain = try XCTUnwrap(WoodGrain(spec, base: SIMD3(0.5, 0.3, 0.2)))
      // At 0 degrees the grain runs along x and "across" is +y (down); at 90 it runs up
      // and "across" is +x.
      let step = angle == 0 ? (0, 1) : (1, 0)
      var moved: Float = 0
      for i in 0..<400 {
        let (x, y) = (i % 20 * 3, i / 20 * 3)
        for k in 1...5 {
          // k pixels across the grain at the plate = the same pixel k / lean pixels deep.
          let deep = grain.pixelTint(x: x, y: y, z: -Float(k) / WoodGrain.ringLean)
          let across = grain.pixelTint(x: x + k * step.0, y: y + k * step.1, z: 0)
          XCTAssertEqual(deep.x, across.x, accuracy: 2e-3, "(\(x), \(y)) \(k) deep, \(angle)")
          XCTAssertEqual(deep.z, across.z, accuracy: 2e-3)
        }
        XCTAssertEqual(grain.pixelTint(x: x, y: y, z: 0), grain.pixelTint(x: x, y: y))
        moved += abs(grain.pixelTint(x: x, y: y, z: -4).x - grain.pixelTint(x: x, y: y).x)
      }
      // Depth moves the lines: not the same tint at 4 pixels deep.
      XCTAssertGreaterThan(moved / 400, 0.02)
    }
  }

  /// Stone's crystals are laid on the surface.
  ///
  /// On a planar wall of slope `s` the pattern point advances `sqrt(1 + s^2)` per pixel of the picture (the wall's arc length), so
  /// the wall shows its crystals foreshortened; flat ground (the plate, a plateau, a
  /// cut's floor) shows the pattern where it is. Raised and lowered walls alike.
  func testSpeckleIsLaidOnTheSurfaceSoWallsForeshortenIt() {
    for slope: Float in [0.2, 0.9, 3] {
      for angle: Float in [0, 0.7, 2.5] {
        let up = SIMD2(cosf(angle), sinf(angle))
        for lowered in [false, true] {
          // A wall rising along `up` from the plate's level (raised), or from a cut's
          // bottom to the plate's level (lowered).
          func z(_ t: Float) -> Float { lowered ? slope * (t - 10) : slope * t }
          func point(_ t: Float) -> SIMD2<Float> {
            let p = up * t + SIMD2(3, -2)
            let unfolded = Speckle.unfolding(z: z(t), gradient: up * slope)
            XCTAssertEqual(unfolded.stretch, (1 + slope * slope).squareRoot(), accuracy: 1e-5)
            return p + unfolded.offset
          }
          for t: Float in stride(from: 0, through: 9, by: 1.5) {
            let step = point(t + 1) - point(t)
            XCTAssertEqual(
              (step * step).sum().squareRoot(), (1 + slope * slope).squareRoot(),
              accuracy: 1e-4, "slope \(slope), angle \(angle), lowered \(lowered), t \(t)")
          }
          // At the plate's level the pattern is where it always was.
          let level = point(lowered ? 10 : 0) - up * (lowered ? 10 : 0) - SIMD2(3, -2)
          XCTAssertEqual((level * level).sum(), 0, accuracy: 1e-8)
        }
      }
    }
    XCTAssertEqual(Speckle.unfolding(z: -12, gradient: .zero).offset, .zero)
  }

  func testGrainAndSpeckleTintWithinTheirColors() throws {
    let base = SIMD3<Float>(0.4, 0.2, 0.1)
    let spec = try detail {
      $0.grain = 1
      $0.grainSpacing = 6
      $0.grainColor = SIMD3(0.1, 0.05, 0.02)
      $0.seed = 2
    }
    let grain = try XCTUnwrap(WoodGrain(spec, base: base))
    let large = try XCTUnwrap(
      WoodGrain(
        try detail {
          $0.grain = 1
          $0.grainSpacing = 24
          $0.grainColor = SIMD3(0.1, 0.05, 0.02)
          $0.seed = 2
        }, base: base))
    var darkest: Float = 1
    var lightest: Float = 0
    var alongChange: Float = 0
    var acrossChange: Float = 0
    for i in 0..<900 {
      let p = SIMD2(Float(i % 30) * 2.3 + 1, Float(i / 30) * 2.9 + 1)
      let t = grain.tint(at: p)
      // Between the wood's color (1) and the grain's (0.25 of it), give or take the broad
      // streaks of lighter and darker wood (16%).
      XCTAssertGreaterThanOrEqual(t.x, 0.25 * 0.84 - 1e-5)
      XCTAssertLessThanOrEqual(t.x, 1.16 + 1e-5)
      XCTAssertEqual(t.x, large.tint(at: p * 4).x, accuracy: 1e-3)
      darkest = min(darkest, t.x)
      lightest = max(lightest, t.x)
      // Lines run along the grain (0 degrees: horizontal).
      alongChange += abs(grain.tint(at: p + SIMD2(1, 0)).x - t.x)
      acrossChange += abs(grain.tint(at: p + SIMD2(0, 1)).x - t.x)
    }
    XCTAssertLessThan(darkest, 0.5)
    XCTAssertGreaterThan(lightest, 0.9)
    XCTAssertLessThan(alongChange * 2, acrossChange)

    let speckle = try XCTUnwrap(
      Speckle(
        try detail {
          $0.speckle = 1
          $0.speckleColor = SIMD3(repeating: 0.05)
        }, base: SIMD3(repeating: 0.5)))
    var dark = 0
    var light = 0
    for i in 0..<2500 {
      let t = speckle.tint(at: SIMD2(Float(i % 50) + 0.5, Float(i / 50) + 0.5)).x
      if t < 0.5 { dark += 1 }
      if t > 1.2 { light += 1 }
      XCTAssertGreaterThan(t, 0.05)
      // The lightest mineral (1.6) under the mottle (+10%) and its own shade (+13% per
      // cell unit from its point).
      XCTAssertLessThan(t, 1.6 * 1.1 * 1.13)
    }
    // A crystal is not one flat color: it shades across itself.
    var shaded = 0
    for i in 0..<200 {
      let q = SIMD2(Float(i % 20) * 1.7 + 0.3, Float(i / 20) * 1.9 + 0.4)
      let cell = speckle.cells.nearestCell(to: q, weight: speckle.weight)
      let nudged = q + SIMD2(0.05, 0.05)
      guard speckle.cells.nearestCell(to: nudged, weight: speckle.weight) == cell else { continue }
      let m = speckle.mottle(q.x / 14, q.y / 14)
      if abs(speckle.tint(q, mottle: m).x - speckle.tint(nudged, mottle: m).x) > 1e-4 {
        shaded += 1
      }
    }
    XCTAssertGreaterThan(shaded, 100)
    // Flecks, not a wash: a few percent of the surface each.
    XCTAssertGreaterThan(dark, 25)
    XCTAssertLessThan(dark, 800)
    XCTAssertGreaterThan(light, 25)
    XCTAssertLessThan(light, 800)
  }

  /// A pixel's points find their crystals and grains in the cells around the pixel, found
  /// once (`Speckle.Neighbourhood`): the same tints as each point's own search, bit for bit,
  /// for cells and grains a pixel or more across, away from the origin and across it.
  func testSpeckleNeighbourhoodFindsWhatEachPointFinds() throws {
    for size: Float in [2.3, 3, 4.4] {
      let speckle = try XCTUnwrap(
        Speckle(
          try detail {
            $0.speckle = 0.7
            $0.speckleSize = size
            $0.speckleColor = SIMD3(0.6, 0.55, 0.5)
          }, base: SIMD3(repeating: 0.01)))
      var checked = 0
      for k in 0..<400 {
        let (fx, fy) = (Float(k % 20) * 3.7 - 31, Float(k / 20) * 2.9 - 23)
        let point = { (k: Int) in
          SIMD2(fx + (Float(k % 3) + 0.5) / 3, fy + (Float(k / 3) + 0.5) / 3)
        }
        guard
          var near = Speckle.Neighbourhood(
            speckle, low: point(0) / size, high: point(8) / size)
        else { continue }
        checked += 1
        for j in 0..<9 {
          let q = point(j) / size
          let g = q / Speckle.grainScale
          XCTAssertEqual(near.tint(speckle, q, mottle: 0.3), speckle.tint(q, mottle: 0.3))
          XCTAssertEqual(near.fleck(speckle, g, mottle: 0.3), speckle.fleck(g, mottle: 0.3))
        }
      }
      XCTAssertGreaterThan(checked, 300)
    }
  }

  /// Waviness: nothing without it; a tilt that is the downhill slope of one smooth height
  /// (its curl is zero: the tilt's x changes down the rows as its y changes across the
  /// columns), changes little from pixel to pixel, averages to no lean over a wide area, and
  /// is the same pattern at four times the size with four times the size key (the tilt the
  /// same, as a slope is a ratio of lengths); another seed, another pattern.
  func testWavinessIsTheSlopeOfOneSmoothHeight() throws {
    XCTAssertNil(Waviness(.none))
    let spec = try detail {
      $0.waviness = 1
      $0.wavinessSize = 30
      $0.seed = 4
    }
    XCTAssertTrue(spec.tiltsNormals)
    let wave = try XCTUnwrap(Waviness(spec))
    let large = try XCTUnwrap(
      Waviness(
        try detail {
          $0.waviness = 1
          $0.wavinessSize = 120
          $0.seed = 4
        }))
    let other = try XCTUnwrap(
      Waviness(
        try detail {
          $0.waviness = 1
          $0.wavinessSize = 30
          $0.seed = 5
        }))
    var largest: Float = 0
    var step: Float = 0
    var curl: Float = 0
    var change: Float = 0
    var seedChange: Float = 0
    for y in 1..<60 {
      for x in 1..<60 {
        let t = wave.tilt(x: x, y: y)
        largest = max(largest, (t * t).sum().squareRoot())
        step = max(step, abs(wave.tilt(x: x + 1, y: y).x - t.x))
        seedChange += abs(other.tilt(x: x, y: y).x - t.x)
        // d(tilt.x)/dy against d(tilt.y)/dx, central differences.
        let dxdy = wave.tilt(x: x, y: y + 1).x - wave.tilt(x: x, y: y - 1).x
        let dydx = wave.tilt(x: x + 1, y: y).y - wave.tilt(x: x - 1, y: y).y
        curl = max(curl, abs(dxdy - dydx))
        change = max(change, abs(dxdy), abs(dydx))
        // Four times the size: the mean of the 4 x 4 pixels covering this one.
        var big = SIMD2<Float>.zero
        for k in 0..<16 { big += large.tilt(x: 4 * x + k % 4, y: 4 * y + k / 4) }
        XCTAssertEqual(big.x / 16, t.x, accuracy: 5e-4)
        XCTAssertEqual(big.y / 16, t.y, accuracy: 5e-4)
      }
    }
    XCTAssertGreaterThan(largest, 0.04)
    XCTAssertLessThan(largest, 0.3)
    XCTAssertLessThan(step, 0.04)
    XCTAssertLessThan(curl, 0.05 * change)
    XCTAssertGreaterThan(seedChange, 59 * 59 * 0.01)
    // No lean over a wide area (40 sizes across).
    var sum = SIMD2<Float>.zero
    for j in 0..<200 {
      for i in 0..<200 { sum += wave.tilt(x: 6 * i, y: 6 * j) }
    }
    XCTAssertLessThan((sum * sum).sum().squareRoot() / 40000, 0.01)
  }

  /// Brushed steel shows its lines on every flat face, not only where the room's reflection
  /// changes: the lines change how much light the face returns, so across the grain
  /// neighbouring rows differ by a few levels wherever the face is (two blind viewers found
  /// the faces away from the softbox "flat grey, plain satin"; the old tint gave 0.6 levels).
  func testBrushedSteelShowsItsLinesOnEveryFace() throws {
    let mask = Fixtures.mask(width: 420, height: 100, samples: 2) { x, y in
      x > 10 && x < 410 && y > 10 && y < 90
    }
    let material = try Fixtures.material("brushed-steel")
    let image = Pipeline.render(RenderInput(mask: mask, material: material, parallelism: .serial))
      .image.flattened()
    for x0 in [40, 200, 360] {
      var change: Float = 0
      var count = 0
      for x in x0..<(x0 + 20) {
        for y in 30..<70 {
          change += abs(SRGB.encode(image[x, y + 1].y) - SRGB.encode(image[x, y].y)) * 255
          count += 1
        }
      }
      XCTAssertGreaterThan(change / Float(count), 1.5, "rows differ at x = \(x0)")
    }
  }

  /// The grain's spread is the ball's blur (the same everywhere), not each pixel's footprint;
  /// what is left per pixel is a faint tilt.
  func testSandblastingSpreadsEveryWay() throws {
    let spec = try detail { $0.sandblasted = 1 }
    let sand = try XCTUnwrap(Sandblasting(spec))
    let offset = sand.normalOffset(x: 5, y: 9)
    XCTAssertEqual(offset.rough, 0)
    XCTAssertLessThanOrEqual(abs(offset.tilt.x), 0.3 * 0.2 + 1e-6)
    // A uniform spread of 0.3 each way: sigma 0.3 / sqrt(3) normal units, a normal unit half
    // of the ball's 256 texels.
    XCTAssertEqual(
      RoughBall.sigma(spec, size: 256), 0.3 / Float(3).squareRoot() * 128, accuracy: 1e-3)
    XCTAssertEqual(RoughBall.sigma(.none, size: 256), 0)
    // The blur keeps a flat ball flat (at its edges too: it is normalized by the alpha),
    // spreads a bright texel, and lets no transparent texel darken an opaque one.
    var ball = RGBAImage(width: 32, height: 32, fill: SIMD4(0.2, 0.2, 0.2, 1))
    ball[16, 16] = SIMD4(10, 10, 10, 1)
    for y in 0..<32 { ball[0, y] = .zero }
    let blurred = RoughBall.blurred(ball, sigma: 3, parallelism: .serial)
    XCTAssertEqual(blurred[2, 2].x, 0.2, accuracy: 1e-5)
    XCTAssertEqual(blurred[1, 30].x, 0.2, accuracy: 1e-5)
    XCTAssertEqual(blurred[0, 5].w, 0)
    XCTAssertLessThan(blurred[16, 16].x, 2)
    XCTAssertGreaterThan(blurred[19, 16].x, 0.3)
    var total: Float = 0
    for y in 8..<25 {
      for x in 8..<25 { total += blurred[x, y].x - 0.2 }
    }
    XCTAssertEqual(total, 9.8, accuracy: 0.1)
  }

  /// A see-through background, and Porter and Duff's over in straight alpha.
  func testOverInStraightAlpha() {
    let top = SIMD4<Float>(1, 0, 0, 0.5)
    let bottom = SIMD4<Float>(0, 0, 1, 0.5)
    let out = Backdrop.over(top, bottom)
    XCTAssertEqual(out.w, 0.75, accuracy: 1e-6)
    XCTAssertEqual(out.x, 0.5 / 0.75, accuracy: 1e-6)
    XCTAssertEqual(out.z, 0.25 / 0.75, accuracy: 1e-6)
    XCTAssertEqual(Backdrop.over(SIMD4(1, 1, 1, 1), bottom), SIMD4(1, 1, 1, 1))
    XCTAssertEqual(Backdrop.over(.zero, bottom), bottom)
  }

  /// A plate's speckle tints its diffuse light, and its reflection only as far as it is a
  /// metal: a brighter reflection (a ball brighter by the same amount everywhere) brightens
  /// every pixel of a polished stone plate by exactly that amount, crystal or not, and a
  /// metal plate's pixels by that amount times their tint.
  func testPlateSpeckleTintsTheDiffuseLightNotTheReflection() throws {
    var values = DetailSpec.Values()
    values.speckle = 0.8
    values.speckleSize = 3
    let detail = try DetailSpec(values)
    let (diffuse, extra) = (SIMD3<Float>(0.02, 0.02, 0.025), SIMD3<Float>(0.3, 0.2, 0.1))
    func plate(metallic: Float, reflection: SIMD3<Float>) throws -> RGBAImage {
      let surface = try Surface(base: SIMD3(0.05, 0.05, 0.05), metallic: metallic)
      let color = SIMD4(diffuse + reflection, 1)
      let ball = RGBAImage(
        width: 16, height: 16, pixels: [SIMD4<Float>](repeating: color, count: 256))
      return Backdrop.plate(
        PlateSpec(surface: surface, detail: detail), ball: ball, width: 48, height: 32,
        diffuse: diffuse, parallelism: .serial)
    }
    let dim = try plate(metallic: 0, reflection: SIMD3(0.1, 0.1, 0.1))
    let bright = try plate(metallic: 0, reflection: SIMD3(0.1, 0.1, 0.1) + extra)
    XCTAssertGreaterThan(Set(dim.pixels).count, 50, "the speckle shows")
    for (a, b) in zip(dim.pixels, bright.pixels) {
      XCTAssertEqual(b.x - a.x, extra.x, accuracy: 1e-5)
      XCTAssertEqual(b.z - a.z, extra.z, accuracy: 1e-5)
    }
    // A metal's reflection is its own color: tinted as much as its diffuse light.
    let metalDim = try plate(metallic: 1, reflection: SIMD3(0.1, 0.1, 0.1))
    let metalBright = try plate(metallic: 1, reflection: SIMD3(0.1, 0.1, 0.1) + extra)
    let changes = Set(zip(metalDim.pixels, metalBright.pixels).map { $1.x - $0.x })
    XCTAssertGreaterThan(changes.count, 20, "a metal's reflection takes the tint")
  }

  /// A row of speckle pixels read with the cells and grains kept from pixel to pixel
  /// (`Speckle.CellBlock`, the plate's way) gives each pixel the tint it has alone, at every
  /// crystal size (grains under two pixels, cells under two pixels, and both larger), on a
  /// surface seen shifted and foreshortened too.
  func testDetailRowsWithKeptCellsEqualEachPixelAlone() throws {
    for size: Float in [1.5, 3, 9.6, 24] {
      var values = DetailSpec.Values()
      values.speckle = 0.8
      values.speckleSize = size
      // The wood grain's noise cells are kept too: lines across rows and along them.
      values.grain = 0.6
      values.grainSpacing = size
      values.grainAngle = size * 15
      // And the brushed lines' tint.
      values.brushed = 0.6
      values.brushedAngle = size * 11
      let detail = try XCTUnwrap(
        SurfaceDetail(try DetailSpec(values), base: SIMD3(0.2, 0.2, 0.2)))
      for y in [-7, 0, 13, 101] {
        var kept = SurfaceDetail.Kept()
        for x in -20..<140 {
          let unfold = (offset: SIMD2<Float>(Float(y) * 0.01, 0.3), stretch: Float(1 + (x & 3)))
          // (A cut's depth too: the grain is a solid.)
          let z = Float(x % 7) - 3
          XCTAssertEqual(
            detail.pigment(x: x, y: y, z: z, unfold: unfold, kept: &kept),
            detail.pigment(x: x, y: y, z: z, unfold: unfold), "size \(size) at \(x), \(y)")
        }
      }
      // Down a column (the rows of a stroke one pixel wide).
      var kept = SurfaceDetail.Kept()
      for y in -10..<200 {
        XCTAssertEqual(
          detail.tint(x: 5, y: y, kept: &kept), detail.tint(x: 5, y: y), "size \(size) at 5, \(y)")
      }
    }
  }

  /// The waviness's tilt (and the detail's offsets with brushed lines) with its noise cells
  /// kept from pixel to pixel (as the compositor walks a band: rows, then on to the next)
  /// is each pixel's alone, bit for bit: across
  /// cells of 2 to 200 pixels, from negative coordinates, with pixels skipped and revisited,
  /// and down a column (the rows of a stroke one pixel wide).
  func testWavinessWithKeptCellsEqualsEachPixelAlone() throws {
    for size: Float in [2, 7.3, 31, 200] {
      let spec = try detail {
        $0.waviness = 1
        $0.wavinessSize = size
        $0.seed = 9
      }
      let wave = try XCTUnwrap(Waviness(spec))
      // The detail's offsets with brushed lines too, across and along the rows.
      let surface = try XCTUnwrap(
        SurfaceDetail(
          try detail {
            $0.waviness = 1
            $0.wavinessSize = size
            $0.seed = 9
            $0.brushed = 0.8
            $0.brushedAngle = size.truncatingRemainder(dividingBy: 90) * 3
            $0.brushedWidth = size / 4
          }, base: SIMD3(repeating: 0.5)))
      var corners = Waviness.Corners()
      var offsets = SurfaceDetail.Kept()
      for y in [-9, -1, 0, 1, 2, 57, 58, 400] {
        for x in stride(from: -25, to: 260, by: y == 57 ? 3 : 1) {
          let kept = wave.tilt(x: x, y: y, corners: &corners)
          let alone = wave.tilt(x: x, y: y)
          XCTAssertEqual(kept, alone, "size \(size) at \(x), \(y)")
          XCTAssertEqual(
            surface.normalOffset(x: x, y: y, kept: &offsets).tilt,
            surface.normalOffset(x: x, y: y).tilt, "size \(size) at \(x), \(y)")
        }
      }
      for x in [-3, 40] {
        for y in -30..<430 {
          XCTAssertEqual(
            wave.tilt(x: x, y: y, corners: &corners), wave.tilt(x: x, y: y),
            "size \(size) at \(x), \(y)")
        }
      }
    }
  }

  /// The letters put over a plate made a row at a time as they are (`under(_:plate:...)`)
  /// are the letters over the whole plate (`under(_:layer:)`), bit for bit: a speckled and
  /// brushed plate seen by a camera, behind letters that hide part of it, on one thread and
  /// on several.
  func testPlateMadeRowByRowUnderTheLettersIsTheWholePlateUnderThem() throws {
    var values = DetailSpec.Values()
    values.speckle = 0.7
    values.brushed = 0.5
    let plate = PlateSpec(
      surface: try Surface(base: SIMD3(0.3, 0.25, 0.2), metallic: 0.4),
      detail: try DetailSpec(values))
    let material = try Fixtures.material("chrome")
    let ball = Pipeline.shadingImage(material: material, size: 64, parallelism: .serial)
    let mask = try TextLayout(
      text: "Hw", font: try Fixtures.font(), style: TextStyle(pixelSize: 30)
    )
    .rasterize()
    let picture = Pipeline.render(
      RenderInput(
        mask: mask,
        material: try MaterialLoader.apply(settings: ["background=transparent"], to: material),
        parallelism: .serial)
    ).image
    let camera = try CameraSpec(distance: 200)
    let diffuse = SIMD3<Float>(0.05, 0.04, 0.03)
    let whole = Backdrop.under(
      picture,
      layer: Backdrop.plate(
        plate, ball: ball, width: picture.width, height: picture.height, camera: camera,
        diffuse: diffuse, hidden: mask, parallelism: .serial),
      parallelism: .serial)
    for parallelism in [Parallelism.serial, .allCores] {
      let rows = Backdrop.under(
        picture, plate: plate, ball: ball, camera: camera, diffuse: diffuse, hidden: mask,
        parallelism: parallelism)
      XCTAssertEqual(rows.contentRect, whole.contentRect)
      XCTAssertEqual(rows.fill, whole.fill)
      XCTAssertEqual(rows.content.pixels, whole.content.pixels, "\(parallelism)")
    }
    XCTAssertGreaterThan(Set(whole.content.pixels).count, 500, "a plate with detail")
  }

  /// A plate without detail is one color (the plate ball's center); with a camera it changes
  /// across the canvas, brighter toward the key light's side of a mirror's ball.
  func testPlateIsFlatUnlessDetailOrCamera() throws {
    let material = try Fixtures.material("chrome")
    let plate = PlateSpec(surface: material.surface)
    let ball = Pipeline.shadingImage(material: material, size: 128, parallelism: .serial)
    let flat = Backdrop.plate(
      plate, ball: ball, width: 40, height: 20, diffuse: .zero, parallelism: .serial)
    XCTAssertEqual(Set(flat.pixels.map { $0 }).count, 1)
    let camera = try CameraSpec(distance: 30)
    let seen = Backdrop.plate(
      plate, ball: ball, width: 40, height: 20, camera: camera, diffuse: .zero,
      parallelism: .serial)
    XCTAssertGreaterThan(Set(seen.pixels.map { $0 }).count, 100)
    XCTAssertEqual(camera.tilt(at: SIMD2(30, 0)), SIMD2(1, 0))
    XCTAssertEqual(CameraSpec.orthographic.tilt(at: SIMD2(30, 0)), .zero)
  }
}
