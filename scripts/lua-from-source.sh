#!/usr/bin/env bash
# Permit with Lua 5.4 compiled from source, as the `LuaFromSource` trait builds it for iOS and
# macOS (Package.swift), checked here on Linux: `make test-lua-source`.
#
#   scripts/lua-from-source.sh sources        Lua's sources in Sources/CPermitLua/lua: the submodule
#                                             when it can be checked out, otherwise Debian's lua5.4
#                                             source package (apt-get source, deb-src enabled when
#                                             missing), laid in as a stand-in and never committed
#   scripts/lua-from-source.sh swift ARGS...  swift on this build: its own folder (.build-luasrc)
#                                             and the trait, e.g. `make test SWIFT="... swift"`
#   scripts/lua-from-source.sh check-symbols  after a debug build: no global symbol of Permit's Lua
#                                             lacks the prefix, it calls no system/popen/dlopen,
#                                             `permit` loads no liblua, and one program links the
#                                             system's static Lua beside Permit's and runs both
#
# PERMIT_LUA_SOURCE=DIR takes Lua's sources from DIR (a folder holding lua.h, lapi.c, ...: any
# 5.4 release) when the submodule is not checked out.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LUA="$ROOT/Sources/CPermitLua/lua"
WORK="$ROOT/.build-lua"
SCRATCH="${PERMIT_LUA_SCRATCH:-$ROOT/.build-luasrc}"
STAND_IN_MARK=".permit-stand-in"

die() { echo "lua-from-source: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian's lua5.4 source package, unpacked under $WORK/debian; prints the folder of lua.h.
debian_source() {
  local dir="$WORK/debian" found
  found=$(ls -d "$dir"/lua5.4-*/src 2>/dev/null | head -n 1 || true)
  if [ -n "$found" ] && [ -f "$found/lua.h" ]; then echo "$found"; return; fi
  command -v apt-get >/dev/null || die "apt-get is missing: set PERMIT_LUA_SOURCE to a Lua 5.4 source folder"
  if ! apt-cache showsrc lua5.4 2>/dev/null | grep -q '^Package: lua5.4'; then
    echo "lua-from-source: enabling Debian's source packages (deb-src)" >&2
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        | as_root tee /etc/apt/sources.list.d/permit-deb-src.sources >/dev/null
    elif [ -f /etc/apt/sources.list ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
        | as_root tee /etc/apt/sources.list.d/permit-deb-src.list >/dev/null
    else
      die "no apt sources found to derive deb-src from"
    fi
    as_root apt-get update -qq
  fi
  command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq dpkg-dev >/dev/null
  mkdir -p "$dir"
  (cd "$dir" && apt-get source -qq lua5.4 >/dev/null 2>"$dir/apt-get-source.log") \
    || { cat "$dir/apt-get-source.log" >&2; die "apt-get source lua5.4 failed"; }
  found=$(ls -d "$dir"/lua5.4-*/src | head -n 1)
  [ -f "$found/lua.h" ] || die "no lua.h in Debian's lua5.4 source package"
  echo "$found"
}

lua_version() {
  local major minor release
  major=$(sed -n 's/^#define LUA_VERSION_MAJOR[^"]*"\([0-9]*\)".*/\1/p' "$1/lua.h")
  minor=$(sed -n 's/^#define LUA_VERSION_MINOR[^"]*"\([0-9]*\)".*/\1/p' "$1/lua.h")
  release=$(sed -n 's/^#define LUA_VERSION_RELEASE[^"_]*"\([0-9]*\)".*/\1/p' "$1/lua.h")
  echo "$major.$minor.$release"
}

sources() {
  if [ -f "$LUA/lapi.c" ]; then
    echo "lua-from-source: Lua $(lua_version "$LUA") in Sources/CPermitLua/lua$([ -f "$LUA/$STAND_IN_MARK" ] && echo " (stand-in: $(cat "$LUA/$STAND_IN_MARK"))")" >&2
    return
  fi
  if GIT_TERMINAL_PROMPT=0 timeout 300 git submodule update --init Sources/CPermitLua/lua >/dev/null 2>&1 && [ -f "$LUA/lapi.c" ]; then
    echo "lua-from-source: Lua $(lua_version "$LUA") from the submodule" >&2
    return
  fi
  local source="${PERMIT_LUA_SOURCE:-}"
  if [ -z "$source" ]; then
    echo "lua-from-source: the submodule cannot be checked out here; Debian's lua5.4 source package stands in" >&2
    source=$(debian_source)
  fi
  [ -f "$source/lua.h" ] && [ -f "$source/lapi.c" ] || die "$source holds no Lua sources (lua.h, lapi.c)"
  local version
  version=$(lua_version "$source")
  case "$version" in 5.4.*) ;; *) die "$source is Lua $version, not 5.4" ;; esac
  mkdir -p "$LUA"
  cp "$source"/*.c "$source"/*.h "$LUA/"
  echo "Lua $version from $source" >"$LUA/$STAND_IN_MARK"
  echo "lua-from-source: Lua $version from $source laid in Sources/CPermitLua/lua (not committed)" >&2
}

check_symbols() {
  local bin="$SCRATCH/debug" failed=0
  local objects=("$bin"/CPermitLua.build/*.o)
  [ -f "${objects[0]}" ] || die "no objects in $bin/CPermitLua.build: build first ($0 swift build)"
  # 1. Every global symbol of Permit's Lua carries the prefix, and there are some.
  local unprefixed count
  unprefixed=$(nm -g --defined-only --format=posix "${objects[@]}" | awk 'NF >= 2 && $1 !~ /:$/ { print $1 }' | grep -v '^permit_' || true)
  count=$(nm -g --defined-only --format=posix "${objects[@]}" | awk 'NF >= 2 && $1 ~ /^permit_lua/' | wc -l)
  if [ -n "$unprefixed" ] || [ "$count" -lt 100 ]; then
    echo "FAIL: Permit's Lua defines unprefixed global symbols (or too few prefixed: $count):" >&2; echo "$unprefixed" | head -20 >&2; failed=1
  else echo "ok: every global symbol of Permit's Lua is permit_… ($count symbols)"; fi
  # 2. Nothing reaches the operating system through Lua.
  local reached
  reached=$(nm -u --format=posix "${objects[@]}" | awk '{ print $1 }' | grep -E '^(system|popen|pclose|dlopen|dlsym|tmpnam|mkstemp|remove|rename|getenv|exit)$' | sort -u || true)
  if [ -n "$reached" ]; then echo "FAIL: Permit's Lua calls $(echo $reached)" >&2; failed=1
  else echo "ok: Permit's Lua calls none of system, popen, dlopen, tmpnam, mkstemp, remove, rename, getenv, exit"; fi
  # 3. The permit executable defines no global lua*_ symbol and loads no liblua.
  local exported
  exported=$(nm --defined-only --format=posix "$bin/permit" | awk '$2 ~ /^[A-Z]$/ && $1 ~ /^lua[A-Za-z]*_/ { print $1 }' || true)
  if [ -n "$exported" ]; then echo "FAIL: permit defines unprefixed Lua symbols:" >&2; echo "$exported" | head -20 >&2; failed=1
  else echo "ok: permit defines no global lua*_ symbol"; fi
  if ldd "$bin/permit" | grep -q liblua; then echo "FAIL: permit still loads $(ldd "$bin/permit" | grep liblua)" >&2; failed=1
  else echo "ok: permit loads no shared liblua"; fi
  # 4. A program linking every object of the system's static Lua (as an app links its own Lua)
  #    and Permit's Lua links without a duplicate symbol and runs both. As a control, the same
  #    Lua compiled without the prefix must clash: the check can see a clash.
  local host="$WORK/host" archive
  archive=$(ls /usr/lib/*/liblua5.4.a 2>/dev/null | head -n 1 || true)
  [ -n "$archive" ] || die "no static liblua5.4.a for the two-Lua program (apt-get install liblua5.4-dev)"
  rm -rf "$host" && mkdir -p "$host/system-lua"
  cat >"$host/system.c" <<'C'
