#!/usr/bin/env python3
"""Import cycles between the library's modules (docs/architecture.md: there
are none). Reads every `crate::`, `super::` and `self::` path in
crates/blockmodes/src (test modules left out: files named tests.rs or
bench.rs and the `#[cfg(test)] mod tests { ... }` at a file's end), maps
each to the module file it names, and reports the strongly connected
components of that graph, a module and its own submodules not counting as
a cycle. Exit status 1 when there is one.

    python3 tools/import_cycles.py [SRC]
"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "crates", "blockmodes", "src")

files = {}
for d, _, names in os.walk(src):
    for f in names:
        if not f.endswith(".rs") or f in ("tests.rs", "bench.rs"):
            continue
        p = os.path.relpath(os.path.join(d, f), src)
        text = open(os.path.join(d, f), encoding="utf-8").read()
        m = re.search(r"#\[cfg\([^\n]*test[^\n]*\)\]\s*mod tests \{", text)
        if m:
            text = text[: m.start()]
        files[p] = re.sub(r"//.*", "", text)


def module_of(path):
    parts = path[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


modules = {module_of(p) for p in files}


def resolve(cur, segs):
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] == "super":
        base = list(cur)
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    elif segs[0] == "self":
        base, segs = list(cur), segs[1:]
    else:
        return None
    full = base + segs
    for n in range(len(full), -1, -1):
        if tuple(full[:n]) in modules:
            return tuple(full[:n])
    return None


edges = {}
for p, text in files.items():
    cur = module_of(p)
    targets = set()
    for m in re.finditer(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
        targets.add(resolve(cur, m.group(1).split("::")))
    for m in re.finditer(r"\b((?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^}]*)\}", text):
        base = m.group(1).split("::")
        for item in m.group(2).split(","):
            item = item.strip().split(" ")[0].split("::")
            if item[0] and item[0] != "self":
                targets.add(resolve(cur, base + item))
    for t in targets:
        if t is None or t == cur:
            continue
        if t[: len(cur)] == cur or cur[: len(t)] == t:
            continue  # a module and its submodules
        edges.setdefault(cur, set()).add(t)

# Tarjan's strongly connected components.
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted("::".join(c) for c in comp))


for v in sorted(modules):
    if v not in index:
        visit(v)
for c in comps:
    print("import cycle:", " <-> ".join(c))
print(f"import cycles: {len(comps)} among {len(modules)} modules")
sys.exit(1 if comps else 0)
