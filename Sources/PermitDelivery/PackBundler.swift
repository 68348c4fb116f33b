import Foundation
import PermitCore
import PermitLua

/// `permit bundle` as one call: a pack whose tests pass becomes a bundle, signed when a key is
/// given, and written whole or not at all.
///
/// The pack's tests gate the bundle, but playing scenarios is the scenario player's job, a
/// layer that builds on delivery's users rather than on delivery. The caller passes the tests
/// in as `runTests`, so an app linking PermitDelivery never links the player.
public struct PackBundler: Sendable {
    /// The pack directory: `policy.lua` and `tests/`. Its name is the bundle's pack name.
    public var pack: URL
    /// Greater than every version published before.
    public var version: Int64
    /// The oldest engine that may run the bundle.
    public var minimumEngine: EngineVersion
    /// After this the bundle is refused; nil: it does not expire.
    public var expiresAt: Date?
    /// Signs the bundle; without it the bundle is unsigned, to be signed with `permit sign`.
    public var signingKey: BundleSigningKey?
    /// The pack's copy (its `copy/<locale>.yaml` files, read by the caller): the bundle carries
    /// it as `copy.json`, covered by the signature; empty adds no file.
    public var copy: PolicyCopy
    /// The sandbox's limits for loading the policy before it is bundled: the app's by default;
    /// a caller whose tests run under other limits (the playground's) passes the same here, so
    /// the load and the gate hold the policy to one standard.
    public var limits: LuaLimits

    /// A bundler for the pack at `pack`; the bundle is unsigned unless `signingKey` is given.
    public init(
        pack: URL, version: Int64, minimumEngine: EngineVersion = .current, expiresAt: Date? = nil,
        signingKey: BundleSigningKey? = nil, copy: PolicyCopy = .empty, limits: LuaLimits = .default
    ) {
        self.copy = copy
        self.limits = limits
        self.pack = pack
        self.version = version
        self.minimumEngine = minimumEngine
        self.expiresAt = expiresAt
        self.signingKey = signingKey
    }

    /// How the pack's scenarios went: the gate a bundle must pass.
    public struct TestSummary: Sendable, Hashable {
        /// Scenarios that passed.
        public var passed: Int
        /// Scenarios that ran and failed.
        public var failed: Int
        /// Scenario files that could not be read.
        public var unreadable: Int

        /// The counts of one test run.
        public init(passed: Int, failed: Int, unreadable: Int) {
            self.passed = passed
            self.failed = failed
            self.unreadable = unreadable
        }
    }

    /// What the tests must run: the policy exactly as it will be bundled. The policy file is
    /// read once; the gate runs `policySource` (never the file again, which could have changed
    /// since) and the bundle holds the same bytes.
    public struct Candidate: Sendable {
        /// The pack directory.
        public var pack: URL
        /// `<pack>/policy.lua`, the only policy a pack's tests may run.
        public var policyFile: URL
        /// The policy's text as read, tested and bundled.
        public var policySource: String
        /// The pack's copy, as tested and bundled.
        public var copy: PolicyCopy
    }

    /// What was written, for the report.
    public struct Report: Sendable {
        /// The manifest written into the bundle: pack, version, engine, times, file hashes.
        public var manifest: BundleManifest
        /// The name the policy gives itself.
        public var policyName: String
        /// The key that signed the bundle; nil when it is unsigned.
        public var signer: KeyID?
        /// Scenarios that passed in the gate.
        public var testsPassed: Int
    }

    /// Checks the pack, loads its policy, runs its tests, and writes the bundle to `output`.
    ///
    /// - Parameters:
    ///   - output: where the bundle file goes (written whole or not at all).
    ///   - now: the bundle's creation time.
    ///   - runTests: runs the pack's scenarios on `candidate.policySource` (never on the file);
    ///     a `PackBundleError` it throws is passed on, any other throw means the scenarios could
    ///     not be found or read.
    public func bundle(
        to output: URL, now: Date = Date(), runTests: @Sendable (Candidate) async throws -> TestSummary
    ) async throws(PackBundleError) -> Report {
        let packName = try checkedPackName()
        let policyFile = pack.appendingPathComponent("policy.lua")
        let text: String
        let policy: LuaPolicy
        do {
            text = try LuaPolicy.source(contentsOf: policyFile, displayName: policyFile.relativePath)
            policy = try LuaPolicy(source: text, chunkName: policyFile.relativePath, limits: limits, copy: copy)
        } catch {
            throw PackBundleError(.invalidPolicy, error.description)
        }
        let candidate = Candidate(pack: pack, policyFile: policyFile, policySource: text, copy: copy)
        let tests = try await gate(packName, candidate: candidate, runTests: runTests)
        let bundle = try package(policy, source: Data(text.utf8), packName: packName, now: now)
        do {
            try AtomicFile.write(bundle.encoded(), to: output)
        } catch {
            throw PackBundleError(.cannotWrite, "\(output.relativePath): cannot write (\(error.reason))")
        }
        let manifest: BundleManifest
        do { manifest = try BundleManifest.decode(bundle.manifestBytes) } catch {
            throw PackBundleError(.packaging, error.description)
        }
        return Report(manifest: manifest, policyName: policy.name, signer: signingKey?.keyID, testsPassed: tests.passed)
    }

