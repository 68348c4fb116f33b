import Foundation
import PermitCore
import PermitInput
import PermitSimulator

/// Reads scenario YAML into a `Scenario`, validating every field and naming file, line and
/// column for every mistake.
public enum ScenarioParser {
    static let topKeys = [
        "name", "policy", "device", "user", "params", "engine", "start", "initial", "steps", "trusted_keys", "only", "skip",
        "matrix", "anchors",
    ]
    static let deviceKeys = [
        "os", "locale", "timezone", "app_clip", "stale_reads", "app_clip_ephemeral", "app_clip_card_notifications",
        "scheduled_summary", "entitlements", "pending_overflow", "dialog_on_background", "live_activities", "app_version",
        "app_name",
    ]
    static let userKeys = ["bucket", "arms"]
    static let engineKeys = ["max_prompts_per_day"]
    static let initialKeys = ["authorization", "settings", "ledger"]
    /// A `settings:` step: the authorization and any setting name.
    static let settingsStepKeys = ["authorization"] + NotificationSettings.names
    static let reinstallKeys = ["system_remembers", "keychain_survives", "uninstalled_for"]
    static let expectedReminderKeys = ["count", "alert", "local_times", "interruption_level"]
    /// One reminder of `expect_reminders` written as a list.
    static let expectedReminderItemKeys = ["at", "title", "body", "alert", "id"]
    /// One notification of `expect_notified`.
    static let expectedNotificationKeys = ["title", "body", "id", "delivered", "sound"]
    static let stepActionKeys = [
        "event", "answer", "settings", "reinstall", "policy_update", "external_request", "timezone", "open_settings_link",
        "terminate", "provisional_keep", "app_update",
    ]
    static let stepKeys =
        [
            "after", "event", "feature", "properties", "answer", "settings", "reinstall", "policy_update", "external_request",
            "timezone", "open_settings_link", "terminate", "provisional_keep", "app_update", "expect_update", "include",
        ] + expectationKeys
    /// Steps that send the policy an event of their own, so the decision's expectations apply.
    static let decidingActions = ["event", "answer", "timezone", "open_settings_link"]
    static let expectationKeys = [
        "expect", "expect_status", "expect_warning", "expect_error", "expect_dialog", "expect_pending", "expect_ledger",
        "expect_reminders", "expect_settings", "expect_remote_registration", "expect_trace", "expect_followup", "expect_screen",
        "expect_notified",
    ]
    /// Fields an `expect` table may match.
    public static let decisionFields = [
        "action", "reason", "title", "message", "accept", "decline", "open", "cancel", "presentation", "variant",
        "deep_link", "options", "for_setting", "cap_exempt", "button", "id", "link", "url", "rows", "row",
    ]
    /// Events a step may send with `event:`; answers go through `answer:`.
    static let stepEvents = [
        "app_launch", "app_foreground", "app_background", "feature_opened", "feature_closed", "background_refresh",
    ]
    /// 2026-01-05 08:00 UTC, a Monday: the default start, so runs are reproducible.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_600_000)

    /// Parses the file at `url`: its first case when it has a `matrix` (`parseCases` gives all).
    public static func parse(contentsOf url: URL, displayName: String? = nil) throws(InputError) -> Scenario {
        try parseCases(contentsOf: url, displayName: displayName)[0]
    }

    /// Parses scenario text: its first case when it has a `matrix` (`parseCases` gives all).
    public static func parse(_ text: String, file: String, directory: URL? = nil) throws(InputError) -> Scenario {
        try parseCases(text, file: file, directory: directory)[0]
    }

    /// Parses the file at `url` into its cases: one scenario, or one per `matrix` combination.
    public static func parseCases(contentsOf url: URL, displayName: String? = nil) throws(InputError) -> [Scenario] {
        let name = displayName ?? url.path
        let text = try InputText.read(url, name: name)
        return try parseCases(text, file: name, directory: url.deletingLastPathComponent())
    }

    /// Parses scenario text into its cases; `directory` resolves relative paths (`policy:`,
    /// `include:`). Each case of a `matrix` is a scenario named `name [os=9.3, locale=de]`.
    public static func parseCases(_ text: String, file: String, directory: URL? = nil) throws(InputError) -> [Scenario] {
        let root = try YAMLValue.parse(text, file: file)
        let top = try root.fields(allowed: topKeys)
        let matrix = try top["matrix"].map { value throws(InputError) in try ScenarioMatrix(value) } ?? ScenarioMatrix()
        var scenarios: [Scenario] = []
        var stepsInFile = 0
        for matrixCase in matrix.cases {
            do throws(InputError) {
                var scenario = try parse(top, root: root, matrix: matrix, case: matrixCase, file: file, directory: directory)
                stepsInFile += scenario.steps.count
                guard stepsInFile <= ScenarioInputChecks.maxFileSteps else {
                    throw (top["matrix"] ?? root).error(
                        "the file's cases play more than \(ScenarioInputChecks.maxFileSteps) steps together (each case plays every step)",
                        hint: "vary fewer axes, or split the story into several files")
                }
                if !matrixCase.values.isEmpty {
                    scenario.name += " [\(matrixCase.label)]"
                    scenario.matrixCase = matrixCase.label
                }
                scenarios.append(scenario)
            } catch  where !matrixCase.values.isEmpty && !error.message.contains(matrixCase.label) {
                var error = error
                error.message += " (in the case \(matrixCase.label))"
                throw error
            }
        }
        return scenarios
    }

