# The course site: `make docs` runs Doxygen over the lessons, the figures and the API.
# Included by the Makefile, which reads the chapter list.
#
# Two editions, in two folders so that they never mix:
#   student (the default)  build/docs/html             no solution code anywhere
#   instructor             build/docs-instructor/html  SOLUTIONS=1: the reference solutions too
# The pages are generated from the registry, README.md and each chapter's README.md by
# `python3 -m tools.tutorial docs`; docs/Doxyfile holds the settings that never change, and the
# rest is appended here into the build folder's Doxyfile.

#: make docs                build the course site (student edition) into build/docs/html
#: make docs SOLUTIONS=1    the instructor edition, with the reference solutions, into build/docs-instructor/html
#: ... DOCS_STRICT=1        fail on any Doxygen warning (make check does)

DOXYGEN ?= doxygen
DOT ?= dot
PYTHON ?= python3
HAVE_DOXYGEN := $(shell command -v $(DOXYGEN) 2>/dev/null)
HAVE_PYTHON := $(shell command -v $(PYTHON) 2>/dev/null)
HAVE_DOT := $(if $(shell command -v $(DOT) 2>/dev/null),YES,NO)
# The theme: Debian's doxygen-awesome-css (`make setup` installs it). Without it the site is
# built in Doxygen's own look, and make docs says so.
AWESOME_CSS_DIR ?= /usr/share/doxygen-awesome-css
AWESOME_CSS := $(wildcard $(AWESOME_CSS_DIR)/doxygen-awesome.css)

DOCS_EDITION := $(if $(filter 1,$(SOLUTIONS)),instructor,student)
DOCS_DIR := $(if $(filter instructor,$(DOCS_EDITION)),build/docs-instructor,build/docs)
DOCS_STAMP := $(DOCS_DIR)/html/.built

CHAPTER_FOLDERS := $(foreach n,$(CHAPTERS),chapters/$(call folder_of,$(n)))
DOCS_API := common tests/harness $(wildcard $(addsuffix /*.h,$(CHAPTER_FOLDERS)))
DOCS_SOURCES := chapters/registry README.md $(wildcard docs/*.md docs/*.css docs/*.js docs/*.xml docs/figures/* tools/tutorial/*.py) \
                docs/Doxyfile $(AWESOME_CSS) \
                $(wildcard common/*.h tests/harness/*.h $(addsuffix /*.h,$(CHAPTER_FOLDERS)) $(addsuffix /README.md,$(CHAPTER_FOLDERS)) $(addsuffix /figures/*,$(CHAPTER_FOLDERS))) \
                $(if $(filter instructor,$(DOCS_EDITION)),$(wildcard solutions/*/*))

# What this build adds to docs/Doxyfile. The file is rewritten only when it changes,
# so that switching DOCS_STRICT or Graphviz on or off rebuilds, and nothing else does.
DOCS_SETTINGS := \
  'PROJECT_NUMBER = "$(DOCS_EDITION) edition"' \
  'OUTPUT_DIRECTORY = $(DOCS_DIR)' \
  'INPUT = $(DOCS_DIR)/pages $(DOCS_API)' \
  'IMAGE_PATH = $(wildcard $(addsuffix /figures,$(CHAPTER_FOLDERS)) docs/figures)' \
  'HTML_EXTRA_STYLESHEET = $(AWESOME_CSS) docs/site.css' \
  'HTML_EXTRA_FILES = docs/lesson_search.js $(DOCS_DIR)/pages/lesson_index.js' \
  'STRIP_FROM_INC_PATH = common tests/harness $(CHAPTER_FOLDERS)' \
  'HAVE_DOT = $(HAVE_DOT)' \
  'DOT_PATH = $(dir $(shell command -v $(DOT) 2>/dev/null))' \
  'WARN_AS_ERROR = $(if $(filter 1,$(DOCS_STRICT)),FAIL_ON_WARNINGS,NO)' \
  $(if $(filter instructor,$(DOCS_EDITION)),'ENABLED_SECTIONS = INSTRUCTOR' 'EXAMPLE_PATH = $(DOCS_DIR)/solutions')

$(DOCS_DIR)/Doxyfile: docs/Doxyfile FORCE
	@mkdir -p $(@D)
	@{ cat docs/Doxyfile; echo; echo "# Added by mk/docs.mk for this build"; printf '%s\n' $(DOCS_SETTINGS); } >$@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# The site is rebuilt from scratch, so that no page of an earlier build lingers.
$(DOCS_STAMP): $(DOCS_DIR)/Doxyfile $(DOCS_SOURCES)
	@echo "  DOCS  the $(DOCS_EDITION) edition"
	@rm -rf $(DOCS_DIR)/html $(DOCS_DIR)/pages $(DOCS_DIR)/solutions
	@$(PYTHON) -m tools.tutorial docs $(DOCS_DIR)/pages $(if $(filter instructor,$(DOCS_EDITION)),--solutions)
	@$(DOXYGEN) $(DOCS_DIR)/Doxyfile
	@touch $@

.PHONY: docs
ifeq ($(HAVE_DOXYGEN),)
docs:
	@echo "make docs needs Doxygen, which is not installed: run 'make setup', or install the package doxygen."
	@exit 1
else ifeq ($(HAVE_PYTHON),)
docs:
	@echo "make docs needs Python 3, which is not installed: run 'make setup', or install the package python3."
	@exit 1
else
docs: $(DOCS_STAMP)
ifeq ($(HAVE_DOT),NO)
	@echo "Graphviz ($(DOT)) is not installed: the site was built without its graphs. 'make setup' installs it."
endif
ifeq ($(AWESOME_CSS),)
	@echo "doxygen-awesome-css is not installed ($(AWESOME_CSS_DIR)): the site has Doxygen's plain look. 'make setup' installs it."
endif
	@echo "The $(DOCS_EDITION) edition of the course site: $(DOCS_DIR)/html/index.html"
endif
