import CLuaShim
import PermitCore

/// Writes the ctx fields a policy rarely reads (`history`, `settings`, `state`, `user`,
/// `local_time`; history's `events` among them) as the
/// snapshot `LazyContext.c` builds them from on first use, instead of building a dozen tables
/// for every event.
///
/// The snapshot is mostly a fixed C struct (`permit_lazy_header`: the ledger's counts and
/// times, the settings, the bucket) and one record per feature and per app event; only `state`,
/// whose values can nest, is a list of nodes. What it describes is exactly what the general
/// path (`LuaBridge`) builds; the depth limit is checked here, before ctx is pushed, as the
/// general path checks it while pushing, and the snapshot itself is written only when the
/// policy first reads a lazy field (`serve`). One encoder belongs to one VM and is used under its
/// lock; its buffers are reused from call to call.
final class LazyFieldsEncoder {
    /// The ctx fields built on first use (`ContextSchema.lazyContextFields`).
    static let fieldCount = 9

    /// The snapshot's variable parts, gathered in memory this encoder owns and reuses from call
    /// to call. Used under the VM's lock, so the accesses are unchecked: a class's stored
    /// property would otherwise pay a dynamic exclusivity check on every use.
    @exclusivity(unchecked) private var parts = Parts()

    /// The app events the policy declares: `history.events` lists them at count 0 until they
    /// happen, so `ctx.history.events.lesson_completed.count` reads 0, not an error. Each name
    /// once, as the snapshot needs (one record per name): `DeclaredEvents` refuses a policy that
    /// lists a name twice.
    let declaredEvents: [String]

    init(declaredEvents: [String] = []) { self.declaredEvents = declaredEvents }

    deinit { parts.deallocate() }

    /// Where the snapshot of the ctx being called comes from: C asks for it (`measure`, then
    /// `write`) on the policy's first read of a lazy field, inside that call. The pointer is the
    /// caller's and valid until the call returns; C is told the call is over then
    /// (`permit_lazy_close`, in `LuaVM`), so it never reads a stale one.
    private struct Source {
        let context: UnsafePointer<PolicyContext>
        let keysSlot: Int32
        let maxDepth: Int
    }

    @exclusivity(unchecked) private var source: Source?

    /// Makes `context` the source of the snapshot for the ctx `fields` describes, for as long as
    /// `context` stays valid: only the depth checks run now, as the general path refuses a
    /// table too deep while pushing ctx; the snapshot is written if and when the policy reads
    /// a lazy field. Most events read none, and writing it every time cost more than the
    /// policy's own work on them.
    func serve(
        _ context: UnsafePointer<PolicyContext>, keysSlot: Int32, maxDepth: Int, in fields: inout permit_ctx_fields
    ) throws(LuaError) {
        // The tables' depths in ctx, as the general path checks them: history, settings, state
        // and user at 1, history's parts at 2, one table per feature at 3; `state` is checked
        // where it is deeper, inside history.
        guard maxDepth > (context.pointee.history.features.isEmpty ? 2 : 3) else {
            throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
        }
        if !context.pointee.history.state.isEmpty {
            try StateNodes.checkDepth(of: context.pointee.history.state, at: 2, maxDepth: maxDepth)
        }
        source = Source(context: context, keysSlot: keysSlot, maxDepth: maxDepth)
        fields.source = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        fields.measure = { encoder in
            Unmanaged<LazyFieldsEncoder>.fromOpaque(encoder!).takeUnretainedValue().measure()
        }
        fields.write = { encoder, memory in
            Unmanaged<LazyFieldsEncoder>.fromOpaque(encoder!).takeUnretainedValue().write(into: memory!)
        }
    }

    /// Gathers the snapshot's variable parts from the source; its size in bytes (0 when there
    /// is no source or it cannot be encoded, which `serve`'s checks rule out).
    private func measure() -> Int {
        guard let source else { return 0 }
        do {
            try parts.gather(source.context, declaredEvents: declaredEvents, maxDepth: source.maxDepth)
        } catch {
            return 0
        }
        return MemoryLayout<permit_lazy_header>.stride + parts.records.count + parts.state.nodes.count
            + parts.state.text.count
    }

