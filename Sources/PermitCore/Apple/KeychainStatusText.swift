/// What a Keychain result code means, in words an app's log can act on.
///
/// Cross-platform (the codes are plain integers), so the mapping is tested on Linux; the
/// Keychain shim passes every failure through it. The codes are `OSStatus` values from
/// Security's `SecBase.h`.
public enum KeychainStatusText {
    /// `errSecItemNotFound`: no item yet; not an error for a load.
    public static let itemNotFound: Int32 = -25300
    /// `errSecDuplicateItem`: an add raced another writer.
    public static let duplicateItem: Int32 = -25299
    /// `errSecInteractionNotAllowed`: the device is locked and the item is not readable yet.
    public static let interactionNotAllowed: Int32 = -25308
    /// `errSecMissingEntitlement`: the app lacks a keychain access group (common in unsigned test hosts).
    public static let missingEntitlement: Int32 = -34018

    /// A sentence for `status`, with what to do where there is something to do.
    public static func describe(_ status: Int32) -> String {
        switch status {
        case itemNotFound: "no durable ledger is stored yet"
        case duplicateItem: "another writer added the item at the same time; the next save updates it"
        case interactionNotAllowed:
            "the Keychain is not readable before the device's first unlock; the next event after unlock retries"
        case missingEntitlement:
            "the app has no keychain access group (OSStatus -34018); sign the app with a team, or pass no durable store"
        default: "the Keychain refused with OSStatus \(status)"
        }
    }
}
