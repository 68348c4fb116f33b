import ArgumentParser
import Foundation
import PermitCore
import PermitDelivery
import PermitScenario

struct BundleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Package a tested policy pack as a bundle an app can install at run time.",
        discussion: """
            Runs the pack's tests first and refuses to bundle a pack whose tests fail (or that has \
            none). The bundle holds policy.lua, params.json (the params the policy declares) and a \
            manifest with the pack name, the version, the minimum engine, the creation time, the \
            optional expiry and the SHA-256 of each file. Sign it with --key here or with \
            `permit sign` later; an app with trusted keys refuses unsigned bundles. See docs/bundles.md.

            Examples:
              permit bundle policies/polite --version 7 --out polite-7.permitbundle
              permit bundle policies/polite --version 8 --expires-in 30d --key keys/release.key --out polite-8.permitbundle
            """)

    @Argument(help: "The pack directory (policy.lua and tests/).")
    var pack: String

    @Option(help: "Where to write the bundle.")
    var out: String

    @Option(help: "The bundle version: a whole number greater than every version published before.")
    var version: Int64

    @Option(help: "The oldest engine that may run the bundle (MAJOR.MINOR.PATCH).")
    var minEngine: String = EngineVersion.current.description

    @Option(help: "Refuse the bundle after this long: 30s, 5m, 2h, 3d, 1d12h.")
    var expiresIn: String?

    @Option(help: "Sign with this private key (from permit keygen).")
    var key: String?

    func validate() throws {
        guard version >= 1 else { throw ValidationError("--version must be at least 1") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: pack).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            Terminal.printError("\(pack): not a pack directory (a pack holds policy.lua and tests/)")
            throw Exit.badInput
        }
        let policyFile = try policyURL(pack)
        let packName = directory.lastPathComponent
        guard BundleManifest.isValidPackName(packName) else {
            Terminal.printError("\(pack): \"\(packName)\" cannot be a pack name (letters, digits, - _ . ; at most 64)")
            throw Exit.badInput
        }
        guard let engine = EngineVersion(minEngine) else {
            Terminal.printError("--min-engine: \"\(minEngine)\" is not a version like \(EngineVersion.current)")
            throw Exit.badInput
        }
        var expiry: Date?
        if let expiresIn {
            guard let seconds = BundleDuration.seconds(expiresIn), seconds > 0 else {
                Terminal.printError("--expires-in: \"\(expiresIn)\" is not a duration; use e.g. 30d, 12h, 1d12h")
                throw Exit.badInput
            }
            expiry = Date(timeIntervalSinceNow: TimeInterval(seconds))
        }
        let signingKey = try key.map { path in
            do { return try BundleSigningKey.read(contentsOf: URL(fileURLWithPath: path)) } catch {
                Terminal.printError("--key \(error)")
                throw Exit.badInput
            }
        }
        let policy = try loadPolicy(policyFile)

        // The tests gate the bundle.
        let files: [ScenarioFile]
        do {
            files = try Discovery.scenarios(under: [pack])
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
        guard !files.isEmpty else {
            Terminal.printError("no scenarios found under \(pack)/tests; a pack is bundled only when its tests pass, so add some")
            throw Exit.badInput
        }
        let run = await TestRun.run(files, filter: nil, loader: luaLoader(coverage: false), delivery: BundleDelivery())
        guard run.exitCode == 0 else {
            print(TextReport(verbose: false, colour: Terminal.wantsColour).render(run))
            Terminal.printError("refusing to bundle \(packName): \(run.failedCount) scenario(s) failed"
                + (run.inputErrorCount > 0 ? ", \(run.inputErrorCount) could not be read" : "") + "; fix them and run permit bundle again")
            throw ExitCode(run.exitCode)
        }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let params = try encoder.encode(policy.defaultParams)
        let source = try Data(contentsOf: policyFile)
        var bundle = try PolicyBundle.make(
            pack: packName, version: version, minimumEngine: engine, createdAt: Date(), expiresAt: expiry,
            policy: source, params: params)
        if let signingKey { bundle = try bundle.signed(with: signingKey) }
        try writeAtomically(bundle.encoded(), to: out)
        let manifest = try BundleManifest.decode(bundle.manifestBytes)
        print("tests: \(run.passedCount) passed")
        print("bundled \(packName) version \(version) (policy \(policy.name), min engine \(engine)"
            + (manifest.expiresAt.map { ", expires \(ISO8601DateFormatter().string(from: $0))" } ?? "") + ") → \(out)")
        print(signingKey.map { "signed by key \($0.keyID)" } ?? "unsigned: sign it with `permit sign \(out) --key KEY` before publishing")
    }
}

/// `30s`, `5m`, `2h`, `3d`, `1d12h`: units largest first, as in scenario files.
enum BundleDuration {
    static func seconds(_ text: String) -> Int64? {
        let units: [(Character, Int64)] = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]
        var total: Int64 = 0
        var digits = ""
        var next = 0
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { return nil }
                continue
            }
            guard let amount = Int64(digits), let index = units.firstIndex(where: { $0.0 == character }), index >= next else {
                return nil
            }
            total += amount * units[index].1
            next = index + 1
            digits = ""
        }
        return digits.isEmpty && next > 0 ? total : nil
    }
}

/// Writes through a temporary file renamed over the target, so a reader never sees half a file.
func writeAtomically(_ data: Data, to path: String, permissions: Int? = nil) throws {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    do {
        guard FileManager.default.createFile(
            atPath: temporary.path, contents: data,
            attributes: permissions.map { [.posixPermissions: $0] }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    } catch {
        try? FileManager.default.removeItem(at: temporary)
        Terminal.printError("\(path): cannot write (\(String(cString: strerror(errno))))")
        throw Exit.badInput
    }
}
