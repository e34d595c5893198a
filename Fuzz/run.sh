#!/usr/bin/env bash
# Builds a libFuzzer target with AddressSanitizer and runs it.
#   Fuzz/run.sh png|material|text [seconds] [corpus dir]
# Crashes are written as crash-* files in the current directory; keep each one as a
# regression input in Tests/EmbossKitTests/FuzzRegressions/<target>/ (replayed by swift test).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  png) target=FuzzPNG; max_len=8192 ;;
  material) target=FuzzMaterial; max_len=4096 ;;
  text) target=FuzzText; max_len=256 ;;
  *) echo "usage: Fuzz/run.sh png|material|text [seconds] [corpus dir]" >&2; exit 64 ;;
esac
seconds="${2:-120}"
corpus="${3:-.build-fuzz-corpus/$1}"
mkdir -p "$corpus"
# Seeds: the regression inputs, and for materials the presets.
cp Tests/EmbossKitTests/FuzzRegressions/"$1"/* "$corpus"/ 2>/dev/null || true
[ "$1" = material ] && cp Materials/*.yaml "$corpus"/
# Each target builds in its own folder: a shared one has been seen to link a target against
# objects built without coverage instrumentation.
EMBOSS_FUZZ=1 swift build --build-path ".build-fuzz-$target" --product "$target" \
  --sanitize=fuzzer --sanitize=address
# Swift's crash handler would fight AddressSanitizer's.
SWIFT_BACKTRACE=enable=no ".build-fuzz-$target/debug/$target" "$corpus" \
  -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -print_final_stats=1
