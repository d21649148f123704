package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
)

// These tests use this machine's Docker engine. It has no registry, so the
// image is made from Debian's busybox-static: a root filesystem holding
// /bin/busybox and its applet links, imported as a FROM-scratch image
// (docker import: the same image a Dockerfile "FROM scratch / COPY bin
// /bin" builds, without the builder). Everything a run creates carries its
// run id, and is removed when the run ends.

var (
	runID     = "sdmx" + randHex(4)
	testImage = "sandmux-test-" + runID + ":1"

	setupOnce sync.Once
	setupErr  error // why the engine or the image is not available
	engineC   *client.Client
)

const busyboxPath = "/bin/busybox"

var applets = []string{
	"sh", "ls", "cat", "tar", "sleep", "kill", "stty", "ps", "pgrep", "grep", "tr",
	"echo", "printf", "id", "mkdir", "rm", "mv", "rmdir", "env", "true", "false", "ln", "wc", "head", "setsid",
}

// TestMain checks for leaked goroutines after the run's containers and
// image are removed and the test client is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(runThenTeardown{m}) }

type runThenTeardown struct{ m *testing.M }

func (r runThenTeardown) Run() int {
	defer teardownEngine()
	return r.m.Run()
}

// needDocker skips the test, loudly, when the engine or busybox is missing,
// unless SANDMUX_REQUIRE_ALL=1 says every test must run.
func needDocker(t *testing.T) {
	t.Helper()
	setupOnce.Do(func() { setupErr = setupEngine() })
	if setupErr == nil {
		return
	}
	if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
		t.Fatalf("docker tests required (SANDMUX_REQUIRE_ALL=1) but cannot run: %v", setupErr)
	}
	t.Skipf("SKIPPING docker test: %v (install docker.io and busybox-static, start the engine; set SANDMUX_REQUIRE_ALL=1 to make this fatal)", setupErr)
}

func setupEngine() error {
	if _, err := os.Stat(busyboxPath); err != nil {
		return fmt.Errorf("no %s (Debian package busybox-static): %w", busyboxPath, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.New(client.FromEnv)
	if err != nil {
		return fmt.Errorf("docker client: %w", err)
	}
	if _, err := c.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		_ = c.Close()
		return fmt.Errorf("docker engine does not answer: %w", err)
	}
	engineC = c
	rootfs, err := busyboxRootfs()
	if err != nil {
		return err
	}
	res, err := c.ImageImport(ctx, client.ImageImportSource{Source: bytes.NewReader(rootfs), SourceName: "-"}, testImage,
		client.ImageImportOptions{Changes: []string{`CMD ["/bin/sh"]`}})
	if err != nil {
		return fmt.Errorf("import the busybox test image: %w", err)
	}
	_, _ = io.Copy(io.Discard, res)
	_ = res.Close()
	return nil
}

// busyboxRootfs is a tar of bin/busybox and bin/<applet> links to it.
func busyboxRootfs() ([]byte, error) {
	bb, err := os.ReadFile(busyboxPath)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "bin/", Mode: 0o755})
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777})
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bb))})
	_, _ = tw.Write(bb)
	for _, a := range applets {
		_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777})
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// teardownEngine removes every container and the image of this run.
func teardownEngine() {
	if engineC == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, c := range runContainers(ctx) {
		_, _ = engineC.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true})
	}
	_, _ = engineC.ImageRemove(ctx, testImage, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	_ = engineC.Close()
}

// runContainers lists the containers of this run, running or not: the
// ones Open created carry the run id in their name, the ones tests made
// in their label.
func runContainers(ctx context.Context) []container.Summary {
	res, err := engineC.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("name", runID)})
	if err != nil {
		panic(fmt.Sprintf("list containers: %v", err))
	}
	return res.Items
}

// containersOf lists the containers Open created for the sandbox name.
func containersOf(t *testing.T, name string) []container.Summary {
	t.Helper()
	res, err := engineC.ContainerList(t.Context(), client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", Label+".name="+name)})
	if err != nil {
		t.Fatalf("list containers: %v", err)
	}
	return res.Items
}

// sandboxName is a spec name unique to the test and this run.
func sandboxName(t *testing.T) string {
	n := strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())
	return runID + "-" + n + "-" + randHex(2)
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// imageSpec is a spec that creates a container from the test image with a
// fresh workspace.
func imageSpec(t *testing.T, command ...string) providers.Spec {
	return providers.Spec{
		Name: sandboxName(t), Command: command, Dir: t.TempDir(), Size: providers.Size{Cols: 80, Rows: 24},
		Options: map[string]any{"image": testImage},
	}
}

// runningContainer starts a container that a test attaches to, as a user
// would have; it is removed when the test ends.
func runningContainer(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	name := "sandmux-" + sandboxName(t) + "-target"
	res, err := engineC.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name, Config: &container.Config{
		Image: testImage, Entrypoint: []string{"sleep", "2147483647"}, WorkingDir: "/work",
	}})
	if err != nil {
		t.Fatalf("create target container: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = engineC.ContainerRemove(ctx, res.ID, client.ContainerRemoveOptions{Force: true})
	})
	if _, err := engineC.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatalf("start target container: %v", err)
	}
	return name
}

// containerSpec is a spec that attaches to the container called name.
func containerSpec(t *testing.T, name string, command ...string) providers.Spec {
	return providers.Spec{
		Name: sandboxName(t), Command: command, Size: providers.Size{Cols: 80, Rows: 24},
		Options: map[string]any{"container": name},
	}
}

// exists reports whether the container ref exists, and whether it runs.
func exists(t *testing.T, ref string) (found, running bool) {
	t.Helper()
	in, err := engineC.ContainerInspect(t.Context(), ref, client.ContainerInspectOptions{})
	if err != nil {
		if gone(err) {
			return false, false
		}
		t.Fatalf("inspect %s: %v", ref, err)
	}
	return true, in.Container.State != nil && in.Container.State.Running
}

// processes lists the command lines of the processes in container ref.
func processes(t *testing.T, ref string) []string {
	t.Helper()
	top, err := engineC.ContainerTop(t.Context(), ref, client.ContainerTopOptions{Arguments: []string{"-eo", "pid,args"}})
	if err != nil {
		if gone(err) {
			return nil
		}
		t.Fatalf("top %s: %v", ref, err)
	}
	var out []string
	for _, p := range top.Processes {
		out = append(out, p[len(p)-1])
	}
	return out
}

// eventually polls cond until it holds or 30s pass: for facts the engine
// offers no event for (a process gone from a container).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	within(t, 30*time.Second, what, cond)
}

func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for delay := 5 * time.Millisecond; !cond(); delay = min(2*delay, 200*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(delay) // a poll interval: the engine has no event for this
	}
}
