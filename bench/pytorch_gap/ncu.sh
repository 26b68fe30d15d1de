#!/usr/bin/env bash
# ncu.sh: profiles, with Nsight Compute, tunekit's winning config and PyTorch's kernel on the
# problems where PyTorch won in the H100 dump (issue #37; bench/pytorch_gap/README.md), one GPU
# machine call, about 3 to 5 minutes. Run from anywhere; it works in the repository root.
#
#   OUT=/some/dir bench/pytorch_gap/ncu.sh
#
# Needs: nvidia-smi, nvcc, ncu (PATH, $NCU, or /opt/nvidia/nsight-compute/*/ncu), python3 with
# PyTorch (and CuPy, for the flush peers.py uses), and tk_gap: $TK_GAP (built beforehand by
# bench/pytorch_gap/build.sh and carried), else build.sh runs here, against build/libtunekit.a
# when present (seconds), else from the kernel sources (about 2 minutes on 16 cores). $TUNER is
# not needed.
# Steps: gets tk_gap (bench/pytorch_gap/tk_gap.cu, tunekit's public C API); checks every case of
# cases.txt; times tunekit's config and PyTorch's call on each (CUDA events, 2 x L2 overwritten
# before each run: the dump's method, in this job); runs ncu on each (tunekit's call, then
# PyTorch's; --set full on the cases marked full, else SpeedOfLight, MemoryWorkloadAnalysis,
# Occupancy, LaunchStats and ComputeWorkloadAnalysis plus the metrics listed below, those that
# this ncu knows); writes under $OUT:
#   summary.txt          the tables (summarize.py), also printed last
#   ncu_log.txt          everything this script printed
#   ncu_reports.tar.xz   the .ncu-rep reports, their raw-page CSV exports, the timing files, the
#                        metric list used (split into ncu_reports_full.tar.xz[.partNN] when too
#                        large for one file of the call's transfer limit)
# Environment: OUT (default build/pytorch_gap/out), CASES (regex over case ids, default all),
# FULL=0 (no --set full anywhere), TIMING=0 (no timing runs), TORCH=0 (tunekit only),
# BUDGET (seconds after which no further ncu run starts; default 420), TK_GAP, NVCC, NCU.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
HERE=bench/pytorch_gap
OUT=${OUT:-build/pytorch_gap/out}
CASES=${CASES:-}
FULL=${FULL:-1}
TIMING=${TIMING:-1}
TORCH=${TORCH:-1}
BUDGET=${BUDGET:-420}
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/pytorch_gap.XXXXXX") || exit 2
mkdir -p "$W/reports" "$W/csv"

SECTIONS=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy
          --section LaunchStats --section ComputeWorkloadAnalysis)
METRICS_WANT=(
    gpu__time_duration.sum
    dram__bytes_read.sum
    dram__bytes_write.sum
    dram__bytes.sum.per_second
    dram__throughput.avg.pct_of_peak_sustained_elapsed
    smsp__inst_executed.sum
    sm__warps_active.avg.pct_of_peak_sustained_active
    sm__cycles_elapsed.avg.per_second
    lts__t_sectors_srcunit_tex_op_read.sum
    lts__t_sectors_srcunit_tex_op_write.sum
    lts__t_requests_srcunit_tex_op_red.sum
    lts__t_sectors_srcunit_tex_op_red.sum
    lts__t_sectors_srcunit_tex_op_red.max
    lts__t_sectors_srcunit_tex_op_red.avg
    lts__t_requests_srcunit_tex_op_atom.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
)

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

find_ncu() {
    if [ -n "${NCU:-}" ]; then printf '%s' "$NCU"; return; fi
    if command -v ncu > /dev/null 2>&1; then command -v ncu; return; fi
    local c
    for c in /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu; do
        [ -x "$c" ] && { printf '%s' "$c"; return; }
    done
}

