import CLua
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
enum FastPath {
    // MARK: Interned strings

    /// Every key and enum value `ctx` holds, interned once per VM (a sequence in the registry)
    /// so that a key costs one `lua_rawgeti` instead of hashing its text on every call.
    enum Key: Int32, CaseIterable {
        // ctx
        case capabilities = 1, event, history, locale, now, params, platform, previousStatus, settings, state,
            status, user
        // event
        case name, feature, answer, granted
        case appLaunch, appForeground, appBackground, featureOpened, softPromptAnswered, systemPromptAnswered,
            settingsPromptAnswered
        case accept, decline, dismiss, open, cancel
        // statuses
        case unknown, notDetermined, denied, authorized, provisional, ephemeral
        // setting values, then names
        case enabled, disabled, notSupported
        case alert, sound, badge, lockScreen, notificationCenter, carPlay, criticalAlert, timeSensitive,
            scheduledDelivery
        // history
        case deniedAt, features, firstLaunchAt, foregrounds, lastStatus, launches, legacyRegistered, promptsToday,
            settingsPrompt, softPrompt, statusChangedAt, systemPrompt
        case accepted, declined, dismissed, lastAnsweredAt, lastShownAt, shown
        case answeredAt, requested
        case cancelled, opened
        case lastOpenedAt, lastPromptAt
        // user
        case bucket

        var text: String {
            switch self {
            case .previousStatus: "previous_status"
            case .appLaunch: "app_launch"
            case .appForeground: "app_foreground"
            case .appBackground: "app_background"
            case .featureOpened: "feature_opened"
            case .softPromptAnswered: "soft_prompt_answered"
            case .systemPromptAnswered: "system_prompt_answered"
            case .settingsPromptAnswered: "settings_prompt_answered"
            case .notDetermined: "not_determined"
            case .notSupported: "not_supported"
            case .lockScreen: "lock_screen"
            case .notificationCenter: "notification_center"
            case .carPlay: "car_play"
            case .criticalAlert: "critical_alert"
            case .timeSensitive: "time_sensitive"
            case .scheduledDelivery: "scheduled_delivery"
            case .deniedAt: "denied_at"
            case .firstLaunchAt: "first_launch_at"
            case .lastStatus: "last_status"
            case .legacyRegistered: "legacy_registered"
            case .promptsToday: "prompts_today"
            case .settingsPrompt: "settings_prompt"
            case .softPrompt: "soft_prompt"
            case .statusChangedAt: "status_changed_at"
            case .systemPrompt: "system_prompt"
            case .lastAnsweredAt: "last_answered_at"
            case .lastShownAt: "last_shown_at"
            case .answeredAt: "answered_at"
            case .lastOpenedAt: "last_opened_at"
            case .lastPromptAt: "last_prompt_at"
            default: String(describing: self)
            }
        }

        static func of(_ status: PermissionStatus) -> Key {
            switch status {
            case .unknown: .unknown
            case .notDetermined: .notDetermined
            case .denied: .denied
            case .authorized: .authorized
            case .provisional: .provisional
            case .ephemeral: .ephemeral
            }
        }

        static func of(_ value: SettingValue) -> Key {
            switch value {
            case .enabled: .enabled
            case .disabled: .disabled
            case .notSupported: .notSupported
            }
        }
    }

    /// The table of interned strings, in `Key` order; stored once per VM.
    static var internedTable: LuaValue {
        .table(LuaTable(array: Key.allCases.map { .string($0.text) }))
    }

    // MARK: The context

    /// What the context refers to and does not rebuild each call: the registry slots of live
    /// refs the policy holds (checked with `LuaVM.slot(of:)` when they were made).
    struct Cached {
        let keys: Int32
        let platform: Int32
        let capabilities: Int32
        let params: Int32
        let locale: Int32
    }

