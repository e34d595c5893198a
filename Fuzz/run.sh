#!/usr/bin/env bash
# Builds a libFuzzer target with AddressSanitizer and runs it.
#   Fuzz/run.sh png|material|text|render|request [seconds] [corpus dir]
# Crashes are written as crash-* files in the current directory; keep each one as a
# regression input in Tests/EmbossKitTests/FuzzRegressions/<target>/ (replayed by swift test).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  png) target=FuzzPNG; max_len=8192 ;;
  material) target=FuzzMaterial; max_len=4096 ;;
  text) target=FuzzText; max_len=256 ;;
  render) target=FuzzRender; max_len=2048 ;;
  request) target=FuzzRequest; max_len=1024 ;;
  *) echo "usage: Fuzz/run.sh png|material|text|render|request [seconds] [corpus dir]" >&2; exit 64 ;;
esac
seconds="${2:-120}"
corpus="${3:-.build-fuzz-corpus/$1}"
mkdir -p "$corpus"
# Seeds: the regression inputs, and for materials the presets.
cp Tests/EmbossKitTests/FuzzRegressions/"$1"/* "$corpus"/ 2>/dev/null || true
[ "$1" = material ] && cp Materials/*.yaml "$corpus"/
# For pictures: small PNG, JPEG and WebP files.
[ "$1" = png ] && cp Tests/EmbossKitTests/Fixtures/pictures/* "$corpus"/ 2>/dev/null || true
# For the whole render: option bytes, NUL, text, NUL, each preset, NUL, a --set line.
if [ "$1" = render ]; then
  for preset in Materials/*.yaml; do
    printf 'ABCDEFGHIJKLMNOP\0AVWk 4\0' > "$corpus/seed-$(basename "$preset" .yaml)"
    cat "$preset" >> "$corpus/seed-$(basename "$preset" .yaml)"
    printf '\0relief.radius=3' >> "$corpus/seed-$(basename "$preset" .yaml)"
  done
fi
# For requests: the seeds are the regression inputs (an argument list, a batch row, JSON).
# For text: option bytes, then lines in the bundled fonts' scripts.
if [ "$1" = text ]; then
  i=0
  for line in 'office AVATAR To' 'سلام عليكم 123' 'Shalom שלום 123' 'Hi नमस्ते क्ष' 'X\xcc\x81 e\xcc\x88\xcc\x81' 'ab (שלום) [x]'; do
    printf "\x20\x01\x00\x0$((i % 7))\x00$line" > "$corpus/seed-script-$i"
    i=$((i + 1))
  done
fi
# Each target builds in its own folder: a shared one has been seen to link a target against
# objects built without coverage instrumentation.
# EMBOSS_FUZZ_CONFIG=release builds with -O (several times the executions a second;
# preconditions stay), in its own folder.
config="${EMBOSS_FUZZ_CONFIG:-debug}"
# swiftc keeps only the last of several -sanitize= flags, and SwiftPM passes --sanitize=fuzzer
# and --sanitize=address as two: without the combined flag after them, Swift code is built
# with AddressSanitizer but no coverage, and libFuzzer sees only the C targets' edges
# ("no interesting inputs"). clang accumulates its flags, so C code gets both either way.
EMBOSS_FUZZ=1 swift build -c "$config" --build-path ".build-fuzz-$target-$config" --product "$target" \
  --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address
# Swift's crash handler would fight AddressSanitizer's.
# Leaks outside emboss's code (fontconfig's process-wide caches) are suppressed as in CI.
LSAN_OPTIONS="suppressions=$PWD/.ci/lsan.supp" SWIFT_BACKTRACE=enable=no \
  ".build-fuzz-$target-$config/$config/$target" "$corpus" \
  -max_total_time="$seconds" ${EMBOSS_FUZZ_RUNS:+-runs="$EMBOSS_FUZZ_RUNS"} -max_len="$max_len" -rss_limit_mb=2048 -print_final_stats=1
