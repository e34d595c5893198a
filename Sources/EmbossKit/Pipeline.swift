/// The whole render, one pure stage after another:
/// mask -> height field -> (normals x shading image) -> embossed image.
///
/// Each stage is a function of its inputs only; this type just runs them in order and keeps
/// every intermediate, so callers can write stages out or re-run only what changed.
public struct Render: Sendable {
  public var mask: CoverageMask
  public var height: HeightField
  public var shading: RGBAImage
  public var image: CanvasImage
  public var timings: StageTimings

  /// Renders a mask with a material. Cannot fail: every input is already validated.
  ///
  /// - Parameter shadingImage: an external shading image (see `ShadingImage.read`) used
  ///   instead of rendering the material's lit ball.
  public init(
    mask: CoverageMask, material: MaterialSpec, shadingImage: RGBAImage? = nil,
    parallelism: Parallelism = .allCores
  ) {
    var timings = StageTimings()
    self.mask = mask
    height = timings.measure("height field") {
      HeightField.make(mask: mask, relief: material.relief, parallelism: parallelism)
    }
    shading = timings.measure("shading image") {
      shadingImage ?? ShadingImage.render(
        surface: material.surface, lights: material.lights, size: material.shadingSize,
        parallelism: parallelism)
    }
    let height = self.height
    let shading = self.shading
    image = timings.measure("composite") {
      ShadedMaterial.composite(
        height: height, mask: mask, shading: shading, scale: material.relief.scale,
        background: material.background, parallelism: parallelism)
    }
    self.timings = timings
  }

  /// The intermediate stages as PNG files, named after what they hold: `mask.png` (coverage),
  /// `height.png` (16-bit gray, black lowest and white highest: 0...1 when raised, -1...0
  /// when lowered),
  /// `normals.png` ((n + 1) / 2 as RGB, y down) and `shading.png` (the lit hemisphere).
  public func stageFiles(
    relief: ReliefSpec, compression: Int = PNGCodec.defaultCompression
  ) throws -> [(name: String, data: [UInt8])] {
    let scale = relief.scale
    let range: ClosedRange<Float> = relief.direction == .raised ? 0...1 : -1...0
    let normals = ShadedMaterial.normalMap(height: height, scale: scale)
    let normalBytes = normals.pixels.flatMap { p in
      [p.x, p.y, p.z, p.w].map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
    }
    return [
      ("mask.png", Array(try PNGCodec.encodeGray(mask.plane, compression: compression))),
      (
        "height.png",
        Array(
          try PNGCodec.encodeGray(
            height.canvasPlane(), range: range, depth: .sixteen, compression: compression))
      ),
      (
        "normals.png",
        Array(
          try PNGCodec.encodeRaw(
            normalBytes, width: normals.width, height: normals.height, channels: 4, bitDepth: 8,
            compression: compression, pixelsPerMeter: 0, srgb: false))
      ),
      ("shading.png", Array(try PNGCodec.encode(shading, compression: compression))),
    ]
  }
}