    /// Pushes `ctx` as `LuaPolicy`'s general path builds it (SPEC §4): a fresh table each call,
    /// with the stored read-only platform, capabilities and params tables. `history`,
    /// `settings`, `state` and `user` are attached as a snapshot and built on first use
    /// (`LazyContext.c`), which no policy can tell apart from having them from the start.
    static func pushContext(
        _ context: PolicyContext, cached: Cached, lazyFields: LazyFieldsEncoder, on stack: LuaVM.LuaStack
    ) throws(LuaError) {
        let L = stack.L
        let vm = stack.vm
        guard lua_checkstack(L, 12) != 0 else {
            throw LuaError(kind: .unsupportedValue, message: "Lua stack exhausted while pushing a table")
        }
        _ = permit_push_ref(L, cached.keys)
        let k = lua_gettop(L)
        let writer = Writer(L: L, k: k, maxDepth: vm.limits.maxTableDepth)

        // Room for every field, the snapshot's key included, so building the lazy ones never
        // has to grow ctx. The eager keys in sorted order.
        let ctx = try writer.newTable(array: 0, hash: 9 + LazyFieldsEncoder.fieldCount, depth: 0)
        permit_set_ref(L, ctx, k, Key.capabilities.rawValue, cached.capabilities)
        try writer.pushEvent(context.event, depth: 1)
        writer.setTop(ctx, .event)
        permit_set_ref(L, ctx, k, Key.locale.rawValue, cached.locale)
        permit_set_int(L, ctx, k, Key.now.rawValue, context.now)
        permit_set_ref(L, ctx, k, Key.params.rawValue, cached.params)
        permit_set_ref(L, ctx, k, Key.platform.rawValue, cached.platform)
        writer.setInterned(ctx, .previousStatus, .of(context.previousStatus))
        writer.setInterned(ctx, .status, .of(context.status))
        try lazyFields.attach(context, to: ctx, keysSlot: cached.keys, maxDepth: vm.limits.maxTableDepth, on: L)

        // Leave only ctx: drop the interned table below it.
        lua_rotate(L, k, -1)
        permit_pop(L, 1)
    }

    /// Pushes tables on the stack; `k` is the index of the interned strings.
    struct Writer {
        let L: OpaquePointer
        let k: Int32
        let maxDepth: Int

        /// A new table on top; returns its index. Fails like `LuaVM.push` for a table at `depth`.
        func newTable(array: Int, hash: Int, depth: Int) throws(LuaError) -> Int32 {
            guard depth < maxDepth else {
                throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
            }
            guard lua_checkstack(L, 4) != 0 else {
                throw LuaError(kind: .unsupportedValue, message: "Lua stack exhausted while pushing a table")
            }
            permit_newtable(L, Int32(clamping: array), Int32(clamping: hash))
            return lua_gettop(L)
        }

        /// Pops the value on top into `table[key]`.
        func setTop(_ table: Int32, _ key: Key) { permit_set_top(L, table, k, key.rawValue) }

        func setInterned(_ table: Int32, _ key: Key, _ value: Key) {
            permit_set_interned(L, table, k, key.rawValue, value.rawValue)
        }

        func setCount(_ table: Int32, _ key: Key, _ value: Int) {
            permit_set_int(L, table, k, key.rawValue, Int64(value))
        }

        func setTime(_ table: Int32, _ key: Key, _ value: Int64?) {
            if let value { permit_set_int(L, table, k, key.rawValue, value) }
        }

