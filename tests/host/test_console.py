"""Unit tests of the console splat scanner (tests/harness/console.py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
import console  # noqa: E402

CLEAN = """\
[    0.000000] Linux version 6.1.192-dlsched (dlsched@dlsched)
[    1.234567] systemd[1]: Reached target multi-user.target
[  OK  ] Started dlsched guest test suite.
dlsched: 03-admission-cap: exit 0 (1s)
"""

WARN = """\
[   12.000001] ------------[ cut here ]------------
[   12.000002] WARNING: CPU: 1 PID: 310 at kernel/sched/deadline.c:123 dl_foo+0x1/0x2
[   12.000003] Call Trace:
"""


class Scan(unittest.TestCase):
    def test_clean_log(self):
        self.assertEqual(console.scan(CLEAN), ([], []))

    def test_warn_is_one_splat(self):
        splats, _ = console.scan(CLEAN + WARN)
        self.assertEqual([k for k, _ in splats], ["WARN"])
        self.assertIn("deadline.c:123", splats[0][1])

    def test_each_kind(self):
        cases = {
            "BUG": "[    5.1] BUG: sleeping function called from invalid context at kernel/sched/core.c:1",
            "oops": "[    5.1] Oops: 0000 [#1] PREEMPT SMP",
            "lockdep": "[    5.1] WARNING: possible circular locking dependency detected",
            "KASAN": "[    5.1] BUG: KASAN: slab-out-of-bounds in foo",
            "panic": "[    5.1] Kernel panic - not syncing: Fatal exception",
            "hung task": "[  300.1] INFO: task kworker/0:1:12 blocked for more than 120 seconds.",
        }
        for kind, line in cases.items():
            splats, _ = console.scan(line + "\n")
            self.assertTrue(splats, kind)

    def test_rcu_stall_is_a_notice(self):
        splats, notices = console.scan("[ 40.0] rcu: INFO: rcu_preempt self-detected stall on CPU\n")
        self.assertEqual(splats, [])
        self.assertEqual(notices[0][0], "RCU stall")

    def test_userspace_words_do_not_match(self):
        text = "warning: something in userspace\nBUGS: none\nwarnings: 0\n"
        self.assertEqual(console.scan(text), ([], []))


OOPS_IN_TIMER = """\
[   80.100000] BUG: kernel NULL pointer dereference, address: 0000000000000040
[   80.100001] #PF: supervisor read access in kernel mode
[   80.100002] Oops: 0000 [#1] PREEMPT SMP NOPTI
[   80.100003] RIP: 0010:dl_group_account+0x2a/0x90
[   80.100004] Call Trace:
[   80.100005]  <IRQ>
[   80.100006]  dl_task_release_bw+0x41/0x70
[   80.100007]  ? hrtimer_interrupt+0x1/0x2
[   80.100008]  inactive_task_timer+0x1c3/0x2a0
[   80.100009]  __hrtimer_run_queues+0x10a/0x2a0
[   80.100010] ---[ end trace 0000000000000000 ]---
[   80.100011]  not_a_frame+0x1/0x2
"""


class Where(unittest.TestCase):
    def test_oops_gives_rip_and_certain_frames(self):
        self.assertEqual(console.where(CLEAN + OOPS_IN_TIMER),
                         "RIP dl_group_account+0x2a/0x90; "
                         "dl_task_release_bw < inactive_task_timer < __hrtimer_run_queues")

    def test_warn_without_rip(self):
        self.assertEqual(console.where(CLEAN + WARN), "")

    def test_clean_log_has_no_place(self):
        self.assertEqual(console.where(CLEAN), "")


if __name__ == "__main__":
    unittest.main()
