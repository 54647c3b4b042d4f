#!/usr/bin/env bash
# install.sh BUILD_DIR SOURCE_ROOT: the README's install, tried: `meson install --destdir` of the
# build tree, and what lands where.
# - The binary, the example config (the same as etc/fabricsm.conf), the PORTS knob and its
#   launcher, the README under docdir, the units, the man pages, the bash completion.
# - The units name the installed binary and config, whatever the prefix (this tree's, and trees
#   only set up with --prefix=/opt/fabricsm and /usr: systemd's unit directory there), condition
#   on the umad ABI file, and pass `systemd-analyze verify`. meson's defaults: no -Werror.
# - The man pages render without a warning and are the binary's --help / --dump-config: every
#   option of every command's --help, and every key of the dump, is in them, and doc/gen.py run
#   again on the binary writes the same pages.
# - The completion sources cleanly in bash and completes commands, words and options.
set -uo pipefail
BUILD=$(realpath "$1")
ROOT=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
log() { echo "[install] $*"; }
fail() { log "FAIL: $*"; failed=$((failed + 1)); }
. "$(dirname "$0")/verify_units.sh"

DEST=$work/dest
meson install -C "$BUILD" --no-rebuild --destdir "$DEST" --quiet > "$work/install.log" 2>&1 ||
  { fail "meson install failed:"; tail -20 "$work/install.log"; exit 1; }

