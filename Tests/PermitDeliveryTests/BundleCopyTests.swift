import Foundation
import PermitCore
import PermitLua
import Testing

@testable import PermitDelivery

/// A pack's copy travels in its bundle as `copy.json`, under the signature; a bundle without
/// one (made before packs had copy) still loads.
@Suite struct BundleCopyTests {
    let key = BundleSigningKey()
    static let copy = try! PolicyCopy(locales: ["en": ["hello": "Hello"], "de": ["hello": "Hallo"]])
    static let policy =
        #"return { name = "copy", decide = function(ctx) return { action = "none", reason = permit.copy("hello").de } end }"#

    func signed(copy: PolicyCopy? = copy) throws -> PolicyBundle {
        try PolicyBundle.make(
            pack: "demo", version: 2, createdAt: start, policy: Data(Self.policy.utf8), params: Data("{}".utf8),
            copy: copy?.encoded()
        ).signed(with: key)
    }

    @Test func theCopyIsBundledSignedAndServed() throws {
        let data = try signed().encoded()
        let verified = try PolicyBundle(data: data).verify(trust: .keys([key.publicKey]), now: start)
        #expect(verified.copy == Self.copy)
        #expect(verified.manifest.files.keys.sorted() == ["copy.json", "params.json", "policy.lua"])
        let source = try source(key: key)
        _ = try source.install(data)
        let context = PolicyContext(
            event: .appLaunch, status: .authorized, previousStatus: .authorized,
            settings: .typical(for: .authorized, on: try OSVersion(parsing: "17.0")),
            platform: Platform(version: try OSVersion(parsing: "17.0")), history: Ledger(), now: 1_767_600_000)
        #expect(try source.decide(context)?.reason == "Hallo")
    }

    /// A changed byte of the copy breaks its hash, which the signature covers.
    @Test func aChangedCopyIsRefused() throws {
        var bundle = try signed()
        bundle.files["copy.json"] = PolicyCopy.empty.encoded()
        let data = bundle.encoded()
        expectRefusal(.fileHashMismatch) { _ = try PolicyBundle(data: data).verify(trust: .keys([key.publicKey]), now: start) }
        var dropped = try signed()
        dropped.files["copy.json"] = nil
        let without = dropped.encoded()
        expectRefusal(.fileHashMismatch) { _ = try PolicyBundle(data: without).verify(trust: .keys([key.publicKey]), now: start) }
    }

    @Test func aBundleWithoutCopyStillLoads() throws {
        let verified = try PolicyBundle(data: try signed(copy: nil).encoded()).verify(trust: .keys([key.publicKey]), now: start)
        #expect(verified.copy.isEmpty)
        #expect(verified.manifest.files.keys.sorted() == ["params.json", "policy.lua"])
    }

    /// A copy past its bounds is refused when the bundle is verified, before any VM holds it.
    @Test func aCopyOverItsBoundsIsRefused() throws {
        let bundle = try PolicyBundle.make(
            pack: "demo", version: 2, createdAt: start, policy: Data(Self.policy.utf8), params: Data("{}".utf8),
            copy: Data(#"{"en":{"bad key":"x"}}"#.utf8)
        ).signed(with: key)
        let data = bundle.encoded()
        let error = expectRefusal(.policyInvalid) { _ = try PolicyBundle(data: data).verify(trust: .keys([key.publicKey]), now: start) }
        #expect(error?.description.contains("copy.json") == true)
    }
}
