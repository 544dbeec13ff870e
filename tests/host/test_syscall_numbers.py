"""The series' system call numbers live in include/dlsched/syscalls.h only.

Mainline kernels after 6.1 give 451-454 to other calls, so a rebased series
may have to renumber: that must stay a change of that one header. Every
program of the project calls them through its DLSCHED_NR_* names or its
wrappers, never through a literal number or the kernel's __NR_* names.
"""
import os
import re
import subprocess
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER = "include/dlsched/syscalls.h"
CALLS = ("sched_wait_interval", "sched_setscheduler_ex", "sched_setparam_ex", "sched_getparam_ex")
# A kernel name of the calls, or syscall() with one of the series' numbers.
FORBIDDEN = re.compile(r"\b(?:__NR|SYS)_(?:%s)\b|\bsyscall\s*\(\s*45[1-4]\b" % "|".join(CALLS))


def project_sources():
    out = subprocess.run(["git", "-C", TOP, "ls-files", "--cached", "--others", "--exclude-standard",
                          "dld", "dlconf", "tests", "units", "vm", "include"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if f.endswith((".c", ".h", ".sh", ".inc", ".py")) and f != HEADER
            and not f.startswith("tests/host/")]


class SyscallNumbers(unittest.TestCase):
    def test_header_defines_each_call_once(self):
        with open(os.path.join(TOP, HEADER)) as f:
            text = f.read()
        for call, nr in zip(CALLS, range(451, 455)):
            self.assertEqual(len(re.findall(r"#define DLSCHED_NR_%s\s+%d\b" % (call, nr), text)), 1, call)

    def test_no_other_file_names_the_numbers(self):
        offenders = []
        for path in project_sources():
            with open(os.path.join(TOP, path), errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if FORBIDDEN.search(line):
                        offenders.append(f"{path}:{n}: {line.strip()}")
        self.assertEqual(offenders, [], "use include/dlsched/syscalls.h:\n" + "\n".join(offenders))

    def test_pattern_catches_what_it_should(self):
        for bad in ("syscall(__NR_sched_wait_interval, a, b)", "syscall(451, a)", "SYS_sched_getparam_ex"):
            self.assertTrue(FORBIDDEN.search(bad), bad)
        for good in ("syscall(DLSCHED_NR_sched_wait_interval, a)", "syscall(SYS_sched_setattr, 0)"):
            self.assertFalse(FORBIDDEN.search(good), good)


if __name__ == "__main__":
    unittest.main()
