import CLuaShim
import PermitCore

/// The warm decision path: `ctx` built straight on the Lua stack from the core's types, and the
/// decision read in place.
///
/// Behaviour is that of the general path (`LuaBridge` + `LuaVM.push`, `LuaVM.read` +
/// `DecisionReader`): the same tables with the same keys, size hints and insertion order (keys
/// sorted), the same depth checks; a decision is accepted here only when it is plainly valid,
/// and anything else (a wrong type, an unknown key, a metatable, a text too long, a key that is
/// not UTF-8, ...) is read again by the general path, which words the error. Only raw access
/// is used, so no metamethod runs.
///
/// What must stay true: a policy cannot tell the two paths apart. Every ctx this path pushes
/// is the table the general path would push, every decision it accepts is the one
/// `DecisionReader` would read, and every error message is the general path's (anything
/// doubtful goes there). `FastPathTests` and `ReminderFastPathTests` run the same policies
/// through both and compare; a change to either path changes both, or those tests fail.
enum FastPath {
    // MARK: Interned strings

    /// The table of interned strings, in `Key` order; stored once per VM.
    static var internedTable: LuaValue {
        .table(LuaTable(array: Key.allCases.map { .string($0.text) }))
    }

    // MARK: The context

    /// What the context refers to and does not rebuild each call: the registry slots of live
    /// refs the policy holds (checked with `LuaVM.slot(of:)` when they were made).
    struct Cached {
        let keys: Int32
        let params: Int32
        /// The list of the stored platform, capabilities and locale (`PERMIT_SHARED_*`), which
        /// ctx builds those fields from on first read.
        let shared: Int32
    }

    /// Pushes `ctx` as `LuaPolicy`'s general path builds it (docs/reference/policy.md#ctx): a fresh table each call,
    /// with the stored read-only params table. The fields most events never read (`history`,
    /// `settings`, `state`, `user`, `local_time`, and the stored `platform`, `capabilities` and
    /// `locale`) are built on first use during the call, from a snapshot of `context` written
    /// then (`LazyContext.c`), which no policy can tell apart from having them from the start
    /// during the call (a part of a kept ctx first read after it is an error, docs/reference/policy.md#ctx).
    /// `context` must stay valid until the call returns (`LuaVM` closes the source then).
    static func pushContext(
        _ context: UnsafePointer<PolicyContext>, cached: Cached, lazyFields: LazyFieldsEncoder, on stack: LuaVM.LuaStack
    ) throws(LuaError) {
        let L = stack.L
        let vm = stack.vm
        // ctx and event are one level deep at most: only a depth limit under 2 refuses them.
        guard vm.limits.maxTableDepth > 1 else {
            throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(vm.limits.maxTableDepth) levels")
        }
        var fields = eagerKeys()
        fields.keys = cached.keys
        fields.params = cached.params
        fields.shared = cached.shared
        fields.now = context.pointee.now
        fields.status = Key.of(context.pointee.status).rawValue
        fields.previous_status = Key.of(context.pointee.previousStatus).rawValue
        // Room for every field, the snapshot's key included, so building the lazy ones never
        // has to grow ctx.
        fields.hash = Int32(5 + 1 + LazyFieldsEncoder.fieldCount)  // eager keys, the snapshot's, lazy ones
        // The lazy fields' snapshot is written from `context` if the policy reads one of them.
        try lazyFields.serve(context, keysSlot: cached.keys, maxDepth: vm.limits.maxTableDepth, in: &fields)
        let ctx = push(&fields, event: context.pointee.event, promptID: context.pointee.promptID, on: L)
        guard ctx > 0 else {
            throw ctx < 0
                ? LuaError(kind: .memoryExhausted, message: "not enough memory to push ctx")
                : LuaError(kind: .unsupportedValue, message: "Lua stack exhausted while pushing a table")
        }
        if case .custom(let custom) = context.pointee.event {
            try setProperties(custom.properties, of: ctx, keys: cached.keys, on: stack)
        }
    }

