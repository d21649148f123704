package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sandmux/sandmux/endpoint"
)

// stale leaves a socket named name in endpoint.Dir that nobody listens at,
// as a server that was killed does.
func stale(t *testing.T, name string) {
	t.Helper()
	socket, err := endpoint.Path(name, "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := endpoint.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestList(t *testing.T) {
	env(t)
	if got, err := List(t.Context(), nil); err != nil || len(got) != 0 {
		t.Fatalf("List with no socket directory = %v, %v; want none", got, err)
	}
	o := opts(t, "live")
	o.Args = []string{"serve", o.Socket}
	start(t, o)
	stale(t, "dead")

	var mu sync.Mutex
	var probed []string
	probe := func(ctx context.Context, socket string) (int, int, error) {
		mu.Lock()
		defer mu.Unlock()
		probed = append(probed, socket)
		return 3, 1, nil
	}
	got, err := List(t.Context(), probe)
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Name: "dead", Socket: filepath.Join(endpoint.Dir(), "dead.sock"), Stale: true},
		{Name: "live", Socket: o.Socket, Sessions: 3, Clients: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("List[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(probed) != 1 || probed[0] != o.Socket {
		t.Errorf("probed %v, want only the live server", probed)
	}

	// A probe's failure is the server's error; "nothing answers" is stale.
	failing := errors.New("bad reply")
	got, _ = List(t.Context(), func(context.Context, string) (int, int, error) { return 0, 0, failing })
	if !errors.Is(got[1].Err, failing) || got[1].Stale {
		t.Errorf("failing probe: %+v", got[1])
	}
	gone := func(context.Context, string) (int, int, error) { return 0, 0, endpoint.ErrNoServer }
	if got, _ = List(t.Context(), gone); !got[1].Stale || got[1].Err != nil {
		t.Errorf("probe finding no server: %+v, want stale", got[1])
	}
	if got, _ = List(t.Context(), nil); got[1].Stale || got[0].Stale != true {
		t.Errorf("List without a probe: %+v", got)
	}
}

// Only sockets named NAME.sock are listed: not the start locks beside
// them, nor a plain file with a socket's name.
func TestListSkipsOtherFiles(t *testing.T) {
	env(t)
	stale(t, "a")
	lock, err := openLock(filepath.Join(endpoint.Dir(), "a.sock"))
	if err != nil {
		t.Fatal(err)
	}
	_ = lock.Close()
	if err := os.WriteFile(filepath.Join(endpoint.Dir(), "c.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := List(t.Context(), nil)
	if err != nil || len(got) != 1 || got[0].Name != "a" {
		t.Errorf("List = %+v, %v; want only a", got, err)
	}
}
