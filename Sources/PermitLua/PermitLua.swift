import CLuaShim
/// The Lua version this build is linked against (placeholder until the runtime lands).
public let luaVersionNumber = Int(permit_lua_version_num())