    /// Writes the snapshot `measure` gathered: a header and three copies.
    private func write(into memory: UnsafeMutableRawPointer) {
        guard let source else { return }
        let context = source.context
        let headerBytes = MemoryLayout<permit_lazy_header>.stride
        let recordBytes = parts.records.count
        let nodeBytes = parts.state.nodes.count

        var header = permit_lazy_header()
        header.keys_ref = source.keysSlot
        header.last_status = FastPath.Key.of(context.pointee.history.lastStatus).rawValue
        header.legacy_registered = context.pointee.history.legacyRegistered ? 1 : 0
        header.bucket = Int64(context.pointee.userBucket)
        LazyFieldsEncoder.writeLocalTimeNumbers(context.pointee.localTime, textOffset: parts.localTextOffset, into: &header)
        header.feature_count = UInt32(parts.featureCount)
        header.event_count = UInt32(parts.records.count / MemoryLayout<permit_lazy_feature>.stride - parts.featureCount)
        header.state_nodes = UInt32(parts.state.nodeCount)
        header.arms_node = UInt32(parts.armsNode)
        header.text_bytes = UInt32(parts.state.text.count)
        LazyFieldsEncoder.writeHistory(of: context.pointee, into: &header)
        LazyFieldsEncoder.writeSettings(of: context.pointee, into: &header)
        memory.storeBytes(of: header, as: permit_lazy_header.self)
        parts.records.copy(to: memory + headerBytes)
        parts.state.nodes.copy(to: memory + headerBytes + recordBytes)
        parts.state.text.copy(to: memory + headerBytes + recordBytes + nodeBytes)
    }

    /// The ledger's numbers, by the C side's field index; a missing one sets its `absent` bit.
    ///
    /// Static helpers with an `inout` bit set rather than nested functions capturing it: a
    /// captured variable is boxed, and in a debug build (the test suite's, which handles
    /// hundreds of thousands of events) every use of a box pays two exclusivity checks. The
    /// ledger is read once, not once a field.
    @inline(__always)
    private static func writeHistory(of context: PolicyContext, into header: inout permit_lazy_header) {
        let ledger = context.history
        header.absent = withUnsafeMutableBytes(of: &header.history) { raw in
            let history = raw.bindMemory(to: Int64.self)
            var absent: UInt32 = 0
            put(ledger.deniedAt, PERMIT_H_DENIED_AT, history, &absent)
            put(ledger.firstLaunchAt, PERMIT_H_FIRST_LAUNCH_AT, history, &absent)
            history[PERMIT_H_FOREGROUNDS] = Int64(ledger.foregrounds)
            history[PERMIT_H_LAUNCHES] = Int64(ledger.launches)
            history[PERMIT_H_PROMPTS_TODAY] = Int64(ledger.promptsToday)
            put(ledger.statusChangedAt, PERMIT_H_STATUS_CHANGED_AT, history, &absent)
            let inform = ledger.inform
            history[PERMIT_H_INFORM_DISMISSED] = Int64(inform.dismissed)
            put(inform.lastShownAt, PERMIT_H_INFORM_LAST_SHOWN_AT, history, &absent)
            history[PERMIT_H_INFORM_LINKS] = Int64(inform.links)
            history[PERMIT_H_INFORM_OK] = Int64(inform.ok)
            history[PERMIT_H_INFORM_OPENED] = Int64(inform.opened)
            history[PERMIT_H_INFORM_SHOWN] = Int64(inform.shown)
            let settings = ledger.settingsPrompt
            history[PERMIT_H_SETTINGS_CANCELLED] = Int64(settings.cancelled)
            history[PERMIT_H_SETTINGS_INLINE_ACTED] = Int64(settings.inlineActed)
            history[PERMIT_H_SETTINGS_INLINE_SHOWN] = Int64(settings.inlineShown)
            put(settings.lastShownAt, PERMIT_H_SETTINGS_LAST_SHOWN_AT, history, &absent)
            history[PERMIT_H_SETTINGS_LINKS] = Int64(settings.links)
            history[PERMIT_H_SETTINGS_OPENED] = Int64(settings.opened)
            history[PERMIT_H_SETTINGS_SHOWN] = Int64(settings.shown)
            let soft = ledger.softPrompt
            history[PERMIT_H_SOFT_ACCEPTED] = Int64(soft.accepted)
            history[PERMIT_H_SOFT_DECLINED] = Int64(soft.declined)
            history[PERMIT_H_SOFT_DISMISSED] = Int64(soft.dismissed)
            history[PERMIT_H_SOFT_INLINE_ACTED] = Int64(soft.inlineActed)
            history[PERMIT_H_SOFT_INLINE_SHOWN] = Int64(soft.inlineShown)
            put(soft.lastAnsweredAt, PERMIT_H_SOFT_LAST_ANSWERED_AT, history, &absent)
            put(soft.lastShownAt, PERMIT_H_SOFT_LAST_SHOWN_AT, history, &absent)
            history[PERMIT_H_SOFT_LINKS] = Int64(soft.links)
            history[PERMIT_H_SOFT_SHOWN] = Int64(soft.shown)
            let system = ledger.systemPrompt
            put(system.answeredAt, PERMIT_H_SYSTEM_ANSWERED_AT, history, &absent)
            put(system.granted.map { $0 ? 1 : 0 }, PERMIT_H_SYSTEM_GRANTED, history, &absent)
            history[PERMIT_H_SYSTEM_REQUESTED] = Int64(system.requested)
            history[PERMIT_H_SYSTEM_SHOWN] = Int64(system.shown)
            return absent
        }
    }

