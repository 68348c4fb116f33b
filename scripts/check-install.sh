#!/usr/bin/env bash
# `make check-install`: the installed `permit` runs where neither Swift nor Lua is installed.
# It checks the binary `make install` wrote: `ldd` must list no Swift runtime, no Foundation,
# no Lua and no libyaml, and the binary must pass every pack's tests from the repository with
# an empty environment (no PATH, no HOME, no LANG: what a bare CI container gives).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:?usage: check-install.sh PATH/TO/permit}"
if [ "$(uname -s)" = Linux ]; then
    libraries="$(ldd "$bin")"
    echo "$libraries"
    if grep -Ei 'swift|foundation|dispatch|blocksruntime|icu|lua|yaml' <<<"$libraries"; then
        echo "check-install: $bin loads the libraries above at run time; they must be linked in (scripts/install.sh)" >&2
        exit 1
    fi
fi
env -i "$bin" --version
env -i "$bin" test policies
