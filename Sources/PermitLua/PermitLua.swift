import CLuaShim

/// The Lua version this build is linked against (504 for Lua 5.4).
public let luaVersionNumber = Int(permit_lua_version_num())
