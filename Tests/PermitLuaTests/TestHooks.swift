import CLuaShim.TestHooks

@testable import PermitLua

/// The C shim's test hooks (permit_test_hooks.h, the explicit submodule `CLuaShim.TestHooks`)
/// as `LuaVM` methods. They live with the tests: nothing under Sources/ imports the hooks, so
/// the product's code has no way into them.
extension LuaVM {
    /// The sandbox's base table (every global a policy can read, the library tables among
    /// them), to enumerate what the sandbox exposes.
    func sandboxBase() throws(LuaError) -> LuaRef {
        guard lua_checkstack(L, 2) != 0 else { throw LuaError(kind: .invalidUse, message: "Lua stack exhausted") }
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        permit_push_sandbox_base(L)
        return try makeRef(L, at: -1, typeName: "table")
    }

    /// Refuses the `n`th allocation that grows memory while policy code runs (and Lua's retry
    /// of it), as if the memory cap were reached there; 0 disarms. Lets a test put an
    /// out-of-memory error at every step of an operation in turn.
    func failAllocation(_ n: Int) { permit_fail_allocation(L, UInt64(n)) }

    /// The armed failure has not happened yet.
    var allocationFailurePending: Bool { permit_fail_allocation_pending(L) != 0 }
}
