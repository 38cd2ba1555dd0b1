#!/usr/bin/env bash
# The mirror's tests start a throwaway PostgreSQL server on loopback (initdb into a temporary folder).
# Installs Debian's package when the machine has none (as root, or through sudo); does nothing when
# its binaries are there.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL is missing and apt-get is not available: install PostgreSQL 13 or later" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing postgresql (Debian package)" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
# the package may start a system cluster on port 5432; the tests start their own
ls /usr/lib/postgresql/*/bin/initdb >/dev/null