    /// One case of the file: the matrix's values over `device` and `user`, and the expectations
    /// that depend on the case resolved for it.
    static func parse(
        _ top: [String: YAMLValue], root: YAMLValue, matrix: ScenarioMatrix, case matrixCase: ScenarioMatrix.Case,
        file: String, directory: URL?
    ) throws(InputError) -> Scenario {
        let name =
            try top["name"]?.string()
            ?? ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let policy = try top["policy"].map { value throws(InputError) in try parsePolicyPath(value, directory: directory) }
        let device = try parseDevice(top["device"], root: root, case: matrixCase)
        let bucket = try parseBucket(top["user"], case: matrixCase)
        let arms = try parseArms(top["user"])
        let switches = CaseSwitch(
            current: [
                "os": device.version.description, "locale": device.locale, "timezone": device.timeZone.identifier,
                "bucket": String(bucket),
            ],
            version: device.version, axisValues: matrix.axisValues, label: matrixCase.label)
        var params: [String: PolicyValue] = [:]
        if let value = top["params"] {
            for (key, item) in try value.table() { params[key] = try item.policyValue() }
        }
        var maxPrompts = 3
        if let engine = top["engine"] {
            maxPrompts = try engine.fields(allowed: engineKeys)["max_prompts_per_day"]?.int(in: 0...1000) ?? 3
        }
        let start = try top["start"]?.date() ?? defaultStart
        let initial =
            try top["initial"].map { value throws(InputError) in try parseInitial(value, version: device.version) }
            ?? Scenario.Initial(authorization: nil, settings: [:], ledger: Ledger(), location: nil)
        guard let stepsValue = top["steps"] else {
            throw root.error("missing \"steps\"", hint: "a scenario is a list of steps, e.g. `steps: [{ event: app_launch }]`")
        }
        let steps = try parseSteps(
            stepsValue, context: StepContext(version: device.version, directory: directory, switches: switches, start: start))
        var trustedKeys: [URL] = []
        if let value = top["trusted_keys"] {
            let items: [YAMLValue]
            if case .sequence = value.node { items = try value.list() } else { items = [value] }
            for item in items { trustedKeys.append(try existingFile(item, directory: directory, what: "public key")) }
        }
        var scenario = Scenario(
            name: name, file: file, policy: policy, device: device, userBucket: bucket, params: params,
            paramsLocation: top["params"]?.location, maxPromptsPerDay: maxPrompts, start: start, initial: initial, steps: steps,
            trustedKeys: trustedKeys, trustedKeysLocation: top["trusted_keys"]?.location)
        scenario.policyLocation = top["policy"]?.location
        for pin in arms {
            scenario.arms[pin.experiment] = pin.arm
            scenario.armLocations[pin.experiment] = pin.location
        }
        try parseSelection(top, into: &scenario)
        return scenario
    }

    /// `only: true` and `skip: "why"`: whether `permit test` runs the scenario.
    static func parseSelection(_ top: [String: YAMLValue], into scenario: inout Scenario) throws(InputError) {
        if let value = top["only"] {
            scenario.only = try value.bool()
            scenario.onlyLocation = value.location
        }
        if let value = top["skip"] {
            let reason = try value.string().trimmingCharacters(in: .whitespaces)
            guard !reason.isEmpty else {
                throw value.error("skip needs a reason", hint: "write e.g. `skip: \"waiting for the iOS 18 dialog copy\"`")
            }
            scenario.skipReason = reason
        }
    }

