#!/usr/bin/env bash
# The package as a new user installs it: packs the tarball (after building it), installs it into a
# fresh project outside the repository with the peers the README's installation section names
# (effect@^3.22 @effect/platform@^0.97, and @effect/vitest@^0.30 vitest@^3.2 for tests) plus
# typescript and @types/node, and no optional peer. With TypeScript 5.9 and then the latest
# (TypeScript 7, whose `tsc` is a native binary of a platform package it depends on), it typechecks
# test/consumer/program.ts (the README's snippets) strictly, with NodeNext and
# exactOptionalPropertyTypes and without skipLibCheck, and the README's sandbox test (from
# test/readme/sandbox.effect3.ts) with the one setting the README's installation section asks for. It
# runs the program against the in-process sandbox and the test with vitest; runs the installed design-search;
# and checks that the project holds one copy of effect and none of the CLI's own framework. Then the
# same for the Effect 4 edition in a fresh Effect 4.1 project (below), whose README program also
# mirrors into a throwaway PostgreSQL server. Exits non-zero, saying why, on the first thing that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

fail() { echo "consumer check: $*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/design-search-consumer.XXXXXX")
pg=""
pg_ctl=()
cleanup() {
  if [ -n "$pg" ]; then "${pg_ctl[@]}" -D "$pg/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$pg"; fi
  rm -rf "$work"
}
trap cleanup EXIT

npm run build --silent >/dev/null || fail "npm run build failed"
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
tarball="$work/$tarball"
[ -f "$tarball" ] || fail "npm pack made no tarball"
listing=$(tar -tzf "$tarball")
for file in package/LICENSE package/dist/index.js package/dist/index.d.ts package/dist/effect4/index.js package/dist/effect4/package.json package/dist/cli/main.js package/dist/cli/program.cjs package/dist/cli/package.json; do
  grep -qx "$file" <<<"$listing" || fail "the tarball has no $file"
done

# A fresh project DIR, made the working directory, holding FILES and the README's sandbox test as
# TEST holds it (that test checks it is the README's), its import FROM replaced by the package's TO.
# The registry here serves only some platforms' native optional packages: the repository's
# overrides hold for the consumer too.
fresh_app() {
  local dir=$1 test=$2 from=$3 to=$4
  shift 4
  mkdir "$dir"
  cp "$@" "$dir/"
  sed -n '/^\/\/ README: begin$/,/^\/\/ README: end$/p' "$root/$test" |
    sed "s|from \"$from\"|from \"$to\"|" >"$dir/sandbox.test.ts"
  grep -q "from \"$to\"" "$dir/sandbox.test.ts" || fail "$test holds no README test"
  node -e '
    const overrides = require(process.argv[1]).overrides ?? {}
    const app = { name: "consumer", private: true, type: "module", overrides }
    require("fs").writeFileSync(process.argv[2], JSON.stringify(app, null, 2) + "\n")
  ' "$root/package.json" "$dir/package.json"
  cd "$dir"
}

