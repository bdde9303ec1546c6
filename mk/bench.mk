# Benchmarks, the compute sanitizer and the results page. Included by the Makefile, whose
# chapter definitions (kernels_of, program_of, ...) and libraries it uses.
#
# Both need a real GPU: on the CPU backend (BACKEND=emu) or with no GPU they refuse in one
# line and fail, rather than print timings or "clean" reports that mean nothing.

#: make chapterN bench      time chapter N's kernels against ceilings measured in the same run (needs a GPU)
#: make bench               the same for every chapter that has a benchmark; files go to build/bench/
#: make chapterN sanitize   run chapter N's tests under compute-sanitizer: memcheck, racecheck, synccheck, initcheck
#: make sanitize            the same for every chapter (make -j4 sanitize runs four at a time)
#: make results             write docs/results.md and its charts (docs/figures/) from build/bench/*-solutions.csv (after make bench SOLUTIONS=1),
#:                          with a roofline per chapter whose profile is in build/profile/ (make profile SOLUTIONS=1)
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
# The library rows (common/benchmark/libraries.h): CUB's calls are a .cu file, built by nvcc.
$(BENCH_LIBRARY): $(call objects_of,$(wildcard common/benchmark/*.cpp common/benchmark/*.cu common/gemm/*_benchmark.cpp))
borrowed_kernels_of = $(foreach b,$(call borrows_of,$(1)),$(call objects_of,$(wildcard solutions/$(call folder_of,$(b))/*.cu)))

# OpenBLAS, optional: a bench.cpp may time it as the CPU's best (chapter 1 does), inside
# #if defined(TUTORIAL_HAVE_OPENBLAS). Looked for once, and only when a benchmark is built:
# Debian's cblas.h must be OpenBLAS's (it declares openblas_get_num_threads).
HAVE_OPENBLAS = $(eval HAVE_OPENBLAS := $(shell printf '\043include <cblas.h>\n' | $(CXX) -E -x c++ - 2>/dev/null | \
                  grep -q openblas_get_num_threads && [ -f "$$($(CXX) -print-file-name=libopenblas.so)" ] && echo yes))$(HAVE_OPENBLAS)
$(BUILD)/chapters/%/bench.o: BUILD_CXXFLAGS += $(if $(HAVE_OPENBLAS),-DTUTORIAL_HAVE_OPENBLAS)

# NPP, optional: chapter 3's library row. A separate package on some systems (NVIDIA's
# libnpp-dev-X-Y for CUDA X.Y); without it the row says "NPP not installed" and how to get it,
# and the bench goes on. Looked for once, beside cuda_runtime.h, and only when a benchmark is built.
NPP_PACKAGE = $(eval NPP_PACKAGE := libnpp-dev-$(or $(subst .,-,$(shell $(NVCC) --version 2>/dev/null | \
                sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')),X-Y))$(NPP_PACKAGE)
HAVE_NPP = $(eval HAVE_NPP := $(if $(and $(wildcard $(CUDA_HOME)/include/nppi_filtering_functions.h),\
             $(wildcard $(CUDA_LIBDIR)/libnppif.so),$(wildcard $(CUDA_LIBDIR)/libnppc.so)),yes))$(HAVE_NPP)
$(BUILD)/common/benchmark/libraries_npp.o: BUILD_CXXFLAGS += $(if $(HAVE_NPP),-DTUTORIAL_HAVE_NPP) \
                                                             -DTUTORIAL_NPP_PACKAGE='"$(NPP_PACKAGE)"'

$(BIN)/chapter%-bench: $$(call kernels_of,$$*) $$(call program_of,$$*,bench) $$(call chapter_code_of,$$*) \
                       $$(call borrowed_kernels_of,$$*) $(BENCH_LIBRARY) $(GEMM_LIBRARY) $(COMMON_LIBRARY)
	$(call link,-lcublas $(if $(HAVE_NPP),-lnppif -lnppc) $(if $(HAVE_OPENBLAS),-lopenblas))

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

# ---- Roofline ------------------------------------------------------------------------------
#: make chapterN roofline   chapter N's kernels on the roofline, an SVG in build/roofline/ (on the CPU:
#:                          the profiler's predicted intensity against an H100's roof, said in its title)
# Intensity comes from the profile (make chapterN profile: the CPU backend's prediction, or
# chapterN-compared.csv where ncu measured on a GPU); on a GPU, the rates from the benchmark's
# CSV (make chapterN bench runs first when it is missing) and the roof from the device's
# properties. Which row is which variant: the [roofline] of the chapter's chapter.toml.
ROOFLINE_OUTPUT = build/roofline/$(TREE)
ROOFLINE_SELECTED = $(filter $(PROFILE_SELECTED),$(BENCH_SELECTED))
roofline_profile = $$(f=build/profile/$(TREE)/chapter$(1)-compared.csv; [ -f $$f ] || f=build/profile/$(TREE)/chapter$(1)-predicted.csv; echo $$f)
.PHONY: roofline
roofline:
	@if [ -z "$(ROOFLINE_SELECTED)" ]; then echo "No roofline for $(addprefix chapter,$(SELECTED)): it needs profile.cpp and bench.cpp."; exit 1; fi
	@mkdir -p $(ROOFLINE_OUTPUT)
ifeq ($(BACKEND),cuda)
	@$(REQUIRE_GPU) "make roofline" "$(BACKEND)"
	@for n in $(ROOFLINE_SELECTED); do \
	  [ -f $(BENCH_OUTPUT)/chapter$$n-$(TREE).csv ] || $(MAKE) chapter$$n bench SOLUTIONS=$(SOLUTIONS) || exit 1; \
	done
endif
	@echo "  PROFILE $(addprefix chapter,$(ROOFLINE_SELECTED)) (CPU backend, for the intensity; log: $(ROOFLINE_OUTPUT)/profile.log)"
	@$(MAKE) BACKEND=emu SOLUTIONS=$(SOLUTIONS) $(addprefix chapter,$(ROOFLINE_SELECTED)) profile >$(ROOFLINE_OUTPUT)/profile.log 2>&1 || \
	  { tail -n 20 $(ROOFLINE_OUTPUT)/profile.log; exit 1; }
	@failed=0; for n in $(ROOFLINE_SELECTED); do \
	  python3 -m tools.tutorial roofline $$n --profile $(call roofline_profile,$$n) \
	    $(if $(filter cuda,$(BACKEND)),--bench $(BENCH_OUTPUT)/chapter$$n-$(TREE).csv) \
	    --output $(ROOFLINE_OUTPUT)/chapter$$n.svg || failed=1; \
	done; exit $$failed

#: make roofline-figures    (maintainers) each lesson's figures/NN-name-roofline.svg: the reference solutions' predicted
#:                          intensity against an H100's roofline (make profile SOLUTIONS=1 BACKEND=emu first)
.PHONY: roofline-figures
roofline-figures:
	@mkdir -p build
	@$(MAKE) profile BACKEND=emu SOLUTIONS=1 $(addprefix chapter,$(ROOFLINE_SELECTED)) >build/roofline-figures.log 2>&1 || \
	  { tail -n 20 build/roofline-figures.log; exit 1; }
	@failed=0; for n in $(ROOFLINE_SELECTED); do \
	  folder=$$(python3 -m tools.tutorial chapters --fields | awk -v n=$$n '$$1 == n {print $$2}'); \
	  python3 -m tools.tutorial roofline $$n --profile build/profile/solutions/chapter$$n-predicted.csv \
	    --output chapters/$$folder/figures/$$folder-roofline.svg || failed=1; \
	done; exit $$failed
