import EmbossModel
import EmbossSupport
import Foundation
import Yams

/// A material file's text, edited value by value the way a person would edit it: only the
/// changed value's characters are replaced, and every comment, blank line, key order and
/// quoting style elsewhere is kept (what the studio saves).
///
/// Yams keeps where each node starts (its mark) but not comments, so edits are made on the
/// text at the nodes' marks, then the result is parsed again and compared with what was
/// meant: every other value must read exactly as before. An edit that cannot be made that
/// way throws `MaterialDocument.EditError` and leaves the text as it was.
public struct MaterialDocument: Sendable, Equatable {
  /// The file's text.
  public private(set) var text: String

  /// A document holding `text`, not yet checked (see `check`).
  public init(text: String) {
    self.text = text
  }

  /// Why an edit was not made.
  public struct EditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the edit was refused.
    public var message: String
    /// A refusal saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
  }

  /// A key and its YAML value, as written in a list item.
  public struct Field: Sendable, Equatable {
    /// The key path as in a file (`surface.shininess`, `lights[0].color`).
    public var key: String
    /// The new value, as YAML.
    public var yaml: String
    /// Sets `key` to `yaml`.
    public init(_ key: String, _ yaml: String) {
      self.key = key
      self.yaml = yaml
    }
  }

  /// Whether the text writes a value at `key` (a key path), or anything under it.
  public static func contains(_ text: String, key: String) -> Bool {
    guard let root = try? root(text) else { return false }
    return flatten(root).keys.contains { isUnder($0, key) }
  }

  /// Every key path the text writes a scalar (or an empty collection) at.
  public static func writtenKeys(_ text: String) -> Set<String> {
    guard let root = try? root(text) else { return [] }
    return Set(flatten(root).keys)
  }

  /// The lists whose items can be added, removed and moved.
  public static let lists = ["lights", "environment.softboxes"]

  // MARK: Editing

  /// Sets the value at a key path (`surface.shininess`, `lights[1].angle`,
  /// `environment.softboxes[0].color`, `background`) to `yaml`, a YAML value written as it
  /// should appear (`40`, `"#ffd27a"`, `[1, 2, 3]`, `ggx`).
  ///
  /// A key the file does not have is added under its section, after the keys that come
  /// before it in the parameter table, with the section's indentation; a missing section is
  /// added at the end.
  public mutating func set(_ path: String, to yaml: String) throws(EditError) {
    let steps = try Self.steps(path)
    let value = try Self.compose(yaml, what: "the value for \"\(path)\"")
    var lines = Lines(text)
    let root = try Self.root(text)
    let before = Self.flatten(root)
    try Self.set(steps: steps[...], value: yaml, in: root, within: [], lines: &lines)
    let edited = lines.text
    var expected = before.filter { !Self.isUnder($0.key, path) }
    for (key, scalar) in Self.flatten(value, prefix: path) { expected[key] = scalar }
    try Self.verify(edited, expected: expected)
    text = edited
  }

  /// Removes item `index` of a list (`lights`, `environment.softboxes`), with its lines.
  public mutating func removeItem(of list: String, at index: Int) throws(EditError) {
    try editItems(of: list) { items throws(EditError) in
      guard items.indices.contains(index) else {
        throw EditError("\(list) has no item \(index)")
      }
      items.remove(at: index)
    }
  }

  /// Moves item `from` of a list to position `to`, with its lines (comments above it
  /// included).
  public mutating func moveItem(of list: String, from: Int, to: Int) throws(EditError) {
    try editItems(of: list) { items throws(EditError) in
      guard items.indices.contains(from), items.indices.contains(to) else {
        throw EditError("\(list) has no item \(max(from, to))")
      }
      items.insert(items.remove(at: from), at: to)
    }
  }

  /// Appends an item to a list, given as key and YAML value pairs in the order to write.
  public mutating func appendItem(of list: String, fields: [Field])
    throws(EditError)
  {
    guard !fields.isEmpty else { throw EditError("a new item needs at least one key") }
    try editItems(of: list) { items throws(EditError) in
      items.append(Item(id: -1, lines: fields.map { "\($0.key): \($0.yaml)" }))
    }
  }

  /// Writes a whole list into the file (when it was inherited or is missing), as block items
  /// of key and YAML value pairs.
  public mutating func writeList(_ list: String, items: [[Field]])
    throws(EditError)
  {
    let flow =
      "["
      + items.map { item in
        "{" + item.map { "\($0.key): \($0.yaml)" }.joined(separator: ", ") + "}"
      }.joined(separator: ", ") + "]"
    try set(list, to: flow)
    guard !items.isEmpty else { return }
    // Then laid out as blocks, as people write lists.
    try editItems(of: list) { _ throws(EditError) in }
  }

  // MARK: Paths

  enum Step: Equatable {
    case key(String)
    case index(Int)
  }

  static func steps(_ path: String) throws(EditError) -> [Step] {
    var steps: [Step] = []
    for part in path.split(separator: ".", omittingEmptySubsequences: false) {
      var name = Substring(part)
      var indices: [Int] = []
      while name.hasSuffix("]"), let open = name.lastIndex(of: "[") {
        guard let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]),
          index >= 0
        else { throw EditError("\"\(path)\": not a key path") }
        indices.insert(index, at: 0)
        name = name[..<open]
      }
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
        throw EditError("\"\(path)\": not a key path")
      }
      steps.append(.key(String(name)))
      steps += indices.map(Step.index)
    }
    return steps
  }

  static func isUnder(_ key: String, _ path: String) -> Bool {
    key == path || key.hasPrefix(path + ".") || key.hasPrefix(path + "[")
  }

  /// The table section a key path's last key belongs to (`lights[]`, `surface`, ...), for
  /// the order of a new key.
  static func section(of steps: ArraySlice<Step>) -> String {
    var parts: [String] = []
    for step in steps {
      switch step {
      case .key(let k): parts.append(k)
      case .index: if let last = parts.popLast() { parts.append(last + "[]") }
      }
    }
    return parts.joined(separator: ".")
  }

  // MARK: Reading the text

  static func compose(_ yaml: String, what: String) throws(EditError) -> Node {
    do {
      guard let node = try Yams.compose(yaml: yaml, .basic) else {
        throw EditError("\(what) is empty")
      }
      return node
    } catch let error as EditError {
      throw error
    } catch {
      throw EditError("\(what) is not valid YAML")
    }
  }

  static func root(_ text: String) throws(EditError) -> Node {
    let root = try compose(text, what: "the material file")
    guard root.mapping != nil else { throw EditError("the material file is not a mapping") }
    return root
  }

  /// Every scalar by key path (`lights[0].angle`), and empty collections as `[]` / `{}`.
  static func flatten(_ node: Node, prefix: String = "") -> [String: String] {
    var out: [String: String] = [:]
    func walk(_ node: Node, _ path: String) {
      switch node {
      case .scalar(let s): out[path] = s.string
      case .mapping(let m):
        if m.isEmpty { out[path] = "{}" }
        for (k, v) in m { walk(v, path.isEmpty ? k.string ?? "?" : "\(path).\(k.string ?? "?")") }
      case .sequence(let s):
        if s.isEmpty { out[path] = "[]" }
        for (i, v) in s.enumerated() { walk(v, "\(path)[\(i)]") }
      case .alias: out[path] = "*"
      }
    }
    walk(node, prefix)
    return out
  }

  /// Parses the edited text and checks that it holds exactly the expected values.
  static func verify(_ edited: String, expected: [String: String]) throws(EditError) {
    let root = try root(edited)
    let got = flatten(root)
    guard got == expected else {
      let keys = Set(got.keys).union(expected.keys).filter { got[$0] != expected[$0] }.sorted()
      throw EditError(
        "the edit would change more than the value (\(keys.prefix(3).joined(separator: ", "))); edit this part of the file by hand"
      )
    }
  }

  // MARK: Setting values

  /// `within`: the steps to `node` (its table section).
  private static func set(
    steps: ArraySlice<Step>, value: String, in node: Node, within: [Step], lines: inout Lines
  ) throws(EditError) {
    guard let step = steps.first else {
      try replace(node, with: value, lines: &lines)
      return
    }
    let rest = steps.dropFirst()
    switch (step, node) {
    case (.key(let key), .mapping(let mapping)):
      if let (_, v) = mapping.first(where: { $0.key.string == key }) {
        try set(steps: rest, value: value, in: v, within: within + [step], lines: &lines)
      } else {
        try insert(
          key: key, steps: rest, value: value, into: mapping, node: node,
          section: section(of: within[...]), lines: &lines)
      }
    case (.index(let index), .sequence(let sequence)):
      guard index < sequence.count else {
        throw EditError("the list has no item \(index) (it has \(sequence.count))")
      }
      let item = sequence[sequence.index(sequence.startIndex, offsetBy: index)]
      try set(steps: rest, value: value, in: item, within: within + [step], lines: &lines)
    case (.index, _):
      throw EditError("the file's value here is not a list")
    default:
      throw EditError("the file's value here is not a mapping")
    }
  }

  /// Replaces a node's text: a scalar token, or a flow collection up to its closing bracket.
  private static func replace(_ node: Node, with value: String, lines: inout Lines)
    throws(EditError)
  {
    guard let mark = node.mark else { throw EditError("the value has no position in the file") }
    let line = mark.line - 1
    let column = mark.column - 1
    switch node {
    case .scalar(let scalar):
      if scalar.style == .literal || scalar.style == .folded {
        throw EditError("a multi-line (| or >) value cannot be edited here")
      }
      // An empty value (`key:` alone) has its mark at the end of the key's line.
      guard let end = lines.tokenEnd(line: line, column: column, style: scalar.style) else {
        throw EditError("a value spread over several lines cannot be edited here")
      }
      let spaced = column > 0 && lines.character(line: line, column: column - 1) == ":"
      lines.replace(line: line, from: column, to: end, with: spaced ? " " + value : value)
    case .mapping, .sequence:
      guard lines.opensFlow(node) else {
        throw EditError("a value written as a block cannot be replaced here")
      }
      try lines.replaceFlow(line: line, column: column, with: value)
    default:
      throw EditError("a value written as a block cannot be replaced here")
    }
  }

  /// Adds `key` (and, for the rest of the path, nested keys) to a mapping whose table
  /// section is `section` (empty: the top level).
  private static func insert(
    key: String, steps: ArraySlice<Step>, value: String, into mapping: Node.Mapping, node: Node,
    section: String, lines: inout Lines
  ) throws(EditError) {
    var path = [key]
    for step in steps {
      guard case .key(let k) = step else {
        throw EditError("the file has no list here to add an item to")
      }
      path.append(k)
    }
    if lines.opensFlow(node) {
      guard path.count == 1, let mark = node.mark else {
        throw EditError("a key cannot be added to this flow mapping")
      }
      try lines.appendToFlow(
        line: mark.line - 1, column: mark.column - 1, entry: "\(key): \(value)")
      return
    }
    guard let first = mapping.first, let firstMark = first.key.mark else {
      throw EditError("a key cannot be added to an empty mapping")
    }
    let indent = firstMark.column - 1
    let unit = max(2, lines.indentUnit)
    let leaf = path.removeLast()
    var block: [String] = []
    for (depth, k) in path.enumerated() {
      block.append(String(repeating: " ", count: indent + depth * unit) + k + ":")
    }
    block.append(String(repeating: " ", count: indent + path.count * unit) + leaf + ": " + value)
    // Where: after the last key that comes before this one in the table's order.
    let table = section.isEmpty ? Parameters.topLevelKeys : Parameters.keys(in: section)
    let rank = table.firstIndex(of: key) ?? table.count
    var after: Node? = nil
    for (k, _) in mapping where (table.firstIndex(of: k.string ?? "") ?? table.count) <= rank {
      after = k
    }
    if let after, let mark = after.mark {
      lines.insert(block, at: lines.entryEnd(keyLine: mark.line - 1, indent: indent))
    } else {
      lines.insert(block, at: firstMark.line - 1)
    }
  }

  // MARK: List items

  struct Item {
    /// The item's index before the edit (-1: new).
    var id: Int
    /// Its lines without the dash's indentation: the first starts with the item's own text.
    var lines: [String]
    /// Comment and blank lines above it, kept with it.
    var leading: [String] = []
  }

  private mutating func editItems(
    of list: String, _ change: (inout [Item]) throws(EditError) -> Void
  )
    throws(EditError)
  {
    let steps = try Self.steps(list)
    let root = try Self.root(text)
    var node: Node = root
    var keyNode: Node? = nil
    for step in steps {
      guard case .key(let k) = step, let mapping = node.mapping,
        let (key, value) = mapping.first(where: { $0.key.string == k })
      else { throw EditError("the file has no \(list) list: set one of its values first") }
      keyNode = key
      node = value
    }
    guard let keyMark = keyNode?.mark else { throw EditError("no \(list) list") }
    var lines = Lines(text)
    let keyLine = keyMark.line - 1
    let keyIndent = keyMark.column - 1
    let before = Self.flatten(root)
    var items: [Item] = []
    var span = (keyLine + 1)..<(keyLine + 1)
    var dashIndent = keyIndent + max(2, lines.indentUnit)
    switch node {
    case .sequence(let sequence) where lines.opensFlow(node) || sequence.isEmpty:
      // Rewritten as blocks below the key.
      for (i, item) in sequence.enumerated() {
        guard let mapping = item.mapping else {
          throw EditError("\(list) holds a non-mapping item")
        }
        items.append(
          Item(
            id: i,
            lines: mapping.map { k, v in "\(k.string ?? ""): \(Self.flowText(v))" }))
      }
      guard let mark = node.mark else { throw EditError("no \(list) list") }
      try lines.replaceFlow(line: mark.line - 1, column: mark.column - 1, with: "")
      lines.trimTrailingSpace(line: keyLine)
    case .sequence(let sequence):
      guard let first = sequence.first?.mark else { throw EditError("no \(list) items") }
      dashIndent =
        lines.dashColumn(atOrBefore: first.line - 1, limit: first.column - 1) ?? dashIndent
      let end = lines.blockEnd(after: keyLine, indent: dashIndent, dashes: true)
      var starts: [Int] = []
      for item in sequence {
        guard let mark = item.mark, item.mapping != nil else {
          throw EditError("\(list) holds a non-mapping item")
        }
        guard let dash = lines.dashLine(atOrBefore: mark.line - 1, column: dashIndent) else {
          throw EditError("cannot find where \(list) item starts")
        }
        starts.append(dash)
      }
      span = (keyLine + 1)..<end
      var leadStart = keyLine + 1
      for (i, start) in starts.enumerated() {
        let stop = i + 1 < starts.count ? starts[i + 1] : end
        var contentEnd = stop
        while contentEnd > start + 1, lines.isBlankOrComment(contentEnd - 1) { contentEnd -= 1 }
        let own = (start..<contentEnd).map { lines.lines[$0] }
        let leading = (leadStart..<start).map { lines.lines[$0] }
        items.append(
          Item(
            id: i,
            lines: own.enumerated().map { j, line in
              j == 0
                ? String(line.dropFirst(dashIndent + 2))
                : String(line.dropFirst(min(dashIndent + 2, line.prefix { $0 == " " }.count)))
            }, leading: leading))
        leadStart = contentEnd
      }
      // What follows the last item (blank lines, comments) stays after the list.
      span = (keyLine + 1)..<leadStart
    default:
      throw EditError("\(list) is not a list")
    }
    let oldIDs = items.map(\.id)
    try change(&items)
    var block: [String] = []
    let pad = String(repeating: " ", count: dashIndent)
    for item in items {
      block += item.leading
      for (j, line) in item.lines.enumerated() {
        block.append(pad + (j == 0 ? "- " : "  ") + line)
      }
    }
    lines.replace(lines: span, with: block)
    if items.isEmpty { lines.append(" []", toLine: keyLine) }
    let edited = lines.text
    // Expected: the old values, items renumbered as they moved.
    var expected = before.filter { !Self.isUnder($0.key, list) }
    let newRoot = try Self.root(edited)
    let newFlat = Self.flatten(newRoot)
    for (position, item) in items.enumerated() {
      if item.id >= 0, oldIDs.contains(item.id) {
        for (key, value) in before where Self.isUnder(key, "\(list)[\(item.id)]") {
          expected["\(list)[\(position)]" + key.dropFirst("\(list)[\(item.id)]".count)] = value
        }
      } else {
        for (key, value) in newFlat where Self.isUnder(key, "\(list)[\(position)]") {
          expected[key] = value
        }
      }
    }
    if items.isEmpty { expected[list] = "[]" }
    try Self.verify(edited, expected: expected)
    text = edited
  }

  /// A node as one-line flow YAML (for rewriting a flow item as a block).
  static func flowText(_ node: Node) -> String {
    switch node {
    case .scalar(let s):
      switch s.style {
      case .doubleQuoted, .singleQuoted:
        return "\""
          + s.string.replacingOccurrences(of: "\\", with: "\\\\")
          .replacingOccurrences(of: "\"", with: "\\\"") + "\""
      default: return s.string
      }
    case .mapping(let m):
      return "{" + m.map { "\($0.key.string ?? ""): \(flowText($0.value))" }.joined(separator: ", ")
        + "}"
    case .sequence(let s): return "[" + s.map(flowText).joined(separator: ", ") + "]"
    case .alias: return "null"
    }
  }
}

