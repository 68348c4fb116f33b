import CLua
import CLuaShim
import PermitCore

/// Writes the ctx fields a policy rarely reads (`history`, `settings`, `state`, `user`,
/// `local_time`; history's `events` among them) as the
/// snapshot `LazyContext.c` builds them from on first use, instead of building a dozen tables
/// for every event.
///
/// The snapshot is mostly a fixed C struct (`permit_lazy_header`: the ledger's counts and
/// times, the settings, the bucket) and one record per feature, written straight into the
/// VM's memory; only `state`, whose values can nest, is a list of nodes. What it describes is
/// exactly what the general path (`LuaBridge`) builds; the depth limit is checked here, before
/// the call, as the general path checks it while pushing. One encoder belongs to one VM and is
/// used under its lock; its node buffers are reused from call to call.
final class LazyFieldsEncoder {
    /// The ctx fields built on first use.
    static let fieldCount = 5

    /// The state buffers between calls. A call moves them into a local `StateNodes` and works
    /// there: a class's stored property would pay a dynamic exclusivity check on every append
    /// (used under the VM's lock, so the one access here is unchecked), and the moved-out
    /// buffers are uniquely referenced, so appending never copies them.
    @exclusivity(unchecked) private var spare = StateNodes()

    /// The app events the policy declares: `history.events` lists them at count 0 until they
    /// happen, so `ctx.history.events.lesson_completed.count` reads 0, not an error.
    let declaredEvents: [String]

    init(declaredEvents: [String] = []) { self.declaredEvents = declaredEvents }

