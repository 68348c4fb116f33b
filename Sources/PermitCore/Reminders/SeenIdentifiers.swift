/// The reminder identifiers a plan has met so far, to drop a repeated one.
///
/// A policy's list holds a few reminders (nine in the packs): compared one by one they cost
/// less than hashing each identifier into a `Set`, whose seeding and hashing were a fifth of
/// a plan. A long list is hashed all the same, so the cost stays linear in it.
struct SeenIdentifiers {
    /// Beyond this many, the identifiers go into a set.
    static let compareOneByOne = 16

    private var few: [String] = []
    private var many: Set<String>?

    /// Adds `id`; `false` when it was met before.
    mutating func insert(_ id: String) -> Bool {
        if many != nil { return many!.insert(id).inserted }
        if few.contains(id) { return false }
        if few.count < Self.compareOneByOne {
            few.append(id)
        } else {
            many = Set(few)
            many!.insert(id)
        }
        return true
    }
}
