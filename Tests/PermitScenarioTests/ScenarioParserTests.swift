import Foundation
import PermitInput
import PermitLua
import Testing

@testable import PermitCore
@testable import PermitScenario

/// The scenario example of docs/reference/scenarios.md#scenarios, verbatim but for the policy path.
let specExample = """
    name: iOS 9 — denied, then enabled in Settings
    policy: ../policy.lua            # relative to this file; default: the pack's policy.lua
    device: { os: "9.3", locale: en, timezone: UTC, app_clip: false }
    user: { bucket: 0 }
    params: { renag_after_days: 3 }  # over the policy's own params
    engine: { max_prompts_per_day: 3 }
    start: "2026-01-05T08:00:00Z"
    initial:                         # the device and app before step 1 (all optional)
      authorization: not_determined  # the device's truth, also on iOS 8–9
      settings: { alert: enabled }
      ledger: { launches: 4, soft_prompt: { declined: 1 } }
    steps:
      - event: app_launch
        expect: none
      - { after: 5m, event: feature_opened, feature: reminders, expect: soft_prompt }
      - { answer: accept, expect: { action: request_permission }, expect_dialog: true }
      - { answer: deny, expect_status: denied }
      - { after: 3d, event: feature_opened, feature: reminders,
          expect: { action: settings_prompt, deep_link: app_settings }, expect_warning: deep-link-fallback }
      - answer: open
      - settings: { authorization: authorized }   # changed in Settings while away
      - { event: app_foreground, expect_status: authorized }
    """

func parse(_ text: String) throws(InputError) -> Scenario {
    try ScenarioParser.parse(text, file: "tests/example.yaml", directory: URL(fileURLWithPath: "/packs/polite/tests"))
}

/// Plays the scenario `text` against the Lua policy `source`, each new process loading it
/// again, as the app would.
func play(_ text: String, policy source: String, chunkName: String) async throws -> ScenarioResult {
    let load: PolicyFactory = { () throws(PolicyError) -> any Policy in try LuaPolicy(source: source, chunkName: chunkName) }
    return try await ScenarioRunner(policy: try load(), relaunch: load).run(try parse(text))
}

/// The error a broken scenario produces, as printed.
func parseError(_ text: String) -> String {
    do {
        _ = try parse(text)
        return "no error"
    } catch {
        return error.description
    }
}

let minimal = "device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\n"