/// The text as lines, with the scanning the edits need.
struct Lines {
  var lines: [String]
  let endsWithNewline: Bool

  init(_ text: String) {
    var lines = text.components(separatedBy: "\n")
    endsWithNewline = text.hasSuffix("\n")
    if endsWithNewline { lines.removeLast() }
    self.lines = lines.isEmpty ? [""] : lines
  }

  var text: String { lines.joined(separator: "\n") + (endsWithNewline ? "\n" : "") }

  /// The smallest indentation step used in the file (2 when none).
  var indentUnit: Int {
    let indents = lines.filter { !isBlankOrComment($0) }.map { $0.prefix { $0 == " " }.count }
      .filter { $0 > 0 }
    return indents.min() ?? 2
  }

  func isBlankOrComment(_ index: Int) -> Bool { isBlankOrComment(lines[index]) }

  func isBlankOrComment(_ line: String) -> Bool {
    let trimmed = line.drop { $0 == " " || $0 == "\t" }
    return trimmed.isEmpty || trimmed.hasPrefix("#")
  }

  /// Whether a collection node is written in flow style (`[...]`, `{...}`): Yams does not
  /// keep the style of composed nodes, so the text at its mark tells.
  func opensFlow(_ node: Node) -> Bool {
    guard let mark = node.mark, mark.line >= 1, mark.line <= lines.count else { return false }
    let c = character(line: mark.line - 1, column: mark.column - 1)
    return c == "[" || c == "{"
  }

