#!/usr/bin/env bash
# The fleet tests and benchmark start a real `redis-server` on loopback. Installs Debian's package
# when the machine has none (as root, or through sudo); does nothing when one is on the PATH.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "redis-server is missing and apt-get is not available: install Redis 6.2 or later" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing redis-server (Debian package)" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends redis-server >/dev/null
# the package starts a system service on port 6379; the tests start their own
command -v redis-server >/dev/null