    /// The pack's name, after checking it is a directory with a policy.
    private func checkedPackName() throws(PackBundleError) -> String {
        let path = pack.relativePath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: pack.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PackBundleError(.invalidPack, "\(path): not a pack directory (a pack holds policy.lua and tests/)")
        }
        guard FileManager.default.fileExists(atPath: pack.appendingPathComponent("policy.lua").path) else {
            throw PackBundleError(.invalidPack, "\(path): a pack directory needs a policy.lua")
        }
        let name = pack.standardizedFileURL.lastPathComponent
        guard BundleManifest.isValidPackName(name) else {
            throw PackBundleError(.invalidPack, "\(path): \"\(name)\" cannot be a pack name (letters, digits, - _ . ; at most 64)")
        }
        return name
    }

    /// Runs the tests; a pack with none, or with any failing or unreadable, is not bundled.
    private func gate(
        _ packName: String, candidate: Candidate, runTests: @Sendable (Candidate) async throws -> TestSummary
    ) async throws(PackBundleError) -> TestSummary {
        let tests: TestSummary
        do { tests = try await runTests(candidate) } catch let error as PackBundleError {
            throw error
        } catch {
            throw PackBundleError(.testsUnreadable, String(describing: error))
        }
        guard tests.passed + tests.failed + tests.unreadable > 0 else {
            throw PackBundleError(
                .noTests, "no scenarios found under \(pack.relativePath)/tests; a pack is bundled only when its tests pass, so add some")
        }
        guard tests.failed == 0, tests.unreadable == 0 else {
            throw PackBundleError(
                tests.unreadable > 0 ? .testsUnreadable : .testsFailed,
                "refusing to bundle \(packName): \(tests.failed) scenario(s) failed"
                    + (tests.unreadable > 0 ? ", \(tests.unreadable) could not be read" : "")
                    + "; fix them and run permit bundle again")
        }
        return tests
    }

    /// The policy and the params it declares, in a bundle, signed when there is a key.
    private func package(_ policy: LuaPolicy, source: Data, packName: String, now: Date) throws(PackBundleError) -> PolicyBundle {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let params = try encoder.encode(policy.defaultParams)
            let bundle = try PolicyBundle.make(
                pack: packName, version: version, minimumEngine: minimumEngine, createdAt: now, expiresAt: expiresAt,
                policy: source, params: params, copy: copy.isEmpty ? nil : copy.encoded())
            return try signingKey.map(bundle.signed(with:)) ?? bundle
        } catch {
            throw PackBundleError(.packaging, "\(error)")
        }
    }
}

/// Why `PackBundler` wrote no bundle.
public struct PackBundleError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal: the CLI exits 1 for failed tests and 2 for the rest.
    public enum Kind: Sendable, Hashable {
        /// Not a directory, no policy.lua, or a name a pack cannot have.
        case invalidPack
        /// The policy does not load or check.
        case invalidPolicy
        /// The pack has no scenarios.
        case noTests
        /// Scenarios ran and some failed.
        case testsFailed
        /// A scenario of the pack runs another policy (`policy:`, or a `policy_update` step's
        /// bundle), so its pass says nothing about the policy that would be bundled.
        case testNamesAnotherPolicy
        /// Scenarios could not be found or read.
        case testsUnreadable
        /// The bundle could not be made or signed (an expiry before creation, say).
        case packaging
        /// The bundle file could not be written (the old file, if any, is untouched).
        case cannotWrite
    }

    /// What kind of refusal.
    public var kind: Kind
    /// What went wrong and what to do, naming the pack or file.
    public var description: String

    /// A refusal of `kind`, said in `description`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
