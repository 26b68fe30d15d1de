#!/usr/bin/env bash
# tests/fuzz/run.sh: seeds and runs the libFuzzer targets of tests/fuzz/ (fuzz_<target>.c, built
# by `make FUZZ=1 fuzz-bins` into build-fuzz/fuzz/). The targets: space (space files), expr
# (constraint expressions), dump (dump import), protocol (worker protocol lines), config (config
# texts). Each has a dictionary, <target>.dict, and seeds built here from the repository's own
# inputs: the space files of tests/cases, spaces/ and tests/fixtures, their constraints, slices of
# the committed dumps (db/results/*.sql.xz, tests/fixtures/*.sql.xz) and their config texts, the
# dump cases of tests/cases/dumps, and protocol.seeds. What fuzzing finds becomes a case there
# (tests/cases/invalid/, tests/cases/dumps/, protocol.seeds) and so a seed of every later run.
#
#   run.sh have-libfuzzer [CLANG]   exit 0 when CLANG (default clang-14, clang) links libFuzzer
#   run.sh seeds DIR                writes the seed corpora into DIR/<target>/
#   run.sh smoke                    what `make test` runs: every target for FUZZ_SMOKE_SECONDS
#                                   (default 3) over its seeds; "N passed, N failed" (one check
#                                   per target), or a skip line when clang has no libFuzzer
#   run.sh run SECONDS [JOBS [OUT]] every target (or those FUZZ_TARGETS names) for SECONDS on
#                                   JOBS cores (default 1: one process; more: libFuzzer's
#                                   -jobs=JOBS -workers=JOBS, each worker fuzzing until the end
#                                   unless it finds something), corpus kept in OUT/corpus/<target> (default OUT:
#                                   build-fuzz/out), findings in OUT/crashes/<target>/, logs in
#                                   OUT/logs/, and a row per target in OUT/summary.txt (added to
#                                   one already there): executions, execs/s, coverage (cov, ft,
#                                   corpus size of the final line), seconds, cores, findings.
#                                   Exit 1 when anything was found.
# FUZZ_BIN (default build-fuzz/fuzz) is where the binaries are.
set -u
cd "$(dirname "$0")/../.."
TARGETS="space expr dump protocol config"
# fuzz_config loads the committed spaces from here, whatever folder its workers run in
export TUNEKIT_ROOT=$(pwd)
FUZZ_BIN=${FUZZ_BIN:-build-fuzz/fuzz}
# per target: the longest input libFuzzer makes (a dump slice or a space file is bigger than
# an expression or a protocol line)
max_len() { case $1 in dump) echo 32768 ;; space) echo 8192 ;; protocol) echo 4096 ;; *) echo 512 ;; esac; }
# what every run passes: one input may take 10 s and 2 GiB at most (more is a finding)
common() { echo "-max_len=$(max_len "$1") -dict=tests/fuzz/$1.dict -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1"; }

have_libfuzzer() {
    local cc=${1:-} t
    [ -n "$cc" ] || cc=$(command -v clang-14 || command -v clang) || return 1
    t=$(mktemp -d) || return 1
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$t/t.c"
    "$cc" -fsanitize=fuzzer,address,undefined -o "$t/t" "$t/t.c" >/dev/null 2>&1
    local rc=$?
    rm -rf "$t"
    return $rc
}

# The constraint lines of a space file (the items of its constraints: list), unquoted.
constraints_of() {
    awk '/^constraints:/ {on=1; next} /^[^ #-]/ {on=0} on && /^ *- / {sub(/^ *- */, ""); sub(/ +#.*$/, ""); print}' "$1" |
        sed -e 's/^"\(.*\)"$/\1/' -e "s/^'\(.*\)'\$/\1/"
}

