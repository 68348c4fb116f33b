import Foundation
import PermitCore
import PermitInput

/// A line of a decision log that `permit fit` cannot read: the file, the line and what is wrong.
public struct FitInputError: Error, Sendable, CustomStringConvertible {
    /// The file as the user named it.
    public let file: String
    /// The line, from 1.
    public let line: Int
    /// What is wrong, naming the field.
    public let message: String

    /// The error as the command prints it: file, line, what is wrong, and what a line should be.
    public var description: String {
        "\(file):\(line > 0 ? "\(line):" : "") \(message); each line is one JSON object as `permit simulate --records` writes it "
            + "(docs/reference/cli.md#cli-fit)"
    }
}

/// What `permit fit` reads of one logged record: the app logger's ids and platform, and the
/// record's fields the figures come from.
public struct FitRecord: Sendable, Hashable {
    /// The install's id (new after each reinstall).
    public var install: String
    /// The id that survives a deletion, when the app keeps one: only it shows a reinstall.
    public var user: String?
    /// The iOS version, as `17.5`.
    public var os: String
    /// The BCP 47 locale.
    public var locale: String
    /// `time`: Unix seconds.
    public var time: Int64
    /// `event.name`.
    public var event: String
    /// `event.answer` (soft and settings prompts) or `event.granted` ("true"/"false").
    public var answer: String?
    /// `event.feature` (`feature_opened`).
    public var feature: String?
    /// `status_before`.
    public var statusBefore: String
    /// `status_after`.
    public var statusAfter: String
    /// `decision.action`.
    public var action: String
    /// `decision.presentation` is "inline".
    public var inline: Bool
    /// `dialog_shown`.
    public var dialogShown: Bool
    /// `policy.name`.
    public var policy: String?

    /// Reads one line; every problem is an error naming the file, the line and the field.
    public static func parse(line text: String, file: String, line: Int) throws(FitInputError) -> FitRecord {
        func fail(_ message: String) -> FitInputError { FitInputError(file: file, line: line, message: message) }
        let parsed: Line
        do {
            parsed = try decoder.decode(Line.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw fail(Self.message(error))
        } catch {
            throw fail("not JSON")
        }
        guard let record = parsed.record else {
            if parsed.schema != nil {
                throw fail(
                    "a bare decision record: missing \"record\"; the fit needs the install each record belongs to: wrap it as {\"install\", \"user\", \"os\", \"locale\", \"record\"}"
                )
            }
            throw fail("missing \"record\"")
        }
        guard let version = record.schema else { throw fail("missing \"record.schema\"") }
        guard version == DecisionRecord.schemaVersion else {
            throw fail("record schema \(version) is not one this build reads (schema \(DecisionRecord.schemaVersion))")
        }
        func required<T>(_ value: T?, _ path: String) throws(FitInputError) -> T {
            guard let value else { throw fail("missing \"\(path)\"") }
            return value
        }
        let install = try required(parsed.install, "install")
        guard !install.isEmpty else { throw fail("\"install\" is empty") }
        let os = try required(parsed.os, "os")
        let locale = try required(parsed.locale, "locale")
        // Both become keys of the fitted model, which reads only these forms.
        guard (try? OSVersion(parsing: os)) != nil else {
            throw fail("\"os\" is \"\(TerminalText.inline(os))\", not an iOS version like 17.5")
        }
        guard UserModel.isLocale(locale) else {
            throw fail("\"locale\" is \"\(TerminalText.inline(locale))\", not a BCP 47 locale like en, zh-Hans or pt-BR")
        }
        let time = try required(record.time, "record.time")
        let event = try required(record.event, "record.event")
        let name = try required(event.name, "record.event.name")
        let before = try required(record.statusBefore, "record.status_before")
        let after = try required(record.statusAfter, "record.status_after")
        for (key, value) in [("status_before", before), ("status_after", after)] where PermissionStatus(rawValue: value) == nil {
            throw fail("\"record.\(key)\" is \"\(value)\", not a status")
        }
        let decision = try required(record.decision, "record.decision")
        let action = try required(decision.action, "record.decision.action")
        let shown = try required(record.dialogShown, "record.dialog_shown")
        return FitRecord(
            install: install, user: parsed.user, os: os, locale: locale, time: time, event: name,
            answer: event.answer ?? event.granted.map { $0 ? "true" : "false" }, feature: event.feature,
            statusBefore: before, statusAfter: after, action: action, inline: decision.presentation == "inline",
            dialogShown: shown, policy: record.policy?.name)
    }

    private static let decoder = JSONDecoder()

    /// A decoding error as the field it is about and what is wrong with it.
    private static func message(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            (context.codingPath + (last.map { [$0] } ?? [])).map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "\"\(path(context))\" is not valid"
        case .keyNotFound(let key, let context):
            return "missing \"\(path(context, key))\""
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            if context.codingPath.isEmpty { return "not a JSON object" }
            let kind =
                type == String.self
                ? "a string"
                : type == Bool.self
                    ? "true or false"
                    : type == Int.self || type == Int64.self ? "a whole number" : "an object"
            return "\"\(path(context))\" is not \(kind)"
        @unknown default:
            return "not a record line"
        }
    }

