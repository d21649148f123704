#!/bin/bash
# Records real full-screen programs with `sandmux record` and writes each
# one's output as a raw byte stream for ../shared/bench/agents.sh (and
# scale.sh): htop refreshing, vim scrolling through a source file,
# apt-get's progress bar (a scroll region and a bar redrawn in place), and
# grep's coloured matches scrolling by (a log: every line kept in the
# scrollback, as an agent's transcript is).
# usage: SANDMUX=./sandmux bench/streams.sh OUTDIR
# Writes OUTDIR/{htop,vim,apt,log}.cast and .stream; the streams lose the
# characters {}`& (agents.sh types them and looks for their echo).
# The apt stream reinstalls htop from apt's cache (needs root; skipped else).
set -eu
OUT=$1; B=$(readlink -f "${SANDMUX:-./sandmux}"); SRC=$(readlink -f "$(dirname "$(readlink -f "$0")")/..")
mkdir -p "$OUT"
rec() { local name=$1; shift; rm -f "$OUT/$name.cast"; "$B" record --size 80x24 -o "$OUT/$name.cast" -- "$@" </dev/null >/dev/null || true; }
command -v htop >/dev/null && rec htop timeout -s INT 20 htop -d 3
# vim scrolls a page every 60 ms, 150 times, with syntax colours, then quits.
cat > "$OUT/scroll.vim" <<'VIM'
syntax on
set number
let g:n = 0
function! Step(t)
  let g:n += 1
  if g:n > 150 | qa! | endif
  execute "normal! \<C-f>"
  if line('w$') == line('$') | execute "normal! gg" | endif
  redraw
endfunction
call timer_start(60, 'Step', {'repeat': -1})
VIM
rec vim vim -N -u NONE -i NONE -S "$OUT/scroll.vim" "$SRC/session/vt/screen.go"
rec log grep -rn --color=always -e 'func ' -e 'return ' "$SRC/session" "$SRC/ui" "$SRC/mux"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  rec apt sh -c 'for i in 1 2 3; do apt-get install --reinstall -y -o Dpkg::Progress-Fancy=1 -o APT::Color=1 htop; done'
fi
for c in "$OUT"/*.cast; do
  python3 - "$c" "${c%.cast}.stream" <<'PY'
import json, sys
out = bytearray()
with open(sys.argv[1]) as f:
    next(f)
    for line in f:
        t, kind, data = json.loads(line)
        if kind == "o":
            out += data.encode()
out = out.translate(None, b"{}`&")
open(sys.argv[2], "wb").write(out)
print(f"{sys.argv[2]}: {len(out)} bytes")
PY
done
