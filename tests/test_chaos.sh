#!/usr/bin/env bash
# The chaos test, bounded (issue 18): CHAOS_RUNS cases (default 64) of seed
# CHAOS_SEED (default 18) from scripts/chaos, which walks lock mode x
# primitive x workers {1,2,3,8} x devices (null, ram, file) x fault mixes
# (busy, short, eio, delay, hang) x how the run ends (runtime, watchdog,
# a signal and the grace, two signals).  Any 64 consecutive cases cover
# every mode x primitive x workers, every mode x primitive pair four times,
# and cover every device kind x fault kind of the first device; the seed
# fixes the cases, so CI runs the same ones.
# Each run must end, exit 0/1 as its errors say (130/143 when a signal
# ended it), keep exactly-once (submitted = completed + abandoned, every
# abandoned bio listed) and write valid JSON; no sanitizer report.
# A failure prints its replay line: scripts/chaos --seed S --case I.
# Soak runs: scripts/chaos --duration SECONDS (a random seed, printed).
. "$(dirname "$0")/lib.sh"
need python3
seed=${CHAOS_SEED:-18}
runs=${CHAOS_RUNS:-64}
python3 "$SRCDIR/scripts/chaos" --rqlock "$RQLOCK" --seed "$seed" --runs "$runs" --tmpdir "$TMP" ||
	fail "chaos seed $seed: a case failed (replay: scripts/chaos --seed $seed --case I, shown above)"
# Cases that once failed, replayed: 4242/879 (per-queue, mutex, 8 workers,
# busy and short faults on a file) hung 1 run in 4 when a worker left with
# an SQE it had not submitted; 40 replays all pass only when it is fixed.
replay=()
for _ in $(seq 40); do replay+=(--case 879); done
python3 "$SRCDIR/scripts/chaos" --rqlock "$RQLOCK" --seed 4242 "${replay[@]}" --tmpdir "$TMP" ||
	fail "chaos seed 4242 case 879 (an unsubmitted SQE stranded at worker exit) failed again"
echo "test_chaos: ok (seed $seed, $runs cases; 40 replays of 4242/879)"
