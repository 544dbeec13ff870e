"""make check's tree checks (tests/harness/treecheck): each one fails on
what it is there to catch, and lets the tree's legitimate text through."""
import importlib.machinery
import importlib.util
import io
import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TREECHECK = os.path.join(TOP, "tests", "harness", "treecheck")


def load():
    loader = importlib.machinery.SourceFileLoader("treecheck", TREECHECK)
    spec = importlib.util.spec_from_loader("treecheck", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


treecheck = load()


class TempTree(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="treecheck-")
        self.addCleanup(shutil.rmtree, self.top)

    def write(self, rel, text):
        path = os.path.join(self.top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path


class Links(TempTree):
    def setUp(self):
        super().setUp()
        self.write("docs/guide.md", "# Guide\n\n## Editing the series\n\ntext\n\n"
                   "## `make check`: what runs\n\nSetext heading\n--------------\n\n## Guide\n")
        self.write("src/x.c", "int x;\n")

    def problems(self, text):
        self.write("README.md", text)
        return treecheck.link_problems(self.top, "README.md")

    def test_good_links_pass(self):
        self.assertEqual(self.problems(
            "See [the guide](docs/guide.md), [its section](docs/guide.md#editing-the-series),\n"
            "[code](docs/guide.md#make-check-what-runs) [setext](docs/guide.md#setext-heading)\n"
            "[dup](docs/guide.md#guide-1) ![img](src/x.c \"title\") [dir](src/)\n"
            "[web](https://example.org/x) [mail](mailto:a@b.c) [here](#anything)\n"
            "[ref]: docs/guide.md#guide\n"), [])

    def test_broken_relative_link_fails(self):
        got = self.problems("Intro.\n\nSee [the guide](docs/missing.md) for more.\n")
        self.assertEqual(len(got), 1)
        self.assertIn("README.md:3:", got[0])
        self.assertIn("docs/missing.md", got[0])

    def test_link_relative_to_the_files_folder(self):
        self.write("docs/other.md", "[up](../src/x.c) [wrong](src/x.c)\n")
        got = treecheck.link_problems(self.top, "docs/other.md")
        self.assertEqual(len(got), 1)
        self.assertIn("docs/src/x.c", got[0])

    def test_wrong_anchor_fails(self):
        got = self.problems("[s](docs/guide.md#editing-a-series)\n")
        self.assertEqual(len(got), 1)
        self.assertIn("#editing-a-series", got[0])

    def test_reference_definition_checked(self):
        got = self.problems("[guide][g]\n\n[g]: docs/nothere.md\n")
        self.assertEqual(len(got), 1)
        self.assertIn("README.md:3:", got[0])

    def test_link_text_over_two_lines(self):
        got = self.problems("a [long\nlink text](nowhere.md) b\n")
        self.assertEqual(len(got), 1)
        self.assertIn("README.md:2:", got[0])

    def test_links_in_code_are_ignored(self):
        self.assertEqual(self.problems(
            "```\n[a](nowhere.md)\n```\n\n~~~sh\n[b]: nowhere.md\n~~~\n\n"
            "1. item\n\n   ```c\n   a[i](j);\n   ```\n\n"
            "Inline `[c](nowhere.md)` and ``[d](x`y.md)`` are code.\n"), [])

    def test_link_after_code_is_checked(self):
        got = self.problems("```\n[a](nowhere.md)\n```\n\n[b](gone.md)\n")
        self.assertEqual(len(got), 1)
        self.assertIn("gone.md", got[0])

    def test_slug(self):
        self.assertEqual(treecheck.slug("Editing the series"), "editing-the-series")
        self.assertEqual(treecheck.slug("`make check`: what runs (v2)"), "make-check-what-runs-v2")
        self.assertEqual(treecheck.slug("dld_apply & RLIMIT-DLRTIME"), "dld_apply--rlimit-dlrtime")
        self.assertEqual(treecheck.slug("[CONTAINERS.md](x) notes"), "containersmd-notes")


class Process(unittest.TestCase):
    def hits(self, text):
        return [h[2] for h in treecheck.process_hits(text)]

    def test_work_periods_flagged(self):
        s = "stop"
        for text in (f"As measured at {s} 26, it ran.", f"the figures of {s} 27's run",
                     f"one patch ({s} 28) took", f"{s} 26: dld idles", f"as of {s}\n# 24 it did"):
            with self.subTest(text=text):
                self.assertEqual(len(self.hits(text)), 1, text)
        self.assertTrue(self.hits("the next " + "mile" + "stone"))
        self.assertTrue(self.hits("this " + "sprint"))
        self.assertTrue(self.hits("in " + "session 4 we"))
        self.assertTrue(self.hits("a probe this " + "session saw 18 MiB"))
        self.assertTrue(self.hits("in build/bench-" + "s26-1/ both"))

    def test_tracker_numbers_flagged(self):
        for text in ("in one run (" + "issue 13).", "can every test fail? (" + "issue #16)",
                     "fixed (#" + "12)", "see " + "ticket 9", "per " + "task #4", "(" + "task 7)",
                     "so the " + "issue's 1000 take"):
            with self.subTest(text=text):
                self.assertEqual(len(self.hits(text)), 1, text)

    def test_line_numbers_and_one_hit_per_reference(self):
        ref = "at " + " ".join(("stop", str(23)))  # built here: this file names no milestone
        got = treecheck.process_hits("a\nb\nfigures " + ref + " were\n")
        self.assertEqual([(h[0], h[2]) for h in got], [(3, ref)])

    def test_legitimate_text_not_flagged(self):
        for text in ("dbus-daemon --session --nofork --nopidfile",
                     "run: a scripted make run session",
                     "        session = ConsoleSession(log)\n        session.stop(120)",
                     "boot.sh runs in a session of its own",
                     "[    5.1] Oops: 0000 [#1] PREEMPT SMP",
                     "sched: Unexpected reschedule of offline CPU#3!",
                     "CPU#0\r\nRIP=ffff", 'self.assertEqual(name, "t#2: 2 c")',
                     " ".join(("stop", "3 containers, then", "stop", "2 services")),
                     "a well-behaved task 75 % of what is left",
                     "Only issue a capable test if needed", "we issue 2 reads",
                     "static s64 cpu_dl_runtime_read_s64(x); div_s64_rem(a, b, &r);",
                     "crun's session keyring", "the issues we found", "sprintf(buf, x)"):
            with self.subTest(text=text):
                self.assertEqual(self.hits(text), [])

    def test_file_names(self):
        self.assertTrue(treecheck.name_hits("bench/doc/x-" + "s26-run2.png"))
        self.assertTrue(treecheck.name_hits("bench/doc/x_" + "s27.png"))
        self.assertEqual(treecheck.name_hits("bench/doc/hot_ratios-run2.png"), [])
        self.assertEqual(treecheck.name_hits("lib/div_s64.c"), [])

    def test_check_process_reports_file_and_line(self):
        with tempfile.TemporaryDirectory() as top:
            for rel, text in (("ok.txt", "nothing here\n"), ("bad.md", "x\nas of " + " ".join(("stop", str(26))) + " it\n")):
                with open(os.path.join(top, rel), "w") as f:
                    f.write(text)
            with open(os.path.join(top, "x-" + "s26-run2.png"), "wb") as f:
                f.write(b"\x89PNG\r\n\x1a\n\0\0")
            points = treecheck.check_process(top, sorted(os.listdir(top)))
        failed = [p for _, problems in points for p in problems]
        self.assertEqual(len(failed), 2)
        self.assertTrue(any(p.startswith("bad.md:2: ") for p in failed))
        self.assertTrue(any(p.startswith("x-" + "s26-run2.png: file name") for p in failed))


@unittest.skipUnless(shutil.which("man"), "man is not installed (apt-get install man-db groff-base)")
class Man(TempTree):
    PAGE = ".TH X 8 2024 dlsched\n.SH NAME\nx \\- a test page\n.SH DESCRIPTION\nText.\n"

    def test_clean_page_passes(self):
        self.assertEqual(treecheck.man_warnings(self.write("x.8", self.PAGE), "x.8"), [])

    def test_unknown_macro_fails(self):
        got = treecheck.man_warnings(self.write("x.8", self.PAGE + ".XX oops\n"), "x.8")
        self.assertTrue(got)
        self.assertIn("x.8:6:", got[0])
        self.assertIn("XX", got[0])


class Tap(unittest.TestCase):
    def test_document_and_status(self):
        out = io.StringIO()
        ok = treecheck.print_tap([("a", []), ("b", ["f:1: bad"])], out)
        self.assertFalse(ok)
        self.assertEqual(out.getvalue(), "TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n# f:1: bad\n")

    def test_usage(self):
        proc = subprocess.run([TREECHECK, "nonsense"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(proc.returncode, 2)


class Patches(unittest.TestCase):
    def test_long_patch_fails(self):
        top = tempfile.mkdtemp(prefix="treecheck-")
        try:
            os.makedirs(os.path.join(top, "kernel", "patches"))
            for name, n in (("0001-a.patch", 700), ("0002-b.patch", 701)):
                with open(os.path.join(top, "kernel", "patches", name), "w") as f:
                    f.write("x\n" * n)
            files = ["kernel/patches/0001-a.patch", "kernel/patches/0002-b.patch", "README.md"]
            [(name, problems)] = treecheck.check_patches(top, files)
            self.assertIn("none of the 2", name)
            self.assertEqual(problems, ["kernel/patches/0002-b.patch: 701 lines"])
        finally:
            shutil.rmtree(top)


if __name__ == "__main__":
    unittest.main()
