# The CPU backend (BACKEND=emu): the chapters' .cu files, unchanged, compiled by g++ and
# run on the CPU, one fiber per CUDA thread, with checks a GPU does not make (barriers,
# bounds, thread order). docs/cpu-backend.md explains it; the code is in emu/.
# Included by the Makefile for BACKEND=emu: it sets BACKEND_CXXFLAGS, BACKEND_LDLIBS and
# BACKEND_LIBRARY (the runtime, linked as objects), and the rule that builds a .cu file.

#: ... BACKEND=emu          run the kernels on the CPU (the default without a GPU); BACKEND=cuda: on the GPU
#: ... SCHEDULE=...         CPU backend: the thread orders of each launch (default forward,reverse; random:SEED)
#: make test-emu            CPU backend: its own tests, with a planted bug for each thing it catches


EMU_TRANSLATOR := $(BUILD)/tools/cu2cpp
BACKEND_CXXFLAGS := -Iemu/include
BACKEND_LIBRARY := $(patsubst emu/src/%.cpp,$(BUILD)/emu/%.o,$(wildcard emu/src/*.cpp))
BACKEND_TEST_BINARIES := $(BUILD)/bin/emu-tests

# Fibers: Boost.Context when installed (make setup installs it), else glibc's ucontext,
# which works too but switches much more slowly. Its header comes with every Boost
# package, its library only with libboost-context-dev: look for both.
EMU_BOOST_CONTEXT := $(and $(wildcard /usr/include/boost/context/fiber.hpp /usr/local/include/boost/context/fiber.hpp),\
                           $(filter /%,$(shell $(CXX) -print-file-name=libboost_context.so)))
ifneq ($(EMU_BOOST_CONTEXT),)
  EMU_FIBER_FLAGS := -DEMU_FIBERS_BOOST
  BACKEND_LDLIBS := -lboost_context -pthread
else
  EMU_FIBER_FLAGS :=
  BACKEND_LDLIBS := -pthread
endif

# A .cu file goes through emu/tools/cu2cpp.cpp, which rewrites launches, __shared__
# declarations and kernel pointer parameters, and keeps every line where it was behind
# a #line directive: compile errors name the .cu file and its line. As nvcc does for
# host code, only -Wall: no warnings for unused parameters of unfinished kernels, nor
# for comparing threadIdx.x (unsigned) with an int size, nor for #pragma unroll.
# Stack clash protection touches every page of a large stack frame in turn, so a CUDA
# thread that overflows its fiber's stack always hits the guard page and is reported.
EMU_KERNEL_CXXFLAGS := -Wno-unused-parameter -Wno-sign-compare -Wno-unknown-pragmas -fstack-clash-protection

$(EMU_TRANSLATOR): emu/tools/cu2cpp.cpp
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) -std=c++17 -O2 -Wall -Wextra $< -o $@

$(BUILD)/%.cu.cpp: %.cu $(EMU_TRANSLATOR)
	@mkdir -p $(@D)
	@$(EMU_TRANSLATOR) $< $@
.PRECIOUS: $(BUILD)/%.cu.cpp

# g++ accepts what nvcc refuses (a kernel calling a host-only function, say), so the
# chapters' .cu files are also compiled by nvcc, for one architecture, whenever nvcc is
# installed: a file nvcc rejects fails the build here too, with nvcc's file(line): error.
# Its object is thrown away; the stamp records that nvcc accepted the file. (Not the
# backend's planted-bug tests, which use what only the CPU backend has.)
NVCC_CHECK_ARCH ?= sm_90
HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)
nvcc_check_of = $(if $(HAVE_NVCC),$(if $(filter tests/emu_planted/%,$(1)),,$(BUILD)/$(1).nvcc-ok))
ifeq ($(HAVE_NVCC),)
  BACKEND_CHOICE += Without nvcc, nobody checks that nvcc would compile your .cu files: install the CUDA Toolkit for that.
endif

$(BUILD)/%.nvcc-ok: %.cu $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,NVCC  $< (check only$(comma) $(NVCC_CHECK_ARCH)),$(NVCC) -std=c++17 -arch=$(NVCC_CHECK_ARCH) $(call chapter_flags,$<) $(SHARED_INCLUDES) -MMD -MP -MF $@.d -MT $@ -c $< -o $@.o,)
	@rm -f $@.o && touch $@

$(BUILD)/%.o: $(BUILD)/%.cu.cpp $$(call nvcc_check_of,$$*) $(FLAGS_RECORD) $$(call chapter_record,$$*) mk/emu.mk
	$(call run_compiler,CXX   $*.cu (for the CPU),$(CXX) $(call chapter_flags,$*) $(BUILD_CXXFLAGS) $(CXXFLAGS) $(EMU_KERNEL_CXXFLAGS) -iquote $(dir $*) -c $< -o $@,$<)

# Installing or removing Boost.Context switches the fibers: rebuild the runtime then.
EMU_FIBER_RECORD := $(BUILD)/emu/fibers.txt
$(EMU_FIBER_RECORD): FORCE
	@mkdir -p $(@D)
	@echo '$(EMU_FIBER_FLAGS)' | cmp -s - $@ || echo '$(EMU_FIBER_FLAGS)' > $@

$(BUILD)/emu/%.o: emu/src/%.cpp $(FLAGS_RECORD) $(EMU_FIBER_RECORD) mk/emu.mk
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(BUILD_CXXFLAGS) $(CXXFLAGS) $(EMU_FIBER_FLAGS) -c $< -o $@

# The backend's own tests: kernels with planted bugs, each of which must be reported
# with its diagnostic, beside correct twins that must pass under every schedule.
EMU_PLANTED_OBJECTS := $(patsubst %.cu,$(BUILD)/%.o,$(wildcard tests/emu_planted/*.cu))
$(BUILD)/bin/emu-tests: $(BUILD)/tests/emu.o $(EMU_PLANTED_OBJECTS) $(HARNESS_OBJECTS) $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)

.PHONY: test-emu
test-emu: $(BUILD)/bin/emu-tests
	@./$< $(ARGS)

# SCHEDULE=... reaches the programs as EMU_SCHEDULE (emu/include/emu/control.h).
ifdef SCHEDULE
  export EMU_SCHEDULE := $(SCHEDULE)
endif

