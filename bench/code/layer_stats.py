#!/usr/bin/env python3
"""The shape of the production tree, from its committed sources.

  bench/code/layer_stats.py [ROOT]

Prints each folder's share of production lines (.cpp and .h, every line),
the folder-level include graph (harness/ split into its subfolders), the
include cycles between folders and inside harness/, and includes that point
up the layers (docs/architecture.md). ci/check-layers enforces the rules;
this measures them."""
import os, re, sys, subprocess, itertools
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
os.chdir(root)
files = subprocess.check_output(['git', 'ls-files', '*.cpp', '*.h'], text=True).split()
prod = ('device/', 'base/', 'suite_file/', 'store/', 'detect/', 'run/', 'harness/', 'suites/', 'reports/', 'cli/', 'tools/')
def folder(path):
    parts = path.split('/')
    if parts[0] == 'harness' and len(parts) > 2:
        sub = parts[2] if parts[1] == 'src' else (parts[3] if len(parts) > 3 else '')
        if sub and not sub.endswith(('.h', '.cpp')):
            return 'harness/' + sub
        return 'harness'
    return parts[0]
inc_re = re.compile(r'^\s*#include\s+"([^"]+)"')
edges = {}
for f in files:
    if not f.startswith(prod): continue
    src = folder(f)
    for line in open(f, errors='replace'):
        m = inc_re.match(line)
        if not m: continue
        inc = m.group(1)
        top = inc.split('/')[0]
        if top in ('base', 'suite_file', 'store', 'detect', 'run', 'reports', 'suites'):
            dst = top
        elif top == 'harness':
            p = inc.split('/')
            dst = 'harness/' + p[1] if len(p) > 2 else 'harness'
        else:
            continue
        if dst != src:
            edges.setdefault(src, set()).add(dst)
# cycles (strongly connected components with >1 node)
nodes = set(edges) | {d for v in edges.values() for d in v}
index = {}; low = {}; stack = []; on = set(); sccs = []; counter = [0]
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted(nodes):
    if v not in index: strong(v)
top = lambda n: n.split('/')[0]
rank = {'device': 0, 'base': 1, 'suite_file': 2, 'store': 2, 'detect': 3, 'run': 4, 'harness': 5, 'suites': 6, 'reports': 6, 'cli': 7, 'tools': 8}
upward = [(s, d) for s, ds in edges.items() for d in ds if rank[top(d)] > rank[top(s)] or (top(s) != top(d) and rank[top(d)] == rank[top(s)])]
lines = {}
for f in files:
    if f.startswith(prod):
        with open(f, errors='replace') as fh:
            lines[f.split('/')[0]] = lines.get(f.split('/')[0], 0) + sum(1 for _ in fh)
total = sum(lines.values())
print('production lines (.cpp and .h):', total)
for name, n in sorted(lines.items(), key=lambda kv: -kv[1]):
    print('  %-11s %6d  %5.1f%%' % (name, n, 100.0 * n / total))
print('include graph:')
for s in sorted(edges): print('  ', s, '->', ', '.join(sorted(edges[s])))
print('cycles between folders:', [c for c in sccs if len({top(n) for n in c}) > 1] or 0)
print('cycles inside harness/:', [c for c in sccs if len({top(n) for n in c}) == 1] or 0)
print('upward includes:', upward or 0)
