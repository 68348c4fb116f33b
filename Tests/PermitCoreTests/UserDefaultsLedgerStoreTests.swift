import Foundation
import Testing

@testable import PermitCore

/// `UserDefaultsLedgerStore` runs wherever Foundation's `UserDefaults` does, so it is tested here
/// rather than left to Apple platforms: each test uses a defaults suite of its own, removed after.
@Suite struct UserDefaultsLedgerStoreTests {
    /// Runs `body` with a fresh suite name, then removes the suite's values.
    func withSuite(_ body: (String) throws -> Void) rethrows {
        let suite = "permit-tests-\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        try body(suite)
    }

    @Test func aSavedLedgerIsWhatALaterStoreLoads() throws {
        let ledger = LedgerStoreTests().sample()
        try withSuite { suite in
            try UserDefaultsLedgerStore(suiteName: suite).save(ledger)
            let loaded = UserDefaultsLedgerStore(suiteName: suite).load()
            #expect(loaded.ledger == ledger)
            #expect(loaded.warnings.isEmpty)
            // Another key in the same suite is another ledger.
            #expect(UserDefaultsLedgerStore(suiteName: suite, key: "other").load().ledger == Ledger())
        }
    }

    @Test func nothingStoredIsAFreshLedgerWithoutWarnings() {
        withSuite { suite in
            let loaded = UserDefaultsLedgerStore(suiteName: suite).load()
            #expect(loaded.ledger == Ledger())
            #expect(loaded.warnings.isEmpty)
        }
    }

    /// A value that is not a ledger is set aside under `<key>.damaged`, said in a warning, and
    /// the next save starts clean: nothing is lost and nothing is read as a ledger it is not.
    @Test func aDamagedValueIsCopiedAsideAndReported() throws {
        try withSuite { suite in
            let defaults = try #require(UserDefaults(suiteName: suite))
            let damaged = Data("{\"schema\":1,\"launches\":".utf8)
            defaults.set(damaged, forKey: "permit.ledger")
            let loaded = UserDefaultsLedgerStore(suiteName: suite).load()
            #expect(loaded.ledger == Ledger())
            #expect(loaded.warnings.count == 1)
            #expect(loaded.warnings.first?.hasPrefix("ledger in UserDefaults \"permit.ledger\" ignored: ") == true)
            #expect(loaded.warnings.first?.hasSuffix("copied to \"permit.ledger.damaged\"") == true)
            #expect(defaults.data(forKey: "permit.ledger.damaged") == damaged)
            #expect(defaults.data(forKey: "permit.ledger") == nil)
            #expect(UserDefaultsLedgerStore(suiteName: suite).load().warnings.isEmpty)
        }
    }
}
