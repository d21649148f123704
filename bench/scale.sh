#!/bin/bash
# The scale workloads of sandmux against tmux, in one run, as one table.
# usage: SANDMUX=./sandmux bench/scale.sh [STREAMDIR]   (make bench-scale)
# Needs tmux, python3 and ../shared/bench-style scripts in $BENCH (default:
# the directory holding agents.sh, throughput.sh, idle.sh, latency.py,
# gen-output.py). STREAMDIR holds the *.stream files agents.sh replays
# (made with bench/streams.sh when missing). Environment:
#   STREAMS="htop vim apt log"  which streams; PANES="48 16"  agents' pane counts
#   RATE=20000              bytes/s each agent pane writes
#   REPEAT=1                runs of each row (the table shows every run)
#   PROFILE=DIR             also take a 6 s CPU and a heap profile of sandmux
#                           in a run of each agents row after the timed one,
#                           into DIR
#   ONLY="agents tp lat bin quit idle"  which rows (idle: idle.sh, then
#                           bench/quiet.sh, the same shells settled 20 s and
#                           counted over 30 s; lat also times the echo
#                           beside four flooding panes, 200 keys typed by
#                           bench/keys.py, and bench/relay, the floor of a
#                           Go echo; bin, the binary's own memory;
#                           quit, bench/quit.sh: 48 panes beside 1000 processes;
#                           steady, not run unless named: memory once the
#                           rings are full, bench/steady.sh, 5.5 min a stream)
#   STEADY="log vim"        the streams of the steady rows, 48 panes each
#   STEADY_SECS=330         how long they run before memory is read
#   BEFORE=BINARY           another sandmux (say, an older build) as a column of its own
#   TMUXFOCUS=cat           the tmux pane the agents rows type into: cat (the
#                           first, which agents.sh's header names; through
#                           bench/tmuxcat) or last (agents.sh as it is: the
#                           last player's, whose echoes its redraws hide)
# Timings on a shared machine are noisy: compare the columns of one run.
set -u
H=$(dirname "$(readlink -f "$0")")
BENCH=${BENCH:-$(readlink -f "$H/../../shared/bench" 2>/dev/null || echo /work/shared/bench)}
[ -f "$BENCH/agents.sh" ] || BENCH=/work/shared/bench
export SANDMUX=$(readlink -f "${SANDMUX:-./sandmux}")
SD=${1:-${TMPDIR:-/tmp}/sandmux-streams}
STREAMS=${STREAMS:-htop vim apt log}; PANES=${PANES:-48 16}; RATE=${RATE:-20000}
REPEAT=${REPEAT:-1}; ONLY=${ONLY:-agents tp lat bin quit idle}; PROFILE=${PROFILE:-}
[ -n "$PROFILE" ] && mkdir -p "$PROFILE"
for s in $STREAMS; do [ -f "$SD/$s.stream" ] || { "$H/streams.sh" "$SD" >/dev/null; break; }; done
val() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
BEFORE=${BEFORE:+$(readlink -f "$BEFORE")}
# agents.sh counts every process whose command line starts with the
# binary as the multiplexer's: a server of the same binary left running
# (a session of your own, an earlier run's) would be counted in every row.
for b in "$SANDMUX" ${BEFORE:+"$BEFORE"}; do
  if others=$(pgrep -f "^$b" | tr '\n' ' ') && [ -n "$others" ]; then
    echo "scale.sh: $b already runs (pids ${others% }), and agents.sh would count it with every row: quit it (sandmux ctl -L NAME quit) or measure a copy of the binary" >&2
    exit 2
  fi
done
row() { if [ -n "$BEFORE" ]; then printf '| %-34s | %-26s | %-26s | %-26s |\n' "$1" "$2" "$4" "$3"
        else printf '| %-34s | %-30s | %-30s |\n' "$1" "$2" "$3"; fi; }

# tmux's keys go to its cat pane, as sandmux's do (bench/tmuxcat/tmux).
TMUXFOCUS=${TMUXFOCUS:-cat}
case $TMUXFOCUS in
  cat) export SANDMUX_REAL_TMUX=$(command -v tmux); AGENTS_PATH=$H/tmuxcat:$PATH;;
  last) AGENTS_PATH=$PATH;;
  *) echo "TMUXFOCUS is cat or last, not $TMUXFOCUS" >&2; exit 2;;
