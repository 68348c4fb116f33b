/// The app's own version as a policy sees it (`ctx.app`): what a "what's new" page or a
/// prompt for a feature added in this release needs, without the app sending it by hand.
public struct AppInfo: Sendable, Hashable {
    /// The version the host gave (`EngineConfiguration.appVersion`): `ctx.app.version`.
    public var version: String?
    /// The version seen before this one, in the first process after an update (the engine
    /// compares the host's version with the one its ledger last saw): `ctx.app.previous_version`.
    /// `nil` in every other process, and on a fresh install.
    public var previousVersion: String?

    /// The app at `version`, updated from `previousVersion` when it is given.
    public init(version: String? = nil, previousVersion: String? = nil) {
        self.version = version
        self.previousVersion = previousVersion
    }
}
