/// What each command's exit status means, in one place: the end of each command's `--help`
/// and the man page's EXIT STATUS section (`emboss --manual-exit-status`, which install.sh
/// puts there) are made from it.
enum ExitStatus {
  /// What every command shares.
  static let common =
    "0 on success; 1 when the command fails, with an error: line on standard error; 64 for invalid arguments, with the usage. A reader of standard output that goes away (| head) ends a command quietly with 0."

  /// Each command's statuses, by its name as typed (`batch merge`), in the order of
  /// `emboss --help`.
  static let commands: [(name: String, status: String)] = [
    (
      "render",
      "0 when every output is written; 1 when rendering fails (a missing font, a character no font has, text with no ink, an invalid material, an output that cannot be written), with one error: line (a material file: one line per problem, at most 20, then how many more); 64 for invalid arguments. With --watch it renders until interrupted, and a failed render waits for the next change."
    ),
    (
      "shading",
      "0 when the picture is written; 1 when the material is invalid or the picture cannot be written; 64 for invalid arguments."
    ),
    (
      "sheet",
      "0 when the sheet is written; 1 when a material is invalid (the problems of all of them, at most 20), the font cannot be read or the sheet cannot be written; 64 for invalid arguments."
    ),
    (
      "materials",
      "0 (an invalid preset is listed as such); 1 when the presets cannot be found or standard output cannot be written; 64 for invalid arguments."
    ),
    (
      "check",
      "0 when every file is valid; 1 when a file has a problem or cannot be read; 64 for invalid arguments."
    ),
    ("parameters", "0; 1 when standard output cannot be written; 64 for invalid arguments."),
    (
      "fonts",
      "0; 1 when no font matches the pattern, fontconfig fails or standard output cannot be written; 64 for invalid arguments."
    ),
    (
      "diff",
      "0 when the bad fraction is at most --max-bad-fraction, 1 when it is not, 2 when a file cannot be read or written or the sizes differ, 64 for invalid arguments."
    ),
    (
      "engrave",
      "0 when the bitmap is written; 1 when the picture cannot be read or the bitmap cannot be written; 64 for invalid arguments."
    ),
    (
      "batch",
      "those of batch run (the default) and batch merge."
    ),
    (
      "batch run",
      "0 when every row rendered (or was already there), 1 when some rows failed (the others are complete), 2 when the rows could not be read, 64 for invalid arguments."
    ),
    (
      "batch merge",
      "0 when the merged manifest is written; 1 when a manifest cannot be read, a line is not a manifest entry, a row is in two manifests (or twice in one), manifests are of different batches, or rows are missing (naming the shards they belong to); 64 for invalid arguments."
    ),
    (
      "studio",
      "0 when stopped with Ctrl-C (SIGINT), SIGTERM or SIGHUP; 1 when it cannot start (no such preset, an invalid material, a font that cannot be read, a port in use); 64 for invalid arguments."
    ),
    (
      "bench",
      "0 when every case ran; 1 when a case fails or the emboss binary it times cannot be run; 64 for invalid arguments."
    ),
  ]

  /// The statuses of command `name`; a name missing from the table is a programming error.
  static func of(_ name: String) -> String {
    guard let entry = commands.first(where: { $0.name == name }) else {
      preconditionFailure("no exit status for '\(name)'")
    }
    return entry.status
  }

  /// The paragraph that ends `emboss --help`: what every command shares.
  static func paragraph() -> String {
    "Exit status: " + common
      + " diff and batch also use 2; each command's --help says what its statuses mean."
  }

  /// The paragraph that ends command `name`'s discussion.
  static func paragraph(_ name: String) -> String { "Exit status: " + of(name) }

  /// The body of the man page's EXIT STATUS section, in mdoc: what every command shares, then
  /// each command's statuses.
  static var manual: String {
    var lines = ["The", ".Nm", "commands exit with " + common, "By command:", ".Bl -tag -width 6n"]
    for (name, status) in commands {
      lines += [".It Cm " + name, escaped(status)]
    }
    lines.append(".El")
    return lines.joined(separator: "\n")
  }

  /// Text as one mdoc line: backslashes escaped, and never taken for a macro.
  private static func escaped(_ text: String) -> String {
    let line = text.replacingOccurrences(of: "\\", with: "\\e")
    return line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
  }
}
