import Foundation
import PermitTestSupport
import Testing

@testable import PermitScenario

/// `permit test --snapshot`: golden timelines through the `permit` verbs (in-process).
@Suite struct SnapshotCLITests {
    func tree() throws -> Tree {
        let tree = Tree()
        tree.write("polite/policy.lua", try String(contentsOf: TestSelectionCLITests.policy, encoding: .utf8))
        tree.write("polite/tests/first.yaml", "name: first ask\n" + TestSelectionCLITests.pass)
        return tree
    }

    func permit(_ arguments: [String], in tree: Tree) async throws -> ProcessResult {
        try await CLITests.permit(arguments, in: tree.root)
    }

    /// `permit bundle` holds a pack to the golden timelines it keeps, as `permit test --snapshot`
    /// does; a pack that keeps none is bundled.
    @Test func aBundleIsRefusedWhenAStoredTimelineDiffers() async throws {
        let tree = try tree()
        let bundle = ["bundle", "polite", "--version", "1", "--out", "p.permitbundle"]
        #expect(try await permit(bundle, in: tree).status == 0, "no snapshot kept: bundled")
        #expect(try await permit(["test", "--update", "polite"], in: tree).status == 0)
        #expect(try await permit(bundle + ["--out", "q.permitbundle"], in: tree).status == 0, "the kept snapshot matches")
        let snapshot = tree.path("polite/tests/__snapshots__/first.yaml.snap")
        let stored = try String(contentsOfFile: snapshot, encoding: .utf8)
        try stored.replacingOccurrences(of: "soft_prompt", with: "none").write(toFile: snapshot, atomically: true, encoding: .utf8)
        let refused = try await permit(["bundle", "polite", "--version", "1", "--out", "r.permitbundle"], in: tree)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(
            refused.stdout.contains("the timeline differs from snapshot polite/tests/__snapshots__/first.yaml.snap"), "\(refused.stdout)")
        #expect(!FileManager.default.fileExists(atPath: tree.path("r.permitbundle")))
    }

    @Test func missingThenWrittenThenMatchedThenADiff() async throws {
        let tree = try tree()
        let snapshot = tree.path("polite/tests/__snapshots__/first.yaml.snap")

        let missing = try await permit(["test", "--snapshot", "polite"], in: tree)
        #expect(missing.status == 1, "\(missing.stdout)\(missing.stderr)")
        #expect(
            missing.stdout.contains(
                "✗ no snapshot polite/tests/__snapshots__/first.yaml.snap; run `permit test --snapshot --update` to write it"))
        #expect(!FileManager.default.fileExists(atPath: snapshot), "without --update nothing is written")

        let written = try await permit(["test", "--update", "polite"], in: tree)
        #expect(written.status == 0, "\(written.stdout)")
        #expect(written.stdout.contains("snapshot polite/tests/__snapshots__/first.yaml.snap written"))
        #expect(written.stdout.hasSuffix("1 snapshot written\n1 passed, 0 failed, 0 skipped\n"))
        let stored = try String(contentsOfFile: snapshot, encoding: .utf8)

        // The stored text is what `permit run` prints, headed by the file's name only.
        let run = try await permit(["run", "polite", "polite/tests/first.yaml"], in: tree)
        #expect(run.stdout == stored.replacingOccurrences(of: "(first.yaml,", with: "(polite/tests/first.yaml,") + "\n")
        #expect(stored.hasPrefix("== first ask  (first.yaml, policy polite)\n"))
        #expect(!stored.contains(tree.root.path) && !stored.contains("/tmp"), "no absolute paths")

        let matched = try await permit(["test", "--snapshot", "--ci", "polite"], in: tree)
        #expect(matched.status == 0, "\(matched.stdout)")
        #expect(!matched.stdout.contains("snapshot"), "a match says nothing")
        let json = try await permit(["test", "--snapshot", "--format", "json", "polite"], in: tree)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let scenario = (object?["scenarios"] as? [[String: Any]])?.first
        #expect((scenario?["snapshot"] as? [String: Any])?["status"] as? String == "matched")

