# Sourced by the launchers in bin/. Builds a module (and the project modules it depends on, read
# from the POMs) with Maven on first use or when one of their sources changed, then runs it.
# The user's working directory is left alone, so relative paths in arguments work.
#
# Every launcher takes JVM options from <TOOL>_JAVA_OPTS, TOOL being its name in upper case with
# '-' as '_': DEMO_JAVA_OPTS, BENCH_JAVA_OPTS, EDGE_AGENT_JAVA_OPTS, SYNC_SERVER_JAVA_OPTS,
# CONSOLE_JAVA_OPTS, TLOG_JAVA_OPTS (docs/operations.md, "JVM options").

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# What a launcher runs with when <TOOL>_JAVA_OPTS is unset (a launcher may set it before launch).
DEFAULT_JAVA_OPTS=()

# pom_project_deps MODULE: the project modules MODULE's pom.xml depends on outside test scope,
# one a line (a project module's directory is its artifactId).
pom_project_deps() {
  tr -d '\r\n' <"$root/$1/pom.xml" |
    sed 's#</dependency>#\n#g' |
    grep '<dependency>' |
    sed 's#.*<dependency>##' |
    grep '<groupId>dev.danmakuledger</groupId>' |
    grep -v '<scope>test</scope>' |
    sed -n 's#.*<artifactId>\([^<]*\)</artifactId>.*#\1#p'
}

# module_closure MODULE: MODULE and every project module it depends on, transitively, one a line.
module_closure() {
  local -A seen=()
  local todo=("$1") m d
  while ((${#todo[@]})); do
    m=${todo[0]}
    todo=("${todo[@]:1}")
    [[ -n "${seen[$m]:-}" ]] && continue
    seen[$m]=1
    echo "$m"
    while read -r d; do
      [[ -n "$d" ]] && todo+=("$d")
    done < <(pom_project_deps "$m")
  done
}

# ensure_built NAME EXIT_CODE MODULE
#   NAME       the command, for messages
#   EXIT_CODE  what to exit with when it cannot be built
ensure_built() {
  local name=$1 fail=$2 module=$3
  local target="$root/$module/target"
  # Started by an integration test inside `mvn verify`: the package phase has just built it.
  [[ -n "${DANMAKU_LAUNCHER_PREBUILT:-}" && -d "$target/lib" ]] && return 0
  local stamp="$target/.launcher-built"
  local paths=("$root/pom.xml")
  local m
  while read -r m; do paths+=("$root/$m/src/main" "$root/$m/pom.xml"); done < <(module_closure "$module")
  # Built by this launcher (the stamp) or by a Maven package run, which rewrites
  # target/runtime-classpath.txt last (the app profile of the parent pom.xml): the newer counts.
  local ref="$target/runtime-classpath.txt"
  [[ -f "$ref" ]] || ref="$target/lib"
  [[ -f "$stamp" && "$stamp" -nt "$ref" ]] && ref="$stamp"
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
  if ! (cd "$root" && $build -B -Dspotless.check.skip=true >&2); then
    echo "$name: build failed; run it yourself to see why: (cd $root && $build)" >&2
    exit "$fail"
  fi
  touch "$stamp"
}

# module_classpath MODULE: its classes and runtime libraries, for java -cp
module_classpath() {
  echo "$root/$1/target/classes:$root/$1/target/lib/*"
}

# java_opts NAME [DEFAULT...]: sets the array JAVA_OPTS_OF_TOOL from <NAME>_JAVA_OPTS (split on
# blanks), or to DEFAULT when that variable is unset.
java_opts() {
  local var
  var="$(echo "$1" | tr 'a-z-' 'A-Z_')_JAVA_OPTS"
  shift
  if [[ -n "${!var+set}" ]]; then
    read -r -a JAVA_OPTS_OF_TOOL <<<"${!var}"
  else
    JAVA_OPTS_OF_TOOL=("$@")
  fi
}

# launch NAME EXIT_CODE MODULE [JVM_FLAG...] -- MAIN_CLASS [ARG...]: builds MODULE if needed and
# runs MAIN_CLASS on its class path with <NAME>_JAVA_OPTS, then the launcher's own JVM flags.
launch() {
  local name=$1 fail=$2 module=$3
  shift 3
  local flags=()
  while (($#)) && [[ $1 != -- ]]; do
    flags+=("$1")
    shift
  done
  if (($# < 2)); then
    echo "launch: got no '-- MAIN_CLASS' for $name, want one" >&2
    exit "$fail"
  fi
  shift
  local main=$1
  shift
  ensure_built "$name" "$fail" "$module"
  java_opts "$name" "${DEFAULT_JAVA_OPTS[@]}"
  exec java "${JAVA_OPTS_OF_TOOL[@]}" "${flags[@]}" -cp "$(module_classpath "$module")" "$main" "$@"
}
