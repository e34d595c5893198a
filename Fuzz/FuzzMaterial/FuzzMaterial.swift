import EmbossKit
import Foundation

/// libFuzzer entry: any bytes as a material file, and each line as a --set setting.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMaterial(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  var sink = DiagnosticSink()
  let library = MaterialLibrary(directories: [])
  if let spec = MaterialLoader.parse(yaml: text, file: "fuzz.yaml", library: library, sink: &sink) {
    let settings = text.split(separator: "\n").prefix(8).map(String.init)
    _ = try? MaterialLoader.apply(settings: settings, to: spec)
  }
  for diagnostic in sink.diagnostics { _ = diagnostic.description }
  return 0
}
