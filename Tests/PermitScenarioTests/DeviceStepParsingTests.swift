import Foundation
import PermitCore
import Testing

@testable import PermitScenario

/// The scenario keys of the device's later platform rules: `provisional_keep`, a reinstall's
/// `uninstalled_for`, and `device.live_activities`, each read, and refused with the file's line
/// and what to write when wrong.
@Suite struct DeviceStepParsingTests {
    @Test func provisionalKeepNamesAChoice() throws {
        let scenario = try parse(minimal + "  - { after: 1d, provisional_keep: deliver_in_scheduled_summary }\n")
        #expect(scenario.steps[1].action == .provisionalKeep(.deliverInScheduledSummary))
        #expect(scenario.steps[1].action.summary == "provisional_keep deliver_in_scheduled_summary")
        let wrong = parseError(minimal + "  - { provisional_keep: deliver_prominently }\n")
        #expect(wrong.contains("tests/example.yaml:4"))
        #expect(wrong.contains("deliver_immediately"))
        let expecting = parseError(minimal + "  - { provisional_keep: deliver_immediately, expect: none }\n")
        #expect(expecting.contains("sends no event to the policy"))
    }

    @Test func reinstallSaysHowLongTheAppWasGone() throws {
        let scenario = try parse(minimal + "  - { after: 3d, reinstall: { uninstalled_for: 1d12h } }\n")
        #expect(scenario.steps[1].action == .reinstall(systemRemembers: nil, keychainSurvives: true, uninstalledFor: 129_600))
        #expect(scenario.steps[1].action.summary == "reinstall (uninstalled for 1d12h)")
        let plain = try parse(minimal + "  - { after: 2h, reinstall: true }\n")
        #expect(plain.steps[1].action == .reinstall(systemRemembers: nil, keychainSurvives: true, uninstalledFor: nil))
        // The app was still installed at the step before: it cannot have been gone longer.
        let longer = parseError(minimal + "  - { after: 1h, reinstall: { uninstalled_for: 2d } }\n")
        #expect(longer.contains("tests/example.yaml:4"))
        #expect(longer.contains("uninstalled_for (2d) is longer than the step's after (1h)"))
        #expect(longer.contains("after: 2d"))
        #expect(parseError(minimal + "  - { after: 1d, reinstall: { uninstalled_for: soon } }\n").contains("is not a duration"))
    }

    @Test func liveActivitiesNeedIOS16Point1() throws {
        let scenario = try parse("device: { os: \"16.1\", live_activities: true }\nsteps:\n  - event: app_launch\n")
        #expect(scenario.device.liveActivities)
        #expect(try !parse(minimal).device.liveActivities)
        let early = parseError("device: { os: \"16.0\", live_activities: true }\nsteps:\n  - event: app_launch\n")
        #expect(early.contains("Live Activities came with iOS 16.1"))
        let setting = parseError(minimal + "  - settings: { live_activities: disabled }\n")
        #expect(setting.contains("live_activities does not exist on iOS 16"))
    }
}
