import PermitBenchReference

/// Context trees flattened into the ops the minimal C reference runs (MinimalReference.h):
/// texts interned once in one buffer, tables a host would keep (platform, capabilities) made
/// once each before timing.
struct ReferenceProgram {
    private(set) var ops: [permit_reference_op] = []
    private(set) var cacheOps: [permit_reference_op] = []
    private(set) var strings: [CChar] = []
    private var offsets: [String: Int64] = [:]
    private var cacheIndex: [String: Int64] = [:]

    /// Appends one call: its ctx, then `decide` or `plan_reminders`.
    mutating func append(_ tree: ContextTree, planning: Bool) {
        var call: [permit_reference_op] = []
        emit(tree, key: -1, into: &call)
        call.append(op(planning ? Int32(PERMIT_OP_PLAN) : Int32(PERMIT_OP_DECIDE)))
        ops += call
    }

    private mutating func emit(_ tree: ContextTree, key: Int32, into out: inout [permit_reference_op]) {
        switch tree {
        case .table(let fields):
            out.append(op(Int32(PERMIT_OP_TABLE), key: key, value: Int64(fields.count)))
            for field in fields { emit(field.value, key: Int32(text(field.key)), into: &out) }
            out.append(op(Int32(PERMIT_OP_END), key: key))
        case .integer(let number): out.append(op(Int32(PERMIT_OP_INTEGER), key: key, value: number))
        case .number(let number):
            var made = op(Int32(PERMIT_OP_NUMBER), key: key)
            made.number = number
            out.append(made)
        case .string(let value): out.append(op(Int32(PERMIT_OP_STRING), key: key, value: text(value)))
        case .boolean(let flag): out.append(op(Int32(PERMIT_OP_BOOLEAN), key: key, value: flag ? 1 : 0))
        case .params: out.append(op(Int32(PERMIT_OP_PARAMS), key: key))
        case .cached(let inner): out.append(op(Int32(PERMIT_OP_CACHED), key: key, value: cached(inner)))
        }
    }

    /// The number of the kept table with this content, defining it on first use.
    private mutating func cached(_ tree: ContextTree) -> Int64 {
        let identity = String(describing: tree)
        if let index = cacheIndex[identity] { return index }
        var definition: [permit_reference_op] = []
        emit(tree, key: -1, into: &definition)
        definition.append(op(Int32(PERMIT_OP_CACHE_END)))
        cacheOps += definition
        let index = Int64(cacheIndex.count)
        cacheIndex[identity] = index
        return index
    }

    /// The offset of `value` in the text buffer.
    private mutating func text(_ value: String) -> Int64 {
        if let offset = offsets[value] { return offset }
        let offset = Int64(strings.count)
        strings += value.utf8CString
        offsets[value] = offset
        return offset
    }

    private func op(_ kind: Int32, key: Int32 = -1, value: Int64 = 0) -> permit_reference_op {
        permit_reference_op(kind: kind, key: key, value: value, number: 0)
    }

    /// How many kept tables the program defines (the C host keeps at most 64).
    var cachedTables: Int { cacheIndex.count }
}
