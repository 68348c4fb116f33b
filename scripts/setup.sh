#!/usr/bin/env bash
# Installs what a fresh Debian machine with the Swift toolchain lacks: Lua 5.4's headers and
# library (liblua5.4-dev), libyaml's (libyaml-dev: PermitInput reads libyaml's parser events)
# and pkg-config. Uses sudo only when not root. Safe to run again.
set -euo pipefail
if [ -f /usr/include/lua5.4/lua.h ] && command -v pkg-config >/dev/null && pkg-config --exists lua5.4 \
  && pkg-config --exists yaml-0.1; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "setup: liblua5.4-dev or libyaml-dev is missing and apt-get is not available; install Lua 5.4 and libyaml (headers + pkg-config files) yourself, e.g. 'brew install lua@5.4 libyaml' on macOS" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "setup: installing liblua5.4-dev, libyaml-dev and pkg-config" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq liblua5.4-dev libyaml-dev pkg-config >/dev/null
