"""Watching a guest run of `vm/boot.sh check` from the host (dlcheck and
check-mutants): when its results port has been silent too long, and what
a wedged guest is doing before it is stopped."""

import os
import re
import socket
import time

# The guest runner's per-test limit (vm/guest/dlsched-run-tests).
GUEST_TEST_TIMEOUT = 600


def per_test_timeout(boot_args):
    """dlsched.timeout= from @boot_args, else the runner's default."""
    m = re.search(r"(?:^|\s)dlsched\.timeout=(\d+)(?:\s|$)", boot_args or "")
    return int(m.group(1)) if m else GUEST_TEST_TIMEOUT


def silent_for(results):
    """Seconds since the guest last wrote @results; None before it wrote
    anything (the runner has not started)."""
    try:
        if os.path.getsize(results) == 0:
            return None
        return time.time() - os.path.getmtime(results)
    except OSError:
        return None


def monitor_socket(results):
    """A QEMU monitor socket path for the run writing @results (short
    enough for AF_UNIX)."""
    return f"/tmp/dlsched-{os.getpid()}-{os.path.basename(results)}.monitor"


def monitor_command(sock, command, wait=1.0):
    """Send one HMP @command to the QEMU monitor at @sock; its reply."""
    out = b""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(wait)
            s.connect(sock)
            s.sendall(command.encode() + b"\n")
            end = time.monotonic() + wait
            while time.monotonic() < end:
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                out += chunk
    except OSError as e:
        return f"(monitor: {e})"
    # The monitor echoes the command as typed, with terminal escapes.
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out.decode(errors="replace"))
    return "\n".join(line for line in text.splitlines() if not line.startswith("(qemu)")) + "\n"


def dump_wedged_guest(sock, dump):
    """What a wedged guest is doing, before it is stopped: SysRq-l (every
    CPU's backtrace) and SysRq-w (blocked tasks) go to its console, each
    vCPU's registers to @dump."""
    with open(dump, "w") as f:
        for key in ("l", "w"):
            f.write(monitor_command(sock, f"sendkey alt-sysrq-{key}"))
            time.sleep(10)
        f.write(monitor_command(sock, "info registers -a", wait=3.0))
