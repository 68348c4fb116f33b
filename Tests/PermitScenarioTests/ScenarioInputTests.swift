import Foundation
import PermitInput
import Testing

@testable import PermitCore
@testable import PermitScenario

/// Scenario input that YAML or the ledger's types accept but no one can mean, or that costs
/// far more than it says: each is refused with its file, line and field.
@Suite struct ScenarioInputTests {
    /// Nine levels of nine aliases: 9^9 (387 million) values from about 300 bytes.
    static var aliasBomb: String {
        var text = "device: { os: \"16.0\" }\nparams:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for (previous, name) in zip(names, names.dropFirst()) {
            text += "  \(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
        }
        return text + "steps:\n  - event: app_launch\n"
    }

    @Test func anAliasBombIsRefusedWithoutExpandingIt() {
        let error = parseError(Self.aliasBomb)
        #expect(error.hasPrefix("tests/example.yaml:"))
        #expect(error.contains("excessive aliasing"))
        #expect(error.contains("params."))
        // The line of a node that uses the aliases (one of the lines defining b...i).
        let line = Int(error.split(separator: ":")[1]) ?? 0
        #expect((4...11).contains(line), "\(error)")
    }

    /// Yams hashes every mapping key while composing (to find duplicates), expanding any alias
    /// in it. Keys are checked on the parser's events first, so the aliases in a key are
    /// counted, not expanded, and refused at the alias's own line. 9^5 values twice in one key:
    /// just over the limit (the nine-level bomb as a key is in `make redteam`).
    @Test(arguments: [("? [*e, *e]\n: 1", 8), ("? { k: *e, l: [*e] }\n: 1", 8), ("[*e, *e]: 1", 8), ("{ z: *e }: 1\n? *e\n: 2", 9)])
    func aliasesInKeysAreCountedBeforeYamsExpandsThem(key: String, aliasLine: Int) {
        var text = "device: { os: \"16.0\" }\nparams:\n  a: &a [x, x, x, x, x, x, x, x, x]\n"
        for (previous, name) in zip(["a", "b", "c", "d"], ["b", "c", "d", "e"]) {
            text += "  \(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
        }
        text += key + "\nsteps:\n  - event: app_launch\n"
        let error = parseError(text)
        #expect(error.hasPrefix("tests/example.yaml:\(aliasLine):"), "\(error)")
        #expect(error.contains("excessive aliasing: aliases used in keys here expand to more than 100000 values"), "\(error)")
    }

    /// An anchored scalar used again as a key costs nothing to expand: still accepted (and read
    /// as the name it is).
    @Test func aScalarAliasAsAKeyIsFine() throws {
        let scenario = try parse(
            """
            device: { os: "16.0" }
            params:
              first: { &name gap: 1 }
              second: { *name : 2 }
            steps:
              - event: app_launch
            """)
        #expect(scenario.params["second"] == .table(["gap": .integer(2)]))
    }

    @Test func anchorsAndMergeKeysStillShareAPreamble() throws {
        let scenario = try parse(
            """
            device: { os: "16.0" }
            params:
              base: &base { gap: 2, copy: hi }
              <<: *base
              extra: 1
            steps:
              - &launch { event: app_launch, expect: none }
              - <<: *launch
                after: 1d
              - *launch
              - { <<: [*launch], event: app_foreground }
            """)
        #expect(scenario.params["gap"] == .integer(2))
        #expect(scenario.params["copy"] == .string("hi"))
        #expect(scenario.params["base"] == .table(["gap": .integer(2), "copy": .string("hi")]))
        #expect(scenario.steps.map(\.after) == [0, 86_400, 0, 0])
        #expect(scenario.steps.map(\.action) == [.event(.appLaunch), .event(.appLaunch), .event(.appLaunch), .event(.appForeground)])
    }

    @Test func aMergeKeyMustNameATable() {
        let error = parseError("device: { os: \"16.0\" }\nsteps:\n  - { <<: 5, event: app_launch }\n")
        #expect(error.hasPrefix("tests/example.yaml:3:"))
        #expect(error.contains("`<<` merges a table into this one"))
    }

    @Test func aliasesUsedAFewThousandTimesAreFine() throws {
        var text = "device: { os: \"16.0\" }\nsteps:\n  - &s { event: app_launch }\n"
        for _ in 0..<2000 { text += "  - *s\n" }
        #expect(try parse(text).steps.count == 2001)
    }

    @Test(arguments: [
        ("params: { blob: !!binary aGVsbG8= }", "!!binary"),
        ("params: { run: !!python/object:os.system [ls] }", "!!python/object:os.system"),
        ("params: { x: !custom 5 }", "!custom"),
        ("params: { n: !!str 5 }", "!!str"),
        ("params: !!map { n: 5 }", "!!map"),
    ])
    func tagsAreRefused(line: String, shown: String) {
        let error = parseError("device: { os: \"16.0\" }\n\(line)\nsteps:\n  - event: app_launch\n")
        #expect(error.hasPrefix("tests/example.yaml:2:"), "\(error)")
        #expect(error.contains("YAML tags are not accepted (found \(shown))"), "\(error)")
    }

    @Test(arguments: [
        ("start: \"2026-02-30T08:00:00Z\"", "February 2026 has 28 days, so there is no day 30"),
        ("start: \"2028-02-30T08:00:00Z\"", "February 2028 has 29 days, so there is no day 30"),
        ("start: \"2026-13-01T08:00:00Z\"", "there is no month 13"),
        ("start: \"2026-04-31T08:00:00Z\"", "April 2026 has 30 days, so there is no day 31"),
        ("start: \"2026-01-05T24:00:00Z\"", "there is no hour 24"),
        ("initial: { ledger: { prompts_day: \"2026-02-29\" } }", "February 2026 has 28 days, so there is no day 29"),
    ])
    func impossibleDatesAreRefused(line: String, problem: String) {
        let error = parseError("device: { os: \"16.0\" }\n\(line)\nsteps:\n  - event: app_launch\n")
        #expect(error.hasPrefix("tests/example.yaml:2:"), "\(error)")
        #expect(error.contains(problem), "\(error)")
    }

    @Test func realLeapDaysAreFine() throws {
        let scenario = try parse("device: { os: \"16.0\" }\nstart: \"2028-02-29T08:00:00Z\"\nsteps:\n  - event: app_launch\n")
        #expect(scenario.start == Date(timeIntervalSince1970: 1_835_424_000))
    }

    @Test(arguments: [
        ("{ launches: -1 }", "initial.ledger.launches", "-1 is negative"),
        ("{ soft_prompt: { shown: -2 } }", "initial.ledger.soft_prompt.shown", "-2 is negative"),
        ("{ features: { diary: { opened: -3 } } }", "initial.ledger.features.diary.opened", "-3 is negative"),
        ("{ state: { a: { b: 1 } } }", "initial.ledger.state.a", "got a table"),
        ("{ state: { l: [1, 2] } }", "initial.ledger.state.l", "got a list"),
        ("{ state: { x: 1e999 } }", "initial.ledger.state.x", "1e999 is beyond the largest number"),
    ])
    func aLedgerNoEngineCouldWriteIsRefused(ledger: String, field: String, problem: String) {
        let error = parseError("device: { os: \"16.0\" }\ninitial:\n  ledger: \(ledger)\nsteps:\n  - event: app_launch\n")
        #expect(error.hasPrefix("tests/example.yaml:3:"), "\(error)")
        #expect(error.contains("\(field): "), "\(error)")
        #expect(error.contains(problem), "\(error)")
    }

    @Test func aDuplicateKeyIsReportedAtItsLine() {
        let error = parseError("device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\ndevice: { os: \"17.0\" }\n")
        #expect(error.hasPrefix("tests/example.yaml:4:1: \"device\" appears twice in one table (first at line 1)"), "\(error)")
    }

    /// A flow table (`{ a: 1, a: 2 }`) has its duplicate key reported where the second one is:
    /// line and column, with the table's field.
    @Test(arguments: [
        (
            "device: { os: \"16.0\", os: \"17.0\" }\nsteps:\n  - event: app_launch\n",
            "1:23: device: \"os\" appears twice in one table (first at line 1)"
        ),
        (
            "device: { os: \"16.0\" }\nparams: { a: 1,\n  b: 2, a: 3 }\nsteps:\n  - event: app_launch\n",
            "3:9: params: \"a\" appears twice in one table (first at line 2)"
        ),
        (
            "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect: none, event: app_foreground }\n",
            "3:40: steps[1]: \"event\" appears twice in one table (first at line 3)"
        ),
        (
            "device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\n    after: 1d\n    event: app_foreground\n",
            "5:5: steps[1]: \"event\" appears twice in one table (first at line 3)"
        ),
    ])
    func aDuplicateKeyInAFlowTableIsReportedAtItsLine(text: String, expected: String) {
        let error = parseError(text)
        #expect(error.hasPrefix("tests/example.yaml:\(expected)"), "\(error)")
    }

    @Test func invalidUTF8NamesTheByteAndLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: url) }
        let before = "device: { os: \"16.0\" }\nsteps:\n  - event: app_launch # caf"
        var bytes = Data(before.utf8)
        bytes.append(0xE9)  // Latin-1 é
        bytes.append(contentsOf: Data("\n".utf8))
        try bytes.write(to: url)
        do {
            _ = try ScenarioParser.parse(contentsOf: url, displayName: "latin1.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("latin1.yaml:3:28: "), "\(error)")
            #expect(error.message.contains("byte \(before.utf8.count) (0xE9)"), "\(error)")
        }
    }

    @Test func theScenarioClockIsBounded() {
        // One `after:` can be 999,999,999 days; 103,000 such steps overflowed the clock.
        let huge = parseError("device: { os: \"16.0\" }\nsteps:\n  - { after: 999999999d, event: app_launch }\n")
        #expect(huge.hasPrefix("tests/example.yaml:3:"), "\(huge)")
        #expect(huge.contains("steps[1].after: the scenario would span more than 100 years by this step"), "\(huge)")
        let summed = parseError(
            "device: { os: \"16.0\" }\nsteps:\n  - { after: 36500d, event: app_launch }\n  - event: app_foreground\n  - { after: 26d, event: app_launch }\n"
        )
        #expect(summed.hasPrefix("tests/example.yaml:5:"), "\(summed)")
        #expect(summed.contains("steps[3].after"), "\(summed)")
    }

    /// A steps file included many times: a few kilobytes that would play far more steps than
    /// any story needs. The step past the cap is refused, naming the include that brought it.
    @Test func includesExpandToAtMostTheStepCap() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("permit-include-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hundred = "steps:\n" + String(repeating: "  - event: app_foreground\n", count: 100)
        try hundred.write(to: directory.appendingPathComponent("many.steps.yaml"), atomically: true, encoding: .utf8)
        func parse(_ includes: Int, matrix: String = "") throws(InputError) -> [Scenario] {
            let text =
                matrix + "device: { os: \"16.0\" }\nsteps:\n" + String(repeating: "  - include: many.steps.yaml\n", count: includes)
            return try ScenarioParser.parseCases(text, file: "tests/example.yaml", directory: directory)
        }
        #expect(try parse(100).first?.steps.count == 10_000)
        do {
            _ = try parse(101)
            Issue.record("10,100 steps were accepted")
        } catch {
            #expect(error.message.contains("the scenario plays more than 10000 steps by this one"), "\(error)")
            #expect(error.message.contains("(in the steps included at tests/example.yaml:103)"), "\(error)")
        }
        // A matrix plays every step once per case: the file's cases together are capped too.
        let buckets = "matrix: { bucket: [" + (0..<11).map(String.init).joined(separator: ", ") + "] }\n"
        do {
            _ = try parse(100, matrix: buckets)
            Issue.record("110,000 steps were accepted")
        } catch {
            #expect(error.message.contains("the file's cases play more than 100000 steps together"), "\(error)")
            #expect(error.location?.line == 1, "\(error)")
        }
    }

    /// A number too big for its kind reaches no policy as infinity, or as text: it is refused
    /// at its line and field. Quoted, it is the text it says.
    @Test(arguments: [
        ("1e400", "params.gap: 1e400 is beyond the largest number"), ("-1.5e309", "params.gap: -1.5e309 is beyond the largest number"),
        ("99999999999999999999", "params.gap: 99999999999999999999 does not fit a whole number"),
    ])
    func numbersThatOverflowAreRefused(_ value: String, _ message: String) throws {
        let error = parseError("device: { os: \"16.0\" }\nparams:\n  gap: \(value)\nsteps:\n  - event: app_launch\n")
        #expect(error.hasPrefix("tests/example.yaml:3:"), "\(error)")
        #expect(error.contains(message), "\(error)")
        let quoted = try parse("device: { os: \"16.0\" }\nparams:\n  gap: \"\(value)\"\nsteps:\n  - event: app_launch\n")
        #expect(quoted.params["gap"] == .string(value))
        let fine = try parse("device: { os: \"16.0\" }\nparams:\n  gap: 1.5e308\nsteps:\n  - event: app_launch\n")
        #expect(fine.params["gap"] == .number(1.5e308))
    }

    @Test func exactlyAHundredYearsRuns() async throws {
        let result = try await run(
            "device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\n  - { after: 36525d, event: app_foreground }\n")
        #expect(result.passed)
        #expect(result.steps.map(\.time) == [1_767_600_000, 1_767_600_000 + ScenarioInputChecks.maxSpanSeconds])
    }
}
