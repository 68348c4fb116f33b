#if canImport(UIKit)
import PermitCore
import UIKit

/// The UIKit app, scene-based as Xcode's template makes it: the app delegate owns the
/// coordinator (examples/host/PermissionCoordinator.swift, built and played with the package)
/// and names the scene delegate; iOS calls no `applicationWillEnterForeground` in such an app,
/// so the life cycle comes from the scene delegate. Add examples/host/PermissionCoordinator.swift,
/// Shared/PermissionCoordinator+iOS.swift and the two files of this folder to the app target.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    let permissions = PermissionCoordinator.forThisApp(onPresent: Alerts.present)

    func application(
        _ application: UIApplication, configurationForConnecting session: UISceneSession, options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(name: nil, sessionRole: session.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }
}

/// Every scene reports its own transitions; the coordinator counts the app as in the foreground
/// while one scene is, so a cold start sends app_launch and app_foreground once each, and a
/// second window (iPad) sends nothing.
final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    private var permissions: PermissionCoordinator { (UIApplication.shared.delegate as! AppDelegate).permissions }

    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options: UIScene.ConnectionOptions) {
        guard let scene = scene as? UIWindowScene else { return }
        let window = UIWindow(windowScene: scene)
        window.rootViewController = RemindersViewController()
        window.makeKeyAndVisible()
        self.window = window
    }

    func sceneWillEnterForeground(_ scene: UIScene) { permissions.sceneWillEnterForeground(ObjectIdentifier(scene)) }
    func sceneDidEnterBackground(_ scene: UIScene) { permissions.sceneLeftForeground(ObjectIdentifier(scene)) }
    func sceneDidDisconnect(_ scene: UIScene) { permissions.sceneLeftForeground(ObjectIdentifier(scene)) }
}

/// A screen that needs notifications.
final class RemindersViewController: UIViewController {
    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        (UIApplication.shared.delegate as? AppDelegate)?.permissions.featureOpened("reminders")
    }
}

/// Draws the coordinator's prompts as alerts on the front view controller of the active scene.
@MainActor enum Alerts {
    static func present(_ permissions: PermissionCoordinator) {
        if let prompt = permissions.softPrompt {
            show(title: prompt.title, message: prompt.message, actions: [
                (prompt.decline.description, .cancel, { permissions.answerSoftPrompt(.decline) }),
                (prompt.accept.description, .default, { permissions.answerSoftPrompt(.accept) }),
            ])
        } else if let prompt = permissions.settingsPrompt {
            show(title: prompt.title, message: prompt.message, actions: [
                (prompt.cancel.description, .cancel, { permissions.answerSettingsPrompt(.cancel) }),
                (prompt.open.description, .default, { permissions.answerSettingsPrompt(.open) }),
            ])
        } else if let page = permissions.informPage {
            show(title: page.title, message: page.message ?? .plain(""), actions: [
                (page.button?.description ?? "OK", .default, { permissions.answerInform(.ok) }),
            ])
        }
    }

    private static func show(title: LocalizedText, message: LocalizedText, actions: [(String, UIAlertAction.Style, @MainActor () -> Void)]) {
        let scene = UIApplication.shared.connectedScenes
            .compactMap { $0 as? UIWindowScene }
            .first { $0.activationState == .foregroundActive }
        var front = scene?.keyWindow?.rootViewController
        while let presented = front?.presentedViewController { front = presented }
        let alert = UIAlertController(title: title.description, message: message.description, preferredStyle: .alert)
        for (label, style, handler) in actions {
            alert.addAction(UIAlertAction(title: label, style: style) { _ in handler() })
        }
        front?.present(alert, animated: true)
    }
}
#endif
