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
PROFILE_OUT := build/profile
PROFILE_EMU := build/emu/profile
PROFILE_NCU ?= ncu
# The counters, with the names Nsight Compute uses on Hopper (checked on an H200).
PROFILE_METRICS := l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,$\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,$\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,$\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,$\
sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,$\
sm__maximum_warps_per_active_cycle_pct,launch__occupancy_limit_registers,launch__registers_per_thread,$\
launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks

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

PROFILE_DRIVER := profile/driver.cpp profile/report.cpp

ifeq ($(BACKEND),emu)
# The profiler's tests: purpose-written kernels (tests/profile_kernels/) compiled for
# counting, and the occupancy calculator.
$(BUILD)/bin/profile-tests: $(BUILD)/tests/profile.o $(PROFILE_EMU)/tests/profile_kernels/traffic_kernels.o \
                            $(COMMON_OBJECTS) $(HARNESS_OBJECTS) $(BACKEND_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	@$(CXX) $^ $(LDLIBS) -o $@
$(BUILD)/tests/profile.o: CXXFLAGS += -DEMU_BACKEND_TRAFFIC -Itests
else
$(BUILD)/bin/profile-tests: $(BUILD)/tests/profile.o $(COMMON_OBJECTS) $(HARNESS_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	@$(CXX) $^ $(LDLIBS) -o $@
endif

.PHONY: test-profile
test-profile: $(BUILD)/bin/profile-tests
	@TUTORIAL_SEED=$(SEED) ./$< $(ARGS)
