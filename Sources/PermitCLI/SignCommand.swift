import ArgumentParser
import Foundation
import PermitCore
import PermitDelivery

struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a policy bundle with a private key.",
        discussion: """
            Checks that the bundle is whole (canonical form, each file matching the manifest's \
            SHA-256) and not expired, then signs its manifest with Ed25519, replacing any earlier \
            signature. Writes in place unless --out is given.

            Example:
              permit sign polite-7.permitbundle --key keys/release.key
            """)

    @Argument(help: "The bundle file.")
    var file: String

    @Option(help: "The private key (NAME.key from permit keygen).")
    var key: String

    @Option(help: "Write the signed bundle here instead of over FILE.")
    var out: String?

    func run() async throws {
        let signingKey: BundleSigningKey
        do {
            signingKey = try BundleSigningKey.read(contentsOf: Terminal.file(key))
        } catch {
            Terminal.printError("--key \(error)")
            throw Exit.badInput
        }
        let signed: PolicyBundle
        let manifest: BundleManifest
        do {
            let bundle = try PolicyBundle.read(contentsOf: Terminal.file(file))
            manifest = try BundleManifest.decode(bundle.manifestBytes)
            if let expiry = manifest.expiresAt, expiry <= Date() {
                throw BundleError(.expired, "the bundle expired at \(InternetDateTime.string(from: expiry)); build a new one")
            }
            signed = try bundle.signed(with: signingKey)
        } catch {
            Terminal.printError("\(file): not signed: \(error)")
            throw Exit.badInput
        }
        try writeAtomically(signed.encoded(), to: out ?? file)
        Terminal.say("signed \(manifest.pack) version \(manifest.version) with key \(signingKey.keyID) → \(out ?? file)")
    }
}
