import Foundation
import PermitTestSupport
import Testing

@testable import PermitCore
@testable import PermitLua
@testable import PermitScenario

/// Random and mutated inputs through every parser and validator: each case must end in a
/// result or a typed error, never a crash or a hang.
@Suite struct InputFuzzTests {
    static let repository = Repository.root

    /// Byte-level and line-level mutations of a text.
    static func mutate(_ text: String, rng: inout SplitMix64) -> String {
        var characters = Array(text)
        let alphabet = Array("{}[]:,-'\"#&*!|>%@` \n\t0123456789.abcxyz_=()~\\\u{0}é中")
        for _ in 0..<rng.int(1...6) {
            guard !characters.isEmpty else { break }
            let at = rng.int(0...(characters.count - 1))
            switch rng.int(0...5) {
            case 0: characters.remove(at: at)
            case 1: characters.insert(rng.pick(alphabet), at: at)
            case 2: characters[at] = rng.pick(alphabet)
            case 3: characters.removeSubrange(at..<min(characters.count, at + rng.int(1...40)))
            case 4:
                let end = min(characters.count, at + rng.int(1...30))
                characters.insert(contentsOf: characters[at..<end], at: rng.int(0...(characters.count - 1)))
            default: characters = Array(characters.prefix(at))
            }
        }
        return String(characters)
    }

    static var scenarioCorpus: [String] {
        var corpus = [specExample, minimal, passing, failing]
        let directories = ["examples", "policies"].map { repository.appendingPathComponent($0) }
        for directory in directories {
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".yaml") {
                if let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) { corpus.append(text) }
            }
        }
        return corpus
    }

    @Test func mutatedScenariosParseOrFailWithAnInputError() async throws {
        let corpus = Self.scenarioCorpus
        let cases = FuzzBudget.cases(800)
        var parsed = 0, rejected = 0, ran = 0
        for index in 0..<cases {
            var rng = SplitMix64.stream(seed: FuzzBudget.seed, index: UInt64(index))
            let text = Self.mutate(rng.pick(corpus), rng: &rng)
            do {
                let scenario = try ScenarioParser.parse(text, file: "fuzz.yaml")
                parsed += 1
                if index % 10 == 0 {
                    _ = try? await ScenarioRunner(policy: polite).run(scenario)
                    ran += 1
                }
            } catch {
                rejected += 1
                #expect(error.location?.file == "fuzz.yaml", "\(error)")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(parsed + rejected == cases)
        #expect(parsed > 0 && rejected > 0)
    }

    /// Random LuaValue trees as decisions: a Decision or a PolicyError naming a field.
    @Test func randomDecisionTablesValidateOrFail() throws {
        func randomValue(_ rng: inout SplitMix64, depth: Int) -> LuaValue {
            switch rng.int(0...(depth > 3 ? 4 : 6)) {
            case 0: return .nil
            case 1: return .boolean(rng.chance(0.5))
            case 2: return .integer(Int64(rng.int(-5...100)))
            case 3: return .number(Double(rng.int(-100...100)) / 7)
            case 4:
                return .string(
                    rng.pick([
                        "none", "soft_prompt", "request_permission", "settings_prompt", "alert", "provisional", "app_settings",
                        "notification_settings", "App-Prefs:root=NOTIFICATIONS_ID", "sheet", "en", "", String(repeating: "x", count: 2500),
                    ]))
            case 5:
                let keys = [
                    "action", "title", "message", "accept", "decline", "open", "cancel", "options", "deep_link",
                    "presentation", "variant", "reason", "remember", "en", "zh-Hans", "bogus",
                ]
                var entries: [LuaTable.Entry] = []
                for key in Set((0..<rng.int(0...6)).map { _ in rng.pick(keys) }) {
                    entries.append(LuaTable.Entry(key: .string(key), value: randomValue(&rng, depth: depth + 1)))
                }
                return .table(LuaTable(entries: entries, hasMetatable: rng.chance(0.05)))
            default:
                return .table(LuaTable(array: (0..<rng.int(0...4)).map { _ in randomValue(&rng, depth: depth + 1) }))
            }
        }
        let cases = FuzzBudget.cases(5000)
        var accepted = 0
        for index in 0..<cases {
            var rng = SplitMix64.stream(seed: FuzzBudget.seed, index: UInt64(index))
            var value = randomValue(&rng, depth: 0)
            if rng.chance(0.6), case .table(var table) = value {
                table.entries.removeAll { $0.key == .string("action") }
                table.entries.append(LuaTable.Entry(key: "action", value: .string(rng.pick(Decision.Action.names))))
                value = .table(table)
            }
            do {
                _ = try DecisionReader.decision(from: value)
                accepted += 1
            } catch {
                #expect(error.kind == .invalidDecision)
                #expect(error.field?.hasPrefix("decision") == true, "\(error)")
            }
        }
        #expect(accepted > 0 && accepted < cases)
    }

    /// Random and mutated Lua source through the loader and one decision: a policy or a typed
    /// error, in bounded time, and the VM's errors never leak as crashes.
    @Test func mutatedPoliciesLoadOrFailWithATypedError() throws {
        let polite = try String(contentsOf: Self.repository.appendingPathComponent("policies/polite/policy.lua"), encoding: .utf8)
        let corpus = [
            polite,
            "return { name = 'x', decide = function(ctx) return { action = 'none' } end }",
            "return { name = 'x', decide = function(ctx) local t = {} for i = 1, 10 do t[i] = ctx.now end return nil end }",
            "return { name = 'x', decide = function(ctx) while true do end end }",
            "return { name = 'x', decide = function(ctx) return { action = 'soft_prompt', title = 't', message = 'm', accept = 'a', decline = 'd' } end }",
        ]
        let limits = LuaLimits(instructionsPerCall: 200_000, memoryBytes: 4 << 20)
        let context = PolicyContext(
            event: .featureOpened("reminders"), status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: OSVersion(major: 16)), platform: Platform(version: OSVersion(major: 16)),
            history: Ledger(), now: 1_767_600_000)
        let cases = FuzzBudget.cases(600)
        var loaded = 0, failed = 0
        for index in 0..<cases {
            var rng = SplitMix64.stream(seed: FuzzBudget.seed, index: UInt64(index))
            let source = Self.mutate(rng.pick(corpus), rng: &rng)
            do {
                let policy = try LuaPolicy(source: source, chunkName: "fuzz.lua", limits: limits)
                loaded += 1
                _ = try? policy.decide(context)
            } catch {
                failed += 1
                #expect(error.file == "fuzz.lua" || error.field != nil, "\(error)")
            }
        }
        #expect(loaded > 0 && failed > 0)
    }
}
