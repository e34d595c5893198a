#!/usr/bin/env bash
# Builds the library's DocC documentation: EmbossKit (with the articles in
# Sources/EmbossKit/EmbossKit.docc), the stage modules it re-exports, and
# EmbossSnapshotTesting, combined into one archive that links across them. Any DocC warning
# (a broken symbol link, an unknown parameter) fails the build.
#
#   bash docs/generate-docs.sh [--static DIR]
#
# The archive is .build/plugins/Swift-DocC/outputs/emboss.doccarchive (open it in Xcode, or
# serve it). --static DIR also writes a website for static hosting into DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
static=""
case "${1:-}" in
  --static) static="$2" ;;
  "") ;;
  *) echo "generate-docs.sh: unknown option $1" >&2; exit 64 ;;
esac
targets=()
for target in EmbossSupport EmbossRaster EmbossGeometry EmbossCodecs EmbossModel EmbossText \
  EmbossRelief EmbossShading EmbossEngrave EmbossCompositing EmbossMaterials EmbossMesh EmbossKit \
  EmbossBatch EmbossSnapshotTesting; do
  targets+=(--target "$target")
done
# EMBOSS_SWIFT_FLAGS adds build flags, as for install.sh: CI gives its test build's, so the
# symbol graphs come from that build instead of every module compiled again with other flags.
read -r -a extra <<< "${EMBOSS_SWIFT_FLAGS:-}"
swift package ${extra[@]+"${extra[@]}"} generate-documentation "${targets[@]}" \
  --enable-experimental-combined-documentation --warnings-as-errors
archive=.build/plugins/Swift-DocC/outputs/emboss.doccarchive
[ -d "$archive/data/documentation/embosskit" ] || { echo "generate-docs.sh: no EmbossKit pages in $archive" >&2; exit 1; }
if [ -n "$static" ]; then
  mkdir -p "$static"
  "$(dirname "$(readlink -f "$(command -v swift)")")/docc" process-archive \
    transform-for-static-hosting "$archive" --output-path "$static"
  echo "website in $static (documentation/embosskit/index.html)"
fi