    /// Writes `value` at `field`, or marks the field absent.
    @inline(__always)
    private static func put(
        _ value: Int64?, _ field: Int, _ history: UnsafeMutableBufferPointer<Int64>, _ absent: inout UInt32
    ) {
        if let value { history[field] = value } else { absent |= 1 << UInt32(field) }
    }

    /// `local_time`'s numbers, and where its date and zone id are in the text.
    @inline(__always)
    private static func writeLocalTimeNumbers(_ local: LocalTime, textOffset: Int, into header: inout permit_lazy_header) {
        header.local_hour = Int32(clamping: local.hour)
        header.local_minute = Int32(clamping: local.minute)
        header.local_weekday = Int32(clamping: local.weekday)
        header.local_text_offset = UInt32(textOffset)
        header.local_date_length = UInt32(local.date.utf8.count)
        header.local_zone_length = UInt32(local.timeZone.utf8.count)
    }

    /// The settings, as the interned keys of their values.
    @inline(__always)
    private static func writeSettings(of context: PolicyContext, into header: inout permit_lazy_header) {
        let values = context.settings
        withUnsafeMutableBytes(of: &header.settings) { raw in
            let settings = raw.bindMemory(to: Int32.self)
            func set(_ index: Int, _ value: SettingValue) { settings[index] = FastPath.Key.of(value).rawValue }
            set(Int(PERMIT_S_ALERT), values.alert)
            set(Int(PERMIT_S_BADGE), values.badge)
            set(Int(PERMIT_S_CAR_PLAY), values.carPlay)
            set(Int(PERMIT_S_CRITICAL_ALERT), values.criticalAlert)
            set(Int(PERMIT_S_LIVE_ACTIVITIES), values.liveActivities)
            set(Int(PERMIT_S_LOCK_SCREEN), values.lockScreen)
            set(Int(PERMIT_S_NOTIFICATION_CENTER), values.notificationCenter)
            set(Int(PERMIT_S_SCHEDULED_DELIVERY), values.scheduledDelivery)
            set(Int(PERMIT_S_SOUND), values.sound)
            set(Int(PERMIT_S_TIME_SENSITIVE), values.timeSensitive)
        }
    }
}

