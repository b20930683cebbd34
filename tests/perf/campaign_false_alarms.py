#!/usr/bin/env python3
"""The figures of tests/perf/campaign_false_alarms.sh.

campaign_false_alarms.py CAMPAIGNS_TXT HISTORY_DB

CAMPAIGNS_TXT: one campaign summary line per campaign ("... finished: 10 of
10 node(s) measured; pass P, degraded D, fail F, suspect S, untested U; K
second pass(es)"). HISTORY_DB: the coordinator's history (its node_results
table: every judged group result in order, with its reference and the
peers' spread). Prints what the shell script's header describes; every
figure is counted from these inputs.
"""
import re
import sqlite3
import statistics
import sys
from collections import deque

WARN = 0.9          # warn_fraction's default
SPREADS = 3         # kPeerSpreadMultiple
POOL = 200          # kNoisePoolSize
MIN_POOL = 5       # kMinNoisePool
MAD_SCALE = 1.4826  # ScaledMad's factor


def campaign_counts(path):
    named = second = n = 0
    pattern = re.compile(
        r"pass (\d+), degraded (\d+), fail (\d+), suspect (\d+), "
        r"untested (\d+); (\d+) second pass")
    with open(path) as f:
        for line in f:
            m = pattern.search(line)
            if m:
                n += 1
                _, degraded, fail, _, _, passes = map(int, m.groups())
                named += degraded + fail
                second += passes
    return n, named, second


def below(busbw, ref, spread):
    """Low or bad in the rules' sense (core/node_verdict.h's Classify)."""
    return busbw < ref - SPREADS * spread and busbw < WARN * ref


def scaled_mad(values):
    m = statistics.median(values)
    return MAD_SCALE * statistics.median(abs(v - m) for v in values)


def judged_both_ways(db):
    """(results, low on peers' spread alone, low on the wider of theirs and
    the plan's noise, that noise at the end): the same stored results."""
    rows = sqlite3.connect(db).execute(
        "SELECT busbw, reference_busbw, reference_spread FROM node_results"
        " WHERE ok = 1 AND data_wrong = 0 AND reference_spread > 0"
        " AND busbw > 0 ORDER BY id").fetchall()
    pool = deque(maxlen=POOL)
    old = new = 0
    for busbw, ref, spread in rows:
        noise = scaled_mad(pool) if len(pool) >= MIN_POOL else 0
        old += below(busbw, ref, spread)
        new += below(busbw, ref, max(spread, noise * ref))
        pool.append(busbw / ref)
    return len(rows), old, new, (scaled_mad(pool) if len(pool) >= MIN_POOL
                                 else 0)


def main():
    n, named, second = campaign_counts(sys.argv[1])
    total, old, new, noise = judged_both_ways(sys.argv[2])
    print(f"campaigns {n}: nodes named (degraded or fail) {named}"
          f" = {named / max(n * 10, 1):.3f} per node per campaign;"
          f" second passes (first-pass suspects) {second}")
    print(f"group results {total}, the plan's noise at the end"
          f" {100 * noise:.1f} % (robust sd of busbw / reference);"
          f" low or bad on the peers' spread alone {old}"
          f" ({old / max(total, 1):.3f}), on the wider of it and the"
          f" plan's noise {new} ({new / max(total, 1):.3f})")


if __name__ == "__main__":
    main()
