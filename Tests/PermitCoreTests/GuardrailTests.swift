import Foundation
import Testing

@testable import PermitCore

@Suite struct GuardrailTests {
    func situation(
        _ status: PermissionStatus, os: String = "16.0", active: Bool = true, promptsToday: Int = 0,
        alert: SettingValue = .enabled
    ) -> GuardrailSituation {
        var settings = NotificationSettings.typical(for: status, on: version(os))
        settings.alert = alert
        return GuardrailSituation(
            status: status, settings: settings, version: version(os), appIsActive: active,
            promptsToday: promptsToday, maxPromptsPerDay: 3)
    }

    func names(_ warnings: [GuardrailWarning]) -> [String] { warnings.map(\.name) }

    @Test func namesMatchTheSpecInOrder() {
        #expect(
            Guardrail.allCases.map(\.rawValue) == [
                "system-dialog-unavailable", "app-not-active", "provisional-unsupported", "soft-prompt-pointless",
                "settings-prompt-pointless", "open-settings-not-user-initiated", "deep-link-fallback", "prompt-cap",
            ])
    }

    /// docs/platform.md A-03: an App Clip may ask for full authorization while ephemeral.
    @Test func aFullRequestWhileEphemeralIsKept() {
        let (action, warnings) = Guardrail.apply(to: .requestPermission(options: [.alert]), in: situation(.ephemeral))
        #expect(action == .requestPermission(options: [.alert]))
        #expect(warnings.isEmpty)
    }

    @Test func systemDialogUnavailableOnlyWhileTheStatusIsUnread() {
        let (action, warnings) = Guardrail.apply(to: .requestPermission(options: [.alert]), in: situation(.unknown))
        #expect(action == .none)
        #expect(names(warnings) == ["system-dialog-unavailable"])
    }

    /// docs/platform.md N-03: a request after the user answered is answered at once by iOS, as
    /// apps that request at every launch expect; it is carried out, with no warning and outside
    /// the daily cap (no dialog appears), in the foreground or not.
    @Test(arguments: [PermissionStatus.denied, .authorized])
    func aRequestIOSAnswersAtOnceIsCarriedOutWithoutAWarning(status: PermissionStatus) {
        for active in [true, false] {
            let (action, warnings) = Guardrail.apply(
                to: .requestPermission(options: [.alert]), in: situation(status, active: active, promptsToday: 9))
            #expect(action == .requestPermission(options: [.alert]))
            #expect(warnings.isEmpty, "\(status), active \(active)")
        }
    }

    @Test func appNotActive() {
        let (action, warnings) = Guardrail.apply(
            to: .requestPermission(options: [.alert]), in: situation(.notDetermined, active: false))
        #expect(action == .none)
        #expect(names(warnings) == ["app-not-active"])
    }

    @Test func provisionalUnsupportedDropsTheOptionOnly() {
        let (action, warnings) = Guardrail.apply(
            to: .requestPermission(options: [.alert, .provisional]), in: situation(.notDetermined, os: "11.4"))
        #expect(action == .requestPermission(options: [.alert]))
        #expect(names(warnings) == ["provisional-unsupported"])
        let (kept, none) = Guardrail.apply(
            to: .requestPermission(options: [.alert, .provisional]), in: situation(.notDetermined, os: "12.0"))
        #expect(kept == .requestPermission(options: [.alert, .provisional]))
        #expect(none.isEmpty)
    }

    @Test(arguments: [PermissionStatus.denied, .authorized])
    func softPromptPointless(status: PermissionStatus) {
        let (action, warnings) = Guardrail.apply(to: .softPrompt(softPrompt), in: situation(status))
        #expect(action == .none)
        #expect(names(warnings) == ["soft-prompt-pointless"])
    }

    @Test(arguments: [PermissionStatus.notDetermined, .provisional])
    func softPromptAllowedWhileTheDialogCanFollow(status: PermissionStatus) {
        let (action, warnings) = Guardrail.apply(to: .softPrompt(softPrompt), in: situation(status))
        #expect(action == .softPrompt(softPrompt))
        #expect(warnings.isEmpty)
    }

    @Test func settingsPromptPointless() {
        for (status, alert) in [(PermissionStatus.notDetermined, SettingValue.disabled), (.authorized, .enabled)] {
            let (action, warnings) = Guardrail.apply(
                to: .settingsPrompt(settingsPrompt), in: situation(status, alert: alert))
            #expect(action == .none)
            #expect(names(warnings) == ["settings-prompt-pointless"])
        }
    }

    /// An inline row ("Notification settings ›") belongs on its screen whatever the status.
    @Test func anInlineSettingsRowIsNeverPointless() {
        var row = settingsPrompt
        row.presentation = .inline
        row.cancel = nil
        for status in [PermissionStatus.notDetermined, .authorized, .provisional, .denied] {
            let (action, warnings) = Guardrail.apply(to: .settingsPrompt(row), in: situation(status))
            #expect(action == .settingsPrompt(row))
            #expect(warnings.isEmpty, "\(status)")
        }
    }

    /// Inline rows are not prompts: the daily cap lets them through and counts them nowhere.
    @Test func inlineRowsAreNotCappedPrompts() {
        var soft = softPrompt
        soft.presentation = .inline
        soft.decline = nil
        let (kept, none) = Guardrail.apply(to: .softPrompt(soft), in: situation(.notDetermined, promptsToday: 3))
        #expect(kept == .softPrompt(soft) && none.isEmpty)
        var row = settingsPrompt
        row.presentation = .inline
        let (keptRow, noWarning) = Guardrail.apply(to: .settingsPrompt(row), in: situation(.denied, promptsToday: 30))
        #expect(keptRow == .settingsPrompt(row) && noWarning.isEmpty)
        #expect(!Decision.Action.softPrompt(soft).showsPrompt(status: .notDetermined, version: version("17.0")))
    }

    /// `open_settings` goes through only in answer to a tap; its link falls back below 15.4.
    @Test func openSettingsOnlyForAUserActionWithTheLinkFallback() {
        var launch = situation(.denied)
        launch.userInitiated = false
        let (refused, warnings) = Guardrail.apply(to: .openSettings(.appSettings), in: launch)
        #expect(refused == .none)
        #expect(names(warnings) == ["open-settings-not-user-initiated"])
        let (opened, none) = Guardrail.apply(to: .openSettings(.notificationSettings), in: situation(.denied, promptsToday: 9))
        #expect(opened == .openSettings(.notificationSettings) && none.isEmpty)
        let (fallback, fellBack) = Guardrail.apply(to: .openSettings(.notificationSettings), in: situation(.denied, os: "15.3"))
        #expect(fallback == .openSettings(.appSettings))
        #expect(names(fellBack) == ["deep-link-fallback"])
    }

    /// Nothing can be shown at a run in the background (`background_refresh`): the rule that
    /// voids a dialog voids the app's own prompts, rows and pages too, each with the reason
    /// naming what could not be shown; `dismiss` goes through. An event heard while the app is
    /// merely not active (a time change queued for its return) still shows them.
    @Test func nothingIsShownInTheBackground() {
        var row = softPrompt
        row.presentation = .inline
        let page = InformPage(title: "Alerts are off", message: "Turn them on", button: "OK")
        let shown: [(Decision.Action, PermissionStatus, String)] = [
            (.softPrompt(softPrompt), .notDetermined, "a soft prompt"),
            (.softPrompt(row), .notDetermined, "an inline soft-prompt row"),
            (.settingsPrompt(settingsPrompt), .denied, "a settings prompt"),
            (.inform(page), .authorized, "an information page"),
        ]
        for (action, status, what) in shown {
            let (kept, none) = Guardrail.apply(to: action, in: situation(status))
            #expect(kept == action && none.isEmpty, "\(what) in the foreground")
            let (returning, fine) = Guardrail.apply(to: action, in: situation(status, active: false))
            #expect(returning == action && fine.isEmpty, "\(what) heard on the return")
            var background = situation(status, active: false)
            background.runsInBackground = true
            let (voided, warnings) = Guardrail.apply(to: action, in: background)
            #expect(voided == .none)
            #expect(names(warnings) == ["app-not-active"])
            #expect(warnings.first?.message == "the app runs in the background, with no one to see \(what)")
        }
        var background = situation(.authorized, active: false)
        background.runsInBackground = true
        let (dismissed, none) = Guardrail.apply(to: .dismiss, in: background)
        #expect(dismissed == .dismiss && none.isEmpty)
    }

    @Test func theEventsAUserCauses() {
        let tapped: [AppEvent] = [
            .featureOpened("x"), .softPromptAnswered(.accept), .settingsPromptAnswered(.open), try! .custom("tapped"),
        ]
        let notTapped: [AppEvent] = [
            .appLaunch, .appForeground, .appBackground, .systemPromptAnswered(granted: false), .notificationSettingsOpened,
            .significantTimeChange(timeZone: TimeZone(identifier: "UTC")!), .backgroundRefresh,
        ]
        #expect(tapped.map(\.isUserInitiated) == [true, true, true, true])
        #expect(notTapped.map(\.isUserInitiated) == Array(repeating: false, count: notTapped.count))
    }

    @Test func settingsPromptAllowedWhenDeniedOrAlertsOff() {
        for (status, alert) in [(PermissionStatus.denied, SettingValue.disabled), (.authorized, .disabled), (.provisional, .disabled)] {
            let (action, warnings) = Guardrail.apply(
                to: .settingsPrompt(settingsPrompt), in: situation(status, alert: alert))
            #expect(action == .settingsPrompt(settingsPrompt))
            #expect(warnings.isEmpty)
        }
    }

    @Test(arguments: [("15.3", true), ("14.0", true), ("9.3", true), ("15.4", false), ("17.1", false)])
    func deepLinkFallback(os: String, fallsBack: Bool) {
        let (action, warnings) = Guardrail.apply(
            to: .settingsPrompt(settingsPrompt(.notificationSettings)), in: situation(.denied, os: os))
        #expect(action == .settingsPrompt(settingsPrompt(fallsBack ? .appSettings : .notificationSettings)))
        #expect(names(warnings) == (fallsBack ? ["deep-link-fallback"] : []))
    }

    @Test func promptCapCountsEveryKindOfPrompt() {
        let capped = situation(.notDetermined, promptsToday: 3)
        for action in [Decision.Action.softPrompt(softPrompt), .requestPermission(options: [.alert])] {
            let (result, warnings) = Guardrail.apply(to: action, in: capped)
            #expect(result == .none)
            #expect(names(warnings) == ["prompt-cap"])
        }
        let (result, warnings) = Guardrail.apply(to: .settingsPrompt(settingsPrompt), in: situation(.denied, promptsToday: 5))
        #expect(result == .none && names(warnings) == ["prompt-cap"])
        let (under, none) = Guardrail.apply(to: .softPrompt(softPrompt), in: situation(.notDetermined, promptsToday: 2))
        #expect(under == .softPrompt(softPrompt) && none.isEmpty)
    }

    @Test func aSilentProvisionalRequestIsNotAPrompt() {
        let (action, warnings) = Guardrail.apply(
            to: .requestPermission(options: [.provisional]), in: situation(.notDetermined, os: "13.0", promptsToday: 9))
        #expect(action == .requestPermission(options: [.provisional]))
        #expect(warnings.isEmpty)
    }

    @Test func onlyTheWarningThatVoidedIsReported() {
        // Unread and in the background and over the cap: the first rule voids, the rest stay silent.
        let (action, warnings) = Guardrail.apply(
            to: .requestPermission(options: [.provisional]), in: situation(.unknown, os: "11.0", active: false, promptsToday: 9))
        #expect(action == .none)
        #expect(names(warnings) == ["system-dialog-unavailable"])
        // A non-voiding warning is kept when a later rule voids.
        let (capped, both) = Guardrail.apply(
            to: .settingsPrompt(settingsPrompt(.notificationSettings)), in: situation(.denied, os: "14.0", promptsToday: 3))
        #expect(capped == .none)
        #expect(names(both) == ["deep-link-fallback", "prompt-cap"])
    }

    @Test func noneIsNeverTouched() {
        let (action, warnings) = Guardrail.apply(to: .none, in: situation(.denied, active: false, promptsToday: 99))
        #expect(action == .none && warnings.isEmpty)
    }
}
