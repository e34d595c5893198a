import EmbossBatch
import EmbossKit
import Foundation

/// libFuzzer entry: requests built the three ways callers build them, no rendering.
///
/// The first byte picks the way; the rest, split at NUL bytes, is:
/// - 0: an argument list (`Hi`, `--size`, `20`, `--mirror`, ...), read with the option table;
/// - 1: a batch row's `column=value` cells, made a request with two defaults and a template;
/// - 2: a request's JSON.
///
/// A request that is made must encode to JSON that decodes to the same request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size > 0 else { return 0 }
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let words = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map {
    String(decoding: $0, as: UTF8.self)
  }
  var request: RenderRequest?
  switch bytes[0] % 3 {
  case 0:
    var text: String?
    var values: [RenderRequest.Value] = []
    var index = 0
    while index < words.count {
      let word = words[index]
      index += 1
      guard word.hasPrefix("--"), let option = RenderOption.named(String(word.dropFirst(2)))
      else {
        text = text ?? word
        continue
      }
      if option.kind == .flag {
        values.append(RenderRequest.Value(option, "true"))
      } else if index < words.count {
        values.append(RenderRequest.Value(option, words[index]))
        index += 1
      }
    }
    request = try? RenderRequest(text: text, values: values)
  case 1:
    var cells: [String: String] = [:]
    for word in words {
      let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      cells[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    guard
      let template = try? NameTemplate("out/{row}-{text}.png", option: "--name"),
      let requests = try? BatchRequests(
        defaults: [RenderRequest.Value(.size, "24"), RenderRequest.Value(.material, "gold")],
        templates: [(.output, template)])
    else { fatalError("the batch's own defaults must be valid") }
    request = try? requests.request(for: BatchRow(number: 1, values: cells))
  default:
    request = try? JSONDecoder().decode(
      RenderRequest.self, from: Data(bytes.dropFirst()))
  }
  if let request {
    do {
      let json = try JSONEncoder().encode(request)
      let decoded = try JSONDecoder().decode(RenderRequest.self, from: json)
      precondition(decoded == request, "a request's JSON reads back as another request")
    } catch {
      preconditionFailure("a request's JSON does not read back: \(error)")
    }
  }
  return 0
}
