#!/usr/bin/env bash
# Usage: scripts/peer-floors.sh [--keep]   # --keep: leave the temporary copy for a look
#
# The package at the floor of every peer dependency: the lowest version each range in
# package.json's peerDependencies allows (semver's minVersion), installed over a copy of the
# repository in a temporary directory, then there: the build, the type checks, the unit suite and
# the package tests that install the peers. The devDependencies test the newest
# versions; this tests the oldest a user's project may resolve, so a range is never wider than
# what was run.
#
# Why it looks like this:
# - A copy, never this checkout's node_modules: the floors replace the devDependencies' versions
#   there only. The copy holds the working tree (tracked and untracked files, not the ignored
#   ones), committed in a repository of its own because the package test packs a clone of HEAD.
# - `--ignore-scripts`: @confluentinc/kafka-javascript is a native addon whose install step
#   downloads a prebuilt binary (not reachable here) or builds librdkafka (minutes). At its floor
#   only its types are checked (test/confluent/tsconfig.json); it runs at the version
#   scripts/confluent.sh builds. Older Pulumi providers' install step fetches a plugin, which a
#   program's `pulumi up` does anyway.
# - Of the package tests (test/package/), the ones a peer's version can change: the packed
#   package's declarations and the docs' snippets compiled in a user's project with the floors
#   installed (compile), its entry points loaded there (installed), and a project per Pulumi
#   provider building its components (one-provider).
# shellcheck disable=SC2016 # the ${...} in the node -e programs are JavaScript's, not the shell's
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

keep=0
case "${1:-}" in
  '') ;;
  --keep) keep=1 ;;
  *) echo "usage: scripts/peer-floors.sh [--keep]" >&2; exit 2 ;;
esac

say() { echo "peer-floors: $*"; }

# name@floor per peer, from the ranges in package.json.
mapfile -t floors < <(node -e '
  const semver = require("semver");
  const { peerDependencies } = require("./package.json");
  for (const [name, range] of Object.entries(peerDependencies)) {
    const floor = semver.minVersion(range);
    if (!floor) throw new Error(`${name}: no version satisfies "${range}"`);
    console.log(`${name}@${floor.version}`);
  }
')

work=$(mktemp -d "${TMPDIR:-/tmp}/retry-topology-floors.XXXXXX")
finish() {
  local rc=$?
  if [[ $keep == 1 || $rc -ne 0 ]]; then say "the copy is in $work"; else rm -rf "$work"; fi
  exit "$rc"
}
trap finish EXIT

started=$SECONDS
timed() { # NAME COMMAND...: runs it, says how long it took
  local name=$1 at=$SECONDS
  shift
  say "$name"
  "$@"
  say "$name: ok, $((SECONDS - at)) s"
}

copy="$work/repo"
mkdir -p "$copy"
git ls-files -z --cached --others --exclude-standard |
  tar --null --files-from=- --create --file=- |
  tar --extract --file=- --directory="$copy"
cd "$copy"
git init --quiet
git add --all
git -c user.name=peer-floors -c user.email=peer-floors@localhost commit --quiet --no-verify \
  --message "the working tree of $root"

# The floors as the copy's devDependencies, in place of the versions the lockfile pins: npm keeps
# the rest of the lockfile's tree. (`npm install --no-save` would skip the optional peers that are
# not devDependencies: it adds them to the root's optional peer edges, which it does not install.)
node -e '
  const { readFileSync, writeFileSync } = require("node:fs");
  const manifest = JSON.parse(readFileSync("package.json", "utf8"));
  for (const spec of process.argv.slice(1)) {
    const at = spec.lastIndexOf("@");
    manifest.devDependencies[spec.slice(0, at)] = spec.slice(at + 1);
  }
  writeFileSync("package.json", `${JSON.stringify(manifest, null, 2)}\n`);
' "${floors[@]}"
timed "npm install, with the floors: ${floors[*]}" \
  npm install --no-audit --no-fund --ignore-scripts --loglevel=error

# Each peer as installed, against its floor (some old Pulumi providers write "v3.2.0").
node -e '
  const { readFileSync } = require("node:fs");
  const semver = require("semver");
  let wrong = 0;
  for (const spec of process.argv.slice(1)) {
    const at = spec.lastIndexOf("@");
    const [name, floor] = [spec.slice(0, at), spec.slice(at + 1)];
    const { version } = JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8"));
    const same = semver.clean(version) === floor;
    if (!same) wrong++;
    console.log(`  ${name.padEnd(34)} ${version}${same ? "" : ` (NOT the floor, ${floor})`}`);
  }
  if (wrong) process.exit(1);
' "${floors[@]}"
# Committed, so the package test's clone of HEAD packs what is installed against.
git -c user.name=peer-floors -c user.email=peer-floors@localhost commit --quiet --no-verify --all \
  --message "the floors"

timed build npm run --silent build
export RETRY_TOPOLOGY_DIST_BUILT=1 # the unit suite's set-up need not compile dist/ again
timed "type check" npx tsc --noEmit -p .
timed "type check against the Confluent client's types" npx tsc --noEmit -p test/confluent/tsconfig.json
timed "unit suite" npx vitest run --project unit
# Their tarball cache goes to the copy, not to ~/.cache, where this checkout's package tests keep
# theirs.
XDG_CACHE_HOME="$work/cache" timed "package tests" npx vitest run --project package \
  test/package/compile.test.ts test/package/installed.test.ts test/package/one-provider.test.ts

say "every step passed at the floors, in $((SECONDS - started)) s"
