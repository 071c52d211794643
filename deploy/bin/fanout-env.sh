# Sourced by the deploy/bin scripts: locations, the stale-build check and the JVM flags.
# shellcheck shell=bash
FANOUT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FANOUT_CP_FILE="$FANOUT_ROOT/deploy/target/classpath.txt"
FANOUT_STAMP="$FANOUT_ROOT/deploy/target/fanout-deploy-0.1.0-SNAPSHOT.jar"
FANOUT_JOB_JAR="$FANOUT_ROOT/job/target/fanout-job.jar"
FANOUT_JVM_FLAGS=$(grep -v '^#' "$FANOUT_ROOT/deploy/conf/jvm-options" | tr '\n' ' ')

# The Java heap in transparent huge pages where the kernel gives them on request (THP mode "madvise"; with "always"
# it does so unasked, with "never" not at all): a first touch of heap memory then faults once per 2 MB, not once
# per 4 KB page. A job's heap grows into gigabytes of fresh memory (the heap keyed-state backend's copies of the
# graph, every message's arrays), and on virtual machines a page fault is dear: on the 2-core development VM,
# R-MAT 2^18's heap-backend partitioned store sampled 6.7-8.2 M edges/s with it against 3.8-3.9 M without, and a
# job's system CPU time halved. FANOUT_THP=0 leaves it out.
fanout_thp_flag() {
    if [ "${FANOUT_THP:-1}" != 0 ] && grep -qs '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled; then
        echo "-XX:+UseTransparentHugePages"
    fi
}
FANOUT_JVM_FLAGS="$FANOUT_JVM_FLAGS $(fanout_thp_flag)"
FANOUT_LOG_CONFIG="${FANOUT_LOG_CONFIG:-$FANOUT_ROOT/deploy/conf/log4j2-local.properties}"
FANOUT_CDS_ARCHIVE="${FANOUT_CDS_ARCHIVE:-$FANOUT_ROOT/deploy/target/fanout-local.jsa}"
# The JVM's warnings about an archive it cannot use (or classes it cannot archive) go to stdout: keep them off.
FANOUT_CDS_QUIET="-Xlog:cds*=off -Xlog:class+path*=off"

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
        fanout_dependency_classpath)"
}

fanout_dependency_classpath() {
    tr ':' '\n' <"$FANOUT_CP_FILE" | grep -v '/io/fanout/' | paste -sd:
}

# This checkout's module jars (what `mvn install` packaged), or nothing when one is missing or older than its
# module's classes (a `mvn compile` since): class-data sharing needs jars, and must not run older code than the
# classes directories hold.
fanout_module_jars() {
    local m jar jars=""
    for m in deploy job connectors; do
        jar="$FANOUT_ROOT/$m/target/fanout-$m-0.1.0-SNAPSHOT.jar"
        [ -f "$jar" ] || return 0
        [ -z "$(find "$FANOUT_ROOT/$m/target/classes" -type f -newer "$jar" -print -quit 2>/dev/null)" ] || return 0
        jars="$jars${jars:+:}$jar"
    done
    echo "$jars"
}

