/// A typed error from the Lua runtime.
public struct LuaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong: a policy error's kind is chosen from it, and tests assert on it.
    public enum Kind: String, Sendable, Equatable {
        /// The source does not compile.
        case syntax
        /// The script raised an error (including Lua/C stack overflow).
        case runtime
        /// The per-call instruction budget ran out (also counts C work such as searching and moving elements).
        case instructionBudgetExceeded
        /// The per-call wall-clock safety net (`LuaLimits.timeLimitMilliseconds`) ran out.
        case timeLimitExceeded
        /// The VM's memory cap was reached.
        case memoryExhausted
        /// A precompiled (binary) chunk was given to `load`.
        case binaryChunkRefused
        /// `string.rep` would build a string beyond `maxStringBytes`.
        case stringTooLarge
        /// The error handler itself failed (e.g. an error raised while handling a C stack overflow).
        case errorInErrorHandling
        /// coroutine.resume / wrap / close nested deeper than the sandbox allows (Lua 5.4.4 could
        /// crash the process on a deep chain of coroutine.close); the script cannot catch it.
        case nestingTooDeep
        /// A value could not be converted (cycle, too deep, too many values, unsupported key).
        case unsupportedValue
        /// The host misused the API (foreign or released ref, re-entrant call, ...).
        case invalidUse
    }

    /// What went wrong.
    public var kind: Kind
    /// The Lua message, with its position prefix (`policy.lua:12: ...`) when Lua gave one.
    public var message: String
    /// The chunk the error is attributed to (`policy.lua`), when known.
    public var chunkName: String?
    /// The line in `chunkName`, when known.
    public var line: Int?
    /// `luaL_traceback` output, when a handler could produce one.
    public var traceback: String?
    /// Where in a value being copied out of the VM the problem is (`.remember.a.b`, `[2].body`),
    /// for an `unsupportedValue` error deep inside a returned table.
    public var valuePath: String?

    /// An error of `kind`; give the chunk and line whenever they are known.
    public init(kind: Kind, message: String, chunkName: String? = nil, line: Int? = nil, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.chunkName = chunkName
        self.line = line
        self.traceback = traceback
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}

extension LuaError {
    /// Splits a Lua message `name:12: text` into chunk name and line.
    static func position(in message: String) -> (chunk: String, line: Int)? {
        let bytes = Array(message.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: ":") {
                var j = i + 1
                var line = 0
                while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57, line < 100_000_000 {
                    line = line * 10 + Int(bytes[j] - 48)
                    j += 1
                }
                if j > i + 1, j < bytes.count, bytes[j] == UInt8(ascii: ":"), i > 0 {
                    let chunk = String(decoding: bytes[0..<i], as: UTF8.self)
                    return (chunk, line)
                }
            }
            if bytes[i] == UInt8(ascii: "\n") { break }
            i += 1
        }
        return nil
    }
}

extension LuaError {
    /// The same error at `place` when it has no line of its own (an error about a value copied
    /// out after the call, placed at the function that returned it).
    func placed(at place: (chunk: String, line: Int)?) -> LuaError {
        guard line == nil, let place else { return self }
        var error = self
        error.chunkName = place.chunk
        error.line = place.line
        return error
    }

    /// The same error, located one level further out: inside the value stored under `key`.
    func within(_ key: LuaValue) -> LuaError {
        var error = self
        error.valuePath = LuaError.pathComponent(for: key) + (valuePath ?? "")
        return error
    }

    /// `.name` for a key that reads as a field name, `["odd key"]`, `[3]` otherwise.
    static func pathComponent(for key: LuaValue) -> String {
        switch key {
        case .string(let name):
            let isName =
                name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
                && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            if isName { return ".\(name)" }
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            return "[\"\(shown)\"]"
        case .integer(let number): return "[\(number)]"
        case .number(let number): return "[\(number)]"
        case .boolean(let flag): return "[\(flag)]"
        default: return "[\(key.typeName)]"
        }
    }
}
