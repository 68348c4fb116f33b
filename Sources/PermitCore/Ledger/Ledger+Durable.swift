extension Ledger {
    /// What of this ledger outlives a reinstall, given what the policy keeps. A history that
    /// never recorded anything is left out, so a fresh install writes no Keychain item.
    public func durablePart(keeping keys: DurableKeys) -> DurableLedger {
        // The engine asks for this at every save. A set lookup hashes the history's Lua name
        // (a string); walking the set, at most three entries, hashes nothing.
        let keptNames = keys.histories
        func kept<History: Equatable>(_ history: History, _ name: DurableHistory, untouched: History) -> History? {
            history != untouched && keptNames.contains(where: { $0 == name }) ? history : nil
        }
        return DurableLedger(
            legacyRegistered: legacyRegistered,
            softPrompt: kept(softPrompt, .softPrompt, untouched: SoftPromptHistory()),
            systemPrompt: kept(systemPrompt, .systemPrompt, untouched: SystemPromptHistory()),
            settingsPrompt: kept(settingsPrompt, .settingsPrompt, untouched: SettingsPromptHistory()),
            state: keys.state.isEmpty || state.isEmpty ? [:] : state.filter { keys.state.contains($0.key) })
    }

    /// Whether nothing happened in this install yet: the only time a durable part is restored,
    /// so it never overwrites what this install recorded.
    public var isFreshInstall: Bool { firstLaunchAt == nil && launches == 0 && foregrounds == 0 }

    /// How long an app can stay deleted with iOS still remembering its notification answer
    /// (TN2265: the alert "is not presented again unless ... the app has been uninstalled for
    /// at least a day").
    public static let systemMemory: Int64 = 86_400

    /// Puts a reinstall's durable part back. Only what the policy keeps *now* comes back: a
    /// key the policy no longer marks durable stays behind (and is dropped at the next save).
    ///
    /// The iOS 8–9 asked-flag comes back only when the app was seen less than a day before
    /// `now`: then iOS surely still remembers the answer, and "no types" means denied. After a
    /// longer gap iOS may have forgotten, and a kept flag would read a dialog that can show
    /// again as a denial; without it the first request settles the question at once.
    public mutating func restore(_ durable: DurableLedger, keeping keys: DurableKeys, now: Int64) {
        // The time comes from a Keychain item: a gap too large to compute is no recent sighting.
        let systemStillRemembers =
            durable.lastSeenAt.map { seen in
                let (gap, overflow) = now.subtractingReportingOverflow(seen)
                return !overflow && gap < Self.systemMemory
            } ?? false
        legacyRegistered = legacyRegistered || (durable.legacyRegistered && systemStillRemembers)
        if keys.histories.contains(.softPrompt), let history = durable.softPrompt { softPrompt = history }
        if keys.histories.contains(.systemPrompt), let history = durable.systemPrompt { systemPrompt = history }
        if keys.histories.contains(.settingsPrompt), let history = durable.settingsPrompt { settingsPrompt = history }
        for (key, value) in durable.state where keys.state.contains(key) {
            state[key] = value
        }
    }
}
