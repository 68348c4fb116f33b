import Foundation
import PermitCore

/// How many cases a fuzz or property test runs: `PERMIT_FUZZ_SCALE` multiplies every test (1 =
/// the default count; 100 = a long run), and `PERMIT_FUZZ_SEED` replays another seed.
enum FuzzBudget {
    static func cases(_ base: Int) -> Int { base * scale }

    /// Read once: `ProcessInfo.environment` copies the whole environment into a new dictionary
    /// on every read, and the fuzz loops asked for the seed once a case.
    private static let scale = max(1, ProcessInfo.processInfo.environment["PERMIT_FUZZ_SCALE"].flatMap(Int.init) ?? 1)

    static let seed: UInt64 = ProcessInfo.processInfo.environment["PERMIT_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_2026
}

extension SplitMix64 {
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
}
