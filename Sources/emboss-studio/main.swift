// The studio's process: `emboss studio` checks its arguments and finds the material file,
// then runs this in its place (exec, the same process), so that the HTTP library the studio
// serves with, and the networking libraries it links, load only for the studio.
//
//   emboss-studio --serve MATERIAL_PATH TEXT SIZE PORT [FONT]
//
// Exit status: 0 when stopped by Ctrl-C (SIGINT, SIGTERM, SIGHUP); 1 when the studio cannot
// start (the material file, the font, the port); 64 when not started by `emboss studio`.
import CSupport
import EmbossKit
import EmbossStudio
import Foundation

emboss_keep_freed_memory()
signal(SIGPIPE, SIG_IGN)
let arguments = CommandLine.arguments
guard arguments.count == 6 || arguments.count == 7, arguments[1] == "--serve",
  let size = Float(arguments[4]), let port = UInt16(arguments[5])
else {
  StandardStream.writeError("error: emboss-studio is started by `emboss studio`; run that instead")
  exit(64)
}
do {
  let resources = try Resources.locate()
  try StudioServer.serve(
    materialPath: arguments[2],
    scene: .init(
      text: TextMask.unescaped(arguments[3]), font: arguments.count == 7 ? arguments[6] : nil,
      size: size),
    resources: resources, port: port)
} catch is StandardStream.OutputClosed {
  exit(0)
} catch let error as EmbossError {
  StandardStream.writeError("error: \(error.commandLineMessage)")
  exit(1)
} catch let error as MaterialError {
  for line in error.lines { StandardStream.writeError(line) }
  exit(1)
} catch {
  StandardStream.writeError("error: \(error)")
  exit(1)
}