# In the working directory: exactly one effect, the application's own (into `copies`), and the
# README's code (tsconfig.json) and sandbox test (tsconfig.vitest.json) typechecked with TypeScript
# 5.9 and the latest, which must be 7 or later (their versions into `compilers`). $1 names the edition.
one_effect_and_typecheck() {
  copies=$(find node_modules -type f -path '*node_modules/effect/package.json' | sort)
  [ "$(grep -c . <<<"$copies")" -eq 1 ] || fail "$1: more than one copy of effect: $(tr '\n' ' ' <<<"$copies")"
  compilers=""
  local typescript compiler
  for typescript in "~5.9" latest; do
    npm install --no-audit --no-fund --loglevel=error -D "typescript@$typescript" ||
      fail "npm install -D typescript@$typescript failed"
    compiler=$(node -p 'require("./node_modules/typescript/package.json").version')
    npx --no-install tsc --version >/dev/null || fail "typescript@$typescript ($compiler) has no working tsc"
    compilers="$compilers, TypeScript $compiler"
    npx --no-install tsc -p tsconfig.json || fail "$1: the README's code does not typecheck with TypeScript $compiler"
    npx --no-install tsc -p tsconfig.vitest.json ||
      fail "$1: the README's sandbox test does not typecheck with TypeScript $compiler"
  done
  [ "${compiler%%.*}" -ge 7 ] || fail "typescript@latest is $compiler, not TypeScript 7 or later"
  compilers=${compilers#, }
}

fresh_app "$work/app" test/readme/sandbox.effect3.ts ../../src/index.js effect-design-search \
  test/consumer/program.ts test/consumer/tsconfig.json test/consumer/tsconfig.vitest.json
npm install --no-audit --no-fund --loglevel=error "$tarball" effect@^3.22 @effect/platform@^0.97 ||
  fail "npm install of the tarball with its peers failed"
for package in @effect/cli @effect/platform-node ioredis; do
  [ ! -e "node_modules/$package" ] || fail "installing the package installed $package"
done
npm install --no-audit --no-fund --loglevel=error -D @effect/vitest@^0.30 vitest@^3.2 @types/node@^20 ||
  fail "npm install -D of the README's test packages failed"
one_effect_and_typecheck "Effect 3"

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

effect3="${compilers}; one copy of effect: ${copies}"

# The Effect 4 edition, in a fresh Effect 4.1 project: `effect-design-search/effect4` with effect@^4.1,
# @effect/sql-pg 4 for the mirror and @effect/vitest 4, as the README's "On Effect 4" installs them. It
# runs on Node.js 22.19 or later: Node.js 24 from scripts/ensure-node.sh.
node24=$("$root/scripts/ensure-node.sh" 24) || fail "Node.js 24 could not be installed"
app4="$work/app4"
fresh_app "$app4" test/readme/sandbox.effect4.ts ../../src/index.js effect-design-search/effect4 \
  "$root/test/consumer/effect4/program.ts" "$root/test/consumer/tsconfig.json"
printf '{ "extends": "./tsconfig.json", "compilerOptions": { "noEmit": true }, "include": ["sandbox.test.ts"] }\n' \
  >tsconfig.vitest.json
npm install --no-audit --no-fund --loglevel=error "$tarball" effect@^4.1 @effect/sql-pg@^4.0.5 ||
  fail "npm install of the tarball with effect@^4.1 failed"
for package in @effect/platform @effect/cli @effect/platform-node ioredis; do
  [ ! -e "node_modules/$package" ] || fail "installing the package on Effect 4 installed $package"
done
npm install --no-audit --no-fund --loglevel=error -D @effect/vitest@^4 vitest@^5 @types/node@^24 ||
  fail "npm install -D of the README's Effect 4 test packages failed"
[[ "$(node -p 'require("./node_modules/effect/package.json").version')" == 4.* ]] || fail "Effect 4: effect is not 4.x"
one_effect_and_typecheck "Effect 4"

# A throwaway PostgreSQL server on loopback for the program's mirror (as the postgres user when root).
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || fail "PostgreSQL is not installed: run ./scripts/ensure-postgres.sh"
pg=$(mktemp -d "${TMPDIR:-/tmp}/design-search-consumer-pg.XXXXXX")
as=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$pg"; as=(runuser -u postgres --); fi
pg_ctl=("${as[@]}" "$bin/pg_ctl")
cd "$pg" # the postgres user's working directory, one it may read
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
"${as[@]}" "$bin/initdb" -D "$pg/data" -A trust -U postgres --no-sync -E UTF8 >"$pg/initdb.log" 2>&1 ||
  fail "initdb failed: $(tail -n 3 "$pg/initdb.log")"
"${pg_ctl[@]}" -D "$pg/data" -l "$pg/server.log" -w -o "-k $pg -h 127.0.0.1 -p $port -F" start >/dev/null ||
  fail "PostgreSQL did not start: $(tail -n 3 "$pg/server.log")"
"${as[@]}" "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c 'CREATE DATABASE designs' || fail "CREATE DATABASE failed"

cd "$app4"
ran=$(DATABASE_URL="postgres://postgres@127.0.0.1:$port/designs" "$node24" out/program.js) ||
  fail "the README's Effect 4 program failed when run: $ran"
grep -qE '^[1-9][0-9]* registered designs match "chair"$' <<<"$ran" || fail "the Effect 4 program found no chair: $ran"
grep -qE '^mirrored [1-9][0-9]* designs of Wattle in [1-9][0-9]* requests$' <<<"$ran" ||
  fail "the Effect 4 program mirrored nothing: $ran"
PATH="$(dirname "$node24"):$PATH" npx --no-install vitest run sandbox.test.ts ||
  fail "the README's Effect 4 sandbox test failed"

echo "consumer check: passed (Effect 3: ${effect3}; Effect 4: ${compilers}, one copy of effect: ${copies}, the mirror into PostgreSQL)"
