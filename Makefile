# SPDX-License-Identifier: MIT
# tempo — front door. `make run` runs the main job, `make test` every test.
# Both first make sure the build dependencies are installed
# (scripts/bootstrap.sh); `make BOOTSTRAP=0 ...` skips that check.

JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
RELEASE_DIR ?= build/release
TEST_DIR    ?= build/test
ASAN_DIR    ?= build/asan
FUZZ_DIR    ?= build/fuzz
WINDOWS_DIR ?= build/windows
WASM_DIR    ?= build/wasm
FUZZ_SECONDS ?= 60
SOAK_COUNT  ?= 2000
ATTACK_COUNT ?= 1000000
ATTACK_SEED ?= 1
CC_ASAN     ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo gcc)

CMAKE_QUIET = -Wno-dev --log-level=WARNING
BOOTSTRAP   ?= 1

# Build quietly: a line at every fifth of the way, the full log (in
# $(1).log) printed only if the build fails.
define quiet_build
	@echo "  building in $(1) (log: $(1).log)"
	@set -o pipefail; SECONDS=0; cmake --build $(1) -j $(JOBS) 2>&1 | tee $(1).log | \
	  awk '/^\[ *[0-9]+%\]/ { p = substr($$0, 2, index($$0, "%") - 2) + 0; \
	       if (p >= next_p && p < 100) { printf "  built %d%%\n", p; fflush(); next_p = p - p % 20 + 20 } }' \
	  || { cat $(1).log; exit 1; }; echo "  built in $$SECONDS s"
endef
# One line per test as it ends, the output of failed ones in full.
define run_tests
	@echo "  running $$(cd $(1) && ctest -N | sed -n 's/^Total Tests: //p') tests"
	@cd $(1) && SECONDS=0 && $(2) ctest --output-on-failure -j $(JOBS) 2>&1 | grep -v '^ *Start ' ; \
	  rc=$${PIPESTATUS[0]}; echo "  tests took $$SECONDS s"; exit $$rc
endef
SHELL := /bin/bash

.PHONY: all run test test-gcc test-asan test-windows wasm wasm-for-test bench fuzz soak attack flood nat-lab bootstrap release dist clean \
        docs-check docs-screenshots

all: release

bootstrap:
	@if [ "$(BOOTSTRAP)" != 0 ]; then sh scripts/bootstrap.sh; fi

