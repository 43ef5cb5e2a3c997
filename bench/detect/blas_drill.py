#!/usr/bin/env python3
"""A real BLAS change, where the cost model cannot help: OpenBLAS against
Debian's reference BLAS, judged by `run` at its defaults.

    bench/detect/blas_drill.py [--suites ops,prefill] [--filter REGEX] [--pairs 10]
                               [--drills 1] [--reference-dir DIR] [--keep DIR]
                               [--nightly] [RUN OPTIONS...]

The truth first: --pairs pairs of single-round runs (`--latency all
--confirm-rounds 0 --baseline none`), one with each BLAS, the order
alternating, all into one scratch store; a case's true change is the median
over the pairs of log(reference / OpenBLAS) of its run medians. Then each
drill records a run with OpenBLAS into a new store and one with the
reference BLAS judged against it (`run --suite S --latency all` and any RUN
OPTIONS given after the known flags: the defaults otherwise), and counts the
cases with a wall-time regression by their true change: 20% or more (each
should be found), 5-20%, and under 5% either way (any finding there is
false), with the modeled-latency findings (the model does not see the BLAS:
there should be none). The reference BLAS is reached by pointing the loader
at its directory (LD_LIBRARY_PATH), as the nightly drill does; its load
average is printed beside every run. With --nightly each drill is two
whole nights of `ci/nightly` (NIGHTLY_SUITES=SUITES) into one store instead,
judged as the night judges (the filter then applies to the truth only).
"""
import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def run(binary, store, suites, reference, ref_dir, extra, baseline="auto"):
    env = dict(os.environ)
    if reference:
        env["LD_LIBRARY_PATH"] = ref_dir + (":" + env["LD_LIBRARY_PATH"]
                                            if env.get("LD_LIBRARY_PATH") else "")
    cmd = [binary, "--db", store, "--quiet", "run", "--suite", suites, "--latency", "all",
           "--baseline", baseline, "--json"] + extra
    load = loadavg()
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit("%s exited %d:\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    j = json.loads(r.stdout)
    j["exit"] = r.returncode
    return j, time.monotonic() - t0, load


def medians(store, run_id):
    con = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    out = {(s, c): w for s, c, w in con.execute(
        "SELECT suite, case_name, wall_us_median FROM v_results WHERE run_id = ? "
        "AND wall_us_median > 0", (run_id,))}
    con.close()
    return out


def truth(binary, suites, pairs, ref_dir, workdir, select):
    store = os.path.join(workdir, "truth.db")
    ratios = {}
    for p in range(pairs):
        order = [False, True] if p % 2 == 0 else [True, False]
        got = {}
        for reference in order:
            j, secs, load = run(binary, store, suites, reference, ref_dir,
                                select + ["--confirm-rounds", "0"], baseline="none")
            got[reference] = medians(store, j["run_id"])
            print("truth pair %d %-9s %5.1f s load %.2f" %
                  (p + 1, "reference" if reference else "openblas", secs, load), flush=True)
        for key, ob in got[False].items():
            ref = got[True].get(key)
            if ref:
                ratios.setdefault(key, []).append(math.log(ref / ob))
    return {k: math.expm1(statistics.median(v)) for k, v in ratios.items()}


def night(binary, store, report, suites, reference, ref_dir):
    """One `ci/nightly` night into `store`; its report's run and comparison."""
    env = dict(os.environ, SPYRE_REGRESS=binary, NIGHTLY_SUITES=suites)
    if reference:
        env["LD_LIBRARY_PATH"] = ref_dir
    load = loadavg()
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "ci", "nightly"), store, report], env=env,
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit("ci/nightly exited %d:\n%s" % (r.returncode, r.stderr[-2000:]))
    j = json.load(open(os.path.join(report, "report.json")))
    j["exit"] = r.returncode
    return j, time.monotonic() - t0, load


