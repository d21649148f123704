"""The user's terminal as the bench scripts play it: a command on a
pseudo-terminal of 200x50 with TERM=xterm-256color, its output read and
dropped while the script waits, and a key typed and timed until its
echo shows. keys.py, echotrace.py and firstframe.py import it (from
their own directory)."""
import fcntl, os, pty, select, struct, termios, time


def spawn(cmd):
    """Starts cmd on a new pseudo-terminal; its pid and the master's fd."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.execvp(cmd[0], cmd)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    return pid, fd


def drain(fd, t):
    """Reads and drops what fd gives for t seconds (less once it ends)."""
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], max(0, end - time.time()))
        if r:
            try:
                os.read(fd, 1 << 16)
            except OSError:
                return


def echo(fd, ch, timeout=2.0):
    """Types ch and waits until it shows: the seconds that took, or
    timeout when nothing came for that long."""
    t0 = time.perf_counter()
    os.write(fd, ch)
    got = b""
    while ch not in got:
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return timeout
        got += os.read(fd, 1 << 16)
    return time.perf_counter() - t0
