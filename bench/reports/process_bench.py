#!/usr/bin/env python3
"""Whole spyre-regress processes, two builds interleaved: start-up, report, a smoke run.

    bench/reports/process_bench.py --store STORE.db [--bin build/spyre-regress]
                                   [--before OLD_BINARY] [--reps 5] [--skip-run]

STORE.db is the long-history store (365 runs x 300 cases) that
`build/bench_reports --write-store STORE.db` writes. Per rep, for each build
in turn (the order alternating from rep to rep), each as a whole process:
  - `--version`;
  - `report --db STORE.db --out DIR` (the newest run, all four formats);
  - `run --suite smoke` into a new store (parity, the defaults), workers
    included (unless --skip-run).
Wall time and CPU time (user + system of the process and every process it
waited for) are taken per process, with the load average before each. Both
builds get the same environment: one libtorch and one BLAS thread
(OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1; a run's workers use one thread
each by default). Prints medians and min-max, and new / old ratios of the
medians.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def timed(argv, env):
    """(wall s, CPU s) of one process and the processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit("%s: exit %d\n%s" % (" ".join(argv), r.returncode, r.stderr))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="build/spyre-regress")
    ap.add_argument("--before", help="another build's binary, timed interleaved with --bin")
    ap.add_argument("--store", required=True, help="the store `bench_reports --write-store` wrote")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--skip-run", action="store_true", help="no `run --suite smoke`")
    a = ap.parse_args()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    builds = {"new": os.path.abspath(a.bin)}
    if a.before:
        builds["old"] = os.path.abspath(a.before)
    store = os.path.abspath(a.store)
    work = tempfile.mkdtemp(prefix="process_bench.")
    kinds = ["version", "report"] + ([] if a.skip_run else ["run"])
    got = {b: {k: {"wall": [], "cpu": []} for k in kinds} for b in builds}
    loads = []
    try:
        for rep in range(a.reps):
            names = list(builds)
            if rep % 2 == 1:
                names.reverse()
            for name in names:
                binary = builds[name]
                runs = {
                    "version": [binary, "--version"],
                    "report": [binary, "--db", store, "report", "--out",
                               os.path.join(work, "report-%s-%d" % (name, rep))],
                    "run": [binary, "--db", os.path.join(work, "%s-%d.db" % (name, rep)), "-q",
                            "run", "--suite", "smoke", "--baseline", "none"],
                }
                for kind in kinds:
                    loads.append(loadavg())
                    wall, cpu = timed(runs[kind], env)
                    got[name][kind]["wall"].append(wall)
                    got[name][kind]["cpu"].append(cpu)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("load average (1 min) seen: %.2f-%.2f; %d rep(s), order alternating; "
          "OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1" % (min(loads), max(loads), a.reps))
    print("%-8s %-4s %28s %28s" % ("process", "", "wall s, median (min-max)",
                                    "CPU s, median (min-max)"))
    for kind in kinds:
        for name in builds:
            w, c = got[name][kind]["wall"], got[name][kind]["cpu"]
            print("%-8s %-4s %12.3f (%.3f-%.3f) %15.3f (%.3f-%.3f)" % (
                kind, name, statistics.median(w), min(w), max(w),
                statistics.median(c), min(c), max(c)))
        if "old" in builds:
            rw = statistics.median(got["new"][kind]["wall"]) / statistics.median(got["old"][kind]["wall"])
            rc = statistics.median(got["new"][kind]["cpu"]) / statistics.median(got["old"][kind]["cpu"])
            print("%-8s new / old: wall %.2fx, CPU %.2fx" % (kind, rw, rc))


if __name__ == "__main__":
    main()
