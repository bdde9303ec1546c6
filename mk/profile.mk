# The memory-traffic profiler: `make chapterN profile`, `make profile`, `make test-profile`.
# Included by the Makefile, whose chapter definitions (kernels_of, program_of, ...) it uses.
# docs/profile.md explains what it prints.
#
# A chapter is profiled when its folder has profile.cpp: it makes the inputs at one fixed
# size and launches each kernel variant once (common/profile/profile.h is its driver).
#  - The prediction always comes from the CPU backend: the same program with its kernels
#    compiled for counting (-DEMU_PROFILE, emu/include/emu/traffic.h), built under
#    build/emu/profile/ and linked as build/emu/TREE/bin/chapterN-profile.
#  - With BACKEND=cuda the program is also built for the GPU ($(BIN)/chapterN-profile), run
#    under Nsight Compute (ncu), and the prediction is printed beside what ncu measured.
# Either way, registers per thread come from ptxas (nvcc --resource-usage) for PROFILE_ARCH,
# which needs nvcc but no GPU.

#: make chapterN profile    predict (CPU) or measure (GPU, with ncu) each kernel's memory traffic and occupancy
#: make profile             the same for every chapter that has a profile.cpp
#: make test-profile        the profiler's own tests (counts on small kernels, occupancy)
#: make profile-tables      (maintainers) write each lesson's profile tables from make profile SOLUTIONS=1 BACKEND=emu
#: ... ARCH=sm_XY           profile: the architecture for registers and occupancy (default sm_90)

PROFILE_ARCH := $(or $(ARCH),$(if $(DETECTED_ARCH),sm_$(DETECTED_ARCH)),sm_90)
PROFILE_OUT = build/profile/$(TREE)
PROFILE_NCU ?= ncu
PROFILE_HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)
# The counting build of the CPU backend, and the predicting program of chapter $(1).
PROFILE_EMU := build/emu/profile
predictor_of = build/emu/$(TREE)/bin/chapter$(1)-profile

PROFILE_SELECTED := $(foreach n,$(SELECTED),$(if $(wildcard chapters/$(call folder_of,$(n))/profile.cpp),$(n)))

# The counters, with the names Nsight Compute uses on Hopper. The core ones were checked
# on an H200; the launch__ and sm__maximum_warps ones are ncu's occupancy figures, asked for
# too, with the global side of cp.async (LDGSTS, chapter 8), the shared atomic instructions and
# the global atomic requests, ATOM and RED (none yet checked on a GPU); if ncu does not know one, the core ones are measured alone.
PROFILE_METRICS_CORE := l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,$\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,$\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,$\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,$\
sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum
PROFILE_METRICS := $(PROFILE_METRICS_CORE),sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,$\
smsp__inst_executed_op_shared_atom.sum,$\
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,$\
launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,$\
l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum

# ---- The counting build (CPU backend) -------------------------------------------------------
# Kernels (.cu, through the backend's translator) compiled for counting, and the .cpp files
# that look at the counts (the driver, the profiler's tests) compiled to see the counters.
# -g: the profiler names access sites by file:line from the debug information.
ifeq ($(BACKEND),emu)
$(PROFILE_EMU)/%.o: $(BUILD)/%.cu.cpp $(FLAGS_RECORD) $$(call chapter_record,$$*) mk/profile.mk
	@mkdir -p $(@D)
	@echo "  CXX   $*.cu (for the CPU, counting accesses)"
	@$(CXX) $(call chapter_flags,$*) $(BUILD_CXXFLAGS) $(CXXFLAGS) -g -DEMU_PROFILE $(EMU_KERNEL_CXXFLAGS) -iquote $(dir $*) -c $< -o $@

$(PROFILE_EMU)/%.o: %.cpp $(FLAGS_RECORD) $$(call chapter_record,$$*) mk/profile.mk
	@mkdir -p $(@D)
	@echo "  CXX   $< (reading the counts)"
	@$(CXX) $(call chapter_flags,$<) $(BUILD_CXXFLAGS) $(CXXFLAGS) -DEMU_BACKEND_TRAFFIC -c $< -o $@

profile_kernels_of = $(patsubst $(BUILD)/%,$(PROFILE_EMU)/%,$(call kernels_of,$(1)))
$(BIN)/chapter%-profile: $$(call profile_kernels_of,$$*) $(PROFILE_EMU)/chapters/$$(call folder_of,$$*)/profile.o \
                         $(PROFILE_EMU)/common/profile/profile.o $$(call chapter_code_of,$$*) \
                         $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)

