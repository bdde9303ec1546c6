# The memory-traffic profiler (docs/profile.md). The prediction always comes from the CPU backend,
# its kernels compiled for counting under build/emu/profile/; with BACKEND=cuda the program is also
# built for the GPU and measured with ncu. Registers per thread: ptxas, for PROFILE_ARCH.
# The one architecture built, or sm_90a where the build is for all of them.
PROFILE_ARCH := sm_$(if $(word 2,$(ARCH_NUMBERS)),90a,$(ARCH_NUMBERS))
PROFILE_OUT = build/profile/$(TREE)
PROFILE_EMU := build/emu/profile
PROFILE_NCU ?= ncu
PROFILE_SELECTED := $(call with_file,profile.cpp)
ifeq ($(BACKEND),emu)
# -g: the profiler names access sites by file:line from the debug information.
$(PROFILE_EMU)/%.o: $(BUILD)/%.cu.cpp $(FLAGS_RECORD) $$(call chapter_record,$$*) $(EMU_FLAGS_RECORD)
	$(call run_compiler,CXX   $*.cu (for the CPU$(comma) counting accesses),$(CXX) $(call chapter_flags,$*) $(BUILD_CXXFLAGS) $(CXXFLAGS) -g -DEMU_PROFILE $(EMU_KERNEL_CXXFLAGS) -iquote $(dir $*) -c $< -o $@)
$(PROFILE_EMU)/%.o: %.cpp $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,CXX   $< (reading the counts),$(CXX) $(call chapter_flags,$<) $(BUILD_CXXFLAGS) $(CXXFLAGS) -DEMU_BACKEND_TRAFFIC -c $< -o $@)
PROFILE_BUILD := $(PROFILE_EMU)
PROFILE_LDLIBS :=
else
# The driver asks the occupancy API about every launch (common/profile/profile.cpp).
PROFILE_BUILD := $(BUILD)
PROFILE_LDLIBS := -Wl,--wrap=__cudaLaunchKernel
endif
profile_kernels_of = $(patsubst $(BUILD)/%,$(PROFILE_BUILD)/%,$(call kernels_of,$(1)))  # a %, out of the rule's stem
$(BIN)/chapter%-profile: $$(call profile_kernels_of,$$*) $(PROFILE_BUILD)/chapters/$$(call folder_of,$$*)/profile.o \
                         $(PROFILE_BUILD)/common/profile/profile.o $$(call chapter_code_of,$$*) $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(call link,$(PROFILE_LDLIBS))
$(BUILD)/bin/profile-probe: $(PROFILE_BUILD)/tests/profile_probe.o $(PROFILE_BUILD)/tests/profile_kernels/traffic_kernels.o \
                            $(PROFILE_BUILD)/common/profile/profile.o $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(call link,$(PROFILE_LDLIBS))
# The profiler's tests: purpose-written kernels, counted (on the GPU: the occupancy calculator only).
$(BUILD)/bin/profile-tests: $(PROFILE_BUILD)/tests/profile.o $(if $(filter emu,$(BACKEND)),$(PROFILE_EMU)/tests/profile_kernels/traffic_kernels.o \
                            $(PROFILE_EMU)/common/profile/profile.o) $(HARNESS_OBJECTS) $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(link)
# Registers and static shared memory per kernel (empty without nvcc: the profile says what it lacks).
ptxas = @mkdir -p $(@D) && $(if $(HAVE_NVCC),echo "  PTXAS $(1) ($(PROFILE_ARCH), registers per thread)" && for source in $(filter %.cu,$^); do \
	  $(NVCC) -std=c++17 -O3 -arch=$(PROFILE_ARCH) --resource-usage $(call chapter_flags,$(firstword $(filter %.cu,$^))) $(SHARED_INCLUDES) \
	  -cubin $$source -o /dev/null 2>&1 || exit 1; done >$@,: >$@)
