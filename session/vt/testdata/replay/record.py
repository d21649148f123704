#!/usr/bin/env python3
"""Records the replay corpus: real programs run in a PTY (TERM=xterm-256color,
80x24), their output saved raw up to a settled screen, before they exit.
Run from this directory: python3 record.py. The sample files it shows are
written here first. Each stream is named <name>.vt and replayed by
TestReplayCorpus against tmux."""
import os, pty, select, struct, fcntl, termios, time, sys

COLS, ROWS = 80, 24

SAMPLE = """// sample: mixed scripts and styles for the replay corpus
package main

import "fmt"

// café, naïve, x\u0301 (no precomposed form), Thai: \u0e01\u0e35\u0e48\u0e19\u0e49\u0e33
// Hindi: \u0915\u0941\u091b \u0928\u0939\u0940\u0902, emoji: \u2764\ufe0f \u2744\ufe0f \U0001F468\u200d\U0001F469\u200d\U0001F467 \U0001F1EF\U0001F1F5
func main() {
\tfor i := 0; i < 3; i++ {
\t\tfmt.Println("日本語", i) // wide text
\t}
}
"""

def settle(fd, out, quiet=0.4, limit=5.0):
    end = time.time() + limit
    last = time.time()
    while time.time() < end and time.time() - last < quiet:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out.extend(data)
            last = time.time()

def record(name, argv, keys=(), env=None):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"TERM": "xterm-256color", "LC_ALL": "C.UTF-8", "COLUMNS": str(COLS), "LINES": str(ROWS)})
        os.environ.update(env or {})
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    out = bytearray()
    settle(fd, out)
    for k in keys:
        os.write(fd, k)
        settle(fd, out)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    open(name + ".vt", "wb").write(out)
    print(name, len(out), "bytes")

open("sample.go", "w").write(SAMPLE)
with open("colours.txt", "w") as f:
    for i in range(8):
        f.write("\x1b[3%dmcolour %d\x1b[0m \x1b[1;3%dmbold %d\x1b[0m \x1b[2mfaint\x1b[0m \x1b[9mdone\x1b[0m\n" % (i, i, i, i))

record("vim", ["vim", "-u", "NONE", "-N", "-i", "NONE", "-c", "syntax on", "-c", "set number hlsearch", "sample.go"],
       keys=[b"/fmt\r", b"3G", b"ox\xcc\x81 \xe2\x9d\xa4\xef\xb8\x8f\x1b"])
record("less", ["less", "-R", "colours.txt"], keys=[b"/bold\r"])
record("man", ["man", "ls"], env={"MANPAGER": "less", "MANWIDTH": "80"}, keys=[b"/sort\r"])
record("ls", ["sh", "-c", "ls --color=always -la --time-style=+ /usr/share/vim 2>/dev/null | head -20; sleep 5"])
# A hand-written stream in the style of agent CLIs (Claude Code, opencode):
# faint chrome, struck-through completed items, RGB colours, a hyperlink,
# curly coloured underlines, rounded boxes, synchronized updates.
E = "\x1b"
agent = [E + "[?2026h", E + "[H" + E + "[2J",
         E + "[38;2;215;119;87m\u256d" + "\u2500" * 40 + "\u256e" + E + "[m\r\n",
         E + "[38;2;215;119;87m\u2502" + E + "[m " + E + "[1m\u273b Welcome\u2744\ufe0f" + E + "[22m " + E + "[2mcwd: /work\u00e9" + E + "[22m",
         E + "[41G" + E + "[38;2;215;119;87m\u2502" + E + "[m\r\n",
         E + "[38;2;215;119;87m\u2570" + "\u2500" * 40 + "\u256f" + E + "[m\r\n",
         E + "[2m> " + E + "[22mfix the \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22 tests\r\n",
         E + "[38;2;0;0;0;48;2;181;189;104m DONE " + E + "[m " + E + "[9m" + E + "[2mread the issue" + E + "[m\r\n",
         E + "[32m\u2714" + E + "[m " + E + "[9mwrite the failing test" + E + "[29m\r\n",
         E + "[33m\u25cb" + E + "[m " + E + "[4:3;58:2::255:0:0mfix" + E + "[4:0m the " + E + "]8;;https://example.com/x" + E + "\\" + E + "[4;34mlink" + E + "[m" + E + "]8;;" + E + "\\\r\n",
         E + "[1;34mdir" + E + "[0m " + E + "[1;32mexe" + E + "[0m \U0001F468\u200d\U0001F469\u200d\U0001F467 \U0001F1EF\U0001F1F5 \u0915\u0941\r\n",
         E + "[2m" + "\u2500" * 60 + E + "[22m\r\n",
         E + "[7m" + E + "[2m ? for shortcuts " + E + "[m" + E + "[K\r\n",
         E + "[?2026l"]
open("agent.vt", "wb").write("".join(agent).encode())
print("agent", len("".join(agent).encode()), "bytes")
os.remove("sample.go")
os.remove("colours.txt")
