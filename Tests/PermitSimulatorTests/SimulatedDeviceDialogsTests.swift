import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// The simulated iPhone's dialogs and refusals of docs/platform.md S-02, S-04, S-06, A-01 and
/// Q-03, at the device's own API (the fidelity scenarios show them through the engine).
@Suite struct SimulatedDeviceDialogsTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))

    func device(
        _ os: String, appClip: Bool = false, entitlements: Set<NotificationEntitlement> = [],
        ephemeral: Bool = false, card: Bool = true, summary: Bool = false
    ) throws -> SimulatedDevice {
        try SimulatedDevice(
            platform: Platform(version: try OSVersion(parsing: os), isAppClip: appClip), clock: clock,
            entitlements: entitlements, ephemeralNotifications: ephemeral, appClipCardNotifications: card,
            scheduledSummary: summary)
    }

    /// S-02: an entitled, authorized app asking for critical alerts gets their own dialog, once;
    /// Don't Allow leaves the app authorized and critical alerts disabled.
    @Test func criticalAlertsAfterTheGrantHaveTheirOwnDialogOnce() throws {
        let device = try device("16.4", entitlements: [.criticalAlerts])
        #expect(device.request(options: [.alert]) == .dialogShown)
        try device.answerDialog(allow: true)
        #expect(device.settings.criticalAlert == .disabled)
        #expect(device.request(options: [.alert, .criticalAlert]) == .dialogShown)
        #expect(device.isCriticalAlertsDialogOnScreen)
        #expect(try device.answerDialog(allow: false), "the app stays authorized: the request completes as granted")
        #expect(device.authorization == .authorized && device.settings.criticalAlert == .disabled)
        #expect(device.request(options: [.alert, .criticalAlert]) == .answeredWithoutDialog(granted: true), "asked once per install")
        let unentitled = try self.device("16.4")
        _ = unentitled.request(options: [.alert])
        try unentitled.answerDialog(allow: true)
        #expect(unentitled.request(options: [.criticalAlert]) == .answeredWithoutDialog(granted: true))
        #expect(unentitled.settings.criticalAlert == .notSupported)
    }

    /// S-02 with N-03: a request while authorized passes (iOS answers at once), and only where
    /// iOS shows the critical-alerts dialog is it a prompt: the day's cap and the foreground rule
    /// apply to it then, and to nothing iOS answers without a dialog.
    @Test func aCriticalAlertsRequestIsAPromptOnlyWhileTheyReadDisabled() {
        func situation(_ critical: SettingValue, promptsToday: Int = 0, active: Bool = true) -> GuardrailSituation {
            var settings = NotificationSettings.typical(for: .authorized, on: OSVersion(major: 16))
            settings.criticalAlert = critical
            return GuardrailSituation(
                status: .authorized, settings: settings, version: OSVersion(major: 16), appIsActive: active,
                promptsToday: promptsToday, maxPromptsPerDay: 3)
        }
        let request = Decision.Action.requestPermission(options: [.alert, .criticalAlert])
        for critical in [SettingValue.disabled, .notSupported, .enabled] {
            let passed = Guardrail.apply(to: request, in: situation(critical))
            #expect(passed.action == request && passed.warnings.isEmpty, "\(critical)")
        }
        // The critical-alerts dialog is a prompt: the day's cap counts it, and it needs the foreground.
        let capped = Guardrail.apply(to: request, in: situation(.disabled, promptsToday: 3))
        #expect(capped.action == .none && capped.warnings.map(\.guardrail) == [.promptCap])
        let away = Guardrail.apply(to: request, in: situation(.disabled, active: false))
        #expect(away.action == .none && away.warnings.map(\.guardrail) == [.appNotActive])
        // Answered at once, no dialog: neither the cap nor the foreground rule applies.
        for critical in [SettingValue.notSupported, .enabled] {
            #expect(Guardrail.apply(to: request, in: situation(critical, promptsToday: 3)).action == request)
            #expect(Guardrail.apply(to: request, in: situation(critical, active: false)).action == request)
        }
    }

    /// S-04: "Add to Scheduled Summary" only with Scheduled Summary on, iOS 15+.
    @Test func addToSummaryEnablesScheduledDelivery() throws {
        let device = try device("17.2", summary: true)
        _ = device.request(options: [.alert, .sound])
        #expect(try device.answerDialogAddingToSummary())
        #expect(device.authorization == .authorized && device.settings.scheduledDelivery == .enabled)
        let off = try self.device("17.2")
        _ = off.request(options: [.alert])
        #expect(throws: SimulatedDeviceError.noSummaryChoice) { try off.answerDialogAddingToSummary() }
        #expect(off.isDialogOnScreen, "the refused tap leaves the dialog up")
        #expect(try !self.device("14.8", summary: true).scheduledSummary, "Scheduled Summary came with iOS 15")
    }

    /// S-06: not_supported before asking; disabled after a denial.
    @Test func everySettingIsNotSupportedBeforeTheAppHasAsked() throws {
        let device = try device("16.4")
        #expect(device.settings == .unsupported)
        _ = device.request(options: [.alert])
        try device.answerDialog(allow: false)
        #expect(device.settings.alert == .disabled && device.settings.criticalAlert == .notSupported)
    }

    /// with the card's switch off there is no ephemeral grant, and nothing is
    /// scheduled while the app is not authorized.
    @Test func nothingIsScheduledWithoutAuthorization() throws {
        let reminder = ScheduledReminder(id: "permit.0", fireDate: clock.now().addingTimeInterval(3_600), body: "x")
        let clip = try device("16.4", appClip: true, ephemeral: true, card: false)
        clip.launch()
        #expect(clip.authorization == .notDetermined)
        #expect(!clip.add([reminder]) && clip.pending.isEmpty)
        let granted = try device("16.4", appClip: true, ephemeral: true)
        granted.launch()
        #expect(granted.authorization == .ephemeral && granted.add([reminder]) && granted.pending.count == 1)
        #expect(throws: SimulatedDeviceError.self) {
            try SimulatedDevice(
                platform: Platform(version: OSVersion(major: 16), isAppClip: true), clock: clock, authorization: .ephemeral,
                ephemeralNotifications: true, appClipCardNotifications: false)
        }
    }
}
