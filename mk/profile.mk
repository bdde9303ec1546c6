# The memory-traffic profiler: `make chapterN profile`, `make profile`, `make test-profile`.
# Included by the Makefile after mk/emu.mk. docs/profile.md explains what it prints.
#
# On the CPU backend, each chapter's profile program (profile/NN-name.cpp) runs every
# kernel variant once, at one fixed size, with its kernels compiled for counting
# (-DEMU_PROFILE, emu/include/emu/traffic.h), and prints the predicted traffic. On the GPU
# the same program runs under Nsight Compute (ncu), and the CPU's prediction is printed
# beside what ncu measured. Either way, registers per thread come from ptxas
# (nvcc --resource-usage) for PROFILE_ARCH, which needs nvcc but no GPU.

#: make chapterN profile    predict (CPU) or measure (GPU, with ncu) each kernel's memory traffic and occupancy
#: make profile             the same for every chapter
#: make test-profile        the profiler's own tests (counts on small kernels, occupancy)
#: ... ARCH=sm_XY           profile: the architecture for registers and occupancy (default sm_90)

PROFILE_ARCH := $(or $(ARCH),$(if $(DETECTED_ARCH),sm_$(DETECTED_ARCH)),sm_90)
PROFILE_OUT = build/profile/$(TREE)
PROFILE_EMU := build/emu/profile
PROFILE_NCU ?= ncu
# The counters, with the names Nsight Compute uses on Hopper. The core ones were checked
# on an H200 (docs: /work/shared/GPU.md); the launch__ and sm__maximum_warps ones are ncu's
# occupancy figures, asked for too; if ncu does not know one, the core ones are measured alone.
PROFILE_METRICS_CORE := l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,$\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,$\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,$\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,$\
sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum
PROFILE_METRICS := $(PROFILE_METRICS_CORE),sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,$\
launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks

# Everything the profile programs are built from, in the CPU backend's build tree: the
# chapter's kernels and the test kernels compiled for counting, under build/emu/profile/.
# -g: the profiler names access sites by file:line from the debug information.
$(PROFILE_EMU)/%.o: build/emu/%.cu.cpp build/emu/compile-flags.txt mk/profile.mk
	@mkdir -p $(@D)
	@echo "  CXX   $*.cu (for the CPU, counting accesses)"
	@$(CXX) $(CXXFLAGS) -g -DEMU_PROFILE $(EMU_KERNEL_CXXFLAGS) -iquote $(dir $*) -c $< -o $@

$(PROFILE_EMU)/profile/%.o: profile/%.cpp build/emu/compile-flags.txt mk/profile.mk
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(CXXFLAGS) -DEMU_BACKEND_TRAFFIC -Iprofile -c $< -o $@

