import Foundation
import PermitTestSupport
import Testing

/// `permit new PACK`, through the `permit` verbs (in-process): a pack that passes at once,
/// whose test would catch a change, and no overwriting.
@Suite struct NewPackTests {
    @Test func theNewPackPassesItsOwnTestAndCheck() async throws {
        let tree = Tree()
        tree.write("types/permit.lua", "---@meta permit\n")
        let created = try await CLITests.permit(["new", tree.path("packs/my-pack")])
        #expect(created.status == 0, "\(created.stderr)")
        for file in ["policy.lua", "README.md", "tests/first.yaml", ".luarc.json"] {
            #expect(FileManager.default.fileExists(atPath: tree.path("packs/my-pack/\(file)")), "\(file)")
        }
        let luarc = try String(contentsOfFile: tree.path("packs/my-pack/.luarc.json"), encoding: .utf8)
        #expect(luarc.contains("\"workspace.library\": [\"../../types\"]"))
        let policy = try String(contentsOfFile: tree.path("packs/my-pack/policy.lua"), encoding: .utf8)
        #expect(policy.contains("name = \"my-pack\""))

        let test = try await CLITests.permit(["test", tree.path("packs/my-pack")])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("asked in context, denied, sent to Settings [os=16.4, locale=de] (11 steps)"))
        #expect(test.stdout.hasSuffix("4 passed, 0 failed, 0 skipped\n"))
        let check = try await CLITests.permit(["check", tree.path("packs/my-pack")])
        #expect(check.status == 0, "\(check.stdout)")

        // The scenario is a real test: the deep link the old versions need is checked.
        tree.write("packs/my-pack/policy.lua", policy.replacingOccurrences(of: "or \"app_settings\"", with: "or \"notification_settings\""))
        let broken = try await CLITests.permit(["test", tree.path("packs/my-pack")])
        #expect(broken.status == 1)
        #expect(broken.stdout.hasSuffix("2 passed, 2 failed, 0 skipped\n"), "\(broken.stdout)")
    }

    @Test func itRefusesAnExistingDirectoryAndABadName() async throws {
        let tree = Tree()
        tree.write("taken/notes.txt", "mine")
        let taken = try await CLITests.permit(["new", tree.path("taken")])
        #expect(taken.status == 2)
        #expect(taken.stderr.contains("exists; refusing to overwrite it"))
        #expect(!FileManager.default.fileExists(atPath: tree.path("taken/policy.lua")))
        let badName = try await CLITests.permit(["new", tree.path("bad name")])
        #expect(badName.status == 2)
        #expect(badName.stderr.contains("a pack name is letters, digits"))
    }
}
