#!/usr/bin/env python3
"""make bench: what the series costs and what it guarantees.

    bench/run.py [--quick]
    bench/run.py --smoke    make check's smoke: QUICK in make check's image

Boots the patched kernel (build/bzImage-normal) and the stock kernel
(build/stock/bzImage-stock: the same tree and config without the series)
alternately, ROUNDS times each, with one vCPU per host CPU, running the
guest half of the bench (bench/guest/95-bench.sh) in each; runs the host
half (policy validation scale, dlconf check); writes
build/bench/results.json, then bench/report.py makes report.md and the
plots. QUICK=1 (--quick): one round, short runs of every part.

Environment: BUILD (the project's build directory), BENCH_BUILD (the bench's
own build directory for its guest image and logs, default
$BUILD/bench-build), ROUNDS (default 3, QUICK 1), BENCH_OUT (default
$BUILD/bench), FOOT_CYCLES (part 4's service start/stop cycles, 20
services at a time: default 1000, QUICK 60; a round of 20 takes about 7 s
here, so FOOT_CYCLES=20000 takes about 2 hours).

--smoke (make check, tests/harness/dlcheck): one QUICK round in make
check's own guest image ($BUILD/guest.img, no image of its own), output in
$BUILD/logs/bench-smoke; without build/stock the patched kernel stands in
for the stock one (make check never builds a second kernel), so its ratios
are no figures. Prints TAP: the bench ran completely and made its report.
Goals are not checked there: timed figures stay out of the tests.
"""

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "harness"))
import console  # noqa: E402

BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
SMOKE = "--smoke" in sys.argv[1:]
BENCH_BUILD = os.environ.get("BENCH_BUILD", BUILD if SMOKE else os.path.join(BUILD, "bench-build"))
OUT = os.environ.get("BENCH_OUT", os.path.join(BUILD, "logs", "bench-smoke") if SMOKE else os.path.join(BUILD, "bench"))
LOGS = os.path.join(OUT, "logs") if SMOKE else os.path.join(BENCH_BUILD, "logs")
PATCHED = os.path.join(BUILD, "bzImage-normal")
STOCK = os.path.join(BUILD, "stock", "bzImage-stock")
ALL_PARTS = "hot,depth,cap,dld,foot"
# BENCH_PARTS=cap (a comma-separated list): only those parts, in one
# patched boot per round, no stock boots (e.g. part 2 once more, with
# QEMU_VCPU_FIFO=PRIO: vm/boot.sh runs the vCPU threads SCHED_FIFO).
PARTS = os.environ.get("BENCH_PARTS", "")
# BENCH_VCPUS=N: the guests' vCPUs (default one per host CPU). With
# QEMU_VCPU_FIFO, fewer vCPUs than host CPUs leave the host a CPU for
# QEMU's own I/O thread, which SCHED_FIFO vCPUs would otherwise starve.
VCPUS = os.environ.get("BENCH_VCPUS") or "host"
if VCPUS != "host" and not (VCPUS.isdigit() and 1 <= int(VCPUS) <= 64):
    sys.exit(f"bench: BENCH_VCPUS must be a number of vCPUs (1-64), not '{VCPUS}'")
# Part 4's service start/stop cycles: 20 services started and stopped
# together (default 1000: 50 rounds; QUICK 60).
FOOT_CYCLES = int(os.environ.get("FOOT_CYCLES") or 0)


def log(msg):
    print(f"bench: {msg}", flush=True)


def run(cmd, **kw):
    log(" ".join(cmd))
    return subprocess.run(cmd, check=True, **kw)