    /// ctx with the fields of `event` and, for an answer to a prompt with an `id`, its
    /// `prompt_id` (the text lent to C for the push only).
    private static func push(
        _ fields: inout permit_ctx_fields, event: AppEvent, promptID: String?, on L: OpaquePointer
    ) -> Int32 {
        guard var promptID else { return push(&fields, event: event, on: L) }
        fields.key_prompt_id = Key.promptId.rawValue
        return promptID.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                fields.prompt_id = chars.baseAddress
                fields.prompt_id_length = chars.count
                return push(&fields, event: event, on: L)
            }
        }
    }

    /// ctx with the fields of `event` (its name and its extra field); ctx's index, or 0 or -1 as
    /// `permit_push_context` fails.
    private static func push(_ fields: inout permit_ctx_fields, event: AppEvent, on L: OpaquePointer) -> Int32 {
        switch event {
        case .appLaunch: return push(&fields, name: .appLaunch, on: L)
        case .appForeground: return push(&fields, name: .appForeground, on: L)
        case .appBackground: return push(&fields, name: .appBackground, on: L)
        case .featureOpened(let feature):
            return push(&fields, name: .featureOpened, text: feature, as: .feature, on: L)
        case .featureClosed(let feature):
            return push(&fields, name: .featureClosed, text: feature, as: .feature, on: L)
        case .significantTimeChange(let zone):
            return push(&fields, name: .significantTimeChange, text: zone.permitIdentifier, as: .timeZone, on: L)
        case .notificationSettingsOpened:
            return push(&fields, name: .notificationSettingsOpened, on: L)
        case .backgroundRefresh:
            return push(&fields, name: .backgroundRefresh, on: L)
        case .softPromptAnswered(let answer):
            return push(&fields, name: .softPromptAnswered, answer: .of(answer), on: L)
        case .systemPromptAnswered(let granted):
            fields.event_key = Key.granted.rawValue
            fields.event_kind = 3
            fields.event_value = granted ? 1 : 0
            return push(&fields, name: .systemPromptAnswered, on: L)
        case .settingsPromptAnswered(let answer):
            return push(&fields, name: .settingsPromptAnswered, answer: .of(answer), on: L)
        case .informAnswered(let answer):
            return push(&fields, name: .informAnswered, answer: .of(answer), on: L)
        case .custom(let custom):
            return push(&fields, appEvent: custom.name, on: L)
        }
    }

    /// `ctx.event.properties` of an app event of its own: pushed as the general path pushes
    /// values (under protection), then set raw in the event table, which C made with room for
    /// it, so the set cannot grow the table and nothing raises outside a protected call.
    private static func setProperties(
        _ properties: [String: PolicyValue], of ctx: Int32, keys: Int32, on stack: LuaVM.LuaStack
    ) throws(LuaError) {
        let L = stack.L
        try stack.push(LuaBridge.table(properties))
        permit_set_event_properties(L, ctx, keys, Key.event.rawValue, Key.properties.rawValue)
    }

    /// An event whose extra field is a text (`feature`, `time_zone`).
    private static func push(
        _ fields: inout permit_ctx_fields, name: Key, text: String, as key: Key, on L: OpaquePointer
    ) -> Int32 {
        fields.event_key = key.rawValue
        fields.event_kind = 2
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                fields.event_text = chars.baseAddress
                fields.event_text_length = chars.count
                return push(&fields, name: name, on: L)
            }
        }
    }

    /// An app event of its own: its name is the text (kind 4), not an interned value.
    private static func push(_ fields: inout permit_ctx_fields, appEvent name: String, on L: OpaquePointer) -> Int32 {
        fields.event_kind = 4
        var name = name
        return name.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                fields.event_text = chars.baseAddress
                fields.event_text_length = chars.count
                return push(&fields, name: .name, on: L)
            }
        }
    }

    /// An event whose extra field is `answer`.
    private static func push(_ fields: inout permit_ctx_fields, name: Key, answer: Key, on L: OpaquePointer) -> Int32 {
        fields.event_key = Key.answer.rawValue
        fields.event_kind = 1
        fields.event_value = answer.rawValue
        return push(&fields, name: name, on: L)
    }

    private static func push(_ fields: inout permit_ctx_fields, name: Key, on L: OpaquePointer) -> Int32 {
        fields.event_name = name.rawValue
        return Int32(permit_push_context(L, &fields))
    }

    /// The keys of ctx's eager fields; the values are filled per call.
    private static func eagerKeys() -> permit_ctx_fields {
        var fields = permit_ctx_fields()
        fields.key_event = Key.event.rawValue
        fields.key_now = Key.now.rawValue
        fields.key_params = Key.params.rawValue
        fields.key_previous_status = Key.previousStatus.rawValue
        fields.key_status = Key.status.rawValue
        fields.key_name = Key.name.rawValue
        return fields
    }
}

