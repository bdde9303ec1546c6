# Benchmarks and the compute sanitizer: both need a real GPU, and refuse in one line without
# one (tools/require-gpu.sh) rather than print timings or "clean" reports that mean nothing.
REQUIRE_GPU := bash tools/require-gpu.sh
# The harness (common/benchmark/: timing, the L2 flush, session, report) and the GEMM chapters' cuBLAS ceiling
# (common/gemm/*_benchmark.cpp) need cuBLAS: only benchmarks link it.
BENCH_LIBRARY := $(BUILD)/libbenchmark.a
$(BENCH_LIBRARY): $(call objects_of,$(wildcard common/benchmark/*.cpp common/benchmark/*.cu common/gemm/*_benchmark.cpp))
# A benchmark may time an earlier chapter's solution (registry: borrows=N), compiled as that chapter's own.
borrowed_kernels_of = $(foreach b,$(call borrows_of,$(1)),$(call objects_of,$(wildcard solutions/$(call folder_of,$(b))/*.cu)))
# Optional rows, looked for only when a benchmark is built: OpenBLAS, and NPP (libnpp-dev-X-Y).
HAVE_OPENBLAS = $(eval HAVE_OPENBLAS := $(shell printf '\043include <cblas.h>\n' | $(CXX) -E -x c++ - 2>/dev/null | \
                  grep -q openblas_get_num_threads && [ -f "$$($(CXX) -print-file-name=libopenblas.so)" ] && echo yes))$(HAVE_OPENBLAS)
$(BUILD)/chapters/%/bench.o: private BUILD_CXXFLAGS += $(if $(HAVE_OPENBLAS),-DTUTORIAL_HAVE_OPENBLAS)
NPP_PACKAGE = $(eval NPP_PACKAGE := libnpp-dev-$(or $(subst .,-,$(shell $(NVCC) --version 2>/dev/null | \
                sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')),X-Y))$(NPP_PACKAGE)
HAVE_NPP = $(eval HAVE_NPP := $(if $(and $(wildcard $(CUDA_HOME)/include/nppi_filtering_functions.h),\
             $(wildcard $(CUDA_LIBDIR)/libnppif.so),$(wildcard $(CUDA_LIBDIR)/libnppc.so)),yes))$(HAVE_NPP)
# A benchmark's own code, the project's and never the student's: chapters/NN-name/bench/*.cu and *.cpp
# (a memory-bound chapter's copy-only row; the library a user would call, its library row), compiled
# as the chapter's own. Its C++ files know whether NPP was found (its library row says how to get it).
bench_kernels_of = $(call objects_of,$(wildcard chapters/$(call folder_of,$(1))/bench/*.cu chapters/$(call folder_of,$(1))/bench/*.cpp))
$(foreach n,$(CHAPTERS),$(call bench_kernels_of,$(n))): private BUILD_CXXFLAGS += $(if $(HAVE_NPP),-DTUTORIAL_HAVE_NPP) -DTUTORIAL_NPP_PACKAGE='"$(NPP_PACKAGE)"'
$(BIN)/chapter%-bench: $$(call kernels_of,$$*) $$(call program_of,$$*,bench) $$(call chapter_code_of,$$*) $$(call bench_kernels_of,$$*) \
                       $$(call borrowed_kernels_of,$$*) $(BENCH_LIBRARY) $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(call link,-lcublas $(if $(HAVE_NPP),-lnppif -lnppc) $(if $(HAVE_OPENBLAS),-lopenblas))
$(BUILD)/bin/benchmark-tests: $(BUILD)/tests/benchmark.o $(BUILD)/common/benchmark/report.o $(HARNESS_OBJECTS) \
                              $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(link)
.PHONY: test-benchmark bench-binaries bench results roofline roofline-figures sanitize sanitize-preflight
bench-binaries: $(foreach n,$(call with_file,bench.cpp),$(BIN)/chapter$(n)-bench)
# The refusal comes before any build: the programs are prerequisites only on a GPU.
BENCH_REFUSAL := $(if $(filter bench,$(MAKECMDGOALS)),$(shell $(REQUIRE_GPU) "make bench" "$(BACKEND)"))
bench: $(if $(BENCH_REFUSAL),,bench-binaries)
	@$(if $(BENCH_REFUSAL),echo $(call shell_quote,$(BENCH_REFUSAL)); exit 1,$(TUTORIAL) bench $(SELECTED) --args $(call shell_quote,$(ARGS)))
# docs/results.md, never typed: from the solutions' CSV files (RESULTS=..., else build/bench's, else the
# last run's, kept in docs/results/ beside the page); then the figures the lessons quote from that run.
results: $(filter bench,$(MAKECMDGOALS))
	@python3 -m tools.tutorial results --output docs/results.md --record docs/results \
	  $(or $(RESULTS),$(sort $(wildcard build/bench/chapter*-solutions.csv)),$(sort $(wildcard docs/results/chapter*-solutions.csv)))
	@python3 -m tools.tutorial lesson-figures --write
roofline roofline-figures:
	@$(TUTORIAL) rooflines $(if $(filter roofline-figures,$@),--figures) $(SELECTED)
# One compute-sanitizer run per test program and tool, each a target that make -j runs side by side.
SANITIZER_TOOLS := memcheck racecheck synccheck initcheck
SANITIZE_OUTPUT := build/sanitize/$(TREE)
suite_binary = $(if $(filter common,$(1)),$(BUILD)/bin/common-tests,$(BIN)/$(1)-tests)
SANITIZE_RUNS := $(foreach s,$(if $(NAMED),,common) $(addprefix chapter,$(SELECTED)),$(foreach t,$(SANITIZER_TOOLS),sanitize-run/$(s)/$(t)))
.PHONY: $(SANITIZE_RUNS)
sanitize-preflight:
	@$(REQUIRE_GPU) "make sanitize" "$(BACKEND)" && bash tools/sanitize.sh preflight
$(SANITIZE_RUNS): sanitize-run/%: sanitize-preflight $$(call suite_binary,$$(firstword $$(subst /, ,$$*)))
	@bash tools/sanitize.sh run $(notdir $*) $(call suite_binary,$(firstword $(subst /, ,$*))) \
	  $(SANITIZE_OUTPUT)/$(subst /,-,$*).log "$(firstword $(subst /, ,$*)) ($(TREE))" $(ARGS)
SANITIZE_REFUSAL := $(if $(filter sanitize,$(MAKECMDGOALS)),$(shell $(REQUIRE_GPU) "make sanitize" "$(BACKEND)"))
sanitize: $(if $(SANITIZE_REFUSAL),,$(SANITIZE_RUNS))  # as bench: the refusal before any build
	@$(if $(SANITIZE_REFUSAL),echo $(call shell_quote,$(SANITIZE_REFUSAL)); exit 1,bash tools/sanitize.sh summary $(foreach r,$(SANITIZE_RUNS),$(SANITIZE_OUTPUT)/$(subst /,-,$(patsubst sanitize-run/%,%,$(r))).log))
