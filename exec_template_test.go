package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/workspace"
)

// testedTemplates returns the exec templates that config.example.toml
// marks "(Tested.)", each as the file writes it (the line after the
// marker, uncommented).
func testedTemplates(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []string
	for i, line := range lines {
		if strings.HasSuffix(line, "(Tested.)") && i+1 < len(lines) {
			next := strings.TrimPrefix(lines[i+1], "# ")
			if !regexp.MustCompile(`^template = `).MatchString(next) {
				t.Fatalf("config.example.toml line %d: the line after (Tested.) is %q, not a template", i+2, lines[i+1])
			}
			out = append(out, next)
		}
	}
	if len(out) == 0 {
		t.Fatal("config.example.toml marks no template (Tested.)")
	}
	return out
}

// outputBuffer is a session sink that keeps the output for the test.
type outputBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *outputBuffer) Output(text string) { o.mu.Lock(); o.b.WriteString(text); o.mu.Unlock() }
func (o *outputBuffer) String() string     { o.mu.Lock(); defer o.mu.Unlock(); return o.b.String() }

// Each exec template that config.example.toml marks tested, written as the
// file writes it in a sandbox that leaves workspace to its default, starts
// its shell in the workspace: through the config, the workspace policy's
// prepare and the real exec provider in a Manager, as the TUI runs it.
func TestConfigExampleTestedExecTemplates(t *testing.T) {
	for i, line := range testedTemplates(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
			path := filepath.Join(dir, "sandmux.toml")
			doc := "[[sandbox]]\nname = \"execsh\"\nprovider = \"exec\"\n\n[providers.exec]\n" + line + "\n"
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(path, all.Registry)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			sb := cfg.Sandboxes[0]
			table := all.Table(cfg.Providers.Local.Shell, func(string) {}, "")
			ws := workspace.Policy{Registry: all.Registry, Store: filepath.Join(dir, "store"), Providers: table}
			if notice, err := ws.Prepare(sb)(t.Context()); err != nil || (notice != "" && !strings.HasPrefix(notice, "created workspace ")) {
				t.Fatalf("prepare: %q, %v", notice, err)
			}
			m := session.NewManager(table)
			defer m.Wait()
			out := &outputBuffer{}
			s, err := m.Start(t.Context(), sb.Provider, sb.Spec(), session.Options{
				StopGrace: sb.StopGrace, KillGrace: sb.KillGrace, DrainGrace: sb.DrainGrace, Sinks: []session.Sink{out},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Shutdown(context.Background())
			if err := s.Write([]byte("echo \"[$(pwd)]\"; exit 7\r")); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.Exited():
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: the shell did not exit; output %q", line, out.String())
			}
			info := s.Info()
			if !strings.Contains(out.String(), "["+sb.Workspace+"]") || !info.ExitKnown || info.Exit.Code != 7 {
				t.Errorf("%s: output %q, exit %+v; want the shell in %s and exit 7", line, out.String(), info.Exit, sb.Workspace)
			}
		})
	}
}
