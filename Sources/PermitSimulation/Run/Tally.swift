/// What a group of simulated users did under one policy: counts only, so tallies of blocks
/// merge exactly (in block order) into the same result whatever thread ran which block.
struct Tally: Sendable {
    var users = 0
    /// Installed users in each `Reach` at the end of each day (counted at the day boundary only,
    /// so tallying costs nothing per event).
    var reachByDay: [ReachCounts]
    var uninstalledAtEnd = 0
    var events = 0
    /// Sessions, and those that were cold launches (a new process: the policy started over).
    var sessions = 0
    var coldLaunches = 0
    var softPrompts = 0
    var systemDialogs = 0
    var settingsPrompts = 0
    var softAccepted = 0
    var softDeclined = 0
    var softDismissed = 0
    var dialogsCold = 0
    var dialogsColdAllowed = 0
    var dialogsAfterAccept = 0
    var dialogsAfterAcceptAllowed = 0
    var settingsOpened = 0
    /// Inline rows (`presentation = "inline"`) seen, and acted on: not prompts.
    var inlineShown = 0
    var inlineActed = 0
    var settingsEnabled = 0
    var uninstalls = 0
    var reinstalls = 0
    /// The app's own events sent (`events:` in the model), by name.
    var appEvents: [String: Int] = [:]
    /// Times a device changed time zone (`travel:` in the model).
    var timeZoneChanges = 0
    /// Quiet (provisional) users who chose, from a quiet notification, to leave it quiet, turn
    /// notifications off, or Keep it (Deliver Immediately: authorized, still without alerts).
    var quietLeftQuiet = 0
    var quietTurnedOff = 0
    var quietDeliveredImmediately = 0
    /// Seconds from a user's first launch to the first time they could receive alerts (full
    /// authorization, alerts on), for those who ever could.
    var secondsToAlerts: [Int32] = []
    var errors: [String: Int] = [:]
    var warnings: [String: Int] = [:]
    /// The first policy error met (in user order), as an example to show.
    var firstError: String?
    /// The same counts for the users of each experiment's arm (empty for a policy without
    /// experiments, and inside an arm's own tally).
    var arms: [ArmKey: Tally] = [:]
    /// Users the policy's engine never put in an arm, per experiment: with every user's arm
    /// read from the first event that carries it this stays 0, and a report says so if not,
    /// rather than losing users between the arms.
    var withoutArm: [String: Int] = [:]
    /// Each user's state on the kept days (`ReachCounts.code`), one byte per user per kept day,
    /// users in order: what pairs the users of two policies. Filled per block (not per user),
    /// appended in block order by `merge`.
    var outcomes: [UInt8] = []

    /// An experiment and one of its arms.
    struct ArmKey: Hashable, Sendable {
        let experiment: String
        let arm: String
    }

    /// Adds one user's tally, to the whole and to the tally of each arm the user is in; a user
    /// with no arm of one of `experiments` is counted as such.
    mutating func add(user: Tally, arms userArms: [String: String], experiments: [String] = []) {
        merge(user)
        for (experiment, arm) in userArms {
            arms[ArmKey(experiment: experiment, arm: arm), default: Tally(days: reachByDay.count)].merge(user)
        }
        for experiment in experiments where userArms[experiment] == nil { withoutArm[experiment, default: 0] += 1 }
    }

    init(days: Int) {
        reachByDay = Array(repeating: ReachCounts(), count: days)
    }

    mutating func merge(_ other: Tally) {
        users += other.users
        for day in reachByDay.indices { reachByDay[day].add(other.reachByDay[day]) }
        quietLeftQuiet += other.quietLeftQuiet
        quietTurnedOff += other.quietTurnedOff
        quietDeliveredImmediately += other.quietDeliveredImmediately
        uninstalledAtEnd += other.uninstalledAtEnd
        events += other.events
        sessions += other.sessions
        coldLaunches += other.coldLaunches
        softPrompts += other.softPrompts
        systemDialogs += other.systemDialogs
        settingsPrompts += other.settingsPrompts
        softAccepted += other.softAccepted
        softDeclined += other.softDeclined
        softDismissed += other.softDismissed
        dialogsCold += other.dialogsCold
        dialogsColdAllowed += other.dialogsColdAllowed
        dialogsAfterAccept += other.dialogsAfterAccept
        dialogsAfterAcceptAllowed += other.dialogsAfterAcceptAllowed
        settingsOpened += other.settingsOpened
        inlineShown += other.inlineShown
        inlineActed += other.inlineActed
        settingsEnabled += other.settingsEnabled
        uninstalls += other.uninstalls
        reinstalls += other.reinstalls
        timeZoneChanges += other.timeZoneChanges
        secondsToAlerts += other.secondsToAlerts
        if !other.outcomes.isEmpty { outcomes += other.outcomes }
        if firstError == nil { firstError = other.firstError }
        // A user's tally usually has no app events, errors, warnings or arms: a merge of an
        // empty dictionary still walks it (and in a debug build looks up its generic metadata).
        if !other.appEvents.isEmpty { appEvents.merge(other.appEvents, uniquingKeysWith: +) }
        if !other.errors.isEmpty { errors.merge(other.errors, uniquingKeysWith: +) }
        if !other.warnings.isEmpty { warnings.merge(other.warnings, uniquingKeysWith: +) }
        if !other.withoutArm.isEmpty { withoutArm.merge(other.withoutArm, uniquingKeysWith: +) }
        if !other.arms.isEmpty {
            for (key, tally) in other.arms { arms[key, default: Tally(days: reachByDay.count)].merge(tally) }
        }
    }
}
