import EmbossKit
import FlyingFox
import FlyingSocks
import Foundation

/// The studio's HTTP server: the page, its script and style, and a small JSON API over a
/// `StudioSession`, served to this machine only.
///
/// Safe on a shared machine: it listens on 127.0.0.1 and ::1 only; every request must carry
/// the per-run token (the `token` query item or the `X-Emboss-Token` header) and a Host
/// header naming a loopback address with this port (a DNS-rebinding page has its own
/// host name there); it serves only its own assets and the one material file's session (no
/// request names a file); request bodies are capped at `bodyLimit` bytes.
public final class StudioServer: @unchecked Sendable {
  /// The material being edited.
  public let session: StudioSession
  /// The per-run secret in the URL.
  public let token: String
  /// The largest request body accepted.
  public static let bodyLimit = 64 << 10
  private var servers: [HTTPServer] = []
  private var tasks: [Task<Void, any Error>] = []
  /// The port listened on, once started (0 before).
  public private(set) var port: UInt16 = 0

  /// A server for `session`, with `token` or a new random one.
  public init(session: StudioSession, token: String? = nil) {
    self.session = session
    self.token = token ?? Self.makeToken()
  }

  static func makeToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in
      let n = generator.next() as UInt64
      let hex = String(n, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }

  /// The page's address, token included.
  public var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

  /// Starts listening on 127.0.0.1 at `port` (0: any free port), then on ::1 at the same
  /// port where this machine has IPv6.
  public func start(port requested: UInt16 = 0) async throws {
    let handler = Handler(server: self)
    let v4 = HTTPServer(
      address: try sockaddr_in.inet(ip4: "127.0.0.1", port: requested), timeout: 30,
      logger: .disabled, handler: handler)
    try await launch(v4)
    guard case .ip4(_, let bound) = await v4.listeningAddress else {
      throw StudioSession.Failure("the studio could not listen on 127.0.0.1")
    }
    port = bound
    let v6 = HTTPServer(
      address: sockaddr_in6.loopback(port: bound), timeout: 30, logger: .disabled,
      handler: handler)
    // No IPv6 loopback (a container without it): 127.0.0.1 alone.
    try? await launch(v6)
  }

  private func launch(_ server: HTTPServer) async throws {
    let task = Task { try await server.run() }
    do {
      try await server.waitUntilListening(timeout: 5)
    } catch {
      task.cancel()
      throw StudioSession.Failure("cannot listen: \(error)")
    }
    servers.append(server)
    tasks.append(task)
  }

  /// Stops listening and ends open connections.
  public func stop() async {
    for server in servers { await server.stop(timeout: 0.1) }
    for task in tasks { task.cancel() }
  }

  // MARK: Checks

  /// Whether a Host header names this server by a loopback name.
  func allowsHost(_ host: String?) -> Bool {
    guard let host = host?.lowercased() else { return false }
    return ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"].contains(host)
  }

  func allowsToken(_ request: HTTPRequest) -> Bool {
    let given =
      request.headers[HTTPHeader("X-Emboss-Token")]
      ?? request.query.first(where: { $0.name == "token" })?.value
    guard let given, given.utf8.count == token.utf8.count else { return false }
    // Compared in constant time.
    return zip(given.utf8, token.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }

  struct Handler: HTTPHandler {
    let server: StudioServer

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
      await server.respond(to: request)
    }
  }

  // MARK: Routes

  func respond(to request: HTTPRequest) async -> HTTPResponse {
    guard allowsHost(request.headers[.host]) else {
      return Self.error(.forbidden, "this server answers only to 127.0.0.1, localhost and [::1]")
    }
    guard allowsToken(request) else {
      return Self.error(.forbidden, "missing or wrong token: open the address emboss printed")
    }
    do {
      switch (request.method, request.path) {
      case (.GET, "/"), (.GET, "/index.html"):
        return Self.asset(StudioAssets.html(token: token), type: "text/html; charset=utf-8")
      case (.GET, "/studio.js"):
        return Self.asset(StudioAssets.script, type: "text/javascript; charset=utf-8")
      case (.GET, "/studio.css"):
        return Self.asset(StudioAssets.style, type: "text/css; charset=utf-8")
      case (.GET, "/api/schema"):
        return try Self.json(StudioSchema.make())
      case (.GET, "/api/state"):
        session.checkDisk()
        return try Self.json(session.state())
      case (.GET, "/api/render"):
        let stageName = request.query.first { $0.name == "stage" }?.value ?? "picture"
        guard let stage = StudioSession.Stage(rawValue: stageName) else {
          return Self.error(.badRequest, "unknown stage \(stageName)")
        }
        let revision = request.query.first { $0.name == "rev" }.flatMap { Int($0.value) }
        guard let rendered = try await session.render(stage, revision: revision) else {
          return Self.error(.conflict, "superseded by a newer change")
        }
        var response = HTTPResponse(
          statusCode: .ok, headers: Self.headers(type: "image/png"), body: rendered.png)
        response.headers[HTTPHeader("X-Render-Milliseconds")] = String(
          format: "%.1f", rendered.milliseconds)
        response.headers[HTTPHeader("X-Revision")] = String(rendered.revision)
        return response
      case (.POST, let path) where path.hasPrefix("/api/"):
        let body = try await Self.body(of: request)
        return try Self.json(try post(path, body: body))
      default:
        return Self.error(.notFound, "not found")
      }
    } catch let error as BodyError {
      return Self.error(error.status, error.message)
    } catch let error as MaterialError {
      return Self.error(
        .unprocessableContent, error.description)
    } catch let error as StudioSession.Failure {
      return Self.error(.unprocessableContent, error.message)
    } catch let error as DecodingError {
      return Self.error(.badRequest, "malformed request: \(error)")
    } catch {
      return Self.error(.unprocessableContent, "\(error)")
    }
  }

