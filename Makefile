# RAID: `make demo` and `make test` on a fresh Debian 12 machine (see README.md).
# CMake does the building; this file only wraps setup, configuration and the two entry points.

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# Seconds of fuzzing per target in `make fuzz-check` (after the replay of its corpus).
FUZZ_SECONDS ?= 20
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# The device for the demo: the first OpenCL device (PoCL on a machine without a GPU driver).
RAID_DEVICE ?= opencl

.PHONY: all setup setup-python build demo test test-fast asan tsan fuzz-build fuzz-check bench clean

all: build

# Debian packages only: building and the demo need nothing from PyPI.
setup:
	@bash scripts/setup.sh

# The Python oracles of the tests (.venv from PyPI), set up by `make test` only.
setup-python: setup
	@bash scripts/setup_python.sh

$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== raid realized data/usdchf_30min.csv (30-minute USD/CHF quotes, 1996-2001) on $(RAID_DEVICE)"
	$(BUILD)/raid realized data/usdchf_30min.csv --device $(RAID_DEVICE) --sample 30min --precision df \
	    --check -o $(BUILD)/usdchf_realized.csv
	@echo "== first and last days of $(BUILD)/usdchf_realized.csv"
	@head -n 8 $(BUILD)/usdchf_realized.csv
	@echo "..."
	@tail -n 3 $(BUILD)/usdchf_realized.csv

# The venv is made before configuring, so that CMake adds the pytest tests (it looks for .venv).
# The ThreadSanitizer build and its tests come last (make tsan).
test: setup-python build asan
	cmake -S . -B $(BUILD)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory tsan
	$(MAKE) --no-print-directory fuzz-check

# The suite without the sanitizer build.
test-fast: setup-python build
	cmake -S . -B $(BUILD)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan: setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRAID_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# ThreadSanitizer (clang, LLVM's OpenMP with Archer): builds the library and the tests that run threads
# only, and runs them (docs/testing.md "Threads").
tsan: setup
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAID_SANITIZE=thread \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target tsan_tests
	cd $(TSAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# The libFuzzer harnesses (tests/fuzz, docs/testing.md "Fuzzing"): clang, ASan+UBSan, only the fuzzers built.
fuzz-build: setup
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAID_FUZZ=ON -DRAID_BUILD_TESTS=OFF \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
	cmake --build $(FUZZ_BUILD) --target fuzzers -j $(JOBS)

# Every fuzz target replays its committed corpus, then fuzzes FUZZ_SECONDS from it (fixed seed); any crash,
# leak, timeout or sanitizer report fails.
fuzz-check: fuzz-build
	bash tests/fuzz/check.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	$(BUILD)/bench_realized --device $(RAID_DEVICE) 1e6 1e7

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
