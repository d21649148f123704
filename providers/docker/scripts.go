package docker

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The Engine API can signal a container's PID 1 but not an exec. The exec's
// process is a session leader inside the container (runc calls setsid for a
// TTY exec), but the engine reports only its pid as seen from the engine's
// host, and no API maps that to the container's pid namespace. So the
// session is found from inside: every exec sandmux starts carries
// SANDMUX_EXEC=<token> in its environment, and sessionScript, run as a
// second exec, finds the sessions of the processes carrying it, adds the
// sessions it was given (found earlier, in case the carriers have since
// exited or replaced their environment), and signals every live member,
// session leaders first: a shell that saw its children die first could
// exit 0 before its own signal arrived.
//
// It needs sh, grep (-z, as in GNU grep and busybox) and the shell's kill
// builtin inside the container; /proc/PID/stat is parsed after the last
// ")" because the command name may hold spaces and parentheses.
//
// Arguments: signal number (0 only reports), token, known session ids.
// Output: "sessions: ID..." then "members: N".
const sessionScript = `sig=$1 tok=$2; shift 2; sids=" $* "
for f in $(grep -lxzF "SANDMUX_EXEC=$tok" /proc/[0-9]*/environ 2>/dev/null); do
	p=${f#/proc/}; p=${p%/environ}
	read -r st 2>/dev/null <"/proc/$p/stat" || continue
	set -- ${st##*) }
	case "$4" in 0|"") continue ;; esac
	case "$sids" in *" $4 "*) ;; *) sids="$sids$4 " ;; esac
done
echo "sessions:$sids"
n=0 leaders= others=
for d in /proc/[0-9]*; do
	read -r st 2>/dev/null <"$d/stat" || continue
	set -- ${st##*) }
	[ "$1" = Z ] && continue
	case "$sids" in *" $4 "*) ;; *) continue ;; esac
	n=$((n+1))
	if [ "$4" = "${d#/proc/}" ]; then leaders="$leaders ${d#/proc/}"; else others="$others ${d#/proc/}"; fi
done
[ "$sig" = 0 ] || [ "$n" = 0 ] || kill -"$sig" $leaders $others 2>/dev/null
echo "members:$n"`

// findSessions runs sessionScript with signal 0 as user, the exec's own:
// the processes' environments are readable only to their own user, since
// root in a container lacks CAP_SYS_PTRACE. It returns the session ids
// found, with known.
func (e *engine) findSessions(ctx context.Context, cid, user, token string, known []string) ([]string, error) {
	sessions, _, err := e.sessionHelper(ctx, cid, user, 0, token, known)
	return sessions, err
}

// signalSessions sends sig to the sessions known and those of the
// processes carrying token. It runs as root, which may signal any process
// (CAP_KILL is in every container's default set), also members that
// changed user (sudo).
func (e *engine) signalSessions(ctx context.Context, cid string, sig syscall.Signal, token string, known []string) ([]string, int, error) {
	return e.sessionHelper(ctx, cid, "0", sig, token, known)
}

func (e *engine) sessionHelper(ctx context.Context, cid, user string, sig syscall.Signal, token string, known []string) (sessions []string, members int, err error) {
	argv := append([]string{"/bin/sh", "-c", sessionScript, "sandmux-signal", strconv.Itoa(int(sig)), token}, known...)
	res, err := e.run(ctx, cid, user, argv)
	if err != nil {
		return nil, 0, err
	}
	sessLine, membersLine := "", ""
	for line := range strings.Lines(res.Stdout) {
		line = strings.TrimSpace(line)
		if s, ok := strings.CutPrefix(line, "sessions:"); ok {
			sessLine = s
		} else if s, ok := strings.CutPrefix(line, "members:"); ok {
			membersLine = s
		}
	}
	members, convErr := strconv.Atoi(membersLine)
	if convErr != nil {
		return nil, 0, fmt.Errorf("%w: %q (the container needs /bin/sh and grep to signal a session)", ErrHelperFailed, res.Stderr)
	}
	sessions = strings.Fields(sessLine)
	slices.Sort(sessions)
	return slices.Compact(sessions), members, nil
}

// workspaceScripts prepare a staging directory for an import and swap its
// contents into the workspace: the workspace is only touched once the
// engine has unpacked the whole stream. Arguments: workspace, stage.
const (
	stageScript = `set -e; rm -rf -- "$2"; mkdir -p -- "$1" "$2"`
	swapScript  = `set -e; d=$1 s=$2
cd "$d"
for f in * .[!.]* ..?*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	[ "$d/$f" = "$s" ] || rm -rf -- "$f"
done
cd "$s"
for f in * .[!.]* ..?*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	mv -- "$f" "$d/"
done
cd "$d"; rmdir -- "$s"; echo swapped`
	unstageScript = `rm -rf -- "$2"; echo removed`
)
