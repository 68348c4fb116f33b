import Foundation
import GeneratedNames

// `make generate`: writes the files generated from `ContextSchema` (GeneratedNames says which)
// into the repository this file is in, or into the folder given as the one argument. Prints
// each file it changed; a file already what the schema makes is left alone (its time too).

let arguments = CommandLine.arguments.dropFirst()
let root =
    arguments.first.map { URL(fileURLWithPath: $0, isDirectory: true) }
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
var failed = false
for path in GeneratedNames.paths {
    guard let expected = GeneratedNames.contents(of: path) else { continue }
    let url = root.appendingPathComponent(path)
    if (try? String(contentsOf: url, encoding: .utf8)) == expected { continue }
    do {
        try expected.write(to: url, atomically: true, encoding: .utf8)
        print("wrote \(path)")
    } catch {
        FileHandle.standardError.write(Data("permit-generate: cannot write \(url.path): \(error.localizedDescription)\n".utf8))
        failed = true
    }
}
exit(failed ? 1 : 0)
