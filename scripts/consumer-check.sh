#!/usr/bin/env bash
# The package as a new user installs it: packs the tarball (after building it), installs it into a
# fresh project outside the repository with the peers the README's installation section names
# (effect@^3.22 @effect/platform@^0.97) plus typescript and @types/node, and no optional peer;
# typechecks test/consumer/program.ts (the README's snippets) strictly, with NodeNext and
# exactOptionalPropertyTypes and without skipLibCheck; runs it against the in-process sandbox; runs
# the installed design-search; and checks that the project holds one copy of effect and none of the
# CLI's own framework. Exits non-zero, saying why, on the first thing that differs.
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
cp test/consumer/program.ts test/consumer/tsconfig.json "$app/"
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
npm install --no-audit --no-fund --loglevel=error -D typescript@~5.9 @types/node@^20 || fail "npm install -D failed"

# exactly one effect, the application's own
copies=$(find node_modules -type f -path '*node_modules/effect/package.json' | sort)
[ "$(grep -c . <<<"$copies")" -eq 1 ] || fail "more than one copy of effect: $(tr '\n' ' ' <<<"$copies")"
for package in @effect/cli @effect/platform-node ioredis; do
  [ ! -e "node_modules/$package" ] || fail "installing the package installed $package"
done

npx --no-install tsc -p tsconfig.json || fail "the README's snippets do not typecheck"
node out/program.js || fail "the README's snippets failed when run"

# the bundled CLI, with nothing but the package's own dependencies, its token cache in a folder of the check's
export XDG_CACHE_HOME="$work/cache"
help=$(npx --no-install design-search --help) || fail "design-search --help failed"
grep -q "design-search" <<<"$help" || fail "design-search --help printed no usage"
version=$(npx --no-install design-search --version) || fail "design-search --version failed"
grep -qF "$(node -p 'require(process.argv[1]).version' "$root/package.json")" <<<"$version" ||
  fail "design-search --version printed $version, not package.json's version"
found=$(npx --no-install design-search search chair --json 2>/dev/null) || fail "design-search search chair failed"
grep -q '"count"' <<<"$found" || fail "design-search search chair --json printed no count: $found"

echo "consumer check: passed (one copy of effect: ${copies})"
