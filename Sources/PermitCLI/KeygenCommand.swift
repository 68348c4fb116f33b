import ArgumentParser
import Foundation
import PermitDelivery

struct KeygenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair for signing policy bundles.",
        discussion: """
            Writes NAME.key (the private key, mode 0600: keep it in your CI's secret store, never in \
            the app or in git) and NAME.pub (the public key the app trusts). Prints the key id, \
            derived from the public key, that signatures name. Refuses to overwrite existing files.

            Example:
              permit keygen --out keys/release
            """)

    @Option(help: "Path and base name of the key files: NAME.key and NAME.pub.")
    var out: String

    func run() async throws {
        let privatePath = out + ".key", publicPath = out + ".pub"
        for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: Terminal.file(path).path) {
            Terminal.printError("\(path) exists; refusing to overwrite a key (move it away or pick another --out)")
            throw Exit.badInput
        }
        let key = BundleSigningKey()
        // Created with their final modes (the private key 0600 from its first byte), flushed to
        // the disk, and never over a file that appeared since the check above.
        try writeAtomically(Data(key.text.utf8), to: privatePath, permissions: 0o600, replacing: false)
        try writeAtomically(Data(key.publicKey.text.utf8), to: publicPath, permissions: 0o644, replacing: false)
        Terminal.say("key id \(key.keyID)")
        Terminal.say("private key \(privatePath) (keep it secret)")
        Terminal.say("public key  \(publicPath) (give it to the app as a trusted key)")
    }
}
