import EmbossKit
import Foundation

/// The checkout, found from this file's place in it: fonts and presets.
let resources = Resources(
  root: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path)

/// The material text goes to a file, as `--material FILE` reads it.
let materialPath = NSTemporaryDirectory() + "emboss-fuzz-render-\(getpid()).yaml"

/// A value from a byte, favouring each range's edges.
func pick<T>(_ byte: UInt8, _ values: [T]) -> T { values[Int(byte) % values.count] }

/// libFuzzer entry for the whole render.
///
/// the input is split at NUL bytes into
/// 1. 16 bytes of option values (size, alignment, spacing, padding, line height, relief
///    overrides, light angles, resolution, canvas, ink height, engrave and cut options),
///    each mapped into the range the command line accepts, edges included;
/// 2. the text (any bytes, decoded as UTF-8 with replacement, as arguments are);
/// 3. a material file (YAML; empty: the default preset);
/// 4. and after: `--set key=value` lines.
/// Then it runs a `RenderJob` (material, `--set`, flags, layout, relief, shading,
/// compositing, PNG encoding, the laser outputs and stage files), writing nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRender(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let parts = bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
  guard parts.count >= 2 else { return 0 }
  var o = Array(parts[0])
  o += [UInt8](repeating: 0x5a, count: max(0, 16 - o.count))
  let text = String(decoding: parts[1], as: UTF8.self)
  let yaml = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : ""
  let settings =
    parts.count > 3
    ? String(decoding: parts[3], as: UTF8.self).split(separator: "\n").prefix(8).map(String.init)
    : []

  let style = TextStyle(
    pixelSize: pick(o[0], [1, 2, 3.5, 8, 13, 24, 40, 64, 96]),
    alignment: TextAlignment.allCases[Int(o[1]) % TextAlignment.allCases.count],
    letterSpacing: pick(o[2], [0, -1, -8, -40, 3, 25, 0.5]),
    lineHeight: pick(o[3], [1, 0.01, 0.5, 2, 7]),
    padding: pick(o[4], [nil, 0, 0.5, 1, 3, 17]))
  var flags = MaterialFlags()
  flags.radius = pick(o[5], [nil, "0.5", "1", "2.5", "6", "30", "1mm"]).flatMap(Length.parse)
  flags.profile =
    o[6] % 2 == 0 ? nil : ReliefProfile.allCases[Int(o[6] / 2) % ReliefProfile.allCases.count]
  flags.scale = pick(o[7], [nil, 0, 0.01, 3, 1000])
  flags.reliefDepth = pick(o[8], [nil, "0x", "2.5x", "0", "7px", "1000"]).flatMap(
    MaterialFlags.Depth.parse)
  flags.soften = pick(o[9], [nil, "0", "0.5", "4", "40"]).flatMap(Length.parse)
  flags.direction = o[10] % 3 == 0 ? nil : (o[10] % 3 == 1 ? .raised : .lowered)
  // The material's own ball (512 px in most presets) is slow to light: one input in eight.
  flags.shadingSize = pick(o[11], [nil, 16, 17, 64, 16, 33, 24, 40])
  flags.lightAngle = pick(o[12], [nil, 0, -180, 359.9, 90])
  flags.lightAltitude = pick(o[13], [nil, 0, 90, 45])
  do {
    try Data(yaml.utf8).write(to: URL(fileURLWithPath: materialPath))
  } catch {
    return 0
  }
  let resolution = pick(o[2] / 8, [nil, Resolution(dpi: 1), Resolution(dpi: 300)])
  var laser = LaserRequest()
  if o[3] & 0x10 != 0 {
    // Every byte is a threshold in 0...255 and every width valid: the options are built.
    guard
      let options = try? EngraveOptions(
        method: DitherMethod.allCases[Int(o[4]) % DitherMethod.allCases.count],
        threshold: Int(o[5]), dotWidth: pick(o[6] / 8, [0, 1, 3, 1000]))
    else { return 0 }
    laser.engrave = "e.png"
    laser.engraveOptions = options
  }
  if o[3] & 0x20 != 0 {
    laser.depthMap = ("d.png", o[7] % 2 == 0 ? .eight : .sixteen, o[7] & 2 != 0)
  }
  if o[3] & 0x40 != 0 {
    laser.svg = SVGRequest(
      path: "s.svg", cutOffset: pick(o[8] / 8, [0, 0.5, 4, 30, -1, -6]),
      cutRegion: o[9] % 3 == 0 ? (x: Int(o[10]) % 200, y: Int(o[11]) % 60) : nil,
      cutOuter: o[9] & 4 != 0, cutMinSize: pick(o[9] / 8, [0, 0, 2, 40]),
      inkVectors: pick(o[10] / 16, [nil, nil, .fill, .score]))
  }
  guard let flagSettings = try? flags.settings(dpi: resolution?.dpi) else { return 0 }
  let job = RenderJob(
    mask: .text(
      TextMask(
        text: text, style: style, inkHeight: pick(o[1] / 4, [nil, nil, 2, 11, 50]),
        canvas: pick(
          o[14], [nil, CanvasSize(width: 1, height: 1), CanvasSize(width: 300, height: 90)]))),
    material: yaml.isEmpty ? Resources.defaultMaterialName : materialPath,
    settings: settings.map(MaterialSetting.init(set:)) + flagSettings,
    output: OutputPlan(
      image: "-", depth: o[15] % 2 == 0 ? .eight : .sixteen, compression: Int(o[15] / 2) % 10,
      resolution: resolution, laser: laser, stagesDirectory: o[12] % 5 == 0 ? "stages" : nil),
    parallelism: o[15] % 4 < 2 ? .serial : Parallelism(threads: 2),
    limits: RenderLimits(maxPixels: 1 << 17, maxTextLength: 64))
  _ = try? job.run(resources: resources)
  return 0
}