$(BUILD)/bin/profile-probe: $(PROFILE_EMU)/tests/profile_probe.o $(PROFILE_EMU)/tests/profile_kernels/traffic_kernels.o \
                            $(PROFILE_EMU)/common/profile/profile.o $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)

# The profiler's tests: purpose-written kernels (tests/profile_kernels/) compiled for
# counting, and the occupancy calculator.
$(BUILD)/bin/profile-tests: $(PROFILE_EMU)/tests/profile.o $(PROFILE_EMU)/tests/profile_kernels/traffic_kernels.o \
                            $(PROFILE_EMU)/common/profile/profile.o $(HARNESS_OBJECTS) $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)
else
# ---- The GPU build: the same programs, built as usual, for ncu to measure -------------------
# Linked with --wrap=__cudaLaunchKernel: the driver asks the occupancy API about every launch
# (common/profile/profile.cpp).
$(BIN)/chapter%-profile: $$(call kernels_of,$$*) $$(call program_of,$$*,profile) $(BUILD)/common/profile/profile.o \
                         $$(call chapter_code_of,$$*) $(GEMM_LIBRARY) $(COMMON_LIBRARY)
	$(call link,-Wl$(comma)--wrap=__cudaLaunchKernel)
# On the GPU only the occupancy calculator is tested.
$(BUILD)/bin/profile-tests: $(BUILD)/tests/profile.o $(HARNESS_OBJECTS) $(COMMON_LIBRARY)
	$(link)
$(BUILD)/bin/profile-probe: $(BUILD)/tests/profile_probe.o $(BUILD)/tests/profile_kernels/traffic_kernels.o \
                            $(BUILD)/common/profile/profile.o $(COMMON_LIBRARY)
	$(call link,-Wl$(comma)--wrap=__cudaLaunchKernel)
endif

# ---- Registers per thread, from ptxas -----------------------------------------------------------
# Registers and static shared memory of each kernel of the .cu prerequisites for
# PROFILE_ARCH, into the target ($(1): what to call them). Without nvcc the file is empty,
# and the profile says that occupancy needs it and goes on.
define ptxas_recipe
@mkdir -p $(@D)
@if [ -n "$(PROFILE_HAVE_NVCC)" ]; then \
  echo "  PTXAS $(1) ($(PROFILE_ARCH), registers per thread)"; \
  for source in $(filter %.cu,$^); do \
    $(NVCC) -std=c++17 -O3 -arch=$(PROFILE_ARCH) --resource-usage $(call chapter_flags,$(firstword $(filter %.cu,$^))) $(SHARED_INCLUDES) -c $$source -o /dev/null 2>&1 || exit 1; \
  done > $@; \
