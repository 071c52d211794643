# Sourced by the cluster scripts (start-cluster, stop-cluster, start-taskmanager, flink): where the
# assembled Flink distribution and the cluster's run directory are, and the process helpers.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/fanout-env.sh"

FANOUT_FLINK_VERSION="$(sed -n 's:.*<flink.version>\(.*\)</flink.version>.*:\1:p' "$FANOUT_ROOT/pom.xml" | head -1)"
# The distribution `mvn install` assembles from Maven artifacts (lib/, plugins/, conf/ template).
FANOUT_FLINK_DIST="${FANOUT_FLINK_DIST:-$FANOUT_ROOT/deploy/target/flink-$FANOUT_FLINK_VERSION}"
# One cluster's state: rendered conf/, log/, pid/, checkpoints/, savepoints/, tmp/.
FANOUT_CLUSTER_DIR="${FANOUT_CLUSTER_DIR:-$FANOUT_ROOT/deploy/target/cluster}"
FANOUT_REST_PORT="${FANOUT_REST_PORT:-8081}"
FANOUT_RPC_PORT="${FANOUT_RPC_PORT:-6123}"
FANOUT_PROM_PORTS="${FANOUT_PROM_PORTS:-9250-9260}"
# Seconds to wait for the JobManager's REST API and for a TaskManager to register.
FANOUT_CLUSTER_TIMEOUT="${FANOUT_CLUSTER_TIMEOUT:-90}"

CLUSTER_CONF="$FANOUT_CLUSTER_DIR/conf"
CLUSTER_LOG="$FANOUT_CLUSTER_DIR/log"
CLUSTER_PID="$FANOUT_CLUSTER_DIR/pid"
REST_URL="http://127.0.0.1:$FANOUT_REST_PORT"

cluster_fail() { echo "$(basename "$0"): $*" >&2; exit 1; }

# Builds the project (and with it the distribution) when missing or stale.
cluster_build_if_needed() {
    fanout_build_if_needed
    [ -f "$FANOUT_FLINK_DIST/lib/flink-runtime-$FANOUT_FLINK_VERSION.jar" ] ||
        cluster_fail "no Flink distribution at $FANOUT_FLINK_DIST (run mvn install, or unset FANOUT_NO_BUILD)"
}

# Renders the conf/ template of the distribution into the run directory.
cluster_render_conf() {
    mkdir -p "$CLUSTER_CONF" "$CLUSTER_LOG" "$CLUSTER_PID" "$FANOUT_CLUSTER_DIR/tmp/web" \
        "$FANOUT_CLUSTER_DIR/tmp/io" "$FANOUT_CLUSTER_DIR/tmp/work" "$FANOUT_CLUSTER_DIR/checkpoints" \
        "$FANOUT_CLUSTER_DIR/savepoints"
    cp "$FANOUT_FLINK_DIST/conf/"log4j*.properties "$CLUSTER_CONF/"
    sed -e "s#@CLUSTER_DIR@#$FANOUT_CLUSTER_DIR#g" -e "s#@REST_PORT@#$FANOUT_REST_PORT#g" \
        -e "s#@RPC_PORT@#$FANOUT_RPC_PORT#g" -e "s#@PROM_PORTS@#$FANOUT_PROM_PORTS#g" \
        "$FANOUT_FLINK_DIST/conf/config.yaml" >"$CLUSTER_CONF/config.yaml"
    # FANOUT_CONF_OVERRIDES: newline-separated "key: value" lines that replace (or add to) the template's
    # settings, e.g. a TaskManager with a small heap for a test.
    local line key
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        key="${line%%:*}"
        sed -i "/^${key//./\\.}:/d" "$CLUSTER_CONF/config.yaml"
        echo "$line" >>"$CLUSTER_CONF/config.yaml"
    done <<<"${FANOUT_CONF_OVERRIDES:-}"
}

