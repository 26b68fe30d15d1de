#!/usr/bin/env bash
# report_browser.sh: the HTML report opens in headless Chromium with no console message (the page
# has no script, so any message is an error: an uncaught exception, a blocked load) and every
# figure renders: a check page shows each figure index.html references in its own cell of a
# grid, reports by script any image that failed to load or decode, and a screenshot of it must
# show ink in every cell (the PNG is decoded with zlib alone). Checked: a report generated from
# the synthetic fixture, and every committed report under reports/. Skips, saying so, when no
# Chromium is installed (.ci/report-deps.sh installs it).
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz

browser=""
for b in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    echo "report_browser: no Chromium found (chromium, chromium-browser, google-chrome); install it with: sh .ci/report-deps.sh"
    echo "0 passed, 0 failed, 1 skipped (no Chromium)"
    exit 0
fi

# chrome URL...: headless, nothing from the network, a fresh profile per call. The limit is for
# a browser that hangs: alone a call takes seconds, but beside `make -j2 test` on two cores one
# ran past 120 s (session 38), so it is 300.
chrome() {
    local profile
    profile=$(mktemp -d "$T/profile.XXXXXX")
    timeout 300 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-extensions --hide-scrollbars --user-data-dir="$profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=20000 "$@"
    local rc=$?
    rm -rf "$profile"
    return $rc
}

# The console lines of a Chromium log.
console_lines() { grep -E 'CONSOLE|Uncaught' "$1" || true; }

# png_ink PNG CELL_W CELL_H N COLS: fails when any of the first N cells of a grid (CELL_W x CELL_H
# device pixels, COLS to a row) has less than 1% of its pixels not white.
png_ink() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
path, cw, ch, n, cols = sys.argv[1], *map(int, sys.argv[2:6])
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, [], 0
while pos < len(data):
    size, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + size]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), ("unexpected PNG format", depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat.append(body)
    pos += 12 + size
raw = zlib.decompress(b"".join(idat))
stride = w * bpp
prev = bytearray(stride)
rows = []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for i in range(stride): line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
    elif f == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
blank = []
for k in range(n):
    x0, y0 = (k % cols) * cw, (k // cols) * ch
    ink = total = 0
    for y in range(y0, min(y0 + ch, h)):
        line = rows[y]
        for x in range(x0, min(x0 + cw, w)):
            o = x * bpp
            total += 1
            if line[o] < 235 or line[o + 1] < 235 or line[o + 2] < 235:
                ink += 1
    if total == 0 or ink < 0.01 * total:
        blank.append((k, ink, total))
if blank:
    print("blank cells (index, ink pixels, pixels):", blank)
    sys.exit(1)
PY
}

# check_report DIR: the page loads cleanly and every figure it references renders.
check_report() {
    local dir name figs n cols=4 cw=400 ch=300 rows
    dir=$(cd "$1" && pwd)
    name=$(basename "$dir")
    # device pixels are half the CSS pixels: a quarter of the PNG to decode
    chrome --force-device-scale-factor=0.5 --window-size=1280,1600 --screenshot="$T/$name-page.png" \
        --dump-dom "file://$dir/index.html" >"$T/$name.dom" 2>"$T/$name.log"
    same "$name: index.html opens" "$?" "0"
    check "$name: the page was rendered" grep -q "</html>" "$T/$name.dom"
    same "$name: no console message from index.html" "$(console_lines "$T/$name.log")" ""
    check "$name: the page's first screen is not blank" png_ink "$T/$name-page.png" 640 800 1 1
    figs=$(python3 - "$dir/index.html" <<'PY'
import sys, xml.etree.ElementTree as ET
for img in ET.parse(sys.argv[1]).getroot().iter("img"):
    print(img.get("src"))
PY
)
    n=$(printf '%s\n' "$figs" | grep -c .)
    check "$name: index.html shows figures" test "$n" -gt 0
    rows=$(( (n + cols - 1) / cols ))
    {
        echo "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/><style>"
        echo "body{margin:0;background:#fff}div{display:grid;grid-template-columns:repeat($cols,${cw}px);grid-auto-rows:${ch}px}"
        echo "img{width:${cw}px;height:${ch}px;object-fit:contain;display:block}</style></head><body><div>"
        printf '%s\n' "$figs" | while read -r f; do echo "<img src=\"file://$dir/$f\"/>"; done
        echo "</div><script>window.addEventListener('load', function () {"
        echo "  var imgs = document.images, bad = 0;"
        echo "  for (var i = 0; i < imgs.length; i++)"
        echo "    if (!imgs[i].complete || imgs[i].naturalWidth === 0) { bad++; console.log('PLOT-FAILED ' + imgs[i].src); }"
        echo "  console.log('PLOTS-CHECKED ' + imgs.length + ' failed ' + bad);"
        echo "});</script></body></html>"
    } >"$T/$name-check.html"
    chrome --force-device-scale-factor=0.5 --window-size=$((cols * cw)),$((rows * ch)) \
        --screenshot="$T/$name.png" "file://$T/$name-check.html" >/dev/null 2>"$T/$name-check.log"
    same "$name: check page screenshot taken" "$?" "0"
    same "$name: every figure loaded and decoded" \
        "$(console_lines "$T/$name-check.log" | grep -oE 'PLOT[A-Z-]* .*' | sed 's/", source.*//')" \
        "PLOTS-CHECKED $n failed 0"
    check "$name: every figure shows ink in its cell" png_ink "$T/$name.png" $((cw / 2)) $((ch / 2)) "$n" $cols
}

check "report the fixture" $TUNER report --db $FX -o "$T/fx" -q
for d in "$T"/fx/*/ reports/*/; do
    [ -f "$d/index.html" ] && check_report "$d"
done
finish
