#!/usr/bin/env bash
# Permit with Lua 5.4 compiled from source, as the `LuaFromSource` trait builds it for iOS and
# macOS (Package.swift), checked here on Linux: `make test-lua-source`.
#
#   scripts/lua-from-source.sh sources        Lua's sources in Sources/CPermitLua/lua: the submodule
#                                             when it can be checked out, otherwise Debian's lua5.4
#                                             source package of the very release the submodule pins
#                                             (apt-get source, Debian's suites that carry it added as
#                                             deb-src when missing), laid in as a stand-in and never
#                                             committed
#   scripts/lua-from-source.sh swift ARGS...  swift on this build: its own folder (.build-luasrc,
#                                             or PERMIT_LUA_SCRATCH) and the trait, e.g.
#                                             `make redteam SWIFT="... swift"`
#   scripts/lua-from-source.sh check-symbols [debug|release]
#                                             after a build in that configuration (debug when not
#                                             given): no global symbol of Permit's Lua
#                                             or of the C shim lacks the prefix, Lua calls no
#                                             system/popen/dlopen and jumps with _setjmp/_longjmp,
#                                             `permit` loads no liblua, one program links the
#                                             system's static Lua beside Permit's and runs both,
#                                             and both traits at once stop the build
#
# The Lua the app ships is the Lua CI tests: the submodule's commit is LUA_COMMIT below, Lua's
# release LUA_RELEASE, and Debian's source package stands in only at that same release (or the
# script fails). PERMIT_LUA_SOURCE=DIR takes Lua's sources from DIR (a folder holding lua.h,
# lapi.c, ...) when the submodule is not checked out; it too must be LUA_RELEASE.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LUA="$ROOT/Sources/CPermitLua/lua"
WORK="$ROOT/.build-lua"
SCRATCH="${PERMIT_LUA_SCRATCH:-$ROOT/.build-luasrc}"
STAND_IN_MARK=".permit-stand-in"

# The pin: lua/lua's commit of the release tag v5.4.7, the release Debian 13 (trixie) carries as
# lua5.4 5.4.7-1. Debian's newer suite (forky) carries 5.4.9, which lua/lua has no commit of, so
# the submodule could not pin it. Change the three together, with the submodule.
LUA_RELEASE=5.4.7
LUA_COMMIT=1ab3208a1fceb12fca8f24ba57d6e13c5bff15e3
DEBIAN_SUITES="trixie forky"

