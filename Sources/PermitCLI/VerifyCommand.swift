import ArgumentParser
import Foundation
import PermitCore
import PermitDelivery

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that a policy bundle is genuine, as an app would.",
        discussion: """
            Exit 0 when the bundle is genuine: signed by one of the keys, every file matching the \
            manifest's SHA-256, not expired, and runnable by this engine. Exit 2 otherwise, saying \
            exactly why: bad signature, unknown key id, unsigned, file hash mismatch, expired, too \
            new an engine needed, or a malformed bundle. With --pack, a bundle of another pack is \
            refused too.

            Example:
              permit verify polite-7.permitbundle --public-key keys/release.pub
            """)

    @Argument(help: "The bundle file.")
    var file: String

    @Option(name: .customLong("public-key"), help: "A trusted public key (NAME.pub); repeatable.")
    var publicKeys: [String] = []

    @Option(help: "The pack the bundle must be for.")
    var pack: String?

    func validate() throws {
        guard !publicKeys.isEmpty else { throw ValidationError("give at least one --public-key") }
    }

    func run() async throws {
        var keys: [BundlePublicKey] = []
        for path in publicKeys {
            do {
                keys.append(try BundlePublicKey.read(contentsOf: Terminal.file(path)))
            } catch {
                Terminal.printError("--public-key \(error)")
                throw Exit.badInput
            }
        }
        do {
            let bundle = try PolicyBundle.read(contentsOf: Terminal.file(file))
            let verified = try bundle.verify(trust: .keys(keys), now: Date())
            let manifest = verified.manifest
            if let pack, manifest.pack != pack {
                throw BundleError(.wrongPack, "the bundle is for pack \(manifest.pack), not \(pack)")
            }
            Terminal.say(
                "genuine: \(manifest.pack) version \(manifest.version), signed by key \(verified.signer?.hex ?? "?"), "
                    + "created \(InternetDateTime.string(from: manifest.createdAt)), "
                    + (manifest.expiresAt.map { "expires \(InternetDateTime.string(from: $0))" } ?? "no expiry")
                    + ", min engine \(manifest.minimumEngine)")
            for name in manifest.files.keys.sorted() {
                Terminal.say("  \(name)  sha256 \(manifest.files[name]!.sha256)  \(manifest.files[name]!.size) bytes")
            }
        } catch {
            Terminal.printError("\(file): not genuine: \(error)")
            throw Exit.badInput
        }
    }
}
