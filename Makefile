# The tutorial's user interface.  Start with `make help`.
#
# A student's loop is `make chapterN test`: build chapter N from chapters/ and run
# its tests.  SOLUTIONS=1 does the same with the reference solutions in solutions/.
# Everything is built under build/, one folder per source tree, so the two never mix.

SHELL := bash
.DEFAULT_GOAL := help
.SUFFIXES:
MAKEFLAGS += --no-builtin-rules --no-print-directory

include mk/toolchain.mk

# ---- The chapters --------------------------------------------------------------
# chapters/chapters.txt is the one list of chapters: number, folder, title.
CHAPTER_LIST := chapters/chapters.txt
CHAPTERS := $(shell awk '!/^\#/ && NF {print $$1}' $(CHAPTER_LIST))
chapter_folder = $(shell awk '$$1 == "$(1)" {print $$2}' $(CHAPTER_LIST))
chapter_title = $(shell awk '$$1 == "$(1)" {$$1 = $$2 = ""; sub(/^ +/, ""); print}' $(CHAPTER_LIST))

# `make chapter2 test` names chapter 2; a goal without chapterN means all of them.
NAMED_CHAPTERS := $(patsubst chapter%,%,$(filter chapter%,$(MAKECMDGOALS)))
UNKNOWN_CHAPTERS := $(filter-out $(CHAPTERS),$(NAMED_CHAPTERS))
ifneq ($(UNKNOWN_CHAPTERS),)
  $(error There is no chapter$(firstword $(UNKNOWN_CHAPTERS)); the chapters are: $(addprefix chapter,$(CHAPTERS)))
endif
SELECTED := $(if $(NAMED_CHAPTERS),$(NAMED_CHAPTERS),$(CHAPTERS))

# status, hint, solution, reset, grade. Included here because it says which goals
# only name a chapter (WORKFLOW_GOALS, used by the chapter rules below).
include mk/workflow.mk

# ---- Where sources come from and builds go ---------------------------------------
TREE := $(if $(filter 1,$(SOLUTIONS)),solutions,chapters)
# The backend runs the kernels: cuda on the GPU, emu on the CPU (mk/emu.mk). Unless
# BACKEND is given, mk/toolchain.mk picks cuda when a GPU is usable, else emu.
BACKEND ?= $(DEFAULT_BACKEND)
BUILD := build/$(BACKEND)
BIN := $(BUILD)/$(TREE)/bin

# Each chapter's API header lives once, in chapters/, for skeleton and solution alike.
INCLUDES := -Icommon -Itests/harness $(foreach n,$(CHAPTERS),-Ichapters/$(call chapter_folder,$(n)))
CXXFLAGS ?= -O2 -g
# Where cuda_runtime.h comes from and what programs link with; mk/emu.mk sets both
# (and BACKEND_OBJECTS, its runtime) for BACKEND=emu.
BACKEND_CXXFLAGS := -isystem $(CUDA_HOME)/include
BACKEND_LDLIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart
CXXFLAGS += -std=c++17 -Wall -Wextra -MMD -MP $(BACKEND_CXXFLAGS) $(INCLUDES) $(CATCH_CFLAGS)
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 $(ARCH_FLAGS) -MMD -MP -Xcompiler -Wall $(INCLUDES)
LDLIBS = $(BACKEND_LDLIBS) $(CATCH_LIBS)