def drill(binary, suites, ref_dir, extra, workdir, n, true_change, nightly=False):
    store = os.path.join(workdir, "drill-%d.db" % n)
    if nightly:
        _, secs0, load0 = night(binary, store, os.path.join(workdir, "night-%d-a" % n), suites,
                                False, ref_dir)
        j, secs, load = night(binary, store, os.path.join(workdir, "night-%d-b" % n), suites,
                              True, ref_dir)
    else:
        _, secs0, load0 = run(binary, store, suites, False, ref_dir, extra)
        j, secs, load = run(binary, store, suites, True, ref_dir, extra)
    c = j.get("comparison") or {}
    lat = {(f["suite"], f["case"]) for f in c.get("regressions", []) if f["kind"] == "latency"}
    lat_imp = {(f["suite"], f["case"]) for f in c.get("improvements", [])
               if f["kind"] == "latency"}
    modeled = [f for f in c.get("regressions", []) + c.get("improvements", [])
               if f["kind"] == "modeled_latency"]
    big = [k for k, v in true_change.items() if v >= 0.20]
    mid = [k for k, v in true_change.items() if 0.05 <= v < 0.20]
    small = [k for k, v in true_change.items() if abs(v) < 0.05]
    false = [k for k in (lat | lat_imp) if k in small or (k in lat and true_change.get(k, 0) < 0)]
    missed = sorted("%s/%s (%+.0f%%)" % (k[0], k[1], 100 * true_change[k]) for k in big
                    if k not in lat)
    print("drill %d: openblas %.1f s (load %.2f), reference %.1f s (load %.2f), exit %d; "
          "moved >=20%%: %d of %d found; 5-20%%: %d of %d; under 5%%: %d findings of %d cases; "
          "false %d; modeled-latency findings %d%s" %
          (n, secs0, load0, secs, load, j["exit"],
           sum(1 for k in big if k in lat), len(big), sum(1 for k in mid if k in lat), len(mid),
           sum(1 for k in small if k in lat | lat_imp), len(small), len(false), len(modeled),
           ("; missed: " + ", ".join(missed)) if missed else ""), flush=True)
    return len(big), sum(1 for k in big if k in lat), len(false)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default="ops,prefill")
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--drills", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "spyre-regress"))
    ap.add_argument("--reference-dir", default="/usr/lib/x86_64-linux-gnu/blas")
    ap.add_argument("--filter", help="only the cases whose suite/case matches (run --filter)")
    ap.add_argument("--nightly", action="store_true",
                    help="judge with two ci/nightly nights (its settings) instead of two runs")
    ap.add_argument("--keep", help="keep the stores in this directory")
    a, extra = ap.parse_known_args()
    select = ["--filter", a.filter] if a.filter else []
    extra = select + extra
    if not os.path.exists(os.path.join(a.reference_dir, "libblas.so.3")):
        raise SystemExit("no reference BLAS in %s: ci/setup installs libblas3" % a.reference_dir)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = a.keep or tmp
        os.makedirs(workdir, exist_ok=True)
        change = truth(a.bin, a.suites, a.pairs, a.reference_dir, workdir, select)
        buckets = [sum(1 for v in change.values() if v >= 0.2),
                   sum(1 for v in change.values() if 0.05 <= v < 0.2),
                   sum(1 for v in change.values() if abs(v) < 0.05),
                   sum(1 for v in change.values() if v <= -0.05)]
        print("truth over %d pairs: %d cases moved >=20%%, %d 5-20%%, %d under 5%% either way, "
              "%d faster by 5%% or more" % (a.pairs, *buckets), flush=True)
        found = total = false = 0
        for n in range(1, a.drills + 1):
            t, f, x = drill(a.bin, a.suites, a.reference_dir, extra, workdir, n, change,
                            a.nightly)
            total, found, false = total + t, found + f, false + x
        print("all drills: moved >=20%%: %d of %d found; false %d" % (found, total, false))


if __name__ == "__main__":
    main()