# ncu_run NAME FULL CMD...: one report, $W/reports/NAME.ncu-rep, and its CSV, $W/csv/NAME.csv.
# Levels: 0 the sections (or the full set) and every validated metric, 1 the plain counters only
# (no .max/.avg/rates), 2 the sections alone, 3 ncu's default set. With no report at one level it
# tries the next; a log that blames a metric makes the lower level stick for the cases after.
METRIC_LEVEL=0
ncu_run() {
    local name=$1 full=$2
    shift 2
    local rep="$W/reports/$name" log="$W/reports/$name.log"
    if [ "$SECONDS" -gt "$BUDGET" ]; then
        echo "  ncu $name: skipped (past BUDGET=${BUDGET}s)"
        return
    fi
    local what=("${SECTIONS[@]}")
    if [ "$full" = yes ] && [ "$FULL" = 1 ]; then what=(--set full); fi
    local common=(--profile-from-start off --clock-control none --cache-control all
                  --replay-mode kernel --target-processes all -f -o "$rep")
    rm -f "$rep.ncu-rep"
    : > "$log"
    local level=$METRIC_LEVEL list
    while [ "$level" -le 3 ]; do
        case $level in 0) list=$METRICS ;; 1) list=$METRICS_CORE ;; *) list= ;; esac
        if [ "$level" -lt 2 ] && [ -z "$list" ]; then level=$((level + 1)); continue; fi
        [ "$level" = 3 ] && what=()   # ncu's default set: the last resort
        echo "--- level $level" >> "$log"
        if [ -n "$list" ]; then
            timeout 240 "$NCU" "${common[@]}" "${what[@]}" --metrics "$list" "$@" >> "$log" 2>&1 < /dev/null
        else
            timeout 240 "$NCU" "${common[@]}" "${what[@]}" "$@" >> "$log" 2>&1 < /dev/null
        fi
        [ -s "$rep.ncu-rep" ] && break
        if grep -i 'error' "$log" | grep -qi 'metric'; then METRIC_LEVEL=$((level + 1)); fi
        level=$((level + 1))
        [ "$level" -le 3 ] && echo "  ncu $name: no report; again at level $level"
    done
    if [ -s "$rep.ncu-rep" ]; then
        if ! "$NCU" --import "$rep.ncu-rep" --page raw --csv --print-units base \
                > "$W/csv/$name.csv" 2>> "$log"; then
            "$NCU" --import "$rep.ncu-rep" --page raw --csv > "$W/csv/$name.csv" 2>> "$log"
        fi
        echo "  ncu $name: $(grep -c '^"[0-9]' "$W/csv/$name.csv") kernel(s), level $level$([ "${what[0]:-}" = --set ] && echo ', full set') [t=${SECONDS}s]"
    else
        echo "  ncu $name: FAILED, last lines of its log:"
        tail -n 6 "$log" | sed 's/^/    /'
    fi
}

