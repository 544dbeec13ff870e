#!/usr/bin/env python3
"""Two or more make bench runs side by side: one markdown table.

    bench/compare.py NAME=results.json NAME=results.json... [> table.md]

Each run's figures as bench/report.py makes them, joined on (part,
figure): value and verdict per run, the goal once.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def rows_of(path):
    with tempfile.TemporaryDirectory() as d:
        rep, _, _ = report.build(json.load(open(path)), d)
    return rep.rows


def main(argv):
    runs = [a.split("=", 1) for a in argv[1:]]
    if not runs or any(len(r) != 2 for r in runs):
        print(__doc__, file=sys.stderr)
        return 2
    order, table = [], {}
    for i, (_, path) in enumerate(runs):
        for part, fig, val, goal, verdict in rows_of(path):
            key = (part, fig)
            if key not in table:
                order.append(key)
                table[key] = {"goal": goal, "runs": {}}
            table[key]["runs"][i] = (val, verdict)
    names = [n for n, _ in runs]
    print("| part | figure | goal | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for key in order:
        t = table[key]
        cells = []
        for i in range(len(runs)):
            val, verdict = t["runs"].get(i, ("-", "-"))
            cells.append(f"{val}" + ("" if verdict == "-" else f" **{verdict}**" if verdict == "MISSED" else f" ({verdict})"))
        print(f"| {key[0]} | {key[1]} | {t['goal']} | " + " | ".join(cells) + " |")
    met = [sum(1 for k in order if table[k]["runs"].get(i, ("", ""))[1] == "pass") for i in range(len(runs))]
    missed = [sum(1 for k in order if table[k]["runs"].get(i, ("", ""))[1] == "MISSED") for i in range(len(runs))]
    print()
    print("; ".join(f"{n}: {m} goals met, {x} missed" for n, m, x in zip(names, met, missed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
