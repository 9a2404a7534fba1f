# The two commands of the README. Each installs what is missing, then builds.
#   make run   - build and run the main job on the bundled example
#   make test  - build and run every test, then again under ASan + UBSan
.PHONY: all deps test-deps build run test test-release test-asan test-clang bench fuzz clean

EXAMPLE ?= examples/matmul_tiled.json
JOBS ?= $(shell nproc)

all: build

deps:
	@./scripts/install-deps.sh

# The test suite also renders a picture in headless Chromium (tests/cli/draw.sh).
test-deps:
	@SBALLOC_WITH_CHROMIUM=1 ./scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

run: build
	./build/release/sballoc alloc $(EXAMPLE) --report -o build/release/allocated.json

test: test-deps test-release test-clang test-asan test-fuzz

test-release:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS)

# A clang build of everything, so that warnings are errors under both compilers.
test-clang:
	@cmake --preset clang >/dev/null
	@cmake --build --preset clang -j $(JOBS)

test-asan:
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

# libFuzzer + ASan + UBSan on the loader and on the whole pipeline (fuzz/):
# `make fuzz` runs each harness FUZZ_SECONDS, test-fuzz a bounded minute.
FUZZ_SECONDS ?= 600
.PHONY: test-fuzz

fuzz: deps
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)
	sh fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

test-fuzz:
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)
	FUZZ_SEED=1 FUZZ_RUNS=30000 sh fuzz/run.sh build/fuzz 150

# bench_alloc runs every strategy on MiniMalloc's instances (../shared), the
# examples and generated kernels, verifies each result, and writes
# bench/results.md and bench/results.csv.
bench: build
	./build/release/bench_json | tee bench/results_json.md
	SBALLOC_SOURCE_DIR=$(CURDIR) ./build/release/bench_alloc

clean:
	rm -rf build
