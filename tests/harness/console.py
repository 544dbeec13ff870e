"""Find kernel splats in a guest console log.

Any of these fails a guest run whatever the tests said: they mean the
kernel found a bug in itself, and the code under test is the kernel.
"""

import re

SPLATS = [
    ("oops", re.compile(r"\bOops: ")),
    ("BUG", re.compile(r"\bBUG: ")),
    ("kernel BUG", re.compile(r"kernel BUG at ")),
    ("WARN", re.compile(r"WARNING: CPU: \d+ PID: \d+")),
    ("WARN", re.compile(r"-{12}\[ cut here \]-{12}")),
    ("panic", re.compile(r"Kernel panic - not syncing")),
    ("general protection fault", re.compile(r"general protection fault")),
    ("KASAN", re.compile(r"\bKASAN: ")),
    ("UBSAN", re.compile(r"\bUBSAN: ")),
    ("lockdep", re.compile(r"possible circular locking dependency detected")),
    ("lockdep", re.compile(r"possible recursive locking detected")),
    ("lockdep", re.compile(r"inconsistent lock state")),
    ("lockdep", re.compile(r"suspicious RCU usage")),
    ("lockdep", re.compile(r"bad unlock balance detected")),
    ("lockdep", re.compile(r"INFO: lockdep is turned off")),
    ("hung task", re.compile(r"INFO: task \S+ blocked for more than")),
]

# Reported but not failed: emulation on a loaded host can starve a vCPU.
NOTICES = [
    ("RCU stall", re.compile(r"rcu: INFO: \S+ (self-)?detected stall")),
]

_TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s*")


def scan(text):
    """Return (splats, notices): lists of (kind, line) in log order."""
    splats, notices = [], []
    seen = set()
    for raw in text.splitlines():
        line = _TIMESTAMP.sub("", raw.strip())
        for kind, pattern in SPLATS:
            if pattern.search(line):
                # One "cut here" + its WARNING line is one splat.
                if kind == "WARN" and "cut here" in line:
                    break
                if (kind, line) not in seen:
                    seen.add((kind, line))
                    splats.append((kind, line))
                break
        else:
            for kind, pattern in NOTICES:
                if pattern.search(line):
                    notices.append((kind, line))
    return splats, notices


_FRAME = re.compile(r"^\s*(?:\? )?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")
_RIP = re.compile(r"^RIP: \S+:(\S+)")


def where(text, limit=8):
    """Where the first oops, BUG or WARN of a console log happened, in one
    line: "RIP fn; fn < caller < ..." (certain frames only), or "" if the log
    has no such report. A CI log keeps only the summary's lines; this puts
    the place of a crash there."""
    lines = [_TIMESTAMP.sub("", raw.strip()) for raw in text.splitlines()]
    start = None
    for i, line in enumerate(lines):
        if any(p.search(line) for kind, p in SPLATS if kind in ("oops", "BUG", "kernel BUG", "WARN",
                                                                  "general protection fault", "KASAN")):
            start = i
            break
    if start is None:
        return ""
    rip, frames = "", []
    for line in lines[start:start + 80]:
        if "end trace" in line:
            break
        m = _RIP.match(line)
        if m and not rip:
            rip = m.group(1)
            continue
        m = _FRAME.match(line)
        if m and not line.lstrip().startswith("?") and len(frames) < limit:
            frames.append(m.group(1))
    parts = [f"RIP {rip}"] if rip else []
    if frames:
        parts.append(" < ".join(frames))
    return "; ".join(parts)
