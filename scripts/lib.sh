# Shared set-up for scripts/demo and scripts/test: install what is missing, configure, build.
# Sourced, not run.

# Debian packages the build, the tests and the checks need.
FABRICSM_PACKAGES=(
  meson ninja-build g++ pkg-config
  libibumad-dev libboost-graph-dev libboost-program-options-dev libfmt-dev libsqlite3-dev
  doctest-dev
  ibsim-utils infiniband-diags opensm        # the independent simulator and checkers
  clang-16 libclang-rt-16-dev                # libFuzzer targets
  librsvg2-bin sqlite3 systemd               # SVG check, database checks, unit verification
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
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; return 1; }
    rm -f "$dir.setup.log"
  fi
  ninja -C "$dir" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log" >&2; return 1; }
  rm -f "$dir.build.log"
}
