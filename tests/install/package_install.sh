#!/usr/bin/env bash
# package_install.sh DEB: installs the package on this machine (root; nothing called fabricsm
# installed before), checks it, and purges it again.
# - dpkg -i succeeds on a host without an HCA; fabricsm.service is enabled, fabricsm-ports.service
#   is not; the installed units pass `systemd-analyze verify` (their man pages included);
#   `man fabricsm` and `man fabricsm.conf` find the pages; bash-completion loads the completion.
# - dpkg -P leaves none of it.
# package.sh runs it with PACKAGE_INSTALL=1 (it changes the machine, so only when asked).
set -uo pipefail
DEB=$(realpath "$1")
failed=0
log() { echo "[package-install] $*"; }
fail() { log "FAIL: $*"; failed=$((failed + 1)); }

[ "$(id -u)" -eq 0 ] || { fail "needs root"; exit 1; }
if dpkg-query -W fabricsm > /dev/null 2>&1 || [ -e /usr/bin/fabricsm ] || [ -e /etc/fabricsm ]; then
  fail "fabricsm is installed here already: not touching it"; exit 1
fi
work=$(mktemp -d)
trap 'dpkg -P fabricsm > /dev/null 2>&1; rm -rf "$work"' EXIT

dpkg -i "$DEB" > "$work/dpkg.log" 2>&1 || { fail "dpkg -i:"; cat "$work/dpkg.log"; exit 1; }
log "dpkg -i: $(grep -c . "$work/dpkg.log") lines, ok"
wants=/etc/systemd/system/multi-user.target.wants
[ -L $wants/fabricsm.service ] && [ ! -e $wants/fabricsm-ports.service ] &&
  log "enabled: fabricsm.service; fabricsm-ports.service not" ||
  fail "enabled: $(cd $wants && echo fabricsm*)"
cp /lib/systemd/system/fabricsm@.service "$work/fabricsm@0x0002c903000000aa.service"
for unit in /lib/systemd/system/fabricsm.service /lib/systemd/system/fabricsm-ports.service \
            "$work/fabricsm@0x0002c903000000aa.service"; do
  if out=$(systemd-analyze verify --man=yes "$unit" 2>&1 | grep -v -e 'rdma-hw.target' -e '^$'); [ -z "$out" ]; then
    log "systemd-analyze verify --man=yes $(basename "$unit"): clean"
  else
    fail "systemd-analyze verify $(basename "$unit"): $out"
  fi
done
for page in fabricsm fabricsm.conf; do
  man -w "$page" > /dev/null 2>&1 || fail "man $page: not found"
done
got=$(bash -c '. /usr/share/bash-completion/bash_completion; __load_completion fabricsm
  COMP_WORDS=(fabricsm sh); COMP_CWORD=1; _fabricsm; echo "${COMPREPLY[*]}"' 2>&1)
[ "$got" = show ] && log "bash-completion loads it: 'fabricsm sh' -> show" || fail "completion: '$got'"

dpkg -P fabricsm > "$work/purge.log" 2>&1 || fail "dpkg -P: $(cat "$work/purge.log")"
left=$(ls -d /usr/bin/fabricsm /etc/fabricsm /etc/default/fabricsm /lib/systemd/system/fabricsm*.service \
  $wants/fabricsm.service 2>/dev/null)
[ -z "$left" ] && log "dpkg -P leaves nothing" || fail "left after purge: $left"

[ $failed -eq 0 ] && log "all passed"
exit $((failed > 0))
