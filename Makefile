# The tutorial's user interface.  Start with `make help`.
#
# A student's loop is `make chapterN test`: build chapter N from chapters/ and run its
# tests.  SOLUTIONS=1 does the same with the reference solutions in solutions/.
# Everything is built under build/BACKEND/, so the GPU and CPU builds never mix.

SHELL := bash
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:  # keep every object: a student's next build recompiles only what changed
MAKEFLAGS += --no-builtin-rules --no-print-directory
# Prerequisites may name $$* (the stem): a chapter's programs depend on its number.
.SECONDEXPANSION:
# Build in parallel, one job per core: the first build of a chapter is then 2-4 times
# faster. make -jN or JOBS=N chooses; sub-makes share the top one's jobs. Each compile
# prints its diagnostics in one piece (run_compiler below), so output stays readable.
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(or $(JOBS),$(shell nproc 2>/dev/null || echo 2))
endif

include mk/toolchain.mk  # finds nvcc, the GPU (if any), Catch2, and the default backend

# ---- The chapters ----------------------------------------------------------------------
# chapters/registry is the one list of chapters: "number folder [borrows=N,...] title" per
# line. This is the only place make reads it. CHAPTERS is the numbers; folder_of gives a
# number's folder, borrows_of the chapters whose reference solutions its benchmark times.
REGISTRY := $(shell awk '!/^\#/ && NF { b = ""; for (i = 3; i <= NF && $$i ~ /=/; i++) \
              if ($$i ~ /^borrows=/) b = substr($$i, 9); print $$1 ":" $$2 ":" b }' chapters/registry)
CHAPTERS := $(foreach entry,$(REGISTRY),$(firstword $(subst :, ,$(entry))))
registry_field = $(word $(2),$(subst :, ,$(filter $(1):%,$(REGISTRY))))
folder_of = $(call registry_field,$(1),2)
borrows_of = $(subst $(comma), ,$(call registry_field,$(1),3))

# `make chapter2 test` names chapter 2 for the verb `test`; a verb with no chapter named
# means every chapter.  `make chapter2` alone builds chapter 2.
NAMED := $(patsubst chapter%,%,$(filter chapter%,$(MAKECMDGOALS)))
ifneq ($(filter-out $(CHAPTERS),$(NAMED)),)
  $(error There is no chapter$(firstword $(filter-out $(CHAPTERS),$(NAMED))); the chapters are: $(addprefix chapter,$(CHAPTERS)))
endif
SELECTED := $(or $(NAMED),$(CHAPTERS))
VERBS := $(filter-out chapter%,$(MAKECMDGOALS))

# ---- Where sources come from and builds go ------------------------------------------------
TREE := $(if $(filter 1,$(SOLUTIONS)),solutions,chapters)
BACKEND ?= $(DEFAULT_BACKEND)
BUILD := build/$(BACKEND)
BIN := $(BUILD)/$(TREE)/bin

# ---- Compiler flags ------------------------------------------------------------------------
# What the build needs comes first; your CXXFLAGS, NVCCFLAGS and LDFLAGS are added after it,
# so `make chapter1 test CXXFLAGS=-O0` changes the optimisation and nothing else.
CXXFLAGS ?= -O2 -g
NVCCFLAGS ?= -O3 -lineinfo
# A chapter sees only itself: its folder and the shared library. A file of chapter N (in
# chapters/ or solutions/) is compiled with chapter_flags: chapters/NN-name first on the
# include path (a solution includes its own chapter's header), the chapter's number for
# tutorial_chapter.h, and, for its bench.cpp only, the folders of the chapters it borrows.
SHARED_INCLUDES := -Icommon -Itests/harness
BUILD_CXXFLAGS = -std=c++17 -Wall -Wextra -MMD -MP $(BACKEND_CXXFLAGS) $(SHARED_INCLUDES) $(CATCH_CFLAGS)
BUILD_NVCCFLAGS = -std=c++17 $(ARCH_FLAGS) -MMD -MP -Xcompiler -Wall $(SHARED_INCLUDES)
# chapter_in PATH: the number of the chapter whose folder PATH lies in, if any.
chapter_in = $(firstword $(foreach n,$(CHAPTERS),$(if $(findstring /$(call folder_of,$(n))/,/$(1)),$(n))))
chapter_flags_of = -Ichapters/$(call folder_of,$(1)) -DTUTORIAL_CHAPTER=$(1)
chapter_flags = $(if $(call chapter_in,$(1)),$(call chapter_flags_of,$(call chapter_in,$(1))) \
                  $(if $(filter bench.cpp,$(notdir $(1))),$(foreach b,$(call borrows_of,$(call chapter_in,$(1))),-Ichapters/$(call folder_of,$(b)))))