die() { echo "lua-from-source: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The Debian version of lua5.4 at LUA_RELEASE among the source packages apt knows, if any.
debian_version() {
  apt-cache showsrc lua5.4 2>/dev/null | sed -n "s/^Version: \(${LUA_RELEASE//./\\.}-[^ ]*\)$/\1/p" | sort -V | tail -n 1
}

# Debian's lua5.4 source package at LUA_RELEASE, Lua's own files without Debian's patches,
# unpacked under $WORK/debian; prints the folder of lua.h.
debian_source() {
  local dir="$WORK/debian/$LUA_RELEASE" found version
  found=$(ls -d "$dir"/lua5.4-*/src 2>/dev/null | head -n 1 || true)
  if [ -n "$found" ] && [ -f "$found/lua.h" ]; then echo "$found"; return; fi
  command -v apt-get >/dev/null || die "apt-get is missing: set PERMIT_LUA_SOURCE to a Lua $LUA_RELEASE source folder"
  version=$(debian_version)
  if [ -z "$version" ]; then
    echo "lua-from-source: adding Debian's $DEBIAN_SUITES source packages (deb-src) for lua5.4 $LUA_RELEASE" >&2
    printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" "Suites: $DEBIAN_SUITES" "Components: main" \
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" \
      | as_root tee /etc/apt/sources.list.d/permit-lua-src.sources >/dev/null
    as_root apt-get update -qq
    version=$(debian_version)
    [ -n "$version" ] || die "no Debian source package of lua5.4 $LUA_RELEASE in $DEBIAN_SUITES (apt-cache showsrc lua5.4 lists $(apt-cache showsrc lua5.4 | sed -n 's/^Version: //p' | tr '\n' ' ')): update LUA_RELEASE, LUA_COMMIT and the submodule together"
  fi
  command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq dpkg-dev >/dev/null
  rm -rf "$dir" && mkdir -p "$dir"
  # Lua's release as lua.org ships it: Debian's patches touch its build and interpreter only, and
  # the pin is Lua's own commit.
  (cd "$dir" && apt-get source -qq --download-only "lua5.4=$version" >/dev/null 2>"$dir/apt-get-source.log" \
    && dpkg-source --skip-patches -x ./*.dsc >/dev/null 2>>"$dir/apt-get-source.log") \
    || { cat "$dir/apt-get-source.log" >&2; die "apt-get source lua5.4=$version failed"; }
  found=$(ls -d "$dir"/lua5.4-*/src | head -n 1)
  [ -f "$found/lua.h" ] || die "no lua.h in Debian's lua5.4 $version source package"
  echo "$found"
}

lua_version() {
  local major minor release
  major=$(sed -n 's/^#define LUA_VERSION_MAJOR[^"]*"\([0-9]*\)".*/\1/p' "$1/lua.h")
  minor=$(sed -n 's/^#define LUA_VERSION_MINOR[^"]*"\([0-9]*\)".*/\1/p' "$1/lua.h")
  release=$(sed -n 's/^#define LUA_VERSION_RELEASE[^"_]*"\([0-9]*\)".*/\1/p' "$1/lua.h")
  echo "$major.$minor.$release"
}

# The submodule's commit in this checkout (its index, which `git submodule update` checks out);
# empty outside a git checkout.
pinned_commit() {
  git ls-files -s Sources/CPermitLua/lua 2>/dev/null | awk '$1 == "160000" { print $2 }'
}

# Fails unless the Lua in $1 is LUA_RELEASE.
require_release() {
  local version
  version=$(lua_version "$1")
  [ "$version" = "$LUA_RELEASE" ] || die "$2 is Lua $version, but Permit pins Lua $LUA_RELEASE ($LUA_COMMIT): $3"
}

sources() {
  local pinned
  pinned=$(pinned_commit)
  if [ -n "$pinned" ] && [ "$pinned" != "$LUA_COMMIT" ]; then
    die "the submodule Sources/CPermitLua/lua is pinned at $pinned, this script at $LUA_COMMIT (Lua $LUA_RELEASE): change LUA_RELEASE, LUA_COMMIT and the submodule together"
  fi
  if [ -f "$LUA/$STAND_IN_MARK" ] && [ "$(lua_version "$LUA")" != "$LUA_RELEASE" ]; then
    echo "lua-from-source: the stand-in in Sources/CPermitLua/lua is Lua $(lua_version "$LUA"), not $LUA_RELEASE: replacing it" >&2
    (cd "$LUA" && rm -f ./*.c ./*.h "$STAND_IN_MARK")
  fi
  if [ -f "$LUA/lapi.c" ]; then
    require_release "$LUA" "Sources/CPermitLua/lua" "run git submodule update Sources/CPermitLua/lua"
    echo "lua-from-source: Lua $(lua_version "$LUA") in Sources/CPermitLua/lua$([ -f "$LUA/$STAND_IN_MARK" ] && echo " (stand-in: $(cat "$LUA/$STAND_IN_MARK"))")" >&2
    return
  fi
  if GIT_TERMINAL_PROMPT=0 timeout 300 git submodule update --init Sources/CPermitLua/lua >/dev/null 2>&1 && [ -f "$LUA/lapi.c" ]; then
    require_release "$LUA" "the submodule" "its commit is not the release the script pins"
    echo "lua-from-source: Lua $(lua_version "$LUA") from the submodule" >&2
    return
  fi
  local source="${PERMIT_LUA_SOURCE:-}"
  if [ -z "$source" ]; then
    echo "lua-from-source: the submodule cannot be checked out here; Debian's lua5.4 $LUA_RELEASE source package stands in" >&2
    source=$(debian_source)
  fi
  [ -f "$source/lua.h" ] && [ -f "$source/lapi.c" ] || die "$source holds no Lua sources (lua.h, lapi.c)"
  require_release "$source" "$source" "give the sources of that release"
  mkdir -p "$LUA"
  cp "$source"/*.c "$source"/*.h "$LUA/"
  echo "Lua $LUA_RELEASE from $source" >"$LUA/$STAND_IN_MARK"
  echo "lua-from-source: Lua $LUA_RELEASE from $source laid in Sources/CPermitLua/lua (not committed)" >&2
}

# The global symbols OBJECTS define without the prefix `permit_`.
unprefixed_globals() {
  nm -g --defined-only --format=posix "$@" | awk 'NF >= 2 && $1 !~ /:$/ { print $1 }' | grep -v '^permit_' || true
}

check_symbols() {
  local config="${1:-debug}"
  case "$config" in debug|release) ;; *) die "check-symbols takes debug or release, not $config" ;; esac
  local bin="$SCRATCH/$config" failed=0
  local objects=("$bin"/CPermitLua.build/*.o)
  [ -f "${objects[0]}" ] || die "no objects in $bin/CPermitLua.build: build first ($0 swift build -c $config)"
  # 1. Every global symbol of Permit's Lua and of the C shim carries the prefix, and there are
  #    some; a planted unprefixed symbol shows that the check sees one.
  # The shim's sources sit in folders by concern, and so do their objects.
  local unprefixed count shim
  mapfile -t shim < <(find "$bin"/CLuaShim.build -name '*.o' 2>/dev/null | sort)
  [ -f "${shim[0]}" ] || die "no objects in $bin/CLuaShim.build: build first ($0 swift build -c $config)"
  unprefixed=$(unprefixed_globals "${objects[@]}")
  count=$(nm -g --defined-only --format=posix "${objects[@]}" | awk 'NF >= 2 && $1 ~ /^permit_lua/' | wc -l)
  if [ -n "$unprefixed" ] || [ "$count" -lt 100 ]; then
    echo "FAIL: Permit's Lua defines unprefixed global symbols (or too few prefixed: $count):" >&2; echo "$unprefixed" | head -20 >&2; failed=1
  else echo "ok: every global symbol of Permit's Lua is permit_… ($count symbols)"; fi
  unprefixed=$(unprefixed_globals "${shim[@]}")
  count=$(nm -g --defined-only --format=posix "${shim[@]}" | awk 'NF >= 2 && $1 ~ /^permit_/' | wc -l)
  if [ -n "$unprefixed" ] || [ "$count" -lt 50 ]; then
    echo "FAIL: the C shim defines unprefixed global symbols (or too few prefixed: $count):" >&2; echo "$unprefixed" | head -60 >&2; failed=1
  else echo "ok: every global symbol of the C shim is permit_… ($count symbols)"; fi
  mkdir -p "$WORK"
  printf 'int permit_kept(void) { return 1; }\nint shim_planted(void) { return 2; }\n' >"$WORK/planted.c"
  cc -c "$WORK/planted.c" -o "$WORK/planted.o"
  if [ "$(unprefixed_globals "$WORK/planted.o")" = "shim_planted" ]; then echo "ok: a planted unprefixed symbol (shim_planted) is reported"
  else echo "FAIL: the planted unprefixed symbol shim_planted was not reported: this check cannot see one" >&2; failed=1; fi
  # 2. Nothing reaches the operating system through Lua.
  local reached
  reached=$(nm -u --format=posix "${objects[@]}" | awk '{ print $1 }' | grep -E '^(system|popen|pclose|dlopen|dlsym|tmpnam|mkstemp|remove|rename|getenv|exit)$' | sort -u || true)
  if [ -n "$reached" ]; then echo "FAIL: Permit's Lua calls $(echo $reached)" >&2; failed=1
  else echo "ok: Permit's Lua calls none of system, popen, dlopen, tmpnam, mkstemp, remove, rename, getenv, exit"; fi
  # 2b. Lua's errors jump with _setjmp/_longjmp (its POSIX setting, which Apple needs: setjmp there
  #     saves the signal mask, a system call per protected call), never with ISO C's longjmp.
  local jumps
  jumps=$(nm -u --format=posix "${objects[@]}" | awk '{ print $1 }' | grep -E '^_*(sig)?(set|long)jmp' | sort -u | tr '\n' ' ' || true)
  if echo " $jumps" | grep -qE ' (longjmp|siglongjmp) ' || ! echo " $jumps" | grep -q ' _longjmp '; then
    echo "FAIL: Permit's Lua jumps with: $jumps(want _longjmp, Lua's POSIX setting)" >&2; failed=1
  else echo "ok: Permit's Lua jumps with _setjmp/_longjmp (Lua's POSIX setting)"; fi
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
  # 5. The traits SystemLua and LuaFromSource together are a build error that says so; without
  #    either, on Linux, Lua is not compiled; on an Apple target it is, whatever the traits.
  local both
  both=$(cc -c -DPERMIT_LUA_FROM_SOURCE -DPERMIT_SYSTEM_LUA -I"$ROOT/Sources/CPermitLua/include" -I"$LUA" \
    "$ROOT/Sources/CPermitLua/permit_lua.c" -o "$host/both.o" 2>&1 || true)
  if echo "$both" | grep -q "SystemLua and LuaFromSource exclude each other"; then echo "ok: both traits at once stop the build with an error naming them"
  else echo "FAIL: both traits at once did not stop the build with the error: $both" >&2; failed=1; fi
  cc -c -I"$ROOT/Sources/CPermitLua/include" -I"$LUA" "$ROOT/Sources/CPermitLua/permit_lua.c" -o "$host/none.o"
  cc -c -D__APPLE__ -I"$ROOT/Sources/CPermitLua/include" -I"$LUA" "$ROOT/Sources/CPermitLua/permit_lua.c" -o "$host/apple.o"
  if [ -z "$(nm -g --defined-only "$host/none.o")" ] && [ -n "$(nm -g --defined-only "$host/apple.o" | grep permit_lua_newstate)" ]; then
    echo "ok: permit_lua.c compiles Lua for an Apple target without any trait's define, and nothing on Linux without the trait"
  else echo "FAIL: permit_lua.c does not decide from its target (__APPLE__) and the trait alone" >&2; failed=1; fi
  return $failed
}

case "${1:-}" in
  sources) sources ;;
  check-symbols) shift; check_symbols "$@" ;;
  swift) shift; [ $# -ge 1 ] || die "usage: $0 swift SUBCOMMAND [ARGS...]"
    subcommand="$1"; shift
    exec "${SWIFT_BIN:-swift}" "$subcommand" --scratch-path "$SCRATCH" --traits LuaFromSource "$@" ;;
  *) echo "usage: $0 sources | swift SUBCOMMAND [ARGS...] | check-symbols [debug|release]" >&2; exit 2 ;;
esac
