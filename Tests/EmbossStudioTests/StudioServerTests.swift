import EmbossKit
import EmbossStudio
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The studio's server over real sockets: who it answers, what it serves, and that an edit
/// re-renders and a save writes back only the changed value.
final class StudioServerTests: XCTestCase {
  var directory: URL!
  var materialPath: String!
  var server: StudioServer!
  let resources = Resources(
    root: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path)

  override func setUp() async throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "studio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    materialPath = directory.appendingPathComponent("gold.yaml").path
    try FileManager.default.copyItem(
      atPath: resources.materialsDirectory + "/gold.yaml", toPath: materialPath)
    let session = try StudioSession(
      materialPath: materialPath, scene: .init(text: "Gold", size: 64), resources: resources)
    server = StudioServer(session: session)
    try await server.start()
  }

  override func tearDown() async throws {
    await server.stop()
    try? FileManager.default.removeItem(at: directory)
  }

  struct Reply {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  /// One HTTP/1.1 request over a plain socket, so that every header (Host included) is
  /// exactly what the test says.
  func request(
    _ method: String, _ target: String, host: String? = nil, token: Bool = true,
    body: Data = Data(), extraHeaders: [String] = []
  ) throws -> Reply {
    let port = server.port
    var target = target
    if token { target += (target.contains("?") ? "&" : "?") + "token=\(server.token)" }
    var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n"
    head += "Connection: close\r\nContent-Length: \(body.count)\r\n"
    for header in extraHeaders { head += header + "\r\n" }
    head += "\r\n"
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    XCTAssertGreaterThanOrEqual(fd, 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    XCTAssertEqual(connected, 0)
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let payload = Data(head.utf8) + body
    _ = payload.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      received.append(contentsOf: buffer[0..<n])
      if let reply = parse(received),
        reply.body.count >= Int(reply.headers["content-length"] ?? "0") ?? 0
      {
        return reply
      }
    }
    return try XCTUnwrap(parse(received), "no reply")
  }

  func parse(_ data: Data) -> Reply? {
    guard let split = data.firstRange(of: Data("\r\n\r\n".utf8)) else { return nil }
    let lines = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(
      separatedBy: "\r\n")
    guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      if let colon = line.firstIndex(of: ":") {
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
          .trimmingCharacters(in: .whitespaces)
      }
    }
    return Reply(status: status, headers: headers, body: Data(data[split.upperBound...]))
  }

  func json(_ reply: Reply) throws -> [String: Any] {
    try XCTUnwrap(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any], reply.text)
  }

  func testTheTokenAndALoopbackHostAreRequired() throws {
    let page = try request("GET", "/")
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(page.text.contains("studio.js?token=\(server.token)"))
    XCTAssertEqual(try request("GET", "/", token: false).status, 403)
    XCTAssertEqual(try request("GET", "/?token=0123").status, 403)
    XCTAssertEqual(try request("GET", "/api/state", token: false).status, 403)
    // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
    XCTAssertEqual(try request("GET", "/", host: "evil.example:\(server.port)").status, 403)
    XCTAssertEqual(try request("GET", "/", host: "127.0.0.1").status, 403)
    XCTAssertEqual(try request("GET", "/", host: "localhost:\(server.port)").status, 200)
    XCTAssertEqual(try request("GET", "/", host: "[::1]:\(server.port)").status, 200)
    // The header works as well as the query item.
    XCTAssertEqual(
      try request(
        "GET", "/api/schema", token: false, extraHeaders: ["X-Emboss-Token: \(server.token)"]
      ).status, 200)
  }

  func testOnlyItsOwnAssetsAreServed() throws {
    for target in [
      "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/Package.swift", "/Materials/gold.yaml",
      "/studio.js/../../Package.swift", "/api/../../etc/passwd",
    ] {
      XCTAssertEqual(try request("GET", target).status, 404, target)
    }
    XCTAssertEqual(try request("GET", "/api/render?stage=../../etc/passwd").status, 400)
    let script = try request("GET", "/studio.js")
    XCTAssertEqual(script.status, 200)
    XCTAssertTrue(script.headers["content-type"]?.hasPrefix("text/javascript") ?? false)
    XCTAssertTrue(script.text.contains("/api/edit"))
    XCTAssertEqual(try request("GET", "/studio.css").status, 200)
    // No asset refers to anything outside this server.
    for asset in ["/", "/studio.js", "/studio.css"] {
      XCTAssertFalse(try request("GET", asset).text.contains("https://"), asset)
    }
  }

  func testRequestBodiesAreCapped() throws {
    let big = Data(repeating: 0x20, count: StudioServer.bodyLimit + 1)
    XCTAssertEqual(try request("POST", "/api/edit", body: big).status, 413)
  }

  func testAnEditReRendersAndSaveChangesOnlyThatLine() throws {
    let before = try String(contentsOfFile: materialPath, encoding: .utf8)
    let first = try request("GET", "/api/render?stage=picture")
    XCTAssertEqual(first.status, 200)
    XCTAssertEqual(first.body.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))
    let edit = try request(
      "POST", "/api/edit",
      body: Data(
        #"{"edits": [{"op": "set", "path": "lights[0].angle", "value": "30"}]}"#.utf8))
    XCTAssertEqual(edit.status, 200, edit.text)
    let state = try json(edit)
    XCTAssertEqual(state["unsaved"] as? Bool, true)
    let second = try request("GET", "/api/render?stage=picture&rev=\(state["revision"] ?? 0)")
    XCTAssertEqual(second.status, 200)
    XCTAssertNotEqual(first.body, second.body, "the light moved: the picture changes")
    // Not saved yet: the file is as it was.
    XCTAssertEqual(try String(contentsOfFile: materialPath, encoding: .utf8), before)
    XCTAssertEqual(try request("POST", "/api/save").status, 200)
    let after = try String(contentsOfFile: materialPath, encoding: .utf8)
    let old = before.components(separatedBy: "\n")
    let new = after.components(separatedBy: "\n")
    XCTAssertEqual(old.count, new.count)
    let changed = zip(old, new).filter { $0 != $1 }
    XCTAssertEqual(changed.map(\.1), ["  - angle: 30"])
    XCTAssertTrue(after.hasPrefix("# Polished yellow gold"), "comments kept")
    XCTAssertEqual(MaterialLoader.check(materialPath, library: resources.materialLibrary), [])
  }

  func testAnInvalidValueIsRefusedWithTheLoadersMessage() throws {
    let reply = try request(
      "POST", "/api/edit",
      body: Data(
        #"{"edits": [{"op": "set", "path": "surface.shininess", "value": "5000"}]}"#.utf8))
    XCTAssertEqual(reply.status, 422)
    XCTAssertTrue(reply.text.contains("shininess"), reply.text)
    XCTAssertTrue(reply.text.contains("1...2048"), reply.text)
    XCTAssertEqual(try request("POST", "/api/edit", body: Data("{".utf8)).status, 400)
  }

  func testUndoRedoAndAnOutdatedRenderIsSuperseded() async throws {
    let session = server.session
    let start = session.state()
    let moved = try session.apply([.set(path: "surface.shininess", yaml: "40")], coalesce: false)
    let dragged = try session.apply([.set(path: "surface.shininess", yaml: "41")], coalesce: true)
    XCTAssertTrue(dragged.text.contains("shininess: 41"))
    let undone = session.undo()
    XCTAssertEqual(undone.text, start.text, "a coalesced gesture is one undo step")
    XCTAssertTrue(session.redo().text.contains("shininess: 41"))
    let stale = try await session.render(.picture, revision: moved.revision - 1)
    XCTAssertNil(stale, "a render for an older revision is dropped")
    let current = try await session.render(.picture, revision: session.state().revision)
    XCTAssertNotNil(current)
  }

  /// The preview is the request `emboss render` would make of the scene: the same pixels.
  func testThePreviewIsTheRendersPicture() async throws {
    let session = server.session
    _ = try session.setScene(.init(text: "Ag", size: 48))
    let preview = try await session.render(.picture, revision: nil)
    let request = try RenderRequest(
      text: "Ag",
      values: [.init(.size, "48"), .init(.material, materialPath), .init(.output, "-")])
    let png = try request.job(resources: resources).run(resources: resources).png
    let studio = try PictureCodec.decode(try XCTUnwrap(preview).png).image
    let render = try PictureCodec.decode(png).image
    XCTAssertEqual(studio.width, render.width)
    XCTAssertEqual(studio.height, render.height)
    let differing = zip(studio.pixels, render.pixels).filter { $0 != $1 }.count
    XCTAssertEqual(differing, 0, "pixels that differ from the render's")
    // A scene's values are checked as a request's are, and named in the library's words.
    XCTAssertThrowsError(try session.setScene(.init(text: "A", font: "/nonexistent.ttf"))) {
      XCTAssertEqual("\($0)", "font file '/nonexistent.ttf' does not exist")
    }
  }

  func testAFileChangedOnDiskIsReloadedAndSaid() throws {
    let text = try String(contentsOfFile: materialPath, encoding: .utf8)
      .replacingOccurrences(of: "shininess: 300", with: "shininess: 64")
    try text.write(toFile: materialPath, atomically: true, encoding: .utf8)
    let state = try json(try request("GET", "/api/state"))
    XCTAssertEqual(state["text"] as? String, text)
    XCTAssertTrue((state["notice"] as? String)?.contains("changed on disk") ?? false)
  }

  func testLightsAreAddedRemovedAndMovedAndSavedAsANewFile() throws {
    let session = server.session
    var state = try session.apply(
      [.append(list: "lights", fields: [.init("kind", "omni"), .init("position", "[1, 1, 1]")])],
      coalesce: false)
    XCTAssertEqual(state.values.lights.count, 2)
    state = try session.apply([.move(list: "lights", from: 1, to: 0)], coalesce: false)
    XCTAssertEqual(state.values.lights.first?.kind, "omni")
    state = try session.apply([.remove(list: "lights", index: 1)], coalesce: false)
    XCTAssertEqual(state.values.lights.count, 1)
    XCTAssertThrowsError(try session.saveAs(name: "../escape.yaml"))
    XCTAssertThrowsError(try session.saveAs(name: "gold.yaml"), "never overwrites")
    state = try session.saveAs(name: "gold-2.yaml")
    XCTAssertTrue(state.path.hasSuffix("/gold-2.yaml"))
    XCTAssertEqual(
      MaterialLoader.check(state.path, library: resources.materialLibrary), [])
  }

  func testTheSchemaGivesEverySliderItsRange() throws {
    let schema = try json(try request("GET", "/api/schema"))
    let parameters = try XCTUnwrap(schema["parameters"] as? [[String: Any]])
    let shininess = try XCTUnwrap(parameters.first { $0["key"] as? String == "surface.shininess" })
    XCTAssertEqual(shininess["kind"] as? String, "number")
    XCTAssertEqual(shininess["min"] as? Double, 1)
    XCTAssertEqual(shininess["max"] as? Double, 2048)
    let profile = try XCTUnwrap(parameters.first { $0["key"] as? String == "relief.profile" })
    XCTAssertEqual(profile["choices"] as? [String], ReliefProfile.allCases.map(\.rawValue))
    XCTAssertEqual(parameters.count, Parameters.all.count)
    // A softbox the page adds takes the table's defaults (the page once wrote its own 90).
    let angle = try XCTUnwrap(
      parameters.first { $0["key"] as? String == "environment.softboxes[].angle" })
    XCTAssertEqual(
      angle["defaultValue"] as? String, formatNumber(Parameters.softboxAngle.value))
    XCTAssertEqual(
      parameters.first { $0["key"] as? String == "shading.size" }?["defaultValue"] as? String,
      String(Parameters.shadingSize.defaultValue))
  }
}
