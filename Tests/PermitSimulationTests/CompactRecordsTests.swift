import Foundation
import PermitCore
import Testing

@testable import PermitSimulation

/// The compact form of a decision log: a line per install with only what the fit reads. The
/// fit gives the same model from it as from the full records, and it is a fraction of their size.
@Suite("Fit: compact records")
struct CompactRecordsTests {
    static func temporary() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("permit-compact-\(UUID().uuidString).jsonl")
    }

    /// Simulates with records, fits the full records and their compact form over `baseText`.
    static func bothForms(
        policy: SimulationPolicy, truth: String, users: Int, days: Int
    ) async throws -> (full: FittedModel, compact: FittedModel, fullBytes: Int, compactBytes: Int) {
        let model = try UserModel.parse(truth, file: "truth.yaml")
        let full = temporary(), compact = temporary()
        defer { for url in [full, compact] { try? FileManager.default.removeItem(at: url) } }
        let log = try RecordLog(destination: full)
        _ = await Simulation.run(
            policies: [policy], model: model, options: SimulationOptions(users: users, days: days, seed: 7, workers: 2), records: log)
        try log.finish(policies: 1, users: users)
        let converted = try CompactRecords.convert([(full, "records.jsonl")])
        try converted.data.write(to: compact)
        func fitted(_ url: URL) throws -> FittedModel {
            var fit = RecordFit()
            try fit.read(contentsOf: url, name: "records.jsonl")
            return FittedModel(fit: fit, base: model, baseText: truth, baseName: "truth.yaml")
        }
        let fullBytes = try Data(contentsOf: full).count
        return (try fitted(full), try fitted(compact), fullBytes, converted.data.count)
    }

    /// Known answer: every figure, interval and comment of the fitted model is the same from
    /// either form, for prompts, quiet users, sessions and the app's own events.
    @Test func theCompactFormFitsTheSameModel() async throws {
        for (policy, truth) in [
            (try FitTests.askingPolicy(), FitTests.truth), (try FitAppEventTests.listener(), FitAppEventTests.truth),
        ] {
            let both = try await Self.bothForms(policy: policy, truth: truth, users: 300, days: 14)
            #expect(both.full.figures == both.compact.figures)
            #expect(both.full.yaml == both.compact.yaml)
            #expect(both.full.warnings == both.compact.warnings)
            let ratio = Double(both.fullBytes) / Double(both.compactBytes)
            print("compact records: \(both.compactBytes) bytes against \(both.fullBytes) (\(String(format: "%.1f", ratio))× smaller)")
            #expect(ratio > 4, "the compact form is a fraction of the full records: \(ratio)")
        }
    }

    /// A line of an install's records goes on where its last line stopped; a repeat of a record
    /// is counted once, as a repeated full line is.
    @Test func linesGoOnAndRepeatsCountOnce() throws {
        let head = #"{"install":"a","locale":"en","os":"17.5","policy":"p","user":null,"records":"#
        let lines = [
            head + #"[[1767600000,"app_launch",null,null,"not_determined","not_determined","none",0]]}"#,
            head + #"[[1767600060,"feature_opened",null,"reminders","not_determined","not_determined","none",0]]}"#,
            head + #"[[1767600060,"feature_opened",null,"reminders","not_determined","not_determined","none",0]]}"#,
        ]
        let fit = try FitCensoringTests.read(lines)
        #expect(fit.recordCount == 2 && fit.duplicateLines == 1 && fit.featureOpens == 1)
    }

    @Test(arguments: [
        (#"{"install":"a","locale":"en","os":"17.5","records":[[1,"app_launch",null,null,"nope","denied","none",0]]}"#, #"records[0]"#),
        (#"{"install":"a","locale":"en","os":"17.5","records":[[1,"app_launch",null,null,"denied","denied","none"]]}"#, "records[0]"),
        (#"{"install":"a","locale":"en","os":"x","records":[]}"#, #""os" is "x""#),
        (#"{"install":"a","locale":"en","records":[]}"#, #"missing "os""#),
        (
            #"{"install":"a","locale":"en","os":"17.5","records":[[5,"app_launch",null,null,"denied","denied","none",0],[-2,"app_foreground",null,null,"denied","denied","none",0]]}"#,
            "comes 2 seconds before"
        ),
        (#"{"install":"a","locale":"en","os":"17.5","records":[[1,"app_launch",null,null,"denied","denied","none",9]]}"#, "flags are 9"),
    ])
    func badCompactLinesNameTheFileTheLineAndTheField(text: String, message: String) {
        do {
            _ = try FitCensoringTests.read([text])
            Issue.record("\(text) must be refused")
        } catch let error as FitInputError {
            #expect(error.description.hasPrefix("records.jsonl:1: "), "\(error)")
            #expect(error.description.contains(message), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
