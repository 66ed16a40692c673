#!/usr/bin/env bash
# Installs Debian's chromium for the SVG → PNG test (test/integration/render/), if it is absent.
# Idempotent and quiet: prints one status line. Needs root (apt-get), as on CI and dev machines here.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  echo "chromium: present ($(chromium --version 2>/dev/null | head -n 1))"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# A fresh machine has no package lists yet; without them apt-get install finds nothing.
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
  echo "chromium: install failed" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
echo "chromium: installed ($(chromium --version 2>/dev/null | head -n 1))"
