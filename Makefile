# The tutorial's build graph; `make help` lists the targets (tools/tutorial/help.txt). Each verb that runs
# what was built (status, grade, bench, profile, roofline, ...) is one call of the Python package.
SHELL := bash
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:  # keep every object: a student's next build recompiles only what changed
MAKEFLAGS += --no-builtin-rules --no-print-directory
.SECONDEXPANSION:  # a chapter's prerequisites name $$* (its number)
# One job per core unless make -jN or JOBS=N: a first build is 2-4 times faster.
MAKEFLAGS += $(if $(filter 0,$(MAKELEVEL)),-j$(or $(JOBS),$(shell nproc 2>/dev/null || echo 2)))
comma := ,
space := $() $()
# ---- The toolchain: nvcc, the GPU architecture, the default backend, Catch2 ----------------
NVCC ?= nvcc
HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(HAVE_NVCC))
CUDA_HOME := $(or $(CUDA_HOME),/usr/local/cuda)
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))
# ARCH=sm_90a wins; else the GPU here; else all CUDA 13 supports, so that no GPU's compile errors hide.
# Compute capability 9.0 is built as sm_90a, its arch-specific features (wgmma, chapter 10's 10c),
# which run on 9.0 only: what was detected, or the 9.0 entry of the list.
FALLBACK_ARCHS := 75 80 86 89 90a 100 120
DETECTED_ARCH := $(patsubst 90,90a,$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. '))
$(if $(or $(filter-out sm_%,$(ARCH)),$(word 2,$(ARCH))),$(error ARCH=$(ARCH): name one architecture, sm_ and its compute capability, as in ARCH=sm_90a))
# The architectures built (their numbers), chosen here only. Each is its machine code alone:
# nvcc's -arch=sm_90a would also compile the kernels a second time, to compute_90 PTX for GPUs
# it was not built for, which doubles the device compile.
ARCH_NUMBERS := $(or $(patsubst sm_%,%,$(ARCH)),$(DETECTED_ARCH),$(FALLBACK_ARCHS))
ARCH_FLAGS := $(foreach a,$(ARCH_NUMBERS),-gencode arch=compute_$(a),code=sm_$(a))
ARCH_DESCRIPTION := sm_$(subst $(space),$(comma)sm_,$(ARCH_NUMBERS)) $\
  ($(if $(ARCH),from ARCH=,$(if $(DETECTED_ARCH),the GPU in this machine,no GPU found; set ARCH=sm_XY to choose)))
DEFAULT_BACKEND := $(if $(and $(DETECTED_ARCH),$(HAVE_NVCC)),cuda,emu)
DEFAULT_BACKEND_REASON := $(if $(DETECTED_ARCH),$(if $(HAVE_NVCC),a CUDA device was found,there is a GPU but no nvcc),no CUDA device was found)
# Catch2 3 is a library pkg-config knows as catch2-with-main; 2 is the header catch2/catch.hpp.
CATCH_VERSION := $(if $(shell pkg-config --exists catch2-with-main 2>/dev/null && echo yes),3,$\
                   $(if $(wildcard /usr/include/catch2/catch.hpp /usr/local/include/catch2/catch.hpp),2,none))
CATCH_CFLAGS := $(if $(filter 3,$(CATCH_VERSION)),-DTUTORIAL_CATCH2_V3 $(shell pkg-config --cflags catch2))
CATCH_LIBS := $(if $(filter 3,$(CATCH_VERSION)),$(shell pkg-config --libs catch2))
# ---- The chapters: chapters/registry, "number folder [key=value ...] title" a line -----------
# The only place make reads it. borrows_of: the chapters whose solutions its benchmark times;
# occupancy_of: yes when its code asks the occupancy API (its CPU build keeps ptxas' report, mk/emu.mk).
REGISTRY := $(shell awk '!/^\#/ && NF { b = "-"; o = "no"; for (i = 3; i <= NF && $$i ~ /=/; i++) { \
              if ($$i ~ /^borrows=/) b = substr($$i, 9); if ($$i ~ /^occupancy=/) o = substr($$i, 11) } \
              print $$1 ":" $$2 ":" b ":" o }' chapters/registry)
CHAPTERS := $(foreach entry,$(REGISTRY),$(firstword $(subst :, ,$(entry))))
registry_field = $(word $(2),$(subst :, ,$(filter $(1):%,$(REGISTRY))))
folder_of = $(call registry_field,$(1),2)
borrows_of = $(filter-out -,$(subst $(comma), ,$(call registry_field,$(1),3)))
occupancy_of = $(call registry_field,$(1),4)
# `make chapter2 test` names chapter 2 for the verb; no chapter named means every chapter.
NAMED := $(patsubst chapter%,%,$(filter chapter%,$(MAKECMDGOALS)))
ifneq ($(filter-out $(CHAPTERS),$(NAMED)),)
  $(error There is no chapter$(firstword $(filter-out $(CHAPTERS),$(NAMED))); the chapters are: $(addprefix chapter,$(CHAPTERS)))
endif
SELECTED := $(or $(NAMED),$(CHAPTERS))
VERBS := $(filter-out chapter%,$(MAKECMDGOALS))
with_file = $(foreach n,$(SELECTED),$(if $(wildcard chapters/$(call folder_of,$(n))/$(1)),$(n)))
# ---- Where sources come from and builds go; the flags -----------------------------------------
TREE := $(if $(filter 1,$(SOLUTIONS)),solutions,chapters)
BACKEND ?= $(DEFAULT_BACKEND)
BUILD := build/$(BACKEND)
BIN := $(BUILD)/$(TREE)/bin
# Yours come after what the build needs: CXXFLAGS=-O0 changes the optimisation and nothing else.
CXXFLAGS ?= -O2 -g
NVCCFLAGS ?= -O3 -lineinfo
SHARED_INCLUDES := -Igpu_model/include -Icommon -Iharness
BUILD_CXXFLAGS = -std=c++17 -Wall -Wextra -MMD -MP $(BACKEND_CXXFLAGS) $(SHARED_INCLUDES) $(CATCH_CFLAGS)
BUILD_NVCCFLAGS = -std=c++17 $(ARCH_FLAGS) -MMD -MP -Xcompiler -Wall $(SHARED_INCLUDES)
# A chapter sees only itself: a file of chapter N (chapters/ or solutions/) gets chapters/NN-name
# on the include path, its number and folder (the one way its identity reaches C++: tutorial_chapter.h),
# and, for bench.cpp only, the folders of the chapters it borrows.
chapter_in = $(firstword $(foreach n,$(CHAPTERS),$(if $(findstring /$(call folder_of,$(n))/,/$(1)),$(n))))
chapter_flags_of = -Ichapters/$(call folder_of,$(1)) -DTUTORIAL_CHAPTER=$(1) -DTUTORIAL_CHAPTER_FOLDER='"$(call folder_of,$(1))"'
chapter_flags = $(if $(call chapter_in,$(1)),$(call chapter_flags_of,$(call chapter_in,$(1))) \
                  $(if $(filter bench.cpp,$(notdir $(1))),$(foreach b,$(call borrows_of,$(call chapter_in,$(1))),-Ichapters/$(call folder_of,$(b)))))
# Objects depend on records, rewritten only when they change, of the flags and of their chapter's registry line.
chapter_record = $(if $(call chapter_in,$(1)),$(BUILD)/chapter-flags/$(call folder_of,$(call chapter_in,$(1))).txt)
registry_facts_of = $(strip $(foreach n,$(CHAPTERS),$(if $(filter $(1),$(call folder_of,$(n))),$(n) $(call borrows_of,$(n))$(if $(filter yes,$(call occupancy_of,$(n))), occupancy=yes))))
FLAGS_RECORD := $(BUILD)/compile-flags.txt
record = @mkdir -p $(@D) && { echo '$(1)' | cmp -s - $@ || echo '$(1)' >$@; }
$(BUILD)/chapter-flags/%.txt: FORCE
	$(call record,$(call registry_facts_of,$*))
$(FLAGS_RECORD): FORCE
	$(call record,$(NVCC) $(BUILD_NVCCFLAGS) $(NVCCFLAGS) | $(CXX) $(BUILD_CXXFLAGS) $(CXXFLAGS))
# ---- One rule per kind of source: objects mirror the sources under $(BUILD)/ -------------------
# run_compiler LABEL, COMMAND[, SOURCE]: the messages in one piece, so that parallel compiles never mix
# (nvcc's paragraphs once: it repeats them per architecture); SOURCE's command goes to COMPILE_DB.
unique_paragraphs := awk 'BEGIN { RS = ""; ORS = "\n\n" } !seen[$$0]++'
# say LABEL: the target's folder made and its build line printed, counted (BUILD_LINES) for the test verb's one screen.
say = $(eval BUILD_LINES += 1)@mkdir -p $(@D) && echo "  $(1)"
run_compiler = $(call say,$(1)) && \
	{ messages=$$($(2) 2>&1); status=$$?; [ -z "$$messages" ] || printf '%s\n' "$$messages" | \
	  $(if $(filter NVCC%,$(1)),$(unique_paragraphs),cat); \
	  $(if $(3),mkdir -p $(COMPILE_DB)/$(dir $(3)) && printf '%s\n' $(3) $(2) >$(COMPILE_DB)/$(3).args;) exit $$status; }
COMPILE_DB := build/$(BACKEND)/compile_commands
compile_commands.json:  # only when missing: each link updates it
	@python3 tools/compile_db.py $(COMPILE_DB) >/dev/null 2>&1 || true
$(BUILD)/%.o: %.cpp $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,CXX   $<,$(CXX) $(call chapter_flags,$<) $(BUILD_CXXFLAGS) $(CXXFLAGS) -c $< -o $@,$<)
ifeq ($(BACKEND),cuda)
$(BUILD)/%.o: %.cu $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,NVCC  $<,$(NVCC) $(call chapter_flags,$<) $(BUILD_NVCCFLAGS) $(NVCCFLAGS) -c $< -o $@,$<)
endif
$(BUILD)/%.a:
	$(call say,AR    $@) && rm -f $@ && ar rcs $@ $^
