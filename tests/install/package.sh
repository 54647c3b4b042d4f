#!/usr/bin/env bash
# package.sh SOURCE_ROOT: the Debian package, built from the tree as the README says
# (`dpkg-buildpackage -b -us -uc`), in a copy of the tree's files (dpkg-buildpackage writes
# into the tree and its parent).
# - lintian reports no error;
# - the package holds the binary, the units in /lib/systemd/system naming /usr/bin/fabricsm and
#   /etc/fabricsm/fabricsm.conf, the config, the PORTS knob and launcher, man pages, completion,
#   the README (uncompressed: the units name it);
# - its maintainer scripts enable fabricsm.service only (fabricsm-ports.service is its
#   alternative), and the units, unpacked, pass `systemd-analyze verify`.
# Minutes (it compiles the binary): scripts/test runs it as its own stage (SKIP_PACKAGE=1 skips).
# PACKAGE_OUT=DIR: the .deb and .changes are copied there. PACKAGE_INSTALL=1 (root): the package
# is installed on this machine too, checked and purged (tests/install/package_install.sh).
set -uo pipefail
ROOT=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
log() { echo "[package] $*"; }
fail() { log "FAIL: $*"; failed=$((failed + 1)); }
. "$(dirname "$0")/verify_units.sh"

version=$(sed -n '1s/^fabricsm (\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")
src=$work/fabricsm-$version
mkdir -p "$src"
# The tree's files as they are (committed or not), without build trees or ignored files.
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
   while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
   tar --null -T - -cf -) | tar -xf - -C "$src" || { fail "copying the tree"; exit 1; }

start=$(date +%s)
# Without optimisation (noopt: -O0) or debug info (-g0), and without the -dbgsym package: the
# package's own build has -O2 -g; this one checks the packaging, which is the same, in a
# third of the time (CI's budget).
(cd "$src" && DEB_BUILD_OPTIONS="nocheck noddebs noopt parallel=$(nproc)" DEB_CXXFLAGS_APPEND=-g0 \
   dpkg-buildpackage -b -us -uc) \
  > "$work/build.log" 2>&1 || { fail "dpkg-buildpackage failed:"; tail -40 "$work/build.log"; exit 1; }
log "dpkg-buildpackage -b -us -uc: $(( $(date +%s) - start )) s"
deb=$(ls "$work"/fabricsm_"$version"_*.deb)
changes=$(ls "$work"/fabricsm_"$version"_*.changes)

lintian --no-tag-display-limit "$changes" > "$work/lintian" 2>&1
if grep -q '^E: ' "$work/lintian"; then
  fail "lintian errors:"; grep '^E: ' "$work/lintian"
else
  log "lintian: no error ($(grep -c '^W: ' "$work/lintian") warnings, $(grep -c '^I: ' "$work/lintian") info)"
  grep '^W: ' "$work/lintian" | sed 's/^/    /'
fi

dpkg -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$work/files"
for f in /usr/bin/fabricsm /etc/fabricsm/fabricsm.conf /etc/default/fabricsm /usr/libexec/fabricsm-ports \
         /lib/systemd/system/fabricsm.service /lib/systemd/system/fabricsm@.service \
         /lib/systemd/system/fabricsm-ports.service /usr/share/man/man8/fabricsm.8.gz \
         /usr/share/man/man5/fabricsm.conf.5.gz /usr/share/bash-completion/completions/fabricsm \
         /usr/share/doc/fabricsm/README.md /usr/share/doc/fabricsm/copyright; do
  grep -qx "$f" "$work/files" || fail "not in the package: $f"
done
log "dpkg -c: $(grep -vc '/$' "$work/files") files, each where it belongs"

root=$work/root
dpkg -x "$deb" "$root"
dpkg -e "$deb" "$work/control"
grep -q "ExecStart=/usr/bin/fabricsm run --config /etc/fabricsm/fabricsm.conf" "$root/lib/systemd/system/fabricsm.service" ||
  fail "fabricsm.service: $(grep ^ExecStart= "$root/lib/systemd/system/fabricsm.service")"
cmp -s "$root/etc/fabricsm/fabricsm.conf" "$ROOT/etc/fabricsm.conf" || fail "the packaged config is not etc/fabricsm.conf"
grep -qx /etc/fabricsm/fabricsm.conf "$work/control/conffiles" && grep -qx /etc/default/fabricsm "$work/control/conffiles" &&
  log "conffiles: $(tr '\n' ' ' < "$work/control/conffiles")" || fail "conffiles: $(cat "$work/control/conffiles")"
# fabricsm.service: enabled and started on install. fabricsm-ports.service: never started, and
# enabled only again where the admin had it enabled (debhelper's --no-enable: under
# `debian-installed`, `was-enabled`).
post=$work/control/postinst
if grep -q "deb-systemd-helper enable 'fabricsm.service'" "$post" &&
   grep -q "deb-systemd-invoke \$_dh_action 'fabricsm.service'" "$post" &&
   ! grep -q "deb-systemd-invoke.*fabricsm-ports" "$post" &&
   grep -q "deb-systemd-helper debian-installed 'fabricsm-ports.service'" "$post"; then
  log "postinst enables and starts fabricsm.service; fabricsm-ports.service is not enabled nor started"
else
  fail "postinst: $(grep -e deb-systemd "$post")"
fi
"$root/usr/bin/fabricsm" --version | grep -qx "fabricsm $version" || fail "packaged binary: $("$root/usr/bin/fabricsm" --version)"
verify_units "$root/lib/systemd/system" / "$root" " (packaged)"

# PACKAGE_INSTALL=1: dpkg -i on this machine, checked, and purged (package_install.sh).
if [ -n "${PACKAGE_INSTALL:-}" ]; then
  "$(dirname "$0")/package_install.sh" "$deb" || fail "installing the package"
fi
# PACKAGE_OUT=DIR keeps the package.
[ -n "${PACKAGE_OUT:-}" ] && cp "$deb" "$changes" "$PACKAGE_OUT"/
[ $failed -eq 0 ] && log "all passed"
exit $((failed > 0))
