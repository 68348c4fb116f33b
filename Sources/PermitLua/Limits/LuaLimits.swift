import CLuaShim

/// Budgets of a `LuaVM`; every field is host-configurable.
public struct LuaLimits: Sendable, Equatable {
    /// VM instructions per `call` (coroutines included). C work that the count
    /// hook cannot see is charged too: 10 units per function call (Lua or C), one unit per
    /// element moved by table.insert/remove/move, len + len²/25 for `load`'s text (its worst
    /// compile), per byte of the strings walked by tonumber, string.pack/packsize/unpack
    /// (4 per format byte), upper/lower/reverse, format's %q (3) and permit.at_least, per 64 bytes
    /// searched by string.find and the `permit` text helpers, per 64 bytes
    /// printed, and per 64 bytes allocated (which bounds concatenation,
    /// string.rep, upper, sub, format, table.concat, ...).
    public var instructionsPerCall: Int
    /// Wall-clock safety net per call, in milliseconds (0 disables it), for work
    /// neither instructions nor allocations reveal, such as comparing two long
    /// equal strings in a loop. Checked every 1000 instructions (every 10 once the VM holds a
    /// block of 64 KiB or more), every 16th function call (every call once it holds such a
    /// block: a C function called from a C loop, such as a metamethod called by
    /// table.concat, runs no instruction), and before any C work charged above a few thousand
    /// units (work predicted to end past the limit is refused before it starts).
    public var timeLimitMilliseconds: Int
    /// Cap on the bytes allocated by the VM (checked while script code runs).
    public var memoryBytes: Int
    /// Longest string built by string.rep. (There are no pattern limits: policies get no Lua
    /// patterns at all; docs/security.md says why.)
    public var maxStringBytes: Int
    /// Bytes kept by the trace (print / permit.log) between drains.
    public var traceCapBytes: Int
    /// Deepest table nesting converted to `LuaValue` (and accepted as argument).
    public var maxTableDepth: Int
    /// Most values converted from one call's results (guards against shared subtables).
    public var maxConvertedValues: Int
    /// Most hash slots one Lua table may have (0: no cap). Re-inserting integer keys that
    /// collide into one chain costs O(n²) inside a single C call that no hook interrupts (2^12
    /// slots: 53 ms here; docs/security.md has the measurement). Within the cap, a table grows
    /// only while its worst-case rehash still fits the time limit, which at 50 ms allows 2^11.
    /// Array parts (keys 1...n) are not affected.
    public var maxTableSlots: Int
    /// Longest source text compiled, in bytes: a policy file (`LuaVM.load`) and a string given
    /// to `load` (0: no cap). A compile runs in one C call that no hook interrupts and, for some
    /// shapes (a long chain of `or`), in time that grows with the square of the length: 12 KiB
    /// of the worst shape measured takes 14 ms here, 16 KiB 25 ms, 32 KiB 98 ms. Inside a call, `load` is also
    /// charged len²/25 units for its text (the worst case of that length), so it is refused up
    /// front when that would not fit the budget or the time left (about 7 KiB at the default
    /// budget). The shipped packs are at most 8 KiB.
    public var maxSourceBytes: Int
    /// How much longer than `timeLimitMilliseconds` the calling thread waits for a policy call,
    /// a policy load or a bundle install before it stops waiting, whatever the policy does
    /// (docs/security.md, "The deadline"). With a margin, each `LuaPolicy` runs its VM on a
    /// thread of its own; a call that has not returned by `timeLimitMilliseconds` + the margin
    /// fails with a `PolicyError` of kind `deadline`, and that VM is never used again. It backs
    /// up the VM's own checks for work they cannot see (a C loop inside Lua). `nil`, or a
    /// `timeLimitMilliseconds` of 0: calls run on the caller's thread, bounded by the VM's own
    /// checks only, which saves the hand-over between threads (docs/performance.md, "The
    /// deadline's cost"); for batch tools such as `permit simulate`, never for an app.
    public var deadlineMarginMilliseconds: Int?

    /// Limits; the defaults suit a policy the app ships, a host running delivered policies may
    /// tighten them. The wall-clock defaults (50 ms, 5 ms margin) are ten times longer in a
    /// build instrumented by a sanitizer (`instrumentedSlowdown`).
    public init(
        instructionsPerCall: Int = 2_000_000,
        timeLimitMilliseconds: Int = 50 * LuaLimits.instrumentedSlowdown,
        memoryBytes: Int = 4 << 20,
        maxStringBytes: Int = 1 << 20,
        traceCapBytes: Int = 64 << 10,
        maxTableDepth: Int = 32,
        maxConvertedValues: Int = 100_000,
        maxTableSlots: Int = 1 << 12,
        maxSourceBytes: Int = 12 << 10,
        deadlineMarginMilliseconds: Int? = 5 * LuaLimits.instrumentedSlowdown
    ) {
        self.instructionsPerCall = instructionsPerCall
        self.timeLimitMilliseconds = timeLimitMilliseconds
        self.memoryBytes = memoryBytes
        self.maxStringBytes = maxStringBytes
        self.traceCapBytes = traceCapBytes
        self.maxTableDepth = maxTableDepth
        self.maxConvertedValues = maxConvertedValues
        self.maxTableSlots = maxTableSlots
        self.maxSourceBytes = maxSourceBytes
        self.deadlineMarginMilliseconds = deadlineMarginMilliseconds
    }

    /// How long a caller waits for a call, in nanoseconds: the time limit plus the margin;
    /// `nil` when calls run on the caller's thread.
    var deadlineNanoseconds: Int? {
        guard let margin = deadlineMarginMilliseconds, timeLimitMilliseconds > 0 else { return nil }
        return (timeLimitMilliseconds + max(0, margin)) * 1_000_000
    }

    /// Sized for an app from the shipped packs (docs/security.md, "Budgets"): they use at most
    /// about 2,300 instructions, a few milliseconds and 74 KiB per call; the defaults give
    /// 2 M instructions (about 5-40 ms), 50 ms and 4 MiB, so one bad delivered policy cannot
    /// stall an event for long. Hosts and the CLI (`--time-limit`, `--instruction-budget`)
    /// may raise them.
    public static let `default` = LuaLimits()

    /// 10 in a build compiled with AddressSanitizer or ThreadSanitizer, otherwise 1: the factor
    /// by which the default time limit and deadline margin are longer.
    ///
    /// Why: a sanitizer runs the same work 5 to 20 times slower, so the app's 50 ms would stop
    /// policies that take a few milliseconds in the app, and a run's result (a simulation, a
    /// scenario's verdict) would turn on how loaded the machine was. The instruction budget and
    /// the memory cap count work, not time, and stay as they are; a limit given explicitly is
    /// never changed. No app ships such a build.
    public static let instrumentedSlowdown = Int(permit_instrumented_slowdown())
}