extension FastPath {
    // MARK: The decision

    /// What `decide` returned: read here, or copied for the general path.
    enum DecisionResult {
        case decision(Decision?)
        case general(LuaValue)
    }

    /// What `plan_reminders` returned: read here, or copied for the general path.
    enum RemindersResult {
        case reminders([ReminderRequest])
        case general(LuaValue)
    }

    /// Reads `plan_reminders`' results (above `base`) in place when they are one plainly valid
    /// list (or nil, or nothing); anything else is copied for `DecisionReader.reminders`, which
    /// words the error. A list with the contents of the one `memo` last kept is that list
    /// again, unread (`ReminderListMemo` says why that is exact).
    static func readReminders(
        _ stack: LuaVM.LuaStack, base: Int32, memo: ReminderListMemo
    ) throws(LuaError) -> RemindersResult {
        let L = stack.L
        let limits = stack.vm.limits
        let top = lua_gettop(L)
        if top == base { return .reminders([]) }
        if top == base + 1, limits.maxTableDepth >= 3 {
            if let reminders = memo.unchanged(at: top, on: L) { return .reminders(reminders) }
            var reader = DecisionTableReader(L: L, maxValues: limits.maxConvertedValues)
            if let reminders = reader.readReminders(at: top) {
                memo.remember(reminders)
                return .reminders(reminders)
            }
        }
        return .general(try stack.vm.readResults(above: base).first ?? .nil)
    }

    /// Reads `decide`'s results (above `base`, still on the stack). A lone plainly valid
    /// decision table (or nil, or nothing) is read in place; anything else is copied as
    /// `LuaVM.call` copies it, for `DecisionReader` to validate and word the error.
    static func readDecision(_ stack: LuaVM.LuaStack, base: Int32) throws(LuaError) -> DecisionResult {
        let L = stack.L
        let limits = stack.vm.limits
        let top = lua_gettop(L)
        if top == base { return .decision(nil) }
        if top == base + 1, limits.maxConvertedValues >= 1, limits.maxTableDepth >= 2 {
            switch lua_type(L, top) {
            case LUA_TNIL:
                return .decision(nil)
            case LUA_TTABLE:
                var reader = DecisionTableReader(L: L, maxValues: limits.maxConvertedValues)
                if let decision = reader.read(at: top) { return .decision(decision) }
            default:
                break
            }
        }
        return .general(try stack.vm.readResults(above: base).first ?? .nil)
    }

    /// Reads a decision table that `permit_decision_fields` accepted; `nil` as soon as anything
    /// is not plainly valid (the general path then takes over).
    struct DecisionTableReader {
        let L: OpaquePointer
        let maxValues: Int
        /// Values the general path would have copied (`LuaLimits.maxConvertedValues`).
        var values = 1
        /// Tables of translations read so far in this result (a few at most), by address.
        var translationsRead: [(table: UnsafeRawPointer?, text: LocalizedText, entries: Int)] = []

