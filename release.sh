#!/usr/bin/env bash
# Builds a release archive that runs without a Swift toolchain: emboss linked with Swift's
# runtime and Foundation inside (--static-swift-stdlib), its fonts, materials, man page and
# shell completions, laid out as a prefix.
#
#   bash release.sh [--output DIR] [--manual FILE]
#
# Writes DIR/emboss-VERSION-linux-ARCH.tar.gz and its .sha256 (DIR defaults to dist). On the
# target machine, install the C libraries emboss uses (Debian 12 names):
#   apt install libfreetype6 libfontconfig1 libharfbuzz0b libfribidi0 libpng16-16 \
#     libjpeg62-turbo libwebp7 libglib2.0-0 libcurl4 libpolyclipping22 libzip4 libisal2
# then unpack into a prefix:  tar -xzf emboss-*.tar.gz --strip-components=1 -C ~/.local
# The archive is checked before it is written: the binary must need no Swift library, and
# must render with the fonts and materials beside it. --manual: the man page an install of
# the same sources made (install.sh --manual), instead of generating it again.
set -euo pipefail
cd "$(dirname "$0")"

output=dist
manual=()
while [ $# -gt 0 ]; do
  case "$1" in
    --output) output="$2"; shift 2 ;;
    --output=*) output="${1#--output=}"; shift ;;
    --manual) manual=(--manual "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
  esac
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# The version and architecture name the archive; the binary says its own version.
bash install.sh --prefix "$stage/root" --static-swift-stdlib ${manual[@]+"${manual[@]}"} >/dev/null
# Symbols off: 90 MB to 64 MB (Foundation's ICU data is most of what is left).
strip "$stage/root/bin/emboss" "$stage/root/libexec/emboss/emboss-studio"
version="$("$stage/root/bin/emboss" --version)"
name="emboss-$version-linux-$(uname -m)"
mv "$stage/root" "$stage/$name"
cp README.md CHANGELOG.md "$stage/$name/share/emboss/"
root="$stage/$name"

fail() { echo "release.sh: $*" >&2; exit 1; }
# No Swift library may be needed at run time: only the system's C libraries.
if ldd "$root/bin/emboss" "$root/libexec/emboss/emboss-studio" | grep -Ei 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libicu'; then
  fail "the binary still needs the Swift libraries above"
fi
# It renders from its folder with no toolchain on PATH or in the loader's path; as root,
# with the toolchain's folder hidden too (an empty file system mounted over it, in a mount
# namespace of this command's own).
check=(env -i HOME="$stage" PATH=/usr/bin:/bin "$root/bin/emboss" render "Release" --quiet
  -o "$stage/check.png")
toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  unshare -m bash -c 'mount -t tmpfs none "$1" && shift && "$@"' _ "$toolchain" "${check[@]}" \
    || fail "the archived binary cannot render without the toolchain ($toolchain hidden)"
else
  "${check[@]}" || fail "the archived binary cannot render"
fi
[ -s "$stage/check.png" ] || fail "the archived binary wrote no picture"

mkdir -p "$output"
# Reproducible: sorted names, fixed owner and the last commit's time.
stamp="$(git log -1 --format=%ct 2>/dev/null || date +%s)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$stamp" \
  -C "$stage" -cf - "$name" | gzip -n -9 > "$output/.$name.tar.gz.partial"
mv -f "$output/.$name.tar.gz.partial" "$output/$name.tar.gz"
(cd "$output" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "$output/$name.tar.gz ($(du -h "$output/$name.tar.gz" | cut -f1)), sha256 in $name.tar.gz.sha256"
