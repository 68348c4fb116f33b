import Foundation

/// A delivered bundle the launch guard set aside: the app's process ended while it was
/// loading, installing or deciding, so it is revoked rather than run again (a policy that ends
/// the process at launch would otherwise end every launch). Saved with the source's state and
/// shown in `DeliveryStatus.setAside`.
public struct SetAsideBundle: Sendable, Hashable, Codable {
    /// The bundle's version.
    public var version: Int64
    /// Why, in a sentence for the log.
    public var reason: String
    /// When the launch after the process's end set it aside.
    public var time: Date

    /// A record of `version` set aside for `reason` at `time`.
    public init(version: Int64, reason: String, time: Date) {
        self.version = version
        self.reason = reason
        self.time = time
    }
}