extension LazyFieldsEncoder {
    /// A run of bytes in memory of its own, reused from call to call: appending is a copy,
    /// without Array's generic paths (80–170 instructions an append or a `removeAll` in a
    /// release build, far more in a debug one). Its owner frees it (`deallocate`).
    struct ByteRun {
        private(set) var base: UnsafeMutableRawPointer
        private(set) var count = 0
        private var capacity: Int

        init(capacity: Int) {
            base = .allocate(byteCount: capacity, alignment: 16)
            self.capacity = capacity
        }

        /// Empties the run, keeping its memory.
        mutating func removeAll() { count = 0 }

        /// Room for `bytes` more bytes at the end; where they start.
        mutating func extend(by bytes: Int) -> Int {
            let offset = count
            if count + bytes > capacity {
                capacity = max(2 * capacity, count + bytes)
                let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
                grown.copyMemory(from: base, byteCount: count)
                base.deallocate()
                base = grown
            }
            count += bytes
            return offset
        }

        // The appends take the two record types by name, not as a generic `T`, and the text's
        // closure returns nothing: in a debug build (the test suite's, which encodes hundreds
        // of thousands of snapshots) a generic store goes through the type's value witnesses
        // and a closure returning a tuple looks up the tuple's metadata on every call. A
        // release build compiles all three forms alike.

        /// Appends a feature's or an app event's record.
        mutating func append(_ record: permit_lazy_feature) {
            let offset = extend(by: MemoryLayout<permit_lazy_feature>.stride)
            (base + offset).storeBytes(of: record, as: permit_lazy_feature.self)
        }

        /// Appends a node of `state`.
        mutating func append(_ node: permit_lazy_node) {
            let offset = extend(by: MemoryLayout<permit_lazy_node>.stride)
            (base + offset).storeBytes(of: node, as: permit_lazy_node.self)
        }

        /// Appends `text`'s UTF-8; where it is and how long.
        mutating func append(text: String) -> (offset: UInt32, length: UInt32) {
            let length = text.utf8.count
            let offset = extend(by: length)
            let target = base + offset
            // A native string (every name the ledger holds) lends its bytes in place; `withUTF8`
            // needs a mutable copy of the string first, for the bridged case that has none.
            let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
                if let source = bytes.baseAddress { target.copyMemory(from: source, byteCount: bytes.count) }
            }
            if copied == nil {
                var text = text
                text.withUTF8 { bytes in
                    if let source = bytes.baseAddress { target.copyMemory(from: source, byteCount: bytes.count) }
                }
            }
            return (UInt32(offset), UInt32(length))
        }

        /// Copies the run to `destination`.
        func copy(to destination: UnsafeMutableRawPointer) {
            destination.copyMemory(from: base, byteCount: count)
        }

