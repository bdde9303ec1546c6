# The course site (tools/tutorial/site.py): make docs, the student edition, into build/docs/html;
# SOLUTIONS=1, the instructor edition, into build/docs-instructor/html; rebuilt when a source changes.
DOXYGEN ?= doxygen
DOT ?= dot
AWESOME_CSS_DIR ?= /usr/share/doxygen-awesome-css
DOCS_DIR := $(if $(filter 1,$(SOLUTIONS)),build/docs-instructor,build/docs)
CHAPTER_FOLDERS := $(foreach n,$(CHAPTERS),chapters/$(call folder_of,$(n)))
DOCS_SOURCES := chapters/registry README.md $(wildcard docs/*.md docs/*.css docs/*.js docs/*.xml docs/figures/* tools/tutorial/*.py) \
                docs/Doxyfile $(wildcard $(AWESOME_CSS_DIR)/doxygen-awesome.css common/*.h harness/*.h $(addsuffix /*.h,$(CHAPTER_FOLDERS)) \
                  $(addsuffix /README.md,$(CHAPTER_FOLDERS)) $(addsuffix /figures/*,$(CHAPTER_FOLDERS))) \
                $(if $(filter 1,$(SOLUTIONS)),$(wildcard solutions/*/*))
SITE = python3 -m tools.tutorial site $(if $(filter 1,$(SOLUTIONS)),--solutions) $(if $(filter 1,$(DOCS_STRICT)),--strict) \
       --doxygen $(DOXYGEN) --dot $(DOT) --css-dir $(AWESOME_CSS_DIR)
$(DOCS_DIR)/Doxyfile: docs/Doxyfile FORCE
	@$(SITE) doxyfile
# The lessons' drawn figures (tools/tutorial/figures.py) are drawn first: the site shows what the code draws.
$(DOCS_DIR)/html/.built: $(DOCS_DIR)/Doxyfile $(DOCS_SOURCES)
	@python3 -m tools.tutorial figures --write >/dev/null && $(SITE) build && touch $@
.PHONY: docs
docs: $(if $(shell command -v $(DOXYGEN) 2>/dev/null),$(DOCS_DIR)/html/.built)
	@$(SITE) report