        mutating func read(at index: Int32) -> Decision? {
            let bits = permit_decision_fields(L, index)
            guard bits >= 0 else { return nil }
            defer { lua_settop(L, index) }
            let present = Int(bits) & 0xFF_FFFF
            func has(_ field: Int32) -> Bool { present & (1 << Int(field)) != 0 }
            func slot(_ field: Int32) -> Int32 { index + 1 + field }
            // `rows` (a list of tables) is the general reader's alone (DecisionReader.rows): a
            // status list, on the screen that lists it, not a warm-path decision.
            if has(Int32(PERMIT_D_ROWS)) { return nil }
            // `notify` is the general reader's alone too: a notification posted now is rare.
            if has(Int32(PERMIT_D_NOTIFY)) { return nil }
            // And `row` (a second table of prompt fields beside a modal), one check per decision.
            if has(Int32(PERMIT_D_ROW)) { return nil }
            // action, then every other present field: a key and a value each.
            values += 2 + 2 * (present.nonzeroBitCount - 1)

            var reason: String?
            if has(Int32(PERMIT_D_REASON)) {
                guard let text = text(at: slot(Int32(PERMIT_D_REASON))) else { return nil }
                reason = text
            }
            var remember: [String: PolicyValue?] = [:]
            if has(Int32(PERMIT_D_REMEMBER)) {
                guard let updates = rememberUpdates(at: slot(Int32(PERMIT_D_REMEMBER))) else { return nil }
                remember = updates
            }

            guard let action = action(kind: Int(bits) >> 24, present: present, at: index) else { return nil }
            guard values <= maxValues else { return nil }
            var decision = Decision(action, reason: reason, remember: remember)
            if has(Int32(PERMIT_D_CANCEL_REMINDERS)) {
                // Anything but a boolean is left to DecisionReader, which names the field.
                guard let flag = boolean(at: slot(Int32(PERMIT_D_CANCEL_REMINDERS))) else { return nil }
                decision.cancelReminders = flag
            }
            if has(Int32(PERMIT_D_REMOTE_REGISTRATION)) {
                let value = slot(Int32(PERMIT_D_REMOTE_REGISTRATION))
                guard lua_type(L, value) == LUA_TSTRING, let choice = RemoteRegistration(rawValue: decoded(at: value)) else {
                    return nil
                }
                decision.remoteRegistration = choice
            }
            if has(Int32(PERMIT_D_CAP_EXEMPT)) {
                guard let why = text(at: slot(Int32(PERMIT_D_CAP_EXEMPT))), !why.isEmpty else { return nil }
                decision.capExempt = why
            }
            return decision
        }

        /// A list of reminders (DecisionReader.reminders) when every item is plainly valid;
        /// `nil` as soon as anything is not (a hole, a named key, a wrong type, a value out of
        /// range, a missing body, a repeated id, too many values): the general path then words
        /// the error.
        mutating func readReminders(at index: Int32) -> [ReminderRequest]? {
            switch lua_type(L, index) {
            case LUA_TNIL: return []
            case LUA_TTABLE: break
            default: return nil
            }
            guard permit_settle_then_has_metatable(L, index) == 0, lua_checkstack(L, 6) != 0 else { return nil }
            let count = Int64(lua_rawlen(L, index))
            guard count <= Int64(DecisionReader.maxReminders) else { return nil }
            var entries: Int64 = 0
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                entries += 1
                permit_pop(L, 1)
            }
            // `count` entries, each of 1...count present: a list and nothing else.
            guard entries == count else { return nil }
            var reminders: [ReminderRequest] = []
            reminders.reserveCapacity(Int(count))
            var ids: Set<String> = []
            var position: Int64 = 1
            while position <= count {
                defer { permit_pop(L, 1) }
                guard lua_rawgeti(L, index, position) == LUA_TTABLE, let reminder = reminder(at: lua_gettop(L)) else {
                    return nil
                }
                // A repeated id: DecisionReader words the refusal.
                if let id = reminder.id, !ids.insert(id).inserted { return nil }
                reminders.append(reminder)
                position += 1
            }
            return values <= maxValues ? reminders : nil
        }

