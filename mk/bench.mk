# Benchmarks, the compute sanitizer and the results page. Included by the Makefile, whose
# chapter definitions (kernels_of, program_of, ...) and libraries it uses.
#
# Both need a real GPU: on the CPU backend (BACKEND=emu) or with no GPU they refuse in one
# line and fail, rather than print timings or "clean" reports that mean nothing.

#: make chapterN bench      time chapter N's kernels against ceilings measured in the same run (needs a GPU)
#: make bench               the same for every chapter that has a benchmark; files go to build/bench/
#: make chapterN sanitize   run chapter N's tests under compute-sanitizer: memcheck, racecheck, synccheck, initcheck
#: make sanitize            the same for every chapter (make -j4 sanitize runs four at a time)
#: make results             write docs/results.md and its charts (docs/figures/) from build/bench/*-solutions.csv (after make bench SOLUTIONS=1)
#: make test-benchmark      test the benchmark harness's statistics and output files (no GPU needed)

BENCH_OUTPUT := build/bench
SANITIZE_OUTPUT := build/sanitize/$(TREE)
REQUIRE_GPU := bash tools/require-gpu.sh

# ---- Benchmarks ------------------------------------------------------------------------
# A chapter has a benchmark when its folder has bench.cpp. The harness (common/benchmark/,
# whose .cu files, such as the CUB histogram chapter 9 times, nvcc compiles,
# and common/gemm/*_benchmark.cpp for what several chapters' benchmarks share) needs cuBLAS
# and a GPU, so only benchmarks link it. A benchmark may time an earlier chapter's reference
# solution as its baseline (chapter 2 compares with chapter 1's naive kernel): its registry
# line says so (borrows=1), its bench.cpp then sees that chapter's folder too, and that
# chapter's solution is compiled as that chapter's own (chapter_flags) and linked in,
# whatever the state of the student's copy of it.
BENCH_LIBRARY := $(BUILD)/libbenchmark.a
$(BENCH_LIBRARY): $(call objects_of,$(wildcard common/benchmark/*.cpp common/benchmark/*.cu common/gemm/*_benchmark.cpp))
borrowed_kernels_of = $(foreach b,$(call borrows_of,$(1)),$(call objects_of,$(wildcard solutions/$(call folder_of,$(b))/*.cu)))

# OpenBLAS, optional: a bench.cpp may time it as the CPU's best (chapter 1 does), inside
# #if defined(TUTORIAL_HAVE_OPENBLAS). Looked for once, and only when a benchmark is built:
# Debian's cblas.h must be OpenBLAS's (it declares openblas_get_num_threads).
HAVE_OPENBLAS = $(eval HAVE_OPENBLAS := $(shell printf '\043include <cblas.h>\n' | $(CXX) -E -x c++ - 2>/dev/null | \
                  grep -q openblas_get_num_threads && [ -f "$$($(CXX) -print-file-name=libopenblas.so)" ] && echo yes))$(HAVE_OPENBLAS)
$(BUILD)/chapters/%/bench.o: BUILD_CXXFLAGS += $(if $(HAVE_OPENBLAS),-DTUTORIAL_HAVE_OPENBLAS)

$(BIN)/chapter%-bench: $$(call kernels_of,$$*) $$(call program_of,$$*,bench) $$(call chapter_code_of,$$*) \
                       $$(call borrowed_kernels_of,$$*) $(BENCH_LIBRARY) $(GEMM_LIBRARY) $(COMMON_LIBRARY)
	$(call link,-lcublas $(if $(HAVE_OPENBLAS),-lopenblas))

BENCH_SELECTED := $(foreach n,$(SELECTED),$(if $(wildcard chapters/$(call folder_of,$(n))/bench.cpp),$(n)))
BENCH_BINARIES := $(foreach n,$(BENCH_SELECTED),$(BIN)/chapter$(n)-bench)

# The harness's own tests: its arithmetic and files, on any machine.
$(BUILD)/bin/benchmark-tests: $(BUILD)/tests/benchmark.o $(BUILD)/common/benchmark/report.o $(HARNESS_OBJECTS) \
                              $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)

.PHONY: test-benchmark bench-binaries bench
test-benchmark: $(BUILD)/bin/benchmark-tests
	@./$< $(ARGS)

# Builds the benchmarks without running them (make check uses it).
bench-binaries: $(BENCH_BINARIES)

bench:
	@$(REQUIRE_GPU) "make bench" "$(BACKEND)"
	@if [ -z "$(BENCH_SELECTED)" ]; then echo "No benchmark for $(addprefix chapter,$(SELECTED)): its folder has no bench.cpp."; exit 1; fi
	@$(MAKE) $(BENCH_BINARIES)
	@failed=0; \
	$(foreach n,$(BENCH_SELECTED),./$(BIN)/chapter$(n)-bench --chapter $(n) --folder $(call folder_of,$(n)) \
	  --tree $(TREE) --output-dir $(BENCH_OUTPUT) $(ARGS) || failed=1;) \
	exit $$failed

# ---- Compute sanitizer --------------------------------------------------------------
# One run per test binary and tool, each a target of its own, so that `make -j4`
# runs them side by side. tools/sanitize.sh runs one and prints one line; the
# `sanitize` target sums them up and fails if any run did.
SANITIZER_TOOLS := memcheck racecheck synccheck initcheck
SANITIZE_SUITES := $(if $(NAMED),,common) $(addprefix chapter,$(SELECTED))
suite_binary = $(if $(filter common,$(1)),$(BUILD)/bin/common-tests,$(BIN)/$(1)-tests)
SANITIZE_RUNS := $(foreach s,$(SANITIZE_SUITES),$(foreach t,$(SANITIZER_TOOLS),sanitize-run/$(s)/$(t)))

.PHONY: sanitize sanitize-preflight $(SANITIZE_RUNS)
sanitize-preflight:
	@$(REQUIRE_GPU) "make sanitize" "$(BACKEND)"
	@bash tools/sanitize.sh preflight

# sanitize-run/SUITE/TOOL: the suite's binary is its second word.
$(SANITIZE_RUNS): sanitize-run/%: sanitize-preflight $$(call suite_binary,$$(firstword $$(subst /, ,$$*)))
	@bash tools/sanitize.sh run $(notdir $*) $(call suite_binary,$(firstword $(subst /, ,$*))) \
	  $(SANITIZE_OUTPUT)/$(subst /,-,$*).log "$(firstword $(subst /, ,$*)) ($(TREE))" $(ARGS)

sanitize: $(SANITIZE_RUNS)
	@bash tools/sanitize.sh summary $(foreach r,$(SANITIZE_RUNS),$(SANITIZE_OUTPUT)/$(subst /,-,$(patsubst sanitize-run/%,%,$(r))).log)

# ---- Results page ------------------------------------------------------------------------
# docs/results.md is generated from the reference solutions' CSV files, never typed.
# RESULTS=... names other CSV files, e.g. ones copied back from a GPU machine.
RESULTS ?= $(sort $(wildcard $(BENCH_OUTPUT)/chapter*-solutions.csv))

.PHONY: results
results:
	@python3 -m tools.tutorial results --output docs/results.md $(RESULTS)