  func indent(_ index: Int) -> Int { lines[index].prefix { $0 == " " }.count }

  private func scalars(_ line: Int) -> [Unicode.Scalar] { Array(lines[line].unicodeScalars) }

  func character(line: Int, column: Int) -> Character? {
    let s = scalars(line)
    return column < s.count ? Character(s[column]) : nil
  }

  /// Where a scalar token starting at (line, column) ends (exclusive, in scalars), or nil
  /// when it goes on past the line.
  func tokenEnd(line: Int, column: Int, style: Node.Scalar.Style) -> Int? {
    let s = scalars(line)
    guard column <= s.count else { return nil }
    if column == s.count { return column }
    switch style {
    case .doubleQuoted:
      var i = column + 1
      while i < s.count {
        if s[i] == "\\" {
          i += 2
          continue
        }
        if s[i] == "\"" { return i + 1 }
        i += 1
      }
      return nil
    case .singleQuoted:
      var i = column + 1
      while i < s.count {
        if s[i] == "'" {
          if i + 1 < s.count && s[i + 1] == "'" {
            i += 2
            continue
          }
          return i + 1
        }
        i += 1
      }
      return nil
    default:
      // A plain scalar: up to a comment, a flow indicator inside a flow, or the line's end.
      let inFlow = s[..<column].contains { $0 == "[" || $0 == "{" }
      var i = column
      var end = column
      while i < s.count {
        let c = s[i]
        if c == "#" && i > 0 && (s[i - 1] == " " || s[i - 1] == "\t") { break }
        if inFlow && (c == "," || c == "]" || c == "}") { break }
        if c != " " && c != "\t" { end = i + 1 }
        i += 1
      }
      // A plain scalar may go on to the next line when it is more indented: not edited here.
      if !inFlow, line + 1 < lines.count, !isBlankOrComment(line + 1),
        indent(line + 1) > indent(line), !lines[line + 1].contains(":")
      {
        return nil
      }
      return end
    }
  }