def prepare(quick):
    """The stock kernel if missing, and the bench's own guest image."""
    if not os.path.exists(PATCHED):
        sys.exit(f"bench: {PATCHED} missing (make kernel)")
    if SMOKE:
        os.makedirs(LOGS, exist_ok=True)
        if not os.path.exists(os.path.join(BENCH_BUILD, "guest.img")):
            sys.exit(f"bench: {BENCH_BUILD}/guest.img missing (make image)")
        return
    if not os.path.exists(STOCK) and not PARTS:
        log("building the stock kernel (SERIES_UPTO=0) in build/stock")
        run([os.path.join(TOP, "kernel/scripts/build.sh"), "kernel"],
            env=dict(os.environ, BUILD=os.path.join(BUILD, "stock"), SERIES_UPTO="0",
                     KERNEL_NAME="stock", KERNEL_VARIANT="normal"))
    os.makedirs(LOGS, exist_ok=True)
    # The image is built from this checkout against the series' headers,
    # which live in the main build directory.
    for name in ("headers", "linux"):
        link = os.path.join(BENCH_BUILD, name)
        if not os.path.islink(link):
            if os.path.exists(link):
                shutil.rmtree(link)
            os.symlink(os.path.join(BUILD, name), link)
    shutil.copy(os.path.join(BUILD, "kernel.release-normal"), os.path.join(BENCH_BUILD, "kernel.release-normal"))
    with open(os.path.join(LOGS, "build-image.log"), "w") as f:
        t0 = time.monotonic()
        p = subprocess.run([os.path.join(TOP, "vm/mkimage.sh")], env=dict(os.environ, BUILD=BENCH_BUILD),
                           stdout=f, stderr=subprocess.STDOUT)
    if p.returncode:
        sys.exit(f"bench: the guest image did not build ({LOGS}/build-image.log)")
    log(f"guest image in {time.monotonic() - t0:.0f} s")


def parse_results(text):
    """The BENCH objects and the TAP points of a results stream."""
    figures, points = [], []
    for line in text.splitlines():
        if line.startswith("# BENCH {"):
            try:
                figures.append(json.loads(line[len("# BENCH "):]))
            except json.JSONDecodeError:
                points.append(("not ok", f"unparsable figure: {line[:200]}"))
        elif re.match(r"(not )?ok \d+", line):
            points.append(("not ok" if line.startswith("not") else "ok", line))
    return figures, points


def boot(label, kernel, parts, quick, timeout, kind=None):
    """One guest run; returns a dict with its figures and problems. @kind
    ("patched", "stock") is what the boot counts as: the patched kernel
    standing in for the stock one in make check's smoke counts as stock."""
    kind = kind or ("patched" if kernel == PATCHED else "stock")
    b = boot_once(label, kernel, parts, quick, timeout, kind)
    if SMOKE and "the guest run did not finish" in b["problems"] and not b["points"]:
        # As dlcheck does: under TCG a vCPU now and then hangs in early
        # boot; a kernel that cannot boot fails twice.
        log(f"{label}: the guest never reached the test runner; booting once more")
        for ext in ("console", "results"):
            p = os.path.join(LOGS, f"{label}.{ext}")
            if os.path.exists(p):
                os.replace(p, os.path.join(LOGS, f"{label}-attempt1.{ext}"))
        b = boot_once(label, kernel, parts, quick, timeout, kind)
    return b


def boot_once(label, kernel, parts, quick, timeout, kind):
    con = os.path.join(LOGS, f"{label}.console")
    res = os.path.join(LOGS, f"{label}.results")
    args = f"dlsched.bench={parts} dlsched.bench_quick={1 if quick else 0} dlsched.timeout={timeout}"
    if FOOT_CYCLES and "foot" in parts.split(","):
        args += f" dlsched.bench_cycles={FOOT_CYCLES}"
    env = dict(os.environ, BUILD=BENCH_BUILD, KERNEL_IMAGE=kernel, VCPUS=VCPUS, TESTS="95-*",
               BOOT_ARGS=args, GUEST_TIMEOUT=str(timeout + 300))
    t0 = time.monotonic()
    log(f"{label}: booting {os.path.relpath(kernel, TOP)} ({parts})")
    rc = subprocess.run([os.path.join(TOP, "vm/boot.sh"), "check", con, res], env=env).returncode
    text = open(res, errors="replace").read() if os.path.exists(res) else ""
    ctext = open(con, errors="replace").read() if os.path.exists(con) else ""
    figures, points = parse_results(text)
    for f in figures:
        f["kernel"] = kind if f.get("kernel") == "patched" else f.get("kernel")
    problems = [p for s, p in points if s == "not ok"]
    if rc:
        problems.append(f"qemu exited with {rc}")
    if "DLSCHED-END" not in text:
        problems.append("the guest run did not finish")
    if not any(s == "ok" for s, _ in points) and not problems:
        problems.append("no bench part ran (skipped?)")
    for kind, line in console.scan(ctext)[0]:
        problems.append(f"console {kind}: {line}")
    secs = time.monotonic() - t0
    log(f"{label}: {len(figures)} figures, {len(problems)} problems, {secs:.0f} s (with the wait for the machine lock)")
    for p in problems:
        log(f"{label}: {p}")
    return {"label": label, "kernel": kind, "image": os.path.relpath(kernel, TOP), "parts": parts,
            "seconds": round(secs, 1), "figures": figures, "problems": problems,
            "points": [p for _, p in points]}


