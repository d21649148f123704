package ssh

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Host key refusals. Both errors say how to trust the key.
var (
	// ErrUnknownHostKey: the server's key is in none of the known_hosts files.
	ErrUnknownHostKey = errors.New("unknown host key")
	// ErrHostKeyChanged: known_hosts lists a different key for the server.
	ErrHostKeyChanged = errors.New("host key changed")
)

// testHook, when a test sets it, runs at named steps of connecting and
// starting: "handshake" (inside the host key check, mid-handshake),
// "session" (the session channel is open) and "started" (the remote command
// runs): gates at which a test cancels the start (contract S1). It also
// runs at "keepalive", after each answered keepalive.
var testHook func(step string)

func hook(step string) {
	if testHook != nil {
		testHook(step)
	}
}

// dial connects and authenticates to o's server. ctx cancels the TCP connect
// and the handshake; on any failure nothing it created is left open.
func (p *Provider) dial(ctx context.Context, o Options) (*ssh.Client, error) {
	check, algos, err := p.hostKeyCheck(o)
	if err != nil {
		return nil, err
	}
	a, err := newAuth(o)
	if err != nil {
		return nil, err
	}
	// The agent is needed only while authenticating.
	defer a.close()
	cfg := &ssh.ClientConfig{User: o.User, Auth: a.methods, HostKeyCallback: check, HostKeyAlgorithms: algos}

	d := net.Dialer{Timeout: o.ConnectTimeout}
	conn, err := d.DialContext(ctx, "tcp", o.Addr())
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect to %s: %w", o.Addr(), context.Cause(ctx))
		}
		return nil, fmt.Errorf("connect to %s: %w (check host and port, and that an SSH server listens there)", o.Addr(), err)
	}
	// The deadline bounds the handshake; closing the connection is the only
	// way to stop ssh.NewClientConn early, so a cancelled ctx does that.
	_ = conn.SetDeadline(time.Now().Add(o.ConnectTimeout)) // Best effort: a TCP conn always accepts it.
	disarm := closeOnCancel(ctx, func() { _ = conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, o.Addr(), cfg)
	cancelled := disarm()
	if err != nil {
		// NewClientConn closed conn.
		if cancelled {
			return nil, fmt.Errorf("connect to %s: %w", o.Addr(), context.Cause(ctx))
		}
		return nil, handshakeError(o, a, err)
	}
	client := ssh.NewClient(c, chans, reqs)
	if cancelled {
		closeClient(client)
		return nil, fmt.Errorf("connect to %s: %w", o.Addr(), context.Cause(ctx))
	}
	_ = conn.SetDeadline(time.Time{}) // Best effort: a stale deadline would later read as a dropped connection.
	return client, nil
}

// closeOnCancel runs closer when ctx is done, to unblock I/O that takes no
// context. The returned disarm stops that and reports whether closer ran;
// if it did, disarm returns only once closer has returned. That matters:
// of two concurrent Closes of a net.Conn only the first waits until the
// descriptor is really closed, so without the wait a cancelled Open could
// return while its socket is still open.
func closeOnCancel(ctx context.Context, closer func()) (disarm func() bool) {
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		closer()
	})
	var once sync.Once
	var fired bool
	return func() bool {
		once.Do(func() {
			if !stop() {
				<-done
				fired = true
			}
		})
		return fired
	}
}

// closeClient closes the connection and waits until its reader has stopped,
// so no goroutine of the connection outlives the call.
func closeClient(c *ssh.Client) {
	_ = c.Close() // Best effort: an already closed connection is the goal.
	_ = c.Wait()  // Only says why the connection ended, which the caller knows.
}

func handshakeError(o Options, a *auth, err error) error {
	switch {
	case errors.Is(err, ErrUnknownHostKey), errors.Is(err, ErrHostKeyChanged):
		return err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("SSH handshake with %s: %w (no answer within connect_timeout = %v: check that an SSH server, not something else, listens there)", o.Addr(), err, o.ConnectTimeout)
	// x/crypto reports a refused login only in this message.
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("log in to %s: %w (%s)", o.Target(), err, a.advice())
	}
	return fmt.Errorf("SSH handshake with %s: %w", o.Addr(), err)
}

// auth holds the authentication methods and what they need during the
// handshake.
type auth struct {
	methods   []ssh.AuthMethod
	agentConn net.Conn
	agentErr  error
	encrypted []string // identity files left to the agent
}

func (a *auth) close() {
	if a.agentConn != nil {
		_ = a.agentConn.Close() // Best effort: the agent keeps no state for us.
	}
}

func (a *auth) advice() string {
	switch {
	case len(a.encrypted) > 0 && a.agentConn == nil:
		return fmt.Sprintf("%s is encrypted: load it into ssh-agent with ssh-add and make sure sandmux sees SSH_AUTH_SOCK", a.encrypted[0])
	case a.agentErr != nil:
		return fmt.Sprintf("ssh-agent at SSH_AUTH_SOCK is unreachable (%v); add your public key to the server's ~/.ssh/authorized_keys and load the key into a running agent or list it in identity_files", a.agentErr)
	}
	return "add your public key to the server's ~/.ssh/authorized_keys, and load the key into ssh-agent or list it in identity_files"
}

