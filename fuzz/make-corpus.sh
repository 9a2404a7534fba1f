#!/bin/sh
# Rebuilds the seed corpora fuzz/corpus/load and fuzz/corpus/pipeline from the
# examples, the error-case corpus and a few small generated kernels. The seeds
# are committed; run this after adding examples or error cases.
#
# usage: sh fuzz/make-corpus.sh SBALLOC_BINARY
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
for d in load pipeline; do
    rm -rf "$here/corpus/$d"
    mkdir -p "$here/corpus/$d"
done
for f in "$src"/examples/*.json; do
    n=$(basename "$f")
    cp "$f" "$here/corpus/load/example-$n"
    cp "$f" "$here/corpus/pipeline/example-$n"
done
# The compiler-spelled kernels seed both.
for f in "$src"/tests/data/compiler/*.json; do
    n=$(basename "$f")
    cp "$f" "$here/corpus/load/compiler-$n"
    cp "$f" "$here/corpus/pipeline/compiler-$n"
done
# Every error case seeds the loader; those that load seed the pipeline. The
# regression inputs seed the loader only: one whose bug is still open would
# stop every pipeline run at once.
for f in "$src"/tests/errors/*/*.json "$src"/tests/regress/*.json; do
    [ -e "$f" ] || continue
    area=$(basename "$(dirname "$f")")
    n=$(basename "$f")
    cp "$f" "$here/corpus/load/$area-$n"
    case $area in loader | regress) ;; *) cp "$f" "$here/corpus/pipeline/$area-$n" ;; esac
done
for seed in 1 2 3 4; do
    "$bin" gen --seed $seed --tensors 20 --loop-depth $((seed % 3)) -o "$here/corpus/pipeline/gen-$seed.json"
    cp "$here/corpus/pipeline/gen-$seed.json" "$here/corpus/load/gen-$seed.json"
done
"$bin" gen --seed 5 --tensors 20 --pressure 1.5 --target trn1 -o "$here/corpus/pipeline/gen-5-spill.json"
du -sh "$here/corpus"
