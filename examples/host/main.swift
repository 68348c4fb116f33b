// A host application configuring Permit: budgets, prompt cap, store location.
//
// Built with the package (`swift build --product permit-host-example`) so this example can
// never drift from the API; `AppPermissions.swift` is the README's code, and
// `PermissionCoordinator.swift` the iOS examples' model (examples/ios), both played at the end.
// Run it with `swift run permit-host-example`: it plays a short
// session on a simulated iOS 15.3 device and prints what the app would show.
import Foundation
import PermitCore
import PermitLua
import PermitSimulator

// 1. Budgets for the policy's VM. The defaults (LuaLimits.default) are sized for an app from
//    the shipped packs, which use a fraction of a millisecond and under 80 KiB per call; a
//    host may set its own.
let limits = LuaLimits(
    instructionsPerCall: 2_000_000,  // an endless loop ends in a typed error after this many
    timeLimitMilliseconds: 50,  // no call stalls an event for longer
    memoryBytes: 4 << 20  // the VM's memory cap
)

// 2. The policy: the app's built-in pack (an app would ship it in its bundle).
let packDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("policies/polite")
let policy: LuaPolicy
do {
    policy = try LuaPolicy.load(
        contentsOf: packDirectory.appendingPathComponent("policy.lua"), displayName: "polite/policy.lua", limits: limits)
} catch {
    FileHandle.standardError.write(Data("policy failed to load: \(error)\n".utf8))
    exit(2)
}

// 3. Where the asking history lives: a JSON file in Application Support on a device; a
//    temporary directory here. Writes are atomic; a damaged file is set aside and reported.
let storeURL = FileManager.default.temporaryDirectory
    .appendingPathComponent("permit-host-example-\(ProcessInfo.processInfo.processIdentifier)/ledger.json")
let store: JSONFileLedgerStore
do { store = try JSONFileLedgerStore(url: storeURL) } catch {
    FileHandle.standardError.write(Data("ledger store: \(error)\n".utf8))  // e.g. another engine holds it
    exit(2)
}

// 4. The engine's own settings: at most two prompts a local day, Chinese copy, Taipei time,
//    a param override for this app.
let configuration = EngineConfiguration(
    maxPromptsPerDay: 2,
    locale: "zh-Hans",
    timeZone: TimeZone(identifier: "Asia/Taipei")!,
    userBucket: 17,
    params: ["max_soft_prompts": .integer(2)]
)
do { try policy.validate(params: configuration.params) } catch {
    FileHandle.standardError.write(Data("bad params: \(error)\n".utf8))
    exit(2)
}

// 5. The device: on iOS this is `UserNotificationCenterClient`; here a simulated iOS 15.3.
let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
let platform = Platform(version: try! OSVersion(parsing: "15.3"))
let device = try! SimulatedDevice(platform: platform, clock: clock)
let engine = PermissionEngine(
    policy: policy, client: device, platform: platform, store: store, clock: clock, configuration: configuration)
for warning in engine.storeWarnings { print("store: \(warning)") }

let statusTask = Task {
    for await status in engine.statusStream { print("  [status stream] \(status)") }
}

func show(_ outcome: Outcome) {
    let decision = outcome.decision
    switch decision.action {
    case .none: print("\(outcome.event): nothing to show" + (decision.reason.map { " (\($0))" } ?? ""))
    case .softPrompt(let prompt):
        print("\(outcome.event): soft prompt \"\(prompt.title)\" [\(prompt.accept) | \(prompt.decline ?? .plain("-"))]")
    case .requestPermission: print("\(outcome.event): system dialog " + (outcome.dialogShown ? "on screen" : "not shown"))
    case .settingsPrompt(let prompt): print("\(outcome.event): settings prompt → \(prompt.deepLink.rawValue)")
    case .openSettings(let deepLink): print("\(outcome.event): open Settings → \(deepLink.rawValue)")
    case .inform(let page): print("\(outcome.event): page \"\(page.title)\" [\(page.button ?? .plain("-"))]")
    case .dismiss: print("\(outcome.event): off screen")
    }
    for warning in outcome.warnings { print("  warning \(warning)") }
    for followUp in outcome.followUps { show(followUp) }  // the policy's reaction to an instant answer
    for error in outcome.errors { print("  error \(error)") }
}

show(await engine.handle(.appLaunch))
show(await engine.handle(.featureOpened("reminders")))
show(await engine.handle(.softPromptAnswered(.accept)))
let granted = try! device.answerDialog(allow: false)
show(await engine.handle(.systemPromptAnswered(granted: granted)))
clock.advance(by: 3 * 86400)
show(await engine.handle(.featureOpened("reminders")))
print("ledger saved to \(storeURL.path): launches \(await engine.history.launches), prompts today \(await engine.history.promptsToday)")
statusTask.cancel()

// 6. The same flow as an app writes it: `AppPermissions`, the README's code, on a simulated
//    device standing in for iOS (`UserNotificationCenterClient.swift`).
print("-- as the README's app --")
let appLedger = FileManager.default.temporaryDirectory
    .appendingPathComponent("permit-host-app-\(ProcessInfo.processInfo.processIdentifier)/ledger.json")
let app: AppPermissions
do {
    app = try await AppPermissions(
        policyURL: packDirectory.appendingPathComponent("policy.lua"), ledgerURL: appLedger, systemVersion: "16.4")
} catch {
    FileHandle.standardError.write(Data("app setup failed: \(error)\n".utf8))
    exit(2)
}
let watcher = app.watchStatus { print("  [app status] \($0)") }
await app.handle(.appLaunch)
await app.handle(.featureOpened("reminders"))
await app.handle(.softPromptAnswered(.accept))
try! UserNotificationCenterClient.last.current?.userTaps(allow: true)  // the answer arrives later
while app.engine?.status != .authorized { await Task.yield() }
print("app: notifications \(app.engine?.status == .authorized ? "allowed" : "not allowed")")
watcher?.cancel()

// 7. The iOS examples' model (examples/ios), whose SwiftUI and UIKit shims only forward the life
//    cycle and draw its prompts: a cold start (the scene goes inactive, then active) sends
//    app_launch and app_foreground once each; a screen that needs notifications opens.
print("-- as the iOS examples' coordinator --")
let coordinator = PermissionCoordinator(
    policyURL: packDirectory.appendingPathComponent("policy.lua"),
    ledgerURL: FileManager.default.temporaryDirectory
        .appendingPathComponent("permit-host-coordinator-\(ProcessInfo.processInfo.processIdentifier)/ledger.json"),
    systemVersion: "17.5", locale: "en", durableStore: nil,
    actions: .init(
        registerForRemoteNotifications: { print("app registers for remote notifications") },
        openSettings: { print("app opens Settings → \($0.rawValue)") }))
await coordinator.phaseChanged(to: .inactive).value
await coordinator.phaseChanged(to: .active).value
await coordinator.featureOpened("reminders").value
print("app shows: \(coordinator.softPrompt.map { "\"\($0.title)\"" } ?? "nothing") (notifications: \(coordinator.status))")
