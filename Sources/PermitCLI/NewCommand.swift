import ArgumentParser
import Foundation

struct NewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a policy pack that passes `permit test` as written.",
        discussion: """
            Writes PACK/policy.lua, PACK/README.md, PACK/tests/first.yaml and PACK/.luarc.json: a \
            working policy and a scenario that between them show every part of both formats once. \
            The pack's name is the directory's last component (letters, digits, `-`, `_`, `.`). \
            Refuses to write into a directory that exists. `.luarc.json` points the Lua language \
            server at the `types` folder of the Permit checkout above PACK, when there is one.

            Example:
              permit new policies/my-pack && permit test policies/my-pack
            """)

    @Argument(help: "The pack directory to create.")
    var pack: String

    func run() async throws {
        let url = Terminal.file(pack).standardizedFileURL
        let name = url.lastPathComponent
        guard !name.isEmpty, name != "/", name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }),
            !name.hasPrefix(".")
        else {
            Terminal.printError("\(pack): a pack name is letters, digits, -, _ and . (not first), e.g. my-pack")
            throw Exit.badInput
        }
        guard !FileManager.default.fileExists(atPath: url.path) else {
            Terminal.printError("\(pack) exists; refusing to overwrite it (pick a new directory, or remove it first)")
            throw Exit.badInput
        }
        let types = Self.typesFolder(above: url.deletingLastPathComponent())
        do {
            for (path, text) in PackTemplate.files(name: name, types: types.map { Self.relative($0, from: url) } ?? "types") {
                let file = url.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file, options: .withoutOverwriting)
                Terminal.say("created \(pack)/\(path)")
            }
        } catch {
            Terminal.printError("cannot write the pack: \(error.localizedDescription)")
            throw Exit.badInput
        }
        if types == nil {
            Terminal.say("note: no Permit checkout above \(pack); copy its types/permit.lua to \(pack)/types/ for editor completion")
        }
        Terminal.say("next: permit test \(pack)")
    }

    /// The nearest `types/` holding `permit.lua` in `directory` or above it.
    static func typesFolder(above directory: URL) -> URL? {
        var current = directory
        while true {
            let candidate = current.appendingPathComponent("types")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("permit.lua").path) { return candidate }
            let parent = current.deletingLastPathComponent()
            guard parent.path != current.path else { return nil }
            current = parent
        }
    }

    /// `target` relative to `base` (both absolute): `../../types`.
    static func relative(_ target: URL, from base: URL) -> String {
        let targetParts = target.standardizedFileURL.pathComponents, baseParts = base.standardizedFileURL.pathComponents
        var common = 0
        while common < min(targetParts.count, baseParts.count), targetParts[common] == baseParts[common] { common += 1 }
        return (Array(repeating: "..", count: baseParts.count - common) + targetParts[common...]).joined(separator: "/")
    }
}
