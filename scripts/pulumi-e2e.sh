#!/usr/bin/env bash
# The real Pulumi engine against the local brokers: `pulumi up` of the ci stack
# (stacks/Pulumi.ci.yaml) on RabbitMQ and Kafka, read back against the plan, the billing acceptance
# run (A, B, C) by the runtime on that topology, a second up with no changes, a delay change in place with messages
# waiting, and `pulumi destroy`. The steps are the vitest project `e2e` (test/e2e/); this script
# finds or builds the engine, gives the run a temp directory, and cleans up if the run dies.
# See docs/contributing/pulumi-e2e.md.
#
# Usage: scripts/pulumi-e2e.sh [--build] [vitest args...]
#   --build  build the engine with scripts/pulumi-engine.sh when none is ready, or rebuild the
#            binaries whose sources in engine/ changed (7-9 min the first time, then cached in
#            ~/.cache/retry-topology). Under CI (CI set and not 0/false) this is
#            the default, and an engine that cannot be built fails the run.
# Without an engine, outside CI and without --build, it prints one SKIPPED line and exits 0.
# Needs the local brokers (scripts/brokers.sh start).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "pulumi-e2e: $*" >&2; }

ci=0
case "${CI:-}" in '' | 0 | false | FALSE | False) ;; *) ci=1 ;; esac
build=$ci
if [[ ${1:-} == --build ]]; then
  build=1
  shift
fi

started=$SECONDS
if engine=$(bash scripts/pulumi-engine.sh --check 2>/dev/null); then
  :
elif [[ $build -eq 1 ]]; then
  log "no Pulumi engine ready: building it with scripts/pulumi-engine.sh (once; it is cached)"
  if ! engine=$(bash scripts/pulumi-engine.sh); then
    log "FAILED: the Pulumi engine could not be built; scripts/pulumi-engine.sh said why just above"
    exit 1
  fi
else
  why=$(bash scripts/pulumi-engine.sh --check 2>&1 >/dev/null | sed 's/^pulumi-engine: //') || true
  echo "pulumi-e2e: SKIPPED: ${why:-no Pulumi engine}; build it once with scripts/pulumi-engine.sh (7-9 min) or run scripts/pulumi-e2e.sh --build (under CI=1 it is built, and a failure fails)"
  exit 0
fi
bin=$(sed -n 's/^PULUMI_BIN=//p' <<<"$engine" | tail -n 1)
export RETRY_TOPOLOGY_PULUMI=$bin/pulumi
log "engine: $RETRY_TOPOLOGY_PULUMI ($("$RETRY_TOPOLOGY_PULUMI" version)), ready in $((SECONDS - started))s"

bash scripts/brokers.sh status >/dev/null || {
  log "FAILED: the local brokers are not running (bash scripts/brokers.sh start)"
  exit 1
}

# Everything the run writes (project copy, file backend, PULUMI_HOME) lives here, outside the repo.
E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/retry-topology-e2e.XXXXXX")
export RETRY_TOPOLOGY_E2E_DIR=$E2E_DIR

# Each test file has a stack of its own in $E2E_DIR/<stack>/ and destroys it itself, then writes
# $E2E_DIR/<stack>/destroyed. For a stack that was not (vitest killed, a timeout, a crash), clean up
# here with the environment it left in pulumi.env: let an interrupted pulumi finish, release its
# lock, unprotect everything (the protected stack keeps its resources otherwise), destroy, then
# sweep the stack's prefix (which also takes the retry levels the stack kept on purpose).
run_pulumi() ( # STACK_DIR ARGS...
  local dir=$1
  shift
  set -a
  # shellcheck disable=SC1091
  . "$dir/pulumi.env"
  set +a
  cd "$dir/project"
  "$RETRY_TOPOLOGY_PULUMI" "$@" --stack "$(cat "$dir/stack")" --non-interactive >&2
)

release_lock() { # STACK_DIR
  local dir=$1 lock pid i
  for lock in "$dir"/state/.pulumi/locks/*/*/*/*.json; do
    [[ -f $lock ]] || continue
    pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$lock")
    # A pulumi that got the signal too finishes its in-flight operations first.
    for ((i = 0; i < 60; i++)); do
      [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null && sleep 2
  done
  compgen -G "$dir/state/.pulumi/locks/*/*/*/*.json" >/dev/null && run_pulumi "$dir" cancel --yes || true
}

cleanup() {
  local rc=$? dir failed=0
  trap - EXIT INT TERM
  if [[ -n ${lint_pid:-} ]]; then kill "$lint_pid" 2>/dev/null || true; fi
  rm -f "${lint_log:-}"
  for dir in "$E2E_DIR"/*/; do
    dir=${dir%/}
    [[ -f $dir/pulumi.env && ! -f $dir/destroyed ]] || continue
    log "stack $(cat "$dir/stack") was not cleaned up: unprotect, pulumi destroy, then a sweep of prefix $(cat "$dir/prefix")"
    release_lock "$dir"
    run_pulumi "$dir" state unprotect --all --yes || log "pulumi state unprotect failed (the sweep follows)"
    run_pulumi "$dir" destroy --yes --skip-preview || log "pulumi destroy failed (the sweep follows)"
    if ! npx tsx test/e2e/sweep.ts "$(cat "$dir/prefix")" >&2; then
      log "FAILED: could not clean the brokers; the run's state stays in $E2E_DIR (docs/contributing/pulumi-e2e.md)"
      failed=1
    fi
    [[ $rc -ne 0 ]] || rc=1
  done
  [[ $failed -eq 1 ]] && exit 1
  rm -rf "$E2E_DIR"
  log "done in $((SECONDS - started))s (exit $rc)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The engine's Go code: gofmt and go vet. 0.1 s when these sources passed before; after a change
# to engine/, or on a fresh machine, vet takes minutes, so it runs beside the tests (which mostly
# wait for pulumi and the brokers) and is waited for after them.
lint_log=$(mktemp)
lint_pid=
if command -v go >/dev/null 2>&1; then
  bash scripts/pulumi-engine.sh --lint >"$lint_log" 2>&1 &
  lint_pid=$!
elif [[ $ci -eq 1 ]]; then
  log "FAILED: no go command to check engine/ with"
  exit 1
else
  log "no go command: gofmt and go vet of engine/ skipped"
fi

# The cluster stack (test/e2e/cluster-stack.test.ts) needs the clusters of `scripts/brokers.sh
# cluster start`; npm test starts them. Run by hand without them, it is skipped with one line;
# under CI it runs, and fails if they are not up.
projects=(--project e2e --project e2e-rabbitmq-4.3)
if [[ $ci -eq 1 ]] || bash scripts/brokers.sh cluster status >/dev/null 2>&1; then
  projects+=(--project e2e-cluster)
else
  echo "pulumi-e2e: SKIPPED the cluster stack: the clusters are not running (bash scripts/brokers.sh cluster start)"
fi
tests=0
npx vitest run "${projects[@]}" "$@" || tests=$?
if [[ -n $lint_pid ]]; then
  lint=0
  wait "$lint_pid" || lint=$?
  lint_pid=
  cat "$lint_log" >&2
  if [[ $lint -ne 0 ]]; then
    log "FAILED: engine/ is not gofmt-clean or go vet found a problem (above)"
    exit 1
  fi
fi
exit "$tests"
