"""TAP and guest-results parsing for the dlsched test harness.

A TAP stream here is one or more TAP documents back to back (each test
program prints its own), as kselftest and our shell helpers write them:

    TAP version 13
    1..3
    ok 1 - name
    not ok 2 - name
    ok 3 - name # SKIP reason

A document whose plan does not match the test points it printed, or that
printed none and no skip plan, counts as a failure: a test that died half
way must not pass by omission.
"""

import re
from collections import namedtuple
from dataclasses import dataclass, field

KSFT_SKIP = 4  # kselftest's exit status for "skipped"
MAX_DIAGNOSTICS = 12  # lines kept per failed point

_PLAN = re.compile(r"^\s*1\.\.(\d+)(\s*#\s*(.*))?$")
# kselftest's closing line (ksft_finished(), ksft_exit_*()).
_KSFT_TOTALS = re.compile(r"^\s*# Totals: pass:\d+ fail:\d+")
_POINT = re.compile(r"^\s*(not ok|ok)\b\s*(\d+)?\s*-?\s*([^#]*?)\s*(#\s*(.*))?$")
# The runner's line after each test (vm/guest/dlsched-run-tests).
_POOL_AFTER = re.compile(r"^# sched_dl_total_bw after \S+: (\d+)\b")


@dataclass
class Result:
    """One outcome: a TAP test point, or a failure the harness adds."""
    name: str
    ok: bool
    skip: bool = False
    detail: str = ""
    # The "# ..." lines a failed point printed (see _Document.diagnostics),
    # for the summary: CI shows only the end of a run's output.
    diagnostics: list = field(default_factory=list)


@dataclass
class Report:
    results: list = field(default_factory=list)

    def add(self, name, ok, skip=False, detail="", diagnostics=None):
        self.results.append(Result(name, ok, skip, detail, diagnostics or []))

    def extend(self, other):
        self.results.extend(other.results)

    @property
    def passed(self):
        return sum(1 for r in self.results if r.ok and not r.skip)

    @property
    def failed(self):
        return sum(1 for r in self.results if not r.ok)

    @property
    def skipped(self):
        return sum(1 for r in self.results if r.skip)

    def failures(self):
        return [r for r in self.results if not r.ok]


def _directive(comment):
    """Return 'skip', 'todo' or None for a test point's # comment."""
    if not comment:
        return None
    word = comment.strip().split(None, 1)[0].upper() if comment.strip() else ""
    if word.startswith("SKIP"):
        return "skip"
    if word.startswith("TODO"):
        return "todo"
    return None


# A test point as parsed; before/after: the "# ..." lines around it.
_Point = namedtuple("_Point", "number ok skip name before after")


class _Document:
    def __init__(self, prefix):
        self.prefix = prefix
        self.plan = None
        self.skip_all = False
        self.points = []
        # "# ..." lines since the last point: the next point's, in kselftest.
        self.pending = []
        self.kselftest = False

    def diagnostics(self, index):
        """A point's own "# ..." lines: kselftest prints them before the
        result line (ksft_print_msg, then ksft_test_result), our shell
        helpers after it (fail NAME GOT)."""
        point = self.points[index]
        return point.before if self.kselftest else point.after

    def finish(self, report, exit_status=None):
        label = self.prefix
        failed_before = report.failed
        for i, p in enumerate(self.points):
            report.add(f"{label}: {p.number} {p.name}".rstrip(), p.ok, p.skip,
                       diagnostics=None if p.ok else self.diagnostics(i)[:MAX_DIAGNOSTICS])
        if exit_status == KSFT_SKIP and all(p.ok for p in self.points):
            # kselftest's ksft_exit_skip(), before or after a plan: the rest is skipped.
            if not self.points:
                report.add(f"{label}: skipped", True, skip=True)
            return
        if self.plan is None and not self.points:
            report.add(f"{label}: printed no TAP", False, detail="no plan and no test points")
        elif self.skip_all and not self.points:
            report.add(f"{label}: skipped", True, skip=True)
        elif self.plan is not None and self.plan != len(self.points):
            report.add(f"{label}: plan", False,
                       detail=f"planned {self.plan} tests, ran {len(self.points)}")
        # A bad exit status fails a document that otherwise looked fine.
        if exit_status not in (None, 0) and report.failed == failed_before:
            report.add(f"{label}: exit status", False, detail=f"exited with {exit_status}")


