import EmbossKit

/// A name embossed in gold, 48 pixels tall: what this example package makes.
public enum NameBadge {
  /// Renders `name` in the bundled font and the `gold` preset, on one thread.
  ///
  /// - Throws: `EmbossError` when the fonts and materials cannot be found.
  public static func render(_ name: String, material: String = "gold") throws -> RenderResult {
    let job = RenderJob(
      mask: .text(TextMask(text: name, inkHeight: 48)), material: material,
      output: OutputPlan(image: "badge.png"), parallelism: .serial)
    return try job.run(resources: try Resources.locate()).result
  }
}