    /// The parts of a line the fit reads; the rest of the record is not needed (and not checked).
    private struct Line: Decodable {
        var install: String?
        var user: String?
        var os: String?
        var locale: String?
        var record: Record?
        /// A bare record's `schema`, to say what is missing.
        var schema: Int?
    }

    private struct Record: Decodable {
        struct Policy: Decodable { var name: String? }
        struct Event: Decodable {
            var name: String?
            var answer: String?
            var granted: Bool?
            var feature: String?
        }
        struct Decision: Decodable {
            var action: String?
            var presentation: String?
        }
        var schema: Int?
        var policy: Policy?
        var time: Int64?
        var event: Event?
        var statusBefore: String?
        var statusAfter: String?
        var decision: Decision?
        var dialogShown: Bool?

        enum CodingKeys: String, CodingKey {
            case schema, policy, time, event, decision
            case statusBefore = "status_before"
            case statusAfter = "status_after"
            case dialogShown = "dialog_shown"
        }
    }

    /// The groups a figure of this record counts in: everybody (""), its OS version
    /// (`os 17.5`) and its locale (`locale en`).
    var groups: [String] { ["", "os \(os)", "locale \(locale)"] }

    /// The UTC day of `time` (sessions are counted per UTC day).
    var day: Int { Int((Double(time) / 86_400).rounded(.down)) }
}

/// Successes out of trials, overall and for each OS version and locale.
public struct Counts: Sendable, Hashable {
    /// The times the outcome happened.
    public var successes = 0
    /// The times it could have.
    public var trials = 0

    mutating func add(_ success: Bool) {
        trials += 1
        if success { successes += 1 }
    }
}

/// The counts `permit fit` gathers from decision logs, one install at a time: each install's
/// records must be in time order (as an app logs them), installs may interleave.
public struct RecordFit: Sendable {
    /// A share the records measure, by name (`soft_prompt.accept` …), overall and by group
    /// (`os 17.5`, `locale en`).
    public private(set) var shares: [String: [String: Counts]] = [:]
    /// The answers whose "yes" each prompt seen makes less likely (`soft_prompt.accept`,
    /// `system_dialog.allow_*`, `settings_prompt.open`, `.enable`), by how many prompts the
    /// person had answered before, overall (group "") and by group (`os 17.5`, `locale en`):
    /// what `AnnoyanceFit` fits first-prompt chances from.
    public private(set) var answersByPrompts: [String: [String: [Int: Counts]]] = [:]
    /// Sessions on whole days inside each install's logged span, and those days.
    public private(set) var sessionsOnInnerDays = 0
    public private(set) var innerDays = 0
    /// The sum of each inner day's sessions squared (a day without one adds 0): with the sum and
    /// the days, the day counts' variance, to tell a Poisson from counts that spread more.
    public private(set) var sessionSquaresOnInnerDays = 0
    /// Sessions, and the feature opens in them.
    public private(set) var sessions = 0
    public private(set) var featureOpens = 0
    /// The app's own events (`events:` in a model), counted for their figures.
    public private(set) var appEvents = AppEventCounts()
    /// Feature opens by feature.
    public private(set) var features: [String: Int] = [:]
    /// Installs (or users, when the logger gives a durable id) by OS version and by locale.
    public private(set) var osVersions: [String: Int] = [:]
    public private(set) var locales: [String: Int] = [:]
    /// Users (durable ids) seen with more than one install: reinstalls the logs show.
    public private(set) var reinstalledUsers = 0
    /// Records read, installs, policies named.
    public private(set) var recordCount = 0
    public private(set) var policies: Set<String> = []
    /// Lines skipped as exact repeats of an earlier line of the same install at the same time:
    /// an analytics pipeline that delivers a batch twice would otherwise double every count.
    public private(set) var duplicateLines = 0

