import EmbossKit
import Foundation

/// libFuzzer entry: any bytes as a PNG file.
///
/// Must never crash; errors are fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Data(bytes: data, count: size)
  if let decoded = try? PNGCodec.decode(bytes, maxPixels: 1 << 22) {
    _ = ShadingImage.extendingRim(decoded.image)
    _ = try? PNGCodec.encode(decoded.image, parallelism: .serial)
  }
  return 0
}
