#!/usr/bin/env bash
# install.sh into a temporary prefix, then use what it installed as a new user would: the
# binary finds its fonts and materials in the prefix, `man` reads the page, and bash
# completes a font path, a preset name and a --dither value.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
bash install.sh --prefix "$prefix" --configuration "${1:-debug}" >/dev/null
# The man page, kept for the release archive when a second argument names where.
if [ -n "${2:-}" ]; then cp "$prefix/share/man/man1/emboss.1" "$2"; fi
emboss="$prefix/bin/emboss"
fail() { echo "install test: FAILED: $*"; exit 1; }
# Resources come from the prefix: a preset added there is listed.
printf 'description: only in the installed folder\nextends: default\n' \
  > "$prefix/share/emboss/Materials/zz-installed.yaml"
listed="$(cd "$prefix" && "$emboss" materials)"
grep -q "zz-installed" <<< "$listed" || fail "the installed Materials/ is not used"
(cd "$prefix" && "$emboss" render "Installed" --material zz-installed -o "$prefix/out.png") \
  || fail "the installed binary cannot render"
# EMBOSS_RESOURCES points elsewhere.
mkdir -p "$prefix/elsewhere" && cp -R "$prefix/share/emboss/Fonts" "$prefix/share/emboss/Materials" "$prefix/elsewhere/"
printf 'extends: default\n' > "$prefix/elsewhere/Materials/zz-elsewhere.yaml"
listed="$(EMBOSS_RESOURCES="$prefix/elsewhere" "$emboss" materials)"
grep -q "zz-elsewhere" <<< "$listed" || fail "EMBOSS_RESOURCES is not used"
# The studio: emboss runs its server (installed in libexec) in its own place.
out="$prefix/studio.out"
"$emboss" studio "$prefix/zz-studio.yaml" --text Installed > "$out" 2>&1 &
studio=$!
for _ in $(seq 100); do grep -q "^open http://127.0.0.1:" "$out" && break; sleep 0.1; done
kill "$studio" 2>/dev/null || true
wait "$studio" 2>/dev/null || true
grep -q "^open http://127.0.0.1:" "$out" || fail "the installed studio did not start: $(cat "$out")"
# The man page.
if command -v man >/dev/null; then
  page="$(MANPAGER=cat man -l "$prefix/share/man/man1/emboss.1" 2>/dev/null)"
  grep -q "studio" <<< "$page" || fail "man emboss lacks the subcommands"
  # EXIT STATUS lists each command (diff's 2 among them), not the generic sentence.
  exits="$(sed -n '/^EXIT STATUS/,/^AUTHORS/p' <<< "$page")"
  grep -q "batch merge" <<< "$exits" || fail "EXIT STATUS does not list the commands: $exits"
  grep -q "2 when a file cannot be read" <<< "$exits" || fail "EXIT STATUS lacks diff's 2: $exits"
else
  grep -q '^\.Nm' "$prefix/share/man/man1/emboss.1" || fail "not a man page"
fi
# Bash completion: what a user gets pressing Tab.
out="$(bash -c '
  source "$1/share/bash-completion/completions/emboss"
  export PATH="$1/bin:$PATH"
  c() { COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
        _emboss emboss "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s " "${COMPREPLY[@]}"; echo; }
  c emboss render --font "$1/share/emboss/Fonts/DejaVu"
  c emboss render --material zz-in
  c emboss engrave x.png --dither jarvis
' _ "$prefix")"
echo "$out" | sed -n 1p | grep -q "DejaVuSans-Bold.ttf" || fail "no font path completion: $out"
echo "$out" | sed -n 2p | grep -q "zz-installed" || fail "no preset completion: $out"
echo "$out" | sed -n 3p | grep -q "jarvis-judice-ninke" || fail "no --dither completion: $out"
echo "install test: passed (resources from the prefix and EMBOSS_RESOURCES, the studio, man page, bash completion)"
