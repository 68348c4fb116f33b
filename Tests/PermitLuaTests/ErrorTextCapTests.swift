import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// A policy chooses its error text; uncut, a megabyte of it would be copied into every outcome,
/// decision record, report and log line. It is cut to the size of a reason, and says so.
@Suite struct ErrorTextCapTests {
    static func context() -> PolicyContext {
        let version = try! OSVersion(parsing: "16.4")
        return PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: 1)
    }

    static func expectCapped(_ error: PolicyError, sourceLocation: SourceLocation = #_sourceLocation) {
        let marker = " … [", end = " bytes cut]"
        #expect(error.message.hasSuffix(end), sourceLocation: sourceLocation)
        let kept = error.message.components(separatedBy: marker).first ?? ""
        #expect(kept.utf8.count <= TextCap.errorMessageBytes, sourceLocation: sourceLocation)
        #expect(kept.utf8.count > TextCap.errorMessageBytes - 8, sourceLocation: sourceLocation)
        #expect(error.message.utf8.count < TextCap.errorMessageBytes + 40, sourceLocation: sourceLocation)
        #expect((error.traceback?.utf8.count ?? 0) < TextCap.tracebackBytes + 40, sourceLocation: sourceLocation)
    }

    @Test func aMegabyteErrorInDecideIsCut() throws {
        let policy = try LuaPolicy(
            source: "return { name = \"loud\", decide = function(ctx) error((\"E\"):rep(1e6)) end }",
            chunkName: "loud.lua", limits: testLimits)
        do {
            _ = try policy.decide(Self.context())
            Issue.record("decide did not fail")
        } catch {
            Self.expectCapped(error)
            #expect(error.message.contains("EEEE … ["))
        }
    }

    @Test func aMegabyteErrorWhileLoadingIsCut() {
        do {
            _ = try LuaPolicy(source: "error((\"\\u{E9}\"):rep(5e5))", chunkName: "loud.lua", limits: testLimits)
            Issue.record("the policy loaded")
        } catch {
            Self.expectCapped(error)
            // Cut between characters, never inside one: no replacement character at the cut.
            #expect(!error.message.contains("\u{FFFD}"))
            #expect(error.message.contains("ééé … ["))
        }
    }

    @Test func theCutKeepsShortTextsAndMarksLongOnes() {
        #expect(TextCap.capped("short", bytes: 10) == "short")
        #expect(TextCap.capped(String(repeating: "a", count: 10), bytes: 10) == String(repeating: "a", count: 10))
        #expect(TextCap.capped("aaaaaaaaaaaa", bytes: 10) == "aaaaaaaaaa … [2 bytes cut]")
        // "é" is two bytes: the cut backs off to the last whole character.
        #expect(TextCap.capped("aaaaaaaaaé", bytes: 10) == "aaaaaaaaa … [2 bytes cut]")
    }
}