# Sets FANOUT_LOCAL_CP and FANOUT_CDS_FLAGS for a fanout-local JVM. With the module jars current, the classpath is
# those jars, and a JVM class-data archive (AppCDS) of the classes a job loads (Flink's, Pekko's, Fanout's) makes
# the JVM map them instead of loading and verifying each: about a quarter off a short run's wall time (cora's quick
# start with features, 6.2 s -> 4.6 s). The archive is written once per build, on the first run that finds it
# missing or older than the jars (fanout_write_cds_archive), at FANOUT_CDS_ARCHIVE (default
# deploy/target/fanout-local.jsa); FANOUT_CDS=0 turns it off. A JVM that cannot use it (another JDK, a changed
# classpath) starts without it, silently.
fanout_local_jvm() {
    local jars
    jars=$(fanout_module_jars)
    FANOUT_CDS_FLAGS=""
    if [ -z "$jars" ]; then
        FANOUT_LOCAL_CP=$(fanout_classpath)
        return 0
    fi
    FANOUT_LOCAL_CP="$jars:$(fanout_dependency_classpath)"
    [ "${FANOUT_CDS:-1}" != 0 ] || return 0
    # A failed attempt is not retried until the build changes (its marker stands in for the archive).
    local have="$FANOUT_CDS_ARCHIVE" jar_list
    [ -s "$have" ] || have="$FANOUT_CDS_ARCHIVE.failed"
    IFS=: read -r -a jar_list <<<"$jars"
    if [ ! -e "$have" ] \
        || [ -n "$(find "${jar_list[@]}" "$FANOUT_CP_FILE" -newer "$have" -print -quit 2>/dev/null)" ]; then
        fanout_write_cds_archive || return 0
    fi
    [ -s "$FANOUT_CDS_ARCHIVE" ] || return 0
    FANOUT_CDS_FLAGS="-XX:SharedArchiveFile=$FANOUT_CDS_ARCHIVE $FANOUT_CDS_QUIET"
}

# Writes FANOUT_CDS_ARCHIVE: a tiny k-hop job on a generated four-node graph, run with -XX:ArchiveClassesAtExit,
# loads the classes every job needs. One writer at a time (a lock directory; another run meanwhile starts without
# the archive; a lock left by a killed writer is taken over after 10 minutes). The new archive replaces the old one
# (a rename) only once a JVM given it has loaded Fanout's launcher from it: a JVM given a damaged archive crashes.
fanout_write_cds_archive() {
    local lock="$FANOUT_CDS_ARCHIVE.lock" work status=1
    if ! mkdir "$lock" 2>/dev/null; then
        [ -n "$(find "$lock" -maxdepth 0 -mmin +10 2>/dev/null)" ] || return 1
        rm -rf "$lock"
        mkdir "$lock" 2>/dev/null || return 1
    fi
    echo "fanout: writing the JVM class-data archive for faster start-up (once per build) ..." >&2
    work="$lock/work"
    mkdir -p "$work"
    printf '# directed=false\n0\t1\n1\t2\n2\t3\n3\t0\n' >"$work/edges.tsv"
    # shellcheck disable=SC2086
    if java -Xmx512m -XX:ArchiveClassesAtExit="$lock/archive.jsa" $FANOUT_CDS_QUIET \
            $FANOUT_JVM_FLAGS -Dlog4j.configurationFile="$FANOUT_LOG_CONFIG" -cp "$FANOUT_LOCAL_CP" \
            io.fanout.deploy.LocalLauncher --graph "$work/edges.tsv" --fanout 2,2 --batch-size 2 \
            --output "$work/out" >"$FANOUT_CDS_ARCHIVE.log" 2>&1 \
        && java -XX:SharedArchiveFile="$lock/archive.jsa" $FANOUT_CDS_QUIET \
            -Xlog:class+load=info:file="$lock/classes.log" $FANOUT_JVM_FLAGS -cp "$FANOUT_LOCAL_CP" \
            io.fanout.deploy.LocalLauncher --help >>"$FANOUT_CDS_ARCHIVE.log" 2>&1 \
        && grep -q 'io.fanout.deploy.LocalLauncher source: shared objects file (top)' "$lock/classes.log"; then
        mv -f "$lock/archive.jsa" "$FANOUT_CDS_ARCHIVE" && rm -f "$FANOUT_CDS_ARCHIVE.failed" && status=0
    fi
    if [ "$status" != 0 ]; then
        rm -f "$FANOUT_CDS_ARCHIVE"
        : >"$FANOUT_CDS_ARCHIVE.failed"
        echo "fanout: no class-data archive (see $FANOUT_CDS_ARCHIVE.log); starting without it" >&2
    fi
    rm -rf "$lock"
    return "$status"
}