# Link the prerequisites, in one group the linker scans again for what later objects need (each library
# named once); $(1): libraries that come before the usual ones. The floor, gpu_model, is a prerequisite
# of every program and is linked once, last (LDLIBS), below everything that uses it.
link = $(call say,LINK  $@) && $(CXX) $(LDFLAGS) -Wl,--start-group $(filter-out $(GPU_MODEL_LIBRARY),$^) $(1) \
       -Wl,--end-group $(LDLIBS) -o $@ && \
       { python3 tools/compile_db.py $(COMPILE_DB) >/dev/null 2>&1 || true; }
# ---- Libraries: gpu_model/ under everything, common/ for every chapter, common/gemm/ for the GEMM chapters
objects_of = $(patsubst %.cpp,$(BUILD)/%.o,$(patsubst %.cu,$(BUILD)/%.o,$(1)))
# The floor that the CPU backend and the profiler both stand on: the occupancy calculator and the
# traffic counters. It includes nothing above it, so it is linked once, after the backend.
GPU_MODEL_LIBRARY := $(BUILD)/libgpu_model.a
$(GPU_MODEL_LIBRARY): $(call objects_of,$(wildcard gpu_model/src/*.cpp))
COMMON_LIBRARY := $(BUILD)/libcommon.a
GEMM_LIBRARY := $(BUILD)/libgemm.a
$(COMMON_LIBRARY): $(call objects_of,$(wildcard common/*.cpp common/*.cu))
$(GEMM_LIBRARY): $(call objects_of,$(filter-out %_benchmark.cpp,$(wildcard common/gemm/*.cpp)))
# The harness is linked as objects: its Catch2 listeners register themselves.
HARNESS_OBJECTS := $(call objects_of,$(wildcard harness/*.cpp))
# Shared code without -g (a third of a first build); Catch2 2's runner (main.cpp), the slowest file, at -O0.
$(BUILD)/harness/%.o $(BUILD)/common/%.o $(BUILD)/emu/%.o $(BUILD)/gpu_model/%.o: private CXXFLAGS := $(filter-out -g%,$(CXXFLAGS))
$(BUILD)/harness/main.o: private CXXFLAGS := $(filter-out -O% -g%,$(CXXFLAGS)) -O0
# ---- The backend: cuda (the GPU) or emu (the CPU, mk/emu.mk) -----------------------------------
BACKEND_CHOICE := Backend: $(BACKEND)$(if $(filter file,$(origin BACKEND)),$(comma) because $(DEFAULT_BACKEND_REASON) $\
                  (choose with BACKEND=cuda or BACKEND=emu).,$(space)(from BACKEND=$(BACKEND)).)
ifeq ($(BACKEND),cuda)
  BACKEND_CXXFLAGS := -isystem $(CUDA_HOME)/include
  BACKEND_LDLIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart
  # A chapter's test program hands out only the driver functions the exercises use
  # (harness/driver_entry_points.cpp).
  BACKEND_TEST_LDFLAGS := -Wl,--wrap=cudaGetDriverEntryPointByVersion -Wl,--wrap=cudaGetDriverEntryPoint
  test-emu:
	@echo "The CPU backend's tests run with BACKEND=emu: make test-emu BACKEND=emu"
else ifeq ($(BACKEND),emu)
  include mk/emu.mk
else
  $(error BACKEND=$(BACKEND) is not a backend; use BACKEND=cuda (the GPU) or BACKEND=emu (the CPU))
endif
LDLIBS += $(GPU_MODEL_LIBRARY) $(BACKEND_LDLIBS) $(CATCH_LIBS)
ifeq ($(MAKELEVEL),0)
  ifneq ($(filter-out chapter% help print-backend print-build clean setup check check-fast hint solution reset skeletons watch classroom bench sanitize sass,$(or $(MAKECMDGOALS),help)),)
    $(info $(BACKEND_CHOICE))
  endif
  # Say what takes long: a first build compiles what every chapter shares, once.
  ifneq ($(and $(if $(wildcard $(COMMON_LIBRARY)),,first),$(or $(filter test run grade status test-% profile bench-binaries,$(VERBS)),$(if $(VERBS),,$(NAMED)))),)
    $(info First build here: the shared library, the test harness$(if $(BACKEND_LIBRARY), and the CPU backend's runtime) come first, about 35 files, once (Catch2's runner, harness/main.cpp, is the slowest).)
  endif
endif
# ---- A chapter's programs ---------------------------------------------------------------------
# Its folder's .cu files (from TREE), test.cpp, demo.cpp, and its other .cpp files (its CPU reference).
kernels_of = $(call objects_of,$(wildcard $(TREE)/$(call folder_of,$(1))/*.cu))
chapter_code_of = $(call objects_of,$(filter-out %/test.cpp %/demo.cpp %/bench.cpp %/profile.cpp,\
                    $(wildcard chapters/$(call folder_of,$(1))/*.cpp)))
program_of = $(BUILD)/chapters/$(call folder_of,$(1))/$(2).o
# A test program in the groups the object check tells apart (tools/tutorial/guard.py): the student's
# kernels; the program's own parts; what the kernels may call; the backend and the floor under it.
program_parts_of = $(call program_of,$(1),test) $(HARNESS_OBJECTS)
callable_parts_of = $(call chapter_code_of,$(1)) $(GEMM_LIBRARY) $(COMMON_LIBRARY)
BACKEND_PARTS := $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
# The student's objects come after the libraries (link's group finds what they need from them): of what
# both define (an inline function, a template instance) the linker keeps the first copy, never the
# student's (tools/tutorial/guard.py).
$(BIN)/chapter%-tests: private LDFLAGS += $(BACKEND_TEST_LDFLAGS)
$(BIN)/chapter%-tests: $(BUILD)/harness/main.o $$(call program_parts_of,$$*) $$(call callable_parts_of,$$*) $(BACKEND_PARTS) \
                       $$(call kernels_of,$$*)
	$(link)
# The build model as Python reads it (tools/tutorial/course.py's Build asks; it never repeats these
# rules): "bin DIR", then "chapterN GROUP PATH..." a line, for the chapters named (else all).
print-build:
	@echo 'bin $(BIN)'
	@$(foreach n,$(SELECTED),printf 'chapter$(n) %s\n' 'kernel_sources $(wildcard $(TREE)/$(call folder_of,$(n))/*.cu)' \
	  'kernels $(call kernels_of,$(n))' 'program_parts $(call program_parts_of,$(n))' \
	  'callable_parts $(call callable_parts_of,$(n))' 'backend_parts $(BACKEND_PARTS)';)
$(BIN)/chapter%-demo: $$(call kernels_of,$$*) $$(call program_of,$$*,demo) $$(call chapter_code_of,$$*) \
                      $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(link)
$(BUILD)/bin/common-tests: $(patsubst %.cpp,$(BUILD)/%.o,$(wildcard tests/common*.cpp)) $(HARNESS_OBJECTS) $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $(GPU_MODEL_LIBRARY)
	$(link)
# `make chapter2` builds chapter 2; with a verb (`make chapter2 test`) it only names it.
CHAPTER_GOALS := $(addprefix chapter,$(CHAPTERS))
.PHONY: $(CHAPTER_GOALS)
$(CHAPTER_GOALS): chapter%: $(if $(VERBS),,$(BIN)/chapter%-tests $$(if $$(wildcard chapters/$$(call folder_of,$$*)/demo.cpp),$(BIN)/chapter%-demo))
	@:
# ---- Settings: each checked here, once, for every verb, and handed on in the environment ------
# SEED: Catch2's range (the test runner's own seed is ours). TIMEOUT: 0 means no limit.
shell_quote = '$(subst ','\'',$(1))'
ifneq ($(SEED),)
  SEED_CHECK := $(shell [[ $(call shell_quote,$(SEED)) =~ ^[0-9]+$$ ]] && s=$$(echo $(SEED) | sed 's/^0*//') && \
                  { [[ $$s =~ ^[0-9]{0,10}$$ ]] && (( $${s:-0} <= 4294967295 )) && echo ok || echo large; })
  $(if $(filter ok,$(SEED_CHECK)),,$(error SEED=$(SEED) is not a whole number from 0 to 4294967295: $\
    $(if $(SEED_CHECK),it is too large,it has a character other than the digits 0-9) (leave SEED out for the default)))
  export TUTORIAL_SEED := $(SEED)
endif
ifneq ($(TIMEOUT),)
  $(if $(shell [[ $(call shell_quote,$(TIMEOUT)) =~ ^([0-9]+([.][0-9]*)?|[.][0-9]+)$$ ]] && echo number),,$\
    $(error TIMEOUT=$(TIMEOUT) is not a number of seconds (0: no limit; leave TIMEOUT out for 20)))
  export TUTORIAL_TIMEOUT := $(TIMEOUT)
  export EMU_TIMEOUT := $(TIMEOUT)
endif
ifneq ($(and $(filter none,$(CATCH_VERSION)),$(filter chapter% test test-% grade status check watch,$(or $(MAKECMDGOALS),help))),)
  $(error Catch2, the test framework, is not installed: run `make setup` (or install the package catch2))
endif
# With BACKEND=cuda and no GPU the tests would skip every kernel.
ifneq ($(and $(filter cuda,$(BACKEND)),$(filter test grade status run watch,$(MAKECMDGOALS))),)
  ifneq ($(shell bash tools/require-gpu.sh probe cuda >/dev/null && echo yes),yes)
    $(error No CUDA device here (nvidia-smi lists none): use BACKEND=emu to run the kernels on the CPU)
  endif
endif
# ---- The verbs ---------------------------------------------------------------------------------
TUTORIAL = python3 -m tools.tutorial --backend $(BACKEND) --tree $(TREE)
# No chapter named: the library's and backend's tests too. Counts go to <binary>.results (for status);
# the verb keeps each run to one screen, and on a GPU runs compute-sanitizer after passing tests and
# the CPU backend's checks after a failure (tools/tutorial/test_run.py).
TEST_BINARIES := $(if $(NAMED),,$(BUILD)/bin/common-tests $(BACKEND_TEST_BINARIES)) $(foreach n,$(SELECTED),$(BIN)/chapter$(n)-tests)
.PHONY: test run test-common test-emu test-profile test-benchmark status hint solution reset grade release skeletons watch classroom check check-fast setup clean help shared print-backend print-build FORCE
test: $(TEST_BINARIES) | compile_commands.json
	@$(TUTORIAL) test $^ --sanitize-output $(SANITIZE_OUTPUT) --build-lines $(words $(BUILD_LINES)) --args=$(call shell_quote,$(ARGS))
run: $(if $(filter 1,$(words $(NAMED))),$(BIN)/chapter$(NAMED)-demo)
	@if [ "$(words $(NAMED))" != 1 ]; then echo "Name one chapter: make chapter1 run"; exit 1; fi
	@./$< $(if $(IMAGE),'$(IMAGE)') $(ARGS)
# test-common, test-emu, test-profile, test-benchmark: the library's, the backends' and the tools' own tests.
$(filter-out $(if $(filter cuda,$(BACKEND)),test-emu),test-common test-emu test-profile test-benchmark): test-%: $(BUILD)/bin/%-tests
	@./$< $(ARGS)
# One call of the Python package each, with its arguments; status and grade build each chapter on its own.
status watch hint solution reset classroom grade release help:
	@$(TUTORIAL) $@ $($@_arguments)
help_arguments = --arch '$(ARCH_DESCRIPTION)' --catch2 $(CATCH_VERSION)
watch_arguments = $(NAMED) $(if $(SEED),--seed $(SEED))
hint_arguments = $(NAMED) $(if $(filter 1,$(RESTART)),--restart)
solution_arguments = $(NAMED) $(if $(filter 1,$(FORCE)),--force)
reset_arguments = $(NAMED)
classroom_arguments = --write
# GRADE_BASELINE=none: the solutions' objects are no allowance (make check grades the solutions).
GRADE_DIR := build/grade
grade_arguments = --dir $(GRADE_DIR) --seed $(or $(SEED),default) $(if $(filter none,$(GRADE_BASELINE)),--no-baseline) \
  $(if $(GRADE_VISIBILITY),--visibility $(GRADE_VISIBILITY)) $(if $(filter 1,$(FULL_MARKS)),--full-marks) $(SELECTED)
# The solution's run, made once per seed and kept: the graded cases every run must report.
$(BUILD)/solutions/bin/chapter%-tests.expected-seed$(or $(SEED),default): $(BUILD)/solutions/bin/chapter%-tests
	@$(TUTORIAL) judge --binary $< --results $@ --log $@.log
	@grep -q '^state=finished' $@ || { echo "the solution's run did not finish: see $@.log"; rm -f $@; exit 1; }
skeletons:
	@$(TUTORIAL) skeletons --write && $(TUTORIAL) classroom --write
# The student repository, without solutions/, in DIR; then checked: it builds, tests red, grades 0%.
release_arguments = --dir '$(DIR)' $(if $(filter 1,$(NO_CHECK)),--no-check) $(SELECTED)
# check-fast: what a change to a chapter can break, in a minute or two: the chapters named, or those changed.
check check-fast:
	+@bash tools/check.sh $(if $(filter check-fast,$@),--fast $(NAMED))
setup:
	@bash tools/setup.sh
clean:  # never build/backups: what reset saved of a student's work
	@find build -mindepth 1 -maxdepth 1 ! -name backups -exec rm -rf {} + 2>/dev/null; true
shared: $(GPU_MODEL_LIBRARY) $(COMMON_LIBRARY) $(GEMM_LIBRARY) $(HARNESS_OBJECTS) $(BACKEND_LIBRARY) $(EMU_TRANSLATOR)  # make setup builds it
print-backend:  # the backend, why, and the one architecture of single-architecture builds (mk/profile.mk)
	@echo $(BACKEND) && echo '$(BACKEND_CHOICE)' && echo $(PROFILE_ARCH)
FORCE:
include mk/bench.mk mk/profile.mk mk/docs.mk
-include $(shell find build -name '*.d' 2>/dev/null)
