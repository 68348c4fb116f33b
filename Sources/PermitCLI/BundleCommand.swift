import ArgumentParser
import Foundation
import PermitCore
import PermitDelivery
import PermitInput
import PermitLua
import PermitScenario

struct BundleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Package a tested policy pack as a bundle an app can install at run time.",
        discussion: """
            Runs the pack's tests first and refuses to bundle a pack whose tests fail (or that has \
            none). policy.lua is read once: the tests run those bytes and the bundle holds the same \
            bytes; a test that runs another policy (`policy:`, or a `policy_update` step) is refused. The bundle holds \
            policy.lua, params.json (the params the policy declares) and a manifest with the pack \
            name, the version, the minimum engine, the creation time, the expiry (90 days unless \
            --expires-in says otherwise) and the SHA-256 of each file. Sign it with --key here or with \
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

    @Option(help: "Refuse the bundle after this long: 30s, 5m, 2h, 3d, 1d12h (default \(Self.defaultExpiry)).")
    var expiresIn: String = Self.defaultExpiry

    /// How long a bundle is installable when --expires-in is not given: a stale policy cannot
    /// be replayed to devices forever, and a quarter is longer than any release cycle.
    static let defaultExpiry = "90d"

    @Option(help: "Sign with this private key (from permit keygen).")
    var key: String?

    func validate() throws {
        guard version >= 1 else { throw ValidationError("--version must be at least 1") }
    }

    func run() async throws {
        guard let engine = EngineVersion(minEngine) else {
            Terminal.printError("--min-engine: \"\(minEngine)\" is not a version like \(EngineVersion.current)")
            throw Exit.badInput
        }
        // The bundler writes by rename, which would replace a device or FIFO with a file.
        do {
            try OutputPath.checkName(out)
            if case .writeThrough = try OutputPath.kind(of: Terminal.file(out).standardizedFileURL.path) {
                Terminal.printError(
                    "--out \(TerminalText.inline(out)): names a device or FIFO, which a bundle would replace; "
                        + "write the bundle to a file and copy it from there")
                throw Exit.badInput
            }
        } catch let error as OutputPath.Failure {
            Terminal.printError("--out \(TerminalText.inline(out)): cannot write (\(error.reason))")
            throw Exit.badInput
        }
        try OutputPath.refuseInputs("--out", out, inputs: Self.packFiles(pack))
        let copy: PolicyCopy
        do {
            copy = try packCopy(besidePolicy: Terminal.file(pack).appendingPathComponent("policy.lua"))
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
        let bundler = PackBundler(
            pack: Terminal.file(pack), version: version, minimumEngine: engine, expiresAt: try expiry(),
            signingKey: try signingKey(), copy: copy)
        let report: PackBundler.Report
        do {
            report = try await bundler.bundle(to: Terminal.file(out)) { candidate in try await Self.runTests(of: candidate) }
        } catch {
            Terminal.printError(error.description)
            throw error.kind == .testsFailed ? Exit.failure : Exit.badInput
        }
        let manifest = report.manifest
        Terminal.say("tests: \(report.testsPassed) passed")
        Terminal.say(
            "bundled \(manifest.pack) version \(manifest.version) (policy \(report.policyName), min engine \(engine)"
                + (manifest.expiresAt.map { ", expires \(InternetDateTime.string(from: $0))" } ?? "") + ") → \(out)")
        Terminal.say(
            report.signer.map { "signed by key \($0)" } ?? "unsigned: sign it with `permit sign \(out) --key KEY` before publishing")
    }

    /// Every regular file of the pack (policy.lua, its tests and what they include): the
    /// bundle is made from them, so --out may name none of them.
    static func packFiles(_ pack: String) -> [(label: String, path: String)] {
        let root = Terminal.file(pack)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { item in
            guard let url = item as? URL else { return nil }
            return (label: "the pack's \(url.lastPathComponent)", path: url.path)
        }
    }

    private func expiry() throws -> Date? {
        guard let seconds = InputDuration.seconds(expiresIn), seconds > 0 else {
            Terminal.printError("--expires-in: \"\(expiresIn)\" is not a duration; \(InputDuration.hint)")
            throw Exit.badInput
        }
        return Date(timeIntervalSinceNow: TimeInterval(seconds))
    }

    private func signingKey() throws -> BundleSigningKey? {
        try key.map { path in
            do { return try BundleSigningKey.read(contentsOf: Terminal.file(path)) } catch {
                Terminal.printError("--key \(error)")
                throw Exit.badInput
            }
        }
    }

    /// The gate: the pack's scenarios, as `permit test` runs them, on the policy text the
    /// bundle will hold (not on the file, which may have changed since it was read); a failing
    /// run prints its report. A scenario that runs another policy is refused before any runs.
    private static func runTests(of candidate: PackBundler.Candidate) async throws -> PackBundler.TestSummary {
        let files = try Discovery.scenarios(under: [candidate.pack.relativePath])
        let packPolicy = candidate.policyFile.standardizedFileURL.resolvingSymlinksInPath()
        for file in files {
            // A file that does not parse is reported by the run below, as unreadable.
            guard let cases = try? ScenarioParser.parseCases(contentsOf: file.url, displayName: file.displayPath) else { continue }
            for scenario in cases { try refuseForeignPolicy(in: scenario, file: file, packPolicy: packPolicy) }
        }
        let source = candidate.policySource
        let loader: PolicyLoader = { url throws(PolicyError) in
            let displayName = Discovery.displayPath(of: url)
            guard url.standardizedFileURL.resolvingSymlinksInPath() == packPolicy else {
                throw PolicyError(kind: .load, message: "a pack's tests run only the pack's policy.lua when bundling", file: displayName)
            }
            return try LuaPolicy(source: source, chunkName: displayName, limits: .tool, copy: candidate.copy)
        }
        // As under --ci: a pack whose tests are narrowed by `only: true` has not passed them all;
        // and as under --snapshot: a golden timeline the pack keeps that this run differs from fails.
        let run = await TestRun.run(
            files, options: TestRun.Options(refuseOnly: true, snapshots: .checkStored), loader: loader, delivery: BundleDelivery())
        if run.exitCode != 0 { Terminal.say(TextReport(verbose: false, colour: Terminal.wantsColour).render(run)) }
        return PackBundler.TestSummary(passed: run.passedCount, failed: run.failedCount, unreadable: run.inputErrorCount)
    }

    /// A pack test vouches for the bundle only when every step runs the pack's policy.lua: one
    /// that names another policy (`policy:`), or that installs a bundle (`policy_update`, whose
    /// policy serves every later step), tests something else, so it is refused with its line.
    private static func refuseForeignPolicy(in scenario: Scenario, file: ScenarioFile, packPolicy: URL) throws {
        if let named = scenario.policy, named.standardizedFileURL.resolvingSymlinksInPath() != packPolicy {
            let location = scenario.policyLocation.map { "\($0)" } ?? file.displayPath
            throw PackBundleError(
                .testNamesAnotherPolicy,
                "\(location): policy: this test runs \(Discovery.displayPath(of: named)), not the pack's policy.lua, "
                    + "so it cannot vouch for the bundle; remove `policy:` from the pack's tests (they run the pack's policy.lua)")
        }
        for step in scenario.steps {
            guard case .policyUpdate(let url) = step.action else { continue }
            throw PackBundleError(
                .testNamesAnotherPolicy,
                "\(step.location): policy_update: this test installs \(Discovery.displayPath(of: url)), whose policy, not the "
                    + "pack's policy.lua, runs the steps after it, so the test cannot vouch for the bundle; "
                    + "move rollout scenarios out of the pack's tests/ and run them with permit run")
        }
    }
}
