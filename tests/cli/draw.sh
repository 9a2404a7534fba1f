#!/bin/sh
# sballoc draw and alloc --svg / --report=json on the default example:
#   - alloc writes the allocated module, the picture and the JSON figures;
#   - draw gives one <g class="tensor"> per SB placement that `sballoc verify`
#     counts (an independent count), the same bytes twice, and the same
#     picture as alloc --svg without the report line;
#   - usage errors exit 2;
#   - headless Chromium renders the picture to a 1600x1200 PNG that is not
#     blank. Chromium is optional (SBALLOC_WITH_CHROMIUM=1
#     scripts/install-deps.sh installs it): without it that part is skipped.
#
# usage: sh draw.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=draw
. "$2/tests/cli/lib/setup.sh"

example=$src/examples/matmul_tiled.json
[ -f "$example" ] || example=$(ls "$src"/examples/*.json | head -n 1)
echo "example: $example"

# alloc with the picture and the JSON figures.
if ! "$bin" alloc "$example" -o "$tmp/alloc.json" --svg "$tmp/alloc.svg" --report=json >"$tmp/report.json"; then
    fail "alloc --svg --report=json exited with $?"
fi
for key in '"functions"' '"lower_bound_total"' '"high_water"' '"seconds"' '"renumber"' '"commit"'; do
    grep -q "$key" "$tmp/report.json" || fail "--report=json has no $key"
done
head -c 1 "$tmp/report.json" | grep -q '{' || fail "--report=json does not start with an object"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; json.load(sys.stdin)' <"$tmp/report.json" || fail "--report=json is not JSON"
    "$bin" analyze "$example" --report=json | python3 -c 'import json, sys; json.load(sys.stdin)' ||
        fail "analyze --report=json is not JSON"
    # The verifier's verdict and what it checked travel with the figures.
    python3 -c '
import json, sys
v = json.load(sys.stdin)["verify"]
assert v["verdict"] == "verified", v
for k in ("exhaustive", "functions", "tensors", "sb_locations", "points", "iterations", "reads", "writes"):
    assert k in v, k
assert v["functions"] >= 1 and v["points"] > 0 and v["reads"] > 0 and v["iterations"] > 0, v
' <"$tmp/report.json" || fail "--report=json lacks the verifier's verdict and counts"
    "$bin" alloc "$example" -o /dev/null --no-verify --report=json |
        python3 -c 'import json, sys; assert json.load(sys.stdin)["verify"]["verdict"].startswith("not run")' ||
        fail "alloc --no-verify --report=json does not say the verifier did not run"
fi

# draw: one tensor group per SB placement the verifier checked.
"$bin" draw "$tmp/alloc.json" -o "$tmp/draw.svg" || fail "draw exited with $?"
"$bin" draw "$tmp/alloc.json" -o "$tmp/draw2.svg" || fail "second draw exited with $?"
cmp -s "$tmp/draw.svg" "$tmp/draw2.svg" || fail "two drawings of one module differ"
"$bin" draw "$tmp/alloc.json" >"$tmp/draw3.svg" || fail "draw to standard output exited with $?"
cmp -s "$tmp/draw.svg" "$tmp/draw3.svg" || fail "draw to standard output differs from -o"
locs=$("$bin" verify "$tmp/alloc.json" | sed -n 's/.* \([0-9][0-9]*\) SB locations.*/\1/p')
groups=$(grep -o '<g class="tensor"' "$tmp/draw.svg" | wc -l | tr -d ' ')
if [ -z "$locs" ] || [ "$locs" -eq 0 ]; then
    fail "sballoc verify did not count SB locations"
elif [ "$groups" -ne "$locs" ]; then
    fail "$groups tensor groups in the picture, $locs SB locations"
else
    echo "ok: $groups tensor groups for $locs SB locations"
fi
groups=$(grep -o '<g class="tensor"' "$tmp/alloc.svg" | wc -l | tr -d ' ')
[ "$groups" -eq "$locs" ] || fail "alloc --svg: $groups tensor groups, $locs SB locations"
grep -q 'B (allocator)' "$tmp/alloc.svg" || fail "alloc --svg does not show the report's lower bound"
tail -n 1 "$tmp/draw.svg" | grep -q '^</svg>$' || fail "the picture does not end with </svg>"

# Usage errors.
"$bin" draw >/dev/null 2>&1
[ $? -eq 2 ] || fail "draw without a FILE should exit 2"
"$bin" draw "$tmp/missing.json" -o "$tmp/x.svg" >/dev/null 2>&1
[ $? -eq 2 ] || fail "draw of a missing file should exit 2"
"$bin" draw "$tmp/alloc.json" --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "draw with an unknown option should exit 2"
"$bin" alloc "$example" --svg >/dev/null 2>&1
[ $? -eq 2 ] || fail "alloc --svg without a value should exit 2"

# Rendering.
chrome=""
for c in chromium chromium-browser; do
    if command -v "$c" >/dev/null 2>&1; then
        chrome=$c
        break
    fi
done
if [ -z "$chrome" ]; then
    echo "SKIP render: chromium is not installed (SBALLOC_WITH_CHROMIUM=1 scripts/install-deps.sh installs it)"
    if [ "$failed" -ne 0 ]; then
        echo "draw: $failed check(s) failed"
        exit 1
    fi
    echo "draw: all other checks passed"
    exit 0
fi
run=""
command -v timeout >/dev/null 2>&1 && run="timeout 120"
mkdir -p "$tmp/profile"
# shellcheck disable=SC2086
$run "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" --screenshot="$tmp/draw.png" --window-size=1600,1200 \
    "$tmp/draw.svg" >"$tmp/chrome.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$tmp/draw.png" ]; then
    fail "chromium exited with $rc and wrote no screenshot:"
    tail -n 5 "$tmp/chrome.log"
else
    # The PNG signature, then IHDR: width and height as big-endian 32-bit words.
    sig=$(od -A n -t x1 -N 8 "$tmp/draw.png" | tr -d ' \n')
    [ "$sig" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG ($sig)"
    dims=$(od -A n -t u1 -j 16 -N 8 "$tmp/draw.png" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}')
    [ "$dims" = 1600x1200 ] || fail "the screenshot is $dims, expected 1600x1200"
    # A blank 1600x1200 screenshot compresses to about 8 KB; the picture to far more.
    size=$(wc -c <"$tmp/draw.png" | tr -d ' ')
    [ "$size" -gt 30000 ] || fail "the screenshot is $size bytes: blank?"
    # Distinct colours, when python3 is there to inflate the PNG (standard library only).
    if command -v python3 >/dev/null 2>&1; then
        colours=$(python3 - "$tmp/draw.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w, h, ctype = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4, 0: 1, 4: 2}[ctype]
raw, stride, prev, seen = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 2):
            seen.add(bytes(line[x:x + bpp]))
    prev = line
print(len(seen))
EOF
)
        if [ -z "$colours" ] || [ "$colours" -lt 16 ]; then
            fail "the screenshot has ${colours:-no} distinct colours: blank?"
        else
            echo "ok: screenshot $size bytes, $dims, $colours distinct colours (sampled)"
        fi
    else
        echo "ok: screenshot $size bytes, $dims (python3 absent: colours not counted)"
    fi
fi

if [ "$failed" -ne 0 ]; then
    echo "draw: $failed check(s) failed"
    exit 1
fi
echo "draw: all checks passed"
exit 0