seeds() {
    local dir=$1 i=0 f d
    rm -rf "$dir" && mkdir -p "$dir"/{space,expr,dump,protocol,config} || return 1
    for f in tests/cases/invalid/*/space.yaml tests/cases/valid/*.yaml spaces/*.yaml tests/fixtures/*.yaml; do
        [ -f "$f" ] || continue
        i=$((i + 1)); cp "$f" "$dir/space/$i.yaml"
        constraints_of "$f" | while IFS= read -r c; do
            printf '%s' "$c" > "$dir/expr/$(printf '%s' "$c" | sha1sum | cut -c1-16)"
        done
    done
    i=0
    while IFS= read -r line; do
        case $line in '#'*|'') continue ;; esac
        i=$((i + 1)); printf '%s\n' "$line" > "$dir/protocol/$i"
    done < tests/fuzz/protocol.seeds
    for d in db/results/*.sql.xz tests/fixtures/*.sql.xz; do
        [ -f "$d" ] || continue
        local b; b=$(basename "$d" .sql.xz)
        # small slices: the header and the first rows; the rows of one table each; the export's
        # temporary view, trigger and first evaluations; and the whole .xz of the small fixture
        xzcat "$d" | head -n 12 | head -c 30000 > "$dir/dump/$b.head"
        for t in devices runs problems configs peers; do
            xzcat "$d" | grep -m 3 "^INSERT[A-Z ]* INTO $t(" | head -c 30000 > "$dir/dump/$b.$t"
        done
        { xzcat "$d" | head -n 1; xzcat "$d" | grep -m 2 -E '^(CREATE TEMP|INSERT INTO dump_evaluations)' | cut -c1-12000; } \
            > "$dir/dump/$b.view"
        xzcat "$d" | grep -o "^INSERT OR IGNORE INTO configs(text) VALUES('[^']*')" | head -n 40 |
            sed -e "s/.*VALUES('//" -e "s/')\$//" | while IFS= read -r c; do
                printf '%s' "$c" > "$dir/config/$(printf '%s' "$c" | sha1sum | cut -c1-16)"
            done
    done
    for d in tests/fixtures/*.sql.xz; do
        [ "$(stat -c %s "$d")" -le 32768 ] && cp "$d" "$dir/dump/$(basename "$d")"
    done
    # the dump importer's regression cases (tests/cases/dumps/)
    for d in tests/cases/dumps/*/dump.sql; do
        [ -f "$d" ] && cp "$d" "$dir/dump/case-$(basename "$(dirname "$d")")"
    done
    find "$dir/dump" -size 0 -delete
    return 0
}

case ${1:-} in
have-libfuzzer)
    have_libfuzzer "${2:-}"
    ;;
seeds)
    seeds "${2:?usage: run.sh seeds DIR}"
    ;;