#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
/* The app's own Lua, under Lua's names. */
long system_lua(void) {
    lua_State *L = luaL_newstate();
    luaL_dostring(L, "return 6 * 7");
    long answer = (long)lua_tointeger(L, -1);
    lua_close(L);
    return answer;
}
C
  cat >"$host/permit.c" <<'C'
#include <lua.h>
#include <lauxlib.h>
/* Permit's Lua, written with Lua's names too: its headers give the prefixed symbols. */
long permit_side(void) {
    lua_State *L = luaL_newstate();
    luaL_dostring(L, "return 6 * 9");
    long answer = (long)lua_tointeger(L, -1);
    lua_close(L);
    return answer;
}
C
  cat >"$host/main.c" <<'C'
#include <stdio.h>
long system_lua(void);
long permit_side(void);
int main(void) {
    long a = system_lua(), b = permit_side();
    printf("system Lua: %ld, Permit's Lua: %ld\n", a, b);
    return a == 42 && b == 54 ? 0 : 1;
}
C
  (cd "$host/system-lua" && ar x "$archive")
  cc -c "$host/system.c" -o "$host/system.o"
  cc -c -I"$ROOT/Sources/CPermitLua/include" "$host/permit.c" -o "$host/permit.o"
  if cc "$host/main.c" "$host/system.o" "$host/permit.o" "${objects[@]}" "$host/system-lua"/*.o -lm -o "$host/two-luas" 2>"$host/link.log" \
    && "$host/two-luas"; then
    echo "ok: one program links every object of the system's static Lua and Permit's Lua, and runs both"
  else
    echo "FAIL: a program with the system's static Lua and Permit's does not link or run:" >&2; head -20 "$host/link.log" >&2; failed=1
  fi
  local clashes
  cc -c -DPERMIT_LUA_FROM_SOURCE -DPERMIT_LUA_NAMES_H -I"$ROOT/Sources/CPermitLua/include" -I"$LUA" \
    "$ROOT/Sources/CPermitLua/permit_lua.c" -o "$host/unprefixed.o"
  clashes=$(cc "$host/main.c" "$host/system.o" "$host/unprefixed.o" "$host/system-lua"/*.o -lm -o "$host/clash" 2>&1 | grep -c "multiple definition" || true)
  if [ "$clashes" -gt 0 ]; then echo "ok: without the prefix the same link fails ($clashes duplicate symbols)"
  else echo "FAIL: the unprefixed control linked: this check cannot see a clash" >&2; failed=1; fi
  return $failed
}

case "${1:-}" in
  sources) sources ;;
  check-symbols) check_symbols ;;
  swift) shift; [ $# -ge 1 ] || die "usage: $0 swift SUBCOMMAND [ARGS...]"
    subcommand="$1"; shift
    exec "${SWIFT_BIN:-swift}" "$subcommand" --scratch-path "$SCRATCH" --traits LuaFromSource "$@" ;;
  *) echo "usage: $0 sources | swift SUBCOMMAND [ARGS...] | check-symbols" >&2; exit 2 ;;
esac
