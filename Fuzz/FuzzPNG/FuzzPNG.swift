import EmbossKit
import Foundation

/// libFuzzer entry: any bytes as a picture file (PNG, JPEG or WebP, told by its first bytes).
///
/// Must never crash; errors are fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Data(bytes: data, count: size)
  _ = PictureCodec.size(of: bytes)
  if let decoded = try? PictureCodec.decode(bytes, maxPixels: 1 << 22) {
    _ = ShadingImage.extendingRim(decoded.image)
    let format = PictureFormat.allCases[size % 3]
    _ = try? PictureCodec.encode(CanvasImage(decoded.image), format: format, parallelism: .serial)
  }
  return 0
}