    /// Encodes the lazy fields of `context` and attaches them to the ctx table at `ctx`.
    func attach(_ context: PolicyContext, to ctx: Int32, keysSlot: Int32, maxDepth: Int, on L: OpaquePointer)
        throws(LuaError)
    {
        // The tables' depths in ctx, as the general path checks them: history, settings, state
        // and user at 1, history's parts at 2, one table per feature at 3; `state` is checked
        // where it is deeper, inside history.
        guard maxDepth > (context.history.features.isEmpty ? 2 : 3) else {
            throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
        }
        var state = spare
        spare = StateNodes()  // `state` now holds the only reference to the buffers: no copy on write
        defer { spare = state }
        try state.encode(context.history.state, depth: 2, maxDepth: maxDepth)
        let armsNode = state.nodes.count
        try state.append(context.history.arms, depth: 2)

        let events = context.history.events(including: declaredEvents)
        var textBytes = state.text.count
        for name in context.history.features.keys { textBytes += name.utf8.count }
        let eventsTextOffset = textBytes
        for name in events.keys { textBytes += name.utf8.count }
        let localTextOffset = textBytes
        let local = context.localTime
        textBytes += local.date.utf8.count + local.timeZone.utf8.count
        let headerBytes = MemoryLayout<permit_lazy_header>.stride
        let featureBytes = (context.history.features.count + events.count) * MemoryLayout<permit_lazy_feature>.stride
        let nodeBytes = state.nodes.count * MemoryLayout<permit_lazy_node>.stride
        guard let memory = permit_lazy_attach(L, ctx, headerBytes + featureBytes + nodeBytes + textBytes) else {
            throw LuaError(kind: .memoryExhausted, message: "not enough memory (or Lua stack) to attach ctx's fields")
        }

        // The fixed part: the keys' slot, the ledger's counts and times, the settings, the
        // bucket, and the sizes of what follows it. The writers read `context` in place.
        var header = permit_lazy_header()
        header.keys_ref = keysSlot
        header.last_status = FastPath.Key.of(context.history.lastStatus).rawValue
        header.legacy_registered = context.history.legacyRegistered ? 1 : 0
        header.bucket = Int64(context.userBucket)
        LazyFieldsEncoder.writeLocalTimeNumbers(local, textOffset: localTextOffset, into: &header)
        header.feature_count = UInt32(context.history.features.count)
        header.event_count = UInt32(events.count)
        header.state_nodes = UInt32(state.nodes.count)
        header.arms_node = UInt32(armsNode)
        header.text_bytes = UInt32(textBytes)
        LazyFieldsEncoder.writeHistory(of: context, into: &header)
        LazyFieldsEncoder.writeSettings(of: context, into: &header)
        memory.storeBytes(of: header, as: permit_lazy_header.self)
        LazyFieldsEncoder.writeFeatures(
            of: context, after: state.text,
            into: memory.advanced(by: headerBytes), textAt: memory.advanced(by: headerBytes + featureBytes + nodeBytes))
        LazyFieldsEncoder.writeEvents(
            events, textOffset: eventsTextOffset,
            into: memory.advanced(by: headerBytes + context.history.features.count * MemoryLayout<permit_lazy_feature>.stride),
            textAt: memory.advanced(by: headerBytes + featureBytes + nodeBytes))
        LazyFieldsEncoder.writeLocalTime(local, into: memory.advanced(by: headerBytes + featureBytes + nodeBytes + localTextOffset))
        state.nodes.withUnsafeBytes { bytes in
            memory.advanced(by: headerBytes + featureBytes).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
    }

    /// `history.events` as records like the features' (`opened` holds the count,
    /// `last_opened_at` the last time), their names at `textOffset` of the text area.
    @inline(__always)
    private static func writeEvents(
        _ events: [String: Ledger.EventHistory], textOffset: Int, into records: UnsafeMutableRawPointer,
        textAt textArea: UnsafeMutableRawPointer
    ) {
        let records = records.bindMemory(to: permit_lazy_feature.self, capacity: events.count)
        let text = textArea.assumingMemoryBound(to: UInt8.self)
        var offset = textOffset
        for (index, (name, event)) in events.enumerated() {
            var name = name
            let length = name.withUTF8 { bytes in
                if let base = bytes.baseAddress { (text + offset).update(from: base, count: bytes.count) }
                return bytes.count
            }
            records[index] = permit_lazy_feature(
                opened: Int64(event.count), last_opened_at: event.lastAt ?? 0, last_prompt_at: 0,
                absent: event.lastAt == nil ? 2 : 0, name_offset: UInt32(offset), name_length: UInt32(length))
            offset += length
        }
    }

    /// The ledger's numbers, by the C side's field index; a missing one sets its `absent` bit.
    @inline(__always)
    private static func writeHistory(of context: PolicyContext, into header: inout permit_lazy_header) {
        header.absent = withUnsafeMutableBytes(of: &header.history) { raw in
            let history = raw.bindMemory(to: Int64.self)
            var absent: UInt32 = 0
            func set(_ field: Int, _ value: Int) { history[field] = Int64(value) }
            func set(_ field: Int, _ value: Int64?) {
                if let value { history[field] = value } else { absent |= 1 << UInt32(field) }
            }
            set(Int(PERMIT_H_DENIED_AT), context.history.deniedAt)
            set(Int(PERMIT_H_FIRST_LAUNCH_AT), context.history.firstLaunchAt)
            set(Int(PERMIT_H_FOREGROUNDS), context.history.foregrounds)
            set(Int(PERMIT_H_LAUNCHES), context.history.launches)
            set(Int(PERMIT_H_PROMPTS_TODAY), context.history.promptsToday)
            set(Int(PERMIT_H_STATUS_CHANGED_AT), context.history.statusChangedAt)
            let settings = context.history.settingsPrompt
            set(Int(PERMIT_H_SETTINGS_CANCELLED), settings.cancelled)
            set(Int(PERMIT_H_SETTINGS_LAST_SHOWN_AT), settings.lastShownAt)
            set(Int(PERMIT_H_SETTINGS_OPENED), settings.opened)
            set(Int(PERMIT_H_SETTINGS_SHOWN), settings.shown)
            let soft = context.history.softPrompt
            set(Int(PERMIT_H_SOFT_ACCEPTED), soft.accepted)
            set(Int(PERMIT_H_SOFT_DECLINED), soft.declined)
            set(Int(PERMIT_H_SOFT_DISMISSED), soft.dismissed)
            set(Int(PERMIT_H_SOFT_LAST_ANSWERED_AT), soft.lastAnsweredAt)
            set(Int(PERMIT_H_SOFT_LAST_SHOWN_AT), soft.lastShownAt)
            set(Int(PERMIT_H_SOFT_SHOWN), soft.shown)
            let system = context.history.systemPrompt
            set(Int(PERMIT_H_SYSTEM_ANSWERED_AT), system.answeredAt)
            set(Int(PERMIT_H_SYSTEM_GRANTED), system.granted.map { $0 ? 1 : 0 })
            set(Int(PERMIT_H_SYSTEM_REQUESTED), system.requested)
            set(Int(PERMIT_H_SYSTEM_SHOWN), system.shown)
            return absent
        }
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

    /// `local_time`'s date and zone id, one after the other at `text` (its numbers are in the
    /// header).
    @inline(__always)
    private static func writeLocalTime(_ local: LocalTime, into text: UnsafeMutableRawPointer) {
        var date = local.date
        let dateLength = date.withUTF8 { bytes in
            if let base = bytes.baseAddress { text.copyMemory(from: base, byteCount: bytes.count) }
            return bytes.count
        }
        var zone = local.timeZone
        zone.withUTF8 { bytes in
            if let base = bytes.baseAddress { (text + dateLength).copyMemory(from: base, byteCount: bytes.count) }
        }
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
            set(Int(PERMIT_S_LOCK_SCREEN), values.lockScreen)
            set(Int(PERMIT_S_NOTIFICATION_CENTER), values.notificationCenter)
            set(Int(PERMIT_S_SCHEDULED_DELIVERY), values.scheduledDelivery)
            set(Int(PERMIT_S_SOUND), values.sound)
            set(Int(PERMIT_S_TIME_SENSITIVE), values.timeSensitive)
        }
    }

    /// One record per feature in the dictionary's order (the C side sorts them when it builds),
    /// with the names written into the text area after state's own text.
    @inline(__always)
    private static func writeFeatures(
        of context: PolicyContext, after stateText: [UInt8], into records: UnsafeMutableRawPointer,
        textAt textArea: UnsafeMutableRawPointer
    ) {
        let records = records.bindMemory(to: permit_lazy_feature.self, capacity: context.history.features.count)
        let text = textArea.assumingMemoryBound(to: UInt8.self)
        stateText.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { text.update(from: base, count: bytes.count) }
        }
        var offset = stateText.count
        for (index, (name, feature)) in context.history.features.enumerated() {
            var name = name
            let length = name.withUTF8 { bytes in
                if let base = bytes.baseAddress { (text + offset).update(from: base, count: bytes.count) }
                return bytes.count
            }
            records[index] = permit_lazy_feature(
                opened: Int64(feature.opened), last_opened_at: feature.lastOpenedAt ?? 0,
                last_prompt_at: feature.lastPromptAt ?? 0,
                absent: (feature.lastOpenedAt == nil ? 2 : 0) | (feature.lastPromptAt == nil ? 4 : 0),
                name_offset: UInt32(offset), name_length: UInt32(length))
            offset += length
        }
    }
}