esac
echo "sandmux $("$SANDMUX" version 2>/dev/null | head -1), tmux $(tmux -V), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), tmux typed into its $TMUXFOCUS pane"
row workload tmux sandmux before; row --- --- --- ---
agents() { # KIND N STREAM
  PATH=$AGENTS_PATH "$BENCH/agents.sh" "$1" "$2" "$RATE" "$SD/$3.stream"
  # The profiles come from a run of their own, not the one timed:
  # profiling costs the server CPU and its echo, which only the profiled
  # column would have paid.
  if [ "$1" = sandmux ] && [ -n "$PROFILE" ]; then
    "$BENCH/agents.sh" "$1" "$2" "$RATE" "$SD/$3.stream" >/dev/null & local p=$!
    sleep 8; "$SANDMUX" ctl -L ag$p profile --seconds 6 -o "$PROFILE/cpu-$3-$2-$(date +%s).pprof" >/dev/null 2>&1
    "$SANDMUX" ctl -L ag$p profile heap -o "$PROFILE/heap-$3-$2-$(date +%s).pprof" >/dev/null 2>&1
    wait $p
  fi
}
mb() { local v; v=$(val rss_kb "$1"); echo $(( ${v:-0} / 1024 )); }
fmt_agents() { echo "$(val cpu_pct "$1")% $(val rss_mb "$1")MB $(val echo_median_ms "$1")/$(val echo_p90_ms "$1")ms"; }
fmt_steady() { [ -n "$1" ] && echo "$(val rss_mb "$1")MB (anon $(val anon_mb "$1"), pss $(val pss_mb "$1"))"; }
fmt_quiet() { [ -n "$1" ] && echo "$(val cpu_ticks "$1")t $(val cpu_ms "$1")ms $(mb "$1")MB"; }
RELAY=""
if [[ $ONLY == *lat* ]]; then # built once, for every run's lat rows
  R=$(mktemp -d); trap 'rm -rf "$R"' EXIT
  (cd "$H/.." && go build -o "$R/relay" ./bench/relay) 2>/dev/null && RELAY=$R/relay
