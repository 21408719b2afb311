# Shared by scripts/deposit-instructions and scripts/deposit-syscalls: run the deposit
# benchmark four times under a counting tool (each side alone, with one round and with two,
# ITEMS tiny datasets each), so that two rounds minus one is one round of each side without
# the datasets' preparation.
#
# Source it with NAME (the script's name, for messages) and ITEMS set. It checks ITEMS,
# builds the bench binary ($bench) and makes a scratch folder ($work, removed on exit).
# `run_each_side` then calls the script's own `under_tool STEM` four times, with the
# benchmark's settings in its environment; under_tool runs "$bench" under the tool and
# writes what the tool counted to files named STEM.* (STEM is $work/SIDE-ROUNDS, SIDE raw
# or guarded, ROUNDS 1 or 2). What the run printed is kept in STEM.log.

[[ "$ITEMS" =~ ^[1-9][0-9]*$ ]] ||
    { echo "$NAME: ITEMS must be a whole number of datasets, not '$ITEMS'" >&2; exit 2; }
bench=$(cargo bench --locked --bench deposit --no-run --message-format=json 2>/dev/null |
    grep -oP '"executable":"\K[^"]+' | tail -1)
[ -x "$bench" ] || { echo "$NAME: no deposit bench binary was built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/lodge-$NAME.XXXXXX")
trap 'rm -rf "$work"' EXIT

run_each_side() {
    local side rounds
    for side in raw guarded; do for rounds in 1 2; do
        LODGE_BENCH_ONLY=$side LODGE_BENCH_ROUNDS=$rounds LODGE_BENCH_ITEMS=$ITEMS \
            TMPDIR=$work under_tool "$work/$side-$rounds" >"$work/$side-$rounds.log" 2>&1 ||
            { cat "$work/$side-$rounds.log" >&2; exit 1; }
    done; done
}