        func setString(_ table: Int32, _ key: Key, _ text: String) {
            var text = text
            text.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    permit_set_string(L, table, k, key.rawValue, chars.baseAddress, chars.count)
                }
            }
        }

        func pushString(_ text: String) {
            var text = text
            text.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    _ = lua_pushlstring(L, chars.baseAddress, chars.count)
                }
            }
        }

        /// `{ name = ..., <the event's fields> }` (LuaBridge.event).
        func pushEvent(_ event: AppEvent, depth: Int) throws(LuaError) {
            let name: Key
            switch event {
            case .appLaunch: name = .appLaunch
            case .appForeground: name = .appForeground
            case .appBackground: name = .appBackground
            case .featureOpened: name = .featureOpened
            case .softPromptAnswered: name = .softPromptAnswered
            case .systemPromptAnswered: name = .systemPromptAnswered
            case .settingsPromptAnswered: name = .settingsPromptAnswered
            }
            // Every extra field name sorts before "name".
            switch event {
            case .appLaunch, .appForeground, .appBackground:
                let t = try newTable(array: 0, hash: 1, depth: depth)
                setInterned(t, .name, name)
            case .featureOpened(let feature):
                let t = try newTable(array: 0, hash: 2, depth: depth)
                setString(t, .feature, feature)
                setInterned(t, .name, name)
            case .softPromptAnswered(let answer):
                let t = try newTable(array: 0, hash: 2, depth: depth)
                let value: Key = switch answer {
                case .accept: .accept
                case .decline: .decline
                case .dismiss: .dismiss
                }
                setInterned(t, .answer, value)
                setInterned(t, .name, name)
            case .systemPromptAnswered(let granted):
                let t = try newTable(array: 0, hash: 2, depth: depth)
                permit_set_bool(L, t, k, Key.granted.rawValue, granted ? 1 : 0)
                setInterned(t, .name, name)
            case .settingsPromptAnswered(let answer):
                let t = try newTable(array: 0, hash: 2, depth: depth)
                let value: Key = switch answer {
                case .open: .open
                case .cancel: .cancel
                case .dismiss: .dismiss
                }
                setInterned(t, .answer, value)
                setInterned(t, .name, name)
            }
        }
    }

    // MARK: The decision

    /// What `decide` returned: read here, or copied for the general path.
    enum DecisionResult {
        case decision(Decision?)
        case general(LuaValue)
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

        mutating func read(at index: Int32) -> Decision? {
            let bits = permit_decision_fields(L, index)
            guard bits >= 0 else { return nil }
            defer { lua_settop(L, index) }
            let present = Int(bits) & 0xFFFF
            func has(_ field: Int32) -> Bool { present & (1 << Int(field)) != 0 }
            func slot(_ field: Int32) -> Int32 { index + 1 + field }
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

            let action: Decision.Action
            switch Int(bits) >> 16 {
            case 0:
                action = .none
            case 1:
                guard let title = localized(slot(Int32(PERMIT_D_TITLE))),
                      let message = localized(slot(Int32(PERMIT_D_MESSAGE))),
                      let accept = localized(slot(Int32(PERMIT_D_ACCEPT))),
                      let decline = localized(slot(Int32(PERMIT_D_DECLINE))),
                      let presentation = presentation(slot(Int32(PERMIT_D_PRESENTATION)))
                else { return nil }
                var variant: String?
                if has(Int32(PERMIT_D_VARIANT)) {
                    guard let text = text(at: slot(Int32(PERMIT_D_VARIANT))) else { return nil }
                    variant = text
                }
                action = .softPrompt(SoftPrompt(
                    title: title, message: message, accept: accept, decline: decline, presentation: presentation,
                    variant: variant))
            case 2:
                guard let options = options(slot(Int32(PERMIT_D_OPTIONS))) else { return nil }
                action = .requestPermission(options: options)
            case 3:
                guard let title = localized(slot(Int32(PERMIT_D_TITLE))),
                      let message = localized(slot(Int32(PERMIT_D_MESSAGE))),
                      let open = localized(slot(Int32(PERMIT_D_OPEN))),
                      let cancel = localized(slot(Int32(PERMIT_D_CANCEL))),
                      let presentation = presentation(slot(Int32(PERMIT_D_PRESENTATION))),
                      let deepLink = deepLink(slot(Int32(PERMIT_D_DEEP_LINK)))
                else { return nil }
                action = .settingsPrompt(SettingsPrompt(
                    title: title, message: message, open: open, cancel: cancel, presentation: presentation,
                    deepLink: deepLink))
            default:
                return nil
            }
            guard values <= maxValues else { return nil }
            return Decision(action, reason: reason, remember: remember)
        }

        /// The string at `index` as `LuaVM.read` decodes it (invalid UTF-8 becomes U+FFFD).
        func decoded(at index: Int32) -> String {
            var length = 0
            let pointer = permit_tolstring_raw(L, index, &length)
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }

        /// A string key, only when it is valid UTF-8 (two invalid keys could decode alike).
        func validKey(at index: Int32) -> String? {
            guard lua_type(L, index) == LUA_TSTRING else { return nil }
            var length = 0
            let pointer = permit_tolstring_raw(L, index, &length)
            return String(validating: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
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
                guard permit_table_has_metatable(L, index) == 0, lua_checkstack(L, 3) != 0 else { return nil }
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
                return .translations(translations)
            default:
                return nil
            }
        }

        /// DecisionReader.rememberUpdates: scalars by name; `permit.forget` deletes.
        mutating func rememberUpdates(at index: Int32) -> [String: PolicyValue?]? {
            guard lua_type(L, index) == LUA_TTABLE, permit_table_has_metatable(L, index) == 0,
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
                        updates[key] = .some(.number(lua_tonumberx(L, -1, nil)))
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
                guard permit_table_has_metatable(L, index) == 0, lua_checkstack(L, 3) != 0 else { return nil }
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