# A chapter's objects also depend on a record of its flags, rewritten when its registry
# line changes (a new number, a new borrowing), so that only that chapter rebuilds.
chapter_record = $(if $(call chapter_in,$(1)),$(BUILD)/chapter-flags/$(call folder_of,$(call chapter_in,$(1))).txt)
registry_facts_of = $(foreach n,$(CHAPTERS),$(if $(filter $(1),$(call folder_of,$(n))),$(n) $(call borrows_of,$(n))))
$(BUILD)/chapter-flags/%.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(call registry_facts_of,$*)' | cmp -s - $@ || echo '$(call registry_facts_of,$*)' > $@

# ---- One rule per kind of source -------------------------------------------------------------
# Objects mirror the source tree: chapters/02-tiled-gemm/test.cpp -> build/emu/chapters/02-tiled-gemm/test.o.
# Each object also depends on the flags it was built with (FLAGS_RECORD), so changing a
# flag rebuilds and a repeated build does not.
FLAGS_RECORD := $(BUILD)/compile-flags.txt

# run_compiler LABEL, COMMAND: print "  LABEL  source", run the compiler, then its
# messages in one piece, so that files compiled in parallel never mix their errors.
# It also leaves the command, one argument a line, in COMPILE_DB/SOURCE.args ($(3): the
# source), which each link gathers into compile_commands.json, for editors (tools/compile_db.py).
# nvcc compiles a file once per GPU architecture and repeats each warning for each one:
# its messages are printed with every paragraph once (unique_paragraphs).
unique_paragraphs := awk 'BEGIN { RS = ""; ORS = "\n\n" } !seen[$$0]++'
run_compiler = @mkdir -p $(@D) && echo "  $(1)" && \
	{ messages=$$($(2) 2>&1); status=$$?; [ -z "$$messages" ] || printf '%s\n' "$$messages" | \
	  $(if $(filter NVCC%,$(1)),$(unique_paragraphs),cat); \
	  $(if $(3),mkdir -p $(COMPILE_DB)/$(dir $(3)) && printf '%s\n' $(3) $(2) >$(COMPILE_DB)/$(3).args;) exit $$status; }
COMPILE_DB := build/$(BACKEND)/compile_commands
# Only when it is missing (the links keep it up to date otherwise).
compile_commands.json:
	@python3 tools/compile_db.py $(COMPILE_DB) >/dev/null 2>&1 || true

$(BUILD)/%.o: %.cpp $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,CXX   $<,$(CXX) $(call chapter_flags,$<) $(BUILD_CXXFLAGS) $(CXXFLAGS) -c $< -o $@,$<)

ifeq ($(BACKEND),cuda)
$(BUILD)/%.o: %.cu $(FLAGS_RECORD) $$(call chapter_record,$$*)
	$(call run_compiler,NVCC  $<,$(NVCC) $(call chapter_flags,$<) $(BUILD_NVCCFLAGS) $(NVCCFLAGS) -c $< -o $@,$<)
endif

$(BUILD)/%.a:
	@mkdir -p $(@D)
	@echo "  AR    $@"
	@rm -f $@ && ar rcs $@ $^

$(FLAGS_RECORD): FORCE
	@mkdir -p $(@D)
	@echo '$(NVCC) $(BUILD_NVCCFLAGS) $(NVCCFLAGS) | $(CXX) $(BUILD_CXXFLAGS) $(CXXFLAGS)' | cmp -s - $@ || \
	 echo '$(NVCC) $(BUILD_NVCCFLAGS) $(NVCCFLAGS) | $(CXX) $(BUILD_CXXFLAGS) $(CXXFLAGS)' > $@

