#!/usr/bin/env bash
# The package as a new user installs it: packs the tarball (after building it), installs it into a
# fresh project outside the repository with the peers the README's installation section names
# (effect@^3.22 @effect/platform@^0.97, and @effect/vitest@^0.30 vitest@^3.2 for tests) plus
# typescript and @types/node, and no optional peer. With TypeScript 5.9 and then the latest
# (TypeScript 7, whose `tsc` is a native binary of a platform package it depends on), it typechecks
# test/consumer/program.ts (the README's snippets) strictly, with NodeNext and
# exactOptionalPropertyTypes and without skipLibCheck, and the README's sandbox test (from
# test/readme.test.ts) with the one setting the README's installation section asks for. It runs the
# program against the in-process sandbox and the test with vitest; runs the installed design-search;
# and checks that the project holds one copy of effect and none of the CLI's own framework. Exits
# non-zero, saying why, on the first thing that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

fail() { echo "consumer check: $*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/design-search-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT

npm run build --silent >/dev/null || fail "npm run build failed"
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
tarball="$work/$tarball"
[ -f "$tarball" ] || fail "npm pack made no tarball"
listing=$(tar -tzf "$tarball")
for file in package/LICENSE package/dist/index.js package/dist/index.d.ts package/dist/cli/main.js package/dist/cli/program.cjs package/dist/cli/package.json; do
  grep -qx "$file" <<<"$listing" || fail "the tarball has no $file"
done

app="$work/app"
mkdir "$app"
cp test/consumer/program.ts test/consumer/tsconfig.json test/consumer/tsconfig.vitest.json "$app/"
# the README's sandbox test, as test/readme.test.ts holds it (that test checks it is the README's)
sed -n '/^\/\/ README: begin$/,/^\/\/ README: end$/p' test/readme.test.ts |
  sed 's|from "../src/index.js"|from "effect-design-search"|' >"$app/sandbox.test.ts"
grep -q 'from "effect-design-search"' "$app/sandbox.test.ts" || fail "test/readme.test.ts holds no README test"
# The registry here serves only some platforms' native optional packages: the repository's
# overrides hold for the consumer too.
node -e '
  const overrides = require(process.argv[1]).overrides ?? {}
  const app = { name: "consumer", private: true, type: "module", overrides }
  require("fs").writeFileSync(process.argv[2], JSON.stringify(app, null, 2) + "\n")
' "$root/package.json" "$app/package.json"

cd "$app"
npm install --no-audit --no-fund --loglevel=error "$tarball" effect@^3.22 @effect/platform@^0.97 ||
  fail "npm install of the tarball with its peers failed"
for package in @effect/cli @effect/platform-node ioredis; do
  [ ! -e "node_modules/$package" ] || fail "installing the package installed $package"
done
npm install --no-audit --no-fund --loglevel=error -D @effect/vitest@^0.30 vitest@^3.2 @types/node@^20 ||
  fail "npm install -D of the README's test packages failed"

# exactly one effect, the application's own
copies=$(find node_modules -type f -path '*node_modules/effect/package.json' | sort)
[ "$(grep -c . <<<"$copies")" -eq 1 ] || fail "more than one copy of effect: $(tr '\n' ' ' <<<"$copies")"

compilers=""
for typescript in "~5.9" latest; do
  npm install --no-audit --no-fund --loglevel=error -D "typescript@$typescript" ||
    fail "npm install -D typescript@$typescript failed"
  compiler=$(node -p 'require("./node_modules/typescript/package.json").version')
  npx --no-install tsc --version >/dev/null || fail "typescript@$typescript ($compiler) has no working tsc"
  compilers="$compilers, TypeScript $compiler"
  npx --no-install tsc -p tsconfig.json || fail "the README's snippets do not typecheck with TypeScript $compiler"
  npx --no-install tsc -p tsconfig.vitest.json ||
    fail "the README's sandbox test does not typecheck with TypeScript $compiler"
done
[ "${compiler%%.*}" -ge 7 ] || fail "typescript@latest is $compiler, not TypeScript 7 or later"

node out/program.js || fail "the README's snippets failed when run"
npx --no-install vitest run sandbox.test.ts || fail "the README's sandbox test failed"

# the bundled CLI, with nothing but the package's own dependencies, its token cache in a folder of the check's
export XDG_CACHE_HOME="$work/cache"
help=$(npx --no-install design-search --help) || fail "design-search --help failed"
grep -q "design-search" <<<"$help" || fail "design-search --help printed no usage"
version=$(npx --no-install design-search --version) || fail "design-search --version failed"
grep -qF "$(node -p 'require(process.argv[1]).version' "$root/package.json")" <<<"$version" ||
  fail "design-search --version printed $version, not package.json's version"
found=$(npx --no-install design-search search chair --json 2>/dev/null) || fail "design-search search chair failed"
grep -q '"count"' <<<"$found" || fail "design-search search chair --json printed no count: $found"

echo "consumer check: passed (${compilers#, }; one copy of effect: ${copies})"
