import CLuaShim

// Where Lua comes from is a package trait (Package.swift). The documentation build defines
// every trait's condition whatever is enabled, so only "none at all" is refused here; the Makefile
// passes `--traits SystemLua` to it so that Lua is not compiled from source there.
#if !SystemLua && !LuaFromSource
#error("Permit needs a Lua: enable the trait SystemLua (the system's) or LuaFromSource (compiled from source)")
#endif

/// The Lua version this build is linked against (504 for Lua 5.4).
public let luaVersionNumber = Int(permit_lua_version_num())

/// `LUA_VERSION_RELEASE_NUM` of the Lua header Permit was compiled against (50404 for 5.4.4).
public let luaHeaderRelease = Int(permit_lua_header_release())

/// The linked Lua library's release as a behaviour probe sees it at run time (the shared
/// library can differ from the header): 50404 when Lua 5.4.4's known bugs show (5.4.4 or
/// older), 50406 when they do not (5.4.6 or newer), 0 when the probe could not run.
public let luaRuntimeRelease = Int(permit_lua_runtime_release())

/// Whether the sandbox runs its guards for Lua 5.4.4's bugs (utf8.codes, `_ENV <const>`):
/// only when the probe finds them. The coroutine nesting limit and the guarded xpcall apply
/// on every release.
public var luaBugGuardsActive: Bool { luaRuntimeRelease == 0 || luaRuntimeRelease < 50406 }
