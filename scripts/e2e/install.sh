#!/usr/bin/env bash
# Installs the real services the end-to-end tests run against:
#   - Prometheus and promtool (Debian package),
#   - Jaeger v2 (built from the Go module at a pinned version),
#   - an OpenTelemetry Collector built by the Collector Builder from
#     scripts/e2e/otelcol-builder.yaml.
#
# Idempotent: every binary lands in $LOOPGUARD_CACHE/bin (default
# ~/.cache/loopguard/bin) next to a .version stamp; a step is skipped when the
# stamp matches what this script would build. Go's module and build caches
# stay at their defaults so a rebuild after a stamp change is incremental.
#
# Usage: scripts/e2e/install.sh [prometheus] [jaeger] [otelcol]   (default: all)
# Exits non-zero with the failing command's own output when a step fails.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${LOOPGUARD_CACHE:-$HOME/.cache/loopguard}"
BIN="$CACHE/bin"
LOGS="$CACHE/logs"

JAEGER_MODULE="github.com/jaegertracing/jaeger"
JAEGER_VERSION="v1.76.0"
# The builder release must equal the core component versions in the manifest.
OCB_MODULE="go.opentelemetry.io/collector/cmd/builder"
OCB_VERSION="v0.161.0"
OCB_MANIFEST="$HERE/otelcol-builder.yaml"
OTELCOL_NAME="otelcol-loopguard"

mkdir -p "$BIN" "$LOGS"

log() { printf '[e2e-install] %s\n' "$*" >&2; }

fail() {
  log "ERROR: $*"
  exit 1
}

# Runs a command with its output in a log file; on failure prints the output
# (the exact error) and exits.
run_logged() {
  local logfile="$1"
  shift
  if ! "$@" >>"$logfile" 2>&1; then
    log "command failed: $*"
    log "---- output (last 120 lines of $logfile) ----"
    tail -n 120 "$logfile" >&2
    log "---- end of output ----"
    exit 1
  fi
}

stamp_matches() { [[ -x "$BIN/$1" && -f "$BIN/$1.version" && "$(cat "$BIN/$1.version")" == "$2" ]]; }

record_build_time() {
  local what="$1" seconds="$2"
  log "built $what in ${seconds}s (cold when Go's module and build caches were empty)"
  printf '%s\t%s\t%ss\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$what" "$seconds" >>"$CACHE/build-times.tsv"
}

require_go() {
  command -v go >/dev/null 2>&1 || fail "go is not on PATH; the Jaeger and Collector builds need a Go toolchain (>= the 'go' line of their go.mod)"
  # Module downloads go through the configured module proxy only, never a VCS.
  local proxy
  proxy="$(go env GOPROXY)"
  proxy="${proxy%,direct}"
  proxy="${proxy%|direct}"
  [[ "$proxy" == "direct" || "$proxy" == "off" || -z "$proxy" ]] && fail "GOPROXY=$(go env GOPROXY): the builds need a Go module proxy"
  export GOPROXY="$proxy"
  export CGO_ENABLED=0
  export GOFLAGS="${GOFLAGS:-} -mod=mod"
}

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else fail "need root (or passwordless sudo) to run: $*"
  fi
}

# ---------------------------------------------------------------- Prometheus
install_prometheus() {
  local logfile="$LOGS/prometheus-install.log"
  if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || fail "prometheus/promtool are not installed and apt-get is not available to install them"
    : >"$logfile"
    local start=$SECONDS
    # (captured first: grep -q closing the pipe early would fail under pipefail)
    local policy_out
    policy_out="$(apt-cache policy prometheus 2>&1 || true)"
    if ! grep -q 'Candidate: [0-9]' <<<"$policy_out"; then
      log "apt has no candidate for prometheus; running apt-get update"
      run_logged "$logfile" as_root apt-get update
      policy_out="$(apt-cache policy prometheus 2>&1 || true)"
    fi
    grep -q 'Candidate: [0-9]' <<<"$policy_out" \
      || fail "apt-cache policy prometheus shows no installable candidate: $(tr '\n' ' ' <<<"$policy_out")"
    # The package's maintainer scripts start a prometheus service where an init
    # system runs; tests start their own instance, so forbid service starts
    # during the install (policy-rc.d exit 101 = "action not allowed").
    local policy=/usr/sbin/policy-rc.d policy_added=0
    if [[ ! -e "$policy" ]]; then
      as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
      policy_added=1
    fi
    log "installing prometheus from Debian packages"
    local rc=0
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus >>"$logfile" 2>&1 || rc=$?
    [[ $policy_added == 1 ]] && as_root rm -f "$policy"
    if [[ $rc != 0 ]]; then
      log "apt-get install prometheus failed (exit $rc):"
      tail -n 60 "$logfile" >&2
      exit 1
    fi
    stop_packaged_prometheus
    record_build_time "prometheus (apt-get install)" $((SECONDS - start))
  fi
  stop_packaged_prometheus
  ln -sf "$(command -v prometheus)" "$BIN/prometheus"
  ln -sf "$(command -v promtool)" "$BIN/promtool"
  local version
  version="$("$BIN/prometheus" --version 2>&1 | sed -n 's/^prometheus, version \([^ ]*\).*/\1/p')"
  printf 'prometheus %s (Debian package)' "$version" >"$BIN/prometheus.version"
  printf 'promtool %s (Debian package)' "$version" >"$BIN/promtool.version"
}

