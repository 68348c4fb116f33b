import Foundation
import PermitCore
import PermitLua
import Testing

@testable import PermitDelivery

/// `permit bundle`'s pipeline as a library call: the tests gate the bundle, the bundle is
/// signed when a key is given, and nothing is written when any step refuses.
@Suite struct PackBundlerTests {
    func pack(named name: String = "demo") throws -> (pack: URL, root: URL) {
        let root = temporaryDirectory()
        let pack = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try Data(taggedPolicy("v1").utf8).write(to: pack.appendingPathComponent("policy.lua"))
        return (pack, root)
    }

    @Test func aPackWhoseTestsPassIsBundledAndSigned() async throws {
        let (pack, root) = try pack()
        defer { try? FileManager.default.removeItem(at: root) }
        let key = BundleSigningKey()
        let out = root.appendingPathComponent("demo-3.permitbundle")
        let report = try await PackBundler(pack: pack, version: 3, signingKey: key).bundle(to: out, now: start) { _ in
            PackBundler.TestSummary(passed: 2, failed: 0, unreadable: 0)
        }
        #expect(report.manifest.pack == "demo" && report.manifest.version == 3)
        #expect(report.policyName == "v1" && report.signer == key.keyID && report.testsPassed == 2)
        let verified = try PolicyBundle.read(contentsOf: out).verify(trust: .keys([key.publicKey]), now: start)
        #expect(verified.manifest.version == 3)
    }

    /// The policy is loaded under the limits the caller's tests run under (the playground's,
    /// which a slow machine may widen), not always the app's: a policy the gate passes is never
    /// refused at load by a stricter standard, and a tighter limit is kept.
    @Test func thePolicyLoadsUnderTheGivenLimits() async throws {
        let (pack, root) = try pack()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("demo-1.permitbundle")
        var tight = LuaLimits.default
        tight.maxSourceBytes = 16
        let error = await #expect(throws: PackBundleError.self) {
            _ = try await PackBundler(pack: pack, version: 1, limits: tight).bundle(to: out, now: start) { _ in
                PackBundler.TestSummary(passed: 1, failed: 0, unreadable: 0)
            }
        }
        #expect(error?.kind == .invalidPolicy)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        _ = try await PackBundler(pack: pack, version: 1).bundle(to: out, now: start) { _ in
            PackBundler.TestSummary(passed: 1, failed: 0, unreadable: 0)
        }
        #expect(FileManager.default.fileExists(atPath: out.path))
    }

    /// The policy is read once: the tests get its text, and the bundle holds those bytes even
    /// when the file changes while the tests run.
    @Test func theBundleHoldsTheBytesTheTestsRan() async throws {
        let (pack, root) = try pack()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("demo-1.permitbundle")
        let file = pack.appendingPathComponent("policy.lua")
        let tested = Locked<String?>(nil)
        _ = try await PackBundler(pack: pack, version: 1).bundle(to: out, now: start) { candidate in
            tested.withLock { $0 = candidate.policySource }
            // Someone saves the file while the tests run.
            try Data(taggedPolicy("untested").utf8).write(to: file)
            return PackBundler.TestSummary(passed: 1, failed: 0, unreadable: 0)
        }
        #expect(tested.current == taggedPolicy("v1"))
        let verified = try PolicyBundle.read(contentsOf: out).verify(trust: .unsignedForDevelopment, now: start)
        #expect(verified.policySource == taggedPolicy("v1"))
    }

    @Test(arguments: [
        (PackBundler.TestSummary(passed: 0, failed: 0, unreadable: 0), PackBundleError.Kind.noTests, "no scenarios found"),
        (PackBundler.TestSummary(passed: 3, failed: 1, unreadable: 0), .testsFailed, "refusing to bundle demo: 1 scenario(s) failed; fix"),
        (PackBundler.TestSummary(passed: 3, failed: 0, unreadable: 2), .testsUnreadable, "0 scenario(s) failed, 2 could not be read"),
    ])
    func failingOrMissingTestsWriteNothing(summary: PackBundler.TestSummary, kind: PackBundleError.Kind, message: String) async throws {
        let (pack, root) = try pack()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("demo.permitbundle")
        do {
            _ = try await PackBundler(pack: pack, version: 1).bundle(to: out) { _ in summary }
            Issue.record("expected a refusal")
        } catch {
            #expect(error.kind == kind)
            #expect(error.description.contains(message), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func aBrokenPolicyOrNameIsRefusedBeforeTheTestsRun() async throws {
        let (pack, root) = try pack(named: "bad name")
        defer { try? FileManager.default.removeItem(at: root) }
        let ran = Locked(false)
        await #expect(throws: PackBundleError.self) {
            try await PackBundler(pack: pack, version: 1).bundle(to: root.appendingPathComponent("x")) { _ in
                ran.withLock { $0 = true }
                return PackBundler.TestSummary(passed: 1, failed: 0, unreadable: 0)
            }
        }
        let (good, goodRoot) = try self.pack()
        defer { try? FileManager.default.removeItem(at: goodRoot) }
        try Data("return {".utf8).write(to: good.appendingPathComponent("policy.lua"))
        do {
            _ = try await PackBundler(pack: good, version: 1).bundle(to: goodRoot.appendingPathComponent("x")) { _ in
                ran.withLock { $0 = true }
                return PackBundler.TestSummary(passed: 1, failed: 0, unreadable: 0)
            }
            Issue.record("expected a refusal")
        } catch {
            #expect(error.kind == .invalidPolicy)
        }
        #expect(ran.current == false)
    }
}
