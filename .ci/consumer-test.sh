#!/usr/bin/env bash
# Another package uses emboss as a dependency: Examples/NameBadges renders with EmbossKit and
# snapshot-tests its renders with EmbossSnapshotTesting. It is built against a copy of this
# working tree laid next to it, as a user's package would be. Its test must pass against the
# committed reference; then a different picture must fail with a message naming
# difference.png, written where SNAPSHOT_ARTIFACTS says.
#
#   bash .ci/consumer-test.sh [--record]   (--record writes the reference again)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
mkdir "$work/emboss"
# Tracked and untracked files that git does not ignore: the package as a checkout has it.
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$work/emboss"
cp -r Examples/NameBadges "$work/NameBadges"
cd "$work/NameBadges"
rm -rf .build
if [ "${1:-}" = "--record" ]; then
  rm -rf Tests/NameBadgesTests/__Snapshots__
  SNAPSHOT_TESTING_RECORD=all swift test --disable-swift-testing >/dev/null 2>&1 || true
  rm -rf "$repo/Examples/NameBadges/Tests/NameBadgesTests/__Snapshots__"
  cp -r Tests/NameBadgesTests/__Snapshots__ "$repo/Examples/NameBadges/Tests/NameBadgesTests/"
  echo "consumer test: reference recorded"
  exit 0
fi
echo "consumer test: building Examples/NameBadges against emboss (a package of its own)"
swift build --build-tests 2>&1 | tail -n 1
SNAPSHOT_TESTING_RECORD=never swift test --skip-build --disable-swift-testing >"$work/pass.log" 2>&1 || {
  cat "$work/pass.log"
  echo "consumer test: FAILED (the badge does not match its reference)"
  exit 1
}
grep -q "Executed 1 test, with 0 failures" "$work/pass.log"
if NAME_BADGE_MATERIAL=copper SNAPSHOT_ARTIFACTS="$work/artifacts" SNAPSHOT_TESTING_RECORD=never \
  swift test --skip-build --disable-swift-testing >"$work/fail.log" 2>&1; then
  echo "consumer test: FAILED (a copper badge matched the gold reference)"
  exit 1
fi
grep -o "images differ.*" "$work/fail.log" | head -n 1
difference=$(find "$work/artifacts" -name difference.png | head -n 1)
if [ -z "$difference" ] || ! grep -q "difference.png" "$work/fail.log"; then
  cat "$work/fail.log"
  echo "consumer test: FAILED (no difference.png written and named)"
  exit 1
fi
# Library values are valid by construction for a user of the package: each line below must be
# refused by the compiler (a picture's pixels and a request's values cannot be set from
# outside, a request is made only by its checking initializer, engrave options are lets).
modules=$(find "$work/NameBadges/.build" -type d -name Modules | head -n 1)
# The C modules the library's modules import, as SwiftPM hands them to the compiler.
cflags=()
while IFS= read -r map; do cflags+=(-Xcc "-fmodule-map-file=$map"); done < <(
  find "$work/emboss/Sources" "$work/NameBadges/.build" -name module.modulemap -path "*/C*")
while IFS= read -r include; do cflags+=(-Xcc "-I$include"); done < <(
  find "$work/emboss/Sources" -type d -name include)
for flag in $(pkg-config --cflags freetype2 fontconfig harfbuzz fribidi libpng libzip glib-2.0 libwebp); do
  cflags+=(-Xcc "$flag")
done
refused=0
for line in \
  'var p = Plane(width: 2, height: 2); p.pixels = []' \
  'var i = RGBAImage(width: 2, height: 2); i.pixels = []' \
  'var c = CanvasImage(RGBAImage(width: 1, height: 1)); c.content = RGBAImage(width: 5, height: 5)' \
  'var o = EngraveOptions.standard; o.gamma = .nan' \
  'var r = try! RenderRequest(text: "A", values: [.init(.output, "a.png")]); r.values = []' \
  'let r = RenderRequest(text: "A", values: [])'; do
  printf 'import EmbossKit\nfunc f() throws {\n%s\n}\n' "$line" > "$work/invalid.swift"
  if swiftc -typecheck -I "$modules" "${cflags[@]}" "$work/invalid.swift" >"$work/invalid.log" 2>&1; then
    echo "consumer test: FAILED (a user's package can build an invalid value: $line)"
    exit 1
  fi
  # Refused for the right reason, not some other compile error.
  grep -Eq "error: (cannot assign to property|call can throw)" "$work/invalid.log" || {
    cat "$work/invalid.log"
    echo "consumer test: FAILED (refused for another reason: $line)"
    exit 1
  }
  refused=$((refused + 1))
done
# The same file with a valid use compiles, so the refusals above are the compiler's checks.
printf 'import EmbossKit\nfunc f() throws {\nlet p = Plane(width: 2, height: 2); _ = p.pixels.count\n_ = try RenderRequest(text: "A", values: [.init(.output, "a.png")])\n}\n' > "$work/valid.swift"
swiftc -typecheck -I "$modules" "${cflags[@]}" "$work/valid.swift" >"$work/valid.log" 2>&1 || {
  tail -n 20 "$work/valid.log"
  echo "consumer test: FAILED (a valid use of the library does not compile from another package)"
  exit 1
}
echo "consumer test: passed (reference matched; a changed render failed with $(basename "$difference"); $refused invalid values refused by the compiler)"