# Registers per thread and static shared memory of each kernel, from ptxas, for PROFILE_ARCH.
# Without nvcc, the profile says that occupancy needs it and goes on.
PROFILE_PTXAS = $(PROFILE_OUT)/chapter$(1)-$(PROFILE_ARCH).ptxas.txt
define profile_ptxas
if command -v $(NVCC) >/dev/null 2>&1; then \
  for source in $(wildcard $(TREE)/$(2)/*.cu); do \
    $(NVCC) -std=c++17 -O3 -arch=$(PROFILE_ARCH) --resource-usage $(INCLUDES) -c $$$$source -o /dev/null 2>&1; \
  done > $(PROFILE_PTXAS); \
  ptxas="--ptxas $(PROFILE_PTXAS)"; \
else \
  ptxas=""; \
fi
endef

PROFILED_CHAPTERS :=

ifeq ($(BACKEND),emu)
# The profiler's tests: purpose-written kernels (tests/profile_kernels/) compiled for
# counting, and the occupancy calculator.
$(BUILD)/bin/profile-tests: $(BUILD)/tests/profile.o $(PROFILE_EMU)/tests/profile_kernels/traffic_kernels.o \
                            $(PROFILE_EMU)/profile/profile.o $(COMMON_OBJECTS) $(HARNESS_OBJECTS) $(BACKEND_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	@$(CXX) $^ $(LDLIBS) -o $@
$(BUILD)/tests/profile.o: CXXFLAGS += -DEMU_BACKEND_TRAFFIC -Itests -Iprofile
else
$(BUILD)/bin/profile-tests: $(BUILD)/tests/profile.o $(COMMON_OBJECTS) $(HARNESS_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	@$(CXX) $^ $(LDLIBS) -o $@
endif

# ---- One set of rules per chapter that has a profile program ---------------------------
# Each chapter's profile program runs on the CPU backend, kernels compiled for counting,
# into build/emu/profile/; on the GPU, the same program built as usual runs under ncu.
define PROFILE_RULES
ifneq ($(wildcard profile/$(2).cpp),)
PROFILED_CHAPTERS += $(1)
ifeq ($(BACKEND),emu)
$(PROFILE_EMU)/$(TREE)/chapter$(1)-profile: $(patsubst %.cu,$(PROFILE_EMU)/%.o,$(wildcard $(TREE)/$(2)/*.cu)) \
        $(PROFILE_EMU)/profile/$(2).o $(PROFILE_EMU)/profile/profile.o $(COMMON_OBJECTS) $(BACKEND_OBJECTS)
	@mkdir -p $$(@D)
	@echo "  LINK  $$@"
	@$(CXX) $$^ $(LDLIBS) -o $$@

# One order of threads is enough: the counts do not depend on it.
.PHONY: profile-chapter$(1)
profile-chapter$(1): $(PROFILE_EMU)/$(TREE)/chapter$(1)-profile
	@mkdir -p $(PROFILE_OUT)
	@$(call profile_ptxas,$(1),$(2)); \
	EMU_SCHEDULE=forward ./$$< --arch $(PROFILE_ARCH) --out $(PROFILE_OUT) $$$$ptxas $(if $(MEASURED),--measured $(MEASURED))
else
$(BUILD)/profile/$(TREE)/chapter$(1)-profile: $$(CHAPTER$(1)_OBJECTS) $(BUILD)/profile/profile/$(2).o \
        $(BUILD)/profile/profile/profile.o $(COMMON_OBJECTS)
	@mkdir -p $$(@D)
	@echo "  LINK  $$@"
	@$(CXX) $$^ $(LDLIBS) -o $$@

# Measure with ncu, then print the CPU backend's prediction beside it.
.PHONY: profile-chapter$(1)
profile-chapter$(1): $(BUILD)/profile/$(TREE)/chapter$(1)-profile
	@$(MAKE) BACKEND=emu $(PROFILE_EMU)/$(TREE)/chapter$(1)-profile
	@mkdir -p $(PROFILE_OUT)
	@csv=$(PROFILE_OUT)/chapter$(1)-ncu.csv; log=$(PROFILE_OUT)/chapter$(1)-ncu.log; measured=""; \
	if ! command -v $(PROFILE_NCU) >/dev/null 2>&1; then \
	  echo "Nsight Compute (ncu) is not installed: showing the prediction alone."; \
	elif $(PROFILE_NCU) --csv --print-units base --log-file $$$$csv --metrics $(PROFILE_METRICS) ./$$< >$$$$log 2>&1 && grep -q '"Metric Name"' $$$$csv; then \
	  measured="--measured $$$$csv"; \
	elif $(PROFILE_NCU) --csv --print-units base --log-file $$$$csv --metrics $(PROFILE_METRICS_CORE) ./$$< >>$$$$log 2>&1 && grep -q '"Metric Name"' $$$$csv; then \
	  echo "ncu did not take every metric asked for (see $$$$log); measured the core counters only."; \
	  measured="--measured $$$$csv"; \
	else \
	  echo "ncu could not read the GPU's counters ($$$$(grep -h -m1 -E 'ERR|rror' $$$$log $$$$csv 2>/dev/null | head -c 200)); showing the prediction alone (log: $$$$log)."; \
	fi; \
	$(call profile_ptxas,$(1),$(2)); \
	EMU_SCHEDULE=forward ./$(PROFILE_EMU)/$(TREE)/chapter$(1)-profile --arch $(PROFILE_ARCH) --out $(PROFILE_OUT) $$$$ptxas $$$$measured

$(BUILD)/profile/profile/%.o: profile/%.cpp $(FLAGS_RECORD)
	@mkdir -p $$(@D)
	@echo "  CXX   $$<"
	@$(CXX) $(CXXFLAGS) -Iprofile -c $$< -o $$@
endif
endif
endef
$(foreach n,$(CHAPTERS),$(eval $(call PROFILE_RULES,$(n),$(call chapter_folder,$(n)))))

.PHONY: profile
profile: $(foreach n,$(filter $(PROFILED_CHAPTERS),$(SELECTED)),profile-chapter$(n))
	@$(if $(filter-out $(PROFILED_CHAPTERS),$(SELECTED)),echo "No profile program for chapter(s) $(filter-out $(PROFILED_CHAPTERS),$(SELECTED)).")

.PHONY: test-profile
test-profile: $(BUILD)/bin/profile-tests
	@TUTORIAL_SEED=$(SEED) ./$< $(ARGS)