extension LazyFieldsEncoder {
    /// `state` as nodes in pre-order: lists as sequences, tables with sorted keys.
    struct StateNodes {
        /// How a node is named in its parent.
        enum Name {
            case root
            case text(String)
            case position(Int)
        }

        private(set) var nodes: [permit_lazy_node] = []
        private(set) var text: [UInt8] = []
        /// Tables being filled, innermost last.
        private var open: [Int] = []
        private var maxDepth = 0

        /// Encodes `state` as a table at `depth`.
        mutating func encode(_ state: [String: PolicyValue], depth: Int, maxDepth: Int) throws(LuaError) {
            nodes.removeAll(keepingCapacity: true)
            text.removeAll(keepingCapacity: true)
            open.removeAll(keepingCapacity: true)
            self.maxDepth = maxDepth
            try fields(state, named: .root, depth: depth)
        }

        /// Appends a second root after `encode`'s: a table of strings (`user.arms`) at `depth`.
        mutating func append(_ strings: [String: String], depth: Int) throws(LuaError) {
            try fields(strings.mapValues(PolicyValue.string), named: .root, depth: depth)
        }

        /// A record of core values, keys sorted.
        private mutating func fields(_ fields: [String: PolicyValue], named name: Name, depth: Int) throws(LuaError) {
            try beginTable(name, hash: fields.count, depth: depth)
            if fields.count == 1, let (key, value) = fields.first {
                try self.value(value, named: .text(key), depth: depth + 1)
            } else if !fields.isEmpty {
                for key in fields.keys.sorted() {
                    try value(fields[key]!, named: .text(key), depth: depth + 1)
                }
            }
            endTable()
        }

        /// A core value: lists as sequences, tables with sorted keys.
        private mutating func value(_ value: PolicyValue, named name: Name, depth: Int) throws(LuaError) {
            switch value {
            case .bool(let flag):
                add(name, type: PERMIT_LAZY_BOOLEAN, integer: flag ? 1 : 0)
            case .integer(let number):
                add(name, type: PERMIT_LAZY_INTEGER, integer: number)
            case .number(let number):
                add(name, type: PERMIT_LAZY_NUMBER, number: number)
            case .string(let string):
                let (offset, length) = store(string)
                add(name, type: PERMIT_LAZY_STRING, textOffset: offset, textLength: length)
            case .list(let items):
                try beginTable(name, array: items.count, hash: 0, depth: depth)
                for (index, item) in items.enumerated() {
                    try self.value(item, named: .position(index + 1), depth: depth + 1)
                }
                endTable()
            case .table(let fields):
                try self.fields(fields, named: name, depth: depth)
            }
        }

        // MARK: Nodes

        /// Opens a table node named `name`: the nodes added until `endTable` are its children.
        /// Fails like `LuaVM.push` for a table at `depth`.
        private mutating func beginTable(_ name: Name, array: Int = 0, hash: Int, depth: Int) throws(LuaError) {
            guard depth < maxDepth else {
                throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(maxDepth) levels")
            }
            add(name, type: PERMIT_LAZY_TABLE, integer: Int64(array), hash: Int32(clamping: hash))
            open.append(nodes.count - 1)
        }

        private mutating func endTable() { open.removeLast() }

        private mutating func add(
            _ name: Name, type: Int, integer: Int64 = 0, number: Double = 0, hash: Int32 = 0, textOffset: UInt32 = 0,
            textLength: UInt32 = 0
        ) {
            var node = permit_lazy_node(
                integer: integer, number: number, key: 0, type: Int32(type), hash: hash, children: 0, key_offset: 0,
                key_length: 0, text_offset: textOffset, text_length: textLength)
            switch name {
            case .root: break
            case .position(let position): node.key = -Int32(clamping: position)
            case .text(let string): (node.key_offset, node.key_length) = store(string)
            }
            if let parent = open.last { nodes[parent].children += 1 }
            nodes.append(node)
        }

        private mutating func store(_ string: String) -> (offset: UInt32, length: UInt32) {
            let offset = UInt32(text.count)
            var string = string
            string.withUTF8 { text.append(contentsOf: $0) }
            return (offset, UInt32(text.count) - offset)
        }
    }
}