@Suite struct ScenarioParserTests {
    @Test func parsesTheSpecExample() throws {
        let scenario = try parse(specExample)
        #expect(scenario.name == "iOS 9 — denied, then enabled in Settings")
        #expect(scenario.policy?.path == "/packs/polite/policy.lua")
        #expect(scenario.device.version == OSVersion(major: 9, minor: 3))
        #expect(scenario.device.locale == "en" && scenario.device.timeZone.secondsFromGMT() == 0)
        #expect(scenario.params == ["renag_after_days": .integer(3)])
        #expect(scenario.maxPromptsPerDay == 3)
        #expect(scenario.start == Date(timeIntervalSince1970: 1_767_600_000))
        #expect(scenario.initial.authorization == .notDetermined)
        #expect(scenario.initial.settings == [.alert: .enabled])
        #expect(scenario.initial.ledger.launches == 4 && scenario.initial.ledger.softPrompt.declined == 1)
        #expect(scenario.steps.count == 8)
        #expect(scenario.steps[1].after == 300 && scenario.steps[1].action == .event(.featureOpened("reminders")))
        #expect(scenario.steps[1].location.line == 15)
        #expect(scenario.steps[2].action == .answer(.accept) && scenario.steps[2].expectations.dialog == true)
        #expect(scenario.steps[4].after == 3 * 86400)
        #expect(
            scenario.steps[4].expectations.decision
                == .fields(["action": .string("settings_prompt"), "deep_link": .string("app_settings")]))
        #expect(scenario.steps[6].action == .settings(authorization: .authorized, settings: [:]))
    }

    /// An `expect` or `expect_followup` that is a switch of whole decisions: the decision a case
    /// picks is a decision's table, its `id` a field, not a locale (Indonesian) to pick by.
    @Test func aSwitchOfWholeDecisionsKeepsEachDecisionsID() throws {
        let cases = try ScenarioParser.parseCases(
            """
            matrix: { locale: [en, de] }
            device: { os: "17.0" }
            steps:
              - event: app_launch
                expect: { de: { action: inform, id: seite }, default: { action: none, reason: launch } }
                expect_followup: { en: { action: settings_prompt, id: row_off }, default: none }
            """, file: "tests/example.yaml")
        #expect(cases.count == 2)
        let english = cases[0].steps[0].expectations
        let german = cases[1].steps[0].expectations
        #expect(english.decision == .fields(["action": .string("none")]))
        #expect(english.followUp == .fields(["action": .string("settings_prompt"), "id": .string("row_off")]))
        #expect(german.decision == .fields(["action": .string("inform"), "id": .string("seite")]))
        #expect(german.followUp == .action("none"))
    }

    @Test func defaults() throws {
        let scenario = try parse(minimal)
        #expect(scenario.name == "example")
        #expect(scenario.policy == nil)
        #expect(scenario.device.locale == "en" && !scenario.device.isAppClip)
        #expect(scenario.maxPromptsPerDay == 3 && scenario.userBucket == 0)
        #expect(scenario.start == ScenarioParser.defaultStart)
    }

    @Test func suggestions() {
        #expect(Suggestion.editDistance("allwo", "allow") == 1)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.closest(to: "stpes", in: ScenarioParser.topKeys) == "steps")
        #expect(Suggestion.closest(to: "zzz", in: ScenarioParser.topKeys) == nil)
    }

    @Test(arguments: [("30s", 30), ("5m", 300), ("2h", 7200), ("3d", 259_200), ("1d12h", 129_600), ("1h30m15s", 5415)])
    func durations(text: String, seconds: Int64) {
        #expect(InputDuration.seconds(text) == seconds)
    }

    @Test(arguments: ["", "5", "m", "5x", "1h1d", "5m5m", "-5m", "1.5h", "1 h", "9999999999s"])
    func badDurations(text: String) {
        #expect(InputDuration.seconds(text) == nil)
    }

    @Test(arguments: ["en", "zh-Hans", "zh-Hans-CN", "pt-BR", "es-419", "en_GB"])
    func locales(text: String) { #expect(ScenarioParser.isLocale(text)) }

    @Test(arguments: ["", "e", "english", "zh-Hans-CN-x", "en-", "12"])
    func badLocales(text: String) { #expect(!ScenarioParser.isLocale(text)) }

    @Test(arguments: [
        (
            "device: { os: \"16.0\" }\nstep:\n  - event: app_launch\n",
            "tests/example.yaml:2:1: unknown key \"step\"; did you mean \"steps\"?"
        ),
        (
            "device: { os: \"16.0\", local: en }\nsteps: [{ event: app_launch }]\n",
            "tests/example.yaml:1:23: device: unknown key \"local\"; did you mean \"locale\"?"
        ),
        (
            "device: { os: \"16.0\" }\nsteps:\n  - { after: 5x, event: app_launch }\n",
            "tests/example.yaml:3:14: steps[1].after: \"5x\" is not a duration; use a number with a unit"
        ),
        (
            "device: { os: \"sixteen\" }\nsteps: [{ event: app_launch }]\n",
            "tests/example.yaml:1:15: device.os: invalid iOS version \"sixteen\": the major part \"sixteen\" is not a number"
        ),
        (
            "device: { os: \"16\", locale: english }\nsteps: [{ event: app_launch }]\n",
            "device.locale: \"english\" is not a BCP 47 locale"
        ),
        (
            "device: { os: \"16\", timezone: Mars/Olympus }\nsteps: [{ event: app_launch }]\n",
            "device.timezone: unknown time zone \"Mars/Olympus\""
        ),
        ("steps: [{ event: app_launch }]\n", "tests/example.yaml:1:1: missing \"device\""),
        ("device: { os: \"16\" }\n", "missing \"steps\""),
        ("device: { os: \"16\" }\nsteps: []\n", "there are no steps"),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: app_launch, answer: allow }\n",
            "tests/example.yaml:3:5: steps[1]: a step does one thing, this one has \"event\" and \"answer\""
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: App_Launch }\n",
            "steps[1].event: unknown event \"App_Launch\"; did you mean \"app_launch\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: feature_opened }\n",
            "steps[1].event: feature_opened needs a `feature`"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: soft_prompt_answered }\n",
            "is sent by answering what is on screen; write `answer: accept`"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { answer: allwo }\n",
            "steps[1].answer: \"allwo\" is not valid; did you mean \"allow\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect: soft_promt }\n",
            "steps[1].expect: \"soft_promt\" is not valid; did you mean \"soft_prompt\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect: { action: none, deeplink: app_settings } }\n",
            "steps[1].expect: unknown key \"deeplink\"; did you mean \"deep_link\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect_warning: prompt-capp }\n",
            "did you mean \"prompt-cap\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { settings: { authorization: authorized }, expect: none }\n",
            "steps[1].expect: this step sends no event to the policy"
        ),
        (
            "device: { os: \"9.3\" }\nsteps:\n  - { settings: { lock_screen: disabled } }\n",
            "steps[1].settings.lock_screen: lock_screen does not exist on iOS 9.3; it came with iOS 10.0"
        ),
        (
            "device: { os: \"16\" }\ninitial: { ledger: { launchs: 3 } }\nsteps: [{ event: app_launch }]\n",
            "tests/example.yaml:2:22: initial.ledger: unknown key \"launchs\"; did you mean \"launches\"?"
        ),
        (
            "device: { os: \"16\" }\ninitial: { ledger: { launches: three } }\nsteps: [{ event: app_launch }]\n",
            "initial.ledger: invalid ledger: launches: expected a whole number"
        ),
        (
            "device: { os: \"16\" }\ninitial: { ledger: { soft_prompt: { show: 1 } } }\nsteps: [{ event: app_launch }]\n",
            "unknown key \"show\"; did you mean \"shown\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect_ledger: { soft_prompt.shwn: 1 } }\n",
            "no ledger field \"soft_prompt.shwn\"; did you mean \"shown\"?"
        ),
        (
            "device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect_pending: 65 }\n",
            "steps[1].expect_pending: 65 is out of range; expected 0–64"
        ),
        ("device: { os: \"16\" }\nsteps:\n  - { reinstall: false }\n", "reinstall: false does nothing"),
        ("device: { os: \"16\" }\nsteps:\n  - { feature: x }\n", "steps[1]: the step does nothing"),
        ("device: { os: \"16\" }\nsteps:\n  - event: app_launch\n   bad: indent\n", "tests/example.yaml:4:"),
        ("", "tests/example.yaml:1:1: the file is empty"),
        (
            "device: { os: \"16\" }\nstart: yesterday\nsteps: [{ event: app_launch }]\n",
            "start: \"yesterday\" is not a date and time"
        ),
        (
            "device: { os: \"16\" }\nuser: { bucket: 100 }\nsteps: [{ event: app_launch }]\n",
            "user.bucket: 100 is out of range; expected 0–99"
        ),
        ("device: { os: \"16\", os: \"17\" }\nsteps: [{ event: app_launch }]\n", "tests/example.yaml:1"),
    ])
    func errorsNameFileLineColumnAndField(text: String, expected: String) {
        let message = parseError(text)
        #expect(message.contains(expected), "\(message)")
    }
}
