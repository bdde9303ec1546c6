# Benchmarks, the compute sanitizer and the results page. Included by the Makefile
# after the chapter rules, whose CHAPTERn_OBJECTS it links into the benchmarks.
#
# Both need a real GPU: on the CPU emulator (BACKEND=emu) or with no GPU they refuse
# in one line and fail, rather than print timings or "clean" reports that mean nothing.

#: make chapterN bench      time chapter N's kernels against ceilings measured in the same run (needs a GPU)
#: make bench               the same for every chapter that has a benchmark; files go to build/bench/
#: make chapterN sanitize   run chapter N's tests under compute-sanitizer: memcheck, racecheck, synccheck, initcheck
#: make sanitize            the same for every chapter (make -j4 sanitize runs four at a time)
#: make results             write docs/results.md from build/bench/*-solutions.csv (after make bench SOLUTIONS=1)
#: make test-benchmark      test the benchmark harness's statistics and output files (no GPU needed)

BENCH_OUTPUT := build/bench
SANITIZE_OUTPUT := build/sanitize/$(TREE)
REQUIRE_GPU := bash tools/require-gpu.sh

# ---- Benchmarks ------------------------------------------------------------------------
# A chapter has a benchmark when bench/<its folder>.cpp exists. The harness in
# common/benchmark/ is linked only into the benchmarks: it needs cuBLAS and a GPU.
BENCH_HARNESS_OBJECTS := $(patsubst common/%.cpp,$(BUILD)/common/%.o,$(wildcard common/benchmark/*.cpp))
BENCH_LDLIBS := $(LDLIBS) -lcublas

# Chapter 2's speed-up is over chapter 1's naive kernel. It comes from the reference
# solution, so the baseline is correct whatever the state of the student's chapter 1.
BENCH_EXTRA_SOURCES_02-tiled-gemm := solutions/01-naive-gemm/naive_gemm.cu
# Chapter 7's baseline is chapter 2's tiled GEMM at TILE 32, from its reference solution.
BENCH_EXTRA_SOURCES_07-register-tiled-gemm := solutions/02-tiled-gemm/tiled_gemm.cu

$(BUILD)/bench/%.o: bench/%.cpp $(FLAGS_RECORD)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(CXXFLAGS) -c $< -o $@

BENCHED_CHAPTERS :=
define BENCH_RULES
ifneq ($(wildcard bench/$(2).cpp),)
BENCHED_CHAPTERS += $(1)
$(BIN)/chapter$(1)-bench: $$(CHAPTER$(1)_OBJECTS) $(patsubst %.cu,$(BUILD)/%.o,$(BENCH_EXTRA_SOURCES_$(2))) \
                          $(BUILD)/bench/$(2).o $(BENCH_HARNESS_OBJECTS) $(COMMON_OBJECTS)
	@mkdir -p $$(@D)
	@echo "  LINK  $$@"
	@$(CXX) $$^ $(BENCH_LDLIBS) -o $$@
endif
endef
$(foreach n,$(CHAPTERS),$(eval $(call BENCH_RULES,$(n),$(call chapter_folder,$(n)))))

BENCH_SELECTED := $(filter $(BENCHED_CHAPTERS),$(SELECTED))
BENCH_BINARIES := $(foreach n,$(BENCH_SELECTED),$(BIN)/chapter$(n)-bench)
bench_command = ./$(BIN)/chapter$(1)-bench --chapter $(1) --folder $(call chapter_folder,$(1)) --tree $(TREE) \
                --output-dir $(BENCH_OUTPUT) $(ARGS)

# The harness's own tests: its arithmetic and files, on any machine.
$(BUILD)/bin/benchmark-tests: $(BUILD)/tests/benchmark.o $(BUILD)/common/benchmark/report.o $(COMMON_OBJECTS) $(HARNESS_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	@$(CXX) $^ $(LDLIBS) -o $@

.PHONY: test-benchmark
test-benchmark: $(BUILD)/bin/benchmark-tests
	@TUTORIAL_SEED=$(SEED) ./$< $(ARGS)

# Builds the benchmarks without running them (make check uses it).
.PHONY: bench-binaries
bench-binaries: $(BENCH_BINARIES)

.PHONY: bench
bench:
	@$(REQUIRE_GPU) "make bench" "$(BACKEND)"
	@if [ -z "$(BENCH_SELECTED)" ]; then \
	  echo "No benchmark for $(addprefix chapter,$(SELECTED)): there is no bench/$(call chapter_folder,$(firstword $(SELECTED))).cpp."; \
	  exit 1; \
	fi
	@$(MAKE) $(BENCH_BINARIES)
	@failed=0; \
	$(foreach n,$(BENCH_SELECTED),$(call bench_command,$(n)) || failed=1;) \
	exit $$failed

# ---- Compute sanitizer --------------------------------------------------------------
# One run per test binary and tool, each a target of its own, so that `make -j4`
# runs them side by side. tools/sanitize.sh runs one and prints one line; the
# `sanitize` target sums them up and fails if any run did.
SANITIZER_TOOLS := memcheck racecheck synccheck initcheck
SANITIZE_SUITES := $(if $(NAMED_CHAPTERS),,common) $(addprefix chapter,$(SELECTED))
suite_binary = $(if $(filter common,$(1)),$(BUILD)/bin/common-tests,$(BIN)/$(1)-tests)
SANITIZE_RUNS := $(foreach s,$(SANITIZE_SUITES),$(foreach t,$(SANITIZER_TOOLS),sanitize-run/$(s)/$(t)))

.PHONY: sanitize-preflight
sanitize-preflight:
	@$(REQUIRE_GPU) "make sanitize" "$(BACKEND)"
	@bash tools/sanitize.sh preflight

define SANITIZE_RULE
.PHONY: sanitize-run/$(1)/$(2)
sanitize-run/$(1)/$(2): sanitize-preflight $(call suite_binary,$(1))
	@TUTORIAL_SEED=$(SEED) bash tools/sanitize.sh run $(2) $(call suite_binary,$(1)) $(SANITIZE_OUTPUT)/$(1)-$(2).log "$(1) ($(TREE))" $(ARGS)
endef
$(foreach s,$(SANITIZE_SUITES),$(foreach t,$(SANITIZER_TOOLS),$(eval $(call SANITIZE_RULE,$(s),$(t)))))

.PHONY: sanitize
sanitize: $(SANITIZE_RUNS)
	@bash tools/sanitize.sh summary $(foreach r,$(SANITIZE_RUNS),$(SANITIZE_OUTPUT)/$(subst /,-,$(patsubst sanitize-run/%,%,$(r))).log)

# ---- Results page ------------------------------------------------------------------------
# docs/results.md is generated from the reference solutions' CSV files, never typed.
# RESULTS=... names other CSV files, e.g. ones copied back from a GPU machine.
RESULTS ?= $(sort $(wildcard $(BENCH_OUTPUT)/chapter*-solutions.csv))

.PHONY: results
results:
	@if [ -z "$(strip $(RESULTS))" ]; then \
	  echo "No results in $(BENCH_OUTPUT)/: run 'make bench SOLUTIONS=1' on a GPU first, or name CSV files with RESULTS=..."; \
	  exit 1; \
	fi
	@python3 tools/results.py --output docs/results.md $(RESULTS)
