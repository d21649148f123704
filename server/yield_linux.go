package server

import "golang.org/x/sys/unix"

// schedYield gives this thread's processor to whatever else waits for
// it (sched_yield), or returns at once when nothing does.
//
// It runs after an Update that wrote a key's echo to a client's terminal
// itself, once the model is let go. The write queues the bytes for a
// kernel worker, which moves them to the terminal's reader and wakes it.
// In a trace of an idle echo on a 2-core machine (the system calls and
// the scheduler's sched_switch and sched_wakeup events), that worker was
// woken onto the writer's own core, the other one idle, and waited there
// some 20 µs while the writer went on: back up the parse, a read of the
// pane that found nothing, Go's scheduler looking for work before the
// thread slept. Stepping aside lets the worker go first. The gain is
// measured, not only reasoned: an idle pane's echo (bench/scale.sh's lat
// rows, three runs each, the build before beside it) took a median of
// 0.36-0.37 ms against 0.42-0.43, tmux's 0.26-0.30; beside four flooding
// panes, a p90 of 1.2-2.4 ms against 3.2-4.2. Under the tracer it moves
// other steps than the frame's own (bench/echotrace.py, 100 keys: the
// frame's hop 84 -> 94 µs, the next key's wake 122 -> 102, the wait for
// the echo 90 -> 68), so where the kernel runs the threads afterwards
// counts too. Beside 16 and 48 busy agent panes, where the worker has
// others to wait behind anyway, five interleaved runs each moved by less
// than runs of one build differ.
func schedYield() { _, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
