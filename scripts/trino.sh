#!/usr/bin/env bash
# A single-node Trino 476 for Junction's tests and benchmarks, kept inside the repository.
#   bash scripts/trino.sh start    install when needed, configure, start, wait until it serves
#   bash scripts/trino.sh stop     stop it (and wait until it has)
#   bash scripts/trino.sh status   say whether it runs and serves; exit 0 only when it serves
# Environment:
#   TRINO_PORT       HTTP port (default 8088); the URL is http://127.0.0.1:$TRINO_PORT (it listens
#                    on the loopback interface only: it has no authentication)
#   TRINO_HEAP       JVM heap (default 4G: the tests' PostgreSQL, MariaDB, Node and Chromium
#                    share a 2-core, 24 GiB machine with it)
#   TRINO_JAVA_HOME  the JDK (default /usr/lib/jvm/temurin-25-jdk-amd64; Trino 476 needs 24+)
#   TRINO_START_TIMEOUT  seconds to wait for it to serve (default 240)
# Everything lives under node_modules/.cache/junction/trino (git-ignored): the tarball,
# the unpacked server, its etc/, its data (logs, pid) and the catalogs created at run time
# with CREATE CATALOG (catalog.store=file), so they survive a restart.
set -euo pipefail

VERSION=476
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/node_modules/.cache/junction/trino"
TARBALL="$CACHE/trino-server-$VERSION.tar.gz"
URL="https://repo1.maven.org/maven2/io/trino/trino-server/$VERSION/trino-server-$VERSION.tar.gz"
HOME_DIR="$CACHE/trino-server-$VERSION"
DATA_DIR="$CACHE/data"
CATALOG_DIR="$CACHE/catalog"
PORT="${TRINO_PORT:-8088}"
HEAP="${TRINO_HEAP:-4G}"
JAVA_HOME_DIR="${TRINO_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
START_TIMEOUT="${TRINO_START_TIMEOUT:-240}"
# Only the connectors Junction maps sources to, geospatial (the postgresql connector will not
# load without its Geometry type) and tpch (a data generator the tests use for a query that
# runs long enough to cancel): the other ~45 plugins would slow every start.
PLUGINS=(postgresql mysql mariadb sqlserver geospatial tpch)

say() { printf '[trino] %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

launcher() { JAVA_HOME="$JAVA_HOME_DIR" PATH="$JAVA_HOME_DIR/bin:$PATH" "$HOME_DIR/bin/launcher" --etc-dir "$HOME_DIR/etc" --data-dir "$DATA_DIR" "$@"; }

# Prints the port a running server was configured with (config.properties), else $PORT.
configured_port() {
  local p
  p="$(sed -n 's/^http-server\.http\.port=//p' "$HOME_DIR/etc/config.properties" 2>/dev/null || true)"
  printf '%s' "${p:-$PORT}"
}

# 0 when GET /v1/info answers with "starting":false.
serving() {
  local body
  body="$(curl -fsS --max-time 3 "http://127.0.0.1:$1/v1/info" 2>/dev/null)" || return 1
  [[ "$body" == *'"starting":false'* ]]
}

running() { [[ -x "$HOME_DIR/bin/launcher" ]] && launcher status >/dev/null 2>&1; }

download() {
  mkdir -p "$CACHE"
  say "downloading $URL"
  local expected actual
  expected="$(curl -fsSL --retry 3 "$URL.sha1" | tr -d '[:space:]')" || die "cannot read $URL.sha1"
  [[ "$expected" =~ ^[0-9a-f]{40}$ ]] || die "unexpected checksum file at $URL.sha1: '$expected'"
  curl -fL --retry 3 -o "$TARBALL.part" "$URL" || die "download failed: $URL"
  actual="$(sha1sum "$TARBALL.part" | cut -d' ' -f1)"
  if [[ "$actual" != "$expected" ]]; then
    rm -f "$TARBALL.part"
    die "checksum mismatch for $URL: expected $expected, got $actual"
  fi
  mv "$TARBALL.part" "$TARBALL"
}

install() {
  [[ "$(cat "$HOME_DIR/.junction-installed" 2>/dev/null)" == "${PLUGINS[*]}" ]] && return 0
  [[ -f "$TARBALL" ]] || download
  say "unpacking $(basename "$TARBALL") (plugins: ${PLUGINS[*]})"
  local tmp="$CACHE/unpack.$$" keep dir p
  rm -rf "$tmp" && mkdir -p "$tmp"
  # Whole tarball, then the unwanted plugins removed: the plugins share jars as hard links
  # into each other's folders, so extracting a few of them alone fails.
  tar -xzf "$TARBALL" -C "$tmp" || { rm -rf "$tmp"; die "cannot unpack $TARBALL"; }
  for dir in "$tmp/trino-server-$VERSION/plugin/"*/; do
    keep=0
    for p in "${PLUGINS[@]}"; do [[ "$(basename "$dir")" == "$p" ]] && keep=1; done
    ((keep)) || rm -rf "$dir"
  done
  rm -rf "$HOME_DIR"
  mv "$tmp/trino-server-$VERSION" "$HOME_DIR"
  rmdir "$tmp"
  printf '%s' "${PLUGINS[*]}" >"$HOME_DIR/.junction-installed"
}

# Heap in MiB, from the JVM's notation (4G, 4096M).
heap_mb() {
  local n="${HEAP%[GgMm]}" unit="${HEAP: -1}"
  [[ "$n" =~ ^[0-9]+$ ]] || die "TRINO_HEAP must look like 4G or 4096M, not '$HEAP'"
  case "$unit" in G | g) echo $((n * 1024)) ;; M | m) echo "$n" ;; *) die "TRINO_HEAP must end in G or M, not '$HEAP'" ;; esac
}

