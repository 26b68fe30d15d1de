#!/bin/sh
# report-deps.sh: installs what the report's browser test (tests/cli/report_browser.sh) needs, a
# headless Chromium, when none is present. As root with apt-get it installs the `chromium`
# package; otherwise it prints the command and exits 0 (the browser test then skips, saying so).
# .ci/run calls it before `make test`.
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$b" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ci: installing chromium (for the report's browser test)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || {
    echo "ci: error: apt-get install chromium failed" >&2; exit 1; }
else
  echo "report-deps: no Chromium; the browser test will skip. To run it: sudo apt-get install -y chromium"
fi
exit 0
