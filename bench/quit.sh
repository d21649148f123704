#!/bin/bash
# What quitting costs: N panes each running `sleep 86399` in a 200x50
# terminal, then the multiplexer is told to quit (sandmux: `ctl quit`,
# which signals every pane and verifies it empty; tmux: kill-server).
# Prints the seconds until its processes have exited and the CPU ticks
# (1/100 s) they used meanwhile. EXTRA more processes (sleeps) run on the
# machine meanwhile: sandmux finds a pane's processes by walking /proc.
# usage: SANDMUX=./sandmux bench/quit.sh [N] [EXTRA] [KIND...]  KIND: sandmux tmux
set -u
N=${1:-48}; EXTRA=${2:-0}; shift $(( $# < 2 ? $# : 2 )); KINDS=${*:-sandmux tmux}
B=$(readlink -f "${SANDMUX:-./sandmux}")
ticks() { local t=0 c p; for p in $1; do c=$(awk '$3 != "Z" {print $14+$15}' "/proc/$p/stat" 2>/dev/null); t=$((t+${c:-0})); done; echo $t; }
alive() { local p; for p in $1; do [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = S ] && return 0
  [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = R ] && return 0; done; return 1; }
extra=(); for _ in $(seq "$EXTRA"); do sleep 900 & extra+=($!); done
trap '[ ${#extra[@]} -gt 0 ] && kill "${extra[@]}" 2>/dev/null' EXIT
for kind in $KINDS; do
  L=q$$$kind
  case $kind in
    sandmux) CMD="$B -L $L"; for _ in $(seq "$N"); do CMD="$CMD 'sleep 86399'"; done
             PAT="^$B (-L $L|serve -S .*/$L.sock)"; QUIT="$B ctl -L $L quit";;
    tmux) CMD="tmux -L $L -f /dev/null new-session 'sleep 86399'"
          for _ in $(seq 2 "$N"); do CMD="$CMD \\; split-window 'sleep 86399' \\; select-layout tiled"; done
          PAT="^tmux -L $L"; QUIT="tmux -L $L kill-server";;
    *) echo "unknown kind $kind" >&2; exit 2;;
  esac
  tmux -L o$L -f /dev/null new-session -d -x 200 -y 50 "$CMD"
  for _ in $(seq 300); do [ "$(pgrep -f "^sleep 86399$" -c)" -ge "$N" ] && break; sleep 0.05; done
  sleep 1; P=$(pgrep -f "$PAT" | tr '\n' ' '); a=$(ticks "$P")
  # ticks of a process that exited are read just before it did
  s=$(date +%s.%N); $QUIT >/dev/null 2>&1 & q=$!; last=$a
  while alive "$P"; do t=$(ticks "$P"); [ "$t" -gt "$last" ] && last=$t; sleep 0.01; done
  e=$(date +%s.%N); wait $q; tmux -L o$L kill-server 2>/dev/null
  echo "$kind panes=$N extra_procs=$EXTRA quit_seconds=$(printf %.2f "$(echo "$e - $s" | bc)") cpu_ticks=$((last-a))"
done
