#!/bin/sh
# tests/plots/test_gallery.sh -- the figures of plots/ and their gallery.
#
#   sh tests/plots/test_gallery.sh ROOT OUTDIR
#
# Every figure of `make -C plots list` has its four files (PNG, 2x PNG, SVG, PDF, each of
# its kind) and no catalogue id in its drawn text; plots/gallery.html, which loads nothing
# from the network, is what gallery.py writes now, with one section per figure
# and no other; headless Chromium loads the page at one and at two device pixels per pixel
# and its script reports every image and every SVG loaded (at two, every image from its
# @2x PNG); a screenshot of the page is written to OUTDIR/gallery.png.
set -u
root=${1:?usage: test_gallery.sh ROOT OUTDIR}
out=${2:?usage: test_gallery.sh ROOT OUTDIR}
plots=$root/plots
mkdir -p "$out"
fail=0
bad() { echo "FAIL $*"; fail=1; }

names=$(${MAKE:-make} -s --no-print-directory -C "$plots" list | sed 's/:.*//')
n=$(echo "$names" | grep -c .)
scripts=$(cd "$plots" && ls */*.gp | sed 's|.*/||; s|\.gp$||' | sort)
[ "$scripts" = "$(echo "$names" | sort)" ] ||
    bad "make -C plots list and the scripts plots/*/NAME.gp name different figures"

magic() { head -c "$2" "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n'; }
for f in $names; do
    b=$plots/figures/$f
    for x in "$b.png" "$b@2x.png"; do
        [ "$(magic "$x" 8)" = 89504e470d0a1a0a ] || bad "$x: not a PNG"
    done
    [ "$(head -c 5 "$b.pdf" 2>/dev/null)" = "%PDF-" ] || bad "$b.pdf: not a PDF"
    grep -q "<svg" "$b.svg" 2>/dev/null || bad "$b.svg: not an SVG"
done

# titles, keys and labels speak to the reader: no catalogue id (PREF-BT, GRPO-ADV, ...) in
# the text a figure draws; the ids and the source are in the header's caption lines
ids=$(cd "$plots" && grep -v '^[[:space:]]*#' */*.gp | grep -E '(title|label)[^"]*"[^"]*\<[A-Z][A-Z0-9]*-[A-Z][A-Z0-9-]*\>' )
[ -z "$ids" ] || bad "a catalogue id in a figure's drawn text: $ids"

# the gallery is current and names every figure once, and only those
/usr/bin/python3 "$plots/gallery.py" "${MAKE:-make}" > "$out/gallery.html" || bad "gallery.py failed"
cmp -s "$out/gallery.html" "$plots/gallery.html" ||
    bad "plots/gallery.html is not current (make -C plots gallery)"
grep -Eq '(src|href)="(https?:)?//' "$plots/gallery.html" &&
    bad "plots/gallery.html loads something from the network"
sections=$(sed -n 's/^<section id="\([^"]*\)">$/\1/p' "$plots/gallery.html" | sort)
[ "$sections" = "$(echo "$names" | sort)" ] || bad "gallery sections differ from make -C plots list"

# headless Chromium: the page's own script counts what loaded
browse() {
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$out/chromium-profile" --virtual-time-budget=20000 "$@" \
        "file://$plots/gallery.html" 2>/dev/null
}
for scale in 1 2; do
    browse --force-device-scale-factor=$scale --dump-dom > "$out/dom$scale.html"
    status=$(sed -n 's/.*<p id="load-status" data-done="\([a-z]*\)">\([^<]*\)<.*/\1: \2/p' "$out/dom$scale.html")
    hi=0; [ $scale = 2 ] && hi=$n
    want="ok: loaded $n of $n images ($hi at 2x) and $n of $n SVGs"
    if [ "$status" = "$want" ]; then
        echo "gallery at scale $scale: $status"
    else
        bad "gallery at scale $scale: '$status', want '$want'"
    fi
done
rm -f "$out/gallery.png"
(cd "$out" && browse --window-size=1280,2400 --screenshot="$out/gallery.png" >/dev/null)
size=$(wc -c < "$out/gallery.png" 2>/dev/null || echo 0)
[ "$size" -gt 10000 ] || bad "screenshot $out/gallery.png: $size bytes"
rm -rf "$out/chromium-profile"

[ $fail = 0 ] && echo "plots: $n figures in four formats, the gallery current and loaded in Chromium"
exit $fail
