import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// A small valid model; tests replace lines of it to make mistakes.
let validModel = """
    name: test
    os_versions: { "9.3": 0.1, "12.4": 0.2, "17.5": 0.7 }
    locales: { en: 0.8, zh-Hans: 0.2 }
    sessions_per_day: { poisson: 1.5 }
    feature_opens_per_session: { uniform: [0, 2] }
    features: { reminders: 1 }
    soft_prompt: { accept: 0.3, dismiss: 10% }
    system_dialog: { allow_cold: 0.35, allow_after_soft_accept: 0.85 }
    settings_prompt: { open: 0.25, enable: 0.6 }
    annoyance: { deny_increase_per_prompt: 0.03, uninstall_per_prompt: 0.005 }
    reinstall: { chance: 0.3, after_days: { choice: { 1: 0.5, 7: 0.5 } }, system_remembers: 0.5 }
    max_prompts_per_day: 3
    """

func modelError(_ text: String) -> InputError? {
    do {
        _ = try UserModel.parse(text, file: "models/bad.yaml")
        return nil
    } catch {
        return error
    }
}

@Suite("User model file")
struct ModelTests {
    @Test func readsEveryField() throws {
        let model = try UserModel.parse(validModel, file: "m.yaml")
        #expect(model.name == "test")
        #expect(
            model.osVersions.items.map(\.value) == [
                OSVersion(major: 9, minor: 3), OSVersion(major: 12, minor: 4), OSVersion(major: 17, minor: 5),
            ])
        #expect(model.locales.items.map(\.value) == ["en", "zh-Hans"])
        #expect(model.sessionsPerDay == .poisson(mean: 1.5))
        #expect(model.featureOpensPerSession == .uniform(0...2))
        #expect(model.softAccept == 0.3)
        #expect(model.softDismiss == 0.1)
        #expect(model.allowAfterSoftAccept == 0.85)
        #expect(model.settingsEnable == 0.6)
        #expect(model.uninstallPerPrompt == 0.005)
        #expect(model.reinstallAfterDays.mean == 4)
        #expect(model.maxPromptsPerDay == 3)
    }

    @Test func shippedDefaultModelLoads() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/models/default.yaml")
        let model = try UserModel.load(contentsOf: url)
        #expect(model.name == "default")
        #expect(model.features.items.count >= 2)
    }

    /// A model file is read as scenario files are: a stray byte is named with its place.
    @Test func aModelFileThatIsNotUTF8NamesTheByteAndLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString).yaml")
        try Data("users:\n  os: { \"16.4\": 1.0 }\n# caf\u{E9}\n".utf8.map { $0 == 0xC3 ? 0xE9 : $0 }).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: InputError.self) { try UserModel.load(contentsOf: url, displayName: "m.yaml") }
        do {
            _ = try UserModel.load(contentsOf: url, displayName: "m.yaml")
        } catch {
            #expect(error.description.hasPrefix("m.yaml:3:"), "\(error)")
            #expect(error.description.contains("not UTF-8"), "\(error)")
        }
    }

    @Test func unknownKeyNamesLineAndSuggests() throws {
        let text = validModel.replacingOccurrences(of: "sessions_per_day:", with: "sesions_per_day:")
        let error = try #require(modelError(text))
        #expect(error.location?.file == "models/bad.yaml")
        #expect(error.location?.line == 4)
        #expect(error.description.contains("unknown key \"sesions_per_day\""))
        #expect(error.description.contains("did you mean \"sessions_per_day\"?"))
    }

    @Test func chanceOutOfRangeNamesTheField() throws {
        let text = validModel.replacingOccurrences(of: "accept: 0.3,", with: "accept: 1.3,")
        let error = try #require(modelError(text))
        #expect(error.field == "soft_prompt.accept")
        #expect(error.location?.line == 7)
        #expect(error.description.contains("out of range"))
    }

    @Test func chanceMustBeANumber() throws {
        let text = validModel.replacingOccurrences(of: "open: 0.25", with: "open: often")
        let error = try #require(modelError(text))
        #expect(error.field == "settings_prompt.open")
        #expect(error.description.contains("expected a chance from 0 to 1"))
    }

    @Test func sharesMustAddUpToOne() throws {
        let text = validModel.replacingOccurrences(of: "\"17.5\": 0.7", with: "\"17.5\": 0.6")
        let error = try #require(modelError(text))
        #expect(error.field == "os_versions")
        #expect(error.location?.line == 2)
        #expect(error.description.contains("add up to 0.900, not 1"))
    }

    @Test func badOSVersion() throws {
        let text = validModel.replacingOccurrences(of: "\"9.3\"", with: "\"7.1\"")
        let error = try #require(modelError(text))
        #expect(error.field == "os_versions.7.1")
        #expect(error.description.contains("iOS 8 and later"))
    }

    @Test func missingRequiredField() throws {
        let text = validModel.replacingOccurrences(of: "system_dialog: { allow_cold: 0.35, allow_after_soft_accept: 0.85 }\n", with: "")
        let error = try #require(modelError(text))
        #expect(error.description.contains("missing \"system_dialog\""))
        let partial = validModel.replacingOccurrences(of: "allow_cold: 0.35, ", with: "")
        let inner = try #require(modelError(partial))
        #expect(inner.field == "system_dialog")
        #expect(inner.description.contains("missing \"allow_cold\""))
    }

    @Test func provisionalChoicesAreReadAndValidated() throws {
        let withQuiet = validModel + "\nprovisional: { keep_quiet: 0.5, turn_off: 30%, deliver_immediately: 0.2, decide_after_days: 2 }"
        let model = try UserModel.parse(withQuiet, file: "m.yaml")
        #expect(model.quietTurnOff == 0.3 && model.quietDeliverImmediately == 0.2)
        #expect(model.quietDecidesAfterDays == .fixed(2))
        // Without the block, quiet users stay quiet.
        let plain = try UserModel.parse(validModel, file: "m.yaml")
        #expect(plain.quietTurnOff == 0 && plain.quietDeliverImmediately == 0)

        let sum = try #require(modelError(validModel + "\nprovisional: { keep_quiet: 0.5, turn_off: 0.3, deliver_immediately: 0.3 }"))
        #expect(sum.field == "provisional")
        #expect(sum.location?.line == 13)
        #expect(sum.description.contains("add up to 1.100, not 1"))
        let missing = try #require(modelError(validModel + "\nprovisional: { keep_quiet: 0.7, turn_off: 0.3 }"))
        #expect(missing.description.contains("missing \"deliver_immediately\""))
        let typo = try #require(modelError(validModel + "\nprovisional: { keep_quiet: 0.7, turn_of: 0.3, deliver_immediately: 0 }"))
        #expect(typo.description.contains("did you mean \"turn_off\"?"))
        let range = try #require(modelError(validModel + "\nprovisional: { keep_quiet: 0.7, turn_off: 1.3, deliver_immediately: 0 }"))
        #expect(range.field == "provisional.turn_off")
        #expect(range.description.contains("out of range"))
        // The old name of the third share is read, but not beside the new one.
        let old = try UserModel.parse(
            validModel + "\nprovisional: { keep_quiet: 0.7, turn_off: 0.2, deliver_prominently: 0.1 }", file: "m.yaml")
        #expect(old.quietDeliverImmediately == 0.1 && old.readsDeliverProminently)
        let both = try #require(
            modelError(validModel + "\nprovisional: { keep_quiet: 0.7, turn_off: 0.2, deliver_prominently: 0.1, deliver_immediately: 0.1 }")
        )
        #expect(both.description.contains("one choice written twice"))
    }

    @Test func acceptAndDismissLeaveRoomForDecline() throws {
        let text = validModel.replacingOccurrences(of: "dismiss: 10%", with: "dismiss: 0.8")
        let error = try #require(modelError(text))
        #expect(error.field == "soft_prompt")
        #expect(error.description.contains("add up to more than 1"))
    }

    @Test func badDistributions() throws {
        let unknown = try #require(modelError(validModel.replacingOccurrences(of: "{ poisson: 1.5 }", with: "{ poison: 1.5 }")))
        #expect(unknown.field == "sessions_per_day")
        #expect(unknown.description.contains("did you mean \"poisson\"?"))
        let fraction = try #require(modelError(validModel.replacingOccurrences(of: "{ poisson: 1.5 }", with: "1.5")))
        #expect(fraction.description.contains("expected a whole number from 0 to 100 or a distribution"))
        let reversed = try #require(modelError(validModel.replacingOccurrences(of: "[0, 2]", with: "[2, 0]")))
        #expect(reversed.field == "feature_opens_per_session.uniform")
        #expect(reversed.description.contains("above the maximum"))
    }

    @Test func syntaxErrorAndEmptyFile() throws {
        let syntax = try #require(modelError("name: [unclosed\n"))
        #expect(syntax.location?.file == "models/bad.yaml")
        #expect(syntax.description.contains("YAML"))
        let empty = try #require(modelError(""))
        #expect(empty.description.contains("empty"))
    }

    @Test func poissonMeanIsRight() {
        var rng = SplitMix64(seed: 42)
        let draws = 200_000
        var total = 0
        for _ in 0..<draws { total += CountDistribution.poisson(mean: 1.5).sample(&rng) }
        #expect(abs(Double(total) / Double(draws) - 1.5) < 0.01)
    }
}