$(PROFILE_OUT)/chapter%-$(PROFILE_ARCH).ptxas.txt: $$(wildcard $(TREE)/$$(call folder_of,$$*)/*.cu) $(FLAGS_RECORD)
	$(call ptxas,$(TREE)/$(call folder_of,$*))
build/profile/probe-$(PROFILE_ARCH).ptxas.txt: tests/profile_kernels/traffic_kernels.cu $(FLAGS_RECORD)
	$(call ptxas,$<)
# On the GPU the predictions come from the CPU backend's build: make again, once.
predictions = +@$(if $(filter cuda,$(BACKEND)),$(if $(1),$(MAKE) BACKEND=emu SOLUTIONS=$(SOLUTIONS) $(1)),true)
PROFILE = $(TUTORIAL) profile --arch $(PROFILE_ARCH) --ncu $(PROFILE_NCU) $(if $(MEASURED),--measured $(MEASURED))
.PHONY: profile profile-probe test-profile profile-tables
profile: $(foreach n,$(PROFILE_SELECTED),$(BIN)/chapter$(n)-profile $(PROFILE_OUT)/chapter$(n)-$(PROFILE_ARCH).ptxas.txt)
	$(call predictions,$(foreach n,$(PROFILE_SELECTED),build/emu/$(TREE)/bin/chapter$(n)-profile))
	@$(PROFILE) $(SELECTED)
profile-probe: $(BUILD)/bin/profile-probe build/profile/probe-$(PROFILE_ARCH).ptxas.txt
	$(call predictions,build/emu/bin/profile-probe)
	@$(PROFILE) --probe
# The lessons' profile tables, from the solutions' predictions on the CPU: anyone can remake them.
# `make chapterN profile-tables`: chapter N's alone, profiling it and the chapters its table compares with.
PROFILE_TABLES = python3 -m tools.tutorial --backend emu --tree solutions profile-tables --dir build/profile/solutions
profile-tables:
	+@$(if $(NAMED),needed=$$($(PROFILE_TABLES) --needed $(NAMED)) && )$(MAKE) profile BACKEND=emu SOLUTIONS=1 $(if $(NAMED),$$needed)
	@$(PROFILE_TABLES) --write $(NAMED)
# ---- make chapterN sass: the memory and barrier instructions nvcc makes of each kernel --------
# Each .cu file of the chapter, for PROFILE_ARCH: a cubin, whose SASS cuobjdump lists, where
# cuobjdump is installed; else its PTX (nvcc -ptx), which the listing says it is. Counted by
# tools/tutorial/sass.py.
ifeq ($(origin CUOBJDUMP),undefined)  # CUOBJDUMP=/path/to/cuobjdump: one outside the PATH
  CUOBJDUMP := $(if $(HAVE_NVCC),$(or $(shell command -v cuobjdump 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/cuobjdump)))
endif
SASS_OUT = build/sass/$(TREE)
SASS_KIND := $(if $(CUOBJDUMP),cubin,ptx)
sass_files_of = $(patsubst $(TREE)/%.cu,$(SASS_OUT)/%-$(PROFILE_ARCH).$(SASS_KIND),$(wildcard $(TREE)/$(call folder_of,$(1))/*.cu))
sass_compile = $(call run_compiler,NVCC  $< ($(PROFILE_ARCH)$(comma) $(1)),$(NVCC) $(call chapter_flags,$<) -std=c++17 -arch=$(PROFILE_ARCH) \
                 $(SHARED_INCLUDES) $(NVCCFLAGS) -$(1) $< -o $@)
$(SASS_OUT)/%-$(PROFILE_ARCH).$(SASS_KIND): $(TREE)/%.cu $(FLAGS_RECORD) $$(call chapter_record,$(TREE)/$$*)
	$(call sass_compile,$(SASS_KIND))
.PHONY: sass
sass: $(if $(HAVE_NVCC),$(foreach n,$(SELECTED),$(call sass_files_of,$(n))))
	@$(TUTORIAL) sass --arch $(PROFILE_ARCH) $(if $(CUOBJDUMP),--cuobjdump $(CUOBJDUMP)) $(if $(HAVE_NVCC),,--no-nvcc) $^
