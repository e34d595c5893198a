import ArgumentParser
import EmbossKit

struct ShadingCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "shading",
    abstract:
      "Render a material's lit ball (the shading image the composite looks colors up in) on its own.",
    discussion: ExitStatus.paragraph("shading")
  )

  @OptionGroup var output: OutputOptions

  @OptionGroup(title: "Material") var material: MaterialOptions

  @OptionGroup(title: "Key light") var light: LightOptions

  @Option(
    help: ArgumentHelp(
      "Side of the image, \(Parameters.shadingSize.range.lowerBound)...\(Parameters.shadingSize.range.upperBound) pixels (default: the material's \(Parameters.shadingSize.key)).",
      valueName: "pixels"))
  var size: Int?

  @OptionGroup var threads: ThreadOptions

  @OptionGroup var cache: CacheOption

  func validate() throws {
    if let size {
      do { try Parameters.shadingSize.check(size) } catch {
        throw ValidationError("--size: \(error.message)")
      }
    }
    _ = try settings()
    _ = try picture()
    if let conflict = OutputConflicts.check(
      outputs: [("-o", output.output)], inputs: [("--material", material.material)])
    {
      throw ValidationError(conflict)
    }
  }

  /// `--set` and the key light as settings on the material's keys, checked.
  private func settings() throws -> [MaterialSetting] {
    do {
      return try RenderRequest.materialSettings(
        requestValues(of: material) + requestValues(of: light))
    } catch {
      throw ValidationError(error.commandLineMessage)
    }
  }

  /// The picture's format, bits and compression, checked.
  private func picture() throws -> (
    path: String, format: PictureFormat, depth: BitDepth, compression: Int
  ) {
    do {
      return try RenderRequest.picture(requestValues(of: output))
    } catch {
      throw ValidationError(error.commandLineMessage)
    }
  }

  func run() throws {
    let resources = try Resources.locate()
    var sources: [String] = []
    let spec = try MaterialLoader.load(
      material.material, library: resources.materialLibrary,
      settings: try settings(), sources: &sources)
    if let conflict = OutputConflicts.overwritesMaterial(
      outputs: [("-o", output.output)], sources: sources)
    {
      throw EmbossError(conflict)
    }
    let image = Pipeline.shadingImage(
      material: spec, size: size, cache: StageCache(disk: cache.ballCache),
      parallelism: threads.parallelism)
    let picture = try picture()
    let data = try PictureCodec.encode(
      CanvasImage(image), format: picture.format, depth: picture.depth,
      compression: picture.compression)
    try OutputFile.write(data, to: output.output)
  }
}
