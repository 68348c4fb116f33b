/*
 * Guards against the bugs of Lua 5.4.4 that a policy script can reach (lua.org/bugs.html,
 * "5.4.4"). Debian 12 ships 5.4.4, so the sandbox must hold them itself. Each guard is our
 * own design, stated from the bug's symptom, not from Lua's fix:
 *
 *  - C-stack overflow with deep nesting of coroutine.close (5.4.4-9): a chain of __close
 *    handlers that each close another coroutine recursed in C without Lua counting it, until
 *    the process crashed. coroutine.resume, the functions coroutine.wrap returns (which close
 *    their coroutine on error) and coroutine.close go through one wrapper that counts their
 *    nesting per VM and refuses past PERMIT_COROUTINE_DEPTH with an error the script cannot
 *    swallow.
 *  - Lua-stack overflow when the C stack overflows while handling an error (5.4.4-4): the
 *    message handler of xpcall was called again for each error the handler raised. The
 *    sandbox's xpcall runs the script's handler once, protected, only while stack is left,
 *    and never for a handler's own error.
 *  - 'utf8.codes' does not raise an error on spurious continuation bytes (5.4.4-8): the
 *    sandbox's utf8.codes checks the whole subject first.
 *  - Lua can generate wrong code when _ENV is <const> (5.4.4-2, a heap over-read while
 *    compiling): the source scan refuses `_ENV <const>` before Lua compiles it.
 *
 * The others are out of a script's reach or only misreport; docs/security.md lists each.
 */
#include "shim_internal.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ coroutine nesting */

/* Calls upvalue 1 (coroutine.resume, close, or a function made by coroutine.wrap) with the
   arguments, one level deeper, telling the budget that `co` runs meanwhile (a step shrunk by
   an allocation there is co's) and that L runs again after (co may be collected then). The
   call is protected so the depth is given back whatever happens; returns the status, with the
   results or the error on the stack. */
static int counted_call(lua_State *L, lua_State *co) {
    permit_guard_state *guards = permit_guards(L);
    if (guards->coroutine_depth >= PERMIT_COROUTINE_DEPTH)
        return permit_fail_nesting(L, "coroutine.resume, coroutine.wrap and coroutine.close");
    int nargs = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    guards->coroutine_depth++;
    if (co != NULL) permit_running_thread(L, co);
    int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
    permit_running_thread(L, L);
    guards->coroutine_depth--;
    return status;
}

/* coroutine.resume(co, ...) and coroutine.close(co). The original runs in a frame called from
   C, so what it would refuse is refused here first, in this frame, with Lua's messages: an
   argument error names the function and the error carries the script's position. */
static int counted_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co != NULL, 1, "thread");
    if (counted_call(L, co) != LUA_OK) return lua_error(L); /* resume returns its errors: a guard's */
    return lua_gettop(L);
}

static int counted_close(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co != NULL, 1, "thread");
    lua_Debug ar;
    if (co == L) return luaL_error(L, "cannot close a running coroutine");
    if (lua_status(co) == LUA_OK && lua_getstack(co, 0, &ar)) return luaL_error(L, "cannot close a normal coroutine");
    if (counted_call(L, co) != LUA_OK) return lua_error(L);
    return lua_gettop(L);
}

/* Whether the error at idx is one the sandbox raised as a guard (HostCalls.c's classify tells
   the host by the very value) or Lua's memory error (the allocator refused). */
static int is_sandbox_error(lua_State *L, int idx) {
    permit_vm *vm = getvm(L);
    idx = lua_absindex(L, idx);
    if (vm->mem_refused && strcmp(lua_tostring(L, idx), "not enough memory") == 0) return 1;
    if (vm->guard_kind == 0) return 0;
    lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_GUARD);
    int same = lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    return same;
}

/* A function made by coroutine.wrap. As in Lua, an error that is a string (other than a memory
   error) gets the position where the function was called: Lua's adds the position of its
   caller, which here is this C function (none), so it is added here. The sandbox's own errors
   (budget, time, nesting, guards) pass unchanged, so the host still recognises them. */
