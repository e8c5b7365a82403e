# tempo — front door. `make run` runs the main job, `make test` every test.
# Both first make sure the build dependencies are installed (scripts/bootstrap.sh).

JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
RELEASE_DIR ?= build/release
TEST_DIR    ?= build/test
ASAN_DIR    ?= build/asan
FUZZ_DIR    ?= build/fuzz
FUZZ_SECONDS ?= 60
SOAK_COUNT  ?= 2000
CC_ASAN     ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo gcc)

CMAKE_QUIET = -Wno-dev --log-level=WARNING

.PHONY: all run test test-gcc test-asan bench fuzz soak bootstrap release clean

all: release

bootstrap:
	@sh scripts/bootstrap.sh

release: bootstrap
	@cmake -S . -B $(RELEASE_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=Release -DTEMPO_BUILD_TESTS=OFF -DTEMPO_NDEBUG_ASSERT=ON >/dev/null
	@cmake --build $(RELEASE_DIR) -j $(JOBS) >/dev/null

# The main job: a simulated match and a report of how it felt.
run: release
	@$(RELEASE_DIR)/tools/tempo-sim/tempo-sim $(RUN_ARGS)

# Every test twice: gcc with -Werror, then clang with ASan + UBSan.
test: bootstrap test-gcc test-asan
	@echo "make test: all tests passed (gcc build and ASan+UBSan build)"

test-gcc:
	@cmake -S . -B $(TEST_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DTEMPO_WERROR=ON >/dev/null
	@cmake --build $(TEST_DIR) -j $(JOBS)
	@cd $(TEST_DIR) && ctest --output-on-failure -j $(JOBS)

test-asan:
	@cmake -S . -B $(ASAN_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=$(CC_ASAN) -DTEMPO_WERROR=ON -DTEMPO_SANITIZE=ON -DTEMPO_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	@cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# Benchmark tables (medians over repeated runs), release build.
bench: release
	@for b in $(RELEASE_DIR)/bench/bench_*; do [ -x "$$b" ] && "$$b" || exit 1; done

# Soak: SOAK_COUNT random matches (2-8 players, random links, drift, hiccups,
# blackouts, drops, delays, save policies) from SOAK_SEED, each checked; a
# failure prints its scenario file (docs/SCENARIOS.md). Release build.
SOAK_SEED   ?= 1
soak: release
	@$(RELEASE_DIR)/tools/tempo-sim/tempo-sim --soak $(SOAK_COUNT) --seed $(SOAK_SEED)

# Fuzz the wire format and the session behind it: libFuzzer builds (clang,
# ASan + UBSan) in $(FUZZ_DIR), seeded with the corpus test_codec generates
# (the session and packet targets take the codec's seeds); FUZZ_SECONDS per target, then
# libFuzzer's final stats (executions, coverage). A crash stops with its log.
fuzz: bootstrap
	@cmake -S . -B $(FUZZ_DIR) $(CMAKE_QUIET) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DTEMPO_FUZZ_LIBFUZZER=ON -DTEMPO_BUILD_BENCH=OFF -DTEMPO_BUILD_TOOLS=OFF >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target test_codec fuzz_codec fuzz_bitpack fuzz_session fuzz_packet fuzz_fragment >/dev/null
	@$(FUZZ_DIR)/tests/test_codec --write-corpus $(FUZZ_DIR)/fuzz-corpus
	@for t in codec bitpack session packet fragment; do \
	  seeds=$$t; [ $$t = session ] && seeds=codec; [ $$t = packet ] && seeds=codec; \
	  mkdir -p $(FUZZ_DIR)/corpus-run/$$t $(FUZZ_DIR)/artifacts; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t- $(FUZZ_DIR)/corpus-run/$$t \
	    $(FUZZ_DIR)/fuzz-corpus/$$seeds > $(FUZZ_DIR)/fuzz_$$t.log 2>&1 \
	    || { tail -n 40 $(FUZZ_DIR)/fuzz_$$t.log; exit 1; }; \
	  grep -E '^#[0-9]+[[:space:]]+DONE|^Done |stat::number_of_executed_units' $(FUZZ_DIR)/fuzz_$$t.log; \
	done

clean:
	rm -rf build
