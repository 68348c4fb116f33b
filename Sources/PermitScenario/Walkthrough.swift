import Foundation
import PermitCore

/// Scripted stories through the engine and a simulated device, for `permit demo` and the
/// README's tour.
public struct Walkthrough: Sendable {
    public enum Step: Sendable {
        case event(AppEvent)
        case wait(TimeInterval)
        case answerDialog(allow: Bool)
        case changeInSettings(PermissionStatus)
        case reinstall(systemRemembers: Bool)
    }

    public let title: String
    public let os: String
    public let authorization: PermissionStatus?
    public let steps: [Step]

    /// Runs the story and returns the timeline, one entry per event.
    public func run(policy: any Policy = Walkthrough.politePolicy) async throws -> [String] {
        let start = Date(timeIntervalSince1970: 1_767_600_000)
        let clock = ManualClock(start)
        let platform = Platform(version: try OSVersion(parsing: os))
        let device = try SimulatedDevice(platform: platform, clock: clock, authorization: authorization)
        var store = InMemoryLedgerStore()
        let configuration = EngineConfiguration(timeZone: TimeZone(identifier: "UTC")!, foregroundRechecks: [])
        var engine = PermissionEngine(
            policy: policy, client: device, platform: platform, store: store, clock: clock, configuration: configuration)
        let formatter = TimelineFormatter(start: Int64(start.timeIntervalSince1970))
        var lines: [String] = []
        for step in steps {
            switch step {
            case .event(let event):
                if event == .appBackground { device.isInForeground = false }
                if event == .appForeground || event == .appLaunch { device.isInForeground = true }
                lines.append(formatter.line(for: await engine.handle(event)))
            case .wait(let seconds):
                clock.advance(by: seconds)
            case .answerDialog(let allow):
                let granted = try device.answerDialog(allow: allow)
                lines.append(formatter.line(for: await engine.handle(.systemPromptAnswered(granted: granted))))
            case .changeInSettings(let status):
                try device.changeInSettings(authorization: status)
                lines.append(String(repeating: " ", count: 9) + "(in Settings, the user switches notifications to \(status))")
            case .reinstall(let remembers):
                device.reinstall(systemRemembers: remembers)
                store = InMemoryLedgerStore()
                engine = PermissionEngine(
                    policy: policy, client: device, platform: platform, store: store, clock: clock,
                    configuration: configuration)
                lines.append(String(repeating: " ", count: 9)
                    + "(the app is reinstalled; the system \(remembers ? "remembers" : "forgets") the old answer)")
            }
        }
        return lines
    }

    public static let all: [Walkthrough] = [
        Walkthrough(
            title: "iOS 16: a soft prompt in context, then the system dialog", os: "16.4", authorization: nil,
            steps: [
                .event(.appLaunch), .wait(300), .event(.featureOpened("reminders")),
                .event(.softPromptAnswered(.accept)), .answerDialog(allow: true), .wait(86400), .event(.appForeground),
            ]),
        Walkthrough(
            title: "iOS 9: denied, then enabled in Settings", os: "9.3", authorization: nil,
            steps: [
                .event(.appLaunch), .wait(300), .event(.featureOpened("reminders")),
                .event(.softPromptAnswered(.accept)), .answerDialog(allow: false), .wait(3 * 86400),
                .event(.featureOpened("reminders")), .event(.settingsPromptAnswered(.open)), .event(.appBackground),
                .changeInSettings(.authorized), .event(.appForeground),
            ]),
        Walkthrough(
            title: "iOS 9: reinstalled, the system remembers the denial", os: "9.3", authorization: .denied,
            steps: [.event(.appLaunch), .event(.featureOpened("reminders")), .event(.softPromptAnswered(.accept))]),
    ]

    /// A polite policy written in Swift (the Lua policy packs replace it).
    public static let politePolicy = ClosurePolicy(name: "polite", decide: { ctx in
        let soft = SoftPrompt(
            title: .translations(["en": "Never miss a reminder", "zh-Hans": "不错过任何提醒"]),
            message: .translations(["en": "Allow notifications so we can remind you.", "zh-Hans": "允许通知，我们才能提醒你。"]),
            accept: .translations(["en": "Allow", "zh-Hans": "允许"]),
            decline: .translations(["en": "Not now", "zh-Hans": "以后再说"]))
        let settings = SettingsPrompt(
            title: .plain("Notifications are off"), message: .plain("Turn them on in Settings to get reminders."),
            open: .plain("Open Settings"), cancel: .plain("Not now"), deepLink: .notificationSettings)
        switch (ctx.event, ctx.status) {
        case (.featureOpened, .notDetermined):
            return Decision(.softPrompt(soft), reason: "a feature that needs notifications opened")
        case (.softPromptAnswered(.accept), _):
            return Decision(.requestPermission(options: [.alert, .sound, .badge]), reason: "the user accepted the soft prompt")
        case (.featureOpened, .denied):
            guard permitSince(ctx, ctx.history.settingsPrompt.lastShownAt) >= 3 * 86400 else {
                return Decision(.none, reason: "asked to open Settings less than 3 days ago")
            }
            return Decision(.settingsPrompt(settings), reason: "denied earlier; the feature needs notifications")
        default:
            return nil
        }
    }, planReminders: { _ in
        [9, 14, 20].map { ReminderRequest(day: 1, hour: $0, title: .plain("How are you?"), body: .plain("Track your mood")) }
    })

    private static func permitSince(_ ctx: PolicyContext, _ time: Int64?) -> Int64 {
        time.map { ctx.now - $0 } ?? .max
    }
}