release: bootstrap
	@cmake -S . -B $(RELEASE_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=Release -DTEMPO_BUILD_TESTS=OFF -DTEMPO_NDEBUG_ASSERT=ON >/dev/null
	$(call quiet_build,$(RELEASE_DIR))

# The main job: a simulated match and a report of how it felt.
run: release
	@$(RELEASE_DIR)/tools/tempo-sim/tempo-sim $(RUN_ARGS)

# Every test twice: gcc with -Werror at -O0, then clang with ASan + UBSan
# at -O1 (the sanitizers' own advice: -O0 made that run five to six times
# slower for the same checks, and two optimisation levels between them
# show code whose result depends on one); then
# every figure the docs quote, re-made (about 9 minutes from a clean tree on
# 2 cores; README.md).
test: bootstrap wasm-for-test test-gcc test-asan docs-check
	@echo "make test: all tests passed (gcc build and ASan+UBSan build, the docs' figures)"

test-gcc:
	@echo "== 1 of 3: gcc, -Werror"
	@cmake -S . -B $(TEST_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DTEMPO_WERROR=ON -DTEMPO_WASM_PAGE=$(abspath $(WASM_DIR))/page >/dev/null
	$(call quiet_build,$(TEST_DIR))
	$(call run_tests,$(TEST_DIR),)

test-asan:
	@echo "== 2 of 3: $(CC_ASAN), ASan + UBSan"
	@cmake -S . -B $(ASAN_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_C_COMPILER=$(CC_ASAN) -DTEMPO_WERROR=ON -DTEMPO_SANITIZE=ON -DTEMPO_BUILD_BENCH=OFF -DTEMPO_WASM_PAGE=$(abspath $(WASM_DIR))/page >/dev/null
	$(call quiet_build,$(ASAN_DIR))
	$(call run_tests,$(ASAN_DIR),ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1)

# Windows: cross build with mingw-w64 in $(WINDOWS_DIR), every unit test run
# under Wine (scripts/test-windows.sh). Kept out of `make test`: it needs
# mingw-w64 and Wine, which the default bootstrap does not install.
test-windows:
	@if [ "$(BOOTSTRAP)" != 0 ]; then sh scripts/bootstrap.sh windows; fi
	@sh scripts/test-windows.sh $(WINDOWS_DIR) $(JOBS)

# WebAssembly: the library, the arena and its page in $(WASM_DIR)/page
# (docs/BROWSER.md), with Emscripten, which the bootstrap's "wasm" target
# installs (Debian's emscripten, offline) together with Chromium.
wasm:
	@if [ "$(BOOTSTRAP)" != 0 ]; then sh scripts/bootstrap.sh wasm; fi
	@sh scripts/build-wasm.sh $(WASM_DIR) $(JOBS)

# The page for the browser test: built when Emscripten is here (or the
# bootstrap can install it); without it the test says so and skips.
wasm-for-test:
	@if [ "$(BOOTSTRAP)" != 0 ]; then sh scripts/bootstrap.sh wasm || \
	  echo "  (Emscripten or Chromium missing: the browser test will skip)"; fi
	@if command -v emcc >/dev/null 2>&1; then sh scripts/build-wasm.sh $(WASM_DIR) $(JOBS); \
	  else echo "  no emcc: the page is not built, the browser test will skip"; fi

# Every figure block of README.md and docs/*.md re-made by the command
# named above it and compared (docs/ARCHITECTURE.md, "Figures in the
# docs"); DOCS_CHECK_TIMINGS=1 also re-measures the timings.
docs-check: release
	@sh scripts/docs-check.sh .

# docs/report.png and docs/report-charts.png from the current build: the
# default match's report in headless Chromium.
docs-screenshots: release
	@sh scripts/docs-screenshots.sh $(RELEASE_DIR)/tools/tempo-sim/tempo-sim docs

# Benchmark tables (medians over repeated runs), release build.
bench: release
	@for b in $(RELEASE_DIR)/bench/bench_*; do [ -x "$$b" ] && "$$b" || exit 1; done

# Soak: SOAK_COUNT random matches (2-8 players, random links, drift, hiccups,
# blackouts, drops, delays, save policies) from SOAK_SEED, each checked; a
# failure prints its scenario file (docs/SCENARIOS.md); then the flood test
# below. Release build.
SOAK_SEED   ?= 1
soak: release
	@$(RELEASE_DIR)/tools/tempo-sim/tempo-sim --soak $(SOAK_COUNT) --seed $(SOAK_SEED)
	@sh tests/arena_flood.sh $(FLOOD_ARGS)

# Flood: a sealed 3-peer tempo-arena match, one peer sent 20,000 hostile datagrams a second (tests/arena_flood.sh).
FLOOD_ARGS = $(RELEASE_DIR)/examples/arena/tempo-arena $(RELEASE_DIR)/tools/tempo-flood/tempo-flood $(RELEASE_DIR)/arena_flood
flood: release
	@sh tests/arena_flood.sh $(FLOOD_ARGS)

# NAT traversal behind emulated home routers (as root; docs/NAT.md): every
# pair of NAT types, then a router's conntrack table flushed mid-match
# (tests/nat_lab.sh; make test runs its quick subset).
NAT_LAB_ARGS = $(RELEASE_DIR)/examples/arena/tempo-arena $(RELEASE_DIR)/tools/tempo-relay/tempo-relay \
               $(RELEASE_DIR)/tools/tempo-token/tempo-token $(RELEASE_DIR)/nat_lab
nat-lab: release
	@sh tests/nat_lab.sh $(NAT_LAB_ARGS) full
	@sh tests/nat_lab.sh $(NAT_LAB_ARGS) flush

# A million forged, mutated and replayed datagrams at a sealed match: what
# got in (nothing), whether the match noticed, and how long it took.
attack: release
	@$(RELEASE_DIR)/tools/tempo-sim/tempo-sim --attack $(ATTACK_COUNT) --seed $(ATTACK_SEED)

# Fuzz every target of fuzz/ (each fuzz/fuzz_<t>.c is one): libFuzzer
# builds (clang, ASan + UBSan) in $(FUZZ_DIR), FUZZ_SECONDS each, from the
# seed corpus the tests write (valid packets, replay files, deltas, lockstep
# messages) and fuzz/regressions; then each target's executions and
# coverage. Without clang's libFuzzer the targets run as replays with
# random mutation for the same time. A crash stops with its log and input.
# (`make test` runs the same tests for TEMPO_FUZZ_SECONDS, 2 s, each.)
fuzz: bootstrap
	@cmake -S . -B $(FUZZ_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DTEMPO_FUZZ_LIBFUZZER=ON -DTEMPO_FUZZ_SECONDS=$(FUZZ_SECONDS) -DTEMPO_BUILD_BENCH=OFF -DTEMPO_BUILD_TOOLS=OFF >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_all > $(FUZZ_DIR).log 2>&1 || { cat $(FUZZ_DIR).log; exit 1; }
	@rm -f $(FUZZ_DIR)/fuzz/run/*/summary.txt
	@cd $(FUZZ_DIR) && ctest -L fuzz --output-on-failure 2>&1 | grep -v '^ *Start ' ; exit $${PIPESTATUS[0]}
	@cat $(FUZZ_DIR)/fuzz/run/*/summary.txt 2>/dev/null || true

# A source tarball of the committed tree, named by the version in base.h.
VERSION = $(shell sed -n 's/^\#define TEMPO_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' include/tempo/base.h | paste -sd.)
dist:
	@mkdir -p build
	@git archive --format=tar.gz --prefix=tempo-$(VERSION)/ -o build/tempo-$(VERSION).tar.gz HEAD
	@echo "build/tempo-$(VERSION).tar.gz"

clean:
	rm -rf build
