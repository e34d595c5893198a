import EmbossKit
import Foundation

/// What the `request` fuzz target does with its input, shared with the test that replays
/// its kept inputs (`FuzzRegressionTests`).
///
/// The first byte picks the way a request is made; the rest, split at NUL bytes, is:
/// - 0: an argument list (`Hi`, `--size`, `20`, `--mirror`, ...), read with the option table;
/// - 1: a batch row's `column=value` cells, made a request with two defaults and a template;
/// - 2: a request's JSON.
///
/// A request that is made must encode to JSON that decodes to the same request: a failure
/// stops the process (a fuzzer's crash).
package enum RequestFuzzing {
  /// Makes the request `bytes` describe, if it is valid, and checks its JSON; returns it.
  @discardableResult
  package static func exercise(_ bytes: [UInt8]) -> RenderRequest? {
    guard let way = bytes.first else { return nil }
    let words = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map {
      String(decoding: $0, as: UTF8.self)
    }
    var request: RenderRequest?
    switch way % 3 {
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
      else { preconditionFailure("the fuzz target's own defaults must be valid") }
      request = try? requests.request(for: BatchRow(number: 1, values: cells))
    default:
      request = try? JSONDecoder().decode(RenderRequest.self, from: Data(bytes.dropFirst()))
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
    return request
  }
}
