import PermitBenchReference
import PermitCore

/// The limit a host could reach for a list of policy calls: a C host over plain Lua that builds
/// only the ctx fields the policy reads, calls it, and reads the answer back
/// (`MinimalReference.c`). It runs twice: first with read-tracking proxies to learn which ctx
/// paths the policy reads over these calls, then, timed, with every other field dropped. Both
/// runs must give the same decisions (a checksum of every action and reminder list), so the
/// dropped fields provably did not matter.
///
/// The host allocates as `luaL_newstate`'s state does (the C library's malloc, realloc and
/// free): plain Lua, as a minimal C + Lua host has it, and the host the goal is set on.
/// Permit's own VMs take their small blocks from free lists (docs/performance.md, "The small
/// pool"), which is part of what the ratio credits Permit with.
public enum MinimalReference {
    /// What the minimal host cost for the calls.
    public struct Measurement: Sendable {
        /// CPU time of the best round for all the calls, in nanoseconds (the C library's allocator).
        public let cpuNanoseconds: Double
        /// The calls made in a round.
        public let calls: Int
        /// The ctx paths the policy read (`x.*`: a table it iterated).
        public let reads: [String]
    }

    /// The reference could not run the calls.
    public struct Failure: Error, CustomStringConvertible {
        /// Why, in the reference host's words.
        public let description: String
    }

    /// How many times each side of a comparison is measured; the best (lowest CPU) counts, on
    /// both sides: the same estimator for Permit's runs as for the host's replays.
    public static let rounds = 3

    /// Measures `calls` (each a context and whether it is a `plan_reminders` call) of the policy
    /// in `source`, the best of `rounds` replays. `declaredEvents` are the app events the policy
    /// declares: they read count 0 in `ctx.history.events` before they first happen.
    public static func measure(
        source: String, calls: [(context: PolicyContext, planning: Bool)], declaredEvents: [String] = [], rounds: Int = rounds
    ) throws -> Measurement {
        let trees = calls.map { (tree: ContextTree($0.context, declaredEvents: declaredEvents), planning: $0.planning) }
        var full = ReferenceProgram()
        for call in trees { full.append(call.tree, planning: call.planning) }
        let discovery = try run(source: source, program: full, rounds: 1, trackReads: true)
        let reads = Set(discovery.reads)
        var minimal = ReferenceProgram()
        for call in trees { minimal.append(call.tree.pruned(to: reads) ?? .table([]), planning: call.planning) }
        let timed = try run(source: source, program: minimal, rounds: rounds, trackReads: false)
        guard timed.run.checksum == discovery.run.checksum else {
            throw Failure(description: "the minimal ctx changed the policy's decisions (reads: \(discovery.reads))")
        }
        return Measurement(
            cpuNanoseconds: timed.run.cpu_ns, calls: Int(timed.run.calls), reads: discovery.reads.sorted())
    }

    private static func run(
        source: String, program: ReferenceProgram, rounds: Int, trackReads: Bool
    ) throws -> (run: permit_reference_run, reads: [String]) {
        guard program.cachedTables <= 64 else { throw Failure(description: "more than 64 distinct platforms") }
        var result = permit_reference_run()
        let errorSize = 512, readsSize = trackReads ? 1 << 16 : 1
        var error = [CChar](repeating: 0, count: errorSize)
        var reads = [CChar](repeating: 0, count: readsSize)
        let status = program.ops.withUnsafeBufferPointer { ops in
            program.cacheOps.withUnsafeBufferPointer { cacheOps in
                program.strings.withUnsafeBufferPointer { strings in
                    reads.withUnsafeMutableBufferPointer { reads in
                        permit_minimal_reference(
                            source, source.utf8.count, cacheOps.baseAddress, cacheOps.count, ops.baseAddress, ops.count,
                            strings.baseAddress, Int32(rounds), trackReads ? reads.baseAddress : nil,
                            readsSize, &result, &error, errorSize)
                    }
                }
            }
        }
        guard status == 0 else {
            throw Failure(description: "minimal C reference failed: " + text(error))
        }
        let paths = trackReads ? text(reads).split(separator: "\n").map(String.init) : []
        return (result, paths)
    }

    /// A NUL-terminated C buffer as text.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
