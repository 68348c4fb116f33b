#!/usr/bin/env bash
# Installs what a fresh Debian machine with the Swift toolchain lacks: Lua 5.4's headers and
# library (liblua5.4-dev), libyaml's (libyaml-dev: PermitInput reads libyaml's parser events),
# pkg-config, and with `browser` (as `make test` runs it) a headless browser: chromium, in which
# the tests lay out the HTML reports as a reader's browser does, and chromium-driver, the
# WebDriver server through which the playground's tests (`permit serve`) click and type in it.
# Uses sudo only when not root.
# Safe to run again.
set -euo pipefail
WANT_BROWSER=0
if [ "${1:-}" = browser ]; then WANT_BROWSER=1; fi
has_browser() {
  [ "$WANT_BROWSER" = 0 ] || [ -n "${PERMIT_BROWSER:-}" ] || command -v chromium >/dev/null \
    || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null
}
has_driver() {
  [ "$WANT_BROWSER" = 0 ] || [ -n "${PERMIT_CHROMEDRIVER:-}" ] || command -v chromedriver >/dev/null
}
if [ -f /usr/include/lua5.4/lua.h ] && command -v pkg-config >/dev/null && pkg-config --exists lua5.4 \
  && pkg-config --exists yaml-0.1 && has_browser && has_driver; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "setup: liblua5.4-dev, libyaml-dev, chromium or chromium-driver is missing and apt-get is not available; install Lua 5.4 and libyaml (headers + pkg-config files) and a Chromium-based browser with its chromedriver yourself, e.g. 'brew install lua@5.4 libyaml chromedriver' and 'brew install --cask chromium' on macOS (or set PERMIT_BROWSER to a Chrome binary and PERMIT_CHROMEDRIVER to its driver)" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PACKAGES="liblua5.4-dev libyaml-dev pkg-config"
if ! has_browser; then PACKAGES="$PACKAGES chromium"; fi
if ! has_driver; then PACKAGES="$PACKAGES chromium-driver"; fi
echo "setup: installing $PACKAGES" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # the list splits into packages on purpose
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PACKAGES >/dev/null
