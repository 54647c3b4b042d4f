# Headless Chromium for the web view's tests (sourced): the DOM after the page's scripts ran,
# and screenshots. Needs $work (a scratch directory) and $name (for log lines).
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}

browser_check() {
  [ -n "$CHROMIUM" ] || { echo "FAIL: chromium missing (apt-get install chromium)"; exit 1; }
  mkdir -p "$work/chrome"
}

# dom URL: the document as the page left it (its fetches answered: virtual time waits for them).
dom() {
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/chrome" \
    --virtual-time-budget=15000 --dump-dom "$1" 2> /dev/null
}

# shot URL FILE [WIDTH,HEIGHT]: a PNG of the page.
shot() {
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/chrome" \
    --hide-scrollbars --window-size="${3:-1400,900}" --virtual-time-budget=15000 --screenshot="$2" "$1" > /dev/null 2>&1
  [ -s "$2" ]
}

# first_render URL: milliseconds until the page's DOM is ready with its data (wall clock,
# Chromium's start included).
first_render() {
  local t0 t1
  t0=$(date +%s%N)
  dom "$1" > /dev/null
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

# The artifacts directory (screenshots), kept after the test: $ARTIFACTS or ./artifacts.
artifacts() {
  local d=${ARTIFACTS:-$PWD/artifacts}
  mkdir -p "$d" && echo "$d"
}