# dirs BUILD: "prefix bindir sysconfdir libexecdir datadir mandir" (absolute), from meson.
dirs() {
  meson introspect "$1" --buildoptions | python3 -c '
import json, os, sys
o = {b["name"]: b["value"] for b in json.load(sys.stdin)}
p = o["prefix"]
print(p, *[os.path.join(p, o[k]) for k in ("bindir", "sysconfdir", "libexecdir", "datadir", "mandir")])'
}
# installed BUILD NAME: where meson installs the build or source file whose name ends with NAME.
installed() {
  local cache=$work/installed${1//\//_}.json
  [ -f "$cache" ] || meson introspect "$1" --installed > "$cache"
  python3 -c '
import json, sys
print(*[v for k, v in json.load(open(sys.argv[1])).items() if k.endswith("/" + sys.argv[2])])' \
    "$cache" "$2"
}
read -r prefix bindir sysconfdir libexecdir datadir mandir < <(dirs "$BUILD")
log "prefix $prefix"
FABRICSM=$DEST$bindir/fabricsm
unitdir=$(dirname "$(installed "$BUILD" fabricsm.service)")

check_file() {  # check_file PATH WHAT [-x]
  if [ -f "$DEST$1" ] && { [ "${3:-}" != -x ] || [ -x "$DEST$1" ]; }; then log "$2: $1"
  else fail "$2 not installed at $1"; fi
}
check_file "$bindir/fabricsm" "binary" -x
check_file "$sysconfdir/fabricsm/fabricsm.conf" "config"
check_file "$sysconfdir/default/fabricsm" "PORTS knob"
check_file "$libexecdir/fabricsm-ports" "PORTS launcher" -x
check_file "$datadir/doc/fabricsm/README.md" "README"
check_file "$mandir/man8/fabricsm.8" "fabricsm(8)"
check_file "$mandir/man5/fabricsm.conf.5" "fabricsm.conf(5)"
check_file "$datadir/bash-completion/completions/fabricsm" "bash completion"
for unit in fabricsm.service fabricsm@.service fabricsm-ports.service; do
  check_file "$unitdir/$unit" "unit"
done
cmp -s "$DEST$sysconfdir/fabricsm/fabricsm.conf" "$ROOT/etc/fabricsm.conf" ||
  fail "the installed config is not etc/fabricsm.conf"
"$FABRICSM" run --dump-config | cmp -s - "$DEST$sysconfdir/fabricsm/fabricsm.conf" ||
  fail "the installed config is not the installed binary's --dump-config"

# check_units DIR BINDIR SYSCONFDIR LIBEXECDIR: the units in DIR name those paths.
check_units() {
  local d=$1 bin=$2 etc=$3 libexec=$4 u
  for u in fabricsm.service fabricsm@.service fabricsm-ports.service; do
    if grep -q '@[a-z]*@' "$d/$u"; then fail "$u: unsubstituted $(grep -o '@[a-z]*@' "$d/$u" | head -1)"; fi
    grep -qx 'ConditionPathExists=/sys/class/infiniband_mad/abi_version' "$d/$u" ||
      fail "$u does not condition on the umad ABI file"
  done
  for u in fabricsm.service fabricsm@.service; do
    grep -q "^ExecStart=$bin/fabricsm run --config $etc/fabricsm/fabricsm.conf\( \|$\)" "$d/$u" &&
      log "$u: $(grep ^ExecStart= "$d/$u" | cut -d' ' -f1-4)" ||
      fail "$u: $(grep ^ExecStart= "$d/$u") (want $bin/fabricsm and $etc/fabricsm/fabricsm.conf)"
  done
  grep -qx "ExecStart=$libexec/fabricsm-ports start" "$d/fabricsm-ports.service" &&
    grep -qx "EnvironmentFile=-$etc/default/fabricsm" "$d/fabricsm-ports.service" &&
    log "fabricsm-ports.service: $libexec/fabricsm-ports, $etc/default/fabricsm" ||
    fail "fabricsm-ports.service: $(grep -e ^ExecStart= -e ^EnvironmentFile= "$d/fabricsm-ports.service")"
}
check_units "$DEST$unitdir" "$bindir" "$sysconfdir" "$libexecdir"
for u in fabricsm.service fabricsm@.service; do
  grep -qx 'Type=notify' "$DEST$unitdir/$u" || fail "$u is not Type=notify"
done

# systemd-analyze verify checks that ExecStart's binary exists: the units pointed into DEST.
if command -v systemd-analyze > /dev/null; then
  verify_units "$DEST$unitdir" "$prefix/" "$DEST" ""
else
  fail "systemd-analyze not installed (package systemd)"
fi

# Another prefix: a tree only set up (the units are written at setup), and where it installs.
if meson setup "$work/opt" "$ROOT" --prefix=/opt/fabricsm -Dtests=false -Dbenches=false \
     > "$work/opt.log" 2>&1; then
  read -r oprefix obindir osysconfdir olibexecdir odatadir omandir < <(dirs "$work/opt")
  check_units "$work/opt/etc" "$obindir" "$osysconfdir" "$olibexecdir"
  for f in fabricsm.service:$oprefix/lib/systemd/system/fabricsm.service \
           fabricsm.conf:$osysconfdir/fabricsm/fabricsm.conf fabricsm.8:$omandir/man8/fabricsm.8 \
           doc/fabricsm:$odatadir/bash-completion/completions/fabricsm; do
    [ "$(installed "$work/opt" "${f%%:*}")" = "${f#*:}" ] && log "--prefix=$oprefix: ${f#*:}" ||
      fail "--prefix=$oprefix: ${f%%:*} goes to '$(installed "$work/opt" "${f%%:*}")', not ${f#*:}"
  done
  # A build from source (meson's defaults, as a user or a package sets up) has no -Werror.
  werror=$(meson introspect "$work/opt" --buildoptions |
    python3 -c 'import json, sys; print([b["value"] for b in json.load(sys.stdin) if b["name"] == "werror"][0])')
  [ "$werror" = False ] && log "a tree set up with meson's defaults: werror false" ||
    fail "a tree set up with meson's defaults has werror=$werror"
else
  fail "meson setup --prefix=/opt/fabricsm failed:"; tail -5 "$work/opt.log"
fi
# systemd's prefix: systemd's own unit directory (systemd.pc), /etc for the config.
if pkg-config --exists systemd; then
  if meson setup "$work/usr" "$ROOT" --prefix=/usr -Dtests=false -Dbenches=false > "$work/usr.log" 2>&1; then
    want=$(pkg-config --variable=systemdsystemunitdir systemd)/fabricsm.service
    [ "$(installed "$work/usr" fabricsm.service)" = "$want" ] && log "--prefix=/usr: $want" ||
      fail "--prefix=/usr: fabricsm.service goes to '$(installed "$work/usr" fabricsm.service)', not $want"
    check_units "$work/usr/etc" /usr/bin /etc /usr/libexec
  else
    fail "meson setup --prefix=/usr failed:"; tail -5 "$work/usr.log"
  fi
fi

# The man pages: they render without warnings, and they are the binary's help.
for page in man8/fabricsm.8 man5/fabricsm.conf.5; do
  if warn=$(groff -man -Tutf8 -ww -z "$DEST$mandir/$page" 2>&1) && [ -z "$warn" ] &&
     MANWIDTH=80 man --warnings -l "$DEST$mandir/$page" > "$work/$(basename $page).txt" 2> "$work/man.err" &&
     [ ! -s "$work/man.err" ]; then
    log "$page renders ($(wc -l < "$work/$(basename $page).txt") lines), no warnings"
  else
    fail "$page: $warn $(cat "$work/man.err")"
  fi
  python3 "$ROOT/doc/gen.py" "$(basename "$(dirname "$page")")" "$FABRICSM" "$work/again" --sysconfdir "$sysconfdir" &&
    cmp -s "$work/again" "$DEST$mandir/$page" && log "$page is what doc/gen.py writes from the binary" ||
    fail "$page differs from doc/gen.py's output for the installed binary"
done
# Every option of every command's --help is in fabricsm(8) (topo's commands too).
missing=""
cmds=$("$FABRICSM" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
for cmd in $cmds; do
  helps=("$cmd")
  [ "$cmd" = topo ] &&
    mapfile -t -O 1 helps < <("$FABRICSM" topo --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/topo+\1/p')
  for h in "${helps[@]}"; do
    # shellcheck disable=SC2046
    for opt in $("$FABRICSM" ${h//+/ } --help | grep -o -e '--[a-z][a-z0-9_-]*' | sort -u); do
      grep -q -e "$opt" "$work/fabricsm.8.txt" || missing+=" ${h//+/ }:$opt"
    done
  done
done
[ -z "$missing" ] && log "fabricsm(8) has every option of $(echo $cmds | wc -w) commands' --help" ||
  fail "options missing from fabricsm(8):$missing"
keys=$("$FABRICSM" run --dump-config | sed -n 's/^#\{0,1\} \{0,1\}\([a-z_0-9]*\) =.*/\1/p')
missing=""
for k in $keys; do grep -q "^ *$k = " "$work/fabricsm.conf.5.txt" || missing+=" $k"; done
[ -z "$missing" ] && log "fabricsm.conf(5) has all $(echo $keys | wc -w) keys of --dump-config" ||
  fail "keys missing from fabricsm.conf(5):$missing"

# The completion: sourced by bash (as bash-completion loads it), it completes.
COMPLETION=$DEST$datadir/bash-completion/completions/fabricsm
complete_line() {  # complete_line WORDS...: what TAB offers after WORDS (the last one is being typed)
  (cd "${COMPLETE_CWD:-.}" && bash -c '
    set -u
    . "$1" || exit 1
    shift
    COMP_WORDS=(fabricsm "$@"); COMP_CWORD=$#
    _fabricsm
    echo "${COMPREPLY[*]}"' _ "$COMPLETION" "$@" 2> "$work/bash.err")
}
check_completion() {  # check_completion "WANT" WORDS...
  local want=$1 got; shift
  got=$(complete_line "$@")
  if [ "$got" = "$want" ] && [ ! -s "$work/bash.err" ]; then log "complete 'fabricsm $*' -> $got"
  else fail "complete 'fabricsm $*' -> '$got' $(cat "$work/bash.err") (want '$want')"; fi
}
check_completion "sim study show status" s
check_completion "nodes links lids routes events sweeps sms counters health" show ""
check_completion "--sm_priority" run --sm_p
check_completion "two-level torus" topo t
check_completion "--radix" topo fat-tree --levels 3 --ra
check_completion "import" config i
check_completion "--json" show --db x.db nodes --js
mkdir -p "$work/cwd" && touch "$work/cwd/fabric.conf"
COMPLETE_CWD=$work/cwd check_completion "fabric.conf" run --config fab

[ $failed -eq 0 ] && log "all passed"
exit $((failed > 0))
