#!/bin/sh
# Installs the Debian packages sballoc needs to build and test, when missing.
# Idempotent: does nothing (and needs no network) when everything is present.
set -eu
need="cmake ninja-build pkg-config gcc libjansson-dev libcriterion-dev"
[ "${SBALLOC_WITH_CLANG:-1}" = 1 ] && need="$need clang libclang-rt-14-dev"
# valgrind (14 MB download) runs memcheck over the optimised binary in
# tests/cli/valgrind.sh: the one check here for reads of uninitialised memory,
# which neither ASan nor UBSan sees. SBALLOC_WITH_VALGRIND=0 leaves it out.
[ "${SBALLOC_WITH_VALGRIND:-1}" = 1 ] && need="$need valgrind"
# The rendering test (tests/cli/draw.sh) screenshots an SVG with headless
# Chromium: ~80 MB to download and ~300 MB installed. `make test` asks for it
# (SBALLOC_WITH_CHROMIUM=1) so the picture is really rendered there; `make run`
# does not need it. Fonts, so that its labels render.
[ "${SBALLOC_WITH_CHROMIUM:-0}" = 1 ] && need="$need chromium fonts-dejavu-core"
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
