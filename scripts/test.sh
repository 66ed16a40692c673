#!/usr/bin/env bash
# The whole test run, as `npm test` and CI run it: local brokers up (installed on first use),
# then build, lint, type-check, every test against the real brokers, and `pulumi up` for real.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash scripts/brokers.sh start
# The SVG → PNG test renders in Debian's headless Chromium.
bash scripts/chromium.sh
npm run --silent build
npm run --silent lint
npm run --silent typecheck
npx vitest run --project unit --project integration
# The real Pulumi engine on the local brokers (docs/pulumi-e2e.md). Under CI=1 it builds the engine
# once (cached in ~/.cache/retry-topology) and fails if it cannot; otherwise it skips with one line.
bash scripts/pulumi-e2e.sh