configure() {
  local heap query_mb headroom_mb
  heap="$(heap_mb)"
  # Trino refuses to start unless per-node query memory + headroom fits in the heap.
  headroom_mb=$((heap * 3 / 10))
  query_mb=$((heap - headroom_mb - heap / 10))
  mkdir -p "$HOME_DIR/etc" "$DATA_DIR" "$CATALOG_DIR"
  # an earlier version of this script made data/etc a directory: the launcher wants its symlink
  if [[ -d "$DATA_DIR/etc" && ! -L "$DATA_DIR/etc" ]]; then rm -rf "$DATA_DIR/etc"; fi
  cat >"$HOME_DIR/etc/node.properties" <<EOF
node.environment=junction
node.id=junction-trino-single
node.data-dir=$DATA_DIR
node.bind-ip=127.0.0.1
EOF
  cat >"$HOME_DIR/etc/jvm.config" <<EOF
-server
-Xms$HEAP
-Xmx$HEAP
-XX:G1HeapRegionSize=32M
-XX:+ExplicitGCInvokesConcurrent
-XX:+ExitOnOutOfMemoryError
-XX:+HeapDumpOnOutOfMemoryError
-XX:HeapDumpPath=$DATA_DIR
-XX:-OmitStackTraceInFastThrow
-XX:ReservedCodeCacheSize=256M
-XX:PerMethodRecompilationCutoff=10000
-XX:PerBytecodeRecompilationCutoff=10000
-Djdk.attach.allowAttachSelf=true
-Djdk.nio.maxCachedBufferSize=2000000
-Dfile.encoding=UTF-8
-Duser.timezone=UTC
-XX:+EnableDynamicAgentLoading
--sun-misc-unsafe-memory-access=allow
--enable-native-access=ALL-UNNAMED
-Djava.io.tmpdir=$DATA_DIR/tmp
EOF
  mkdir -p "$DATA_DIR/tmp"
  cat >"$HOME_DIR/etc/config.properties" <<EOF
coordinator=true
node-scheduler.include-coordinator=true
http-server.http.port=$PORT
discovery.uri=http://127.0.0.1:$PORT
node.internal-address=127.0.0.1
catalog.management=dynamic
catalog.store=file
query.max-memory=${query_mb}MB
query.max-memory-per-node=${query_mb}MB
memory.heap-headroom-per-node=${headroom_mb}MB
EOF
  # Trino reads the store's own settings from etc/catalog-store.properties relative to its
  # working directory, the data directory, whose etc the launcher makes a symlink to this etc
  # (it refuses to start when data/etc is anything else: never create it here)
  printf 'catalog.config-dir=%s\n' "$CATALOG_DIR" >"$HOME_DIR/etc/catalog-store.properties"
  cat >"$HOME_DIR/etc/log.properties" <<EOF
io.trino=INFO
EOF
}

wait_serving() {
  local port="$1" started=$SECONDS
  while ((SECONDS - started < START_TIMEOUT)); do
    if serving "$port"; then
      say "serving on http://127.0.0.1:$port (waited $((SECONDS - started))s)"
      return 0
    fi
    running || die "Trino exited while starting; see $DATA_DIR/var/log/server.log"
    sleep 1
  done
  die "Trino did not serve within ${START_TIMEOUT}s; see $DATA_DIR/var/log/server.log"
}

start() {
  [[ -x "$JAVA_HOME_DIR/bin/java" ]] || die "no JDK at $JAVA_HOME_DIR (set TRINO_JAVA_HOME to a Java 24+ JDK)"
  if running && [[ "$(cat "$HOME_DIR/.junction-installed" 2>/dev/null)" != "${PLUGINS[*]}" ]]; then
    say 'the installed plugins changed: restarting'
    stop
  fi
  install
  if running; then
    local port
    port="$(configured_port)"
    [[ "$port" == "$PORT" ]] || say "already running on port $port (TRINO_PORT=$PORT ignored; stop it first to change)"
    wait_serving "$port"
    return 0
  fi
  if curl -fsS --max-time 2 "http://127.0.0.1:$PORT/" >/dev/null 2>&1 || (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    die "port $PORT is taken by another process; set TRINO_PORT"
  fi
  configure
  # the server must not inherit the lock (fd 9), or it would hold it for as long as it runs
  launcher start >/dev/null 9>&-
  wait_serving "$PORT"
}

stop() {
  if [[ ! -x "$HOME_DIR/bin/launcher" ]] || ! running; then
    say 'not running'
    return 0
  fi
  launcher stop >/dev/null 9>&-
  say 'stopped'
}

status() {
  if running; then
    local port
    port="$(configured_port)"
    if serving "$port"; then
      say "running, serving on http://127.0.0.1:$port"
      return 0
    fi
    say "running, not serving yet on port $port"
    return 1
  fi
  say 'not running'
  return 3
}

# One start or stop at a time: test files running in parallel may each call start, and a second
# install would replace the server under the first one's running Trino.
lock() {
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
}

case "${1:-}" in
  start) lock && start ;;
  stop) lock && stop ;;
  status) status ;;
  *) die "usage: bash scripts/trino.sh start|stop|status" ;;
esac
