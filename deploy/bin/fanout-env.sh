# Sourced by the deploy/bin scripts: locations, the stale-build check and the JVM flags.
# shellcheck shell=bash
FANOUT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FANOUT_CP_FILE="$FANOUT_ROOT/deploy/target/classpath.txt"
FANOUT_STAMP="$FANOUT_ROOT/deploy/target/fanout-deploy-0.1.0-SNAPSHOT.jar"
FANOUT_JOB_JAR="$FANOUT_ROOT/job/target/fanout-job.jar"
FANOUT_JVM_FLAGS=$(grep -v '^#' "$FANOUT_ROOT/deploy/conf/jvm-options" | tr '\n' ' ')
FANOUT_LOG_CONFIG="${FANOUT_LOG_CONFIG:-$FANOUT_ROOT/deploy/conf/log4j2-local.properties}"

fanout_needs_build() {
    [ -f "$FANOUT_CP_FILE" ] && [ -f "$FANOUT_STAMP" ] && [ -f "$FANOUT_JOB_JAR" ] || return 0
    # Any source or pom newer than the last package means the build is stale.
    [ -n "$(find "$FANOUT_ROOT/pom.xml" "$FANOUT_ROOT/connectors/pom.xml" "$FANOUT_ROOT/job/pom.xml" \
        "$FANOUT_ROOT/deploy/pom.xml" "$FANOUT_ROOT/connectors/src/main" "$FANOUT_ROOT/job/src/main" \
        "$FANOUT_ROOT/deploy/src/main" "$FANOUT_ROOT/deploy/conf" -newer "$FANOUT_STAMP" -type f -print -quit 2>/dev/null)" ]
}

# Builds the project (no tests) when it is missing or stale, unless FANOUT_NO_BUILD=1.
fanout_build_if_needed() {
    if [ "${FANOUT_NO_BUILD:-0}" != 1 ] && fanout_needs_build; then
        command -v mvn >/dev/null || { echo "fanout: Maven (mvn) is needed to build Fanout" >&2; exit 1; }
        echo "fanout: building Fanout (mvn -DskipTests install) ..." >&2
        mkdir -p "$FANOUT_ROOT/deploy/target"
        local log="$FANOUT_ROOT/deploy/target/build.log"
        if ! (cd "$FANOUT_ROOT" && mvn -B -ntp -DskipTests install) >"$log" 2>&1; then
            grep -E 'ERROR|BUILD' "$log" | head -40 >&2
            echo "fanout: build failed; full log: $log" >&2
            exit 1
        fi
    fi
}

# This checkout's own classes first, never the io.fanout snapshot jars of ~/.m2 that classpath.txt names:
# ~/.m2 is shared, and another checkout's `mvn install` replaces those jars at any time.
fanout_classpath() {
    echo "$FANOUT_ROOT/deploy/target/classes:$FANOUT_ROOT/job/target/classes:$FANOUT_ROOT/connectors/target/classes:$(
        tr ':' '\n' <"$FANOUT_CP_FILE" | grep -v '/io/fanout/' | paste -sd:)"
}
