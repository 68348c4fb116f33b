import Foundation
import PermitCore
import PermitInput
import PermitSimulator

/// What parsing a step needs beyond the step itself: the case's iOS version (settings that do
/// not exist on it are refused), the folder relative paths start from, and the case switch
/// that picks expectations written per case.
struct StepContext {
    var version: OSVersion
    var directory: URL?
    var switches: CaseSwitch
    /// The scenario's `start`, for times written `start+3d` (`expect_ledger`).
    var start: Date
}

extension ScenarioParser {
    /// Keys an included steps file may hold: its steps, and a place for anchors they share.
    static let includedFileKeys = ["steps", "anchors"]

    /// `user.bucket`, or the matrix's `bucket` for this case.
    static func parseBucket(_ user: YAMLValue?, case matrixCase: ScenarioMatrix.Case) throws(InputError) -> Int {
        var fields = try user?.fields(allowed: userKeys) ?? [:]
        try applyMatrix(matrixCase, to: &fields, axes: ["bucket"])
        return try fields["bucket"]?.int(in: 0...99) ?? 0
    }

    /// `user.arms`: the experiment arms the scenario pins, each with where it was written so a
    /// pin the policy does not declare is reported at its line.
    static func parseArms(_ user: YAMLValue?) throws(InputError) -> [(experiment: String, arm: String, location: SourceLocation)] {
        guard let user else { return [] }
        var arms: [(experiment: String, arm: String, location: SourceLocation)] = []
        for (experiment, value) in try user.fields(allowed: userKeys)["arms"]?.table() ?? [] {
            arms.append((experiment, try value.string(), value.location))
        }
        return arms
    }

    /// Puts the case's values of `axes` into a table's fields; a field the matrix varies may
    /// not also be written in the table, since one of the two would silently lose.
    static func applyMatrix(
        _ matrixCase: ScenarioMatrix.Case, to fields: inout [String: YAMLValue], axes: [String]
    ) throws(InputError) {
        for axis in axes {
            guard let value = matrixCase.value(of: axis) else { continue }
            if let written = fields[axis] {
                throw written.error("\(axis) is set by the matrix", hint: "remove it here, or remove \(axis) from `matrix:`")
            }
            fields[axis] = value
        }
    }

    /// The steps with every `- include: FILE` replaced by that file's steps, each with the
    /// include step that brought it (for errors), so a shared launch → feature → background
    /// preamble is written once per pack.
    static func expandIncludes(
        _ items: [YAMLValue], context: StepContext
    ) throws(InputError) -> [(value: YAMLValue, includer: YAMLValue?)] {
        var expanded: [(value: YAMLValue, includer: YAMLValue?)] = []
        // Past the cap nothing more is read: `parseSteps` refuses the step at the cap.
        for item in items where expanded.count <= ScenarioInputChecks.maxSteps {
            guard case .mapping = item.node, let include = try item.fields(allowed: stepKeys)["include"] else {
                expanded.append((item, nil))
                continue
            }
            guard try item.table().count == 1 else {
                throw item.error("an include step only includes", hint: "put the other keys on a step of their own after it")
            }
            for step in try includedSteps(include, context: context) { expanded.append((step, include)) }
        }
        return expanded
    }

    /// The steps of an included file (`steps:`, optionally `anchors:`), named by its own path
    /// so errors point into it.
    static func includedSteps(_ include: YAMLValue, context: StepContext) throws(InputError) -> [YAMLValue] {
        let url = try existingFile(include, directory: context.directory, what: "steps file")
        let name = Discovery.displayPath(of: url)
        do throws(InputError) {
            let text = try InputText.read(url, name: name)
            let root = try YAMLValue.parse(text, file: name, emptyHint: "an included file holds `steps:`")
            guard let steps = try root.fields(allowed: includedFileKeys)["steps"] else {
                throw root.error("missing \"steps\"", hint: "an included file is `steps:` and a list of steps")
            }
            let list = try steps.list()
            guard !list.isEmpty else { throw steps.error("there are no steps") }
            return list
        } catch {
            throw error.included(by: include)
        }
    }

