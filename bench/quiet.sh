#!/bin/bash
# What a multiplexer holding N idle shells costs once it has settled: the
# issue's idle row (32 shells, after 20 s, over 30 s), where idle.sh counts
# from 4 s after the start over 10 s, the tail of the start among it.
# usage: quiet.sh KIND [N] [WAIT] [SPAN]   KIND: tmux | sandmux ($SANDMUX)
# It runs inside a tmux of 200x60 that plays the user's terminal, waits
# WAIT s (default 20), then counts over SPAN s (default 30) the CPU of the
# multiplexer's own processes (client and server, not the outer tmux): in
# clock ticks as idle.sh does, and in ms from the scheduler's own account
# of every thread (/proc/PID/task/*/schedstat), which a tick's sampling
# rounds to 0 or 10; and their resident memory at the end.
set -u
KIND=$1; N=${2:-32}; WAIT=${3:-20}; SPAN=${4:-30}; ID=q$$
case $KIND in
  tmux) CMD="tmux -L $ID -f /dev/null new-session sh"
        for i in $(seq 2 "$N"); do CMD="$CMD \\; split-window sh \\; select-layout tiled"; done
        PAT="^tmux -L $ID ";;
  sandmux) B=$(readlink -f "${SANDMUX:-./sandmux}"); CMD="$B -L $ID"
           for i in $(seq "$N"); do CMD="$CMD sh"; done
           PAT="^$B (-L $ID |serve -S .*/$ID\.sock)";; # this run's client and server only
  *) echo "quiet.sh: unknown kind $KIND (tmux or sandmux)" >&2; exit 2;;
esac
tmux -L out$ID -f /dev/null new-session -d -s $ID -x 200 -y 60 "$CMD"
sleep "$WAIT"
P=$(pgrep -f "$PAT" | tr '\n' ' ')
ticks() { local t=0 p s; for p in $P; do s=$(awk '{print $14+$15}' "/proc/$p/stat" 2>/dev/null); t=$((t+${s:-0})); done; echo $t; }
ns() { local p; for p in $P; do cat "/proc/$p/task/"*/schedstat 2>/dev/null; done | awk '{s+=$1} END {printf "%d", s}'; }
a=$(ticks); an=$(ns); sleep "$SPAN"; b=$(ticks); bn=$(ns)
r=0; for p in $P; do s=$(awk '/VmRSS/{print $2}' "/proc/$p/status" 2>/dev/null); r=$((r+${s:-0})); done
echo "$KIND shells=$N after=${WAIT}s over=${SPAN}s procs=$(wc -w <<<"$P") cpu_ticks=$((b-a)) cpu_ms=$(awk "BEGIN {printf \"%.1f\", ($bn-$an)/1e6}") rss_kb=$r"
tmux -L out$ID kill-server 2>/dev/null; tmux -L $ID kill-server 2>/dev/null
[ "$KIND" = sandmux ] && "$B" ctl -L $ID quit --kill >/dev/null 2>&1
exit 0
