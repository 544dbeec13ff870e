#!/usr/bin/env python3
"""Per-stage durations of one make invocation, in build/logs/timings.json.

    timings.py run NAME -- CMD...   run CMD, record how long NAME took
    timings.py table                print the recorded stages as a table

Every stage of one top-level make (the Makefile exports DLSCHED_RUN_ID,
the same for its sub-makes) goes into the same record; a stage from
another run starts a new one, so the file always describes the last run.
dlcheck records its own stages (host, each boot, demo, run) the same way
and prints the table before its closing line.
"""

import datetime
import fcntl
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))


def path():
    build = os.environ.get("BUILD", os.path.join(TOP, "build"))
    return os.path.join(build, "logs", "timings.json")


def run_id():
    # Without make's id (dlcheck by hand sets its own), a run of its own.
    return os.environ.get("DLSCHED_RUN_ID") or f"pid-{os.getpid()}"


def load(file):
    try:
        with open(file) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("stages"), list):
        return None
    return data


def add_stage(data, run, name, seconds, ok, now):
    """@data with the stage added; a fresh record when @run is another run."""
    if data is None or data.get("run") != run:
        data = {"run": run, "started": now, "stages": []}
    data["stages"].append({"stage": name, "seconds": round(seconds, 1),
                           "status": "ok" if ok else "failed"})
    data["total_seconds"] = round(sum(s["seconds"] for s in data["stages"]), 1)
    return data


def record(name, seconds, ok):
    file = path()
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    os.makedirs(os.path.dirname(file), exist_ok=True)
    # Stages may end together (make kernel-and-rootfs runs two at once):
    # one read-modify-write at a time, or a stage is lost.
    with open(file + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = add_stage(load(file), run_id(), name, seconds, ok, now)
        tmp = f"{file}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(tmp, file)


def format_table(data):
    """The stages of @data as aligned text lines, the total last."""
    if not data or not data["stages"]:
        return []
    width = max(len("total"), *(len(s["stage"]) for s in data["stages"]))
    lines = [f"{'stage':<{width}}  {'seconds':>8}  status"]
    for s in data["stages"]:
        lines.append(f"{s['stage']:<{width}}  {s['seconds']:>8.0f}  {s['status']}")
    lines.append(f"{'total':<{width}}  {data['total_seconds']:>8.0f}")
    return lines


def table():
    data = load(path())
    if data is None or data.get("run") != run_id():
        return []
    return format_table(data)


def main(argv):
    if len(argv) >= 4 and argv[1] == "run" and argv[3] == "--":
        start = time.monotonic()
        rc = subprocess.call(argv[4:])
        record(argv[2], time.monotonic() - start, rc == 0)
        return rc
    if argv[1:] == ["table"]:
        for line in format_table(load(path())):
            print(line)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
