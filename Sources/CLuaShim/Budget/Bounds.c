/*
 * Input-size charges: library functions whose one C call walks a string argument byte by byte
 * (a pack format, a numeral, text to quote or to change case) are charged by that size before
 * they run, so a long input is refused up front (permit_charge_work predicts its time) instead
 * of running past the limit between two clock readings. Also the worst-case charge of a compile
 * (permit_shim_compile_units), which the sandbox's `load` (BaseLib.c) takes before it compiles: a
 * compile runs in one C call no hook interrupts and, for some shapes, in time growing with the
 * square of the text's length.
 *
 * The rates are units of about one VM instruction (2.5 ns), from the slowest input measured
 * per function on the reference machine (docs/security.md, "Bounds on every path"), rounded up.
 * Each wrapper charges, then runs the function it replaced (upvalue 1, one of Lua's own, which
 * has no upvalues) in its own frame, so an argument error names the function as Lua does.
 * string.format's %q and load are charged by their own wrappers (ChargedLib.c, BaseLib.c).
 */
#include "shim_internal.h"
#include "permit_test_hooks.h"
#include <lauxlib.h>
#include <string.h>

/* Below this many units a charge only comes off the budget; above, the clock is read too. */
#define CLOCKED_CHARGE 4096

void permit_shim_charge_input(lua_State *L, uint64_t units, const char *where) {
    if (units < CLOCKED_CHARGE)
        permit_shim_charge(L, getvm(L), units, where);
    else
        permit_charge_work(L, units, where);
}

/* The measured worst compile: a chain of `''or''or...` (4 bytes a term; each `or` walks the
   jump list built so far) took 24.5 ms of CPU for 16 KiB, 0.091 ns per byte squared; charged
   as 0.1 ns per byte squared (len^2 / 25 units), plus a unit per byte for linear shapes. */
uint64_t permit_shim_compile_units(size_t len) {
    uint64_t n = len < (1u << 30) ? (uint64_t)len : (1u << 30);
    return n + n * n / 25;
}

/* Bytes of the string at idx (0 for anything else: only strings are walked here). */
static uint64_t string_bytes(lua_State *L, int idx) {
    return lua_type(L, idx) == LUA_TSTRING ? (uint64_t)lua_rawlen(L, idx) : 0;
}

/* tonumber(s [, base]): the numeral is read byte by byte (base 36: 3 ns a byte). */
static int bounded_tonumber(lua_State *L) {
    permit_shim_charge_input(L, 1 + 2 * string_bytes(L, 1), "tonumber");
    return permit_run_original(L);
}

/* string.pack / packsize (format first): each format byte is an option read and acted on
   (padding, alignment), up to 8 ns a byte. */
static int bounded_pack(lua_State *L) {
    permit_shim_charge_input(L, 1 + 4 * string_bytes(L, 1), lua_tostring(L, lua_upvalueindex(2)));
    return permit_run_original(L);
}

/* string.unpack(fmt, data [, pos]): the format as for pack, and the data it scans ('z'). */
static int bounded_unpack(lua_State *L) {
    permit_shim_charge_input(L, 1 + 4 * string_bytes(L, 1) + string_bytes(L, 2) / 4, "string.unpack");
    return permit_run_original(L);
}

/* string.upper / lower / reverse: a byte at a time (1.5 ns a byte). */
static int bounded_per_byte(lua_State *L) {
    permit_shim_charge_input(L, 1 + string_bytes(L, 1), lua_tostring(L, lua_upvalueindex(2)));
    return permit_run_original(L);
}

static void wrap(lua_State *L, int lib, const char *name, lua_CFunction f, const char *label) {
    lua_getfield(L, lib, name);
    if (label == NULL) {
        lua_pushcclosure(L, f, 1);
    } else {
        lua_pushstring(L, label);
        lua_pushcclosure(L, f, 2);
    }
    lua_setfield(L, lib, name);
}

void permit_shim_install_bounds(lua_State *L, int base, int string) {
    wrap(L, base, "tonumber", bounded_tonumber, NULL);
    wrap(L, string, "pack", bounded_pack, "string.pack");
    wrap(L, string, "packsize", bounded_pack, "string.packsize");
    wrap(L, string, "unpack", bounded_unpack, NULL);
    wrap(L, string, "upper", bounded_per_byte, "string.upper");
    wrap(L, string, "lower", bounded_per_byte, "string.lower");
    wrap(L, string, "reverse", bounded_per_byte, "string.reverse");
}

void permit_push_sandbox_base(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_BASE); }
