#!/usr/bin/env bash
# Debian packages the browser tests need (chromium). Installed only when running as
# root with apt; otherwise the browser tests skip themselves and say how to enable them.
set -uo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: installing Debian chromium for the browser tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
    || echo "system-deps: could not install chromium; browser tests will be skipped" >&2
else
  echo "system-deps: chromium not found and not root; browser tests will be skipped" \
       "(install it with: sudo apt-get install chromium)" >&2
fi
exit 0