main() {
    echo "== bench/pytorch_gap/ncu.sh $(date -u +%Y-%m-%dT%H:%M:%SZ), work folder $W, OUT $OUT"
    nvidia-smi -L || { echo "ncu.sh: no GPU (nvidia-smi -L failed)"; return 1; }
    local gpu
    gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null | head -1)
    NCU=$(find_ncu)
    if [ -z "$NCU" ]; then echo "ncu.sh: ncu not found (set NCU)"; return 1; fi
    local ncu_version
    ncu_version=$("$NCU" --version 2>&1 | tail -n 1)
    echo "gpu: $gpu; ncu: $NCU ($ncu_version)"
    if [ "$TORCH" = 1 ]; then
        if ! python3 -c 'import torch; assert torch.cuda.is_available(); print("torch", torch.__version__, torch.cuda.get_device_name(0))'; then
            echo "ncu.sh: PyTorch with CUDA not usable here: tunekit only"
            TORCH=0
        fi
    fi

    # the cases
    local ids=() ops=() dts=() shapes=() cfgs=() torchs=() fulls=()
    local line id op dt shape cfg th full rest
    while IFS= read -r line || [ -n "$line" ]; do
        line=$(trim "$line")
        case "$line" in ''|'#'*) continue ;; esac
        IFS='|' read -r id op dt shape cfg th full rest <<< "$line"
        id=$(trim "$id")
        if [ -n "$CASES" ] && ! printf '%s\n' "$id" | grep -Eq -- "$CASES"; then continue; fi
        ids+=("$id"); ops+=("$(trim "$op")"); dts+=("$(trim "$dt")"); shapes+=("$(trim "$shape")")
        cfgs+=("$(trim "$cfg")"); torchs+=("$(trim "$th")"); fulls+=("$(trim "$full")")
    done < "$HERE/cases.txt"
    echo "cases: ${#ids[@]} (${ids[*]})"
    [ "${#ids[@]}" -gt 0 ] || { echo "ncu.sh: no case matches CASES=$CASES"; return 1; }

    # tunekit's driver: $TK_GAP when given (built elsewhere by build.sh), else build.sh now
    # (against build/libtunekit.a when there: seconds; else from the sources: minutes)
    local TK=1
    if [ -n "${TK_GAP:-}" ]; then
        if [ -f "$TK_GAP" ]; then
            cp "$TK_GAP" "$W/tk_gap" && chmod +x "$W/tk_gap"
            echo "== tk_gap: $TK_GAP"
        else
            echo "ncu.sh: TK_GAP=$TK_GAP does not exist: tunekit skipped"
            TK=0
        fi
    else
        echo "== bench/pytorch_gap/build.sh (t=${SECONDS}s)"
        if ! "$HERE/build.sh" "$W/tk_gap"; then
            echo "ncu.sh: tk_gap did not build: PyTorch only"
            TK=0
        fi
    fi
    local i bad=0
    if [ "$TK" = 1 ]; then
        for i in "${!ids[@]}"; do
            "$W/tk_gap" check "${ops[$i]}" "${dts[$i]}" "${shapes[$i]}" "${cfgs[$i]}" > /dev/null || {
                echo "ncu.sh: case ${ids[$i]} is malformed"; bad=1; }
        done
        [ "$bad" = 0 ] || return 1
    fi

    # metrics this ncu knows (launch__* come from the LaunchStats and Occupancy sections)
    "$NCU" --query-metrics > "$W/metrics_avail.txt" 2>&1 < /dev/null || true
    if ! grep -Eq '^[[:space:]]*dram__bytes' "$W/metrics_avail.txt"; then
        "$NCU" --query-metrics --chips gh100 > "$W/metrics_avail.txt" 2>&1 < /dev/null ||
            "$NCU" --query-metrics --chip gh100 > "$W/metrics_avail.txt" 2>&1 < /dev/null || true
    fi
    local keep=() dropped=() m
    if grep -Eq '^[[:space:]]*dram__bytes' "$W/metrics_avail.txt"; then
        for m in "${METRICS_WANT[@]}"; do
            if grep -Eq "^[[:space:]]*${m%%.*}([[:space:]]|$)" "$W/metrics_avail.txt"; then keep+=("$m"); else dropped+=("$m"); fi
        done
    else
        echo "(ncu --query-metrics gave no list: asking for every metric, sections-only on failure)"
        keep=("${METRICS_WANT[@]}")
    fi
    METRICS=$(IFS=,; printf '%s' "${keep[*]}")
    local core=()
    for m in "${keep[@]}"; do
        case $m in *.max|*.avg|*.per_second|*pct*) ;; *) core+=("$m") ;; esac
    done
    METRICS_CORE=$(IFS=,; printf '%s' "${core[*]}")
    { echo "sections: ${SECTIONS[*]}"; echo "metrics (level 0): $METRICS"
      echo "metrics (level 1): $METRICS_CORE"; echo "dropped (unknown to this ncu): ${dropped[*]:-none}"; } | tee "$W/metrics_used.txt"

    # timing, the dump's method, in this job
    : > "$W/tk_time.txt"
    : > "$W/torch_time.txt"
    if [ "$TIMING" = 1 ]; then
        echo "== timing (CUDA events, cold L2)"
        if [ "$TK" = 1 ]; then
            for i in "${!ids[@]}"; do
                timeout 120 "$W/tk_gap" time "${ops[$i]}" "${dts[$i]}" "${shapes[$i]}" "${cfgs[$i]}" 60 < /dev/null \
                    | sed "s/^/id=${ids[$i]} /" | tee -a "$W/tk_time.txt"
            done
        fi
        if [ "$TORCH" = 1 ]; then
            local idre
            idre="^($(IFS='|'; printf '%s' "${ids[*]}"))\$"
            PYTHONUNBUFFERED=1 timeout 300 python3 "$HERE/torch_gap.py" time "$HERE/cases.txt" --ids "$idre" < /dev/null \
                | tee "$W/torch_time.txt"
        fi
    fi

    # ncu
    echo "== ncu (BUDGET=${BUDGET}s, t=${SECONDS}s)"
    for i in "${!ids[@]}"; do
        if [ "$TK" = 1 ]; then
            ncu_run "${ids[$i]}__tk" "${fulls[$i]}" \
                "$W/tk_gap" profile "${ops[$i]}" "${dts[$i]}" "${shapes[$i]}" "${cfgs[$i]}" 1
        fi
        if [ "$TORCH" = 1 ] && [ "${torchs[$i]}" = yes ]; then
            ncu_run "${ids[$i]}__torch" "${fulls[$i]}" \
                env PYTHONUNBUFFERED=1 python3 "$HERE/torch_gap.py" profile "${ops[$i]}" "${dts[$i]}" "${shapes[$i]}"
        fi
    done

    # the summary, then the reports packed
    local idre_all
    idre_all="^($(IFS='|'; printf '%s' "${ids[*]}"))\$"
    python3 "$HERE/summarize.py" --cases "$HERE/cases.txt" --csv-dir "$W/csv" --ids "$idre_all" \
        --tk-time "$W/tk_time.txt" --torch-time "$W/torch_time.txt" \
        --header "gpu: $gpu; ncu: $ncu_version; $(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$OUT/summary.txt" 2>&1
    cp "$OUT/summary.txt" "$W/summary.txt"
    pack
    echo "== done in ${SECONDS}s; files under $OUT:"
    ls -la "$OUT"
    echo
    cat "$OUT/summary.txt"
}