        /// One reminder table: DecisionReader's defaults and ranges.
        private mutating func reminder(at item: Int32) -> ReminderRequest? {
            guard permit_settle_then_has_metatable(L, item) == 0 else { return nil }
            values += 2
            var day = 0, hour = 9, minute = 0
            var title: LocalizedText?, body: LocalizedText?, action: String?, badge: Int?, id: String?
            var sound = true, level: InterruptionLevel?
            lua_pushnil(L)
            while lua_next(L, item) != 0 {
                values += 2
                let value = lua_gettop(L)
                func whole(_ range: ClosedRange<Int>) -> Int? {
                    guard permit_is_integer(L, value) != 0 else { return nil }
                    let number = lua_tointegerx(L, value, nil)
                    guard let int = Int(exactly: number), range.contains(int) else { return nil }
                    return int
                }
                var valid: Bool
                switch lua_type(L, -2) == LUA_TSTRING ? validKey(at: -2) : nil {
                case "day": day = whole(0...3650) ?? -1; valid = day >= 0
                case "hour": hour = whole(0...23) ?? -1; valid = hour >= 0
                case "minute": minute = whole(0...59) ?? -1; valid = minute >= 0
                case "badge": badge = whole(0...99_999); valid = badge != nil
                case "title": title = localized(value); valid = title != nil
                case "body": body = localized(value); valid = body != nil
                case "action": action = text(at: value); valid = action != nil
                case "id": id = text(at: value); valid = id != nil
                case "interruption_level":
                    level = lua_type(L, value) == LUA_TSTRING ? InterruptionLevel(rawValue: decoded(at: value)) : nil
                    valid = level != nil
                case "sound":
                    valid = lua_type(L, value) == LUA_TBOOLEAN
                    sound = lua_toboolean(L, value) != 0
                default: valid = false
                }
                guard valid else {
                    lua_settop(L, item)
                    return nil
                }
                permit_pop(L, 1)
            }
            guard let body else { return nil }
            return ReminderRequest(
                day: day, hour: hour, minute: minute, title: title, body: body, action: action, sound: sound,
                badge: badge, id: id, interruptionLevel: level)
        }

        /// The string at `index` as `LuaVM.read` decodes it (invalid UTF-8 becomes U+FFFD).
        func decoded(at index: Int32) -> String {
            var length = 0
            let pointer = permit_tolstring_raw(L, index, &length)
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }

        /// A string key, only when it is valid UTF-8 (two invalid keys could decode alike).
        ///
        /// Keys are nearly always ASCII (locale tags, state names): ASCII is valid UTF-8, so it
        /// is decoded without the check (`String(validating:as:)`, generic and not specialised
        /// here, looked up type metadata on every call). Other keys are decoded, which repairs
        /// what is not UTF-8, and kept only when the repair changed nothing: the same test as
        /// `String(validating:as:)`, which needs iOS 18, above the floor.
        func validKey(at index: Int32) -> String? {
            guard lua_type(L, index) == LUA_TSTRING else { return nil }
            var length = 0
            let bytes = UnsafeRawBufferPointer(start: permit_tolstring_raw(L, index, &length), count: length)
            let key = String(decoding: bytes, as: UTF8.self)
            if !bytes.contains(where: { $0 >= 0x80 }) { return key }
            return key.utf8.elementsEqual(bytes) ? key : nil
        }