# The live PID in pid/NAME.pid if it is a process of this cluster (its command line names our conf),
# so a recycled PID is never signalled.
cluster_pid_of() {
    local file="$CLUSTER_PID/$1.pid" pid
    [ -f "$file" ] || return 1
    pid="$(cat "$file")"
    [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$CLUSTER_CONF" || return 1
    echo "$pid"
}

# Prints the JVM flags (line 1) and dynamic -D properties (line 2) Flink derives from the memory
# settings; KIND is JM or TM.
cluster_resource_params() {
    local out
    # shellcheck disable=SC2086
    out="$(java $FANOUT_JVM_FLAGS -cp "$FANOUT_FLINK_DIST/lib/*" org.apache.flink.runtime.util.bash.BashJavaUtils \
        "GET_$1_RESOURCE_PARAMS" --configDir "$CLUSTER_CONF" 2>&1)" ||
        cluster_fail "could not compute the $1 memory settings from $CLUSTER_CONF/config.yaml:"$'\n'"$out"
    echo "$out" | sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p' | tail -2
}

# Starts a Flink daemon in the background: NAME (log/pid file name), KIND (JM|TM), main class, args.
cluster_start_daemon() {
    local name="$1" kind="$2" main="$3" params jvm dynamic
    shift 3
    params="$(cluster_resource_params "$kind")"
    jvm="$(echo "$params" | sed -n 1p)"
    dynamic="$(echo "$params" | sed -n 2p)"
    [ -n "$jvm" ] || cluster_fail "no memory settings for $kind from BashJavaUtils"
    # shellcheck disable=SC2086
    (cd "$FANOUT_CLUSTER_DIR" && FLINK_CONF_DIR="$CLUSTER_CONF" FLINK_PLUGINS_DIR="$FANOUT_FLINK_DIST/plugins" \
        FLINK_LIB_DIR="$FANOUT_FLINK_DIST/lib" exec java $jvm $FANOUT_JVM_FLAGS \
        -Dlog.file="$CLUSTER_LOG/$name.log" -Dlog4j.configurationFile="file:$CLUSTER_CONF/log4j.properties" \
        -cp "$FANOUT_FLINK_DIST/lib/*" "$main" --configDir "$CLUSTER_CONF" "$@" $dynamic \
        >"$CLUSTER_LOG/$name.out" 2>&1 </dev/null) &
    echo $! >"$CLUSTER_PID/$name.pid"
}

# Starts TaskManager NAME with a resource id equal to its name, so its registration can be awaited.
cluster_start_taskmanager() {
    cluster_start_daemon "$1" TM org.apache.flink.runtime.taskexecutor.TaskManagerRunner \
        -D "taskmanager.resource-id=$1"
}

# The next free TaskManager name: taskmanager-1, taskmanager-2, ... (never reused within a run dir).
cluster_next_taskmanager() {
    local n=1
    while [ -e "$CLUSTER_LOG/taskmanager-$n.out" ]; do n=$((n + 1)); done
    echo "taskmanager-$n"
}

# The last lines of every log of the cluster, for failure messages.
cluster_log_tails() {
    local f
    for f in "$CLUSTER_LOG"/*.log "$CLUSTER_LOG"/*.out; do
        [ -s "$f" ] || continue
        echo "----- tail of $f"
        tail -n "${FANOUT_LOG_TAIL:-40}" "$f"
    done
}

# Waits until TaskManager NAME is registered with the JobManager (REST /taskmanagers); on time-out or
# a dead process, prints the log tails and fails.
cluster_await_taskmanager() {
    local name="$1" deadline=$((SECONDS + FANOUT_CLUSTER_TIMEOUT)) process
    while [ $SECONDS -lt $deadline ]; do
        for process in jobmanager "$name"; do
            kill -0 "$(cat "$CLUSTER_PID/$process.pid" 2>/dev/null || echo 0)" 2>/dev/null ||
                { cluster_log_tails >&2; cluster_fail "$process exited while starting (logs above, in $CLUSTER_LOG)"; }
        done
        if curl -sf --max-time 2 "$REST_URL/taskmanagers" 2>/dev/null | grep -qF "\"id\":\"$name\""; then
            return 0
        fi
        sleep 0.5
    done
    cluster_log_tails >&2
    cluster_fail "$name did not register with the JobManager at $REST_URL within ${FANOUT_CLUSTER_TIMEOUT}s (logs above, in $CLUSTER_LOG)"
}

# Stops the process in pid/NAME.pid: SIGTERM, then SIGKILL after 15 s.
cluster_stop_process() {
    local name="$1" pid i
    if pid="$(cluster_pid_of "$name")"; then
        kill "$pid" 2>/dev/null || true
        for i in $(seq 1 60); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "$name (pid $pid) did not stop in 15 s; killing it" >&2
            kill -9 "$pid" 2>/dev/null || true
        fi
        echo "stopped $name (pid $pid)"
    fi
    rm -f "$CLUSTER_PID/$name.pid"
}
