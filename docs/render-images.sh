#!/usr/bin/env bash
# Renders every picture in README.md from the current build, so they always show what the
# code does. Run from the repository root after `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
e=.build/release/emboss
out=docs/images
mkdir -p "$out"
$e render "Hello" --size 120 -o "$out/hello.png"
for profile in round linear smooth chisel-soft inflated; do
  $e render "Bevel" --size 80 --profile "$profile" -o "$out/profile=$profile.png"
done
$e render "Soften" --size 80 --profile linear --soften 2 -o "$out/soften=2.png"
$e render "Carved" --size 80 --direction lowered -o "$out/direction=lowered.png"
$e render "Two lines\nright aligned" --size 56 --align right -o "$out/align=right.png"
$e render "AVWMNK vwxyk47" --size 96 -o "$out/corners.png"
for corners in round mitre; do
  $e render "Wat&" --size 96 --set relief.inside-corners=$corners -o "$out/inside-corners=$corners.png"
done
# Shaped text; fallback fonts come from the bundled Fonts/ only (a fontconfig configuration
# with no folders of its own), so the pictures do not depend on this machine's fonts.
fc=$(mktemp -d)
printf '<?xml version="1.0"?>\n<fontconfig><cachedir>%s</cachedir></fontconfig>\n' "$fc" > "$fc/fonts.conf"
export FONTCONFIG_FILE="$fc/fonts.conf"
$e render "سلام عليكم" --size 80 -o "$out/shaped-arabic.png"
$e render "Hi नमस्ते" --size 80 -o "$out/shaped-devanagari.png" 2>/dev/null
$e render "office ffi AVATAR" --size 72 --font Fonts/NotoSerif-Bold.ttf -o "$out/shaped-ligatures.png"
$e render "Shalom שלום 123" --size 64 -o "$out/shaped-mixed.png"
rm -rf "$fc"
$e render "oSe8&@" --size 72 --material chrome -o "$out/thin-strokes.png"
$e render "Angle 300" --size 80 --light-angle 300 --light-altitude 25 -o "$out/light-angle=300.png"
$e render "Brushed" --size 96 --material brushed-steel -o "$out/brushed-steel.png"
$e render "Shadow" --size 96 --material gold --set shadow.opacity=0.75 \
  --set 'background="#d8d2c4"' -o "$out/shadow.png"
$e render "Carved" --size 96 --direction lowered --set shadow.opacity=0.8 -o "$out/shadow-lowered.png"
$e render "Oak" --size 110 --material wood -o "$out/wood.png"
$e render "Granite" --size 96 --material stone -o "$out/stone.png"
$e render "Hammered" --size 96 --material copper --set detail.hammered=0.6 -o "$out/hammered.png"
$e render "Brass" --size 110 --material brass-sign -o "$out/brass-sign.png"
$e render "Mercury" --size 96 --material mercury -o "$out/mercury.png"
$e render "Chrome" --size 96 --material chrome -o "$out/chrome.png"
$e shading --size 200 -o "$out/shading-default.png"
$e sheet --text "Aa" --columns 6 -o "$out/sheet.png"
stages=$(mktemp -d)
trap 'rm -rf "$stages"' EXIT
$e render "Ag" --size 100 --save-stages "$stages" -o "$out/stages-final.png"
for stage in mask height normals; do cp "$stages/$stage.png" "$out/stages-$stage.png"; done
# A 3D model (--mesh), drawn by docs/mesh-picture.py (numpy and Pillow).
model=$(mktemp -d)
$e render "Emboss" --size 200 --dpi 254 --mesh "$model/plate.stl" --mesh-height 1.5mm -o "$model/plate.png"
python3 docs/mesh-picture.py "$model/plate.stl" "$out/mesh.png" 1000
$e render "Ada" --size 200 --dpi 254 --padding 40 --mesh "$model/tag.stl" --mesh-plate outline \
  --cut-offset 3mm --mesh-wall 0.6mm -o "$model/tag.png"
python3 docs/mesh-picture.py "$model/tag.stl" "$out/mesh-tag.png" 700
rm -rf "$model"
echo "rendered into $out"