  private func post(_ path: String, body: Data) throws -> StudioState {
    let decoder = JSONDecoder()
    switch path {
    case "/api/edit":
      let request = try decoder.decode(EditRequest.self, from: body)
      return try session.apply(try request.edits.map { try $0.edit() }, coalesce: request.coalesce)
    case "/api/undo": return session.undo()
    case "/api/redo": return session.redo()
    case "/api/save": return try session.save()
    case "/api/save-as":
      return try session.saveAs(name: try decoder.decode(SaveAsRequest.self, from: body).name)
    case "/api/scene":
      return try session.setScene(try decoder.decode(StudioSession.Scene.self, from: body))
    default:
      throw BodyError(status: .notFound, message: "not found")
    }
  }

  struct BodyError: Error {
    var status: HTTPStatusCode
    var message: String
  }

  static func body(of request: HTTPRequest) async throws -> Data {
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > bodyLimit {
      throw BodyError(status: .payloadTooLarge, message: "request body over \(bodyLimit) bytes")
    }
    var data = Data()
    for try await chunk in request.bodySequence {
      data.append(chunk)
      if data.count > bodyLimit {
        throw BodyError(status: .payloadTooLarge, message: "request body over \(bodyLimit) bytes")
      }
    }
    return data
  }

  struct EditRequest: Decodable {
    var edits: [EditItem]
    var coalesce: Bool = false

    enum CodingKeys: String, CodingKey { case edits, coalesce }
    init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      edits = try c.decode([EditItem].self, forKey: .edits)
      coalesce = try c.decodeIfPresent(Bool.self, forKey: .coalesce) ?? false
      guard edits.count <= 64 else {
        throw StudioSession.Failure("at most 64 edits at a time")
      }
    }
  }

  /// `{"op": "set", "path": "surface.shininess", "value": "40"}`, `{"op": "append", "list":
  /// "lights", "fields": [["kind", "omni"]]}`, `{"op": "remove", "list", "index"}`,
  /// `{"op": "move", "list", "from", "to"}`.
  struct EditItem: Decodable {
    var op: String
    var path: String?
    var value: String?
    var list: String?
    var fields: [[String]]?
    var index: Int?
    var from: Int?
    var to: Int?

    func edit() throws -> StudioSession.Edit {
      switch op {
      case "set":
        guard let path, let value else { throw StudioSession.Failure("set needs path and value") }
        return .set(path: path, yaml: value)
      case "append":
        guard let list, let fields, fields.allSatisfy({ $0.count == 2 }) else {
          throw StudioSession.Failure("append needs list and fields")
        }
        return .append(list: list, fields: fields.map { .init($0[0], $0[1]) })
      case "remove":
        guard let list, let index else {
          throw StudioSession.Failure("remove needs list and index")
        }
        return .remove(list: list, index: index)
      case "move":
        guard let list, let from, let to else {
          throw StudioSession.Failure("move needs list, from and to")
        }
        return .move(list: list, from: from, to: to)
      default:
        throw StudioSession.Failure("unknown edit \(op)")
      }
    }
  }

  struct SaveAsRequest: Decodable {
    var name: String
  }

  // MARK: Responses

  static func headers(type: String) -> HTTPHeaders {
    var headers = HTTPHeaders()
    headers[.contentType] = type
    headers[.cacheControl] = "no-store"
    headers[HTTPHeader("X-Content-Type-Options")] = "nosniff"
    headers[HTTPHeader("Referrer-Policy")] = "no-referrer"
    headers[HTTPHeader("Content-Security-Policy")] =
      "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
    return headers
  }

  static func asset(_ text: String, type: String) -> HTTPResponse {
    HTTPResponse(statusCode: .ok, headers: headers(type: type), body: Data(text.utf8))
  }

  static func json(_ value: some Encodable) throws -> HTTPResponse {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return HTTPResponse(
      statusCode: .ok, headers: headers(type: "application/json"),
      body: try encoder.encode(value))
  }

  static func error(_ status: HTTPStatusCode, _ message: String) -> HTTPResponse {
    let body = (try? JSONEncoder().encode(["error": message])) ?? Data()
    return HTTPResponse(
      statusCode: status, headers: headers(type: "application/json"), body: body)
  }
}
