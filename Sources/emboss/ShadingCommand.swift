import ArgumentParser
import EmbossKit

struct ShadingCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "shading",
    abstract: "Render a material's lit hemisphere (the shading image) on its own.")

  @OptionGroup var output: OutputOptions

  @OptionGroup var material: MaterialOptions

  @Option(help: "Side of the image in pixels, 16...4096 (default: the material's shading size).")
  var size: Int?

  func validate() throws {
    if let size, !MaterialSpec.shadingSizeRange.contains(size) {
      throw ValidationError("--size must be in 16...4096, got \(size)")
    }
    if let conflict = OutputConflicts.check(outputs: [("-o", output.output)], inputs: []) {
      throw ValidationError(conflict)
    }
  }

  func run() throws {
    let resources = try Resources.locate()
    let spec = try material.load(from: resources.materialLibrary)
    let image = ShadingImage.render(
      surface: spec.surface, lights: spec.lights, environment: spec.environment,
      size: size ?? spec.shadingSize,
      parallelism: material.parallelism)
    let png = try PNGCodec.encode(image, depth: output.depth, compression: output.compression)
    try OutputFile.write(png, to: output.output)
  }
}