  mutating func replace(line: Int, from: Int, to: Int, with value: String) {
    let s = scalars(line)
    var out = String.UnicodeScalarView()
    out.append(contentsOf: s[..<from])
    out.append(contentsOf: value.unicodeScalars)
    out.append(contentsOf: s[to...])
    lines[line] = String(out)
  }

  /// The end (line, column exclusive) of the flow collection opening at (line, column).
  func flowEnd(line: Int, column: Int) throws(MaterialDocument.EditError) -> (Int, Int) {
    var depth = 0
    var quote: Unicode.Scalar? = nil
    var l = line
    var c = column
    while l < lines.count {
      let s = scalars(l)
      while c < s.count {
        let ch = s[c]
        if let q = quote {
          if ch == "\\" && q == "\"" {
            c += 2
            continue
          }
          if ch == q { quote = nil }
        } else if ch == "\"" || ch == "'" {
          quote = ch
        } else if ch == "#" && c > 0 && s[c - 1] == " " {
          break
        } else if ch == "[" || ch == "{" {
          depth += 1
        } else if ch == "]" || ch == "}" {
          depth -= 1
          if depth == 0 { return (l, c + 1) }
        }
        c += 1
      }
      l += 1
      c = 0
    }
    throw MaterialDocument.EditError("a bracket in the file is never closed")
  }