        /// The action of kind `kind` (its `PERMIT_A_*` code, generated from `ContextSchema.actions`),
        /// with the fields it requires; `nil` when any is not plainly valid.
        mutating func action(kind: Int, present: Int, at index: Int32) -> Decision.Action? {
            func has(_ field: Int32) -> Bool { present & (1 << Int(field)) != 0 }
            func slot(_ field: Int32) -> Int32 { index + 1 + field }
            switch kind {
            case PERMIT_A_NONE:
                return Decision.Action.none
            case PERMIT_A_SOFT_PROMPT:
                guard let title = localized(slot(Int32(PERMIT_D_TITLE))),
                    let message = localized(slot(Int32(PERMIT_D_MESSAGE))),
                    let accept = localized(slot(Int32(PERMIT_D_ACCEPT))),
                    let presentation = presentation(slot(Int32(PERMIT_D_PRESENTATION)))
                else { return nil }
                // An inline row may leave out its decline text (DecisionReader.button).
                var decline: LocalizedText?
                if presentation != .inline || has(Int32(PERMIT_D_DECLINE)) {
                    guard let text = localized(slot(Int32(PERMIT_D_DECLINE))) else { return nil }
                    decline = text
                }
                var variant: String?
                if has(Int32(PERMIT_D_VARIANT)) {
                    guard let text = text(at: slot(Int32(PERMIT_D_VARIANT))) else { return nil }
                    variant = text
                }
                guard let id = promptID(present: present, at: index), let link = webLink(present: present, at: index)
                else { return nil }
                return .softPrompt(
                    SoftPrompt(
                        title: title, message: message, accept: accept, decline: decline, presentation: presentation,
                        variant: variant, id: id, link: link))
            case PERMIT_A_REQUEST_PERMISSION:
                guard let options = options(slot(Int32(PERMIT_D_OPTIONS))) else { return nil }
                return .requestPermission(options: options)
            case PERMIT_A_SETTINGS_PROMPT:
                guard let title = localized(slot(Int32(PERMIT_D_TITLE))),
                    let message = localized(slot(Int32(PERMIT_D_MESSAGE))),
                    let open = localized(slot(Int32(PERMIT_D_OPEN))),
                    let presentation = presentation(slot(Int32(PERMIT_D_PRESENTATION))),
                    let deepLink = deepLink(slot(Int32(PERMIT_D_DEEP_LINK)))
                else { return nil }
                var cancel: LocalizedText?
                if presentation != .inline || has(Int32(PERMIT_D_CANCEL)) {
                    guard let text = localized(slot(Int32(PERMIT_D_CANCEL))) else { return nil }
                    cancel = text
                }
                var setting: NotificationSettings.Setting?
                if has(Int32(PERMIT_D_FOR_SETTING)) {
                    let value = slot(Int32(PERMIT_D_FOR_SETTING))
                    guard lua_type(L, value) == LUA_TSTRING, let named = NotificationSettings.Setting(rawValue: decoded(at: value))
                    else { return nil }
                    setting = named
                }
                guard let id = promptID(present: present, at: index), let link = webLink(present: present, at: index)
                else { return nil }
                return .settingsPrompt(
                    SettingsPrompt(
                        title: title, message: message, open: open, cancel: cancel, presentation: presentation,
                        deepLink: deepLink, forSetting: setting, id: id, link: link))
            case PERMIT_A_OPEN_SETTINGS:
                guard let deepLink = deepLink(slot(Int32(PERMIT_D_DEEP_LINK))) else { return nil }
                return .openSettings(deepLink)
            case PERMIT_A_INFORM:
                return informPage(present: present, at: index).map(Decision.Action.inform)
            case PERMIT_A_DISMISS:
                return .dismiss
            default:
                return nil
            }
        }

        /// DecisionReader.informPage: a page's title, message and button, of which a row
        /// (`inline`) needs only the title, and the `open` button (with its `deep_link`) beside
        /// a button.
        mutating func informPage(present: Int, at index: Int32) -> InformPage? {
            func has(_ field: Int32) -> Bool { present & (1 << Int(field)) != 0 }
            func slot(_ field: Int32) -> Int32 { index + 1 + field }
            guard let title = localized(slot(Int32(PERMIT_D_TITLE))),
                let presentation = presentation(slot(Int32(PERMIT_D_PRESENTATION)))
            else { return nil }
            var texts: [LocalizedText?] = []
            for field in [Int32(PERMIT_D_MESSAGE), Int32(PERMIT_D_BUTTON)] {
                if presentation == .inline && !has(field) {
                    texts.append(nil)
                    continue
                }
                guard let text = localized(slot(field)) else { return nil }
                texts.append(text)
            }
            // DecisionReader.settingsButton: `open` only beside a button, `deep_link` only with `open`.
            var open: LocalizedText?
            var deepLink = DeepLink.appSettings
            if has(Int32(PERMIT_D_OPEN)) {
                guard texts[1] != nil, let text = localized(slot(Int32(PERMIT_D_OPEN))),
                    let link = self.deepLink(slot(Int32(PERMIT_D_DEEP_LINK)))
                else { return nil }
                open = text
                deepLink = link
            } else if has(Int32(PERMIT_D_DEEP_LINK)) {
                return nil
            }
            guard let id = promptID(present: present, at: index),
                let link = webLink(present: present, at: index, onLabel: texts[1] == nil)
            else { return nil }
            return InformPage(
                title: title, message: texts[0], button: texts[1], open: open, deepLink: deepLink,
                presentation: presentation, id: id, link: link)
        }

