#!/usr/bin/env bash
# Builds emboss and installs it with its fonts, materials, man page and shell completions.
#
#   bash install.sh [--prefix DIR] [--configuration release|debug] [--static-swift-stdlib]
#                   [--manual FILE]
#
# DIR defaults to ~/.local. Installed:
#   DIR/bin/emboss
#   DIR/libexec/emboss/emboss-studio                    (the studio's server: emboss studio)
#   DIR/share/emboss/Fonts, DIR/share/emboss/Materials   (found by the binary at run time)
#   DIR/share/man/man1/emboss.1                          (generated from the command definitions)
#   DIR/share/bash-completion/completions/emboss, DIR/share/zsh/site-functions/_emboss,
#   DIR/share/fish/vendor_completions.d/emboss.fish
# --static-swift-stdlib links Swift's runtime into the binary, so it runs on machines
# without a Swift toolchain (the C libraries are still Debian's). --manual installs FILE as
# the man page instead of generating it (one that an install of the same sources made: CI
# makes it once, from its debug build, for the release archive too).
# EMBOSS_SWIFT_FLAGS adds flags to the build (`-Xswiftc -O` for an optimized debug build).
set -euo pipefail
cd "$(dirname "$0")"

prefix="$HOME/.local"
configuration=release
static=()
given_manual=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --configuration) configuration="$2"; shift 2 ;;
    --configuration=*) configuration="${1#--configuration=}"; shift ;;
    --static-swift-stdlib) static=(--static-swift-stdlib); shift ;;
    --manual) given_manual="$2"; shift 2 ;;
    --manual=*) given_manual="${1#--manual=}"; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
  esac
done
case "$configuration" in
  release|debug) ;;
  *) echo "install.sh: --configuration is release or debug" >&2; exit 64 ;;
esac
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

bash .ci/install-deps
# A static build has a build folder of its own, so that switching between static and
# ordinary links never relinks the other's binaries.
scratch=()
[ "${#static[@]}" -gt 0 ] && scratch=(--scratch-path .build-static)
read -r -a extra <<< "${EMBOSS_SWIFT_FLAGS:-}"
for product in emboss emboss-studio; do
  swift build -c "$configuration" --product "$product" ${static[@]+"${static[@]}"} \
    ${scratch[@]+"${scratch[@]}"} ${extra[@]+"${extra[@]}"}
done
binaries="$(swift build -c "$configuration" ${scratch[@]+"${scratch[@]}"} ${extra[@]+"${extra[@]}"} --show-bin-path)"
binary="$binaries/emboss"

install -d "$prefix/bin" "$prefix/libexec/emboss" "$prefix/share/emboss" "$prefix/share/man/man1" \
  "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
  "$prefix/share/fish/vendor_completions.d"
# Staged then renamed, so a running emboss is never overwritten in place.
install -m 755 "$binary" "$prefix/bin/.emboss.new"
mv -f "$prefix/bin/.emboss.new" "$prefix/bin/emboss"
install -m 755 "$binaries/emboss-studio" "$prefix/libexec/emboss/.emboss-studio.new"
mv -f "$prefix/libexec/emboss/.emboss-studio.new" "$prefix/libexec/emboss/emboss-studio"

rm -rf "$prefix/share/emboss/Fonts" "$prefix/share/emboss/Materials"
cp -R Fonts Materials "$prefix/share/emboss/"
if [ -n "$given_manual" ]; then
  grep -q '^\.It Cm batch merge$' "$given_manual" \
    || { echo "install.sh: --manual $given_manual is not emboss's man page" >&2; exit 1; }
  install -m 644 "$given_manual" "$prefix/share/man/man1/emboss.1"
else
  # The man page, from the command definitions (swift-argument-parser's generate-manual
  # plugin), dated by the last commit so that it does not change from one install to the next.
  # It builds emboss in the same build folder (for a static build: relinked without the static
  # runtime, which is why the binary was installed first), with the same flags, so that it
  # reuses the build above instead of compiling everything again with other flags.
  date="$(git log -1 --format=%cs 2>/dev/null || date +%Y-%m-%d)"
  swift package ${scratch[@]+"${scratch[@]}"} ${extra[@]+"${extra[@]}"} plugin generate-manual \
    --configuration "$configuration" \
    --date "$date" --authors "the emboss authors" >/dev/null
  manual="${scratch[1]:-.build}/plugins/GenerateManual/outputs/emboss/emboss.1"
  # The plugin's EXIT STATUS section is generic (".Ex -std": 0 on success, >0 on error); the
  # binary writes one that lists each command's statuses, from the table its --help uses.
  statuses="$(mktemp)"
  trap 'rm -f "$statuses" "$statuses.1"' EXIT
  "$prefix/bin/emboss" --manual-exit-status > "$statuses"
  awk -v statuses="$statuses" \
    '/^\.Ex -std$/ { while ((getline line < statuses) > 0) print line; next } { print }' \
    "$manual" > "$statuses.1"
  grep -q '^\.It Cm batch merge$' "$statuses.1" || { echo "install.sh: no EXIT STATUS list" >&2; exit 1; }
  install -m 644 "$statuses.1" "$prefix/share/man/man1/emboss.1"
fi
"$prefix/bin/emboss" --generate-completion-script bash > "$prefix/share/bash-completion/completions/emboss"
"$prefix/bin/emboss" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_emboss"
"$prefix/bin/emboss" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/emboss.fish"

echo "installed emboss in $prefix:"
echo "  $prefix/bin/emboss (fonts and materials in $prefix/share/emboss)"
echo "  man page: $prefix/share/man/man1/emboss.1"
echo "  completions for bash, zsh and fish under $prefix/share"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "add $prefix/bin to PATH, e.g. in ~/.bashrc: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
