/// A small, fast, seedable random number generator (SplitMix64).
///
/// Everything in Permit that draws random numbers (simulations, fuzz tests) takes one of
/// these with an explicit seed, so a run can be replayed exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator seeded with `seed`: the same seed, the same sequence.
    public init(seed: UInt64) { state = seed }

    /// The next number.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An independent generator for item `index` of a run (a user, a case): the same for a
    /// given seed whatever order or thread the items run in.
    public static func stream(seed: UInt64, index: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (index &* 0xD1B5_4A32_D192_ED03))
        return SplitMix64(seed: mixer.next())
    }
}
