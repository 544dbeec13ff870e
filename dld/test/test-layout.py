#!/usr/bin/env python3
"""dld's layout: every dependency between modules, by include and by call,
goes down the layers of HACKING.md, and none runs in a circle.

Modules are source files less their extension, named with their folder
(dld/service, libdld/policy, oci-hook/oci-hook, include/dlsched/sched).
Includes are read from the sources; calls from the objects' symbols (who
defines a function, who calls it). Every exported function carries its
file's name. Usage: test-layout.py TOP OBJDIR... (BUILD/<folder>/obj for each folder)
"""
import os
import re
import subprocess
import sys

FOLDERS = ["libdld", "dld", "oci-hook", "dlconf"]
# dld's layers, from the top: a module may depend only on lower layers, on
# libdld and on include/dlsched. HACKING.md draws the same picture.
DLD_LAYERS = [
    ["main"],
    ["bus"],
    ["manager"],
    ["reload"],
    ["apply", "containers", "orphans", "service-lookup"],
    ["service"],
    ["reservation", "request", "service-threads"],
    ["journal", "polkit", "privprobe", "records", "systemd-client", "threads"],
    ["log"],
    ["types", "dld-messages"],
]
# dlconf's, likewise: main and its verb table, the check verb, then what
# the verbs share.
DLCONF_LAYERS = [
    ["dlconf", "generator"],
    ["check"],
    ["client", "format"],
    ["args"],
    ["state"],
]
# Below everything: the pure library, then the shared headers.
RANK = {f"dld/{m}": len(DLD_LAYERS) - i for i, layer in enumerate(DLD_LAYERS) for m in layer}
RANK.update({f"dlconf/{m}": len(DLCONF_LAYERS) - i for i, layer in enumerate(DLCONF_LAYERS) for m in layer})
RANK["oci-hook/oci-hook"] = len(DLD_LAYERS)
LIBDLD_RANK = 0
SHARED_RANK = -1
# Exported names that are not their file's: main() (dlconf.c, dld's
# main.c, the hook's). systemd-client.c's
# carry the part of its name that says what they talk to.
NAME_EXCEPTIONS = {"main"}
NAME_PREFIX = {"dld/systemd-client": "systemd_"}


def rank(module):
    if module.startswith("libdld/"):
        return LIBDLD_RANK
    if module.startswith("include/"):
        return SHARED_RANK
    return RANK.get(module)


def module_of(path, top):
    rel = os.path.relpath(path, top)
    return os.path.splitext(rel)[0]


def resolve_include(name, folder, top):
    for base in (os.path.join(top, folder), os.path.join(top, "libdld"), os.path.join(top, "include")):
        p = os.path.join(base, name)
        if os.path.exists(p):
            return p
    return None


def include_edges(top):
    edges, unresolved = set(), []
    for folder in FOLDERS:
        for f in sorted(os.listdir(os.path.join(top, folder))):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(top, folder, f)
            src = module_of(path, top)
            with open(path) as fh:
                for line in fh:
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    target = resolve_include(m.group(1), folder, top)
                    if target is None:
                        unresolved.append(f"{src}: {m.group(1)}")
                        continue
                    dst = module_of(target, top)
                    if dst != src:
                        edges.add((src, dst))
    return edges, unresolved


def symbols(objdirs, top_of_obj):
    """{symbol: module} of defined functions, {module: {undefined symbols}}."""
    defined, undefined = {}, {}
    for objdir, folder in objdirs:
        for f in sorted(os.listdir(objdir)):
            if not f.endswith(".o"):
                continue
            mod = f"{folder}/{f[:-2]}"
            out = subprocess.run(["nm", os.path.join(objdir, f)], capture_output=True, text=True,
                                 check=True).stdout
            undefined[mod] = set()
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] == "T":
                    defined[parts[2]] = mod
                elif len(parts) == 2 and parts[0] == "U":
                    undefined[mod].add(parts[1])
    return defined, undefined


def call_edges(defined, undefined):
    return {(mod, defined[s]) for mod, syms in undefined.items() for s in syms
            if s in defined and defined[s] != mod}


def cycle(edges):
    """One cycle of the graph, or None."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, [])):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


def upward(edges):
    """Edges that do not go strictly down the ranks (libdld among itself:
    the cycle check orders it)."""
    bad = []
    for a, b in sorted(edges):
        ra, rb = rank(a), rank(b)
        if ra is None or rb is None:
            bad.append((a, b, "a module outside the layers of test-layout.py"))
        elif ra == LIBDLD_RANK and rb == LIBDLD_RANK:
            continue
        elif ra <= rb:
            bad.append((a, b, "upward" if ra < rb else "sideways"))
    return bad


def misnamed(defined):
    bad = []
    for sym, mod in sorted(defined.items()):
        prefix = NAME_PREFIX.get(mod, os.path.basename(mod).replace("-", "_") + "_")
        if sym not in NAME_EXCEPTIONS and not sym.startswith(prefix):
            bad.append(f"{mod} exports {sym}")
    return bad


def main():
    top, objdirs = sys.argv[1], sys.argv[2:]
    folders = []
    for d in objdirs:
        # OBJDIR is BUILD/<folder>/obj
        folders.append((d, os.path.basename(os.path.dirname(os.path.abspath(d)))))
    points = []

    inc, unresolved = include_edges(top)
    defined, undefined = symbols(folders, top)
    calls = call_edges(defined, undefined)
    points.append((not unresolved, f"every #include \"...\" resolves ({len(inc)} include dependencies)",
                   unresolved))
    points.append((len(calls) >= 40, f"{len(calls)} call dependencies between {len(undefined)} objects", []))
    for kind, edges in (("include", inc), ("call", calls)):
        c = cycle(edges)
        points.append((c is None, f"no {kind} cycle between the modules of {', '.join(FOLDERS)}",
                       [" -> ".join(c)] if c else []))
        bad = upward(edges)
        points.append((not bad, f"every {kind} dependency goes down the layers",
                       [f"{a} -> {b}: {why}" for a, b, why in bad]))
    points.append((not any(m.startswith("libdld/") and b.split("/")[0] != "libdld" and
                           not b.startswith("include/") for m, b in inc | calls),
                   "libdld depends on none of the programs", []))
    points.append((not any(a.split("/")[0] != b.split("/")[0] and b.split("/")[0] not in ("libdld", "include")
                           for a, b in inc | calls),
                   "the programs depend on libdld and include/dlsched only, never on each other", []))
    bad = misnamed(defined)
    points.append((not bad, "every exported function carries its file's name", bad))

    print("TAP version 13")
    print(f"1..{len(points)}")
    failed = False
    for i, (ok, what, details) in enumerate(points, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {what}")
        for d in details:
            print(f"# {d}")
        failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
