/// The rules by which events, answers and shown prompts change the ledger. Kept apart from the
/// engine so each rule is one small, tested method. Counters stop at `Int.max` (`countOne`): a
/// ledger read from a file may hold any count, and recording must never trap.
extension Ledger {
    /// Counts an app event (before the policy runs). `inlineOnScreen` says whether the prompt
    /// the event answers was an inline row: acting on one (`accept`, `open`) counts apart
    /// (`inline_acted`), and its other answers count nothing (the row has no such buttons; it
    /// went with its screen).
    /// A web link (`link`), on a row or a dialog, counts only as a link: what it is on stays.
    mutating func record(_ event: AppEvent, at now: Int64, legacy: Bool, inlineOnScreen: Bool = false) {
        switch event {
        case .softPromptAnswered(.link):
            Self.countOne(&softPrompt.links)
        case .settingsPromptAnswered(.link):
            Self.countOne(&settingsPrompt.links)
        case .informAnswered(.link):
            Self.countOne(&inform.links)
        case .appLaunch:
            Self.countOne(&launches)
            if firstLaunchAt == nil { firstLaunchAt = now }
        case .appForeground:
            Self.countOne(&foregrounds)
        case .appBackground, .significantTimeChange, .notificationSettingsOpened, .featureClosed, .backgroundRefresh:
            break
        case .featureOpened(let name):
            // One access through the defaulted subscript: a second lookup hashed the name again.
            Self.noteOpened(&features[name, default: FeatureHistory()], at: now)
        case .softPromptAnswered(let answer) where inlineOnScreen:
            if answer == .accept {
                Self.countOne(&softPrompt.inlineActed)
                softPrompt.lastAnsweredAt = now
            }
        case .settingsPromptAnswered(let answer) where inlineOnScreen:
            if answer == .open { Self.countOne(&settingsPrompt.inlineActed) }
        case .softPromptAnswered(let answer):
            switch answer {
            case .accept: Self.countOne(&softPrompt.accepted)
            case .decline: Self.countOne(&softPrompt.declined)
            case .dismiss: Self.countOne(&softPrompt.dismissed)
            case .link: return
            }
            softPrompt.lastAnsweredAt = now
        case .systemPromptAnswered(let granted):
            systemPrompt.answeredAt = now
            systemPrompt.granted = granted
            // On iOS 8–9 this is the register callback: the one moment that tells a denial
            // apart from "never asked" later.
            if legacy { legacyRegistered = true }
        case .settingsPromptAnswered(let answer):
            switch answer {
            case .open: Self.countOne(&settingsPrompt.opened)
            case .cancel: Self.countOne(&settingsPrompt.cancelled)
            case .dismiss, .link: break
            }
        case .informAnswered(let answer):
            switch answer {
            case .ok: Self.countOne(&inform.ok)
            case .dismiss: Self.countOne(&inform.dismissed)
            case .open: Self.countOne(&inform.opened)
            case .link: break
            }
        case .custom(let custom):
            Self.noteHappened(&events[custom.name, default: EventHistory()], at: now)
        }
    }

    private static func noteOpened(_ history: inout FeatureHistory, at now: Int64) {
        countOne(&history.opened)
        history.lastOpenedAt = now
    }

    private static func noteHappened(_ history: inout EventHistory, at now: Int64) {
        countOne(&history.count)
        history.lastAt = now
    }

    /// Why the ledger cannot count `name` (it keeps `maxEventNames` names and this is a new
    /// one), or nil when it can. The engine refuses such an event rather than drop a name it
    /// counted before: losing `lesson_completed`'s count would re-ask users already asked.
    public func problem(recordingEvent name: String) -> String? {
        guard events[name] == nil, events.count >= Ledger.maxEventNames else { return nil }
        return "the ledger already counts \(events.count) event names, the most it keeps (\(Ledger.maxEventNames)); "
            + "\"\(name)\" was refused and not counted. Send fewer distinct names (put what varies in properties)"
    }

