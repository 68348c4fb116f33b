import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// What apps that raise safety alerts, keep per-screen rows and ship versions need of the core:
/// a settings prompt about one setting, a prompt exempt from the daily cap, the app's version
/// and the one before an update, a policy-wide push registration default, and `feature_closed`.
@Suite struct RealAppsTwoTests {
    func situation(
        _ status: PermissionStatus, timeSensitive: SettingValue, alert: SettingValue = .enabled, promptsToday: Int = 0,
        capExempt: Bool = false
    ) -> GuardrailSituation {
        var settings = NotificationSettings.typical(for: status, on: version("17.0"))
        settings.alert = alert
        settings.timeSensitive = timeSensitive
        return GuardrailSituation(
            status: status, settings: settings, version: version("17.0"), appIsActive: true, promptsToday: promptsToday,
            maxPromptsPerDay: 3, capExempt: capExempt)
    }

    func prompt(for setting: NotificationSettings.Setting?) -> Decision.Action {
        var prompt = settingsPrompt
        prompt.forSetting = setting
        return .settingsPrompt(prompt)
    }

    /// `for_setting`: the guardrail judges that setting, not alerts: allowed while authorized
    /// when it is off, void when it is on or does not exist for the app.
    @Test func aSettingsPromptForOneSettingIsJudgedByThatSetting() {
        let allowed = Guardrail.apply(to: prompt(for: .timeSensitive), in: situation(.authorized, timeSensitive: .disabled))
        #expect(allowed.action == prompt(for: .timeSensitive))
        #expect(allowed.warnings.isEmpty)
        for value in [SettingValue.enabled, .notSupported] {
            let voided = Guardrail.apply(to: prompt(for: .timeSensitive), in: situation(.authorized, timeSensitive: value))
            #expect(voided.action == .none, "time_sensitive \(value)")
            #expect(
                voided.warnings.map(\.message) == [
                    "the status is authorized with time_sensitive \(value): there is nothing to change in Settings"
                ])
        }
        // Without for_setting, alerts decide as before: time_sensitive off does not allow it.
        let alerts = Guardrail.apply(to: prompt(for: nil), in: situation(.authorized, timeSensitive: .disabled))
        #expect(alerts.warnings.map(\.name) == ["settings-prompt-pointless"])
        // Denied: any settings prompt has something to change.
        #expect(Guardrail.apply(to: prompt(for: .timeSensitive), in: situation(.denied, timeSensitive: .disabled)).warnings.isEmpty)
    }

    /// `for_setting = "scheduled_delivery"` asks the user to turn Scheduled Summary off (an app
    /// wants its notifications at once): allowed while the summary is on, pointless once it is off.
    @Test func aScheduledSummaryPromptAsksToTurnItOff() {
        func apply(_ value: SettingValue) -> (action: Decision.Action, warnings: [GuardrailWarning]) {
            var situation = situation(.authorized, timeSensitive: .disabled)
            situation.settings.scheduledDelivery = value
            return Guardrail.apply(to: prompt(for: .scheduledDelivery), in: situation)
        }
        #expect(apply(.enabled).action == prompt(for: .scheduledDelivery))
        #expect(apply(.enabled).warnings.isEmpty)
        for value in [SettingValue.disabled, .notSupported] {
            #expect(apply(value).action == .none, "scheduled_delivery \(value)")
            #expect(
                apply(value).warnings.map(\.message) == [
                    "the status is authorized with scheduled_delivery \(value): there is nothing to change in Settings"
                ])
        }
        #expect(NotificationSettings.Setting.scheduledDelivery.wantedValue == .disabled)
        #expect(NotificationSettings.Setting.timeSensitive.wantedValue == .enabled)
    }

    @Test func aCapExemptPromptPassesTheDailyCap() {
        let capped = Guardrail.apply(to: prompt(for: nil), in: situation(.denied, timeSensitive: .disabled, promptsToday: 3))
        #expect(capped.warnings.map(\.name) == ["prompt-cap"])
        let exempt = Guardrail.apply(
            to: prompt(for: nil), in: situation(.denied, timeSensitive: .disabled, promptsToday: 3, capExempt: true))
        #expect(exempt.action == prompt(for: nil))
        #expect(exempt.warnings.isEmpty)
    }

    /// The engine gives the guardrail the decision's `cap_exempt`, counts the prompt, and the
    /// decision record carries the reason.
    @Test func theEngineLetsACapExemptPromptThroughAndRecordsWhy() async {
        let policy = ClosurePolicy(name: "alerts") { context in
            var decision = Decision(.settingsPrompt(settingsPrompt), reason: "alert")
            if context.event == .featureOpened("urgent") { decision.capExempt = "urgent low glucose" }
            return decision
        }
        let world = World(authorization: .denied, maxPromptsPerDay: 1, policy: policy)
        _ = await world.engine.handle(.appLaunch)
        #expect(await world.engine.handle(.featureOpened("diary")).warnings.map(\.name) == ["prompt-cap"])
        let outcome = await world.engine.handle(.featureOpened("urgent"))
        #expect(outcome.decision.action == .settingsPrompt(settingsPrompt))
        #expect(outcome.warnings.isEmpty)
        #expect(outcome.record.decision["cap_exempt"] == .string("urgent low glucose"))
        #expect(await world.engine.history.promptsToday == 2)
    }

    /// `ctx.app`: the host's version, and the one before it in the first process after an
    /// update only; a fresh ledger has no version before.
    @Test func thePreviousVersionIsSetInTheFirstProcessAfterAnUpdate() async {
        let seen = Locked<[AppInfo]>([])
        let policy = ClosurePolicy(name: "versions") { context in
            seen.withLock { $0.append(context.app) }
            return nil
        }
        let store = InMemoryLedgerStore()
        func process(_ version: String?) async {
            let clock = ManualClock(start)
            let device = try! SimulatedDevice(platform: platform("17.0"), clock: clock, authorization: .authorized)
            let engine = PermissionEngine(
                policy: policy, client: device, platform: platform("17.0"), store: store, clock: clock,
                configuration: EngineConfiguration(foregroundRecheckDelays: [], appVersion: version))
            _ = await engine.handle(.appLaunch)
            _ = await engine.handle(.featureOpened("diary"))
        }
        await process("2.9.1")
        await process("2.9.1")
        await process("3.0.0")
        await process("3.0.0")
        await process(nil)
        let fresh = AppInfo(version: "2.9.1"), updated = AppInfo(version: "3.0.0", previousVersion: "2.9.1")
        #expect(
            seen.current == [
                fresh, fresh, fresh, fresh, updated, updated, AppInfo(version: "3.0.0"), AppInfo(version: "3.0.0"), AppInfo(),
                AppInfo(),
            ])
        #expect(store.ledger.appVersion == "3.0.0")
    }

    /// The policy's `remote_registration` is every decision's default; a decision's own wins.
    @Test func thePolicysRemoteRegistrationIsTheDefault() async {
        struct Keeping: Policy {
            let declaration = PolicyDeclaration(name: "keeping", remoteRegistration: .keep)
            func answer(_ context: PolicyContext) -> PolicyAnswer {
                guard context.event == .featureOpened("push") else { return PolicyAnswer(decision: .success(nil), trace: "") }
                var decision = Decision(.none)
                decision.remoteRegistration = .register
                return PolicyAnswer(decision: .success(decision), trace: "")
            }
            func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] { [] }
            func validate(params: [String: PolicyValue]) throws(PolicyError) {}
            func takeTrace() -> String { "" }
            func eventHandled(errors: [PolicyError]) {}
        }
        let world = World(authorization: .authorized, policy: Keeping())
        let launch = await world.engine.handle(.appLaunch)
        #expect(!launch.registerForRemoteNotifications)
        #expect(!launch.unregisterForRemoteNotifications)
        #expect(await world.engine.handle(.featureOpened("push")).registerForRemoteNotifications)
        let plain = World(authorization: .authorized, policy: always(.none))
        #expect(await plain.engine.handle(.appLaunch).registerForRemoteNotifications)
    }

    /// `feature_closed` carries its feature, counts nothing, and is no tap that may open Settings.
    @Test func featureClosedCountsNothingAndOpensNoSettings() async {
        let world = World(authorization: .denied, policy: always(.openSettings(.appSettings)))
        _ = await world.engine.handle(.featureOpened("diary"))
        let before = await world.engine.history
        let outcome = await world.engine.handle(.featureClosed("diary"))
        #expect(outcome.event.fields.map(\.name) == ["feature"])
        #expect(outcome.warnings.map(\.name) == ["open-settings-not-user-initiated"])
        #expect(await world.engine.history.features == before.features)
        #expect(AppEvent.featureClosed("diary").feature == "diary")
    }
}