# Link the prerequisites; $(1), if given, names libraries that come before the usual ones.
link = @mkdir -p $(@D) && echo "  LINK  $@" && $(CXX) $(LDFLAGS) $^ $(1) $(LDLIBS) -o $@ && \
       { python3 tools/compile_db.py $(COMPILE_DB) >/dev/null 2>&1 || true; }

# ---- Libraries ----------------------------------------------------------------------------------
objects_of = $(patsubst %.cpp,$(BUILD)/%.o,$(patsubst %.cu,$(BUILD)/%.o,$(1)))
# common/: what every chapter uses. common/gemm/: what the GEMM chapters share (the test
# cases and reference); its *_benchmark.cpp files go with the benchmarks (mk/bench.mk),
# which alone link cuBLAS. The test harness (tests/harness/) is linked as objects, not an
# archive: its Catch2 listeners register themselves and must not be left out.
COMMON_LIBRARY := $(BUILD)/libcommon.a
GEMM_LIBRARY := $(BUILD)/libgemm.a
HARNESS_OBJECTS := $(call objects_of,$(wildcard tests/harness/*.cpp))
$(COMMON_LIBRARY): $(call objects_of,$(wildcard common/*.cpp))
# Catch2 version 2 compiles its whole runner into the harness's main.cpp: the slowest file
# of a first build by far, and no faster a runner for -O2. Build it unoptimised, without
# debug information (`private`: the flags of its prerequisites stay as they are).
$(BUILD)/tests/harness/main.o: private CXXFLAGS := $(filter-out -O% -g%,$(CXXFLAGS)) -O0
$(GEMM_LIBRARY): $(call objects_of,$(filter-out %_benchmark.cpp,$(wildcard common/gemm/*.cpp)))

# ---- The backend ----------------------------------------------------------------------------------
# The backend runs the kernels: cuda on the GPU, emu on the CPU (mk/emu.mk). Each sets
# where cuda_runtime.h comes from, what programs link with, and how a .cu file is built.
# Unless BACKEND is given, mk/toolchain.mk picks cuda when a GPU is usable, else emu, and
# the first line of a build says which and why.
ifeq ($(origin BACKEND),file)
  BACKEND_CHOICE := Backend: $(BACKEND), because $(DEFAULT_BACKEND_REASON) (choose with BACKEND=cuda or BACKEND=emu).
else
  BACKEND_CHOICE := Backend: $(BACKEND) (from BACKEND=$(BACKEND)).
endif
ifeq ($(BACKEND),cuda)
  BACKEND_CXXFLAGS := -isystem $(CUDA_HOME)/include
  BACKEND_LDLIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart
  BACKEND_LIBRARY :=
  test-emu:
	@echo "The CPU backend's tests run with BACKEND=emu: make test-emu BACKEND=emu"
else ifeq ($(BACKEND),emu)
  include mk/emu.mk
else
  $(error BACKEND=$(BACKEND) is not a backend; use BACKEND=cuda (the GPU) or BACKEND=emu (the CPU))
endif
LDLIBS += $(BACKEND_LDLIBS) $(CATCH_LIBS)
ifeq ($(MAKELEVEL),0)
  ifneq ($(filter-out chapter% help print-backend clean setup check hint solution reset skeletons watch classroom,$(or $(MAKECMDGOALS),help)),)
    $(info $(BACKEND_CHOICE))
  endif
endif

# ---- A chapter's programs ------------------------------------------------------------------------
# Chapter N is its folder chapters/NN-name/: the student's .cu files (from TREE), test.cpp,
# demo.cpp, bench.cpp, and any other .cpp (its CPU reference), linked into every program.
kernels_of = $(call objects_of,$(wildcard $(TREE)/$(call folder_of,$(1))/*.cu))
chapter_code_of = $(call objects_of,$(filter-out %/test.cpp %/demo.cpp %/bench.cpp %/profile.cpp,\
                    $(wildcard chapters/$(call folder_of,$(1))/*.cpp)))
program_of = $(BUILD)/chapters/$(call folder_of,$(1))/$(2).o
has_demo = $(wildcard chapters/$(call folder_of,$(1))/demo.cpp)

# The student's objects come last, then the libraries again for what they call: where
# they define an inline function or template instance that another part defines too, the
# linker keeps the first copy, so the tests never run the student's (tools/tutorial/guard.py).
$(BIN)/chapter%-tests: $$(call program_of,$$*,test) $$(call chapter_code_of,$$*) $(HARNESS_OBJECTS) \
                       $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY) $$(call kernels_of,$$*)
	$(call link,$(GEMM_LIBRARY) $(COMMON_LIBRARY))
$(BIN)/chapter%-demo: $$(call kernels_of,$$*) $$(call program_of,$$*,demo) $$(call chapter_code_of,$$*) \
                      $(GEMM_LIBRARY) $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)

# `make chapter2` builds chapter 2; with a verb (`make chapter2 test`) it only names it.
CHAPTER_GOALS := $(addprefix chapter,$(CHAPTERS))
.PHONY: $(CHAPTER_GOALS)
ifeq ($(VERBS),)
$(CHAPTER_GOALS): chapter%: $(BIN)/chapter%-tests $$(if $$(call has_demo,$$*),$(BIN)/chapter%-demo)
else
$(CHAPTER_GOALS):
	@:
endif

# The library's and the harness's own tests, and the backend's (mk/emu.mk adds its own).
$(BUILD)/bin/common-tests: $(BUILD)/tests/common.o $(HARNESS_OBJECTS) $(COMMON_LIBRARY) $(BACKEND_LIBRARY)
	$(link)

# ---- Settings --------------------------------------------------------------------------------------
# Each is checked here, once, for every verb (test, run, bench, profile, grade, watch, ...)
# and handed to the programs in the environment. BACKEND is checked above.
# SEED=n: the seed of the random inputs, a whole number from 0 to 4294967295 (Catch2's range:
# the test runner's own seed is ours). TUTORIAL_SEED reaches every program.
shell_quote = '$(subst ','\'',$(1))'
ifneq ($(SEED),)
  ifneq ($(shell [[ $(call shell_quote,$(SEED)) =~ ^[0-9]+$$ ]] && echo digits),digits)
    $(error SEED=$(SEED) is not a whole number from 0 to 4294967295: it has a character other than the digits 0-9 (leave SEED out for the default))
  endif
  ifneq ($(shell s=$$(echo $(SEED) | sed 's/^0*//'); [[ $$s =~ ^[0-9]{0,10}$$ ]] && (( $${s:-0} <= 4294967295 )) && echo ok),ok)
    $(error SEED=$(SEED) is not a whole number from 0 to 4294967295: it is too large (leave SEED out for the default))
  endif
  export TUTORIAL_SEED := $(SEED)
endif
# TIMEOUT=seconds: a kernel still running after it is stopped, on either backend (default
# 20; 0: no limit). TUTORIAL_TIMEOUT reaches the GPU's programs, EMU_TIMEOUT the CPU backend.
ifneq ($(TIMEOUT),)
  ifneq ($(shell [[ $(call shell_quote,$(TIMEOUT)) =~ ^([0-9]+([.][0-9]*)?|[.][0-9]+)$$ ]] && echo number),number)
    $(error TIMEOUT=$(TIMEOUT) is not a number of seconds (0: no limit; leave TIMEOUT out for 20))
  endif
  export TUTORIAL_TIMEOUT := $(TIMEOUT)
  export EMU_TIMEOUT := $(TIMEOUT)
endif
# Tests need Catch2; without it, say so before any compiler does.
ifeq ($(CATCH_VERSION),none)
  ifneq ($(filter chapter% test test-% grade status check watch,$(or $(MAKECMDGOALS),help)),)
    $(error Catch2, the test framework, is not installed: run `make setup` (or install the package catch2))
  endif
endif
# With BACKEND=cuda the tests need a GPU: without one they would skip every kernel.
ifeq ($(BACKEND),cuda)
  ifneq ($(filter test grade status run watch,$(MAKECMDGOALS)),)
    ifneq ($(shell bash tools/require-gpu.sh probe cuda >/dev/null && echo yes),yes)
      $(error No CUDA device here (nvidia-smi lists none): use BACKEND=emu to run the kernels on the CPU)
    endif
  endif
endif

# ---- Targets for people -------------------------------------------------------------------------
#: make chapterN test       build chapter N from chapters/ and run its tests
#: make chapterN            build chapter N only
#: make test                build and test every chapter (and common/)
#: ... SOLUTIONS=1          the same, with the reference solutions in solutions/
#: ... SEED=n               make the random test inputs from seed n (the default is fixed)
#: ... ARGS='...'           pass options to the Catch2 test runner, e.g. ARGS=--success
#: ... TIMEOUT=s            stop a kernel still running after s seconds (default 20; 0: never), on the GPU or the CPU
#: ... JOBS=n               compile n files at a time (the default: one per core; JOBS=1 for one at a time)
#: make chapterN run        build chapter N and run its demo (ARGS='...' passes options to it)
#: ... IMAGE=photo.pgm      chapter 3's demo blurs this 8-bit grayscale PGM instead of a test image

# Without a chapter named, the library's and the backend's own tests run too.
TEST_BINARIES := $(if $(NAMED),,$(BUILD)/bin/common-tests $(BACKEND_TEST_BINARIES)) $(foreach n,$(SELECTED),$(BIN)/chapter$(n)-tests)

# Each run leaves its counts in <binary>.results (tests/harness/results_file.cpp writes
# them), which `make status` and `make chapterN solution` read.
.PHONY: test
test: $(TEST_BINARIES) | compile_commands.json
	@failed=0; \
	for binary in $^; do \
	  echo "== $$binary ($(TREE), backend $(BACKEND))"; \
	  if TUTORIAL_RESULTS_FILE=$$binary.results ./$$binary $(ARGS); then :; \
	    $(if $(filter cuda,$(BACKEND)),bash tools/sanitize.sh after-tests $$binary $(SANITIZE_OUTPUT) $(ARGS) || failed=1;) \
	  else failed=1; fi; \
	done; \
	exit $$failed

.PHONY: run
run: $(if $(filter 1,$(words $(NAMED))),$(BIN)/chapter$(NAMED)-demo)
	@if [ "$(words $(NAMED))" != 1 ]; then echo "Name one chapter: make chapter1 run"; exit 1; fi
	@./$< $(if $(IMAGE),'$(IMAGE)') $(ARGS)

.PHONY: test-common
test-common: $(BUILD)/bin/common-tests
	@./$< $(ARGS)

# ---- The learner's and instructor's workflow: tools/tutorial ----------------------------------------
#: make status              your progress: a row per chapter (files, build, tests), then what to do next
#: make chapterN hint       the chapter's next hint: one more on each call (RESTART=1: from the first)
#: make chapterN watch      run chapter N's tests, then again on each save of your file (Ctrl-C stops)
#: make watch               the same, for the next chapter you have not finished
#: make chapterN solution   the reference solution, once the chapter passes (FORCE=1: before that)
#: make chapterN reset      back to the chapter's skeleton; your files are saved under build/backups/
#: make grade               build and test every chapter (or the named ones): a score table, JUnit XML
#:                          and Gradescope's results.json in build/grade/ (docs/instructors.md)
#: ... FULL_MARKS=1         make grade: exit status 1 unless every chapter graded scores 100% (Classroom)
#: make skeletons           (maintainers) write what is generated: each chapters/ file from its solution's
#:                          markers, and .github/workflows/classroom.yml from the registry
#: make classroom           (instructors) write .github/workflows/classroom.yml from the chapters
TUTORIAL = python3 -m tools.tutorial --backend $(BACKEND) --tree $(TREE)
GRADE_DIR := build/grade

# status and grade build each chapter on its own, so that one that does not compile
# leaves the others alone; the log of each build is what the tool reads.
build_each = for n in $(1); do \
	  $(MAKE) chapter$$n BACKEND=$(BACKEND) >$(2)/chapter$$n-build.log 2>&1; echo $$? >$(2)/chapter$$n-build.status; \
	done

.PHONY: status hint solution reset grade skeletons watch classroom
status:
	@mkdir -p $(BUILD)/status && $(call build_each,$(CHAPTERS),$(BUILD)/status)
	@$(TUTORIAL) status --logs $(BUILD)/status
# tools/watch.sh runs `make chapterN test` on each save (inotifywait from inotify-tools).
watch:
	@if [ "$(words $(NAMED))" -gt 1 ]; then echo "Name one chapter: make chapter1 watch"; exit 1; fi
	+@bash tools/watch.sh $(or $(NAMED),$$($(TUTORIAL) next --number)) BACKEND=$(BACKEND) \
	  $(if $(filter 1,$(SOLUTIONS)),SOLUTIONS=1) $(if $(SEED),SEED=$(SEED))
hint:
	@$(TUTORIAL) hint $(NAMED) $(if $(filter 1,$(RESTART)),--restart)
solution:
	@$(TUTORIAL) solution $(NAMED) $(if $(filter 1,$(FORCE)),--force)
reset:
	@$(TUTORIAL) reset $(NAMED)
# grade: build each chapter, and its solution when solutions/ has it (the baseline);
# check the student's objects (guard) and run the solution's tests (the cases to expect)
# before any student code runs; then run the tests of each chapter whose objects passed,
# through the judge, which keeps only what the harness reports on its channel (and leaves
# it where make status reads a chapter's last results).
# FULL_MARKS=1: exit with 1 unless every chapter graded scores 100% (GitHub Classroom).
solution_objects_of = $(call objects_of,$(wildcard solutions/$(call folder_of,$(1))/*.cu))
# GRADE_BASELINE=none leaves the solution's objects out of the check (make check: the
# solutions pass it on the general rules alone).
grade_guard = $(TUTORIAL) guard --student $(call kernels_of,$(1)) \
	--baseline $(if $(filter none,$(GRADE_BASELINE)),,$(if $(wildcard $(2)),$(call solution_objects_of,$(1)))) \
	--parts $(call program_of,$(1),test) $(HARNESS_OBJECTS) \
	--callable-parts $(call chapter_code_of,$(1)) $(GEMM_LIBRARY) $(COMMON_LIBRARY) \
	--backend-parts $(BACKEND_LIBRARY) --binary $(or $(3),$(BIN)/chapter$(1)-tests) --out $(GRADE_DIR)/chapter$(1)-guard.txt >/dev/null
grade:
	@rm -rf $(GRADE_DIR) && mkdir -p $(GRADE_DIR) && $(call build_each,$(SELECTED),$(GRADE_DIR))
	@mkdir -p $(GRADE_DIR); for n in $(SELECTED); do \
	  if [ -d solutions/$$($(TUTORIAL) chapters --fields | awk -F'\t' -v n=$$n '$$1 == n {print $$2}') ]; then \
	    $(MAKE) $(BUILD)/solutions/bin/chapter$$n-tests$(EXPECTED_SUFFIX) SOLUTIONS=1 BACKEND=$(BACKEND) \
	      >$(GRADE_DIR)/chapter$$n-baseline-build.log 2>&1; \
	    echo $$? >$(GRADE_DIR)/chapter$$n-baseline-build.status; \
	  fi; \
	done
	@$(foreach n,$(SELECTED),$(call grade_baseline,$(n)))
	@for n in $(SELECTED); do \
	  rm -f $(BIN)/chapter$$n-tests.results; \
	  if [ "$$(cat $(GRADE_DIR)/chapter$$n-build.status)" = 0 ] && [ -f $(GRADE_DIR)/chapter$$n-guard.txt ] && [ ! -s $(GRADE_DIR)/chapter$$n-guard.txt ]; then \
	    $(TUTORIAL) judge --binary $(BIN)/chapter$$n-tests --results $(GRADE_DIR)/chapter$$n.results \
	      --log $(GRADE_DIR)/chapter$$n-test.log; \
	    ! [ -f $(GRADE_DIR)/chapter$$n.results ] || cp $(GRADE_DIR)/chapter$$n.results $(BIN)/chapter$$n-tests.results; \
	  fi; \
	done
	@$(TUTORIAL) grade --dir $(GRADE_DIR) $(if $(GRADE_VISIBILITY),--visibility $(GRADE_VISIBILITY)) $(if $(filter 1,$(FULL_MARKS)),--full-marks) $(SELECTED)
# The solution's run, made once per seed and kept: its graded cases are those every
# graded run of the chapter must report (the judge writes it, with its .judge file).
EXPECTED_SUFFIX = .expected-seed$(or $(SEED),default)
$(BUILD)/solutions/bin/chapter%-tests$(EXPECTED_SUFFIX): $(BUILD)/solutions/bin/chapter%-tests
	@$(TUTORIAL) judge --binary $< --results $@ --log $@.log
	@grep -q '^state=finished' $@ || { echo "the solution's run did not finish: see $@.log"; rm -f $@; exit 1; }
# One chapter's checks before any student code runs: its objects, and the solution's run.
# The object check runs whenever the student's files compiled (each object newer than its
# file), even if the link failed (a replaced function often fails it): its reason is the
# better one. It reads the shared libraries from the solution's program when there is one.
grade_baseline = \
	with_solution=$$(cat $(GRADE_DIR)/chapter$(1)-baseline-build.status 2>/dev/null); \
	fresh=yes; for pair in $(join $(addsuffix :,$(call kernels_of,$(1))),$(wildcard $(TREE)/$(call folder_of,$(1))/*.cu)); do \
	  [ "$${pair%%:*}" -nt "$${pair\#*:}" ] || fresh=no; \
	done; \
	if [ $$fresh = yes ]; then \
	  $(call grade_guard,$(1),$(BUILD)/solutions/bin/chapter$(1)-tests,$(firstword $(wildcard $(BUILD)/solutions/bin/chapter$(1)-tests $(BIN)/chapter$(1)-tests))) || true; \
	fi; \
	if [ "$$with_solution" = 0 ]; then \
	  cp $(BUILD)/solutions/bin/chapter$(1)-tests$(EXPECTED_SUFFIX) $(GRADE_DIR)/chapter$(1)-expected.results; \
	fi;
skeletons:
	@$(TUTORIAL) skeletons --write
	@$(TUTORIAL) classroom --write
classroom:
	@$(TUTORIAL) classroom --write

# ---- Maintenance -------------------------------------------------------------------------------------
#: make check               the maintainer's gate: solutions pass, skeletons fail (CI runs it)
#: make setup               install what is missing, or say what to install (tools/setup.sh lists what and why)
#: make clean               delete build/, except the backups that reset made
#: make help                this list
.PHONY: check setup clean help print-backend FORCE
# check and watch run make again: `+` lends them this make's parallel jobs.
check:
	+@bash tools/check.sh
setup:
	@bash tools/setup.sh
clean:
	@# build/backups holds what `make chapterN reset` saved of a student's work: never delete it.
	@find build -mindepth 1 -maxdepth 1 ! -name backups -exec rm -rf {} + 2>/dev/null; true
help:
	@echo "CUDA shared-memory tutorial. The chapters:"
	@python3 -m tools.tutorial chapters
	@echo
	@echo "Targets:"
	@sed -n 's/^#: /  /p' $(MAKEFILE_LIST)
	@echo
	@echo "Building for $(ARCH_DESCRIPTION); Catch2 version $(CATCH_VERSION)."
print-backend:
	@echo $(BACKEND)
	@echo '$(BACKEND_CHOICE)'
FORCE:

# Benchmarks, compute-sanitizer and the results page; the course site.
include mk/bench.mk
include mk/docs.mk
# The memory-traffic profiler: make chapterN profile, make profile, make test-profile.
include mk/profile.mk

-include $(shell find build -name '*.d' 2>/dev/null)