static int counted_wrapped(lua_State *L) {
    lua_State *co = NULL; /* the coroutine: the first upvalue of Lua's function */
    if (lua_getupvalue(L, lua_upvalueindex(1), 1) != NULL) {
        co = lua_tothread(L, -1);
        lua_pop(L, 1);
    }
    if (counted_call(L, co) == LUA_OK) return lua_gettop(L);
    if (lua_type(L, -1) == LUA_TSTRING && !permit_budget_gone(L) && !is_sandbox_error(L, -1)) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* coroutine.wrap: Lua's own, in this frame (its argument error names it); the function it
   returns is counted too. */
static int counted_wrap(lua_State *L) {
    (void)permit_run_original(L);
    lua_pushcclosure(L, counted_wrapped, 1);
    return 1;
}

static void count_nesting_of(lua_State *L, int coroutine, const char *name, lua_CFunction wrapper) {
    lua_getfield(L, coroutine, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, coroutine, name);
}

/* -------------------------------------------------------------------- xpcall */

/* The message handler xpcall installs: runs the script's handler (upvalue 1) at most once per
   error, protected. Skipped (the error passes unchanged) once the budget is gone, when the
   stack has no room left (the error is a stack overflow), or when handlers already nest. */
static int guarded_message_handler(lua_State *L) {
    permit_guard_state *guards = permit_guards(L);
    if (permit_budget_gone(L) || guards->handler_depth >= PERMIT_HANDLER_DEPTH || !lua_checkstack(L, 2 * LUA_MINSTACK))
        return 1;
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    guards->handler_depth++;
    int status = lua_pcall(L, 1, 1, 0);
    guards->handler_depth--;
    if (status != LUA_OK) {
        lua_settop(L, 0);
        lua_pushliteral(L, "error in error handling (the xpcall message handler failed)");
    }
    return 1;
}

static int xpcall_results(lua_State *L, int status, lua_KContext below) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)below;
}

/* xpcall(f, handler, ...): stack [f, guarded handler, true, f, args...] for the call, so the
   results follow `true`. */
static int guarded_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_message_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, xpcall_results);
    return xpcall_results(L, status, 2);
}

/* ---------------------------------------------------------------- utf8.codes */

/* utf8.codes(s [, lax]): refuses a subject that is not valid UTF-8 as a whole (utf8.len says
   so, and is charged for it) before iterating with the real function (upvalue 1). Upvalue 2
   is the sandbox's utf8.len. */
static int checked_codes(lua_State *L) {
    luaL_checkstring(L, 1);
    int lax = lua_toboolean(L, 2);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 1);
    lua_pushinteger(L, -1);
    lua_pushboolean(L, lax);
    lua_call(L, 4, 2);
    if (lua_isnil(L, -2) || (lua_isboolean(L, -2) && !lua_toboolean(L, -2)))
        return luaL_error(L, "invalid UTF-8 code at byte %d", (int)lua_tointeger(L, -1));
    lua_pop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 3);
    return 3;
}

/* ---------------------------------------------------------------- source scan */

typedef struct scanner {
    const char *p, *end;
    int line;
} scanner;

static int at(const scanner *s, size_t ahead) { return s->p + ahead < s->end ? (unsigned char)s->p[ahead] : -1; }

/* The level of a long bracket `[==[` at the scanner (-1: not one). */
static int long_bracket_level(const scanner *s) {
    if (at(s, 0) != '[') return -1;
    size_t i = 1;
    while (at(s, i) == '=') i++;
    return at(s, i) == '[' ? (int)(i - 1) : -1;
}

static void skip_long_bracket(scanner *s, int level) {
    s->p += (size_t)level + 2;
    while (s->p < s->end) {
        if (*s->p == '\n') s->line++;
        if (*s->p == ']') {
            size_t i = 1;
            while (at(s, i) == '=') i++;
            if (at(s, i) == ']' && (int)(i - 1) == level) {
                s->p += i + 1;
                return;
            }
        }
        s->p++;
    }
}

static void skip_quoted(scanner *s) {
    char quote = *s->p++;
    while (s->p < s->end && *s->p != quote) {
        if (*s->p == '\n') s->line++;
        if (*s->p == '\\' && s->p + 1 < s->end) {
            s->p++;
            if (*s->p == '\n') s->line++;
        }
        s->p++;
    }
    if (s->p < s->end) s->p++;
}

/* Skips blanks and comments; stops at the next token. */
static void skip_space(scanner *s) {
    while (s->p < s->end) {
        int c = at(s, 0);
        if (c == '\n') {
            s->line++;
            s->p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            s->p++;
        } else if (c == '-' && at(s, 1) == '-') {
            s->p += 2;
            int level = long_bracket_level(s);
            if (level >= 0) {
                skip_long_bracket(s, level);
            } else {
                while (s->p < s->end && *s->p != '\n') s->p++;
            }
        } else {
            return;
        }
    }
}