    /// `expect_reminders`: the table form (`count`, `alert`, `local_times`, `interruption_level`) or a list with one
    /// entry per reminder, soonest first.
    static func parseExpectedReminders(
        _ value: YAMLValue, switches: CaseSwitch
    ) throws(InputError) -> Scenario.ExpectedReminders {
        guard case .sequence = value.node else {
            var table: [String: YAMLValue] = [:]
            for (key, item) in try value.table(allowed: expectedReminderKeys) { table[key] = try switches.resolve(item) }
            return Scenario.ExpectedReminders(
                count: try table["count"]?.int(in: 0...64), alert: try table["alert"]?.bool(),
                localTimes: try table["local_times"].map(parseLocalTimes),
                interruptionLevel: try table["interruption_level"].map { value throws(InputError) in
                    InterruptionLevel(rawValue: try value.oneOf(["none"] + InterruptionLevel.allCases.map(\.rawValue)))
                })
        }
        var each: [Scenario.ExpectedReminder] = []
        for entry in try value.list() {
            var item: [String: YAMLValue] = [:]
            for (key, field) in try entry.table(allowed: expectedReminderItemKeys) { item[key] = try switches.resolve(field) }
            guard !item.isEmpty else {
                throw entry.error("the reminder lists nothing to check", hint: "give at least `at: \"2026-01-06 09:00\"`")
            }
            each.append(
                Scenario.ExpectedReminder(
                    line: entry.location.line, at: try item["at"].map(parseLocalTime), title: try item["title"]?.string(),
                    body: try item["body"]?.string(), alert: try item["alert"]?.bool(), id: try item["id"]?.string()))
        }
        return Scenario.ExpectedReminders(count: nil, alert: nil, localTimes: nil, each: each)
    }

    /// `expect_notified`: a list with one entry per notification the step posted, in order;
    /// `[]` expects none.
    static func parseExpectedNotifications(
        _ value: YAMLValue, switches: CaseSwitch
    ) throws(InputError) -> [Scenario.ExpectedNotification] {
        var each: [Scenario.ExpectedNotification] = []
        for entry in try value.list() {
            var item: [String: YAMLValue] = [:]
            for (key, field) in try entry.table(allowed: expectedNotificationKeys) { item[key] = try switches.resolve(field) }
            guard !item.isEmpty else {
                throw entry.error("the notification lists nothing to check", hint: "give at least `delivered: banner`")
            }
            each.append(
                Scenario.ExpectedNotification(
                    line: entry.location.line, title: try item["title"]?.string(), body: try item["body"]?.string(),
                    id: try item["id"]?.string(),
                    delivered: try item["delivered"].flatMap { value throws(InputError) in
                        PostedNotification.Delivery(rawValue: try value.oneOf(PostedNotification.Delivery.allCases.map(\.rawValue)))
                    },
                    sound: try item["sound"]?.bool()))
        }
        return each
    }

    /// A list of `"yyyy-MM-dd HH:mm"` wall-clock times (`local_times`, `expect_pending`).
    static func parseLocalTimes(_ list: YAMLValue) throws(InputError) -> [String] {
        var times: [String] = []
        for item in try list.list() { times.append(try parseLocalTime(item)) }
        return times
    }

    /// `yyyy-MM-dd HH:mm` on the device's wall clock, a real day and time.
    static func parseLocalTime(_ item: YAMLValue) throws(InputError) -> String {
        let text = try item.string()
        guard text.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/) != nil else {
            throw item.error("\"\(text)\" is not a local time", hint: "write it as \"2026-09-06 09:00\" (yyyy-MM-dd HH:mm)")
        }
        if let problem = ScenarioInputChecks.impossibleDate(text) {
            throw item.error("\"\(text)\" is not a local time: \(problem)", hint: "write it as \"2026-09-06 09:00\" (yyyy-MM-dd HH:mm)")
        }
        return text
    }

    /// `expect_trace`: a piece or `/pattern/`, or a list of them; `[]` expects no log at all.
    static func parseExpectedTrace(_ value: YAMLValue) throws(InputError) -> [TextMatch] {
        guard case .sequence = value.node else { return [try TextMatch.parse(value)] }
        var matches: [TextMatch] = []
        for item in try value.list() { matches.append(try TextMatch.parse(item)) }
        return matches
    }
}

extension InputError {
    /// The error of an included step, saying which scenario line included it.
    func included(by include: YAMLValue) -> InputError {
        var error = self
        error.message += " (in the steps included at \(include.location.file):\(include.location.line))"
        return error
    }
}
