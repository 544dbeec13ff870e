"""Unit tests of the TAP and guest-results parser (tests/harness/tap.py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
import tap  # noqa: E402


class ParseTap(unittest.TestCase):
    def test_all_pass(self):
        r = tap.parse_tap("TAP version 13\n1..2\nok 1 - a\nok 2 - b\n", "t", 0)
        self.assertEqual((r.passed, r.failed, r.skipped), (2, 0, 0))

    def test_not_ok_counts(self):
        r = tap.parse_tap("TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n", "t", 1)
        self.assertEqual((r.passed, r.failed), (1, 1))
        self.assertEqual(r.failures()[0].name, "t: 2 b")

    def test_plan_mismatch_is_a_failure(self):
        r = tap.parse_tap("TAP version 13\n1..3\nok 1 - a\n", "t", 0)
        self.assertEqual((r.passed, r.failed), (1, 1))
        self.assertIn("planned 3", r.failures()[0].detail)

    def test_no_output_is_a_failure(self):
        r = tap.parse_tap("Segmentation fault\n", "t", 139)
        self.assertEqual((r.passed, r.failed), (0, 1))

    def test_nonzero_exit_with_all_ok_is_a_failure(self):
        r = tap.parse_tap("TAP version 13\n1..1\nok 1 - a\n", "t", 2)
        self.assertEqual((r.passed, r.failed), (1, 1))

    def test_skip_directive(self):
        r = tap.parse_tap("1..2\nok 1 - a # SKIP no hw\nok 2 - b # skip\n", "t", 0)
        self.assertEqual((r.passed, r.failed, r.skipped), (0, 0, 2))

    def test_skip_all_exit_4_is_fine(self):
        r = tap.parse_tap("TAP version 13\n1..0 # SKIP v1 only\n", "t", 4)
        self.assertEqual((r.passed, r.failed, r.skipped), (0, 0, 1))

    def test_kselftest_skip_after_plan(self):
        r = tap.parse_tap("TAP version 13\n1..3\nok 1 # SKIP admission off\n", "t", 4)
        self.assertEqual((r.passed, r.failed, r.skipped), (0, 0, 1))

    def test_skip_exit_after_a_failure_still_fails(self):
        r = tap.parse_tap("TAP version 13\n1..3\nnot ok 1 - a\nok 2 # SKIP x\n", "t", 4)
        self.assertEqual([f.name for f in r.failures()], ["t: 1 a", "t: plan"])

    def test_todo_not_ok_does_not_fail(self):
        r = tap.parse_tap("1..1\nnot ok 1 - a # TODO later\n", "t", 0)
        self.assertEqual(r.failed, 0)

    def test_concatenated_documents(self):
        text = "TAP version 13\n1..1\nok 1 - a\nTAP version 13\n1..2\nok 1 - b\nnot ok 2 - c\n"
        r = tap.parse_tap(text, "t", 1)
        self.assertEqual((r.passed, r.failed), (2, 1))
        self.assertEqual(r.failures()[0].name, "t#2: 2 c")

    def test_kselftest_output(self):
        text = ("TAP version 13\n1..2\n# cap 123\nok 1 first\nok 2 second\n"
                "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0\n")
        r = tap.parse_tap(text, "k", 0)
        self.assertEqual((r.passed, r.failed), (2, 0))

    def test_a_failed_point_keeps_its_diagnostics(self):
        text = "1..3\nok 1 - a\n# about a\nnot ok 2 - b\n# got '1', want '0'\n  # more\nok 3 - c\n# after c\n"
        r = tap.parse_tap(text, "t", 1)
        self.assertEqual(r.failures()[0].diagnostics, ["# got '1', want '0'", "# more"])
        self.assertEqual([x.diagnostics for x in r.results if x.ok], [[], []])

    def test_a_failed_kselftest_point_keeps_the_lines_before_it(self):
        # ksft_print_msg() comes before ksft_test_result(): the lines after a
        # point are the next point's.
        text = ("TAP version 13\n1..3\nok 1 a\n# deadline +10 ns off\nnot ok 2 b\n"
                "# about c\nok 3 c\n# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:0 error:0\n")
        r = tap.parse_tap(text, "k", 1)
        self.assertEqual(r.failures()[0].diagnostics, ["# deadline +10 ns off"])

    def test_diagnostics_of_a_failed_point_are_capped(self):
        text = "1..1\nnot ok 1 - a\n" + "".join(f"# line {i}\n" for i in range(40))
        r = tap.parse_tap(text, "t", 1)
        self.assertEqual(len(r.failures()[0].diagnostics), tap.MAX_DIAGNOSTICS)

    def test_diagnostics_that_look_like_points_are_ignored(self):
        r = tap.parse_tap("1..1\n# not ok this is a comment\nok 1\n", "t", 0)
        self.assertEqual((r.passed, r.failed), (1, 0))


class ParseGuestResults(unittest.TestCase):
    def stream(self, body, end=True):
        return "DLSCHED-RESULTS 1\n# kernel 6.1.0-dlsched\n" + body + ("DLSCHED-END\n" if end else "")

    def test_complete_run(self):
        body = "# test 00-a\nTAP version 13\n1..1\nok 1 - x\n# exit 0 1\n" \
               "# test 01-b\nTAP version 13\n1..1\nok 1 - y\n# exit 0 2\n"
        r = tap.parse_guest_results(self.stream(body), "g")
        self.assertEqual((r.passed, r.failed), (2, 0))

    def test_missing_end_fails(self):
        body = "# test 00-a\nTAP version 13\n1..1\nok 1 - x\n# exit 0 1\n"
        r = tap.parse_guest_results(self.stream(body, end=False), "g")
        self.assertEqual((r.passed, r.failed), (1, 1))

    def test_test_cut_mid_way(self):
        body = "# test 00-a\nTAP version 13\n1..3\nok 1 - x\n"
        r = tap.parse_guest_results(self.stream(body, end=False), "g")
        names = [f.name for f in r.failures()]
        self.assertIn("g/00-a: finished", names)
        self.assertIn("g: complete", names)

    def test_timeout(self):
        body = "# test 00-a\nTAP version 13\n1..1\n# exit 124 600\n"
        r = tap.parse_guest_results(self.stream(body), "g")
        self.assertIn("g/00-a: timeout", [f.name for f in r.failures()])

    def test_no_tests_ran(self):
        r = tap.parse_guest_results(self.stream(""), "g")
        self.assertEqual([f.name for f in r.failures()], ["g: tests"])

    def test_no_results_at_all(self):
        r = tap.parse_guest_results("", "g")
        self.assertEqual(r.failed, 1)

    def test_nul_padding_is_ignored(self):
        body = "# test 00-a\n1..1\nok 1\n# exit 0 1\n"
        r = tap.parse_guest_results(self.stream(body) + "\0\0\0", "g")
        self.assertEqual((r.passed, r.failed), (1, 0))

    def test_pool_left_after_a_test_fails_it(self):
        body = "# test 00-a\n1..1\nok 1\n# sched_dl_total_bw after 00-a: 0 (releases pending: 0, the latest in 0.0 s)\n" \
               "# exit 0 1\n# test 01-b\n1..1\nok 1\n" \
               "# sched_dl_total_bw after 01-b: 4875 (releases pending: 0, the latest in 0.0 s)\n# exit 0 1\n"
        r = tap.parse_guest_results(self.stream(body), "g")
        self.assertEqual((r.passed, r.failed), (2, 1))
        self.assertEqual([f.name for f in r.failures()], ["g/01-b: pool"])

    def test_pool_line_unreadable_fails(self):
        body = "# test 00-a\n1..1\nok 1\n# sched_dl_total_bw after 00-a: \n# exit 0 1\n"
        r = tap.parse_guest_results(self.stream(body), "g")
        self.assertEqual([f.name for f in r.failures()], ["g/00-a: pool"])


if __name__ == "__main__":
    unittest.main()
