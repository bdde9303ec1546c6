# The CPU backend (BACKEND=emu, docs/cpu-backend.md): the chapters' .cu files, unchanged,
# translated (emu/tools/cu2cpp.cpp), compiled by g++ and run on fibers, one per CUDA thread.
EMU_TRANSLATOR := $(BUILD)/tools/cu2cpp
BACKEND_CXXFLAGS := -Iemu/include
BACKEND_LIBRARY := $(patsubst emu/src/%.cpp,$(BUILD)/emu/%.o,$(wildcard emu/src/*.cpp))
BACKEND_TEST_BINARIES := $(BUILD)/bin/emu-tests
# Fibers: Boost.Context when its library is installed (libboost-context-dev), else the slower ucontext.
EMU_BOOST_CONTEXT := $(and $(wildcard /usr/include/boost/context/fiber.hpp /usr/local/include/boost/context/fiber.hpp),\
                           $(filter /%,$(shell $(CXX) -print-file-name=libboost_context.so)))
EMU_FIBER_FLAGS := $(if $(EMU_BOOST_CONTEXT),-DEMU_FIBERS_BOOST)
# The occupancy API (emu/src/launch.cpp) uses gpu_model/, which the Makefile links last, once.
BACKEND_LDLIBS := $(if $(EMU_BOOST_CONTEXT),-lboost_context) -pthread
# Only -Wall, as nvcc for host code (not unfinished kernels' unused parameters, threadIdx.x < int, ...);
# stack clash protection makes a fiber's stack overflow hit its guard page.
EMU_KERNEL_CXXFLAGS := -Wno-unused-parameter -Wno-sign-compare -Wno-unknown-pragmas -Wno-psabi -fstack-clash-protection
# Installing or removing Boost.Context, or new kernel flags, rebuild what they change.
EMU_FLAGS_RECORD := $(BUILD)/emu/flags.txt
$(EMU_FLAGS_RECORD): FORCE
	$(call record,$(EMU_FIBER_FLAGS) | $(EMU_KERNEL_CXXFLAGS))
$(EMU_TRANSLATOR): emu/tools/cu2cpp.cpp
	$(call say,CXX   $<) && $(CXX) -std=c++17 -O2 -Wall -Wextra $< -o $@
# The translation keeps every line behind a #line: compile errors name the .cu file and line.
$(BUILD)/%.cu.cpp: %.cu $(EMU_TRANSLATOR)
	@mkdir -p $(@D) && $(EMU_TRANSLATOR) $< $@
.PRECIOUS: $(BUILD)/%.cu.cpp
# g++ accepts what nvcc refuses (a kernel calling a host function): where nvcc is, it checks each
# chapter's .cu file too (not the planted bugs, which use what only the CPU backend has).
# A cubin is enough: nvcc's front end reads the whole file (host code too) and ptxas compiles the
# kernels; only the host compiler's pass, which g++ makes of the translation anyway, is left out.
NVCC_CHECK_ARCH ?= sm_90a
nvcc_check_of = $(if $(HAVE_NVCC),$(if $(filter tests/emu_planted/%,$(1)),,$(BUILD)/$(1).nvcc-ok))
BACKEND_CHOICE += $(if $(HAVE_NVCC),,Without nvcc, nobody checks that nvcc would compile your .cu files: install the CUDA Toolkit for that.)
# The occupancy API needs ptxas' registers: for a chapter with occupancy=yes (and the backend's tests of it)
# the check keeps ptxas' report in FILE.ptxas, compiled into the object by a generated header; others pay nothing.
wants_ptxas_report = $(or $(filter tests/occupancy_kernels/%,$(1)),$(if $(call chapter_in,$(1)),$(filter yes,$(call occupancy_of,$(call chapter_in,$(1))))))
ptxas_header_of = $(if $(call wants_ptxas_report,$(1)),$(BUILD)/$(1).ptxas.h)
keep_ptxas_report = $(if $(call wants_ptxas_report,$(1)), --resource-usage >$(2) 2>&1; s=$$?; grep -v -e '^ptxas info' -e '^ *[0-9]* bytes stack frame' $(2); exit $$s)
$(BUILD)/%.nvcc-ok: %.cu $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,NVCC  $< (check only$(comma) $(NVCC_CHECK_ARCH)),$(NVCC) -std=c++17 -arch=$(NVCC_CHECK_ARCH) $(call chapter_flags,$<) $(SHARED_INCLUDES) -MMD -MP -MF $@.d -MT $@ -cubin $< -o $@.cubin$(call keep_ptxas_report,$*,$(BUILD)/$*.ptxas),)
	@rm -f $@.cubin && touch $@
# The header: the report's kernel lines as a string (tools/tutorial/ptxas_header.py); without nvcc, none.
$(BUILD)/%.ptxas.h: $$(call nvcc_check_of,$$*)
	@python3 -m tools.tutorial ptxas-header --source $*.cu $(if $(HAVE_NVCC),--report $(BUILD)/$*.ptxas) --out $@
$(BUILD)/%.o: $(BUILD)/%.cu.cpp $$(call nvcc_check_of,$$*) $$(call ptxas_header_of,$$*) $(FLAGS_RECORD) $$(call chapter_record,$$*) $(EMU_FLAGS_RECORD)
	$(call run_compiler,CXX   $*.cu (for the CPU),$(CXX) $(call chapter_flags,$*) $(BUILD_CXXFLAGS) $(CXXFLAGS) $(EMU_KERNEL_CXXFLAGS) -iquote $(dir $*) $(addprefix -include ,$(call ptxas_header_of,$*)) -c $< -o $@,$<)
$(BUILD)/emu/%.o: emu/src/%.cpp $(FLAGS_RECORD) $(EMU_FLAGS_RECORD)
	$(call say,CXX   $<) && $(CXX) $(BUILD_CXXFLAGS) $(CXXFLAGS) $(EMU_FIBER_FLAGS) -c $< -o $@
# The backend's own tests: planted bugs, each reported, beside correct twins that must pass.
$(BUILD)/bin/emu-tests: $(patsubst %.cpp,$(BUILD)/%.o,$(wildcard tests/emu*.cpp)) $(patsubst %.cu,$(BUILD)/%.o,$(wildcard tests/emu_planted/*.cu)) \
                        $(patsubst %.cu,$(BUILD)/%.o,$(wildcard tests/occupancy_kernels/*.cu)) \
                        $(HARNESS_OBJECTS) $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(link)
$(if $(SCHEDULE),$(eval export EMU_SCHEDULE := $(SCHEDULE)))  # the thread orders (emu/include/emu/control.h)