else : > $@; fi
endef
$(PROFILE_OUT)/chapter%-$(PROFILE_ARCH).ptxas.txt: $$(wildcard $(TREE)/$$(call folder_of,$$*)/*.cu) $(FLAGS_RECORD)
	$(call ptxas_recipe,$(TREE)/$(call folder_of,$*))

# --ptxas only when the file holds something (it is empty without nvcc).
ptxas_option = $$([ -s $(PROFILE_OUT)/chapter$(1)-$(PROFILE_ARCH).ptxas.txt ] && echo --ptxas $(PROFILE_OUT)/chapter$(1)-$(PROFILE_ARCH).ptxas.txt)
# Run chapter $(1)'s predictor; $(2): more options (--measured FILE). One order of threads is
# enough: the counts do not depend on it.
run_predictor = EMU_SCHEDULE=forward ./$(call predictor_of,$(1)) --chapter $(1) --arch $(PROFILE_ARCH) --out $(PROFILE_OUT) \
                  $(call ptxas_option,$(1)) $(2)

# Measure a profile program with ncu and print the prediction beside it. $(1): the outputs'
# name (chapterN), $(2): the GPU program and its options, $(3): the predictor and its options.
# ncu's table goes to $(PROFILE_OUT)/$(1)-ncu.csv; the GPU program itself writes what the
# occupancy API says to $(PROFILE_OUT)/$(1)-occupancy-api.csv. When ncu is missing or cannot
# read the counters, one line says so and the prediction stands beside the occupancy API alone.
define measure_and_predict
csv=$(PROFILE_OUT)/$(1)-ncu.csv; log=$(PROFILE_OUT)/$(1)-ncu.log; api=$(PROFILE_OUT)/$(1)-occupancy-api.csv; measured=""; \
rm -f $$api; \
if ! command -v $(PROFILE_NCU) >/dev/null 2>&1; then \
  echo "Nsight Compute (ncu) is not installed: showing the prediction beside the occupancy API alone."; \
  ./$(2) --out $(PROFILE_OUT) >$$log 2>&1 || echo "$(2) failed (log: $$log)"; \
elif $(PROFILE_NCU) --csv --print-units base --log-file $$csv --metrics $(PROFILE_METRICS) ./$(2) --out $(PROFILE_OUT) >$$log 2>&1 \
     && grep -q '"Metric Name"' $$csv; then \
  measured="--measured $$csv"; \
elif $(PROFILE_NCU) --csv --print-units base --log-file $$csv --metrics $(PROFILE_METRICS_CORE) ./$(2) --out $(PROFILE_OUT) >>$$log 2>&1 \
     && grep -q '"Metric Name"' $$csv; then \
  echo "ncu did not take every metric asked for (see $$log); measured the core counters only."; \
  measured="--measured $$csv"; \
else \
  echo "ncu could not read the GPU's counters ($$(grep -h -m1 -E 'ERR|rror' $$log $$csv 2>/dev/null | head -c 200)); showing the prediction alone (log: $$log)."; \
fi; \
if [ -s $$api ]; then measured="$$measured --occupancy $$api"; fi; \
$(3) $$measured
endef

# The profiler's probe (tests/profile_probe.cpp): its small kernels, each beside what ncu
# measures, to hold the model to the hardware one access pattern at a time.
PROBE_PTXAS := build/profile/probe-$(PROFILE_ARCH).ptxas.txt
$(PROBE_PTXAS): tests/profile_kernels/traffic_kernels.cu $(FLAGS_RECORD)
	$(call ptxas_recipe,$<)
run_probe_predictor = EMU_SCHEDULE=forward ./build/emu/bin/profile-probe --arch $(PROFILE_ARCH) --out $(PROFILE_OUT) \
                        $$([ -s $(PROBE_PTXAS) ] && echo --ptxas $(PROBE_PTXAS))

# ---- Targets ---------------------------------------------------------------------------------------
PROFILE_INPUTS := $(foreach n,$(PROFILE_SELECTED),$(PROFILE_OUT)/chapter$(n)-$(PROFILE_ARCH).ptxas.txt)
.PHONY: profile test-profile profile-tables
ifeq ($(BACKEND),emu)
profile: $(foreach n,$(PROFILE_SELECTED),$(call predictor_of,$(n))) $(PROFILE_INPUTS)
	@if [ -z "$(PROFILE_SELECTED)" ]; then echo "No profile for $(addprefix chapter,$(SELECTED)): its folder has no profile.cpp."; exit 1; fi
	@failed=0; $(foreach n,$(PROFILE_SELECTED),$(call run_predictor,$(n),$(if $(MEASURED),--measured $(MEASURED))) || failed=1;) \
	exit $$failed
else
profile: $(foreach n,$(PROFILE_SELECTED),$(BIN)/chapter$(n)-profile) $(PROFILE_INPUTS)
	@if [ -z "$(PROFILE_SELECTED)" ]; then echo "No profile for $(addprefix chapter,$(SELECTED)): its folder has no profile.cpp."; exit 1; fi
	@$(MAKE) BACKEND=emu SOLUTIONS=$(SOLUTIONS) $(foreach n,$(PROFILE_SELECTED),$(call predictor_of,$(n)))
	@failed=0; $(foreach n,$(PROFILE_SELECTED),{ $(call measure_and_predict,chapter$(n),$(BIN)/chapter$(n)-profile --chapter $(n),$(call run_predictor,$(n),)); } || failed=1;) \
	exit $$failed
endif

#: make profile-probe       (maintainers) the profiler's small test kernels, predicted, and on a GPU measured beside
.PHONY: profile-probe
ifeq ($(BACKEND),emu)
profile-probe: $(BUILD)/bin/profile-probe $(PROBE_PTXAS)
	@$(run_probe_predictor)
else
profile-probe: $(BUILD)/bin/profile-probe $(PROBE_PTXAS)
	@$(MAKE) BACKEND=emu build/emu/bin/profile-probe
	@mkdir -p $(PROFILE_OUT); $(call measure_and_predict,profiler-probe,$(BUILD)/bin/profile-probe,$(run_probe_predictor))
endif

test-profile: $(BUILD)/bin/profile-tests
	@./$< $(ARGS)

# The lessons quote their profile (tables between markers in each chapter's README.md), made
# from the reference solutions' predicted tables, on the CPU, so that anyone can remake them.
profile-tables:
	@$(MAKE) profile BACKEND=emu SOLUTIONS=1 $(if $(NAMED),$(addprefix chapter,$(NAMED)))
	@python3 -m tools.tutorial --backend emu --tree solutions profile-tables --write --dir build/profile/solutions
