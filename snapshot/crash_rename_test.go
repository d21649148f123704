package snapshot

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The crash child is this test binary run again with crashChildEnv set: it
// saves SANDMUX_CRASH_SRC to SANDMUX_CRASH_ARCHIVE and, at its
// SANDMUX_CRASH_AT'th crash point, says where it is on stdout and waits on
// stdin for the SIGKILL the parent sends.
const crashChildEnv = "SANDMUX_CRASH_CHILD"

// crashChild runs the child's side; TestMain calls it before any test.
func crashChild() int {
	at, err := strconv.Atoi(os.Getenv("SANDMUX_CRASH_AT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "SANDMUX_CRASH_AT:", err)
		return 2
	}
	n := 0
	crashPoint = func(point string) {
		if n++; n == at {
			fmt.Printf("at %s\n", point)
			_, _ = io.Copy(io.Discard, os.Stdin) // Until the parent kills us.
			os.Exit(3)
		}
	}
	src, archive := os.Getenv("SANDMUX_CRASH_SRC"), os.Getenv("SANDMUX_CRASH_ARCHIVE")
	if _, err := Save(context.Background(), DirSource(src), archive, SaveOptions{Sandbox: "sb"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("done")
	return 0
}

// TestContract_W6_ReplacingSaveKilledAtEachRename replaces a snapshot with
// a save that is SIGKILLed at each of its crash points in turn (before
// each rename, and after the last): afterwards the file verifies, restores
// exactly the old tree or the new one (the old one before the first
// rename, the new one after the last), and the store lists it with a
// manifest. The old snapshot is in the current format or in the one
// before it (manifest beside the archive only).
func TestContract_W6_ReplacingSaveKilledAtEachRename(t *testing.T) {
	trees := t.TempDir()
	oldTree, newTree := filepath.Join(trees, "old"), filepath.Join(trees, "new")
	writeTree(t, oldTree)
	writeTree(t, newTree)
	if err := os.WriteFile(filepath.Join(newTree, "src", "added"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oldHash, newHash := treeHash(t, oldTree), treeHash(t, newTree)
	const points = 3 // two renames, then "saved"
	for _, oldFormat := range []bool{false, true} {
		for at := 1; at <= points; at++ {
			t.Run(fmt.Sprintf("old_format=%v/kill_at_%d", oldFormat, at), func(t *testing.T) {
				root := t.TempDir()
				archive := filepath.Join(root, "sb", "20260101T000000.000Z"+ArchiveSuffix)
				if err := os.MkdirAll(filepath.Dir(archive), 0o700); err != nil {
					t.Fatal(err)
				}
				if _, err := Save(context.Background(), DirSource(oldTree), archive, SaveOptions{Sandbox: "sb"}); err != nil {
					t.Fatal(err)
				}
				if oldFormat {
					toOldFormat(t, archive)
				}
				point := killSaveAt(t, newTree, archive, at)
				t.Logf("killed at %s", point)

				r, err := Verify(context.Background(), archive, VerifyOptions{})
				if err != nil {
					t.Fatalf("after a kill at %s, verify: %v", point, err)
				}
				if r.Manifest == nil {
					t.Errorf("after a kill at %s, verify found no manifest", point)
				}
				dst := filepath.Join(t.TempDir(), "ws")
				if _, err := Restore(context.Background(), archive, dst, RestoreOptions{}); err != nil {
					t.Fatalf("after a kill at %s, restore: %v", point, err)
				}
				got := treeHash(t, dst)
				switch {
				case got != oldHash && got != newHash:
					t.Fatalf("after a kill at %s, restore gave neither tree:\n%s", point, treeListing(t, dst))
				case at == 1 && got != oldHash:
					t.Errorf("killed before any rename, the archive is not the old snapshot")
				case at == points && got != newHash:
					t.Errorf("killed after every rename, the archive is not the new snapshot")
				}
				es, err := (&Store{Root: root}).List("sb")
				if err != nil || len(es) != 1 || es[0].Manifest == nil || es[0].Manifest.Files != r.Files {
					t.Fatalf("store lists %+v, %v; want the one snapshot with a manifest of %d files", es, err, r.Files)
				}
			})
		}
	}
}

// killSaveAt runs the crash child saving src to archive, SIGKILLs it at its
// at'th crash point and returns that point's name.
func killSaveAt(t *testing.T, src, archive string, at int) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"=1", "SANDMUX_CRASH_AT="+strconv.Itoa(at),
		"SANDMUX_CRASH_SRC="+src, "SANDMUX_CRASH_ARCHIVE="+archive)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	var got string
	select {
	case got = <-line:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("the save reached no crash point within a minute")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	point, ok := strings.CutPrefix(got, "at ")
	if !ok {
		t.Fatalf("the save ended (%q, %v) before crash point %d: %s", got, err, at, stderr.String())
	}
	if ws, isWait := cmd.ProcessState.Sys().(syscall.WaitStatus); !isWait || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the save was not killed at %s: %v: %s", point, err, stderr.String())
	}
	return point
}

// toOldFormat rewrites a snapshot the way sandmux wrote them before the
// manifest travelled inside the archive: the archive without its manifest
// frame, and the manifest only beside it, describing the whole file. It
// reads the frame by its documented layout rather than through the code
// under test.
func toOldFormat(t *testing.T, archive string) {
	t.Helper()
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(data); n > 20 && string(data[n-8:]) == "SANDMUXM" {
		size := int(binary.LittleEndian.Uint32(data[n-12 : n-8]))
		data = data[:n-16-size-8] // footer: CRC, size, tag; header: magic, size
		if err := os.WriteFile(archive, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(ManifestPath(archive))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "data_size")
	delete(m, "data_sha256")
	sum := sha256.Sum256(data)
	m["archive_size"], m["sha256"] = len(data), hex.EncodeToString(sum[:])
	raw, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ManifestPath(archive), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
