#!/bin/sh
# The installed library as a C user gets it: `cmake --install` into a scratch
# prefix, then examples/api/minimal.c built three ways against that copy only
# (never the build tree): pkg-config with the shared library, pkg-config
# --static, and CMake's find_package. Each program allocates and verifies the
# bundled example. Also checks that the shared library exports only the API.
#     install.sh BUILD_DIR SOURCE_DIR
set -u
name=install
build=$1
src=$2
tmp=${TMPDIR:-/tmp}/sballoc-$name.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

prefix=$tmp/prefix
example=$src/examples/matmul_tiled.json
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=$prefix/lib
[ -d "$libdir/pkgconfig" ] || libdir=$(dirname "$(find "$prefix" -name sballoc.pc | head -n 1)")/..
for f in include/sballoc/bir.h include/sballoc/alloc.h include/sballoc/export.h bin/sballoc; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
for f in libsballoc.a libsballoc.so pkgconfig/sballoc.pc cmake/sballoc/sballocConfig.cmake; do
    [ -e "$libdir/$f" ] || fail "not installed: lib/$f"
done

# Only sba_* and bir_* leave the shared library.
extra=$(nm -D --defined-only "$libdir/libsballoc.so" | awk '{print $3}' | grep -v -E '^(sba_|bir_)')
[ -z "$extra" ] || fail "the shared library exports internal symbols: $extra"

export PKG_CONFIG_PATH=$libdir/pkgconfig
cc=${CC:-cc}
if $cc -std=c11 -o "$tmp/minimal_shared" "$src/examples/api/minimal.c" $(pkg-config --cflags --libs sballoc); then
    LD_LIBRARY_PATH=$libdir "$tmp/minimal_shared" "$example" >"$tmp/shared.out" 2>&1 ||
        fail "minimal (shared, pkg-config): $(cat "$tmp/shared.out")"
    grep -q '^verified:' "$tmp/shared.out" || fail "minimal (shared) did not verify"
else
    fail "build minimal.c with pkg-config --cflags --libs sballoc"
fi
if $cc -std=c11 -o "$tmp/minimal_static" "$src/examples/api/minimal.c" \
    $(pkg-config --cflags sballoc) "$libdir/libsballoc.a" $(pkg-config --static --libs-only-l sballoc | sed 's/-lsballoc//'); then
    "$tmp/minimal_static" "$example" >"$tmp/static.out" 2>&1 || fail "minimal (static): $(cat "$tmp/static.out")"
else
    fail "build minimal.c against libsballoc.a with pkg-config --static"
fi
if cmake -S "$src/tests/install" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DSBALLOC_EXAMPLE="$src/examples/api/minimal.c" >"$tmp/consumer.log" 2>&1 &&
    cmake --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1; then
    "$tmp/consumer/minimal_cmake" "$example" >"$tmp/cmake.out" 2>&1 || fail "minimal (find_package): $(cat "$tmp/cmake.out")"
else
    cat "$tmp/consumer.log"
    fail "build minimal.c with find_package(sballoc)"
fi
"$prefix/bin/sballoc" check "$example" >/dev/null 2>&1 || fail "installed sballoc check"

echo "$name: $failed failed"
[ "$failed" -eq 0 ]
