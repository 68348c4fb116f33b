import CLuaShim

// On Apple platforms Permit always compiles its own Lua; on Linux a package trait chooses
// (Package.swift). Xcode may not pass traits to Swift, so only a Linux build without either is
// refused here. The documentation build defines every trait's condition whatever is enabled, so
// "both" is refused in C (permit_lua.c), where the defines follow the enabled traits.
#if !canImport(Darwin) && !SystemLua && !LuaFromSource
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
