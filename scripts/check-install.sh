#!/usr/bin/env bash
# `make check-install`: the installed `permit` runs where neither Swift nor Lua is installed.
# It checks the binary `make install` wrote: `ldd` must list no Swift runtime, no Foundation,
# no Lua and no libyaml, and the binary must pass every pack's tests from the repository with
# an empty environment (no PATH, no HOME, no LANG: what a bare CI container gives), and serve
# the playground's page and its script (`permit serve`), which live in the binary, not in files
# beside it.
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
log="$(mktemp)"
env -i "$bin" serve policies/polite >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
url=""
for _ in $(seq 100); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/?token=[0-9a-f]*' "$log" || true)"
    [ -n "$url" ] && break
    sleep 0.1
done
if [ -z "$url" ]; then
    echo "check-install: permit serve printed no URL:" >&2
    cat "$log" >&2
    exit 1
fi
port="${url#http://127.0.0.1:}"
port="${port%%/*}"
# GET PATH: the answer, headers and body, over a plain socket with the printed Host.
get() {
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$1" "$port" >&3
    cat <&3
    exec 3<&-
}
page="$(get /)"
if ! grep -q "Permit playground" <<<"$page"; then
    echo "check-install: permit serve did not serve its page:" >&2
    head -c 400 <<<"$page" >&2
    exit 1
fi
script="$(get /playground.js)"
if ! grep -q "X-Permit-Token" <<<"$script"; then
    echo "check-install: permit serve did not serve the page's script:" >&2
    head -c 400 <<<"$script" >&2
    exit 1
fi
echo "permit serve: the page and its script are served from the binary ($url)"
