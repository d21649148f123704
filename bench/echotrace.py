#!/usr/bin/env python3
"""Where an idle key's echo spends its time, tmux beside sandmux: each
multiplexer runs `cat` in a terminal this script plays (200x50), and N
keys are typed GAP seconds apart (default 0.05, latency.py's) while the
kernel's tracer records the system calls that move each key: the
terminal's write of the key, the multiplexer's read of it, its write to
the pane, its read of the echo, its write of the frame, and the
terminal's read of that frame. The medians of the steps between them,
in microseconds, say which part of an echo is the multiplexer's own
work and which the kernel's and the scheduler's.

usage: bench/echotrace.py SANDMUX_BINARY [N]     (as root: it uses tracefs)
GAP=SECONDS is the quiet before each key. Needs tmux and a kernel with
tracefs and the syscalls trace events; it turns tracing off and clears
its events when it ends."""
import os, sys, signal, subprocess, statistics, re
from playterm import spawn, drain, echo

T = "/sys/kernel/tracing"
EVENTS = [f"syscalls:sys_{d}_{c}" for c in ("read", "readv", "write", "writev") for d in ("enter", "exit")]
STEPS = [("tw", "kr", "the terminal's write → the key read (waking the multiplexer)"),
         ("kr", "pw", "the key read → its write to the pane"),
         ("pw", "er", "the write to the pane → the echo read"),
         ("er", "fw", "the echo read → the frame's write (parsing and drawing)"),
         ("fw", "tr", "the frame's write → the terminal's read of it"),
         ("tw", "tr", "the whole echo")]


def tracefs(name, value):
    with open(f"{T}/{name}", "w") as f:
        f.write(value)


def tids(pids):
    out = set()
    for p in pids:
        try:
            out |= set(os.listdir(f"/proc/{p}/task"))
        except OSError:
            pass
    return out


def run(cmd, server_pids, n, gap):
    """Types n keys into cmd, the kernel tracing; returns the trace's lines
    and the tids of the terminal (this process) and the multiplexer."""
    pid, fd = spawn(cmd)
    drain(fd, 3.0)
    tracefs("trace", "")
    tracefs("tracing_on", "1")
    for i in range(n):
        drain(fd, gap)
        echo(fd, bytes([ord("a") + i % 26]))
    # The server's threads, read once it ran the keys: Go may start one
    # while they come.
    servers = tids(server_pids())
    tracefs("tracing_on", "0")
    with open(f"{T}/trace") as f:
        lines = f.read().splitlines()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return lines, str(os.getpid()), servers, fd


LINE = re.compile(r"\s*.+?-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): sys_(\w+?)(?:\(fd: (0x[0-9a-f]+|\d+),| -> (\S+))")


def steps(lines, me, servers, myfd):
    """The time of each key's steps, from the trace."""
    keys, cur, open_calls = [], None, {}
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        tid, t, call, fd, ret = m.group(1), float(m.group(2)) * 1e6, m.group(3), m.group(4), m.group(5)
        if ret is None:  # entry
            open_calls[tid] = (call, int(fd, 0), t)
            continue
        call, fd, t0 = open_calls.pop(tid, (call, -1, t))
        ok = 0 < int(ret, 0) < 1 << 63  # an error is a negative errno, printed unsigned
        reads, writes = call.startswith("read"), call.startswith("write")
        if tid == me and fd == myfd:
            if writes:
                cur = {"tw": t0}
                keys.append(cur)
            elif reads and ok and cur is not None and "fw" in cur and "tr" not in cur:
                cur["tr"] = t
        elif tid in servers and cur is not None and ok:
            if reads and "kr" not in cur:
                cur["kr"], cur["kfd"] = t, fd
            elif writes and "kr" in cur and "pw" not in cur and fd != cur["kfd"]:
                cur["pw"] = t0
            elif reads and "pw" in cur and "fw" not in cur and fd != cur["kfd"]:
                cur["er"] = t
            elif writes and "er" in cur and "fw" not in cur and fd == cur["kfd"]:
                cur["fw"] = t0
    out = {}
    for a, b, _ in STEPS:
        d = [k[b] - k[a] for k in keys if a in k and b in k]
        out[(a, b)] = (statistics.median(d), len(d)) if d else (None, 0)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench/echotrace.py SANDMUX_BINARY [N]")
    binary = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    gap = float(os.environ.get("GAP", "0.05"))
    if os.geteuid() != 0:
        sys.exit("echotrace.py: run it as root: it turns the kernel's tracer on and off")
    if not os.path.isdir(f"{T}/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", T], check=False)
    name = f"echotrace{os.getpid()}"
    tmux_pids = lambda: subprocess.run(["tmux", "-L", name, "display", "-p", "#{pid}"],
                                       capture_output=True, text=True).stdout.split()
    sandmux_pids = lambda: subprocess.run(["pgrep", "-f", f"^{binary} serve -S .*/{name}.sock"],
                                          capture_output=True, text=True).stdout.split()
    tracefs("tracing_on", "0")
    with open(f"{T}/buffer_size_kb") as f:
        size = f.read().split()[0]  # "N (expanded: M)" before first use
    res = {}
    try:
        tracefs("buffer_size_kb", "8192")
        tracefs("set_event", "\n".join(EVENTS) + "\n")
        res["tmux"] = steps(*run(["tmux", "-L", name, "-f", "/dev/null", "new-session", "cat"], tmux_pids, n, gap))
        res["sandmux"] = steps(*run([binary, "-L", name, "cat"], sandmux_pids, n, gap))
    finally:
        tracefs("tracing_on", "0")
        tracefs("set_event", "")
        tracefs("buffer_size_kb", size)
        subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)
        subprocess.run([binary, "ctl", "-L", name, "quit", "--kill"], capture_output=True)
    print(f"{n} keys {gap} s apart, medians in µs (keys timed)")
    print("| step | tmux | sandmux |\n|---|---|---|")
    for a, b, what in STEPS:
        cells = [f"{v:.0f} ({k})" if v is not None else "-" for v, k in (res["tmux"][(a, b)], res["sandmux"][(a, b)])]
        print(f"| {what} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
