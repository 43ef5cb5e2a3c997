#!/usr/bin/env python3
"""Whole nights of `ci/nightly`, this checkout against another, interleaved.

    bench/runner/nightly_bench.py [--reps 2] [--bin BINARY]
                                  [--before OTHER_CHECKOUT [--before-bin BINARY]]
                                  [--env K=V ...] [--before-env K=V ...]

Each rep runs `ci/nightly STORE REPORT_DIR` into a new store, for this
checkout (its build/spyre-regress, or --bin) and, with --before, for another
checkout with its own build (or --before-bin; e.g. a worktree of main),
alternating which goes first.
Prints per night the wall time, the CPU time of every process of the night
(children included), the load average before and after, and how many
cases kept how many wall samples (what the timing rounds cost), then the
medians and the ratio new / before.
"""
import argparse
import collections
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def night(checkout, binary, env, workdir, tag):
    store = os.path.join(workdir, tag + ".db")
    report = os.path.join(workdir, tag + "-report")
    full_env = dict(os.environ, SPYRE_REGRESS=binary)
    full_env.update(env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = loadavg()
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(checkout, "ci", "nightly"), store, report], env=full_env,
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        raise SystemExit("%s: ci/nightly exited %d:\n%s" % (tag, r.returncode, r.stderr[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # Wall samples per case (the timing rounds before the main pass take
    # --round-repeat samples each, the main pass the suite's repeat).
    counts = collections.Counter()
    exported = subprocess.run([binary, "--db", store, "export", "--format", "jsonl"],
                              capture_output=True, text=True, check=True).stdout
    for line in exported.splitlines():
        counts[json.loads(line).get("wall_samples") or 0] += 1
    return {"wall": wall, "cpu": cpu, "load": (load0, loadavg()), "samples": dict(counts)}


def parse_env(pairs):
    out = {}
    for p in pairs or []:
        k, _, v = p.partition("=")
        out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--bin", help="this checkout's binary (default build/spyre-regress)")
    ap.add_argument("--before", help="another checkout with its own build/spyre-regress")
    ap.add_argument("--before-bin", help="the other checkout's binary")
    ap.add_argument("--env", action="append", help="K=V for this checkout's nights")
    ap.add_argument("--before-env", action="append", help="K=V for the other checkout's nights")
    a = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    default_bin = lambda checkout: os.path.join(checkout, "build", "spyre-regress")
    sides = {"new": (here, os.path.abspath(a.bin or default_bin(here)), parse_env(a.env))}
    if a.before:
        before = os.path.abspath(a.before)
        sides["before"] = (before, os.path.abspath(a.before_bin or default_bin(before)),
                           parse_env(a.before_env))
    got = {k: [] for k in sides}
    with tempfile.TemporaryDirectory() as workdir:
        for rep in range(a.reps):
            order = list(sides) if rep % 2 == 0 else list(reversed(list(sides)))
            for name in order:
                checkout, binary, env = sides[name]
                n = night(checkout, binary, env, workdir, "%s-%d" % (name, rep))
                got[name].append(n)
                print("%-6s rep %d: wall %6.1f s  cpu %6.1f s  load %.1f-%.1f  "
                      "cases by wall samples %s" %
                      (name, rep + 1, n["wall"], n["cpu"], n["load"][0], n["load"][1],
                       json.dumps(dict(sorted(n["samples"].items())))), flush=True)
    med = {k: (statistics.median(x["wall"] for x in v), statistics.median(x["cpu"] for x in v))
           for k, v in got.items()}
    for k, (w, c) in med.items():
        print("%-6s median: wall %.1f s, cpu %.1f s" % (k, w, c))
    if "before" in med:
        print("new / before: wall %.2fx, cpu %.2fx" %
              (med["new"][0] / med["before"][0], med["new"][1] / med["before"][1]))


if __name__ == "__main__":
    main()