    /// `policy:`, relative to the scenario's folder (or the working directory).
    static func parsePolicyPath(_ value: YAMLValue, directory: URL?) throws(InputError) -> URL {
        let path = try value.string()
        guard !path.isEmpty else { throw value.error("the policy path is empty") }
        let base = directory ?? WorkingDirectory.current
        return (path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)).standardizedFileURL
    }

    /// `steps:`, refusing an empty list and a clock that would run past the scenario's span.
    static func parseSteps(_ stepsValue: YAMLValue, context: StepContext) throws(InputError) -> [Scenario.Step] {
        let stepValues = try expandIncludes(try stepsValue.list(), context: context)
        guard !stepValues.isEmpty else { throw stepsValue.error("there are no steps") }
        var steps: [Scenario.Step] = []
        var elapsed: Int64 = 0
        for (index, (value, includer)) in stepValues.enumerated() {
            let step: Scenario.Step
            do throws(InputError) {
                guard index < ScenarioInputChecks.maxSteps else {
                    throw value.error(
                        "the scenario plays more than \(ScenarioInputChecks.maxSteps) steps by this one, its includes expanded",
                        hint: "include fewer times, or split the story into several scenarios")
                }
                step = try parseStep(value, number: index + 1, context: context)
            } catch {
                throw includer.map { error.included(by: $0) } ?? error
            }
            // Each `after` is at most 999,999,999 days, but enough of them would run the clock
            // past what its seconds can hold.
            elapsed += step.after
            guard elapsed <= ScenarioInputChecks.maxSpanSeconds else {
                let afterValue = (try? value.fields(allowed: stepKeys))?["after"] ?? value
                throw afterValue.error(
                    "the scenario would span more than \(ScenarioInputChecks.maxSpanText) by this step",
                    hint: "a scenario covers at most \(ScenarioInputChecks.maxSpanText) from its start; shorten the `after:` durations")
            }
            steps.append(step)
        }
        try ScenarioInputChecks.checkProcess(of: steps)
        return steps
    }

    static func parseDevice(
        _ deviceValue: YAMLValue?, root: YAMLValue, case matrixCase: ScenarioMatrix.Case
    ) throws(InputError) -> Scenario.Device {
        guard let value = deviceValue ?? (matrixCase.value(of: "os") != nil ? root : nil) else {
            throw root.error("missing \"device\"", hint: "add e.g. `device: { os: \"16.4\", locale: en }`")
        }
        var fields = deviceValue == nil ? [:] : try value.fields(allowed: deviceKeys)
        try applyMatrix(matrixCase, to: &fields, axes: ["os", "locale", "timezone"])
        guard let osValue = fields["os"] else {
            throw value.error("missing \"os\"", hint: "the iOS version decides what the platform can do, e.g. `os: \"15.4\"`")
        }
        let version: OSVersion
        do {
            version = try OSVersion(parsing: try osValue.string())
        } catch let error as OSVersionError {
            throw osValue.error(error.description, hint: "write it as \"9.3\", \"12\" or \"15.4.1\"")
        } catch let error as InputError {
            throw error
        } catch {
            throw osValue.error("\(error)")
        }
        let locale = try fields["locale"]?.string() ?? "en"
        guard isLocale(locale) else {
            throw fields["locale"]!.error("\"\(locale)\" is not a BCP 47 locale", hint: "e.g. en, en-GB, zh-Hans, pt-BR")
        }
        let timeZone = try fields["timezone"].map(parseTimeZone) ?? TimeZone(identifier: "UTC")!
        let appClip = try fields["app_clip"]?.bool() ?? false
        let stale = try fields["stale_reads"]?.int(in: 0...10) ?? 0
        var entitlements = Set<NotificationEntitlement>()
        if let list = fields["entitlements"] {
            for item in try list.list() {
                entitlements.insert(NotificationEntitlement(rawValue: try item.oneOf(NotificationEntitlement.allCases.map(\.rawValue)))!)
            }
        }
        let overflow = try fields["pending_overflow"].map { value throws(InputError) in
            PendingOverflow(rawValue: try value.oneOf(PendingOverflow.allCases.map(\.rawValue)))!
        }
        let onBackground =
            try fields["dialog_on_background"].map { value throws(InputError) in
                DialogOnBackground(rawValue: try value.oneOf(DialogOnBackground.allCases.map(\.rawValue)))!
            } ?? .observed
        let ephemeral = try fields["app_clip_ephemeral"]?.bool() ?? false
        if ephemeral, !appClip {
            throw fields["app_clip_ephemeral"]!.error(
                "app_clip_ephemeral is for App Clips", hint: "add `app_clip: true`, or remove app_clip_ephemeral")
        }
        let cardNotifications = try fields["app_clip_card_notifications"]?.bool() ?? true
        if !cardNotifications, !ephemeral {
            throw fields["app_clip_card_notifications"]!.error(
                "app_clip_card_notifications is the App Clip card's switch for ephemeral notifications",
                hint: "add `app_clip: true` and `app_clip_ephemeral: true`, or remove app_clip_card_notifications")
        }
        var device = Scenario.Device(
            version: version, locale: locale, timeZone: timeZone, isAppClip: appClip, staleReads: stale, entitlements: entitlements,
            appClipEphemeral: ephemeral, pendingOverflow: overflow, dialogOnBackground: onBackground)
        device.appClipCardNotifications = cardNotifications
        device.scheduledSummary = try fields["scheduled_summary"]?.bool() ?? false
        device.liveActivities = try parseLiveActivities(fields["live_activities"], version: version)
        device.appVersion = try fields["app_version"].map(parseAppVersion)
        device.appName = try fields["app_name"].map(parseAppName)
        if device.scheduledSummary, version < NotificationSettings.Setting.scheduledDelivery.introducedIn {
            throw fields["scheduled_summary"]!.error(
                "Scheduled Summary came with iOS 15; this device runs iOS \(version)",
                hint: "use os: \"15\" or later, or remove scheduled_summary")
        }
        return device
    }

    /// `device.live_activities`: the app offers Live Activities, which came with iOS 16.1.
    static func parseLiveActivities(_ value: YAMLValue?, version: OSVersion) throws(InputError) -> Bool {
        guard let value, try value.bool() else { return false }
        guard version >= NotificationSettings.Setting.liveActivities.introducedIn else {
            throw value.error(
                "Live Activities came with iOS 16.1; this device runs iOS \(version)",
                hint: "use os: \"16.1\" or later, or remove live_activities")
        }
        return true
    }

    /// An IANA time zone name (`device.timezone`, a `timezone:` step).
    static func parseTimeZone(_ value: YAMLValue) throws(InputError) -> TimeZone {
        let identifier = try value.string()
        guard let zone = TimeZone(identifier: identifier) else {
            throw value.error("unknown time zone \"\(identifier)\"", hint: "use an IANA name such as UTC, Asia/Taipei, America/New_York")
        }
        return zone
    }

    /// `en`, `zh-Hans`, `zh-Hans-CN`, `pt-BR`, `es-419`: a language, an optional script, an optional region.
    static func isLocale(_ text: String) -> Bool {
        let parts = text.replacingOccurrences(of: "_", with: "-").split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isLetter),
            language.allSatisfy(\.isASCII), parts.count <= 3
        else { return false }
        var rest = parts.dropFirst()
        if let script = rest.first, script.count == 4, script.allSatisfy({ $0.isASCII && $0.isLetter }) { rest = rest.dropFirst() }
        if let region = rest.first {
            let isRegion =
                (region.count == 2 && region.allSatisfy { $0.isASCII && $0.isLetter })
                || (region.count == 3 && region.allSatisfy { $0.isASCII && $0.isNumber })
            guard isRegion else { return false }
            rest = rest.dropFirst()
        }
        return rest.isEmpty
    }

    static func parseInitial(_ value: YAMLValue, version: OSVersion) throws(InputError) -> Scenario.Initial {
        let fields = try value.fields(allowed: initialKeys)
        var authorization: PermissionStatus?
        if let status = fields["authorization"] {
            authorization = PermissionStatus(
                rawValue: try status.oneOf(
                    PermissionStatus.allCases.filter { $0 != .unknown }.map(\.rawValue)))
        }
        let settings = try fields["settings"].map { value throws(InputError) in try parseSettings(value, version: version) } ?? [:]
        let ledger = try fields["ledger"].map { value throws(InputError) in try parseLedger(value) } ?? Ledger()
        return Scenario.Initial(authorization: authorization, settings: settings, ledger: ledger, location: value.location)
    }

    /// A table of setting names → values; `resolved` holds values a case switch picked.
    static func parseSettings(
        _ value: YAMLValue, resolved: [String: YAMLValue] = [:], version: OSVersion
    ) throws(InputError) -> [NotificationSettings.Setting: SettingValue] {
        var settings: [NotificationSettings.Setting: SettingValue] = [:]
        for (key, written) in try value.table(allowed: NotificationSettings.names) {
            let item = resolved[key] ?? written
            let setting = NotificationSettings.Setting(rawValue: key)!
            let state = SettingValue(rawValue: try item.oneOf(["enabled", "disabled", "not_supported"]))!
            if version < setting.introducedIn, state != .notSupported {
                throw item.error("\(key) does not exist on iOS \(version)", hint: "it came with iOS \(setting.introducedIn)")
            }
            settings[setting] = state
        }
        return settings
    }

    /// A partial ledger: unknown names are errors (with suggestions), types are checked.
    static func parseLedger(_ value: YAMLValue) throws(InputError) -> Ledger {
        try ScenarioInputChecks.checkLedger(value)
        var table: [String: PolicyValue] = [:]
        for (key, item) in try value.table(allowed: Ledger.topLevelFields) {
            if let nested = Ledger.nestedFields[key] {
                _ = try item.table(allowed: nested)
            } else if key == "features" {
                for (_, feature) in try item.table() { _ = try feature.table(allowed: Ledger.featureFields) }
            } else if key == "events" {
                for (_, event) in try item.table() { _ = try event.table(allowed: Ledger.eventFields) }
            }
            table[key] = try item.policyValue()
        }
        do {
            let data = try JSONEncoder().encode(PolicyValue.table(table))
            return try JSONDecoder().decode(Ledger.self, from: data)
        } catch let error as DecodingError {
            throw value.error("invalid ledger: \(LedgerCoding.describe(error))")
        } catch {
            throw value.error("invalid ledger: \(error)")
        }
    }

    /// A path relative to the scenario file that must name an existing file (`policy_update`, `trusted_keys`).
    static func existingFile(_ value: YAMLValue, directory: URL?, what: String) throws(InputError) -> URL {
        let path = try value.string()
        guard !path.isEmpty else { throw value.error("the \(what) path is empty") }
        let base = directory ?? WorkingDirectory.current
        let url = (path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw value.error("no \(what) at \(url.path)", hint: "paths are relative to the scenario file")
        }
        return url
    }

    static func parseStep(_ value: YAMLValue, number: Int, context: StepContext) throws(InputError) -> Scenario.Step {
        let version = context.version, directory = context.directory
        let fields = try value.fields(allowed: stepKeys)
        if let include = fields["include"] {
            throw include.error("an included file cannot include another", hint: "include both files from the scenario")
        }
        let actions = stepActionKeys.filter { fields[$0] != nil }
        guard actions.count <= 1 else {
            throw value.error(
                "a step does one thing, this one has \(actions.map { "\"\($0)\"" }.joined(separator: " and "))",
                hint: "split it into \(actions.count) steps")
        }
        var after: Int64 = 0
        if let afterValue = fields["after"] {
            let text = try afterValue.string()
            guard let seconds = InputDuration.seconds(text) else {
                throw afterValue.error("\"\(text)\" is not a duration", hint: InputDuration.hint)
            }
            after = seconds
        }
        let action: Scenario.Action
        switch actions.first {
        case "event":
            action = .event(try parseEvent(fields["event"]!, feature: fields["feature"], properties: fields["properties"]))
        case "answer":
            action = .answer(Scenario.Answer(rawValue: try fields["answer"]!.oneOf(Scenario.Answer.allCases.map(\.rawValue)))!)
        case "settings":
            let table = try fields["settings"]!.fields(allowed: settingsStepKeys)
            var authorization: PermissionStatus?
            if let status = table["authorization"] {
                authorization = PermissionStatus(rawValue: try status.oneOf(["authorized", "denied"]))
            }
            var settingsOnly: [NotificationSettings.Setting: SettingValue] = [:]
            for (key, item) in table where key != "authorization" {
                let setting = NotificationSettings.Setting(rawValue: key)!
                if version < setting.introducedIn {
                    throw item.error("\(key) does not exist on iOS \(version)", hint: "it came with iOS \(setting.introducedIn)")
                }
                settingsOnly[setting] = SettingValue(rawValue: try item.oneOf(["enabled", "disabled"]))!
            }
            action = .settings(authorization: authorization, settings: settingsOnly)
        case "policy_update":
            action = .policyUpdate(try existingFile(fields["policy_update"]!, directory: directory, what: "bundle"))
        case "external_request", "timezone", "open_settings_link", "terminate", "app_update":
            action = try parseWorldAction(actions[0], fields[actions[0]]!)
        case "reinstall":
            action = try parseReinstall(fields["reinstall"]!, after: after, afterValue: fields["after"])
        case "provisional_keep":
            let choice = try fields["provisional_keep"]!.oneOf(ProvisionalKeep.allCases.map(\.rawValue))
            action = .provisionalKeep(ProvisionalKeep(rawValue: choice)!)
        default:
            guard fields["after"] != nil else {
                throw value.error(
                    "the step does nothing",
                    hint: "give it one of: \(stepActionKeys.joined(separator: ", ")) (or `after` to let time pass)")
            }
            action = .wait
        }
        if fields["feature"] != nil, actions.first != "event" {
            throw fields["feature"]!.error("\"feature\" belongs to `event: feature_opened` (or feature_closed)")
        }
        if let properties = fields["properties"], actions.first != "event" {
            throw properties.error("\"properties\" belongs to an `event:` of the app's own, e.g. `event: lesson_completed`")
        }
        try checkDecisionExpectations(fields, action: actions.first)
        var expectations = try parseExpectations(fields, context: context)
        if let update = try fields["expect_update"].map(context.switches.resolve) {
            guard actions.first == "policy_update" else {
                throw update.error("expect_update belongs to a `policy_update` step")
            }
            let text = try update.string()
            switch text {
            case "installed": expectations.update = .installed
            case "refused": expectations.update = .refused(nil)
            default:
                guard !text.isEmpty else { throw update.error("expect_update: write installed, refused, or a piece of the refusal") }
                expectations.update = .refused(text)
            }
        }
        return Scenario.Step(
            number: number, location: value.location, after: after, action: action, expectations: expectations)
    }

    /// Expectations about the step's own decision need a step that sends an event; an
    /// `external_request` step may say whether the other SDK's dialog appeared.
    static func checkDecisionExpectations(_ fields: [String: YAMLValue], action: String?) throws(InputError) {
        guard !decidingActions.contains(action ?? "") else { return }
        for key in [
            "expect", "expect_warning", "expect_error", "expect_dialog", "expect_reminders", "expect_remote_registration", "expect_trace",
            "expect_followup", "expect_notified",
        ]
        where fields[key] != nil && !(key == "expect_dialog" && action == "external_request") {
            throw fields[key]!.error(
                "this step sends no event to the policy, so there is no decision to check",
                hint: "put \(key) on an `event` or `answer` step")
        }
    }

    /// `reinstall: true`, or `reinstall: { system_remembers:, keychain_survives:, uninstalled_for: }`.
    /// `uninstalled_for` says how much of the step's `after` the app spent deleted (iOS 8–9
    /// forgets the answer once it stays deleted for a day, docs/platform.md K-01): the app was
    /// still installed at the step before, so it cannot be longer than `after`.
    static func parseReinstall(_ value: YAMLValue, after: Int64, afterValue: YAMLValue?) throws(InputError) -> Scenario.Action {
        guard case .mapping = value.node else {
            guard try value.bool() else {
                throw value.error("reinstall: false does nothing", hint: "remove the step, or write `reinstall: true`")
            }
            return .reinstall(systemRemembers: nil, keychainSurvives: true, uninstalledFor: nil)
        }
        let options = try value.fields(allowed: reinstallKeys)
        var uninstalledFor: Int64?
        if let gone = options["uninstalled_for"] {
            let text = try gone.string()
            guard let seconds = InputDuration.seconds(text) else {
                throw gone.error("\"\(text)\" is not a duration", hint: InputDuration.hint)
            }
            guard seconds <= after else {
                throw gone.error(
                    "uninstalled_for (\(text)) is longer than the step's after (\(afterValue.flatMap { try? $0.string() } ?? "0s")): "
                        + "the app was still installed at the step before",
                    hint: "give the step `after: \(text)` or more; the app is deleted during that wait")
            }
            uninstalledFor = seconds
        }
        return .reinstall(
            systemRemembers: try options["system_remembers"]?.bool(),
            keychainSurvives: try options["keychain_survives"]?.bool() ?? true, uninstalledFor: uninstalledFor)
    }

    /// `external_request: allow | deny`, `timezone: Europe/Berlin`, `open_settings_link: true`,
    /// `terminate: true`: what the world does to the device and the app outside Permit.
    static func parseWorldAction(_ key: String, _ value: YAMLValue) throws(InputError) -> Scenario.Action {
        switch key {
        case "external_request":
            return .externalRequest(allow: try value.oneOf(["allow", "deny"]) == "allow")
        case "timezone":
            return .timeZone(try parseTimeZone(value))
        case "app_update":
            return .appUpdate(try parseAppVersion(value))
        case "terminate":
            guard try value.bool() else {
                throw value.error("terminate: false does nothing", hint: "remove the step, or write `terminate: true`")
            }
            return .terminate
        default:
            guard try value.bool() else {
                throw value.error("open_settings_link: false does nothing", hint: "remove the step, or write `open_settings_link: true`")
            }
            return .openSettingsLink
        }
    }

    /// An app's version as its users see it and `CFBundleShortVersionString` holds it: whole
    /// numbers joined by dots (`2.14.1`), which `permit.version_at_least` compares.
    static func parseAppVersion(_ value: YAMLValue) throws(InputError) -> String {
        let text = try value.string()
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 4,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else {
            throw value.error("\"\(text)\" is not an app version", hint: "write whole numbers joined by dots, like \"2.14.1\"")
        }
        return text
    }

    /// An app's name as its users see it (`CFBundleDisplayName`): a line of text, as a home
    /// screen shows it, of at most `maxAppNameBytes`.
    static func parseAppName(_ value: YAMLValue) throws(InputError) -> String {
        guard case .scalar = value.node, !value.isNull else {
            throw value.error("expected the app's name, got \(value.kindName)", hint: "write it as the home screen shows it, like \"Loop\"")
        }
        let text = try value.string()
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty, text.utf8.count <= maxAppNameBytes,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw value.error(
                "\"\(TerminalText.inline(text))\" is not an app's name",
                hint: "write one line of 1 to \(maxAppNameBytes) bytes, as the home screen shows it, like \"Loop\"")
        }
        return text
    }

    /// The longest `device.app_name`, in bytes: longer than any name a home screen shows whole.
    static let maxAppNameBytes = 64

    /// A step's `event:`: a built-in one a step may send, or one of the app's own with its
    /// `properties:` (whether the policy declares it is checked when the scenario runs, with
    /// the policy at hand: `ScenarioPlayback`).
    static func parseEvent(_ value: YAMLValue, feature: YAMLValue?, properties: YAMLValue? = nil) throws(InputError) -> AppEvent {
        let name = try value.string()
        switch name {
        case "soft_prompt_answered", "settings_prompt_answered", "system_prompt_answered":
            throw value.error(
                "\(name) is sent by answering what is on screen",
                hint: "write `answer: accept` (or decline, dismiss, open, cancel, allow, deny)")
        case "significant_time_change":
            throw value.error("\(name) is sent by changing the device's time zone", hint: "write `timezone: Europe/Berlin`")
        case "notification_settings_opened":
            throw value.error("\(name) is sent by tapping the app's link in Settings", hint: "write `open_settings_link: true`")
        default:
            break
        }
        if !AppEvent.names.contains(name), CustomEvent.problem(withName: name) == nil {
            return try parseCustomEvent(name, value: value, feature: feature, properties: properties)
        }
        guard stepEvents.contains(name) else {
            throw value.error("unknown event \"\(name)\"", hint: Suggestion.hint(for: name, in: stepEvents))
        }
        if let properties {
            throw properties.error(
                "\(name) takes no properties", hint: "properties go with the app's own events, e.g. `event: lesson_completed`")
        }
        let featureName = try feature?.string()
        do throws(EventInput.Problem) {
            return try EventInput.event(named: name, feature: featureName)
        } catch .missing {
            throw value.error("\(name) needs a `feature`", hint: "e.g. `feature: reminders`")
        } catch .emptyFeature {
            throw (feature ?? value).error("the feature name is empty")
        } catch {
            throw (feature ?? value).error("only feature_opened and feature_closed take a feature")
        }
    }

    /// An app event of its own: `event: lesson_completed` with `properties: {count: 2}`.
    static func parseCustomEvent(
        _ name: String, value: YAMLValue, feature: YAMLValue?, properties: YAMLValue?
    ) throws(InputError) -> AppEvent {
        if let feature { throw feature.error("only feature_opened and feature_closed take a feature") }
        var fields: [String: PolicyValue] = [:]
        if let properties {
            for (key, item) in try properties.table() {
                let parsed = try item.policyValue()
                guard parsed.isScalar else {
                    throw item.error("property \(key) is a \(parsed.typeName)", hint: "a property is a string, number or boolean")
                }
                fields[key] = parsed
            }
        }
        do throws(CustomEventError) {
            return try .custom(name, properties: fields)
        } catch {
            throw (properties ?? value).error(error.message)
        }
    }

    static func parseExpectations(_ fields: [String: YAMLValue], context: StepContext) throws(InputError) -> Scenario.Expectations {
        var expectations = Scenario.Expectations(
            decision: nil, status: nil, warnings: nil, error: nil, dialog: nil, pending: nil, ledger: [])
        let resolve = context.switches.resolve
        if let value = try fields["expect"].map({ value throws(InputError) in try decisionTable(value, context.switches) }) {
            (expectations.decision, expectations.reason) = try parseExpectedDecision(value, switches: context.switches)
        }
        expectations.screen = try fields["expect_screen"].map(resolve)?.oneOf(Screen.all.map(\.key))
        if let value = try fields["expect_followup"].map({ value throws(InputError) in try decisionTable(value, context.switches) }) {
            (expectations.followUp, expectations.followUpReason) = try parseExpectedDecision(value, switches: context.switches)
        }
        if let value = try fields["expect_status"].map(resolve) {
            expectations.status = PermissionStatus(rawValue: try value.oneOf(PermissionStatus.allCases.map(\.rawValue)))
        }
        if let value = try fields["expect_warning"].map(resolve) {
            let items: [YAMLValue]
            if case .sequence = value.node { items = try value.list() } else { items = [value] }
            var names: [String] = []
            for item in items { names.append(try item.oneOf(Guardrail.allCases.map(\.rawValue))) }
            expectations.warnings = names
        }
        expectations.error = try fields["expect_error"].map(resolve).map(parseExpectedError)
        expectations.dialog = try fields["expect_dialog"].map(resolve)?.bool()
        if let value = try fields["expect_pending"].map(resolve) {
            if case .sequence = value.node {
                let times = try parseLocalTimes(value)
                expectations.pendingLocalTimes = times
                expectations.pending = times.count
            } else {
                expectations.pending = try value.int(in: 0...64)
            }
        }
        if let value = try fields["expect_remote_registration"].map(resolve) {
            if case .scalar(let scalar) = value.node, scalar.string == "unregister" {
                expectations.remoteRegistration = .unregister
            } else {
                do {
                    expectations.remoteRegistration = try value.bool() ? .register : .nothing
                } catch {
                    throw value.error(
                        "expected true (register), false (neither) or unregister",
                        hint: "write expect_remote_registration: true, false or unregister")
                }
            }
        }
        if let value = try fields["expect_settings"].map(resolve) {
            var settings: [String: YAMLValue] = [:]
            for (key, item) in try value.table() { settings[key] = try resolve(item) }
            expectations.settings = try parseSettings(value, resolved: settings, version: context.version)
        }
        expectations.reminders = try fields["expect_reminders"].map(resolve).map { value throws(InputError) in
            try parseExpectedReminders(value, switches: context.switches)
        }
        expectations.notified = try fields["expect_notified"].map(resolve).map { value throws(InputError) in
            try parseExpectedNotifications(value, switches: context.switches)
        }
        expectations.trace = try fields["expect_trace"].map(resolve).map(parseExpectedTrace)
        if let value = try fields["expect_ledger"].map(resolve) {
            for (path, entry) in try value.table() {
                let item = try resolve(entry)
                try checkLedgerPath(path, at: item)
                let value: PolicyValue? =
                    item.isNull ? nil : path.hasSuffix("_at") ? try ledgerTime(item, start: context.start) : try item.policyValue()
                expectations.ledger.append((path, value, item.location))
            }
        }
        return expectations
    }

    /// `expect` or `expect_followup` for the case: a table whose every key is a decision field
    /// is the decision's own table, not a case switch (its `id` would read as a locale,
    /// Indonesian), also as the value a switch picks; its values are resolved one by one
    /// (`parseExpectedDecision`).
    static func decisionTable(_ value: YAMLValue, _ switches: CaseSwitch) throws(InputError) -> YAMLValue {
        try switches.picked(value) { table in
            guard case .mapping = table.node, let entries = try? table.table() else { return false }
            return entries.allSatisfy { decisionFields.contains($0.key) }
        }
    }

    /// `expect: soft_prompt`, or a table of decision fields, each checked against what it can be
    /// and resolved for the case; `reason` comes back apart, as a piece or a `/pattern/`.
    static func parseExpectedDecision(
        _ value: YAMLValue, switches: CaseSwitch
    ) throws(InputError) -> (Scenario.ExpectedDecision, TextMatch?) {
        guard case .mapping = value.node else { return (.action(try value.oneOf(Decision.Action.names)), nil) }
        var table: [String: PolicyValue] = [:]
        var reason: TextMatch?
        for (key, entry) in try value.table(allowed: decisionFields) {
            // A row's table is its own, as the decision's is (`decisionTable`), not a case switch.
            let item = key == "row" ? try decisionTable(entry, switches) : try switches.resolve(entry)
            if key == "action" {
                table[key] = .string(try item.oneOf(Decision.Action.names))
            } else if key == "reason" {
                reason = try TextMatch.parse(item)
            } else if key == "deep_link" {
                table[key] = .string(try item.oneOf(DeepLink.allCases.map(\.rawValue)))
            } else if key == "options" {
                var options: [PolicyValue] = []
                for option in try item.list() {
                    options.append(.string(try option.oneOf(AuthorizationOption.allCases.map(\.rawValue))))
                }
                table[key] = .list(options)
            } else if key == "rows" {
                table[key] = try expectedRows(item, switches: switches)
            } else if key == "row" {
                table[key] = try expectedRow(item, switches: switches)
            } else {
                table[key] = .string(try item.string())
            }
        }
        return (.fields(table), reason)
    }

    /// `row`: what a decision does to the screen's row beside its action, as the row's fields
    /// (`{ action: settings_prompt, id: safety_banner }`, only those given are matched), an
    /// action name alone (`dismiss`: the row taken away), or `none` for a decision without one.
    static func expectedRow(_ item: YAMLValue, switches: CaseSwitch) throws(InputError) -> PolicyValue {
        guard case .mapping = item.node else {
            let name = try item.oneOf(["none", "soft_prompt", "settings_prompt", "inform", "dismiss"])
            return name == "none" ? .string(name) : .table(["action": .string(name)])
        }
        for (key, entry) in try item.table() where key == "row" || key == "reason" {
            throw entry.error(
                "a row has no \(key) of its own", hint: "write \(key) at the decision's level, beside row, or leave it out")
        }
        guard case .fields(let fields) = try parseExpectedDecision(item, switches: switches).0 else {
            throw item.error("a row is a table of its fields", hint: "write it like { action: settings_prompt, title: ... }")
        }
        return .table(fields)
    }

    /// `rows: [{ name: Alerts, value: "On" }, ...]`: the status list, in order, each text a
    /// string or a case switch (`{ de: Mitteilungen, default: Notifications }`).
    static func expectedRows(_ item: YAMLValue, switches: CaseSwitch) throws(InputError) -> PolicyValue {
        var rows: [PolicyValue] = []
        for row in try item.list() {
            var fields: [String: PolicyValue] = [:]
            for (name, text) in try row.table(allowed: ["name", "value"]) {
                fields[name] = .string(try switches.resolve(text).string())
            }
            guard fields.count == 2 else {
                throw row.error("a row needs its name and its value", hint: "write it like { name: Alerts, value: \"On\" }")
            }
            rows.append(.table(fields))
        }
        return .list(rows)
    }

    /// `expect_error: true` (any policy error), a piece of the error's text, or a `/pattern/`.
    static func parseExpectedError(_ value: YAMLValue) throws(InputError) -> Scenario.ExpectedError {
        guard let flag = try? value.bool() else { return .matching(try TextMatch.parse(value)) }
        guard flag else {
            throw value.error("expect_error: false is the default", hint: "remove it; any unexpected error fails the step")
        }
        return .any
    }

    /// A ledger time (`soft_prompt.last_shown_at`) as the scenario's clock writes it: Unix
    /// seconds, an ISO 8601 time with a zone (`"2026-01-08T08:00:00Z"`), or the scenario's
    /// start plus a duration (`start+3d`, `start + 1d2h`, `start`); stored as Unix seconds.
    static func ledgerTime(_ item: YAMLValue, start: Date) throws(InputError) -> PolicyValue {
        guard case .string(let text)? = try? item.policyValue() else { return try item.policyValue() }
        let base = Int64(start.timeIntervalSince1970.rounded(.down))
        let compact = text.filter { $0 != " " }
        if compact == "start" { return .integer(base) }
        if compact.hasPrefix("start+") {
            guard let seconds = InputDuration.seconds(String(compact.dropFirst("start+".count))) else {
                throw item.error("\"\(text)\" is not start plus a duration", hint: InputDuration.hint)
            }
            return .integer(base + seconds)
        }
        guard text.first?.isNumber == true, let date = try? item.date() else {
            throw item.error(
                "\"\(text)\" is not a time",
                hint:
                    "write Unix seconds, an ISO 8601 time like \"2026-01-05T08:00:00Z\", or start+3d (the scenario's start plus a duration)"
            )
        }
        return .integer(Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// A dotted ledger path must name a real field (`soft_prompt.shown`, `features.diary.opened`,
    /// `state.variant`).
    static func checkLedgerPath(_ path: String, at value: YAMLValue) throws(InputError) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let first = parts[0]
        guard Ledger.topLevelFields.contains(first) else {
            throw value.error("no ledger field \"\(first)\"", hint: Suggestion.hint(for: first, in: Ledger.topLevelFields))
        }
        if let nested = Ledger.nestedFields[first] {
            guard parts.count == 2 else { throw value.error("\(first) is a table; name a field: \(first).\(nested[0])") }
            guard nested.contains(parts[1]) else {
                throw value.error("no ledger field \"\(path)\"", hint: Suggestion.hint(for: parts[1], in: nested))
            }
        } else if first == "features" {
            guard parts.count == 3 else { throw value.error("write features.<name>.<field>, e.g. features.reminders.opened") }
            guard Ledger.featureFields.contains(parts[2]) else {
                throw value.error("no feature field \"\(parts[2])\"", hint: Suggestion.hint(for: parts[2], in: Ledger.featureFields))
            }
        } else if first == "events" {
            guard parts.count == 3 else { throw value.error("write events.<name>.<field>, e.g. events.lesson_completed.count") }
            guard Ledger.eventFields.contains(parts[2]) else {
                throw value.error("no event field \"\(parts[2])\"", hint: Suggestion.hint(for: parts[2], in: Ledger.eventFields))
            }
        } else if first == "state" {
            guard parts.count == 2, !parts[1].isEmpty else { throw value.error("write state.<key>") }
        } else if first == "arms" {
            guard parts.count == 2, !parts[1].isEmpty else { throw value.error("write arms.<experiment>, e.g. arms.first_ask") }
        } else if parts.count != 1 {
            throw value.error("\(first) is not a table")
        }
    }
}