  mutating func replaceFlow(line: Int, column: Int, with value: String)
    throws(MaterialDocument.EditError)
  {
    let (endLine, endColumn) = try flowEnd(line: line, column: column)
    let head = String(String.UnicodeScalarView(scalars(line)[..<column]))
    let tail = String(String.UnicodeScalarView(scalars(endLine)[endColumn...]))
    lines.replaceSubrange(line...endLine, with: [head + value + tail])
  }

  mutating func appendToFlow(line: Int, column: Int, entry: String)
    throws(MaterialDocument.EditError)
  {
    let (endLine, endColumn) = try flowEnd(line: line, column: column)
    let s = scalars(endLine)
    let inside = String(String.UnicodeScalarView(s[..<(endColumn - 1)]))
    let empty = inside.trimmingCharacters(in: .whitespaces).hasSuffix("{")
    replace(
      line: endLine, from: endColumn - 1, to: endColumn - 1,
      with: (empty ? "" : ", ") + entry)
  }

  /// The first line after a mapping entry's key line that belongs to what follows it (the
  /// next key of this mapping or less indented), minus trailing blank and comment lines.
  func entryEnd(keyLine: Int, indent: Int) -> Int {
    var end = keyLine + 1
    var last = keyLine + 1
    while end < lines.count {
      if isBlankOrComment(end) {
        end += 1
        continue
      }
      if self.indent(end) <= indent { break }
      end += 1
      last = end
    }
    return last
  }

