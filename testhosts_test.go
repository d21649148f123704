package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needFile is need for programs that are not on PATH (sshd lives in sbin).
func needFile(t *testing.T, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("SKIPPED: %s is missing (apt-get install %s; .ci/run does)", path, pkg)
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// sshHost is a private OpenSSH server on 127.0.0.1 for one test, with a
// generated host key and one authorized user key; it touches no system
// configuration.
type sshHost struct {
	port                   int
	userKey, knownHostFile string
}

func startSSHHost(t *testing.T) *sshHost {
	t.Helper()
	needFile(t, "/usr/sbin/sshd", "openssh-server")
	need(t, "ssh-keygen")
	dir := t.TempDir()
	for _, k := range []string{"host_key", "user_key"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(dir, "user_key.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %[2]s/host_key
AuthorizedKeysFile %[2]s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin yes
PidFile %[2]s/sshd.pid
`, port, dir)
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600)
	os.MkdirAll("/run/sshd", 0o755)
	sshd := exec.Command("/usr/sbin/sshd", "-f", filepath.Join(dir, "sshd_config"), "-D", "-e")
	var log bytes.Buffer
	sshd.Stderr = &log
	if err := sshd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	t.Cleanup(func() {
		_ = sshd.Process.Kill()
		_ = sshd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd never listened: %s", log.String())
		}
		time.Sleep(10 * time.Millisecond) // poll: a listening port has no event
	}
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	fields := strings.Fields(string(hostPub))
	known := filepath.Join(dir, "known_hosts")
	os.WriteFile(known, []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", port, fields[0], fields[1])), 0o600)
	return &sshHost{port: port, userKey: filepath.Join(dir, "user_key"), knownHostFile: known}
}

// busyboxImage imports an image holding only busybox (no registry is
// reachable), tagged for this test, and removes it afterwards.
func busyboxImage(t *testing.T) string {
	t.Helper()
	need(t, "docker")
	needFile(t, "/bin/busybox", "busybox-static")
	if out, err := exec.Command("docker", "info").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("SKIPPED: the Docker engine does not answer: %v: %.200s", err, out)
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777})
	tw.WriteHeader(&tar.Header{Name: "bin/busybox", Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(bin))})
	tw.Write(bin)
	for _, tool := range []string{"sh", "ls", "cat", "tar", "sleep", "kill", "stty", "ps", "grep", "rm", "mv", "mkdir", "echo", "env", "pgrep"} {
		tw.WriteHeader(&tar.Header{Name: "bin/" + tool, Typeflag: tar.TypeSymlink, Linkname: "busybox", Mode: 0o777})
	}
	tw.Close()
	tag := fmt.Sprintf("sandmux-e2e-busybox:%d", time.Now().UnixNano())
	imp := exec.Command("docker", "import", "--change", `CMD ["/bin/sh"]`, "-", tag)
	imp.Stdin = &buf
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("docker import: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", tag).Run() })
	return tag
}

// containersNamed lists containers sandmux created for the named sandbox.
func containersNamed(t *testing.T, name string) string {
	t.Helper()
	out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=sandmux.name="+name).Output()
	return strings.TrimSpace(string(out))
}
