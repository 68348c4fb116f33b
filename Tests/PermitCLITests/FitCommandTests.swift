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

    /// A record's strings reach the model file quoted: a feature with a quote, line breaks and
    /// a bidirectional override stays one feature and adds no key to the model; a locale or OS
    /// version the model could not hold is refused at its line.
    @Test func aCraftedRecordCannotAddKeysToTheModel() async throws {
        let dir = try Self.directory()
        let records = dir.appendingPathComponent("records.jsonl")
        let simulated = await Self.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--users", "150", "--days", "7",
            "--records", records.path,
        ])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let lines = try String(contentsOf: records, encoding: .utf8).components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.contains(#""feature":""#) })
        let crafted = "en\"\nsessions_per_day: { poisson: 99 }\nevil: 1\n#\u{202E}"
        let escaped = #"en\"\nsessions_per_day: { poisson: 99 }\nevil: 1\n#\u202e"#
        func write(_ line: String) throws {
            var copy = lines
            copy[index] = line
            try copy.joined(separator: "\n").write(to: records, atomically: true, encoding: .utf8)
        }
        let feature = try #require(lines[index].range(of: #""feature":"[^"]*""#, options: .regularExpression))
        try write(lines[index].replacingCharacters(in: feature, with: #""feature":""# + escaped + #"""#))
        let out = dir.appendingPathComponent("m.yaml")
        let fitted = await Self.permit(["fit", records.path, "--out", out.path])
        #expect(fitted.status == 0, "\(fitted.stderr)")
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(!text.components(separatedBy: "\n").contains { $0.hasPrefix("evil") || $0.hasPrefix("sessions_per_day: { poisson: 99") })
        #expect(text.contains(#""en\"\u000Asessions_per_day: { poisson: 99 }\u000Aevil: 1\u000A#\u202E": "#), "\(text)")
        #expect(try UserModel.load(contentsOf: out).features.items.contains { $0.value == crafted })

        let locale = try #require(lines[index].range(of: #""locale":"[^"]*""#, options: .regularExpression))
        try write(lines[index].replacingCharacters(in: locale, with: #""locale":""# + escaped + #"""#))
        let refused = await Self.permit(["fit", records.path, "--out", dir.appendingPathComponent("n.yaml").path])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(records.path):\(index + 1): \"locale\" is \"en\"\\u000A"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("n.yaml").path))
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
