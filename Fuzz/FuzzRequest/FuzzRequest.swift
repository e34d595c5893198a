import EmbossBatch
import Foundation

/// libFuzzer entry: requests built the three ways callers build them (an argument list, a
/// batch row, JSON), no rendering; see `RequestFuzzing`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  RequestFuzzing.exercise(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
