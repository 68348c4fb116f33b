/// The ledger and the durable part as the engine starts from them: a fresh install's ledger
/// with the durable part of an earlier install put back, any other ledger as loaded (a durable
/// part never overwrites what this install recorded). `stored` is what the durable store holds,
/// so the first save writes a part that differs from it (an install that had no durable store
/// before gets its item at once).
///
/// When either store cannot be read (`unavailable`, a locked device), neither is used: the
/// ledger is empty, `unreadable` says why, and the engine loads both again later. A durable part
/// read without its ledger could otherwise be restored into a ledger that is only locked.
struct LoadedStores {
    var ledger: Ledger
    var stored: DurableLedger
    var report = LoadReport()
    /// Why the stores could not be read, when they could not.
    var unreadable: String? { report.unreadable }

    /// Each field is set once, from what the stores gave: an empty ledger made first and then
    /// replaced cost as much as the load itself at every process start.
    init(store: any LedgerStore, durableStore: (any DurableStore)?, keeping keys: DurableKeys, now: Int64) {
        let loaded = store.load()
        let durable = durableStore?.loadDurable()
        report.warnings = loaded.warnings
        if let more = durable?.warnings, !more.isEmpty { report.warnings += more }
        if loaded.unavailable != nil || durable?.unavailable != nil {
            let unavailable = [loaded.unavailable, durable?.unavailable].compactMap(\.self)
            report.unreadable = unavailable.joined(separator: "; ") + "; nothing is decided or saved until it can be read"
            ledger = Ledger()
            stored = DurableLedger()
            return
        }
        ledger = loaded.ledger
        guard let part = durable?.durable else {
            stored = DurableLedger()
            return
        }
        stored = part
        guard ledger.isFreshInstall else { return }
        ledger.restore(part, keeping: keys, now: now)
        report.restored = true
    }
}
