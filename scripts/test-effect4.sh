#!/usr/bin/env bash
# The Effect 4 edition's suite (the whole of test/, with effect4/'s own install of effect 4, @effect/vitest 4
# and vitest 5). @effect/platform-node 4 and vitest 5 need Node.js 22.19 or later: on an older node this
# runs the suite on Node.js 24 from scripts/ensure-node.sh. Arguments go to `vitest run`.
set -euo pipefail
cd "$(dirname "$0")/.."
node=$(command -v node)
if ! "$node" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)'; then
  node=$(./scripts/ensure-node.sh 24)
fi
exec "$node" effect4/node_modules/vitest/vitest.mjs run --config effect4/vitest.config.ts "$@"
