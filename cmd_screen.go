package main

import (
	"context"
	"flag"
	"fmt"
	"sync/atomic"
	"syscall"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

const screenUsage = "sandmux screen [--size COLSxROWS] [--ansi] [--scrollback] [--] CMD [ARGS...]"

// runScreen runs CMD headless in a local PTY through a session and the
// screen, and prints the final screen as a real terminal would show it.
func runScreen(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("screen", flag.ContinueOnError)
	fs.SetOutput(s.err)
	sizeFlag := fs.String("size", "80x24", "terminal size `COLSxROWS`")
	withSGR := fs.Bool("ansi", false, "keep colours and attributes (SGR)")
	withScrollback := fs.Bool("scrollback", false, "print the scrollback before the screen")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", screenUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	size, err := providers.ParseSize(*sizeFlag)
	if err != nil || fs.NArg() == 0 {
		if err != nil {
			fmt.Fprintln(s.err, "sandmux screen:", err)
		}
		fs.Usage()
		return exitUsage
	}
	ctx, caught, stop := signalContext(ctx)
	defer stop()

	// The screen answers the child's queries (cursor position, device
	// attributes) through the session, which starts after the screen.
	var sess atomic.Pointer[session.Session]
	replies := replyFunc(func(p []byte) {
		if s := sess.Load(); s != nil {
			_ = s.Write(p) // Best effort: a child that exited reads no replies.
		}
	})
	screen := vt.New(int(size.Cols), int(size.Rows), vt.WithReplies(replies), vt.WithScrollback(100000))
	defer screen.Close()
	m := session.NewManager(providers.Table{"local": local.New("")})
	opts := session.Options{Sinks: []session.Sink{screenSink{screen}}}
	st, err := m.Start(ctx, "local", providers.Spec{Name: "screen", Command: fs.Args(), Size: size}, opts)
	if err != nil {
		fmt.Fprintln(s.err, "sandmux screen:", err)
		return exitFailure
	}
	sess.Store(st)
	select {
	case <-st.Exited():
	case <-ctx.Done():
	}
	_ = m.Shutdown(ctx) // Its outcome is in the session's info below.
	m.Wait()

	out := screen.Dump(nil, *withScrollback, *withSGR)
	out = append(out, '\n')
	_, _ = s.out.Write(out) // Best effort: nowhere else to report.
	if sig := caught(); sig != nil {
		return 128 + int(sig.(syscall.Signal))
	}
	info := st.Info()
	if !info.ExitKnown {
		return exitFailure
	}
	return info.Exit.ShellCode()
}

// replyFunc is an io.Writer that hands each write to a function.
type replyFunc func(p []byte)

func (f replyFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// screenSink feeds a session's settled output to a screen.
type screenSink struct{ screen *vt.Screen }

func (s screenSink) Output(text string) { s.screen.Write(text) }
