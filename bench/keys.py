#!/usr/bin/env python3
"""What an idle key costs: N keys typed one at a time into a multiplexer
whose focused pane runs cat, each timed until its echo shows, and `perf stat`
of its server meanwhile (sandmux's or tmux's: context switches and CPU
time, per key). More keys than latency.py's 40 make the median steadier.

usage: keys.py N sandmux BINARY      (a private server, -L, quit at the end)
       keys.py N tmux
GAP=SECONDS is how long the terminal waits between keys (default 0.02;
latency.py waits 0.05). The echo of a key typed after 50 ms or more of
quiet costs sandmux more than one typed 10 ms after the last: run
GAP=0.01 and GAP=0.05 to see that step.
FLOODS=K puts K more panes beside the cat, each catting a file of 20 MB
over and over (scale.sh's "echo beside 4 floods", with more keys, so the
p99 and the slowest key mean something), and types {}`& , which the file
must not hold, for a letter in a flood's frame is no echo; FLOODFILE=PATH
names the file (default: $TMPDIR/sandmux-streams/mixed.txt, made with
../shared/bench/gen-output.py when missing).
Needs perf (Debian's linux-perf) for the server's counts (not taken
beside floods: they would count the floods); without it the echo times
alone. It prints the median, p90, p99 and slowest echo."""
import os, sys, signal, subprocess, statistics, shutil, shlex
from playterm import spawn, drain, echo
n, kind = int(sys.argv[1]), sys.argv[2]
gap = float(os.environ.get("GAP", "0.02"))
name = f"keys{os.getpid()}"
floods = int(os.environ.get("FLOODS", "0"))
# Beside floods the keys are characters the flooding file never holds
# (agents.sh's), so a letter in a flood frame is not taken for the echo.
KEYS = b"{}`&"
flood = []
if floods > 0:
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.environ.get("FLOODFILE") or os.path.join(os.environ.get("TMPDIR", "/tmp"), "sandmux-streams", "mixed.txt")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gen = os.path.join(here, "..", "..", "shared", "bench", "gen-output.py")
        subprocess.run([sys.executable, gen, "mixed", path, "20"], check=True)
    with open(path, "rb") as f:
        held = f.read()
        if any(c in held for c in KEYS):
            sys.exit(f"keys.py: {path} holds one of {KEYS.decode()}, the keys typed beside floods")
    flood = [f"sh -c 'while :; do cat {shlex.quote(path)}; done'"] * floods
if kind == "sandmux":
    binary = os.path.abspath(sys.argv[3])
    cmd = [binary, "-L", name, "cat"] + flood
else:
    cmd = ["tmux", "-L", name, "-f", "/dev/null", "new-session", "cat"]
    for f in flood:
        cmd += [";", "split-window", f, ";", "select-layout", "tiled"]
    if flood:
        cmd += [";", "select-pane", "-t", "0"]
def quit_server():
    """Ends the multiplexer this run started: on every way out, for a
    server left with four floods would load the machine for every later
    measure."""
    if kind == "sandmux":
        subprocess.run([binary, "ctl", "-L", name, "quit", "--kill"], capture_output=True)
    else:
        subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)


pid, fd = spawn(cmd)
lat, counts = [], ""
try:
    drain(fd, 3.0)
    perf = None
    if shutil.which("perf") and not floods:
        if kind == "sandmux":
            srv = subprocess.run(["pgrep", "-f", f"{binary} serve -S .*/{name}.sock"], capture_output=True, text=True).stdout.split()
        else:  # tmux's server is the process of the command line that is not the client's child
            srv = subprocess.run(["pgrep", "-P", "1", "-f", f"tmux -L {name} "], capture_output=True, text=True).stdout.split()
        if srv:
            perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "context-switches,task-clock", "-p", srv[0]],
                                    stderr=subprocess.PIPE, text=True)
            drain(fd, 0.5)
    for i in range(n):
        ch = KEYS[i % len(KEYS):][:1] if floods else bytes([ord('a') + i % 26]); drain(fd, gap)
        lat.append(echo(fd, ch))
    if perf:
        perf.send_signal(signal.SIGINT)
        for line in perf.communicate()[1].splitlines():
            f = line.split(",")
            if len(f) > 2 and f[2] == "context-switches": counts += f" switches_per_key={float(f[0]) / n:.1f}"
            if len(f) > 2 and f[2].startswith("task-clock"): counts += f" cpu_us_per_key={float(f[0]) * 1000 / n:.0f}"
finally:
    os.kill(pid, signal.SIGKILL)
    quit_server()
lat.sort()
at = lambda q: lat[min(len(lat) - 1, int(len(lat) * q))] * 1000
print(f"{kind} keys={n} gap_ms={gap * 1000:g} floods={floods} median_ms={statistics.median(lat) * 1000:.3f} "
      f"p90_ms={at(0.9):.3f} p99_ms={at(0.99):.3f} max_ms={lat[-1] * 1000:.3f}{counts}")
