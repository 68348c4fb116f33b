/// The app as a policy sees it (`ctx.app`): its version, what a "what's new" page or a prompt
/// for a feature added in this release needs, and its name, which copy fills in where a text
/// names the app, without the app sending either by hand.
public struct AppInfo: Sendable, Hashable {
    /// The version the host gave (`EngineConfiguration.appVersion`): `ctx.app.version`.
    public var version: String?
    /// The version seen before this one, in the first process after an update (the engine
    /// compares the host's version with the one its ledger last saw): `ctx.app.previous_version`.
    /// `nil` in every other process, and on a fresh install.
    public var previousVersion: String?
    /// The app's name as its users see it (`EngineConfiguration.appName`): `ctx.app.name`.
    /// `nil` when the host did not say.
    public var name: String?

    /// The app named `name` at `version`, updated from `previousVersion` when it is given.
    public init(version: String? = nil, previousVersion: String? = nil, name: String? = nil) {
        self.version = version
        self.previousVersion = previousVersion
        self.name = name
    }
}
