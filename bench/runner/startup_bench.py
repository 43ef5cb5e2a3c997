#!/usr/bin/env python3
"""Start-up of spyre-regress processes and of `run`'s workers, interleaved.

    bench/runner/startup_bench.py [--bin build/spyre-regress] [--reps 5] [--rounds 6]
                                  [--before OLD_BINARY [--before-libs DIR]] [--bind-now]

Per configuration, interleaved rep by rep (zygote workers with the device
library preloaded, the default / zygote without the preload / exec workers; with
--bind-now also LD_BIND_NOW=1; with --before the same for another build,
e.g. main's binary with its libraries in DIR, given to it as LD_LIBRARY_PATH):
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
    ap.add_argument("--before", help="another build's binary, timed interleaved with --bin")
    ap.add_argument("--before-libs", help="its libraries' directory (LD_LIBRARY_PATH)")
    ap.add_argument("--bind-now", action="store_true", help="also time LD_BIND_NOW=1")
    a = ap.parse_args()
    base = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    spawns = {"zygote": {}, "zygote-no-preload": {"SPYRE_REGRESS_ZYGOTE_PRELOAD": "0"},
              "exec": {"SPYRE_REGRESS_ZYGOTE": "0"}}
    if a.bind_now:
        spawns["exec+bind_now"] = {"SPYRE_REGRESS_ZYGOTE": "0", "LD_BIND_NOW": "1"}
        spawns["zygote+bind_now"] = {"LD_BIND_NOW": "1"}
    builds = {"": (os.path.abspath(a.bin), {})}
    if a.before:
        builds = {"new ": builds[""]}
        libs_env = {"LD_LIBRARY_PATH": os.path.abspath(a.before_libs)} if a.before_libs else {}
        builds["old "] = (os.path.abspath(a.before), libs_env)
    configs, binaries = {}, {}
    for label, (path, env) in builds.items():
        for spawn, spawn_env in spawns.items():
            configs[label + spawn] = dict(env, **spawn_env)
            binaries[label + spawn] = path
    libs = subprocess.run(["ldd", builds[next(iter(builds))][0]], capture_output=True,
                          text=True).stdout.count("=>")
    got = {k: {"version": [], "first": [], "later": [], "run": [], "cpu": [], "preloaded": []}
           for k in configs}
    loads = []
    work = tempfile.mkdtemp(prefix="startup_bench.")
    for rep in range(a.reps):
        names = list(configs)
        if rep % 2 == 1:
            names.reverse()
        for name in names:
            env = dict(base, **configs[name])
            binary = binaries[name]
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
            got[name]["preloaded"].append(j.get("workers_device_preloaded", 0))
            assert j["worker_spawn"] == ("exec" if "exec" in name else "zygote"), j["worker_spawn"]
    print("binary maps %d shared libraries; %d reps, %d rounds; load %.1f-%.1f"
          % (libs, a.reps, a.rounds, min(loads), max(loads)))
    print("%-20s %10s %12s %14s %16s %10s %10s" % ("", "--version", "first worker",
                                                     "later workers", "CPU per worker", "run",
                                                     "preloaded"))
    for name, g in got.items():
        print("%-20s %9.3fs %11.3fs %13.3fs %15.3fs %9.2fs %6d/%d" % (
            name, statistics.median(g["version"]), statistics.median(g["first"]),
            statistics.median(g["later"]), statistics.median(g["cpu"]),
            statistics.median(g["run"]), int(statistics.median(g["preloaded"])), a.rounds))


if __name__ == "__main__":
    main()