    private var installs: [String: InstallState] = [:]
    /// Prompts answered so far, per person (the durable id when the logs give one: a person who
    /// reinstalls has still seen the prompts of the earlier install).
    private var promptsAnswered: [String: Int] = [:]
    private var seenUsers: [String: String] = [:]
    private var countedUsers: Set<String> = []

    /// A fit that has read nothing yet.
    public init() {}

    /// Reads every line of a JSON Lines file (blank lines skipped), a megabyte at a time: a log
    /// of millions of records is never held whole. A line is a full record or a compact line
    /// of an install's records (`CompactRecords`); a file may mix them.
    public mutating func read(contentsOf url: URL, name: String) throws(FitInputError) {
        var read = 0
        let number = try Self.lines(of: url, name: name) { text, line throws(FitInputError) in
            let compact = CompactRecords.isCompact(text)
            for record in try Self.records(in: text, file: name, line: line) {
                if let policy = record.policy { policies.insert(policy) }
                read += 1
                // A compact record's repeat is told by the fields it keeps; a full one's by its line.
                try add(record, file: name, line: line, text: compact ? CompactRecords.identity(record) : text)
            }
        }
        guard read > 0 else {
            throw FitInputError(
                file: name, line: 0,
                message: number == 0 ? "no records: the file is empty" : "no records: its \(number) lines hold none")
        }
    }

    /// The records of one line, in either form.
    static func records(in text: String, file: String, line: Int) throws(FitInputError) -> [FitRecord] {
        if CompactRecords.isCompact(text) { return try CompactRecords.parse(line: text, file: file, line: line) }
        return [try FitRecord.parse(line: text, file: file, line: line)]
    }

