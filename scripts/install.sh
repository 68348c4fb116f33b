#!/usr/bin/env bash
# `make install`: builds a release `permit` and copies it to $PREFIX/bin (default /usr/local).
#
# On Linux the binary needs neither a Swift toolchain nor Lua nor libyaml where it runs: the
# Swift runtime and Foundation go in with --static-swift-stdlib, and Lua and libyaml are linked
# from Debian's static archives (liblua5.4.a in liblua5.4-dev, libyaml.a in libyaml-dev). SwiftPM
# links the two system libraries with the flags pkg-config gives, so the build reads .pc files
# written here that point at a folder holding only those archives: the linker finds no shared
# library to prefer. What is left (`ldd` lists it) is the C library (libc, libm) and the C++
# and GCC runtime libraries (libstdc++, libgcc_s) that the Swift runtime, written in C++,
# needs: every Debian machine has them, since apt itself is a C++ program that depends on them.
#
# On macOS the Swift runtime is part of the system, Lua is compiled in from the package's
# submodule (always, on Apple platforms), and the binary links Homebrew's libyaml
# (`brew install libyaml pkg-config`), which must stay installed.
#
# The build has a folder of its own (.build-install), so it never mixes with `swift build`'s.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX="${PREFIX:-/usr/local}"
SWIFT="${SWIFT:-swift}"
SCRATCH="$PWD/.build-install"

./scripts/setup.sh

flags=(-c release --product permit --scratch-path "$SCRATCH/build" -Xswiftc -warnings-as-errors)
if [ "$(uname -s)" = Linux ]; then
    static="$SCRATCH/static"
    mkdir -p "$static/lib" "$static/pkgconfig"
    # One archive per library, found where pkg-config says the library lives.
    link_archive() {  # package name, archive name
        local dir
        dir="$(pkg-config --variable=libdir "$1")"
        if [ ! -f "$dir/$2" ]; then
            echo "install: $dir/$2 is missing: the static $1 library is needed for a binary that runs without it (Debian: liblua5.4-dev, libyaml-dev)" >&2
            exit 1
        fi
        ln -sf "$dir/$2" "$static/lib/$2"
    }
    link_archive lua5.4 liblua5.4.a
    link_archive yaml-0.1 libyaml.a
    cat >"$static/pkgconfig/lua5.4.pc" <<EOF
Name: Lua
Description: Lua 5.4, linked from its static archive
Version: $(pkg-config --modversion lua5.4)
Libs: -L$static/lib -llua5.4 -lm -ldl
Cflags: $(pkg-config --cflags lua5.4)
EOF
    cat >"$static/pkgconfig/yaml-0.1.pc" <<EOF
Name: LibYAML
Description: libyaml, linked from its static archive
Version: $(pkg-config --modversion yaml-0.1)
Libs: -L$static/lib -lyaml
Cflags: $(pkg-config --cflags yaml-0.1)
EOF
    export PKG_CONFIG_PATH="$static/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    flags+=(--static-swift-stdlib)
fi

"$SWIFT" build "${flags[@]}"
bin="$("$SWIFT" build "${flags[@]}" --show-bin-path)"
mkdir -p "$PREFIX/bin"
install -m 0755 "$bin/permit" "$PREFIX/bin/permit"
echo "installed $PREFIX/bin/permit ($("$PREFIX/bin/permit" --version))"
