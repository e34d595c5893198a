import EmbossKit
import Foundation

/// The bundled font, found from this file's place in the checkout.
let font: Font? = {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  do {
    return try Font(path: root.appendingPathComponent("Fonts/DejaVuSans-Bold.ttf").path)
  } catch {
    FileHandle.standardError.write(Data("FuzzText: \(error)\n".utf8))
    return nil
  }
}()

/// libFuzzer entry: the first bytes choose size, alignment and spacing; the rest is UTF-8 text
/// set, rasterized and turned into a relief.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size >= 3, let font else { return 0 }
  let style = TextStyle(
    pixelSize: Float(data[0] % 48) + 1,
    alignment: TextAlignment.allCases[Int(data[1]) % 3],
    letterSpacing: Float(Int8(bitPattern: data[2])) / 4,
    lineHeight: 1, padding: Float(data[2] % 5))
  let text = String(decoding: UnsafeBufferPointer(start: data + 3, count: size - 3), as: UTF8.self)
  guard
    let layout = try? TextLayout(
      text: text, font: font, style: style,
      limits: RenderLimits(maxPixels: 1 << 20, maxTextLength: 200))
  else { return 0 }
  let mask = layout.rasterize()
  _ = HeightField.make(mask: mask, relief: ReliefSpec(radius: 3), parallelism: .serial)
  return 0
}