    /// Calls `body` with each line of the file that is not blank, trimmed, and its number
    /// (from 1), reading a megabyte at a time; returns how many lines the file has.
    @discardableResult
    static func lines(
        of url: URL, name: String, _ body: (String, Int) throws(FitInputError) -> Void
    ) throws(FitInputError) -> Int {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw FitInputError(file: name, line: 0, message: "cannot read the file: \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        var pending = Data()
        var number = 0
        func line(_ bytes: Data) throws(FitInputError) {
            number += 1
            guard let text = String(data: bytes, encoding: .utf8) else {
                throw FitInputError(file: name, line: number, message: "not UTF-8 text")
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { try body(trimmed, number) }
        }
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw FitInputError(file: name, line: number, message: "cannot read the file: \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            pending.append(chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                try line(pending[start..<newline])
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
        }
        if !pending.isEmpty { try line(pending) }
        return number
    }

    /// Adds one record of an install, after that install's earlier ones. `text`, the line it was
    /// read from: a line equal to an earlier one of the same install at the same time is a
    /// repeat (a batch delivered twice) and is skipped and counted in `duplicateLines`.
    public mutating func add(_ record: FitRecord, file: String = "", line: Int = 0, text: String? = nil) throws(FitInputError) {
        var state = installs[record.install] ?? InstallState(first: record)
        if let previous = state.previous, record.time < previous.time {
            throw FitInputError(
                file: file, line: line,
                message:
                    "\"record.time\" \(record.time) is before the previous record of install \(record.install) (\(previous.time)); "
                    + "sort each install's records by time (a log given twice, or repeated out of order, does this too)"
            )
        }
        if let text {
            if state.previous?.time != record.time { state.linesThisSecond = [] }
            guard state.linesThisSecond.insert(text.hashValue).inserted else {
                duplicateLines += 1
                installs[record.install] = state
                return
            }
        }
        recordCount += 1
        if state.previous == nil { countPopulation(record) }
        step(record, &state)
        state.previous = record
        installs[record.install] = state
    }

    private mutating func countPopulation(_ record: FitRecord) {
        let who = record.user ?? record.install
        if let user = record.user {
            if let install = seenUsers[user], install != record.install {
                if countedUsers.insert(user).inserted { reinstalledUsers += 1 }
            }
            seenUsers[user] = record.install
        }
        guard !countedPeople.contains(who) else { return }
        countedPeople.insert(who)
        osVersions[record.os, default: 0] += 1
        locales[record.locale, default: 0] += 1
    }
    private var countedPeople: Set<String> = []

    /// A "yes or not" answer that annoyance affects, counted at the person's prompts so far;
    /// `prompt`: the answer was to a prompt, which counts towards the next answers.
    private mutating func answer(_ name: String, _ record: FitRecord, _ yes: Bool, prompt: Bool) {
        share(name, record, yes)
        let person = record.user ?? record.install
        let before = promptsAnswered[person, default: 0]
        for group in record.groups {
            answersByPrompts[name, default: [:]][group, default: [:]][before, default: Counts()].add(yes)
        }
        if prompt { promptsAnswered[person] = before + 1 }
    }

    private mutating func share(_ name: String, _ record: FitRecord, _ success: Bool) {
        for group in record.groups {
            shares[name, default: [:]][group, default: Counts()].add(success)
        }
    }

    /// One record, read against the install's previous one.
    private mutating func step(_ r: FitRecord, _ s: inout InstallState) {
        let previous = s.previous
        let day = r.day
        s.lastDay = day
        // Back from Settings: the first app_foreground after the user left for Settings.
        if let from = s.visitFrom {
            s.visitFrom = nil
            if r.event == "app_foreground" {
                // Only a denial shows in the status: switching Alerts on leaves it authorized.
                if from == "denied" { answer("settings_prompt.enable", r, r.statusAfter == "authorized", prompt: false) }
                if s.quiet == .waiting { s.leaveQuiet(on: day) }
                noteOutcome(r, &s)
                return
            }
        }
        if r.event == "app_launch" || r.event == "app_foreground" {
            startSession(r, day: day, &s)
        }
        if r.event == "feature_opened" {
            featureOpens += 1
            if let feature = r.feature { features[feature, default: 0] += 1 }
        } else if !AppEventCounts.builtIn.contains(r.event) {
            let firstToday = s.appEventDays[r.event] != day
            s.appEventDays[r.event] = day
            appEvents.note(r.event, installSession: s.sessions, firstToday: firstToday)
        }
        switch r.event {
        case "soft_prompt_answered":
            if let previous, previous.action == "soft_prompt" {
                if previous.inline {
                    share("inline.act", r, true)
                    s.inlinePending = false
                } else if let answer = r.answer {
                    self.answer("soft_prompt.accept", r, answer == "accept", prompt: true)
                    share("soft_prompt.dismiss", r, answer == "dismiss")
                }
            }
        case "settings_prompt_answered":
            if let previous, previous.action == "settings_prompt" {
                if previous.inline {
                    share("inline.act", r, true)
                    s.inlinePending = false
                } else {
                    answer("settings_prompt.open", r, r.answer == "open", prompt: true)
                }
            }
            if r.answer == "open" { s.visitFrom = r.statusAfter }
        case "system_prompt_answered":
            if let previous, previous.dialogShown, let granted = r.answer {
                let afterAccept = previous.event == "soft_prompt_answered" && previous.answer == "accept"
                answer(
                    afterAccept ? "system_dialog.allow_after_soft_accept" : "system_dialog.allow_cold", r, granted == "true",
                    prompt: true)
            }
        default:
            break
        }
        noteOutcome(r, &s)
    }

    /// What the record's decision starts: an inline row seen, Settings opened by a tap; and
    /// what it says of quiet delivery.
    private mutating func noteOutcome(_ r: FitRecord, _ s: inout InstallState) {
        if s.inlinePending, let row = s.previous {
            // The row before was seen and scrolled past: nothing answered it.
            share("inline.act", row, false)
        }
        s.inlinePending = (r.action == "soft_prompt" || r.action == "settings_prompt") && r.inline
        if r.action == "open_settings" { s.visitFrom = r.statusAfter }
        switch s.quiet {
        case .none:
            if r.statusAfter == "provisional" {
                s.quiet = .waiting
                s.provisionalDay = r.day
            }
        case .waiting:
            if r.dialogShown || r.statusAfter != "provisional" { s.leaveQuiet(on: r.day) }
        default:
            break
        }
    }

    /// A session starts (a launch, or a return from the background that is not a return from
    /// Settings). Quiet users' choices show here, on the first read after they made them.
    private mutating func startSession(_ r: FitRecord, day: Int, _ s: inout InstallState) {
        sessions += 1
        if s.sessions > 0 { share("cold_launch_share", r, r.event == "app_launch") }
        s.sessions += 1
        if s.sessions == 1 || day != s.lastSessionDay { appEvents.sessionDayStarted() }
        if s.sessions == 1 {
            s.firstDay = day
            s.firstDayCount = 1
            s.lastSessionDay = day
            s.lastSessionDayCount = 1
        } else if day == s.lastSessionDay {
            s.lastSessionDayCount += 1
            if day == s.firstDay { s.firstDayCount += 1 }
        } else {
            // The day before is over; it is an inner day unless it was the first.
            if s.lastSessionDay != s.firstDay { s.squaresOnInnerDays += s.lastSessionDayCount * s.lastSessionDayCount }
            s.lastSessionDay = day
            s.lastSessionDayCount = 1
        }
        if s.quiet == .waiting, r.statusBefore == "provisional", r.statusAfter != "provisional" {
            switch r.statusAfter {
            case "denied": s.quiet = .turnedOff
            case "authorized": s.quiet = .keptImmediate
            default: s.leaveQuiet(on: day)
            }
            s.quietSeenDay = day
        }
    }

    /// Closes every install: sessions on inner days, quiet choices. Call once, after the last record.
    public mutating func finish() -> Finished {
        var quiet: [(install: String, state: InstallState)] = []
        for (install, var state) in installs {
            if state.inlinePending, let row = state.previous {
                share("inline.act", row, false)
                state.inlinePending = false
            }
            if state.sessions > 0, state.lastSessionDay > state.firstDay {
                // Days strictly between the first and the last day with a session: the first
                // day always has one (it is when the log starts), and so does the last, but the
                // days between are ordinary days.
                sessionsOnInnerDays += state.sessions - state.firstDayCount - state.lastSessionDayCount
                innerDays += state.lastSessionDay - state.firstDay - 1
                sessionSquaresOnInnerDays += state.squaresOnInnerDays
            }
            if state.provisionalDay != nil { quiet.append((install, state)) }
        }
        installs = [:]
        var finished = Finished()
        // Every quiet user counts until their choice shows, or until they were last seen quiet:
        // the end of their log, or the day they left quiet delivery by a dialog or Settings.
        var follows: [String: [QuietChoices.Follow]] = [:]
        for (_, state) in quiet.sorted(by: { $0.install < $1.install }) {
            guard let start = state.provisionalDay, let record = state.previous else { continue }
            let follow: QuietChoices.Follow
            switch state.quiet {
            case .turnedOff, .keptImmediate:
                finished.quietChoices += 1
                follow = QuietChoices.Follow(days: state.quietSeenDay - start, outcome: state.quiet == .turnedOff ? .turnOff : .immediate)
                finished.longestQuietWait = max(finished.longestQuietWait ?? 0, state.quietSeenDay - start)
            case .excluded:
                finished.quietExcluded += 1
                follow = QuietChoices.Follow(days: state.quietExitDay - start, outcome: nil)
            default:
                finished.quietUndecided += 1
                follow = QuietChoices.Follow(days: state.lastDay - start, outcome: nil)
            }
            for group in record.groups { follows[group, default: []].append(follow) }
        }
        for (group, list) in follows {
            guard let estimate = QuietChoices.estimate(list) else { continue }
            for (name, share) in [
                ("keep_quiet", estimate.keep), ("turn_off", estimate.turnOff), ("deliver_immediately", estimate.immediate),
            ] {
                shares["provisional.\(name)", default: [:]][group] = estimate.counts(share)
            }
            if group.isEmpty { finished.quietEffectiveUsers = estimate.effectiveUsers }
        }
        return finished
    }

    /// What closing the installs found about quiet users.
    public struct Finished: Sendable {
        /// Quiet users whose choice the logs show.
        public var quietChoices = 0
        /// Quiet users still quiet when their log ends (counted until then).
        public var quietUndecided = 0
        /// Quiet users who left quiet delivery otherwise (a dialog, Settings), counted until then.
        public var quietExcluded = 0
        /// The effective number of quiet users behind the shares (`QuietChoices`).
        public var quietEffectiveUsers = 0.0
        /// The longest wait, in days, before a quiet user's choice showed in the logs.
        public var longestQuietWait: Int?
    }

    private enum Quiet: Sendable { case none, waiting, turnedOff, keptImmediate, excluded }

    private struct InstallState: Sendable {
        var previous: FitRecord?
        var visitFrom: String?
        var inlinePending = false
        var sessions = 0
        var firstDay = 0
        var firstDayCount = 0
        var lastSessionDay = 0
        var lastSessionDayCount = 0
        var squaresOnInnerDays = 0
        var lastDay = 0
        var quiet = Quiet.none
        var provisionalDay: Int?
        var quietSeenDay = 0
        /// The lines of this install read at the time of its last record (hashes), to find repeats.
        var linesThisSecond: Set<Int> = []
        /// The day a quiet user left quiet delivery by a dialog or Settings (no choice of theirs).
        var quietExitDay = 0
        /// The last day each of the app's own events was logged for this install.
        var appEventDays: [String: Int] = [:]

        /// Out of quiet delivery another way than the choice the model asks about.
        mutating func leaveQuiet(on day: Int) {
            quiet = .excluded
            quietExitDay = day
        }

        init(first: FitRecord) {}
    }
}