    /// Records a status read. Returns whether the status changed.
    @discardableResult
    mutating func record(status: PermissionStatus, at now: Int64) -> Bool {
        guard status != .unknown, status != lastStatus else { return false }
        lastStatus = status
        statusChangedAt = now
        if status == .denied {
            deniedAt = now
        } else if status.isGranted {
            deniedAt = nil
        }
        return true
    }

    /// Starts a new count of `prompts_today` when the local day changed.
    mutating func roll(toDay day: String) {
        if promptsDay != day {
            promptsDay = day
            promptsToday = 0
        }
    }

    /// Records an inline row put on screen: counted apart, not a prompt of the day.
    mutating func recordInlineShown(settings: Bool) {
        if settings { Self.countOne(&settingsPrompt.inlineShown) } else { Self.countOne(&softPrompt.inlineShown) }
    }

    /// Records Settings opened at once (`open_settings`): the user is taken there as by a
    /// settings prompt's Open, so `settings_prompt.opened` counts it; it is no prompt.
    mutating func recordSettingsOpened() {
        Self.countOne(&settingsPrompt.opened)
    }

    /// Records a soft prompt put on screen.
    mutating func recordSoftPromptShown(at now: Int64, feature: String?) {
        Self.countOne(&softPrompt.shown)
        softPrompt.lastShownAt = now
        notePrompt(at: now, feature: feature)
    }

    /// Records a settings prompt put on screen.
    mutating func recordSettingsPromptShown(at now: Int64, feature: String?) {
        Self.countOne(&settingsPrompt.shown)
        settingsPrompt.lastShownAt = now
        notePrompt(at: now, feature: feature)
    }

    /// Records an information page or row put on screen: counted, but no prompt of the day.
    mutating func recordInformShown(at now: Int64) {
        Self.countOne(&inform.shown)
        inform.lastShownAt = now
    }

    /// Records a permission request; only a dialog that appeared counts as a prompt.
    mutating func recordPermissionRequest(at now: Int64, dialogShown: Bool, feature: String?) {
        Self.countOne(&systemPrompt.requested)
        if dialogShown {
            Self.countOne(&systemPrompt.shown)
            notePrompt(at: now, feature: feature)
        }
    }

    private mutating func notePrompt(at now: Int64, feature: String?) {
        Self.countOne(&promptsToday)
        if let feature { features[feature, default: FeatureHistory()].lastPromptAt = now }
    }

    /// Applies a decision's `remember`: `nil` deletes a key. Scalars only; the whole state must
    /// stay within 4 KiB. On error the state is unchanged.
    mutating func apply(remember: [String: PolicyValue?]) throws(PolicyError) {
        guard !remember.isEmpty else { return }
        var updated = state
        for (key, value) in remember {
            if let value {
                guard value.isScalar else {
                    throw PolicyError(
                        kind: .invalidDecision, field: "decision.remember.\(key)",
                        message: "expected a string, number or boolean, got a \(value.typeName)")
                }
                // The stores write JSON, which has no NaN or infinity: one such value would make
                // every later save fail. (Any policy, not only Lua's readers, is held to this.)
                if case .number(let number) = value, !number.isFinite {
                    throw PolicyError(
                        kind: .invalidDecision, field: "decision.remember.\(key)",
                        message: "\(number) cannot be remembered: the ledger is saved as JSON, which holds only finite "
                            + "numbers; remember a finite number, a string or a boolean instead")
                }
                updated[key] = value
            } else {
                updated.removeValue(forKey: key)
            }
        }
        let size = updated.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageCost }
        guard size <= Ledger.stateByteLimit else {
            throw PolicyError(
                kind: .stateTooLarge, field: "decision.remember",
                message: "remembered state would take \(size) bytes, more than the \(Ledger.stateByteLimit) allowed; "
                    + "remember less (set unused keys to nil to delete them)")
        }
        state = updated
    }
}