// newAuth offers the agent's keys first, as ssh does, then the identity
// files. An encrypted file is left to the agent: sandmux never prompts.
func newAuth(o Options) (*auth, error) {
	a := &auth{}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if c, err := net.Dial("unix", sock); err != nil {
			a.agentErr = err
		} else {
			a.agentConn = c
			a.methods = append(a.methods, ssh.PublicKeysCallback(agent.NewClient(c).Signers))
		}
	}
	files, explicit := o.IdentityFiles, o.IdentityFiles != nil
	if !explicit {
		for _, f := range defaultIdentityFiles {
			files = append(files, expandHome(f))
		}
	}
	var signers []ssh.Signer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			continue
		}
		if err != nil {
			a.close()
			return nil, fmt.Errorf("read identity file: %w (fix identity_files in the ssh provider's table)", err)
		}
		s, err := ssh.ParsePrivateKey(data)
		var encrypted *ssh.PassphraseMissingError
		if errors.As(err, &encrypted) {
			a.encrypted = append(a.encrypted, f)
			continue
		}
		if err != nil {
			a.close()
			return nil, fmt.Errorf("identity file %s: %w (it must be a private key in OpenSSH, PEM or PKCS#8 form)", f, err)
		}
		signers = append(signers, s)
	}
	if len(signers) > 0 {
		a.methods = append(a.methods, ssh.PublicKeys(signers...))
	}
	if len(a.methods) == 0 {
		if len(a.encrypted) > 0 {
			return nil, fmt.Errorf("identity file %s is encrypted and no ssh-agent is reachable: start ssh-agent, run ssh-add %s, and start sandmux with SSH_AUTH_SOCK set", a.encrypted[0], a.encrypted[0])
		}
		return nil, errors.New("no SSH key to log in with: start sandmux with SSH_AUTH_SOCK pointing to an ssh-agent that holds your key, or list an unencrypted key in identity_files")
	}
	return a, nil
}

// hostKeyCheck returns the host key callback for o and the key algorithms
// to ask the server for: those known_hosts lists for this host, so that a
// server with several keys presents one we can check.
func (p *Provider) hostKeyCheck(o Options) (ssh.HostKeyCallback, []string, error) {
	if o.InsecureIgnoreHostKey {
		p.warn(fmt.Sprintf("ssh %s: the host key is not checked (insecure_ignore_host_key = true), so anyone on the network path can impersonate this server", o.Addr()))
		return func(string, net.Addr, ssh.PublicKey) error {
			hook("handshake")
			return nil
		}, nil, nil
	}
	var files []string
	for _, f := range o.KnownHosts {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("known_hosts file: %w (fix known_hosts in the ssh provider's table)", err)
		}
	}
	var db ssh.HostKeyCallback
	if len(files) > 0 {
		var err error
		if db, err = knownhosts.New(files...); err != nil {
			return nil, nil, fmt.Errorf("read known_hosts: %w (fix or remove the broken lines)", err)
		}
	}
	check := func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		hook("handshake")
		if db == nil {
			return unknownKey(o, key)
		}
		err := db(hostname, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case errors.As(err, &ke) && len(ke.Want) == 0:
			return unknownKey(o, key)
		case errors.As(err, &ke):
			return changedKey(o, key, ke.Want[0])
		case err != nil:
			return fmt.Errorf("check the host key of %s: %w", o.Addr(), err)
		}
		return nil
	}
	return check, knownAlgorithms(db, o.Addr()), nil
}

func unknownKey(o Options, key ssh.PublicKey) error {
	return fmt.Errorf("%w: %s offered the %s key %s, which is not in %s. If you trust this host, add its key with: %s "+
		"(and compare that fingerprint with one its administrator gives you), or set insecure_ignore_host_key = true, which is unsafe",
		ErrUnknownHostKey, o.Addr(), key.Type(), ssh.FingerprintSHA256(key), strings.Join(o.KnownHosts, ", "), keyscan(o))
}

func changedKey(o Options, key ssh.PublicKey, known knownhosts.KnownKey) error {
	return fmt.Errorf("%w: %s offered the %s key %s, but %s:%d lists a different key for it. Someone may be intercepting the connection; "+
		"if the server was reinstalled or its keys replaced, remove the old key with: ssh-keygen -R %s -f %s, then add the new one with: %s",
		ErrHostKeyChanged, o.Addr(), key.Type(), ssh.FingerprintSHA256(key), known.Filename, known.Line,
		quote(knownhosts.Normalize(o.Addr())), quote(known.Filename), keyscan(o))
}

func keyscan(o Options) string {
	return fmt.Sprintf("ssh-keyscan -p %d %s >> %s", o.Port, quote(o.Host), quote(o.KnownHosts[0]))
}

// knownAlgorithms asks db which keys it lists for addr, by checking a key
// that matches none of them.
func knownAlgorithms(db ssh.HostKeyCallback, addr string) []string {
	if db == nil {
		return nil
	}
	probe, err := ssh.NewPublicKey(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public())
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if !errors.As(db(addr, &net.TCPAddr{IP: net.IPv4zero}, probe), &ke) {
		return nil
	}
	var algos []string
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			algos = append(algos, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			algos = append(algos, t)
		}
	}
	return algos
}