smoke)
    if ! have_libfuzzer; then
        echo "0 passed, 0 failed (skipped: no clang with libFuzzer; install clang and libclang-rt-dev)"
        exit 0
    fi
    secs=${FUZZ_SMOKE_SECONDS:-3}
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    seeds "$tmp/corpus" || { echo "0 passed, 1 failed (cannot build the seeds)"; exit 1; }
    passed=0 failed=0
    for t in $TARGETS; do
        bin=$FUZZ_BIN/fuzz_$t
        if [ ! -x "$bin" ]; then
            echo "FAIL fuzz_$t: $bin is not built (make FUZZ=1 fuzz-bins)"; failed=$((failed + 1)); continue
        fi
        mkdir -p "$tmp/art/$t"
        # shellcheck disable=SC2046
        if "$bin" $(common "$t") -max_total_time="$secs" -artifact_prefix="$tmp/art/$t/" \
               "$tmp/corpus/$t" >"$tmp/$t.log" 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1)); echo "FAIL fuzz_$t: a finding (its log's end):"
            grep -E 'ERROR|fuzz: property|SUMMARY|Test unit written' "$tmp/$t.log" | head -n 8 | sed 's/^/    /'
            tail -n 5 "$tmp/$t.log" | sed 's/^/    /'
        fi
    done
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    ;;
run)
    secs=${2:?usage: run.sh run SECONDS [JOBS [OUT]]}
    jobs=${3:-1}
    out=${4:-build-fuzz/out}
    mkdir -p "$out/logs" || exit 1
    seeds "$out/seeds" || exit 1
    found=0
    [ -f "$out/summary.txt" ] ||
        printf '%-9s %14s %10s %7s %8s %8s %9s %5s  %s\n' target executions execs/s cov ft corpus \
            seconds cores findings > "$out/summary.txt"
    root=$(pwd)
    abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
    for t in ${FUZZ_TARGETS:-$TARGETS}; do
        bin=$(abs "$FUZZ_BIN/fuzz_$t")
        [ -x "$bin" ] || { echo "run.sh: $bin is not built (make FUZZ=1 fuzz-bins)" >&2; exit 2; }
        mkdir -p "$out/corpus/$t" "$out/crashes/$t"
        log=$(abs "$out/logs/$t.log")
        # one process, or JOBS workers fuzzing side by side over the one corpus folder (twice the
        # executions of -fork's short-lived jobs here), each logging to fuzz-N.log in its folder
        jdir=$(abs "$out/jobs/$t")
        rm -rf "$jdir" && mkdir -p "$jdir"
        extra=""
        [ "$jobs" -gt 1 ] && extra="-jobs=$jobs -workers=$jobs"
        echo "fuzz_$t: ${secs}s on $jobs core(s)..." >&2
        start=$(date +%s)
        # ASan's check of every printf's format costs the dump target a fifth of its time (the
        # export prints every value): the long runs leave it out unless ASAN_OPTIONS is given
        # shellcheck disable=SC2046,SC2086
        ( cd "$jdir" && ASAN_OPTIONS=${ASAN_OPTIONS:-check_printf=0} "$bin" \
              $(common "$t" | sed "s|-dict=|-dict=$root/|") $extra -max_total_time="$secs" \
              -artifact_prefix="$(abs "$out/crashes/$t")/" "$(abs "$out/corpus/$t")" \
              "$(abs "$out/seeds/$t")" ) >"$log" 2>&1
        rc=$?
        el=$(( $(date +%s) - start )); [ "$el" -gt 0 ] || el=1
        # the final line(s): the process's, or each worker's
        logs=("$log"); [ "$jobs" -gt 1 ] && logs=("$jdir"/fuzz-*.log)
        execs=0 cov=0 ft=0 corp=0
        for l in "${logs[@]}"; do
            [ -f "$l" ] || continue
            last=$(grep -E '^#[0-9]+.*cov: ' "$l" | tail -n 1)
            [ -n "$last" ] || continue
            n=$(grep -E '^stat::number_of_executed_units:' "$l" | tail -n 1 | awk '{print $2}')
            [ -n "$n" ] || n=$(printf '%s' "$last" | sed -E 's/^#([0-9]+).*/\1/')
            execs=$((execs + n))
            c=$(printf '%s' "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+'); [ "${c:-0}" -gt "$cov" ] && cov=$c
            f=$(printf '%s' "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+'); [ "${f:-0}" -gt "$ft" ] && ft=$f
            k=$(printf '%s' "$last" | grep -oE 'corp: [0-9]+' | grep -oE '[0-9]+'); [ "${k:-0}" -gt "$corp" ] && corp=$k
        done
        [ "$jobs" -gt 1 ] && cat "$jdir"/fuzz-*.log >> "$log" 2>/dev/null
        nf=$(find "$out/crashes/$t" -type f | wc -l)
        [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ] && nf="exit $rc"
        [ "$nf" != 0 ] && found=1
        printf '%-9s %14s %10s %7s %8s %8s %9s %5s  %s\n' "$t" "$execs" "$((execs / el))" "$cov" \
            "$ft" "$corp" "$el" "$jobs" "$nf" >> "$out/summary.txt"
    done
    cat "$out/summary.txt"
    [ "$found" -eq 0 ]
    ;;
*)
    sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
