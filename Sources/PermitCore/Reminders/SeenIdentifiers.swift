/// The identifiers met so far while planning reminders, to drop a repeated one.
///
/// A plan has a handful of reminders (the packs ask for nine; iOS keeps 64): comparing a new
/// identifier with each one before is cheaper than hashing it, which was the planner's largest
/// single cost after the reconciliation. Past `linearLimit` a set takes over, so a long list
/// stays linear in time.
struct SeenIdentifiers {
    /// Up to this many, identifiers are compared one by one.
    static let linearLimit = 16

    private var few: [String] = []
    private var many: Set<String>?

    /// Adds `id`; `false` when it was there already.
    mutating func insert(_ id: String) -> Bool {
        if many != nil { return many!.insert(id).inserted }
        if few.contains(id) { return false }
        // Room for all the compared ones at once: grown one by one, the list was allocated
        // and copied four times for a plan of nine.
        if few.isEmpty { few.reserveCapacity(Self.linearLimit + 1) }
        few.append(id)
        if few.count > Self.linearLimit {
            many = Set(few)
            few = []
        }
        return true
    }
}
