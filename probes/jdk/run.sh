#!/usr/bin/env bash
# Compiles and runs a Java probe (default PhaseProbe) on a JDK 25, found in JAVA_HOME or else
# under /usr/lib/jvm. Without a JDK 25 it says so and exits 0: the comparison is skipped,
# never failed.
#
#   probes/jdk/run.sh [ProbeClass [args...]]
#   probes/jdk/run.sh --home     prints the JDK 25's folder and runs nothing (prints nothing,
#                                exit 0, without one): the one place that looks for it
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
class=${1:-PhaseProbe}
shift || true
probes() { (cd "$here" && ls -- *.java | sed 's/\.java$//' | paste -sd' '); }
case $class in
  -h | --help) echo "probes/jdk/run.sh [ProbeClass [args...]] | --home, ProbeClass one of: $(probes)"; exit 0 ;;
esac
if [ "$class" != --home ] && [ ! -f "$here/$class.java" ]; then
  echo "run.sh: no probe '$class' in probes/jdk; the probes are: $(probes)" >&2
  exit 2
fi

is_25() { [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && "$1/bin/java" -version 2>&1 | grep -q 'version "25'; }
jdk=""
if [ -n "${JAVA_HOME:-}" ] && is_25 "$JAVA_HOME"; then
  jdk=$JAVA_HOME
else
  for d in /usr/lib/jvm/*; do
    if is_25 "$d"; then jdk=$d; break; fi
  done
fi
if [ "$class" = --home ]; then
  [ -n "$jdk" ] && echo "$jdk"
  exit 0
fi
if [ -z "$jdk" ]; then
  echo "jdk: no JDK 25 found (JAVA_HOME=${JAVA_HOME:-unset}, /usr/lib/jvm): the JDK comparison is skipped"
  exit 0
fi
out=${JDK_PROBE_OUT:-$here/../../target/jdk-probes}
mkdir -p "$out"
"$jdk/bin/javac" -d "$out" "$here/$class.java"
# The CPU, as the Rust probes' `machine` label names it (their figures sit beside these).
cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
echo "# $class on $("$jdk/bin/java" -version 2>&1 | head -1) ($jdk), ${cpu:-CPU unknown}"
exec "$jdk/bin/java" --add-opens java.base/java.util.concurrent=ALL-UNNAMED -cp "$out" "$class" "$@"