        /// DecisionReader.webLink: `.some(nil)` when neither `link` nor `url` is there, the link
        /// when both are and every address is a page a link may open (`WebLink.problem`), and
        /// `nil` otherwise (one without the other, a link on a label, a bad address).
        mutating func webLink(present: Int, at index: Int32, onLabel: Bool = false) -> WebLink?? {
            let fields = 1 << Int(PERMIT_D_LINK) | 1 << Int(PERMIT_D_URL)
            let given = present & fields
            guard given != 0 else { return .some(nil) }
            guard given == fields, !onLabel, let text = localized(index + 1 + Int32(PERMIT_D_LINK)),
                let address = localized(index + 1 + Int32(PERMIT_D_URL))
            else { return nil }
            switch address {
            case .plain(let url):
                guard WebLink.problem(with: url) == nil else { return nil }
            case .translations(let urls):
                guard urls.values.allSatisfy({ WebLink.problem(with: $0) == nil }) else { return nil }
            }
            return .some(WebLink(text: text, address: address))
        }

        /// DecisionReader.promptID: `.some(nil)` when absent, the id when a string of 1 to
        /// `maxIDBytes` bytes, and `nil` when present and not plainly valid.
        func promptID(present: Int, at index: Int32) -> String?? {
            guard present & (1 << Int(PERMIT_D_ID)) != 0 else { return .some(nil) }
            let value = index + 1 + Int32(PERMIT_D_ID)
            guard let id = text(at: value), !id.isEmpty, id.utf8.count <= DecisionReader.maxIDBytes else { return nil }
            return .some(id)
        }

        /// A boolean, or `nil` for any other type.
        func boolean(at index: Int32) -> Bool? {
            lua_type(L, index) == LUA_TBOOLEAN ? lua_toboolean(L, index) != 0 : nil
        }

        /// DecisionReader.text: a string of at most `maxTextBytes`.
        func text(at index: Int32) -> String? {
            guard lua_type(L, index) == LUA_TSTRING else { return nil }
            let text = decoded(at: index)
            guard text.utf8.count <= DecisionReader.maxTextBytes else { return nil }
            return text
        }

        /// DecisionReader.localized: a text, or a non-empty plain table of translations.
        mutating func localized(_ index: Int32) -> LocalizedText? {
            switch lua_type(L, index) {
            case LUA_TSTRING:
                return text(at: index).map(LocalizedText.plain)
            case LUA_TTABLE:
                // The same table again (a policy's nine reminders share one `title`): read once.
                // No Lua code runs while a result is read and every table read is reachable
                // from it, so a table's address stands for its unchanged contents until the end.
                let identity = lua_topointer(L, index)
                if let seen = translationsRead.first(where: { $0.table == identity }) {
                    values += 2 * seen.entries
                    return seen.text
                }
                guard permit_settle_then_has_metatable(L, index) == 0, lua_checkstack(L, 3) != 0 else { return nil }
                var translations: [String: String] = [:]
                var entries = 0
                lua_pushnil(L)
                while lua_next(L, index) != 0 {
                    entries += 1
                    guard let locale = validKey(at: -2), let text = text(at: -1) else {
                        lua_settop(L, -3)
                        return nil
                    }
                    translations[locale] = text
                    permit_pop(L, 1)
                }
                guard entries > 0 else { return nil }
                values += 2 * entries
                if translationsRead.count < 8 { translationsRead.append((identity, .translations(translations), entries)) }
                return .translations(translations)
            default:
                return nil
            }
        }

