#!/usr/bin/env python3
"""Drills with known answers for `spyre-regress bisect`.

    bench/detect/bisect_drills.py [--suites ops,prefill] [--drills all]
                                  [--bin BINARY] [--keep DIR]

Each drill changes two components at once between a baseline run and a
candidate run, then asks `bisect` which one caused each finding:

  blas+profile    reference BLAS (LD_PRELOAD) and --profile sendnn
  coretype+threads OPENBLAS_CORETYPE Haswell -> Prescott and --threads 1 -> 2
  fault+blas      reference BLAS and --inject softmax:error=1e-2

The answer is known two ways. By construction: a profile changes modeled
time only, a BLAS never changes modeled time, an `error` fault on softmax
changes only the outputs of cases that call softmax (the "a priori" rule
below). And by experiment, independent of bisect: one ordinary run per
component with only that component changed, judged against the same
baseline by `run` itself (the "single-change runs"); a finding's expected
cause is the set of single-change runs that show it (same case, same kind).

For every finding the script prints the bisect verdict and both answers,
then per drill and suite the counts: findings, attributed as the
single-change runs say, as the a-priori rule says (where it speaks), wrongly
attributed, not reproduced, undecided; with the seconds and the load
average (1 minute) before and after each step.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REF_BLAS = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"

# name -> (baseline settings, {component: candidate settings})
DRILLS = {
    "blas+profile": ({}, {"blas": {"env": {"LD_PRELOAD": REF_BLAS}},
                          "profile": {"args": ["--profile", "sendnn"]}}),
    "coretype+threads": ({"env": {"OPENBLAS_CORETYPE": "Haswell"}, "args": ["--threads", "1"]},
                         {"blas": {"env": {"OPENBLAS_CORETYPE": "Prescott"}},
                          "threads": {"args": ["--threads", "2"]}}),
    "fault+blas": ({}, {"blas": {"env": {"LD_PRELOAD": REF_BLAS}},
                        "faults": {"args": ["--inject", "softmax:error=1e-2"]}}),
}


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def merge(*settings):
    env, args = {}, []
    for s in settings:
        env.update(s.get("env", {}))
        args += s.get("args", [])
    return env, args


def run(binary, db, suite, settings, baseline, log):
    env, args = merge(*settings)
    # A later --threads wins over an earlier one in the baseline's settings.
    if args.count("--threads") > 1:
        i = args.index("--threads")
        del args[i:i + 2]
    cmd = [binary, "--db", db, "run", "--suite", suite, "--latency", "all", "--quiet",
           "--baseline", baseline] + args
    t0, l0 = time.monotonic(), loadavg()
    r = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    log.append("run %s %s: %.0f s, load %.1f -> %.1f" % (suite, " ".join(args) or "(defaults)",
                                                          time.monotonic() - t0, l0, loadavg()))
    out = subprocess.run([binary, "--db", db, "runs", "--json", "--limit", "1"], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)["runs"][0]["run_id"]


def findings(binary, db, base, cand):
    out = subprocess.run([binary, "--db", db, "compare", "--baseline", str(base), "--candidate",
                          str(cand), "--json"], capture_output=True, text=True)
    return {(f["suite"], f["case"], f["kind"]) for f in json.loads(out.stdout)["regressions"]}


def a_priori(drill, kind, case):
    """The cause by construction, where the construction says it; else None."""
    if drill == "blas+profile":
        return {"latency": {"blas"}, "modeled_latency": {"profile"}, "accuracy": {"blas"},
                "status": {"blas"}}.get(kind)
    if drill == "fault+blas":
        if kind == "modeled_latency":
            return {"faults"}  # a BLAS never moves modeled time
        if kind in ("accuracy", "status") and "softmax" in case and "mm" not in case:
            return {"faults"}
    if drill == "coretype+threads" and kind == "modeled_latency":
        return set()  # neither moves the cost model
    return None


def drill(binary, workdir, suite, name, log):
    base_settings, parts = DRILLS[name]
    db = os.path.join(workdir, "%s-%s.db" % (suite, name.replace("+", "-")))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    a = run(binary, db, suite, [base_settings], "none", log)
    c = run(binary, db, suite, [base_settings] + list(parts.values()), str(a), log)
    single = {}
    for comp, s in parts.items():
        b = run(binary, db, suite, [base_settings, s], str(a), log)
        single[comp] = findings(binary, db, a, b)
    t0, l0 = time.monotonic(), loadavg()
    env, _ = merge(base_settings)
    r = subprocess.run([binary, "--db", db, "bisect", str(c), "--against", str(a), "--json"],
                       env=dict(os.environ, **env), capture_output=True, text=True)
    if r.returncode == 2 and "has no finding" in r.stderr:
        # Nothing flagged, so nothing to attribute: a drill with no finding.
        log.append("bisect %s %s: no finding to attribute" % (suite, name))
        return dict(findings=0, single_agree=0, prior_agree=0, prior_known=0, wrong=0,
                    not_reproduced=0, undecided=0, together=0)
    if r.returncode != 0:
        sys.exit("bisect: exit %d\n%s" % (r.returncode, r.stderr[-2000:]))
    out = json.loads(r.stdout)
    log.append("bisect %s %s: %.0f s, load %.1f -> %.1f, %d round(s), seconds %s" % (
        suite, name, time.monotonic() - t0, l0, loadavg(), out["rounds"],
        {k: round(v) for k, v in out["seconds"].items()}))
    counts = dict(findings=0, single_agree=0, prior_agree=0, prior_known=0, wrong=0,
                  not_reproduced=0, undecided=0, together=0)
    for f in out["findings"]:
        key = (f["suite"], f["case"], f["kind"])
        expected = {comp for comp, found in single.items() if key in found}
        named = set(f["components"]) if f["verdict"] in ("caused", "each", "together") else set()
        prior = a_priori(name, f["kind"], f["case"])
        counts["findings"] += 1
        counts["single_agree"] += named == expected and (bool(named) or f["verdict"] != "undecided")
        if prior is not None:
            counts["prior_known"] += 1
            counts["prior_agree"] += named == prior
            counts["wrong"] += bool(named - prior)
        counts["not_reproduced"] += f["verdict"] == "not_reproduced"
        counts["undecided"] += f["verdict"] == "undecided"
        counts["together"] += f["verdict"] == "together"
        print("  %s %s %s: %s %s | single-change runs: %s | a priori: %s" % (
            suite, f["case"], f["kind"], f["verdict"], ",".join(sorted(named)) or "-",
            ",".join(sorted(expected)) or "-", "?" if prior is None else ",".join(sorted(prior)) or "-"))
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--suites", default="ops,prefill")
    p.add_argument("--drills", default="all")
    p.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                                 "spyre-regress"))
    p.add_argument("--keep", help="keep the stores in this directory")
    o = p.parse_args()
    names = list(DRILLS) if o.drills == "all" else o.drills.split(",")
    workdir = o.keep or tempfile.mkdtemp(prefix="bisect-drills-")
    os.makedirs(workdir, exist_ok=True)
    # Accuracy drift inside tolerance counts as a finding here (by default it
    # is a note): a kernel-set or BLAS change moves fp32 sums by a hair, and
    # those drifts are findings with a known cause for the drills to check.
    thresholds = os.path.join(workdir, "thresholds.json")
    with open(thresholds, "w") as f:
        json.dump({"defaults": {"accuracy_drift_fails": True}}, f)
    os.environ["SPYRE_REGRESS_THRESHOLDS"] = thresholds
    os.makedirs(workdir, exist_ok=True)
    binary = os.path.abspath(o.bin)
    summary = []
    for suite in o.suites.split(","):
        for name in names:
            log = []
            print("%s on %s" % (name, suite), flush=True)
            counts = drill(binary, workdir, suite, name, log)
            for line in log:
                print("  " + line)
            summary.append((name, suite, counts))
            sys.stdout.flush()
    print("drill            suite    findings  as-single-runs  a-priori(known)  wrong  together  "
          "not-reproduced  undecided")
    for name, suite, c in summary:
        print("%-16s %-8s %8d  %14d  %8d (%4d)  %5d  %8d  %14d  %9d" % (
            name, suite, c["findings"], c["single_agree"], c["prior_agree"], c["prior_known"], c["wrong"],
            c["together"], c["not_reproduced"], c["undecided"]))


if __name__ == "__main__":
    main()
