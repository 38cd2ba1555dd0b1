#!/usr/bin/env bash
# The whole suite of both editions, as `npm test` runs it: build, both typechecks, then the Effect 3
# suite (vitest 3) and the Effect 4 suite (vitest 5 on Node.js 22.19 or later: scripts/test-effect4.sh).
# Each suite prints its own counts; the second runs whatever the first did, and the command fails if
# either failed.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run build || exit 1
npm run typecheck || exit 1
npx --no-install vitest run
effect3=$?
scripts/test-effect4.sh
effect4=$?
echo "Effect 3 suite: $([ "$effect3" -eq 0 ] && echo passed || echo "FAILED ($effect3)")"
echo "Effect 4 suite: $([ "$effect4" -eq 0 ] && echo passed || echo "FAILED ($effect4)")"
[ "$effect3" -eq 0 ] && [ "$effect4" -eq 0 ]
