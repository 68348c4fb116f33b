import ArgumentParser
import Foundation
import PermitServe

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Open a pack in the playground: a local web page to edit, test, see and compare its policy.",
        discussion: """
            Starts a web server on 127.0.0.1 for one pack (default: the current folder, which must \
            hold a policy.lua) and prints its URL with a per-launch token: \
            http://127.0.0.1:PORT/?token=... Open it in a browser. The page edits policy.lua (and \
            copy/<locale>.yaml), re-runs the pack's scenarios on every edit, plays a scenario step \
            by step on a drawn iPhone, tries one decision as permit decide does, lists every text \
            by locale, compares the edited policy with the saved one (or a pack beside it) on a \
            user model, and downloads or opens an unsigned bundle. It saves only when asked, \
            after showing the difference, and never over a file changed on disk since. \
            docs/playground.md shows it; Ctrl-C stops it.

            Examples:
              permit serve policies/polite
              cd policies/polite && permit serve --port 8123
            """)

    @Argument(help: "The pack folder (holding policy.lua); default: the current folder.")
    var pack: String = "."

    @Option(help: "The port on 127.0.0.1 (default: a free one).")
    var port: Int = 0

    @OptionGroup var limitOptions: LimitOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (0 picks a free one)") }
    }

    func run() async throws {
        let folder = Terminal.file(pack).standardizedFileURL
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("policy.lua").path) else {
            Terminal.printError(
                "\(pack): not a pack (no policy.lua in it); give a pack folder, e.g. permit serve policies/polite")
            throw Exit.badInput
        }
        let playground: Playground
        do {
            playground = try Playground(pack: folder, limits: limitOptions.limits, models: Self.models(near: folder))
        } catch {
            Terminal.printError("\(pack): \(error)")
            throw Exit.badInput
        }
        guard #available(macOS 14.0, *) else {
            Terminal.printError("permit serve needs macOS 14 or later")
            throw Exit.badInput
        }
        let server = PlaygroundServer(playground: playground, port: port)
        let console = Console.current
        do {
            try await server.run { url in
                console.writeLine("permit serve: \(playground.folder.name) at \(url.absoluteString)")
                console.writeLine("open it in a browser; Ctrl-C stops the server")
            }
        } catch {
            Terminal.printError("cannot serve on 127.0.0.1:\(port): \(error)")
            throw Exit.badInput
        }
    }

    /// The models a comparison may use besides the pack's own: the repository's
    /// examples/models (when the pack lies in a checkout of it), and the default model's
    /// figures the binary carries.
    static func models(near pack: URL) -> [(name: String, text: String)] {
        var models: [(name: String, text: String)] = []
        var directory = pack
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            let examples = directory.appendingPathComponent("examples/models")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: examples.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".yaml") {
                if let text = try? String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8) {
                    models.append((name, text))
                }
            }
            break
        }
        if !models.contains(where: { $0.name == "default.yaml" }) { models.append(("default.yaml", FitCommand.defaultModel)) }
        return models
    }
}
