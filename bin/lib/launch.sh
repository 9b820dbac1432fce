# Sourced by the launchers in bin/. Builds a module (and the modules it depends on) with
# Maven on first use or when one of their sources changed, then the launcher runs it.
# The user's working directory is left alone, so relative paths in arguments work.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# ensure_built NAME EXIT_CODE MODULE [MODULE_IT_DEPENDS_ON...]
#   NAME       the command, for messages
#   EXIT_CODE  what to exit with when it cannot be built
ensure_built() {
  local name=$1 fail=$2 module=$3
  shift 3
  local target="$root/$module/target"
  # Started by an integration test inside `mvn verify`: the package phase has just built it.
  [[ -n "${DANMAKU_LAUNCHER_PREBUILT:-}" && -d "$target/lib" ]] && return 0
  local stamp="$target/.launcher-built"
  local paths=("$root/pom.xml")
  local m
  for m in "$module" "$@"; do paths+=("$root/$m/src/main" "$root/$m/pom.xml"); done
  # Built by this launcher (the stamp) or by a Maven package run (target/lib is written last).
  local ref="$stamp"
  [[ -f "$stamp" ]] || ref="$target/lib"
  if [[ -d "$target/classes" && -d "$target/lib" ]] &&
    [[ -z "$(find "${paths[@]}" -newer "$ref" -type f -print -quit 2>/dev/null)" ]]; then
    return 0
  fi
  local build="mvn -q -pl $module -am package -DskipTests"
  if ! command -v mvn >/dev/null 2>&1; then
    echo "$name: not built and mvn is not on PATH; install Maven 3.8+ and run: $build" >&2
    exit "$fail"
  fi
  echo "$name: building ($build) ..." >&2
  if ! (cd "$root" && $build -Dspotless.check.skip=true >&2); then
    echo "$name: build failed; run it yourself to see why: (cd $root && $build)" >&2
    exit "$fail"
  fi
  touch "$stamp"
}

# module_classpath MODULE: its classes and runtime libraries, for java -cp
module_classpath() {
  echo "$root/$1/target/classes:$root/$1/target/lib/*"
}
