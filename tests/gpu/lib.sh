# lib.sh: what the GPU test scripts share (sourced; NAME, the script's name for its messages, is
# taken from it): the repository root as the working folder, the tuner $T (TUNER, default
# build/tuner), a temporary folder $tmp removed at exit, the counts, `check`, `need_gpu` and
# `finish`. Each script ends with "N passed, N failed", as tests/gpu/run.sh reads it.
set -u
NAME=$(basename "$0" .sh)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T=${TUNER:-build/tuner}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
# check DESCRIPTION COMMAND...: passes when the command exits 0 (its output goes through).
check() {
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "$NAME: FAIL: $what"; fi
}
# need_gpu: $gpus, nvidia-smi's list; without a GPU the script ends here, skipped.
need_gpu() {
    if ! gpus=$(nvidia-smi -L 2>/dev/null) || ! printf '%s\n' "$gpus" | grep -q '^GPU '; then
        echo "$NAME: skipped: no GPU found"
        echo "0 passed, 0 failed"
        exit 0
    fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