        func deallocate() { base.deallocate() }
    }

    /// The variable parts of a snapshot, gathered before its size is known: state's and the
    /// arms' nodes, one record per feature then per app event, and the text they all point
    /// into (state's strings first, then the names, then local_time's date and zone id).
    struct Parts {
        var state = StateNodes()
        private(set) var records = ByteRun(capacity: 16 * MemoryLayout<permit_lazy_feature>.stride)
        private(set) var featureCount = 0
        private(set) var armsNode = 0
        private(set) var localTextOffset = 0

        /// Gathers everything of `context` that is not a fixed number of the header.
        mutating func gather(
            _ context: UnsafePointer<PolicyContext>, declaredEvents: [String], maxDepth: Int
        ) throws(LuaError) {
            // Read in place through the caller's pointer: the context passed on as a value was
            // copied whole (every field retained and released) on each snapshot.
            try state.encode(context.pointee.history.state, depth: 2, maxDepth: maxDepth)
            armsNode = state.nodeCount
            try state.append(context.pointee.history.arms, depth: 2)
            records.removeAll()
            // One record per feature, in the dictionary's order (the C side sorts them when it builds).
            for (name, feature) in context.pointee.history.features {
                let (offset, length) = state.text.append(text: name)
                records.append(
                    permit_lazy_feature(
                        opened: Int64(feature.opened), last_opened_at: feature.lastOpenedAt ?? 0,
                        last_prompt_at: feature.lastPromptAt ?? 0,
                        absent: (feature.lastOpenedAt == nil ? 2 : 0) | (feature.lastPromptAt == nil ? 4 : 0),
                        name_offset: offset, name_length: length))
            }
            featureCount = context.pointee.history.features.count
            // `history.events` as records like the features' (`opened` holds the count,
            // `last_opened_at` the last time): what `Ledger.events(including:)` lists, without
            // the merged dictionary it would build while a declared event has not happened yet.
            let events = context.pointee.history.events
            for (name, event) in events {
                let (offset, length) = state.text.append(text: name)
                records.append(
                    permit_lazy_feature(
                        opened: Int64(event.count), last_opened_at: event.lastAt ?? 0, last_prompt_at: 0,
                        absent: event.lastAt == nil ? 2 : 0, name_offset: offset, name_length: length))
            }
            for name in declaredEvents where events[name] == nil {
                let (offset, length) = state.text.append(text: name)
                records.append(
                    permit_lazy_feature(
                        opened: 0, last_opened_at: 0, last_prompt_at: 0, absent: 2, name_offset: offset, name_length: length))
            }
            localTextOffset = state.text.count
            _ = state.text.append(text: context.pointee.localTime.date)
            _ = state.text.append(text: context.pointee.localTime.timeZone)
        }

        func deallocate() {
            records.deallocate()
            state.deallocate()
        }
    }

    /// `state` as nodes in pre-order: lists as sequences, tables with sorted keys. A table node
    /// counts its direct children, each added under the index of the table being filled.
    struct StateNodes {
        /// How a node is named in its parent.
        enum Name {
            case root
            case text(String)
            case position(Int)
        }

        private(set) var nodes = ByteRun(capacity: 8 * MemoryLayout<permit_lazy_node>.stride)
        /// The snapshot's whole text: state's strings, then what `Parts` adds.
        var text = ByteRun(capacity: 256)
        private var maxDepth = 0

        var nodeCount: Int { nodes.count / MemoryLayout<permit_lazy_node>.stride }

        /// Encodes `state` as a table at `depth`.
        mutating func encode(_ state: [String: PolicyValue], depth: Int, maxDepth: Int) throws(LuaError) {
            nodes.removeAll()
            text.removeAll()
            self.maxDepth = maxDepth
            // Most events' `state` is empty: one table node, without `fields`' per-name route.
            if state.isEmpty {
                _ = try beginTable(.root, in: nil, hash: 0, depth: depth)
                return
            }
            try fields(state, named: .root, in: nil, depth: depth)
        }

        /// Appends a second root after `encode`'s: a table of strings (`user.arms`) at `depth`,
        /// keys sorted.
        mutating func append(_ strings: [String: String], depth: Int) throws(LuaError) {
            if strings.isEmpty {
                _ = try beginTable(.root, in: nil, hash: 0, depth: depth)
                return
            }
            let table = try beginTable(.root, in: nil, hash: strings.count, depth: depth)
            if strings.count == 1, let (key, value) = strings.first {
                string(value, named: .text(key), in: table)
            } else if !strings.isEmpty {
                for key in strings.keys.sorted() { string(strings[key]!, named: .text(key), in: table) }
            }
        }

        func deallocate() {
            nodes.deallocate()
            text.deallocate()
        }

        /// Refuses `state` (a table at `depth`) where `encode` would, without encoding it: a
        /// table at `maxDepth` or deeper.
        static func checkDepth(of fields: [String: PolicyValue], at depth: Int, maxDepth: Int) throws(LuaError) {
            guard depth < maxDepth else {
                throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
            }
            for value in fields.values { try checkDepth(of: value, at: depth + 1, maxDepth: maxDepth) }
        }

        private static func checkDepth(of value: PolicyValue, at depth: Int, maxDepth: Int) throws(LuaError) {
            switch value {
            case .list(let items):
                guard depth < maxDepth else {
                    throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
                }
                for item in items { try checkDepth(of: item, at: depth + 1, maxDepth: maxDepth) }
            case .table(let fields):
                try checkDepth(of: fields, at: depth, maxDepth: maxDepth)
            case .bool, .integer, .number, .string:
                break
            }
        }

        /// A record of core values, keys sorted.
        private mutating func fields(
            _ fields: [String: PolicyValue], named name: Name, in parent: Int?, depth: Int
        ) throws(LuaError) {
            let table = try beginTable(name, in: parent, hash: fields.count, depth: depth)
            if fields.count == 1, let (key, value) = fields.first {
                try self.value(value, named: .text(key), in: table, depth: depth + 1)
            } else if !fields.isEmpty {
                for key in fields.keys.sorted() {
                    try value(fields[key]!, named: .text(key), in: table, depth: depth + 1)
                }
            }
        }

        /// A core value: lists as sequences, tables with sorted keys.
        private mutating func value(_ value: PolicyValue, named name: Name, in parent: Int, depth: Int) throws(LuaError) {
            switch value {
            case .bool(let flag):
                add(name, in: parent, type: PERMIT_LAZY_BOOLEAN, integer: flag ? 1 : 0)
            case .integer(let number):
                add(name, in: parent, type: PERMIT_LAZY_INTEGER, integer: number)
            case .number(let number):
                add(name, in: parent, type: PERMIT_LAZY_NUMBER, number: number)
            case .string(let string):
                self.string(string, named: name, in: parent)
            case .list(let items):
                let list = try beginTable(name, in: parent, array: items.count, hash: 0, depth: depth)
                var position = 1
                for item in items {
                    try self.value(item, named: .position(position), in: list, depth: depth + 1)
                    position += 1
                }
            case .table(let fields):
                try self.fields(fields, named: name, in: parent, depth: depth)
            }
        }

        private mutating func string(_ string: String, named name: Name, in parent: Int) {
            let (offset, length) = text.append(text: string)
            add(name, in: parent, type: PERMIT_LAZY_STRING, textOffset: offset, textLength: length)
        }

        // MARK: Nodes

        /// Adds a table node named `name` and returns its index, for its children to name as
        /// their parent. Fails like `LuaVM.push` for a table at `depth`.
        private mutating func beginTable(
            _ name: Name, in parent: Int?, array: Int = 0, hash: Int, depth: Int
        ) throws(LuaError) -> Int {
            guard depth < maxDepth else {
                throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
            }
            add(name, in: parent, type: PERMIT_LAZY_TABLE, integer: Int64(array), hash: Int32(clamping: hash))
            return nodeCount - 1
        }

        private mutating func add(
            _ name: Name, in parent: Int?, type: Int, integer: Int64 = 0, number: Double = 0, hash: Int32 = 0,
            textOffset: UInt32 = 0, textLength: UInt32 = 0
        ) {
            var node = permit_lazy_node(
                integer: integer, number: number, key: 0, type: Int32(type), hash: hash, children: 0, key_offset: 0,
                key_length: 0, text_offset: textOffset, text_length: textLength)
            switch name {
            case .root: break
            case .position(let position): node.key = -Int32(clamping: position)
            case .text(let string): (node.key_offset, node.key_length) = text.append(text: string)
            }
            if let parent {
                let at = parent * MemoryLayout<permit_lazy_node>.stride + StateNodes.childrenOffset
                let children = nodes.base.load(fromByteOffset: at, as: Int32.self)
                nodes.base.storeBytes(of: children + 1, toByteOffset: at, as: Int32.self)
            }
            nodes.append(node)
        }

        /// Where a node's `children` count is in its bytes.
        private static let childrenOffset = MemoryLayout<permit_lazy_node>.offset(of: \.children)!
    }
}
