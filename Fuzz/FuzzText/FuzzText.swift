import EmbossKit
import Foundation

/// The checkout's root, from this file's place in it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// The bundled fonts: Latin with a kern table, GPOS-only Latin, Arabic, Hebrew, Devanagari, a
/// variable font, a collection's second face.
let fonts: [Font] = {
  let files: [(String, Int)] = [
    ("DejaVuSans-Bold.ttf", 0), ("NotoSerif-Bold.ttf", 0), ("NotoSansArabic-Bold.ttf", 0),
    ("NotoSansHebrew-Bold.ttf", 0), ("NotoSansDevanagari-Bold.ttf", 0),
    ("Inter-Variable.ttf", 0), ("Collection.ttc", 1),
  ]
  do {
    return try files.map {
      try Font(path: root.appendingPathComponent("Fonts/\($0.0)").path, index: $0.1)
    }
  } catch {
    FileHandle.standardError.write(Data("FuzzText: \(error)\n".utf8))
    return []
  }
}()

/// Fallback fonts from the bundled folder and the machine's fonts, one fontconfig
/// configuration for the whole run.
let fallback = FontCatalog.Fallback(bundled: root.appendingPathComponent("Fonts").path)

let relief = try? ReliefSpec(radius: 3)

let featureChoices = ["", "liga=0", "smcp", "-kern", "ss01,dlig", "kern[1:3]=0"]

/// libFuzzer entry: the first bytes choose font, size, alignment, direction, spacing,
/// features, variations and fallback; the rest is UTF-8 text shaped, rasterized and (one in
/// eight) turned into a relief.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size >= 5, !fonts.isEmpty, let relief else { return 0 }
  let font = fonts[Int(data[3]) % fonts.count]
  let variations =
    font.axes.isEmpty
    ? FontVariations.none
    : (try? FontVariations(parsing: "wght=\(100 + Int(data[4]) * 800 / 255)")) ?? .none
  let style = TextStyle(
    pixelSize: Float(data[0] % 48) + 1,
    alignment: TextAlignment.allCases[Int(data[1]) % TextAlignment.allCases.count],
    letterSpacing: Float(Int8(bitPattern: data[2])) / 4,
    lineHeight: 1, padding: Float(data[2] % 5),
    direction: TextDirection.allCases[Int(data[1] / 8) % TextDirection.allCases.count],
    features: (try? FontFeatures(parsing: featureChoices[Int(data[4]) % featureChoices.count]))
      ?? .none,
    variations: variations)
  let text = String(decoding: UnsafeBufferPointer(start: data + 5, count: size - 5), as: UTF8.self)
  guard
    let layout = try? TextLayout(
      text: text, font: font, style: style,
      limits: RenderLimits(maxPixels: 1 << 20, maxTextLength: 200),
      fallback: data[3] & 0x80 != 0 ? fallback : nil)
  else { return 0 }
  let mask = layout.rasterize()
  // The relief (fuzzed as a whole by FuzzRender) costs seconds per input in this debug,
  // sanitized build: one input in eight goes on to it, so shaping gets the runs.
  if data[2] & 7 == 0 {
    _ = HeightField.make(mask: mask, relief: relief, parallelism: .serial)
  }
  return 0
}
