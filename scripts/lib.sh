# Shared set-up for scripts/demo and scripts/test: install what is missing, configure, build.
# Sourced, not run.

# Debian packages the build, the tests and the checks need.
FABRICSM_PACKAGES=(
  meson ninja-build g++ pkg-config
  libibumad-dev libboost-graph-dev libboost-program-options-dev libfmt-dev libsqlite3-dev
  libssl-dev                                 # HMAC-SHA256 for per-port M_Keys
  doctest-dev
  ibsim-utils infiniband-diags opensm        # the independent simulator and checkers
  clang-16 libclang-rt-16-dev                # libFuzzer targets
  librsvg2-bin sqlite3 systemd               # SVG check, database checks, unit verification
  libcpp-httplib-dev prometheus curl         # the metrics endpoint, its checks (promtool, a real server)
  chromium                                   # the web view's tests (headless)
  nlohmann-json3-dev                         # every --json output
  debhelper dpkg-dev lintian fakeroot        # the Debian package (scripts/test's package stage)
  groff-base man-db bash-completion          # the install test: man pages render, completion loads
)

ensure_packages() {
  local missing=()
  for p in "${FABRICSM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
      { echo "apt-get install failed" >&2; return 1; }
  else
    echo "missing packages; as root run:" >&2
    echo "  apt-get install -y ${missing[*]}" >&2
    return 1
  fi
}

# configure_build DIR [meson options...]: set up DIR once, then build it.
configure_build() {
  setup_build "$@" && build_in "$1"
}

# setup_build DIR [meson options...]: set up DIR once (an existing DIR keeps its options).
# -Werror here, for developers and the CI; meson.build's default (a user's or a package's
# build) has it off, so that a newer compiler's new warning does not stop a build from source.
# Unity builds (8 files a unit): most of a file's build time is the same headers parsed and the
# same templates instantiated again; units of 8 halve the libraries' build. A plain `meson
# setup` builds file by file (quicker to rebuild one file); both must build.
setup_build() {
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] && return 0
  meson setup "$dir" -Dunity=on -Dunity_size=8 -Dwerror=true "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; return 1; }
  rm -f "$dir.setup.log"
}

# build_in DIR [targets...]: build the targets (paths relative to DIR), or everything.
build_in() {
  local dir=$1
  shift
  ninja -C "$dir" "$@" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log" >&2; return 1; }
  rm -f "$dir.build.log"
}

# targets_of DIR suite NAME | DIR exe PREFIX: the files (paths relative to DIR) that the tests of
# meson suite NAME run, or the executables named PREFIX*, so that only those are built (`meson
# test` would first build every target).
targets_of() {
  ninja -C "$1" build.ninja >/dev/null || return 1  # re-configures if a meson.build changed
  python3 - "$@" <<'PY'
import json, os, subprocess, sys
d, kind, name = sys.argv[1:]
intro = lambda what: json.loads(subprocess.check_output(["meson", "introspect", what, d]))
targets = intro("--targets")
if kind == "suite":
    ids = {i for t in intro("--tests") if any(s.split(":")[-1] == name for s in t["suite"])
           for i in t["depends"]}
    targets = [t for t in targets if t["id"] in ids]
else:
    targets = [t for t in targets if t["type"] == "executable" and t["name"].startswith(name)]
print("\n".join(sorted(os.path.relpath(f, os.path.realpath(d))
                        for t in targets for f in t["filename"])))
PY
}
