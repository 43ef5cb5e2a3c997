#!/usr/bin/env python3
"""Start-up of spyre-regress processes and of `run`'s workers, interleaved.

    bench/runner/startup_bench.py [--bin build/spyre-regress] [--reps 5] [--rounds 6]

Per configuration, interleaved rep by rep (zygote / exec workers, with and
without LD_BIND_NOW=1):
  - `--version`: the whole process, libraries loaded and relocated;
  - a `run` of one smoke case timed in N rounds (`--latency all --rounds N`),
    each round a new worker: its `worker_startup_s` (spawn to hello) for the
    first worker and the later ones, and the run's wall time;
  - the CPU time one more worker costs: (CPU of that run - CPU of the same
    run with --rounds 1) / (N - 1), every process of the run counted (a
    loaded host stretches wall time, not CPU time).
Prints the medians with the load averages seen, and the number of shared
libraries the binary maps.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="build/spyre-regress")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--filter", default="^smoke/add\\.")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    libs = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout.count("=>")
    base = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    configs = {
        "zygote": {},
        "exec": {"SPYRE_REGRESS_ZYGOTE": "0"},
        "exec+bind_now": {"SPYRE_REGRESS_ZYGOTE": "0", "LD_BIND_NOW": "1"},
        "zygote+bind_now": {"LD_BIND_NOW": "1"},
    }
    got = {k: {"version": [], "first": [], "later": [], "run": [], "cpu": []} for k in configs}
    loads = []
    work = tempfile.mkdtemp(prefix="startup_bench.")
    for rep in range(a.reps):
        names = list(configs)
        if rep % 2 == 1:
            names.reverse()
        for name in names:
            env = dict(base, **configs[name])
            loads.append(loadavg())
            t = time.perf_counter()
            subprocess.run([binary, "--version"], env=env, capture_output=True, check=True)
            got[name]["version"].append(time.perf_counter() - t)
            cpu = {}
            for rounds in (1, a.rounds):
                db = os.path.join(work, "%s-%d-%d.db" % (name, rep, rounds))
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                out = subprocess.run(
                    [binary, "--db", db, "--quiet", "run", "--suite", "smoke", "--filter",
                     a.filter, "--latency", "all", "--rounds", str(rounds), "--min-sample-us",
                     "0", "--baseline", "none", "--confirm-rounds", "0", "--json"],
                    env=env, capture_output=True, text=True)
                wall = time.perf_counter() - t
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[rounds] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                if out.returncode != 0:
                    raise SystemExit("run failed (%d): %s" % (out.returncode, out.stderr[-500:]))
            got[name]["run"].append(wall)
            got[name]["cpu"].append((cpu[a.rounds] - cpu[1]) / (a.rounds - 1))
            j = json.loads(out.stdout)
            s = j["worker_startup_s"]
            got[name]["first"].append(s[0])
            got[name]["later"].extend(s[1:])
            assert j["worker_spawn"] == ("exec" if "exec" in name else "zygote"), j["worker_spawn"]
    print("binary maps %d shared libraries; %d reps, %d rounds; load %.1f-%.1f"
          % (libs, a.reps, a.rounds, min(loads), max(loads)))
    print("%-16s %10s %12s %14s %16s %10s" % ("", "--version", "first worker", "later workers",
                                                "CPU per worker", "run"))
    for name, g in got.items():
        print("%-16s %9.3fs %11.3fs %13.3fs %15.3fs %9.2fs" % (
            name, statistics.median(g["version"]), statistics.median(g["first"]),
            statistics.median(g["later"]), statistics.median(g["cpu"]),
            statistics.median(g["run"])))


if __name__ == "__main__":
    main()
