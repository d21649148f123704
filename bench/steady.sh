#!/bin/bash
# Memory at steady state: N panes each replaying STREAM at RATE bytes/s
# (as ../shared/bench/agents.sh's do) for SECONDS, by default past
# sandmux's [record] retain of 5 minutes, so its rings hold all they will;
# then each multiplexer's processes' memory, summed. Every KIND runs at
# once, each in an outer tmux of 200x50, so they see the same machine.
# usage: steady.sh N STREAM [SECONDS] KIND...
#   KIND: tmux, or the path of a sandmux binary (an older build beside a new)
# Prints per KIND: rss_mb (resident sets, as agents.sh counts), anon_mb
# (their anonymous part: the heap), pss_mb (shared pages split between
# the processes mapping them: a binary's pages mapped by a server and its
# client count once) and, for sandmux, rings_mb (what `ctl ls --json`
# says its panes hold: screens, scrollback and rings).
set -u
N=$1; IN=$(readlink -f "$2"); SECS=${3:-330}; shift 3
RATE=${RATE:-20000}
BENCH=${BENCH:-$(readlink -f "$(dirname "$(readlink -f "$0")")/../../shared/bench" 2>/dev/null)}
[ -f "$BENCH/pace.py" ] || BENCH=/work/shared/bench
PLAY="python3 $BENCH/pace.py $IN $RATE $((SECS + 120))"
names=()
for k in "$@"; do
  i=${#names[@]}; name=st$$x$i; names+=("$name")
  case $k in
    tmux) CMD="tmux -L $name -f /dev/null new-session cat"
          for _ in $(seq "$N"); do CMD="$CMD \\; split-window '$PLAY' \\; select-layout tiled"; done;;
    *) CMD="$(readlink -f "$k") -L $name cat"; for _ in $(seq "$N"); do CMD="$CMD '$PLAY'"; done;;
  esac
  tmux -L out$name -f /dev/null new-session -d -s "$name" -x 200 -y 50 "$CMD"
done
sleep "$SECS"
sum() { # FIELD FILE PIDS...: the sum, in kB, of FIELD over /proc/PID/FILE
  local f=$1 file=$2 t=0 v p; shift 2
  for p in "$@"; do v=$(awk -v f="$f:" '$1 == f {print $2; exit}' "/proc/$p/$file" 2>/dev/null); t=$((t + ${v:-0})); done
  echo $t
}
i=0
for k in "$@"; do
  name=${names[$i]}; i=$((i + 1))
  case $k in
    tmux) P=$(pgrep -f "^tmux -L $name ");; # not the outer tmux, whose command names it
    *) P=$(pgrep -f "^$(readlink -f "$k") (-L $name|serve -S .*/$name.sock)");;
  esac
  rings=""
  if [ "$k" != tmux ]; then
    rings=$("$k" ctl -L "$name" ls --json 2>/dev/null | python3 -c "import json, sys
print('rings_mb=%.1f' % (sum(p.get('mem_bytes', 0) for p in json.load(sys.stdin)) / 1048576))" 2>/dev/null)
  fi
  # shellcheck disable=SC2086
  echo "$k panes=$N stream=$(basename "$IN") after_s=$SECS procs=$(echo $P | wc -w)" \
    "rss_mb=$(( $(sum VmRSS status $P) / 1024 )) anon_mb=$(( $(sum RssAnon status $P) / 1024 ))" \
    "pss_mb=$(( $(sum Pss smaps_rollup $P) / 1024 )) $rings"
done
i=0
for k in "$@"; do
  name=${names[$i]}; i=$((i + 1))
  tmux -L "out$name" kill-server 2>/dev/null
  case $k in
    tmux) tmux -L "$name" kill-server 2>/dev/null;;
    *) "$k" ctl -L "$name" quit --kill >/dev/null 2>&1;;
  esac
done