# pack: the reports into $OUT/ncu_reports.tar.xz; when that is over 15 MiB (a returned file may
# be 16 MiB), the full-set reports go to ncu_reports_full.tar.xz instead, split into 15 MiB parts
# if need be (cat ncu_reports_full.tar.xz.part* > ncu_reports_full.tar.xz), at most 3 of them.
pack() {
    local limit=$((15 * 1024 * 1024)) size
    export XZ_OPT=${XZ_OPT:--T0}
    (cd "$W" && tar -cJf "$OUT/ncu_reports.tar.xz" reports csv tk_time.txt torch_time.txt metrics_used.txt summary.txt)
    size=$(stat -c %s "$OUT/ncu_reports.tar.xz" 2>/dev/null || echo 0)
    [ "$size" -le "$limit" ] && return
    echo "ncu_reports.tar.xz is $size bytes: the full-set reports go to a separate archive"
    local full_reps=() i
    for i in "${!ids[@]}"; do
        [ "${fulls[$i]}" = yes ] || continue
        [ -f "$W/reports/${ids[$i]}__tk.ncu-rep" ] && full_reps+=("reports/${ids[$i]}__tk.ncu-rep")
        [ -f "$W/reports/${ids[$i]}__torch.ncu-rep" ] && full_reps+=("reports/${ids[$i]}__torch.ncu-rep")
    done
    local excl=()
    for i in "${full_reps[@]}"; do excl+=(--exclude="$i"); done
    (cd "$W" && tar -cJf "$OUT/ncu_reports.tar.xz" "${excl[@]}" reports csv tk_time.txt torch_time.txt metrics_used.txt summary.txt)
    [ "${#full_reps[@]}" -gt 0 ] || return
    (cd "$W" && tar -cJf "$OUT/ncu_reports_full.tar.xz" "${full_reps[@]}")
    size=$(stat -c %s "$OUT/ncu_reports_full.tar.xz" 2>/dev/null || echo 0)
    if [ "$size" -gt $((3 * limit)) ]; then
        echo "ncu_reports_full.tar.xz is $size bytes, over 3 parts: left out (their CSVs are in ncu_reports.tar.xz)"
        rm -f "$OUT/ncu_reports_full.tar.xz"
    elif [ "$size" -gt "$limit" ]; then
        split -b "$limit" -d "$OUT/ncu_reports_full.tar.xz" "$OUT/ncu_reports_full.tar.xz.part"
        rm -f "$OUT/ncu_reports_full.tar.xz"
    fi
}

main 2>&1 | tee "$OUT/ncu_log.txt"
rc=${PIPESTATUS[0]}
rm -rf "$W"
exit "$rc"