        /// DecisionReader.rememberUpdates: scalars by name (finite numbers only); `permit.forget`
        /// deletes.
        mutating func rememberUpdates(at index: Int32) -> [String: PolicyValue?]? {
            guard lua_type(L, index) == LUA_TTABLE, permit_settle_then_has_metatable(L, index) == 0,
                lua_checkstack(L, 3) != 0
            else { return nil }
            var updates: [String: PolicyValue?] = [:]
            var entries = 0
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                entries += 1
                guard let key = validKey(at: -2) else {
                    lua_settop(L, -3)
                    return nil
                }
                switch lua_type(L, -1) {
                case LUA_TBOOLEAN:
                    updates[key] = .some(.bool(lua_toboolean(L, -1) != 0))
                case LUA_TNUMBER:
                    if permit_is_integer(L, -1) != 0 {
                        updates[key] = .some(.integer(lua_tointegerx(L, -1, nil)))
                    } else {
                        // NaN and infinities cannot be saved: DecisionReader words the refusal.
                        let number = lua_tonumberx(L, -1, nil)
                        guard number.isFinite else {
                            lua_settop(L, -3)
                            return nil
                        }
                        updates[key] = .some(.number(number))
                    }
                case LUA_TSTRING:
                    let text = decoded(at: -1)
                    updates[key] = text == LuaPolicy.forgetMarker ? .some(nil) : .some(.string(text))
                default:
                    lua_settop(L, -3)
                    return nil
                }
                permit_pop(L, 1)
            }
            values += 2 * entries
            return updates
        }

        /// DecisionReader.presentation: absent is `.alert`.
        func presentation(_ index: Int32) -> Presentation? {
            switch lua_type(L, index) {
            case LUA_TNIL: return .alert
            case LUA_TSTRING: return Presentation(rawValue: decoded(at: index))
            default: return nil
            }
        }

        /// DecisionReader.deepLink: absent is `.appSettings`.
        func deepLink(_ index: Int32) -> DeepLink? {
            switch lua_type(L, index) {
            case LUA_TNIL: return .appSettings
            case LUA_TSTRING: return DeepLink(rawValue: decoded(at: index))
            default: return nil
            }
        }

        /// DecisionReader.options: absent is alert, sound, badge; a list of option names,
        /// duplicates dropped.
        mutating func options(_ index: Int32) -> [AuthorizationOption]? {
            switch lua_type(L, index) {
            case LUA_TNIL:
                return [.alert, .sound, .badge]
            case LUA_TTABLE:
                guard permit_settle_then_has_metatable(L, index) == 0, lua_checkstack(L, 3) != 0 else { return nil }
                var entries: Int64 = 0
                lua_pushnil(L)
                while lua_next(L, index) != 0 {
                    entries += 1
                    permit_pop(L, 1)
                }
                var options: [AuthorizationOption] = []
                var position: Int64 = 1
                while position <= entries {
                    defer { permit_pop(L, 1) }
                    guard lua_rawgeti(L, index, position) == LUA_TSTRING,
                        let option = AuthorizationOption(rawValue: decoded(at: -1))
                    else { return nil }
                    if !options.contains(option) { options.append(option) }
                    position += 1
                }
                values += 2 * Int(entries)
                return options
            default:
                return nil
            }
        }
    }
}

/// The interned key of each value of the core's enumerations ctx holds.
extension FastPath.Key {
    static func of(_ status: PermissionStatus) -> Self {
        switch status {
        case .unknown: .unknown
        case .notDetermined: .notDetermined
        case .denied: .denied
        case .authorized: .authorized
        case .provisional: .provisional
        case .ephemeral: .ephemeral
        }
    }

    static func of(_ answer: SoftPromptAnswer) -> Self {
        switch answer {
        case .accept: .accept
        case .decline: .decline
        case .dismiss: .dismiss
        case .link: .link
        }
    }

    static func of(_ answer: InformAnswer) -> Self {
        switch answer {
        case .ok: .ok
        case .dismiss: .dismiss
        case .open: .open
        case .link: .link
        }
    }

    static func of(_ answer: SettingsPromptAnswer) -> Self {
        switch answer {
        case .open: .open
        case .cancel: .cancel
        case .dismiss: .dismiss
        case .link: .link
        }
    }

    static func of(_ value: SettingValue) -> Self {
        switch value {
        case .enabled: .enabled
        case .disabled: .disabled
        case .notSupported: .notSupported
        }
    }
}