COMMON_OBJECTS := $(patsubst common/%.cpp,$(BUILD)/common/%.o,$(wildcard common/*.cpp))
HARNESS_OBJECTS := $(patsubst tests/harness/%.cpp,$(BUILD)/harness/%.o,$(wildcard tests/harness/*.cpp))

# ---- Compiling ---------------------------------------------------------------------
# Every object depends on the compiler flags, recorded in a file that only changes
# when they do: ARCH=sm_90 after a default build rebuilds, a repeated build does not.
FLAGS_RECORD := $(BUILD)/compile-flags.txt
$(FLAGS_RECORD): FORCE
	@mkdir -p $(@D)
	@echo '$(NVCC) $(NVCCFLAGS) | $(CXX) $(CXXFLAGS)' | cmp -s - $@ || echo '$(NVCC) $(NVCCFLAGS) | $(CXX) $(CXXFLAGS)' > $@

# A .cu file is compiled by nvcc; mk/emu.mk has the CPU backend's rule instead.
ifeq ($(BACKEND),cuda)
$(BUILD)/%.o: %.cu $(FLAGS_RECORD)
	@mkdir -p $(@D)
	@echo "  NVCC  $<"
	@$(NVCC) $(NVCCFLAGS) -c $< -o $@
endif

$(BUILD)/common/%.o: common/%.cpp $(FLAGS_RECORD)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/harness/%.o: tests/harness/%.cpp $(FLAGS_RECORD)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/demos/%.o: demos/%.cpp $(FLAGS_RECORD)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.cpp $(FLAGS_RECORD)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	@$(CXX) $(CXXFLAGS) -c $< -o $@

# The CPU backend: its runtime, the translation of .cu files, its own tests.
include mk/emu.mk

# ---- One set of rules per chapter -----------------------------------------------------
# For chapter $(1) in folder $(2): its kernels from the chosen tree, linked with its
# tests, common/ and the test harness into $(BIN)/chapter$(1)-tests.
define CHAPTER_RULES
CHAPTER$(1)_OBJECTS := $(patsubst %.cu,$(BUILD)/%.o,$(wildcard $(TREE)/$(2)/*.cu))

$(BIN)/chapter$(1)-tests: $$(CHAPTER$(1)_OBJECTS) $(BUILD)/tests/$(2).o $(COMMON_OBJECTS) $(HARNESS_OBJECTS) $(BACKEND_OBJECTS)
	@mkdir -p $$(@D)
	@echo "  LINK  $$@"
	@$(CXX) $$^ $(LDLIBS) -o $$@

# The chapter's demo, when it has one: demos/$(2).cpp.
ifneq ($(wildcard demos/$(2).cpp),)
$(BIN)/chapter$(1)-demo: $$(CHAPTER$(1)_OBJECTS) $(BUILD)/demos/$(2).o $(COMMON_OBJECTS) $(BACKEND_OBJECTS)
	@mkdir -p $$(@D)
	@echo "  LINK  $$@"
	@$(CXX) $$^ $(LDLIBS) -o $$@
CHAPTER$(1)_DEMO := $(BIN)/chapter$(1)-demo
endif

# `make chapter2 hint` and the other workflow goals name the chapter without building it.
.PHONY: chapter$(1)
chapter$(1): $(if $(WORKFLOW_GOALS),,$(BIN)/chapter$(1)-tests $$(CHAPTER$(1)_DEMO))
endef
$(foreach n,$(CHAPTERS),$(eval $(call CHAPTER_RULES,$(n),$(call chapter_folder,$(n)))))

$(BUILD)/bin/common-tests: $(BUILD)/tests/common.o $(COMMON_OBJECTS) $(HARNESS_OBJECTS) $(BACKEND_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	@$(CXX) $^ $(LDLIBS) -o $@

# Benchmarks, compute-sanitizer runs and the results page (they use the rules above).
include mk/bench.mk

# The memory-traffic profiler: make chapterN profile, make profile, make test-profile.
include mk/profile.mk

# ---- Targets for people ---------------------------------------------------------------
#: make chapterN test       build chapter N from chapters/ and run its tests
#: make chapterN            build chapter N only
#: make test                build and test every chapter (and common/)
#: ... SOLUTIONS=1          the same, with the reference solutions in solutions/
#: ... SEED=n               make the random test inputs from seed n (the default is fixed)
#: ... ARGS='...'           pass options to the Catch2 test runner, e.g. ARGS=--success
#: make chapterN run        build chapter N and run its demo (ARGS='...' passes options to it)
#: ... IMAGE=photo.pgm      chapter 3's demo blurs this 8-bit grayscale PGM instead of a test image
#: make check               the maintainer's gate: solutions pass, skeletons fail (CI runs it)
#: make setup               install what is missing (Catch2, Doxygen, Graphviz) or say what to install
#: make clean               delete build/, except the backups that reset made
#: make help                this list

# Without a chapter named, the backend's own tests run too (BACKEND_TEST_BINARIES, mk/emu.mk).
TEST_BINARIES := $(if $(NAMED_CHAPTERS),,$(BUILD)/bin/common-tests $(BACKEND_TEST_BINARIES)) $(foreach n,$(SELECTED),$(BIN)/chapter$(n)-tests)

# Each run also leaves its counts in <binary>.results for mk/workflow.mk (status,
# solution, grade); tests/harness/results_file.cpp writes it.
.PHONY: test
test: $(TEST_BINARIES)
	@failed=0; \
	for binary in $^; do \
	  echo "== $$binary ($(TREE), backend $(BACKEND))"; \
	  TUTORIAL_SEED=$(SEED) TUTORIAL_RESULTS_FILE=$$binary.results ./$$binary $(ARGS) || failed=1; \
	done; \
	exit $$failed

# IMAGE=file, when given, is the demo's first argument (chapter 3 reads it as a PGM).
.PHONY: run
run:
	@if [ "$(words $(NAMED_CHAPTERS))" != 1 ]; then echo "Name one chapter: make chapter1 run"; exit 1; fi
	@demo=$(BIN)/chapter$(NAMED_CHAPTERS)-demo; \
	if [ ! -f demos/$(call chapter_folder,$(NAMED_CHAPTERS)).cpp ]; then echo "Chapter $(NAMED_CHAPTERS) has no demo."; exit 1; fi; \
	$(MAKE) $$demo && TUTORIAL_SEED=$(SEED) ./$$demo $(if $(IMAGE),'$(IMAGE)') $(ARGS)

.PHONY: test-common
test-common: $(BUILD)/bin/common-tests
	@TUTORIAL_SEED=$(SEED) ./$< $(ARGS)

.PHONY: check
check:
	@bash tools/check.sh

.PHONY: setup
setup:
	@bash tools/setup.sh

.PHONY: clean
clean:
	@# build/backups holds what `make chapterN reset` saved of a student's work: never delete it.
	@find build -mindepth 1 -maxdepth 1 ! -name backups -exec rm -rf {} + 2>/dev/null; true

.PHONY: help
help:
	@echo "CUDA shared-memory tutorial. The chapters:"
	@awk '!/^#/ && NF {n = $$1; $$1 = $$2 = ""; sub(/^ +/, ""); printf "  chapter%-3s %s\n", n, $$0}' $(CHAPTER_LIST)
	@echo
	@echo "Targets:"
	@sed -n 's/^#: /  /p' $(MAKEFILE_LIST)
	@echo
	@echo "Building for $(ARCH_DESCRIPTION); Catch2 version $(CATCH_VERSION)."

.PHONY: FORCE
FORCE:

# The course site (make docs): its own file, since it reads the chapter list above.
include mk/docs.mk

-include $(shell find build -name '*.d' 2>/dev/null)
