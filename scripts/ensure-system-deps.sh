#!/usr/bin/env bash
# Installs what tabpilot needs from the system's packages when it is missing: Debian's chromium and
# chromium-driver (branded Google Chrome ignores --load-extension since version 137); with --for-tests
# also Node.js for the extension's tests and docker-compose to check docker-compose.yml. Does nothing
# when all are present.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
if [ "${1:-}" = "--for-tests" ]; then
  command -v node >/dev/null 2>&1 || need+=(nodejs)
  command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
fi
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "tabpilot needs: ${need[*]}. Install them with your system's package manager." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "tabpilot needs: ${need[*]}. Run as root: apt-get install ${need[*]}" >&2
    exit 1
  fi
fi
echo "Installing ${need[*]} with apt-get…"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
