#!/usr/bin/env python3
"""`history` on a slower build that moves every case of a suite at once.

    bench/detect/history_pulse_drill.py [--bin BINARY] [--before BINARY]
                                        [--runs 20] [--pulse 5-8] [--rounds 1]
                                        [--inject SPEC] [--keep DIR] [--reuse]

Builds two stores of real runs of the prefill suite (19 cases, one thread,
`--latency all --confirm-rounds 0 --baseline none`: history reads the main
pass; `--rounds 3` times each case in three fresh processes as the nightly
does), their runs interleaved so that both see the same host:

  pulse  runs 5-8 of 20 with a wall-only fault that slows every prefill
         case about 2x (`delay=2` on every op the suite calls: the host
         kernels take twice as long, the modeled time, the outputs and the
         harness's own host probe do not change), as a slower build would;
  A/A    20 unchanged runs;
  host   runs 5-8 of 20 with busy-loop processes beside them (`--hogs`, 2:
         one a core; `--hog-kind memory`: processes that copy buffers far
         larger than the caches instead), no fault: a slower host, which
         moves the harness's probe as well as the cases (`--hogs 0` leaves
         this store out).

Then `history --suite prefill --json` of each binary on each store
(interleaved) and counts: cases with a change point of their own at both
edges of the pulse (its first run and the run after it), at least one edge,
other change points of cases (false), the suite-level change points with
what they were put down to (the host, or not the host), and in the A/A
store every change point. The load average (1 minute) is printed beside
each figure: over the runs that made the store, and at the history call.

Also printed, per run of each store: the load before it, the median over
cases of the case's wall time relative to its usual, and from `history
--json` the suite's level, the host probe's level and the run-queue wait's
(wall time over wall time less waits), each relative to the usual run: the
data the level's attribution rule is read from.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Every op a prefill case calls on the device (their op summaries): delaying
# all of them slows the whole case, not only its matrix products.
PREFILL_OPS = ["add", "bmm", "mul", "pow", "mm", "_softmax", "cat", "neg", "mean", "silu", "div",
               "rsqrt", "index_select"]
DEFAULT_INJECT = ";".join("%s:delay=2" % op for op in PREFILL_OPS)


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def span(values):
    return "%.1f-%.1f" % (min(values), max(values)) if values else "-"


# A neighbour that works the memory system rather than a core: it copies a
# buffer far larger than the last-level cache, over and over.
MEMORY_HOG = ("a = bytearray(256 << 20)\nb = bytearray(256 << 20)\n"
              "while True:\n    b[:] = a\n    a[:] = b\n")


def start_hogs(n, kind="cpu"):
    """n busy processes (a slower host): busy loops, or memory copies with
    kind "memory"; stop_hogs ends exactly these."""
    code = MEMORY_HOG if kind == "memory" else "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]


def stop_hogs(hogs):
    for h in hogs:
        h.kill()
        h.wait()


def record_run(binary, db, inject, threads, rounds):
    cmd = [binary, "--db", db, "run", "--suite", "prefill", "--latency", "all", "--confirm-rounds",
           "0", "--baseline", "none", "--threads", str(threads), "--rounds", str(rounds), "--quiet"]
    if inject:
        cmd += ["--inject", inject]
    load = loadavg()
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return load, time.monotonic() - t0


def run_ids(binary, db):
    out = subprocess.run([binary, "--db", db, "runs", "--all", "--json"], capture_output=True,
                         text=True, check=True)
    runs = json.loads(out.stdout)["runs"]
    return sorted(r["run_id"] for r in runs if r.get("status", "completed") == "completed")


def history(binary, db):
    load = loadavg()
    t0 = time.monotonic()
    r = subprocess.run([binary, "--db", db, "history", "--suite", "prefill", "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("history on %s: exit %d\n%s" % (db, r.returncode, r.stderr[-2000:]))
    return json.loads(r.stdout), load, time.monotonic() - t0


def per_run_table(binary, db):
    """Each case's wall medians by run, and per run the median over cases of
    wall / the case's usual, from `export` (which has the wall median, not
    the one less waits, and no probe: those come from `history --json`)."""
    out = subprocess.run([binary, "--db", db, "export", "--format", "jsonl", "--table", "results",
                          "--suite", "prefill"], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    by_case = {}
    for r in rows:
        if r.get("wall_us_median"):
            by_case.setdefault(r["case_name"], {})[r["run_id"]] = r["wall_us_median"]
    by_run = {}
    for case, runs in by_case.items():
        usual = statistics.median(math.log(v) for v in runs.values())
        for run, v in runs.items():
            by_run.setdefault(run, []).append(math.log(v) - usual)
    return by_case, {run: math.exp(statistics.median(v)) for run, v in by_run.items()}


def pulse_counts(doc, ids, first, after):
    """Counts over one history document of the pulse store."""
    edges = {ids[first], ids[after]}
    per_case, suite = {}, []
    for cp in doc["change_points"]:
        if cp.get("suite_level"):
            suite.append(cp)
        elif cp["metric"] in ("unqueued_us_median", "wall_us_normalized", "wall_us_median"):
            per_case.setdefault(cp["case"], set()).add(cp["first_run_id"])
    both = sum(1 for s in per_case.values() if edges <= s)
    one = sum(1 for s in per_case.values() if s & edges)
    off = sum(len(s - edges) for s in per_case.values())
    return both, one, off, suite


def describe_suite(cps):
    if not cps:
        return "none"
    out = []
    for cp in cps:
        cause = cp.get("level_cause") or "(cause not reported)"
        witnesses = ["%s %+.1f%%" % (name, 100 * cp[key]) for name, key in
                     (("probe", "probe_relative"), ("waits", "queue_relative")) if cp.get(key) is not None]
        if cp.get("busy_before") is not None and cp.get("busy_after") is not None:
            witnesses.append("others busy %.0f%% -> %.0f%%" % (100 * cp["busy_before"],
                                                               100 * cp["busy_after"]))
        out.append("run %d %+.1f%% %s%s, %d of %d cases moved with it" % (
            cp["first_run_id"], 100 * cp["relative"], cause,
            " (%s)" % ", ".join(witnesses) if witnesses else "", len(cp["moved_with"]),
            cp["level_cases"]))
    return "; ".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", default=os.path.join(here, "..", "..", "build", "spyre-regress"))
    p.add_argument("--before", help="another binary whose history is compared on the same stores")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--pulse", default="5-8", help="first-last run (1-based) with the fault")
    p.add_argument("--inject", default=DEFAULT_INJECT)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1,
                   help="timing rounds (fresh processes) a run takes of each case; the nightly's 3")
    p.add_argument("--hog-kind", choices=["cpu", "memory"], default="cpu",
                   help="busy loops, or processes copying buffers larger than the caches")
    p.add_argument("--hogs", type=int, default=2,
                   help="busy loops beside the host store's runs 5-8 (0: no host store)")
    p.add_argument("--keep", help="keep the stores in this directory")
    p.add_argument("--reuse", action="store_true", help="read the stores in --keep, run nothing")
    o = p.parse_args()
    first, last = (int(x) for x in o.pulse.split("-"))
    workdir = o.keep or tempfile.mkdtemp(prefix="history-pulse-")
    os.makedirs(workdir, exist_ok=True)
    binary = os.path.abspath(o.bin)
    stores = {"pulse": os.path.join(workdir, "pulse.db"), "aa": os.path.join(workdir, "aa.db")}
    if o.hogs > 0:
        stores["host"] = os.path.join(workdir, "host.db")
    loads = {name: [] for name in stores}
    if not o.reuse:
        for db in stores.values():
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
        started = time.strftime("%H:%M", time.gmtime())
        for i in range(1, o.runs + 1):
            # The order of the stores turns, so none always follows another.
            names = list(stores)
            order = names[i % len(names):] + names[:i % len(names)]
            for name in order:
                pulsed = first <= i <= last
                inject = o.inject if name == "pulse" and pulsed else ""
                hogs = start_hogs(o.hogs, o.hog_kind) if name == "host" and pulsed else []
                try:
                    load, secs = record_run(binary, stores[name], inject, o.threads, o.rounds)
                finally:
                    stop_hogs(hogs)
                loads[name].append(load)
                tag = "(fault)" if inject else "(hogs) " if hogs else "       "
                print("run %2d %-5s %s load %.2f, %.0f s" % (i, name, tag, load, secs), flush=True)
        print("runs %s-%s UTC" % (started, time.strftime("%H:%M", time.gmtime())))
        with open(os.path.join(workdir, "loads.json"), "w") as f:
            json.dump(loads, f)
    elif os.path.exists(os.path.join(workdir, "loads.json")):
        loads = json.load(open(os.path.join(workdir, "loads.json")))

    binaries = [("this", binary)] + ([("before", os.path.abspath(o.before))] if o.before else [])
    docs = {}
    for name, db in stores.items():
        for label, b in binaries:  # interleaved: each store read by each binary in turn
            docs[(name, label)] = history(b, db)

    ids = {name: run_ids(binary, db) for name, db in stores.items()}
    for name, db in stores.items():
        by_case, level = per_run_table(binary, db)
        doc = docs[(name, "this")][0]
        probe = {l["run_id"]: l.get("probe") for l in doc.get("levels", [])}
        queue = {l["run_id"]: l.get("queue") for l in doc.get("levels", [])}
        busy = {l["run_id"]: l.get("busy") for l in doc.get("levels", [])}
        lvl = {l["run_id"]: l.get("level") for l in doc.get("levels", [])}
        print("\n%s store, per run: load, median wall / usual, history's level, probe and "
              "wall over wall less waits, share of the machine other processes used" % name)
        for k, run in enumerate(ids[name]):
            ld = loads[name][k] if k < len(loads[name]) else float("nan")
            fault = name in ("pulse", "host") and first <= k + 1 <= last
            fmt = lambda v: "-" if v is None else "%.3f" % v
            print("  run %2d%s load %.2f  wall x%.3f  level x%s  probe x%s  waits x%s  others %s" % (
                k + 1, "*" if fault else " ", ld, level.get(run, float("nan")), fmt(lvl.get(run)),
                fmt(probe.get(run)), fmt(queue.get(run)), fmt(busy.get(run))))
        if name in ("pulse", "host"):
            # What the fault or the hogs achieved: each case's median over the
            # pulse runs against its median over the others.
            inside = set(ids[name][first - 1:last])
            ratios = []
            for case, runs in by_case.items():
                a = [v for r, v in runs.items() if r in inside]
                b = [v for r, v in runs.items() if r not in inside]
                if a and b:
                    ratios.append(statistics.median(a) / statistics.median(b))
            print("  runs %d-%d: the cases' wall medians x%.2f-x%.2f their others' (median x%.2f)" % (
                first, last, min(ratios), max(ratios), statistics.median(ratios)))

    print("\nfigures (load: 1-minute average over the store's runs; at the history call)")
    cases = 19
    for label, _ in binaries:
        doc, hl, secs = docs[("pulse", label)]
        both, one, off, suite = pulse_counts(doc, ids["pulse"], first - 1, last)
        print("%s binary, pulse store (load %s; %.2f at history, %.1f s):" % (
            label, span(loads["pulse"]), hl, secs))
        print("  cases found at both edges (runs %d and %d): %d of %d" % (first, last + 1, both, cases))
        print("  cases found at one edge at least:            %d of %d" % (one, cases))
        print("  case change points at other runs:            %d" % off)
        print("  suite-level change points:                   %d: %s" % (len(suite), describe_suite(suite)))
        doc, hl, secs = docs[("aa", label)]
        case_cps = [cp for cp in doc["change_points"] if not cp.get("suite_level")]
        suite = [cp for cp in doc["change_points"] if cp.get("suite_level")]
        print("%s binary, A/A store (load %s; %.2f at history, %.1f s):" % (
            label, span(loads["aa"]), hl, secs))
        print("  change points of cases (false):              %d%s" % (
            len(case_cps), "".join("\n    %s %s at run %d %+.1f%%" % (
                cp["case"], cp["metric"], cp["first_run_id"], 100 * cp["relative"]) for cp in case_cps)))
        print("  suite-level change points:                   %d: %s" % (len(suite), describe_suite(suite)))
        if "host" in stores:
            doc, hl, secs = docs[("host", label)]
            both, one, off, suite = pulse_counts(doc, ids["host"], first - 1, last)
            print("%s binary, host store (load %s; %.2f at history, %.1f s):" % (
                label, span(loads["host"]), hl, secs))
            print("  cases found at both edges / one edge / other runs: %d / %d / %d of %d" % (
                both, one, off, cases))
            print("  suite-level change points:                   %d: %s" % (len(suite), describe_suite(suite)))
    print("stores in %s" % workdir)


if __name__ == "__main__":
    main()