def parse_tap(text, prefix, exit_status=None):
    """Parse a stream of TAP documents; returns a Report."""
    report = Report()
    docs = []
    doc = None
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith("TAP version") or (doc is None and (_PLAN.match(line) or _POINT.match(line))):
            if doc is None or doc.plan is not None or doc.points:
                doc = _Document(prefix if not docs else f"{prefix}#{len(docs) + 1}")
                docs.append(doc)
            if line.startswith("TAP version"):
                continue
        if doc is None:
            continue
        m = _PLAN.match(line)
        if m and doc.plan is None:
            doc.plan = int(m.group(1))
            if doc.plan == 0 and m.group(3) and m.group(3).upper().startswith("SKIP"):
                doc.skip_all = True
            continue
        m = _POINT.match(line)
        if m:
            ok = m.group(1) == "ok"
            number = m.group(2) or str(len(doc.points) + 1)
            directive = _directive(m.group(5))
            name = m.group(3).strip()
            if directive == "todo":
                ok = True
            doc.points.append(_Point(number, ok or directive == "skip", directive == "skip", name, doc.pending, []))
            doc.pending = []
            continue
        if line.lstrip().startswith("#"):
            if _KSFT_TOTALS.match(line):
                doc.kselftest = True
            doc.pending.append(line.strip())
            if doc.points:
                doc.points[-1].after.append(line.strip())
    if not docs:
        docs.append(_Document(prefix))
    for i, d in enumerate(docs):
        d.finish(report, exit_status if i == len(docs) - 1 else None)
    return report


def parse_guest_results(text, label):
    """Parse the stream the guest runner writes (see vm/guest/dlsched-run-tests)."""
    report = Report()
    lines = text.replace("\0", "").splitlines()
    if not lines or lines[0].strip() != "DLSCHED-RESULTS 1":
        report.add(f"{label}: results", False, detail="the guest wrote no results (did it boot?)")
        return report
    current, body = None, []

    def close(status):
        if current is not None:
            report.extend(parse_tap("\n".join(body), f"{label}/{current}", status))

    ended = False
    for line in lines[1:]:
        if line.startswith("# test "):
            if current is not None:
                close(None)
                report.add(f"{label}/{current}: finished", False, detail="no exit status: the guest stopped mid-test")
            current, body = line[len("# test "):].strip(), []
        elif line.startswith("# exit ") and current is not None:
            fields = line.split()
            status = int(fields[2]) if len(fields) > 2 and fields[2].lstrip("-").isdigit() else 1
            close(status)
            if status == 124:
                report.add(f"{label}/{current}: timeout", False, detail="killed by the per-test timeout")
            current, body = None, []
        elif line.startswith("# sched_dl_total_bw after ") and current is not None:
            # The runner waited for the test's releases: what is left leaked.
            m = _POOL_AFTER.match(line)
            if not m or m.group(1) != "0":
                report.add(f"{label}/{current}: pool", False,
                           detail=f"the deadline pool is not empty after the test: {line[2:]}")
        elif line.strip() == "DLSCHED-END":
            ended = True
            break
        elif current is not None:
            body.append(line)
    if current is not None:
        close(None)
        report.add(f"{label}/{current}: finished", False, detail="no exit status: the guest stopped mid-test")
    if not any(line.startswith("# test ") for line in lines):
        report.add(f"{label}: tests", False, detail="the guest ran no tests (check TESTS=)")
    if not ended:
        report.add(f"{label}: complete", False, detail="the run ended before DLSCHED-END (timeout, crash or poweroff)")
    return report