def host_scale(quick):
    """Part 5, host half: policy validation and dlconf check with 1000 requests."""
    out = {"policy_scale": [], "dlconf_check": None, "problems": []}
    subprocess.run(["make", "-s", "-C", HERE, f"O={BENCH_BUILD}/bench", f"HEADERS={BUILD}/headers/include", "host"],
                   check=True)
    p = subprocess.run([f"{BENCH_BUILD}/bench/host/policy-scale", "10", "100", "1000", "5000"],
                       stdout=subprocess.PIPE, text=True)
    if p.returncode:
        out["problems"].append(f"policy-scale exited {p.returncode}")
    for line in p.stdout.splitlines():
        if line.startswith("BENCH "):
            out["policy_scale"].append(json.loads(line[6:]))
    # dlconf check: one policy, 1000 drop-ins of 1 ms/100 ms, on 2 CPUs.
    n = 1000
    d = os.path.join(OUT if SMOKE else BENCH_BUILD, "check1000")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "policy.json"), "w") as f:
        json.dump({"system": {"sched_dl_runtime_us": 900000, "sched_dl_period_us": 1000000,
                              "sched_rt_runtime_us": 50000, "sched_rt_period_us": 1000000},
                   "groups": [{"name": "bench", "slice": "bench.slice", "runtime_us": 800000,
                               "period_us": 1000000}]}, f)
    files = [os.path.join(d, "policy.json")]
    for i in range(n):
        unit = os.path.join(d, f"svc{i}.service.d")
        os.makedirs(unit)
        with open(os.path.join(unit, "deadline.conf"), "w") as f:
            f.write("[Service]\nSlice=bench.slice\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=100ms\n")
        files.append(os.path.join(unit, "deadline.conf"))
    dlconf = os.path.join(BENCH_BUILD, "dlconf", "dlconf")
    times = []
    rc = None
    for _ in range(3 if quick else 7):
        t0 = time.monotonic()
        r = subprocess.run([dlconf, "check", "--cpus=2", "--json", *files], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        times.append(time.monotonic() - t0)
        rc = r.returncode
    times.sort()
    verdicts = {}
    if rc in (0, 3):
        for v in json.loads(r.stdout).get("verdicts", []):
            verdicts[v["verdict"]] = verdicts.get(v["verdict"], 0) + 1
    # Exit 3: some requests would be refused, as they must be (1000 x 1% of a
    # CPU in a group of 2 x 80%).
    out["dlconf_check"] = {"requests": n, "ms_p50": round(times[len(times) // 2] * 1e3, 2),
                           "ms_max": round(times[-1] * 1e3, 2), "exit": rc, "verdicts": verdicts}
    if rc not in (0, 3):
        out["problems"].append(f"dlconf check exited {rc}: {r.stdout[-500:]}")
    return out


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    qemu = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
    return {"host": platform.node(), "cpu": cpu, "host_cpus": os.cpu_count(),
            "vcpus": min(os.cpu_count(), 4) if VCPUS == "host" else int(VCPUS), "emulation": "QEMU TCG (multi-threaded), no KVM",
            "qemu": qemu[0] if qemu else "", "host_kernel": platform.release(),
            "guest_kernel_patched": open(os.path.join(BUILD, "kernel.release-normal")).read().strip(),
            "guest_kernel_stock": open(os.path.join(BUILD, "stock", "kernel.release-stock")).read().strip()
            if os.path.exists(os.path.join(BUILD, "stock", "kernel.release-stock")) else "",
            "guest_mem_mib": int(os.environ.get("GUEST_MEM", "2048")),
            "vcpu_fifo": os.environ.get("QEMU_VCPU_FIFO") or "no"}


def smoke_tap(results, report_rc):
    """make check's verdict on the smoke: the bench ran completely and made
    its report (goals are not checked: timed figures stay out of tests)."""
    checks = []
    host = results["host"]
    checks.append(("host half (policy-scale 10..5000 groups, dlconf check with 1000 requests)",
                   not host["problems"] and len(host["policy_scale"]) == 4 and bool(host["dlconf_check"]),
                   host["problems"]))
    for b in results["boots"]:
        parts = b["parts"].split(",")
        ran = {f["part"] for f in b["figures"]}
        missing = [p for p in parts if p not in ran]
        what = f"{b['label']} ({b['image']}{', standing in for stock' if b.get('standin') else ''}; {b['parts']})"
        checks.append((f"{what}: every part ran and gave figures",
                       not b["problems"] and not missing,
                       b["problems"] + [f"no figures of part {p}" for p in missing]))
    report = os.path.join(OUT, "report.md")
    text = open(report).read() if os.path.exists(report) else ""
    notes = [] if report_rc == 0 else [f"report.py exited {report_rc}"]
    if "not measured" in text:
        notes.append("a figure is 'not measured'")
    if "Plots that failed" in text:
        notes.append("a plot failed")
    checks.append((f"report.md from results.json ({os.path.relpath(report, TOP)})",
                   bool(text) and not notes, notes))
    print("TAP version 13")
    print(f"1..{len(checks)}")
    for i, (name, ok, details) in enumerate(checks, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        for d in details:
            print(f"# {d}")
    return 0 if all(ok for _, ok, _ in checks) else 1


def main():
    quick = SMOKE or "--quick" in sys.argv[1:] or os.environ.get("QUICK", "") not in ("", "0")
    rounds = 1 if SMOKE else int(os.environ.get("ROUNDS") or (1 if quick else 3))
    start = time.monotonic()
    os.makedirs(OUT, exist_ok=True)
    prepare(quick)
    # make check never builds the stock kernel: the patched one stands in.
    stock, standin = (PATCHED, True) if SMOKE and not os.path.exists(STOCK) else (STOCK, False)
    results = {"quick": quick, "smoke": SMOKE, "stock_standin": standin, "rounds": rounds,
               "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "machine": machine(), "boots": []}
    t0 = time.monotonic()
    results["host"] = host_scale(quick)
    results["host"]["seconds"] = round(time.monotonic() - t0, 1)
    timeout = (600 if quick else 2400) + FOOT_CYCLES  # about 0.4 s a service cycle here
    if PARTS and any(p not in ALL_PARTS.split(",") for p in PARTS.split(",")):
        log(f"BENCH_PARTS={PARTS}: the parts are {ALL_PARTS}")
        return 2
    for r in range(1, rounds + 1):
        if PARTS:
            results["boots"].append(boot(f"patched-{r}", PATCHED, PARTS, quick, timeout))
            continue
        # Round 1's patched boot also runs every other part.
        results["boots"].append(boot(f"patched-{r}", PATCHED, ALL_PARTS if r == 1 else "hot", quick, timeout))
        results["boots"].append(boot(f"stock-{r}", stock, "hot", quick, 900, kind="stock"))
        results["boots"][-1]["standin"] = standin
        with open(os.path.join(OUT, "results.json"), "w") as f:
            json.dump(results, f, indent=1)
    results["seconds"] = round(time.monotonic() - start, 1)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    log(f"results: {OUT}/results.json ({results['seconds']:.0f} s)")
    rc = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), os.path.join(OUT, "results.json"),
                         OUT]).returncode
    if SMOKE:
        return smoke_tap(results, rc)
    problems = [p for b in results["boots"] for p in b["problems"]] + results["host"]["problems"]
    if problems:
        log(f"{len(problems)} problems: the bench did not run completely")
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
