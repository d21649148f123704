#!/usr/bin/env python3
"""Attach latency: the time from starting `sandmux attach -L NAME` in a
200x50 pseudo-terminal until the first whole frame is on screen (the
status line and the titles of panes 1..N, inside one synchronized
update).

usage: SANDMUX=./sandmux firstframe.py NAME N
e.g., with 16 flooding panes (in bash):
  a=(); for i in $(seq 16); do a+=("while :; do cat big.txt; done"); done
  ./sandmux serve -L ff --size 200x50 -- "${a[@]}" &
then run this a few times, and quit the server with
  ./sandmux ctl -L ff quit --kill"""
import os, sys, time, select, signal, re
from playterm import spawn
name, n = sys.argv[1], int(sys.argv[2])
B = os.environ.get("SANDMUX", "./sandmux")
t0 = time.perf_counter()
pid, fd = spawn([B, "attach", "-L", name])
got = b""
done = None
while time.perf_counter() - t0 < 5:
    r, _, _ = select.select([fd], [], [], 0.5)
    if not r: continue
    try: got += os.read(fd, 1 << 20)
    except OSError: break
    titles = set(int(m) for m in re.findall(rb"\x1b\[[0-9;]*m (\d+) \S", got))
    if b"? help" in got and all(i in titles for i in range(1, n + 1)) and b"\x1b[?2026l" in got:
        done = time.perf_counter() - t0; break
os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)
print(f"first_frame_ms={done*1000:.1f}" if done else "no whole frame")
