/* The sandbox's base functions that differ from Lua's: next, pairs, rawget, rawset, rawlen and
   load. Each is Lua's own function (upvalue 1) behind a check or a preparation; none
   re-implements what Lua already does. (xpcall is in Lua544Guards.c; tostring in ChargedLib.c;
   getmetatable and setmetatable in Metatables.c.)

   next, pairs, rawget and rawset (and Metatables.c's getmetatable and setmetatable) see past
   metamethods: on a ctx whose fields are still to be built (LazyContext.c), they build them
   first. next, rawget and rawlen read a read-only proxy (a library table, ctx.params) as the
   table it guards, as they would read that table in Lua. */
#include "shim_internal.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <string.h>

/* next, rawget, rawset and rawlen run Lua's own (upvalue 1) in their own frame
   (permit_run_original): its errors read as Lua's own. */

int permit_shim_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    permit_lazy_settle_in_call(L, 1);
    (void)permit_shim_unwrap_frozen(L, 1);
    return permit_run_original(L);
}

/* Lua's pairs hands out Lua's raw next for a table without __pairs. A script could keep that
   function and call it on a ctx not yet built, which would show the snapshot's key; so the
   iterator is swapped for the sandbox's next (upvalue 2), which builds first. Upvalue 3: Lua's
   next, to recognise it. */
static int swap_raw_next(lua_State *L, int status, lua_KContext k) {
    (void)status;
    (void)k;
    if (lua_gettop(L) >= 1 && lua_rawequal(L, 1, lua_upvalueindex(3))) {
        lua_pushvalue(L, lua_upvalueindex(2));
        lua_replace(L, 1);
    }
    return lua_gettop(L);
}

int permit_shim_pairs(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, swap_raw_next);
    return swap_raw_next(L, LUA_OK, 0);
}

int permit_shim_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    permit_lazy_settle_in_call(L, 1);
    (void)permit_shim_unwrap_frozen(L, 1);
    return permit_run_original(L);
}

/* rawset checks a store into a table in use as a metatable as the guard does (Metatables.c):
   no __gc, __mode or a __call that is not a function; a metamethod reaches its stand-in. */
int permit_shim_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    permit_lazy_settle_in_call(L, 1);
    if (permit_shim_is_frozen(L, 1)) return luaL_error(L, "attempt to modify a read-only table");
    if (lua_gettop(L) >= 3) permit_metatable_store(L, 1, 2, 3);
    return permit_run_original(L);
}

int permit_shim_rawlen(lua_State *L) {
    if (lua_type(L, 1) == LUA_TTABLE) (void)permit_shim_unwrap_frozen(L, 1);
    return permit_run_original(L);
}

void permit_shim_push_new_env(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 2);
    lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_BASE);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/* The chunk name a script gives `load`, without any leading '@' or '=': Lua shows a name
   starting with '@' as a file and one starting with '=' verbatim, so a stripped name always
   shows as [string "..."] and a loaded chunk cannot pose as the policy file (in error
   positions or in coverage, which counts '@' sources only). Every leading mark goes:
   "@@polite/policy.lua" with one stripped would still start with '@'. */
static const char *shown_chunk_name(const char *name) {
    while (*name == '@' || *name == '=') name++;
    return name;
}

/* Pushes `[string "name"]` as Lua shows a chunk name in a position: its first line, cut to
   fit Lua's LUA_IDSIZE with "..." when it is longer or has more lines. */
static void push_chunk_id(lua_State *L, const char *name) {
    size_t room = LUA_IDSIZE - sizeof "[string \"...\"]"; /* what Lua keeps of the name */
    size_t len = strlen(name);
    const char *newline = strchr(name, '\n');
    if (len < room && newline == NULL) {
        lua_pushfstring(L, "[string \"%s\"]", name);
        return;
    }
    if (newline != NULL) len = (size_t)(newline - name);
    if (len > room) len = room;
    lua_pushliteral(L, "[string \"");
    lua_pushlstring(L, name, len);
    lua_pushliteral(L, "...\"]");
    lua_concat(L, 3);
}

/* load(text [, chunkname [, mode [, env]]]): Lua's load on text only, into a fresh sandbox
   environment unless the script passes a table; charged per byte compiled. Without a name the
   chunk is named by its text, as in Lua (`[string "x = 1"]`). A mode without 't' refuses the
   text with Lua's message; Lua's load itself is always given "t", so no mode the script
   passes lets a binary chunk through. */
int permit_shim_load(lua_State *L) {
    size_t len;
    if (!lua_isstring(L, 1)) return luaL_argerror(L, 1, "string expected (only text chunks can be loaded)");
    const char *text = lua_tolstring(L, 1, &len);
    const char *mode = luaL_optstring(L, 3, "bt");
    int named = !lua_isnoneornil(L, 2);
    const char *name = shown_chunk_name(named ? luaL_checkstring(L, 2) : text);
    int has_env = !lua_isnone(L, 4);
    if (has_env) luaL_checktype(L, 4, LUA_TTABLE);
    permit_vm *vm = getvm(L);
    /* A compile runs in one C call no hook interrupts, for some shapes in time growing with the
       square of the text's length: the text is capped, and charged for the worst compile of its
       length before it starts (Bounds.c). */
    if (vm->max_source > 0 && len > vm->max_source) {
        luaL_pushfail(L);
        lua_pushfstring(L, "load: the text is %I bytes; the sandbox compiles at most %I bytes of source (LuaLimits.maxSourceBytes)",
                        (LUAI_UACINT)len, (LUAI_UACINT)vm->max_source);
        return 2;
    }
    permit_shim_charge_input(L, permit_shim_compile_units(len), "load");
    if (len > 0 && text[0] == LUA_SIGNATURE[0]) {
        luaL_pushfail(L);
        lua_pushliteral(L, "binary chunks are not allowed in the sandbox");
        return 2;
    }
    if (strchr(mode, 't') == NULL) {
        luaL_pushfail(L);
        lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
        return 2;
    }
    char refusal[200];
    int refused_line = permit_source_refusal(text, len, refusal, sizeof refusal);
    if (refused_line > 0) {
        luaL_pushfail(L);
        push_chunk_id(L, name);
        lua_pushfstring(L, ":%d: %s", refused_line, refusal);
        lua_concat(L, 2);
        return 2;
    }
    int base = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    if (name == text)
        lua_pushvalue(L, 1); /* named by its text: the same string, not a copy */
    else
        lua_pushstring(L, name);
    lua_pushliteral(L, "t");
    if (has_env)
        lua_pushvalue(L, 4);
    else
        permit_shim_push_new_env(L);
    int refused_before = vm->mem_refused;
    vm->mem_refused = 0;
    lua_call(L, 4, LUA_MULTRET);
    /* Lua's load returns a memory error as (fail, message); the sandbox raises it, so it ends
       the call as the memory error it is. */
    if (lua_isnil(L, base + 1) && vm->mem_refused) return lua_error(L);
    vm->mem_refused |= refused_before;
    return lua_gettop(L) - base;
}
