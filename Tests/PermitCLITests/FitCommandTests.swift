import Foundation
import PermitCLITestSupport
import PermitSimulation
import PermitTestSupport
import Testing

/// `permit simulate --records` and `permit fit` end to end: the log a run writes, the model fitted
/// from it, and bad input.
@Suite("permit fit")
struct FitCommandTests {
    static func permit(_ arguments: [String]) async -> ProcessResult {
        await runPermitInProcess(arguments, in: Repository.root)
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func recordsThenFitGiveAModelThatSimulates() async throws {
        let dir = try Self.directory()
        let records = dir.appendingPathComponent("records.jsonl").path
        let simulated = await Self.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--users", "300", "--days", "14",
            "--records", records,
        ])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let withBase = dir.appendingPathComponent("with-base.yaml").path
        let fitted = await Self.permit(["fit", records, "--base", "examples/models/default.yaml", "--out", withBase])
        #expect(fitted.status == 0, "\(fitted.stderr)")
        #expect(fitted.stdout.contains("model written to \(withBase)"))
        // polite never asks for quiet delivery: the records cannot identify it, and say so.
        #expect(fitted.stderr.contains("warning: provisional: no quiet (provisional) user was seen to choose"))
        let text = try String(contentsOfFile: withBase, encoding: .utf8)
        #expect(text.contains("# provisional: not identified by the records"))
        #expect(text.contains("soft_prompt: { accept: "))
        // Without --base the fit stands on the same figures as examples/models/default.yaml.
        let withoutBase = dir.appendingPathComponent("without-base.yaml").path
        #expect(await Self.permit(["fit", records, "--out", withoutBase]).status == 0)
        let a = try UserModel.load(contentsOf: URL(fileURLWithPath: withBase))
        let b = try UserModel.load(contentsOf: URL(fileURLWithPath: withoutBase))
        #expect(a == b)
        let again = await Self.permit([
            "simulate", "policies/polite", "--model", withBase, "--users", "50", "--days", "3",
        ])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func badLinesAreBadInputNamingTheFileAndLine() async throws {
        let dir = try Self.directory()
        let file = dir.appendingPathComponent("bad.jsonl")
        try "\n{not json}\n".write(to: file, atomically: true, encoding: .utf8)
        let result = await Self.permit(["fit", file.path, "--out", dir.appendingPathComponent("m.yaml").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(file.path):2: not JSON"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("m.yaml").path))
        let missing = await Self.permit(["fit", dir.appendingPathComponent("none.jsonl").path, "--out", "x.yaml"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the file"))
    }

    @Test func recordsTakeOnePolicy() async {
        let result = await Self.permit([
            "simulate", "policies/polite", "policies/provisional-first", "--model", "examples/models/default.yaml",
            "--records", "r.jsonl",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--records writes the records of one policy's users"))
    }

    @Test func theRecordLineIsDocumented() throws {
        #expect(try ReferenceTables().keys("record-line") == LoggedRecord.fieldNames)
    }
}
