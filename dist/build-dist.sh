#!/usr/bin/env bash
# Builds the release archives from what the reactor has just packaged (`mvn -Pdist package`; each
# app module leaves its jar and its runtime libraries in target/lib). Writes to OUT_DIR:
#   danmaku-edge-agent-VERSION-linux-ARCH.tar.gz   agent jars + a jlinked Java runtime + unit
#   danmaku-sync-server-VERSION.tar.gz             server jars + launcher + unit + example config
#   danmaku-console-VERSION-linux-ARCH.tar.gz      the console as a jpackage app image
# Layout and installation: docs/operations.md, "Install".
# Usage: build-dist.sh ROOT VERSION OUT_DIR
set -euo pipefail

root=$1 version=$2 out=$3
arch=$(uname -m)
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
jdk_bin="$java_home/bin"
stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage"

log() { printf '[dist] %s\n' "$*" >&2; }

# app_jars MODULE DIR: copies MODULE's jar and its runtime libraries into DIR.
app_jars() {
  local module=$1 dir=$2
  local jar="$root/$module/target/$module-$version.jar"
  if [[ ! -f "$jar" || ! -d "$root/$module/target/lib" ]]; then
    echo "build-dist: got no $jar or $root/$module/target/lib; want the reactor to package" \
      "$module first (mvn -Pdist package)" >&2
    exit 1
  fi
  mkdir -p "$dir"
  cp "$jar" "$dir/"
  cp "$root/$module/target/lib/"*.jar "$dir/"
}

# jdk_modules DIR [JDEPS_OPTION...]: the JDK modules the jars in DIR need, comma-separated, plus
# jdk.crypto.ec, a security provider no class names (so jdeps cannot see it) that TLS needs for
# its ECDHE key exchange with a sync server behind https.
jdk_modules() {
  local dir=$1
  shift
  local found
  found=$("$jdk_bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$@" \
    --class-path "$dir/*" "$dir"/*.jar 2>/dev/null | tail -n 1)
  echo "$found,jdk.crypto.ec"
}

# archive NAME DIR: DIR's parent/NAME.tar.gz, with DIR's base name as the top directory.
archive() {
  local name=$1 dir=$2
  tar -C "$(dirname "$dir")" -czf "$out/$name.tar.gz" "$(basename "$dir")"
  log "$out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"
}

docs() {
  mkdir -p "$1/docs"
  cp "$root/docs/operations.md" "$root/README.md" "$1/docs/"
  cp "$root/docs/$2" "$1/docs/"
}

edge_agent() {
  local name="danmaku-edge-agent-$version"
  local dir="$stage/$name"
  app_jars edge-agent "$dir/lib"
  local modules
  modules=$(jdk_modules "$dir/lib")
  log "edge agent: jlink $modules"
  "$jdk_bin/jlink" --add-modules "$modules" --output "$dir/runtime" \
    --strip-debug --no-header-files --no-man-pages --compress=2
  install -D -m 0755 "$root/packaging/launchers/edge-agent" "$dir/bin/edge-agent"
  install -D -m 0644 "$root/packaging/systemd/danmaku-edge-agent.service" \
    "$dir/systemd/danmaku-edge-agent.service"
  install -D -m 0644 "$root/packaging/systemd/danmaku-ledger.sysusers" \
    "$dir/systemd/danmaku-ledger.sysusers"
  install -D -m 0644 "$root/packaging/config/edge-agent.env" "$dir/config/edge-agent.env"
  docs "$dir" edge-agent.md
  archive "$name-linux-$arch" "$dir"
}

sync_server() {
  local name="danmaku-sync-server-$version"
  local dir="$stage/$name"
  app_jars sync-server "$dir/lib"
  install -D -m 0755 "$root/packaging/launchers/sync-server" "$dir/bin/sync-server"
  install -D -m 0644 "$root/packaging/systemd/danmaku-sync-server.service" \
    "$dir/systemd/danmaku-sync-server.service"
  install -D -m 0644 "$root/packaging/systemd/danmaku-ledger.sysusers" \
    "$dir/systemd/danmaku-ledger.sysusers"
  install -D -m 0644 "$root/packaging/config/sync-server.env" "$dir/config/sync-server.env"
  docs "$dir" sync-server.md
  archive "$name" "$dir"
}

# The console's JavaFX jars (the "-linux" ones hold the classes and native libraries; the plain
# ones are empty placeholders) are linked into its runtime as modules; the rest is its class path.
console() {
  local name="danmaku-console-$version"
  local jars="$stage/console-jars" fx="$stage/console-fx" dir="$stage/$name"
  app_jars desktop-ui "$jars"
  mkdir -p "$fx"
  mv "$jars"/javafx-*-linux.jar "$fx/"
  rm -f "$jars"/javafx-*.jar
  local modules
  modules=$(jdk_modules "$jars" --module-path "$fx" --add-modules ALL-MODULE-PATH)
  modules="$modules,javafx.controls,javafx.swing"
  log "console: jpackage app image with $modules"
  mkdir -p "$dir"
  "$jdk_bin/jpackage" --type app-image --name danmaku-console --dest "$dir" \
    --app-version "${version%%-*}" \
    --input "$jars" --main-jar "desktop-ui-$version.jar" \
    --main-class dev.danmakuledger.ui.app.Main \
    --module-path "$fx" --add-modules "$modules" \
    --jlink-options "--strip-debug --no-header-files --no-man-pages --compress=2"
  docs "$dir" console.md
  archive "$name-linux-$arch" "$dir"
}

edge_agent
sync_server
console
