#!/usr/bin/env bash
# Lints the GitHub Actions workflows users copy (examples/ci/*.yml) with actionlint, their shell
# scripts with shellcheck. actionlint is built from its Go module, at the version below, into
#   ${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}/bin/actionlint
# on first use (needs Go); shellcheck comes from Debian's package if it is absent (needs root for
# apt-get). Without shellcheck actionlint would skip the scripts and pass: that is a failure here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ACTIONLINT_VERSION=1.7.12
BIN=${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}/bin
ACTIONLINT=$BIN/actionlint

log() { echo "actionlint: $*" >&2; }

installed_version() {
  [[ -x $ACTIONLINT ]] && "$ACTIONLINT" -version 2>/dev/null | head -n 1
}

if [[ "$(installed_version || true)" != "v$ACTIONLINT_VERSION" ]]; then
  command -v go >/dev/null 2>&1 || { log "error: Go is needed to build actionlint v$ACTIONLINT_VERSION"; exit 1; }
  mkdir -p "$BIN"
  staged=$(mktemp -d)
  trap 'rm -rf "$staged"' EXIT
  # Built beside the cache and moved in, so a run beside this one never finds half a binary.
  if ! GOBIN=$staged GOFLAGS=-mod=mod GOWORK=off \
    go install "github.com/rhysd/actionlint/cmd/actionlint@v$ACTIONLINT_VERSION" >"$staged/log" 2>&1; then
    log "error: go install github.com/rhysd/actionlint/cmd/actionlint@v$ACTIONLINT_VERSION failed"
    tail -n 20 "$staged/log" >&2
    exit 1
  fi
  mv -f "$staged/actionlint" "$ACTIONLINT"
  log "installed v$ACTIONLINT_VERSION in $BIN"
fi

if ! command -v shellcheck >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine has no package lists yet; without them apt-get install finds nothing.
  # The lock timeout: another step may be installing its own packages at the same moment.
  if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends shellcheck; } >/dev/null 2>&1; then
    log "error: shellcheck is not installed, and apt-get could not install it"
    exit 1
  fi
fi

"$ACTIONLINT" -shellcheck "$(command -v shellcheck)" -pyflakes= examples/ci/*.yml
echo "actionlint: examples/ci/*.yml pass (actionlint v$ACTIONLINT_VERSION, $(shellcheck --version | sed -n 's/^version: /shellcheck /p'))"
