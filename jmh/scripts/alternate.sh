#!/usr/bin/env bash
# Runs OnTimeHarness parts in alternating JVMs, one per part, variant and round, and appends one line per result to
# OUT, prefixed with the JDK, the round, the variant, the part's arguments and the host's steal time (ticks of 10 ms
# read from /proc/stat around the JVM: what other guests of the host took from this machine meanwhile).
#
#   jmh/scripts/alternate.sh OUT ROUNDS JDK "VARIANT ..." "PART ARGS;PART ARGS;..."
#
# JDK: 17 or 25 (the machine's OpenJDK 17 and Temurin 25). A VARIANT is one of
#   stpe               ScheduledThreadPoolExecutor, from the default jar
#   tw                 TimingWheelExecutor, from the default jar
#   NAME=JAR           TimingWheelExecutor from another benchmarks jar (a build of another commit)
#   NAME=JAR@PROPS     the same with JVM system properties, comma-separated (e.g. x=y,z=w)
# The default jar is jmh/target/benchmarks.jar, or $JAR. Summarise with jmh/scripts/medians.py OUT.
# Example (the burst and the cold start, STPE against TW and a build of an earlier commit, 5 rounds, JDK 17):
#   jmh/scripts/alternate.sh /tmp/ot.txt 5 17 "stpe tw base=/tmp/base.jar" "burst 1;cold 1"
set -euo pipefail
out=$1; rounds=$2; jdk=$3; variants=$4; parts=$5
case $jdk in
  17) JAVA=${JAVA17:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java} ;;
  25) JAVA=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java} ;;
  *) echo "JDK must be 17 or 25" >&2; exit 2 ;;
esac
default_jar=${JAR:-$(dirname "$0")/../target/benchmarks.jar}
IFS=';' read -ra PARTS <<< "$parts"
steal() { awk '/^cpu /{print $9}' /proc/stat; }
for r in $(seq 1 "$rounds"); do
  for part in "${PARTS[@]}"; do
    read -ra words <<< "$part"
    for v in $variants; do
      jar=$default_jar; props=(); impl=tw
      case $v in
        stpe) impl=jdk1 ;;
        tw) ;;
        *=*) spec=${v#*=}; jar=${spec%%@*}
             if [ "$spec" != "$jar" ]; then IFS=',' read -ra kv <<< "${spec#*@}"; for p in "${kv[@]}"; do props+=("-D$p"); done; fi ;;
        *) echo "unknown variant $v" >&2; exit 2 ;;
      esac
      before=$(steal)
      result=$("$JAVA" "${props[@]}" -Xms3g -Xmx3g -Xmn2g -cp "$jar" io.timingwheel.jmh.OnTimeHarness \
          "${words[0]}" "$impl" "${words[@]:1}" 2>&1 | grep '^RESULT' || true)
      stolen=$(( $(steal) - before ))
      while IFS= read -r line; do
        [ -n "$line" ] && echo "jdk=$jdk round=$r variant=$v args=[${words[*]:1}] steal=$stolen $line"
      done <<< "$result" >> "$out"
    done
  done
done
