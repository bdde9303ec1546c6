# The learner's and instructor's workflow: progress at a glance, hints one at a time,
# the solution after a pass, a reset that keeps a backup, and grading.
#
# The work is done by tools/workflow.py; this file hands it what make knows. It reads
# the results that each `make chapterN test` leaves beside the test binary, so nothing
# is run twice, and builds through `make chapterN`, so nothing unchanged is rebuilt.

# The workflow goals on this command line. With one of them, `chapterN` only names the
# chapter (the Makefile's chapter rules read this): `make chapter1 reset` must work
# on a chapter that does not compile.
WORKFLOW_GOALS := $(filter status hint solution reset grade skeleton-ids,$(MAKECMDGOALS))
ifneq ($(WORKFLOW_GOALS),)
# Something to do for the chapterN goal, so make does not say "Nothing to be done".
$(addprefix chapter,$(CHAPTERS)):
	@:
endif

# Deferred (=): BIN and BACKEND are set after this file is included.
WORKFLOW = python3 tools/workflow.py --chapters $(CHAPTER_LIST) --bin $(BIN) --backend $(BACKEND) \
	--make '$(MAKE)' $(addprefix --chapter ,$(NAMED_CHAPTERS))

#: make status              your progress: a row per chapter (files, build, tests), then what to do next
#: make chapterN hint       the chapter's next hint: one more on each call (RESTART=1: from the first)
#: make chapterN solution   the reference solution, once the chapter passes (FORCE=1: before that)
#: make chapterN reset      back to the chapter's skeleton; your files are saved under build/backups/
#: make grade               test every chapter (or the named ones): JUnit XML per chapter in
#:                          build/grade/ and a score table; exits 0 once every chapter is graded
#: make skeleton-ids        (maintainers) record the skeletons' git blob ids after changing one

.PHONY: status hint solution reset grade skeleton-ids
# `+`: status and grade run make themselves, and share make's job slots under -j.
status:
	+@$(WORKFLOW) status
hint:
	@$(WORKFLOW) hint $(if $(filter 1,$(RESTART)),--restart)
solution:
	@$(WORKFLOW) solution $(if $(filter 1,$(FORCE)),--force)
reset:
	@$(WORKFLOW) reset
grade:
	+@$(WORKFLOW) grade
skeleton-ids:
	@$(WORKFLOW) skeleton-ids
