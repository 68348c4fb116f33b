import Foundation
import PermitCore
import Testing

@testable import PermitDelivery

@Suite struct BundleFormatTests {
    let key = BundleSigningKey()

    @Test func genuineBundleVerifiesAndRoundTrips() throws {
        let data = try bundle(3, taggedPolicy("v3"), key: key, expires: start.addingTimeInterval(86400))
        let parsed = try PolicyBundle(data: data)
        #expect(parsed.encoded() == data)
        let verified = try parsed.verify(trust: .keys([key.publicKey]), now: start)
        #expect(verified.manifest.pack == "demo")
        #expect(verified.manifest.version == 3)
        #expect(verified.manifest.minimumEngine == .current)
        #expect(verified.manifest.createdAt == start)
        #expect(verified.manifest.expiresAt == start.addingTimeInterval(86400))
        #expect(verified.signer == key.keyID)
        #expect(verified.policySource == taggedPolicy("v3"))
        #expect(verified.manifest.files["policy.lua"]?.sha256 == PolicyBundle.sha256(Data(taggedPolicy("v3").utf8)))
    }

    @Test func oneFlippedByteAnywhereIsRefused() throws {
        // The smallest policy that installs: every part of the format is still there (manifest,
        // both files, signature), and each flip costs a signature check, so fewer bytes of
        // policy text mean fewer checks that test nothing new.
        let data = try bundle(3, "return { name = 'v3', decide = function() end }", key: key, expires: start.addingTimeInterval(86400))
        let trust = BundleTrust.keys([key.publicKey])
        // Flips that went unnoticed, gathered and asserted once (an expectation per flip cost
        // more than the verification).
        var unnoticed: [String] = []
        for index in data.indices {
            for mask: UInt8 in [0x01, 0x20, 0x80] {
                var tampered = data
                tampered[index] ^= mask
                let accepted = (try? PolicyBundle(data: tampered).verify(trust: trust, now: start)) != nil
                if accepted { unnoticed.append("mask \(mask) of byte \(index)") }
            }
        }
        #expect(unnoticed.isEmpty, "flips that went unnoticed: \(unnoticed.prefix(10))")
        // And through the source an app uses: every tampered copy refused, the genuine one installs.
        let source = try source(key: key)
        var installed: [Int] = []
        for index in stride(from: 0, to: data.count, by: 7) {
            var tampered = data
            tampered[index] ^= 0x01
            // `install` throws only BundleError (typed), so a refusal is the bundle's own.
            if (try? source.install(tampered)) != nil { installed.append(index) }
        }
        #expect(installed.isEmpty, "tampered copies installed (flipped byte): \(installed.prefix(10))")
        #expect(source.status.serving == .builtIn(name: "builtin"))
        try source.install(data)
        #expect(source.status.serving.version == 3)
    }

    @Test func eachReasonIsNamed() throws {
        let trust = BundleTrust.keys([key.publicKey])
        let other = BundleSigningKey()
        // Unsigned, and signed by a key that is not trusted.
        expectRefusal(.unsigned) { _ = try PolicyBundle(data: bundle(1, taggedPolicy("a"))).verify(trust: trust, now: start) }
        expectRefusal(.unknownKeyID) {
            _ = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: other)).verify(trust: trust, now: start)
        }
        // A signature moved onto another manifest: the key id is trusted, the signature does not match.
        var forged = try PolicyBundle(data: bundle(2, taggedPolicy("evil")))
        forged.signature = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key)).signature
        expectRefusal(.badSignature) { _ = try forged.verify(trust: trust, now: start) }
        // A file swapped under an intact signed manifest.
        var swapped = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key))
        swapped.files["policy.lua"] = Data(taggedPolicy("evil").utf8)
        let mismatch = expectRefusal(.fileHashMismatch) { _ = try swapped.verify(trust: trust, now: start) }
        #expect(mismatch?.description.contains("policy.lua") == true)
        // Expired, and too new an engine needed.
        let expiring = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key, expires: start.addingTimeInterval(60)))
        _ = try expiring.verify(trust: trust, now: start.addingTimeInterval(59))
        expectRefusal(.expired) { _ = try expiring.verify(trust: trust, now: start.addingTimeInterval(60)) }
        let future = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key, minimumEngine: EngineVersion(9, 0, 0)))
        let engine = expectRefusal(.engineTooOld) { _ = try future.verify(trust: trust, now: start) }
        #expect(engine?.description.contains("9.0.0") == true)
        // An empty key list is not "no checking": it refuses everything.
        expectRefusal(.noTrustedKeys) {
            _ = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key)).verify(trust: .keys([]), now: start)
        }
        // Not a bundle at all.
        expectRefusal(.malformed) { _ = try PolicyBundle(data: Data("{\"format\":\"zip\"}".utf8)) }
    }

    @Test func strippedSignatureIsRefusedWhenKeysAreConfigured() throws {
        var stripped = try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key))
        stripped.signature = nil
        expectRefusal(.unsigned) { _ = try stripped.verify(trust: .keys([key.publicKey]), now: start) }
        let source = try source(key: key)
        expectRefusal(.unsigned) { try source.install(stripped.encoded()) }
        #expect(source.status.serving == .builtIn(name: "builtin"))
        // Development trust takes it (and still checks the hashes).
        _ = try stripped.verify(trust: .unsignedForDevelopment, now: start)
    }

    @Test func keysRoundTripThroughTheirTextForm() throws {
        let restored = try BundleSigningKey(text: key.text)
        #expect(restored.keyID == key.keyID)
        #expect(try BundlePublicKey(text: key.publicKey.text) == key.publicKey)
        #expect(throws: KeyFileError.self) { try BundleSigningKey(text: key.publicKey.text) }
        // A key id edited to impersonate another key is caught.
        let edited = key.publicKey.text.replacingOccurrences(of: key.keyID.hex, with: BundleSigningKey().keyID.hex)
        #expect(throws: KeyFileError.self) { try BundlePublicKey(text: edited) }
    }
}