        // A changed timeline (here: the stored one edited) fails with a unified diff.
        let lines = stored.split(separator: "\n", omittingEmptySubsequences: false)
        let declineLine = try #require(lines.firstIndex { $0.contains("soft_prompt_answered") })
        var edited = lines
        edited[declineLine] = "+5m      soft_prompt_answered(accept)"
        try Data(edited.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: snapshot))
        let differs = try await permit(["test", "--snapshot", "polite"], in: tree)
        #expect(differs.status == 1)
        #expect(differs.stdout.contains("✗ the timeline differs from snapshot polite/tests/__snapshots__/first.yaml.snap"))
        #expect(
            differs.stdout.contains(
                "        --- polite/tests/__snapshots__/first.yaml.snap (stored)\n"
                    + "        +++ polite/tests/first.yaml (this run)\n        @@ -"))
        #expect(differs.stdout.contains("        -+5m      soft_prompt_answered(accept)\n        +" + lines[declineLine]))
        #expect(differs.stdout.hasSuffix("0 passed, 1 failed, 0 skipped\n"))
        let junit = try await permit(["test", "--snapshot", "--format", "junit", "polite"], in: tree)
        #expect(junit.stdout.contains("-+5m      soft_prompt_answered(accept)"), "the diff reaches JUnit's failure text")

        let updated = try await permit(["test", "--snapshot", "--update", "polite"], in: tree)
        #expect(updated.status == 0 && updated.stdout.contains("first.yaml.snap updated"), "\(updated.stdout)")
        #expect(try String(contentsOfFile: snapshot, encoding: .utf8) == stored)
    }

    /// The cases of one `matrix:` file each keep their own timeline; sharing one file, every
    /// case but the last written would differ from it.
    @Test func eachMatrixCaseHasItsOwnSnapshot() async throws {
        let tree = try tree()
        tree.write(
            "polite/tests/many.yaml",
            """
            name: many
            matrix: { os: ["16.0", "16.4"], timezone: [UTC, Asia/Taipei] }
            device: { locale: en }
            steps:
              - { event: feature_opened, feature: reminders, expect: soft_prompt }
              - { answer: decline }

            """)
        let written = try await permit(["test", "--update", "polite"], in: tree)
        #expect(written.status == 0, "\(written.stdout)")
        #expect(written.stdout.contains("5 snapshots written"), "\(written.stdout)")
        for (label, file) in [
            ("os=16.0, timezone=UTC", "many.yaml.os=16.0,timezone=UTC.snap"),
            ("os=16.4, timezone=Asia/Taipei", "many.yaml.os=16.4,timezone=Asia_Taipei.snap"),
        ] {
            let stored = try String(contentsOfFile: tree.path("polite/tests/__snapshots__/\(file)"), encoding: .utf8)
            #expect(stored.hasPrefix("== many [\(label)]  (many.yaml, policy polite)\n"), "\(stored)")
        }
        let checked = try await permit(["test", "--snapshot", "--ci", "polite"], in: tree)
        #expect(checked.status == 0, "every case matches its own snapshot: \(checked.stdout)")
    }

    @Test func ciNeverWrites() async throws {
        let tree = try tree()
        let refused = try await permit(["test", "--ci", "--update", "polite"], in: tree)
        #expect(refused.status == 2 && refused.stderr.contains("--ci never writes"), "\(refused.stderr)")
        let missing = try await permit(["test", "--ci", "--snapshot", "polite"], in: tree)
        #expect(missing.status == 1)
        #expect(!FileManager.default.fileExists(atPath: tree.path("polite/tests/__snapshots__")))
    }
}

@Suite struct LineDiffTests {
    @Test func aChangedLineShowsWithItsContextAndCounts() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n"
        let new = "a\nb\nc\nd\nE\nf\ng\nh\ni\n"
        #expect(
            LineDiff.unified(old: old, new: new, oldName: "old", newName: "new") == """
                --- old
                +++ new
                @@ -2,7 +2,8 @@
                 b
                 c
                 d
                -e
                +E
                 f
                 g
                 h
                +i
                """)
        #expect(LineDiff.unified(old: old, new: old, oldName: "old", newName: "new").isEmpty)
    }

    @Test func distantChangesAreSeparateHunks() {
        let old = (1...20).map(String.init).joined(separator: "\n")
        let new = old.replacingOccurrences(of: "\n2\n", with: "\ntwo\n").replacingOccurrences(of: "\n19\n", with: "\nnineteen\n")
        let diff = LineDiff.unified(old: old, new: new, oldName: "o", newName: "n")
        #expect(diff.contains("@@ -1,5 +1,5 @@") && diff.contains("@@ -16,5 +16,5 @@"), "\(diff)")
    }
}