static int is_name_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_name_char(int c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/* Reads a name at the scanner into (start, length); 0 when the next token is not a name. */
static int read_name(scanner *s, const char **start, size_t *length) {
    if (!is_name_start(at(s, 0))) return 0;
    *start = s->p;
    while (s->p < s->end && is_name_char((unsigned char)*s->p)) s->p++;
    *length = (size_t)(s->p - *start);
    return 1;
}

static int name_is(const char *start, size_t length, const char *word) {
    return length == strlen(word) && memcmp(start, word, length) == 0;
}

int permit_source_refusal(const char *src, size_t len, char *msg, size_t cap) {
    if (!permit_lua544_guards_needed()) return 0;
    scanner s = {src, src + len, 1};
    if (len > 0 && src[0] == '#') { /* a first line starting with '#' is skipped by Lua */
        while (s.p < s.end && *s.p != '\n') s.p++;
    }
    for (;;) {
        skip_space(&s);
        if (s.p >= s.end) return 0;
        int c = at(&s, 0);
        const char *name;
        size_t length;
        if (read_name(&s, &name, &length)) {
            if (!name_is(name, length, "_ENV")) continue;
            int line = s.line;
            skip_space(&s);
            if (at(&s, 0) != '<') continue;
            s.p++;
            skip_space(&s);
            if (read_name(&s, &name, &length) && name_is(name, length, "const")) {
                snprintf(msg, cap,
                         "'_ENV <const>' is refused in the sandbox (Lua 5.4.4 compiles it wrongly); "
                         "declare _ENV without <const>");
                return line;
            }
        } else if (c == '"' || c == '\'') {
            skip_quoted(&s);
        } else if (c == '[' && long_bracket_level(&s) >= 0) {
            skip_long_bracket(&s, long_bracket_level(&s));
        } else if (c >= '0' && c <= '9') { /* numbers may hold letters (0x1F, 1e5): skip whole */
            while (s.p < s.end && (is_name_char((unsigned char)*s.p) || *s.p == '.')) s.p++;
        } else {
            s.p++;
        }
    }
}

/* ------------------------------------------------------------------- release */

/* Which release is really linked: the header says what we compiled against, but the shared
   library loaded at run time may be another. The probe runs a script on a throwaway state and
   looks for the behaviour 5.4.4 has and 5.4.6 fixed (utf8.codes accepting a stray
   continuation byte). Returns 50404 when the bug shows (5.4.4 or older), 50406 when it does
   not (5.4.6 or newer: 5.4.5 was withdrawn), 0 when the probe cannot run. Computed once. */
static int probe_release(void) {
    lua_State *P = luaL_newstate();
    if (P == NULL) return 0;
    luaL_requiref(P, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    lua_settop(P, 0);
    int release = 0;
    if (luaL_loadstring(P, "for _ in utf8.codes('a\\x80') do end") == LUA_OK)
        release = lua_pcall(P, 0, 0, 0) == LUA_OK ? 50404 : 50406;
    lua_close(P);
    return release;
}

int permit_lua_runtime_release(void) {
    static int cached = -1; /* a benign race: every thread computes the same value */
    int release = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (release < 0) {
        release = probe_release();
        __atomic_store_n(&cached, release, __ATOMIC_RELEASE);
    }
    return release;
}

int permit_lua_header_release(void) { return LUA_VERSION_RELEASE_NUM; }

int permit_lua544_guards_needed(void) {
    int release = permit_lua_runtime_release();
    return release == 0 || release < 50406;
}

/* ------------------------------------------------------------------- install */

void permit_install_bug_guards(lua_State *L, int base, int utf8, int coroutine) {
    lua_pushcfunction(L, guarded_xpcall);
    lua_setfield(L, base, "xpcall");
    count_nesting_of(L, coroutine, "resume", counted_resume);
    count_nesting_of(L, coroutine, "close", counted_close);
    count_nesting_of(L, coroutine, "wrap", counted_wrap);
    if (!permit_lua544_guards_needed()) return;
    lua_getfield(L, utf8, "codes");
    lua_getfield(L, utf8, "len"); /* the sandbox's (charged) utf8.len */
    lua_pushcclosure(L, checked_codes, 2);
    lua_setfield(L, utf8, "codes");
}
