#!/usr/bin/env python3
"""Checks that every finding of a report shows one set of figures everywhere.

usage: figures_agree.py REPORT_DIR [COMPARE_TEXT]

REPORT_DIR holds what `spyre-regress report --out DIR` wrote (report.json,
index.html, summary.md, junit.xml); COMPARE_TEXT, when given, is the terminal
output of `spyre-regress compare` for the same two runs. For each regression
in report.json, the figures phrase it stores ("13.8 us -> 93.6 us (+578%)")
must appear as the HTML table row's baseline, candidate and change cells,
the Markdown row's (for the rows summary.md lists), in the JUnit failure
text and the terminal line, and, where the finding has a chart, as the
chart's caption and its two labelled lines; its ratio must be candidate /
baseline. Prints one line per format with the number of findings checked and
exits 1 on the first disagreement.
"""
import html
import json
import math
import os
import re
import sys


def cells(row_html):
    return [html.unescape(re.sub(r"<[^>]+>", "", c))
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row_html, re.S)]


def split_figures(fig):
    m = re.fullmatch(r"(.+?) -> (.+?)(?: \(([^)]*)\))?", fig)
    return (m.group(1), m.group(2), m.group(3) or "-") if m else None


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    d = sys.argv[1]
    report = json.load(open(os.path.join(d, "report.json")))
    page = open(os.path.join(d, "index.html"), encoding="utf-8").read()
    md = open(os.path.join(d, "summary.md"), encoding="utf-8").read()
    junit = html.unescape(open(os.path.join(d, "junit.xml"), encoding="utf-8").read())
    terminal = open(sys.argv[2], encoding="utf-8").read() if len(sys.argv) == 3 else None
    regs = (report.get("comparison") or {}).get("regressions", [])
    table = re.search(r'<table id="regressions".*?</table>', page, re.S)
    rows = [cells(r) for r in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)] if table else []
    md_rows = [[html.unescape(c.strip()) for c in line.strip().strip("|").split(" | ")]
               for line in md.splitlines() if line.startswith("| ")]
    checked = {k: 0 for k in ("json ratio", "html table", "markdown", "junit", "terminal",
                              "chart caption", "chart lines")}
    bad, unlisted = [], []
    for f in regs:
        if f["kind"] in ("status", "golden_drift"):
            continue
        parts = split_figures(f["figures"])
        if parts is None:
            bad.append("unreadable figures %r" % f["figures"])
            continue
        who = "%s/%s %s" % (f["suite"], f["case"], f["kind"])
        if f["ratio"] is not None:
            checked["json ratio"] += 1
            if not math.isclose(f["ratio"], f["candidate"] / f["baseline"], rel_tol=1e-12):
                bad.append("%s: ratio %r is not candidate / baseline" % (who, f["ratio"]))
        for name, table_rows in (("html table", rows), ("markdown", md_rows)):
            mine = [r for r in table_rows if len(r) >= 7 and r[0] == f["suite"] and
                    r[1] == f["case"] and r[2] == f["kind"] and r[3] == f["metric"]]
            for r in mine:
                checked[name] += 1
                if tuple(r[4:7]) != parts:
                    bad.append("%s: %s shows %s, JSON %s" % (who, name, r[4:7], parts))
            if name == "html table" and not mine:
                bad.append("%s: no row in the HTML table" % who)
        line = "%s %s: %s" % (f["kind"], f["metric"], f["figures"])
        for name, text in (("junit", junit), ("terminal", terminal)):
            if text is None:
                continue
            if line in text:
                checked[name] += 1
            elif name == "terminal" and re.search(r"\.\.\. and \d+ more", text):
                unlisted.append(who)  # perhaps past the terminal's row limit: counted below
            else:
                bad.append("%s: %r not in %s" % (who, line, name))
        title = re.escape(html.escape("%s / %s — %s" % (f["suite"], f["case"], f["metric"]), quote=True))
        chart = re.search(r'aria-label="%s".*?</svg>' % title, page, re.S)
        if chart:
            svg = chart.group(0)
            cap = re.search(r'<text class="curl"[^>]*>([^<]*) vs run', svg)
            fb = re.search(r'<text class="fbl"[^>]*>baseline ([^<]*)</text>', svg)
            fc = re.search(r'<text class="fcl"[^>]*>candidate ([^<]*)</text>', svg)
            checked["chart caption"] += 1
            if not cap or html.unescape(cap.group(1)) != f["figures"]:
                bad.append("%s: chart caption %r" % (who, cap and html.unescape(cap.group(1))))
            checked["chart lines"] += 1
            if not fb or not fc or (html.unescape(fb.group(1)), html.unescape(fc.group(1))) != parts[:2]:
                bad.append("%s: chart lines %r %r" % (who, fb and fb.group(1), fc and fc.group(1)))
    # The terminal lists a limited number of rows, then "... and N more".
    more = sum(int(n) for n in re.findall(r"\.\.\. and (\d+) more", terminal or ""))
    if len(unlisted) > more:
        bad.append("%d findings missing from the terminal, which says %d more" % (len(unlisted), more))
    for k, n in checked.items():
        print("%-14s %d findings checked" % (k, n))
    if unlisted:
        print("terminal       %d past its row limit (\"... and %d more\")" % (len(unlisted), more))
    for b in bad:
        print("DISAGREE", b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
