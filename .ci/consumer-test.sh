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
trap 'rm -rf "$work"' EXIT
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
echo "consumer test: passed (reference matched; a changed render failed with $(basename "$difference"))"
