#if canImport(SwiftUI) && canImport(UIKit)
import PermitCore
import SwiftUI

/// The SwiftUI app (iOS 17+: Observation and `onChange(of:initial:_:)`), a thin shim over
/// `PermissionCoordinator` (examples/host), which holds the engine and the life-cycle logic
/// and is built and played with the package. Add examples/host/PermissionCoordinator.swift,
/// Shared/PermissionCoordinator+iOS.swift and this file to the app target.
@main
struct PermitDemoApp: App {
    @State private var permissions = PermissionCoordinator.forThisApp()
    @Environment(\.scenePhase) private var scenePhase

    var body: some Scene {
        WindowGroup {
            RemindersView().environment(permissions)
        }
        // The phase of the app's scenes together, the first one included (`initial: true`): a
        // cold start sends app_launch and app_foreground once each, a return from the
        // background app_foreground, and the system dialog's inactive moment nothing.
        .onChange(of: scenePhase, initial: true) { _, phase in
            permissions.phaseChanged(to: AppLifecycle.Phase(phase))
        }
    }
}

extension AppLifecycle.Phase {
    /// SwiftUI's phase, in the engine's words.
    init(_ phase: ScenePhase) {
        switch phase {
        case .active: self = .active
        case .inactive: self = .inactive
        case .background: self = .background
        @unknown default: self = .background
        }
    }
}

struct RemindersView: View {
    @Environment(PermissionCoordinator.self) private var permissions

    var body: some View {
        Text("Reminders (notifications: \(permissions.status.rawValue))")
            .onAppear { permissions.featureOpened("reminders") }  // held until app_launch is out
            .alert(text(permissions.softPrompt?.title), isPresented: .constant(permissions.softPrompt != nil)) {
                Button(text(permissions.softPrompt?.accept)) { permissions.answerSoftPrompt(.accept) }
                Button(text(permissions.softPrompt?.decline), role: .cancel) { permissions.answerSoftPrompt(.decline) }
            } message: {
                Text(text(permissions.softPrompt?.message))
            }
            .alert(text(permissions.settingsPrompt?.title), isPresented: .constant(permissions.settingsPrompt != nil)) {
                Button(text(permissions.settingsPrompt?.open)) { permissions.answerSettingsPrompt(.open) }
                Button(text(permissions.settingsPrompt?.cancel), role: .cancel) { permissions.answerSettingsPrompt(.cancel) }
            } message: {
                Text(text(permissions.settingsPrompt?.message))
            }
            .alert(text(permissions.informPage?.title), isPresented: .constant(permissions.informPage != nil)) {
                Button(text(permissions.informPage?.button)) { permissions.answerInform(.ok) }
            } message: {
                Text(text(permissions.informPage?.message))
            }
    }

    /// Outcome texts are already localised by the engine.
    private func text(_ value: LocalizedText?) -> String { value?.description ?? "" }
}
#endif
