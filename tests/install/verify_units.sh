# tests/install/verify_units.sh: sourced by install.sh and package.sh (they define log, fail and
# $work). verify_units UNITDIR EXEC_PREFIX ROOT LABEL: systemd-analyze verify of each installed
# unit, with ExecStart's EXEC_PREFIX pointed into ROOT (verify checks that the binary exists).
verify_units() {
  local dir=$1 from=$2 root=$3 label=$4 unit target out
  mkdir -p "$work/units"
  for unit in fabricsm.service fabricsm@.service fabricsm-ports.service; do
    target=$work/units/$unit
    [ "$unit" = fabricsm@.service ] && target=$work/units/fabricsm@0x0002c903000000aa.service
    sed -e "s|^ExecStart=$from|ExecStart=$root$from|" "$dir/$unit" > "$target"
    if out=$(systemd-analyze verify --man=no "$target" 2>&1 | grep -v -e 'rdma-hw.target' -e '^$'); [ -z "$out" ]; then
      log "systemd-analyze verify $unit$label: clean"
    else
      fail "systemd-analyze verify $unit$label: $out"
    fi
  done
}
