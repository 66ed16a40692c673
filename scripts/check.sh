#!/usr/bin/env bash
# The quick check to run after each change (`npm run check`, a few minutes): build, lint, type-check,
# the API reports (api/) and the unit suite, stopping at the first red step. Given paths
# (`npm run check -- runtime/kafka`), it also runs the integration test files that import code
# under them, or that match them, on the local brokers (started first if they are not running).
# `npm test` runs everything.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -d node_modules ]] || npm ci --no-audit --no-fund
started=$SECONDS
echo "::: build" && npm run --silent build
export RETRY_TOPOLOGY_DIST_BUILT=1
echo "::: lint" && npm run --silent lint
echo "::: typecheck" && npm run --silent typecheck
echo "::: api report" && npm run --silent api:check
echo "::: unit" && npx vitest run --project unit
if [[ $# -gt 0 ]]; then
  # Test files named by a path run as they are; a source path brings the integration files that
  # import it (vitest related). Both on the local brokers.
  tests=() sources=()
  for path in "$@"; do
    if [[ $path == test/* ]]; then tests+=("$path"); else sources+=("$path"); fi
  done
  bash scripts/brokers.sh start
  projects=(--project integration)
  if [[ ${#tests[@]} -gt 0 ]]; then
    echo "::: integration files under ${tests[*]}"
    npx vitest run "${projects[@]}" "${tests[@]}"
  fi
  if [[ ${#sources[@]} -gt 0 ]]; then
    mapfile -t files < <(git ls-files -- "${sources[@]}" | grep -E '\.ts$' || true)
    if [[ ${#files[@]} -eq 0 ]]; then
      echo "check: no TypeScript sources under ${sources[*]}" >&2
      exit 2
    fi
    echo "::: integration files that import ${sources[*]}"
    npx vitest related --run "${projects[@]}" --passWithNoTests "${files[@]}"
  fi
fi
echo "check: passed in $((SECONDS - started)) s"