# Makes sure no service instance from the package keeps running or listening.
stop_packaged_prometheus() {
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    for unit in prometheus prometheus-node-exporter; do
      if systemctl is-active --quiet "$unit" 2>/dev/null || systemctl is-enabled --quiet "$unit" 2>/dev/null; then
        log "stopping and disabling the packaged $unit service"
        as_root systemctl disable --now "$unit" >/dev/null 2>&1 || true
      fi
    done
  elif [[ -x /etc/init.d/prometheus ]] && /etc/init.d/prometheus status >/dev/null 2>&1; then
    log "stopping the packaged prometheus service"
    as_root /etc/init.d/prometheus stop >/dev/null 2>&1 || true
  fi
  # The packaged service runs as the 'prometheus' user with the Debian config.
  local pids
  pids="$(pgrep -u prometheus -x prometheus 2>/dev/null || true)"
  if [[ -n "$pids" ]]; then
    log "stopping packaged prometheus process(es): $pids"
    # shellcheck disable=SC2086
    as_root kill $pids || true
  fi
}

# -------------------------------------------------------------------- Jaeger
install_jaeger() {
  require_go
  local stamp="$JAEGER_MODULE/cmd/jaeger@$JAEGER_VERSION $(go env GOVERSION)"
  if stamp_matches jaeger "$stamp"; then
    log "jaeger: cached ($stamp)"
    return
  fi
  local logfile="$LOGS/jaeger-build.log" work="$CACHE/build/jaeger-$JAEGER_VERSION"
  : >"$logfile"
  local start=$SECONDS
  log "building jaeger $JAEGER_VERSION (log: $logfile)"
  mkdir -p "$work"

  # `go install module@version` refuses modules with replace directives, so the
  # binary is built from a small module of our own that requires Jaeger and
  # repeats Jaeger's replace directives (read from its go.mod in the module cache).
  local info gomod
  info="$(go mod download -json "$JAEGER_MODULE@$JAEGER_VERSION" 2>>"$logfile")" \
    || { printf '%s\n' "$info" >&2; cat "$logfile" >&2; fail "go mod download $JAEGER_MODULE@$JAEGER_VERSION failed (output above)"; }
  gomod="$(printf '%s' "$info" | go_json_field GoMod)"
  [[ -f "$gomod" ]] || fail "go mod download did not report Jaeger's go.mod (got: $info)"

  local godirective
  godirective="$(go mod edit -json "$gomod" | go_json_go_version)"
  rm -f "$work/go.mod" "$work/go.sum"
  (
    cd "$work"
    run_logged "$logfile" go mod init loopguard.local/jaeger-build
    run_logged "$logfile" go mod edit -go="$godirective" -require="$JAEGER_MODULE@$JAEGER_VERSION"
    local replace
    while IFS= read -r replace; do
      [[ -z "$replace" ]] && continue
      case "${replace#*=}" in
        .* | /*) fail "Jaeger's go.mod replaces with a local path ($replace); this cannot be reproduced outside its repository" ;;
      esac
      log "copying replace directive: $replace"
      run_logged "$logfile" go mod edit -replace="$replace"
    done < <(go mod edit -json "$gomod" | go_json_replaces)
    run_logged "$logfile" go get "$JAEGER_MODULE/cmd/jaeger@$JAEGER_VERSION"
    run_logged "$logfile" go build -trimpath \
      -ldflags "-s -w -X $JAEGER_MODULE/internal/version.latestVersion=$JAEGER_VERSION" \
      -o "$BIN/jaeger.tmp" "$JAEGER_MODULE/cmd/jaeger"
  )
  mv -f "$BIN/jaeger.tmp" "$BIN/jaeger"
  printf '%s' "$stamp" >"$BIN/jaeger.version"
  record_build_time "jaeger $JAEGER_VERSION" $((SECONDS - start))
}

# JSON helpers that only need `go`'s own output and node (present for the tests).
go_json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{process.stdout.write(String(JSON.parse(s)[process.argv[1]]??""))})' "$1"; }
go_json_go_version() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{process.stdout.write(JSON.parse(s).Go)})'; }
go_json_replaces() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      for (const r of JSON.parse(s).Replace ?? []) {
        const side = (m) => (m.Version ? `${m.Path}@${m.Version}` : m.Path);
        console.log(`${side(r.Old)}=${side(r.New)}`);
      }
    });'
}

# ------------------------------------------------------ OpenTelemetry Collector
install_otelcol() {
  require_go
  [[ -f "$OCB_MANIFEST" ]] || fail "builder manifest not found: $OCB_MANIFEST"
  local manifest_hash stamp
  manifest_hash="$(sha256sum "$OCB_MANIFEST" | cut -c1-16)"
  stamp="$OCB_MODULE@$OCB_VERSION manifest:$manifest_hash $(go env GOVERSION)"
  if stamp_matches "$OTELCOL_NAME" "$stamp"; then
    log "$OTELCOL_NAME: cached ($stamp)"
    return
  fi
  local logfile="$LOGS/otelcol-build.log" work="$CACHE/build/otelcol"
  : >"$logfile"
  local start=$SECONDS
  log "building $OTELCOL_NAME with the Collector Builder $OCB_VERSION (log: $logfile)"

  local ocb="$CACHE/tools/builder-$OCB_VERSION"
  if [[ ! -x "$ocb" ]]; then
    mkdir -p "$CACHE/tools/gobin-ocb"
    run_logged "$logfile" env GOBIN="$CACHE/tools/gobin-ocb" go install "$OCB_MODULE@$OCB_VERSION"
    mv -f "$CACHE/tools/gobin-ocb/builder" "$ocb"
  fi

  # The manifest's output_path is relative: run the builder inside the cache so
  # the generated sources never land in the repository.
  rm -rf "$work"
  mkdir -p "$work"
  (cd "$work" && run_logged "$logfile" "$ocb" --config "$OCB_MANIFEST" --ldflags "-s -w" --verbose)
  local out
  out="$(cd "$work" && sed -n 's/^ *output_path: *//p' "$OCB_MANIFEST")"
  out="$work/${out#./}"
  [[ -x "$out/$OTELCOL_NAME" ]] || fail "the builder finished but $out/$OTELCOL_NAME is missing (see $logfile)"
  mv -f "$out/$OTELCOL_NAME" "$BIN/$OTELCOL_NAME"
  printf '%s' "$stamp" >"$BIN/$OTELCOL_NAME.version"
  record_build_time "$OTELCOL_NAME ($OCB_VERSION)" $((SECONDS - start))
}

# ---------------------------------------------------------------------- main
steps=("$@")
[[ ${#steps[@]} == 0 ]] && steps=(prometheus jaeger otelcol)
for step in "${steps[@]}"; do
  case "$step" in
    prometheus) install_prometheus ;;
    jaeger) install_jaeger ;;
    otelcol) install_otelcol ;;
    *) fail "unknown step '$step' (expected: prometheus, jaeger, otelcol)" ;;
  esac
done
log "binaries in $BIN:"
for b in prometheus promtool jaeger "$OTELCOL_NAME"; do
  [[ -e "$BIN/$b" ]] && log "  $b: $(cat "$BIN/$b.version" 2>/dev/null || true)"
done
if [[ -f "$CACHE/build-times.tsv" ]]; then
  log "build times recorded in $CACHE/build-times.tsv (the first entry of each is the cold build):"
  while IFS= read -r line; do log "  $line"; done <"$CACHE/build-times.tsv"
fi
exit 0