  /// The first line after `keyLine` that ends a block of items at `indent` (`dashes`: lines
  /// starting with `- ` at that indentation still belong to it).
  func blockEnd(after keyLine: Int, indent: Int, dashes: Bool) -> Int {
    var end = keyLine + 1
    while end < lines.count {
      if isBlankOrComment(end) {
        end += 1
        continue
      }
      let i = self.indent(end)
      let dash = lines[end].dropFirst(i).hasPrefix("-")
      if i < indent || (i == indent && !(dashes && dash)) { break }
      end += 1
    }
    return end
  }

  /// The column of the `-` that begins the item whose first key is at (line, column).
  func dashColumn(atOrBefore line: Int, limit column: Int) -> Int? {
    for l in stride(from: line, through: max(0, line - 1), by: -1) {
      let s = scalars(l)
      let upto = l == line ? min(column, s.count) : s.count
      if let dash = s[..<upto].lastIndex(of: "-"),
        s[..<dash].allSatisfy({ $0 == " " })
      {
        return dash
      }
    }
    return nil
  }

  /// The line (at or before `line`) with the item's `-` at `column`.
  func dashLine(atOrBefore line: Int, column: Int) -> Int? {
    for l in stride(from: line, through: 0, by: -1) {
      let s = scalars(l)
      if s.count > column, s[column] == "-", s[..<column].allSatisfy({ $0 == " " }) { return l }
      if !isBlankOrComment(l) && indent(l) < column { return nil }
    }
    return nil
  }

  mutating func insert(_ block: [String], at index: Int) {
    lines.insert(contentsOf: block, at: min(index, lines.count))
  }

  mutating func replace(lines range: Range<Int>, with block: [String]) {
    lines.replaceSubrange(range, with: block)
  }

  mutating func append(_ suffix: String, toLine line: Int) {
    lines[line] += suffix
  }

  mutating func trimTrailingSpace(line: Int) {
    while lines[line].hasSuffix(" ") { lines[line].removeLast() }
  }
}
