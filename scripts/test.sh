#!/usr/bin/env bash
# The whole test run, as `npm test` and CI run it: local brokers up (installed on first use),
# then build, lint, type-check and every test against the real brokers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash scripts/brokers.sh start
# The SVG → PNG test renders in Debian's headless Chromium.
bash scripts/chromium.sh
npm run --silent build
npm run --silent lint
npm run --silent typecheck
npx vitest run
