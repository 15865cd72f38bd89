#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/deps_graph.py - Which file of the daemon uses which: includes and
#			symbols, the folders' order, and circles
#
# Usage: test/deps_graph.py OBJDIR [--check] [--budget N] [--pairs-budget M]
#
# Two graphs over the daemon's sources (lib/, conf/, tap/, passt/, splice/,
# entry/):
#   includes: file A includes a header of file B ("#include" lines);
#   symbols:  object A uses a symbol that object B defines (nm of OBJDIR's
#	      objects: calls, and data such as counters).
# A header and its .c count as one node (passt/tcp.h belongs to passt/tcp).
# Prints the edges between folders with their counts, then the circles:
# groups of files that reach each other (strongly connected components of
# the union of both graphs, Tarjan's algorithm), largest first.
#
# --check: exit 1 if a folder uses one that comes after it in the order
# lib/ <- conf/ <- tap/ <- passt/ <- splice/ <- entry/ (each may use only those to its left),
# or if a circle spans more than one folder.
#
# The knot of passt/: the size of passt/'s largest circle (its largest
# strongly connected component, in files, of the same union graph: two files
# that include or call each other, directly or through a longer cycle), and
# the number of two-way pairs (A uses B and B uses A, any folder).  With
# --budget N (--pairs-budget M), --check also fails if the circle has more
# than N files (more than M two-way pairs): the Makefile's budgets, which
# may only go down.
import os
import re
import subprocess
import sys

ORDER = ["lib", "conf", "tap", "passt", "splice", "entry"]
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def node_of(path):
    """passt/tcp.c and passt/tcp.h are the node passt/tcp"""
    return os.path.splitext(os.path.normpath(path))[0]


def sources(top):
    out = []
    for d in ORDER:
        for f in sorted(os.listdir(os.path.join(top, d))):
            if f.endswith((".c", ".h")):
                out.append(os.path.join(d, f))
    return out


def include_edges(top, files):
    edges = set()
    for f in files:
        with open(os.path.join(top, f), encoding="utf-8") as fh:
            text = fh.read()
        for inc in INC.findall(text):
            target = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if target.split(os.sep)[0] in ORDER and \
               os.path.exists(os.path.join(top, target)):
                a, b = node_of(f), node_of(target)
                if a != b:
                    edges.add((a, b))
    return edges


def symbol_edges(top, objdir):
    defs, uses = {}, {}
    for d in ORDER:
        od = os.path.join(objdir, d)
        if not os.path.isdir(od):
            continue
        for f in sorted(os.listdir(od)):
            # stale objects of sources that moved or went away don't count
            if not f.endswith(".o") or \
               not os.path.exists(os.path.join(top, d, f[:-2] + ".c")):
                continue
            node = os.path.join(d, f[:-2])
            out = subprocess.run(["nm", os.path.join(od, f)], check=True,
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    uses.setdefault(node, set()).add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBR":
                    defs[parts[2]] = node
    edges = set()
    for node, syms in uses.items():
        for s in syms:
            if s in defs and defs[s] != node:
                edges.add((node, defs[s]))
    return edges


def sccs(nodes, edges):
    """Tarjan: strongly connected components with more than one node"""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # iterative, so deep graphs don't hit Python's recursion limit
        work = [(v, iter(succ[v]))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ[w])))
                    pushed = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for n in sorted(succ):
        if n not in index:
            visit(n)
    return sorted(out, key=len, reverse=True)


def main():
    if len(sys.argv) < 2:
        print(__doc__ if __doc__ else "usage: deps_graph.py OBJDIR [--check]")
        return 2
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    objdir = sys.argv[1]
    check = "--check" in sys.argv[2:]
    budget = pairs_budget = None
    for i, a in enumerate(sys.argv):
        if a == "--budget":
            budget = int(sys.argv[i + 1])
        elif a == "--pairs-budget":
            pairs_budget = int(sys.argv[i + 1])
    files = sources(top)
    inc = include_edges(top, files)
    sym = symbol_edges(top, objdir)
    bad = 0

    for name, edges in (("includes", inc), ("symbols", sym)):
        count = {}
        for a, b in edges:
            fa, fb = a.split(os.sep)[0], b.split(os.sep)[0]
            if fa != fb:
                count[(fa, fb)] = count.get((fa, fb), 0) + 1
        print(f"{name}: folder -> folder (file pairs)")
        for (fa, fb), n in sorted(count.items()):
            wrong = ORDER.index(fb) > ORDER.index(fa)
            print(f"  {fa:6} -> {fb:6} {n:3}{'  WRONG WAY' if wrong else ''}")
            if wrong:
                bad += 1
                for a, b in sorted(edges):
                    if a.startswith(fa + os.sep) and b.startswith(fb + os.sep):
                        print(f"      {a} -> {b}")

    nodes = {node_of(f) for f in files}
    circles = sccs(nodes, inc | sym)
    print(f"circles (files that reach each other): {len(circles)}")
    for c in circles:
        folders = sorted({n.split(os.sep)[0] for n in c})
        across = len(folders) > 1
        print(f"  {len(c)} files{' ACROSS ' + ','.join(folders) if across else ''}: "
              + " ".join(c))
        if across:
            bad += 1
    both = inc | sym
    pairs = sorted((a, b) for a, b in both if a < b and (b, a) in both)
    print(f"two-way pairs: {len(pairs)}")
    for a, b in pairs:
        print(f"  {a} <-> {b}")
    knot = max((len(c) for c in circles
                if all(n.startswith("passt" + os.sep) for n in c)), default=0)
    print(f"passt/ largest circle: {knot} files"
          + (f" (budget {budget})" if budget is not None else ""))
    if budget is not None and knot > budget:
        print(f"deps: passt/'s largest circle grew to {knot} files, "
              f"budget {budget}")
        bad += 1
    if pairs_budget is not None and len(pairs) > pairs_budget:
        print(f"deps: {len(pairs)} two-way pairs, budget {pairs_budget}")
        bad += 1
    if check and bad:
        print(f"deps: {bad} problem(s): folders must use only those before "
              f"them in {' <- '.join(f + '/' for f in ORDER)}, no circle "
              f"across folders, circle and pairs within their budgets")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
