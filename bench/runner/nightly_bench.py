#!/usr/bin/env python3
"""Whole nights of `ci/nightly`, this checkout against another, interleaved.

    bench/runner/nightly_bench.py [--reps 2] [--bin BINARY]
                                  [--before OTHER_CHECKOUT [--before-bin BINARY]]
                                  [--env K=V ...] [--before-env K=V ...]
                                  [--series N [--fault SPEC] [--keep DIR]]

Each rep runs `ci/nightly STORE REPORT_DIR` into a new store, for this
checkout (its build/spyre-regress, or --bin) and, with --before, for another
checkout with its own build (or --before-bin; e.g. a worktree of main),
alternating which goes first.
Prints per night the wall time, the CPU time of every process of the night
(children included), the load average before and after, and how many
cases kept how many wall samples (what the timing rounds cost), then the
medians and the ratio new / before.

With --series N, each side keeps one store: a first night, then N nights
that alternate between unchanged (an A/A night) and one with the wall-only
fault SPEC (default mm:delay=1.25, through SPYRE_EMU_FAULTS: the host side
of every mm takes 25% longer, modeled time and outputs unchanged), the two
sides night by night in turn. A night is judged against the newest night
without faults (`--baseline auto`). Per night: its wall and CPU time, load,
exit code, the wall-time findings, and the detection power its report
states (comparison.power: the smallest change each case would have been
found at with probability 0.95). For a night with the fault, each case's
true change is predicted from the baseline night's op summaries: the share
of its wall time spent in the faulted op times (F - 1); the cases are
counted by that prediction (10% or more, 5-10%, under 5%, no call of the
op) and by whether a wall-time regression was found. Findings on cases
that do not call the op, and any finding of an A/A night, are false.
`--fault ALL:delay=F` delays every op the baseline night's op summaries
name that the device runs (a slower build: every case moves at once), the
case's share of wall time the sum over those ops.
--keep DIR keeps the stores and reports there.
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
    got = run_night(checkout, binary, env, store, os.path.join(workdir, tag + "-report"))
    # Wall samples per case (the timing rounds before the main pass take
    # --round-repeat samples each, the main pass the suite's repeat).
    counts = collections.Counter()
    exported = subprocess.run([binary, "--db", store, "export", "--format", "jsonl"],
                              capture_output=True, text=True, check=True).stdout
    for line in exported.splitlines():
        counts[json.loads(line).get("wall_samples") or 0] += 1
    return {"wall": got["wall"], "cpu": got["cpu"], "load": got["load"], "samples": dict(counts)}


def run_night(checkout, binary, env, store, report):
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
        raise SystemExit("%s: ci/nightly exited %d:\n%s" % (store, r.returncode, r.stderr[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "load": (load0, loadavg()), "rc": r.returncode,
            "report": json.load(open(os.path.join(report, "report.json")))}


def op_shares(store, run_id, ops):
    """Per case of run_id: the share of its wall time spent in the ops (at
    most 1), 0 for a case whose op summaries name none of them."""
    marks = ",".join("?" * len(ops))
    q = ("SELECT r.suite, r.case_name, r.wall_us_median, "
         "  (SELECT sum(o.wall_us) FROM v_op_summaries o WHERE o.run_id = r.run_id "
         "   AND o.suite = r.suite AND o.case_name = r.case_name AND o.op IN (%s)) "
         "FROM v_results r WHERE r.run_id = ? AND r.wall_us_median > 0" % marks)
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    out = {}
    for suite, case, wall, op_wall in con.execute(q, list(ops) + [run_id]):
        out[(suite, case)] = min(1.0, (op_wall or 0) / wall)
    con.close()
    return out


def every_op_fault(binary, store, run_id, rest):
    """SPYRE_EMU_FAULTS delaying every op the run's op summaries name: a
    slower build moves every case at once (the device has no wildcard op).
    Summaries also name regions of the models (attention, norms) that are
    not ops; the harness's own check of the spec says which, and they are
    left out."""
    import re
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    ops = [r[0] for r in con.execute(
        "SELECT DISTINCT op FROM v_op_summaries WHERE run_id = ? ORDER BY op", (run_id,))]
    con.close()
    with tempfile.TemporaryDirectory() as tmp:
        while ops:
            spec = ";".join("%s:%s" % (op, rest) for op in ops)
            r = subprocess.run([binary, "--db", os.path.join(tmp, "check.db"), "--quiet", "run",
                                "--suite", "ops", "--filter", "^no such case$", "--baseline",
                                "none", "--inject", spec], capture_output=True, text=True)
            m = re.search(r"(?:op )?'([^']+)' (?:is not an ATen op|never reaches the device)",
                          r.stderr)
            if not m:
                # An op libtorch reaches through another name (softmax through
                # _softmax) is delayed once.
                return [op for op in ops if ("_" + op) not in ops and ("native_" + op) not in ops]
            ops.remove(m.group(1))
    raise SystemExit("%s: run %d has no op summaries of device ops to delay" % (store, run_id))


def power_summary(report):
    p = [x["detectable"] for x in (report.get("comparison") or {}).get("power", []) if x["detectable"]]
    if not p:
        return "-"
    p.sort()
    return "median %.1f%%, 90th pct %.1f%%, %d of %d at 10%% or less" % (
        100 * statistics.median(p), 100 * p[max(0, int(0.9 * len(p)) - 1)],
        sum(1 for x in p if x <= 0.10 + 1e-9), len(p))


def series(a, sides, workdir):
    fault = a.fault
    op, _, rest = fault.partition(":")
    factor = float(rest.split("=", 1)[1])
    totals = {k: collections.Counter() for k in sides}
    baseline_run = {}
    for n in range(a.series + 1):
        faulted = n % 2 == 0 and n > 0
        order = list(sides) if n % 2 == 0 else list(reversed(list(sides)))
        for name in order:
            checkout, binary, env = sides[name]
            env = dict(env)
            store = os.path.join(workdir, name + ".db")
            if faulted:
                ops = (every_op_fault(binary, store, baseline_run[name], rest) if op == "ALL"
                       else [op])
                env["SPYRE_EMU_FAULTS"] = ";".join("%s:%s" % (o, rest) for o in ops)
            got = run_night(checkout, binary, env, store,
                            os.path.join(workdir, "%s-night%d" % (name, n)))
            rep = got["report"]
            c = rep.get("comparison") or {}
            run_id = rep["run"]["run_id"]
            lat = {(f["suite"], f["case"]) for f in c.get("regressions", [])
                   if f["kind"] == "latency"}
            other = [f for f in c.get("regressions", []) if f["kind"] != "latency"]
            imp = [f for f in c.get("improvements", []) if f["kind"] == "latency"]
            line = "%-6s night %2d %-8s wall %6.1f s cpu %6.1f s load %.1f-%.1f exit %d" % (
                name, n, "fault" if faulted else ("first" if n == 0 else "A/A"), got["wall"],
                got["cpu"], got["load"][0], got["load"][1], got["rc"])
            t = totals[name]
            if n == 0:
                baseline_run[name] = run_id
            elif not faulted:
                compared = len(c.get("power", []))
                t["aa_nights"] += 1
                t["aa_findings"] += len(lat) + len(imp) + len(other)
                t["aa_compared"] += compared
                t["aa_exit1"] += got["rc"] == 1
                t["aa_wall"] += got["wall"]
                line += "  findings %d of %d compared" % (len(lat) + len(imp) + len(other), compared)
                baseline_run[name] = run_id
            else:
                shares = op_shares(store, baseline_run[name], ops)
                buckets = collections.Counter()
                for key, share in shares.items():
                    shift = share * (factor - 1)
                    b = ("none" if share == 0 else ">=10%" if shift >= 0.10 else
                         "5-10%" if shift >= 0.05 else "<5%")
                    buckets[b + " cases"] += 1
                    buckets[b + " found"] += key in lat
                off = sum(1 for k in lat if shares.get(k, 0) == 0) + len(other) + len(imp)
                for k, v in buckets.items():
                    t[k] += v
                t["off"] += off
                t["fault_nights"] += 1
                t["fault_wall"] += got["wall"]
                line += "  moved >=10%%: %d/%d, 5-10%%: %d/%d, <5%%: %d/%d, false: %d" % (
                    buckets[">=10% found"], buckets[">=10% cases"], buckets["5-10% found"],
                    buckets["5-10% cases"], buckets["<5% found"], buckets["<5% cases"], off)
            line += "  power: " + power_summary(rep)
            print(line, flush=True)
    for name, t in totals.items():
        print("%-6s A/A: %d findings in %d comparisons over %d nights (%d exit 1), mean %.1f s a night"
              % (name, t["aa_findings"], t["aa_compared"], t["aa_nights"], t["aa_exit1"],
                 t["aa_wall"] / max(1, t["aa_nights"])))
        print("%-6s fault: moved >=10%% found %d of %d, 5-10%% %d of %d, <5%% %d of %d, "
              "false %d, over %d nights, mean %.1f s a night" %
              (name, t[">=10% found"], t[">=10% cases"], t["5-10% found"], t["5-10% cases"],
               t["<5% found"], t["<5% cases"], t["off"], t["fault_nights"],
               t["fault_wall"] / max(1, t["fault_nights"])))


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
    ap.add_argument("--series", type=int, default=0,
                    help="N nights alternating unchanged and faulted after a first night")
    ap.add_argument("--fault", default="mm:delay=1.25",
                    help="the faulted nights' OP:delay=F; ALL:delay=F delays every op (a slower build)")
    ap.add_argument("--keep", help="keep the stores and reports in this directory")
    a = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    default_bin = lambda checkout: os.path.join(checkout, "build", "spyre-regress")
    sides = {"new": (here, os.path.abspath(a.bin or default_bin(here)), parse_env(a.env))}
    if a.before:
        before = os.path.abspath(a.before)
        sides["before"] = (before, os.path.abspath(a.before_bin or default_bin(before)),
                           parse_env(a.before_env))
    got = {k: [] for k in sides}
    if a.series:
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            series(a, sides, a.keep)
        else:
            with tempfile.TemporaryDirectory() as workdir:
                series(a, sides, workdir)
        return
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