fi
for r in $(seq "$REPEAT"); do
  if [[ $ONLY == *agents* ]]; then
    # The floor: the typed-into cat alone, no agent beside it, measured
    # as the agents rows are. Whatever a row holds past it, its panes do.
    s=${STREAMS%% *}; t=$(agents tmux 0 "$s"); m=$(PROFILE= agents sandmux 0 "$s")
    b=$([ -n "$BEFORE" ] && SANDMUX=$BEFORE PROFILE= agents sandmux 0 "$s")
    row "cat alone: cpu mem echo med/p90" "$(fmt_agents "$t")" "$(fmt_agents "$m")" "$(fmt_agents "$b")"
    for n in $PANES; do for s in $STREAMS; do
      t=$(agents tmux "$n" "$s"); m=$(agents sandmux "$n" "$s")
      b=$([ -n "$BEFORE" ] && SANDMUX=$BEFORE PROFILE= agents sandmux "$n" "$s")
      row "agents $n×$s: cpu mem echo med/p90" "$(fmt_agents "$t")" "$(fmt_agents "$m")" "$(fmt_agents "$b")"
    done; done
  fi
  if [[ $ONLY == *tp* ]]; then
    F=$SD/mixed.txt; [ -f "$F" ] || python3 "$BENCH/gen-output.py" mixed "$F" 20
    for p in 1 4; do
      t=$("$BENCH/throughput.sh" tmux "$F" $p); m=$("$BENCH/throughput.sh" sandmux "$F" $p)
      b=$([ -n "$BEFORE" ] && SANDMUX=$BEFORE "$BENCH/throughput.sh" sandmux "$F" $p)
      row "throughput 20MB ×$p: s, ticks" "$(val seconds "$t")s $(val cpu_ticks "$t")" "$(val seconds "$m")s $(val cpu_ticks "$m")" "$(val seconds "$b")s $(val cpu_ticks "$b")"
    done
  fi
  if [[ $ONLY == *lat* ]]; then
    t=$(python3 "$BENCH/latency.py" tmux -L lat$$ -f /dev/null new-session cat); tmux -L lat$$ kill-server 2>/dev/null
    m=$(python3 "$BENCH/latency.py" "$SANDMUX" -L lat$$ cat); "$SANDMUX" ctl -L lat$$ quit --kill >/dev/null 2>&1
    b=""; [ -n "$BEFORE" ] && { b=$(python3 "$BENCH/latency.py" "$BEFORE" -L latb$$ cat); "$BEFORE" ctl -L latb$$ quit --kill >/dev/null 2>&1; }
    row "idle pane echo med/p90" "$(val median_ms "$t")/$(val p90_ms "$t")ms" "$(val median_ms "$m")/$(val p90_ms "$m")ms" "$(val median_ms "$b")/$(val p90_ms "$b")ms"
    # The same cat beside four panes that cat a 20 MB file over and over,
    # typed by keys.py: characters the file never holds (latency.py's
    # letters are in the floods' frames too, and it took some for echoes).
    F=$SD/mixed.txt; [ -f "$F" ] || python3 "$BENCH/gen-output.py" mixed "$F" 20
    fk() { FLOODS=4 FLOODFILE=$F GAP=0.05 python3 "$H/keys.py" 200 "$@"; }
    t=$(fk tmux); m=$(fk sandmux "$SANDMUX"); b=$([ -n "$BEFORE" ] && fk sandmux "$BEFORE")
    row "echo beside 4 floods med/p90/p99" "$(val median_ms "$t")/$(val p90_ms "$t")/$(val p99_ms "$t")ms" "$(val median_ms "$m")/$(val p90_ms "$m")/$(val p99_ms "$m")ms" "$(val median_ms "$b")/$(val p90_ms "$b")/$(val p99_ms "$b")ms"
    # The floor of a Go program's echo here (bench/relay): cat on a PTY,
    # relayed with no goroutine hand-off, then with one each way.
    if [ -x "$RELAY" ]; then
      z=$(python3 "$BENCH/latency.py" "$RELAY" -handoffs 0); o=$(python3 "$BENCH/latency.py" "$RELAY" -handoffs 1)
      row "Go relay echo, 0 | 1 hand-off" "-" "$(val median_ms "$z")/$(val p90_ms "$z") | $(val median_ms "$o")/$(val p90_ms "$o")ms" ""
      # One thread polling both files, as a C relay does: through the
      # runtime's syscall entry, then past it (RawSyscall).
      z=$(python3 "$BENCH/latency.py" "$RELAY" -poll go); o=$(python3 "$BENCH/latency.py" "$RELAY" -poll raw)
      row "Go relay echo, poll: runtime | raw" "-" "$(val median_ms "$z")/$(val p90_ms "$z") | $(val median_ms "$o")/$(val p90_ms "$o")ms" ""
      # Waiting in Go's poller, reading and writing as sandmux does
      # (package nbio), with no hand-off, then one each way.
      z=$(python3 "$BENCH/latency.py" "$RELAY" -rawio); o=$(python3 "$BENCH/latency.py" "$RELAY" -rawio -handoffs 1)
      row "Go relay echo, nbio: 0 | 1 hand-off" "-" "$(val median_ms "$z")/$(val p90_ms "$z") | $(val median_ms "$o")/$(val p90_ms "$o")ms" ""
    fi
  fi
  if [[ $ONLY == *bin* ]]; then
    # What the binary alone holds: the peak resident set of printing its
    # version (its pages mapped, its packages initialised), per process.
    peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
    if [ -x /usr/bin/time ]; then
      row "the binary alone: peak RSS" "$(( $(peak tmux -V) / 1024 ))MB" "$(( $(peak "$SANDMUX" --version) / 1024 ))MB" \
        "$([ -n "$BEFORE" ] && echo $(( $(peak "$BEFORE" --version) / 1024 ))MB)"
    else echo "(no /usr/bin/time, Debian's time: the binary's own row left out)"; fi
  fi
  if [[ $ONLY == *steady* ]]; then
    # Every kind at once, past [record] retain, so each sees the same machine.
    for st in ${STEADY:-log vim}; do
      out=$("$H/steady.sh" 48 "$SD/$st.stream" "${STEADY_SECS:-330}" tmux "$SANDMUX" ${BEFORE:+"$BEFORE"})
      t=$(grep '^tmux ' <<<"$out"); m=$(grep "^$SANDMUX " <<<"$out"); b=$([ -n "$BEFORE" ] && grep "^$BEFORE " <<<"$out")
      row "48×$st after ${STEADY_SECS:-330}s: mem" "$(fmt_steady "$t")" "$(fmt_steady "$m")" "$(fmt_steady "$b")"
    done
  fi
  if [[ $ONLY == *quit* ]]; then
    # Quitting 48 panes, with 1000 more processes on the machine.
    q=$("$H/quit.sh" 48 1000 sandmux tmux); b=$([ -n "$BEFORE" ] && SANDMUX=$BEFORE "$H/quit.sh" 48 1000 sandmux)
    t=$(grep '^tmux ' <<<"$q"); m=$(grep '^sandmux ' <<<"$q")
    row "quit 48 panes (+1000 procs): s, ticks" "$(val quit_seconds "$t")s $(val cpu_ticks "$t")" "$(val quit_seconds "$m")s $(val cpu_ticks "$m")" "$(val quit_seconds "$b")s $(val cpu_ticks "$b")"
  fi
  if [[ $ONLY == *idle* ]]; then
    t=$("$BENCH/idle.sh" tmux 32); m=$("$BENCH/idle.sh" sandmux 32)
    b=$([ -n "$BEFORE" ] && SANDMUX=$BEFORE "$BENCH/idle.sh" sandmux 32)
    row "32 idle shells: ticks/10s, mem" "$(val cpu_ticks_10s "$t") $(mb "$t")MB" "$(val cpu_ticks_10s "$m") $(mb "$m")MB" "$(val cpu_ticks_10s "$b") $(mb "$b")MB"
    # The issue's own row: settled (after 20 s), over 30 s (bench/quiet.sh).
    t=$("$H/quiet.sh" tmux 32); m=$("$H/quiet.sh" sandmux 32)
    b=$([ -n "$BEFORE" ] && SANDMUX=$BEFORE "$H/quiet.sh" sandmux 32)
    row "32 shells after 20 s, over 30 s" "$(fmt_quiet "$t")" "$(fmt_quiet "$m")" "$(fmt_quiet "$b")"
  fi
done
