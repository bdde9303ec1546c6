"""The GitHub Classroom workflow, .github/workflows/classroom.yml, made from the registry.

GitHub Classroom's autograding runs one command per test with its command grader and
scores each by its exit status (the JSON autograding.json flow was archived in 2024).
The workflow runs `make setup`, then one step per chapter, `make chapterN grade
FULL_MARKS=1` on the CPU backend (GitHub's runners have no GPU), worth POINTS_PER_CHAPTER
points when the chapter scores 100%; the reporter then adds them up for Classroom. Not
`make chapterN test`: its exit status comes from the test program, into which the
student's code is compiled, so a student could make it 0. make grade's status comes from
the judge, which trusts only the harness's channel, after the object check
(docs/instructors.md, "What the grader defends against").

  classroom            (make check) the committed workflow is what this makes, and
                       --commands prints each command it runs, one per line
  classroom --write    write it (make classroom), after adding a chapter
"""

from __future__ import annotations

import json
from pathlib import Path

from .course import ROOT, Chapter

WORKFLOW = Path(".github/workflows/classroom.yml")
POINTS_PER_CHAPTER = 10
TIMEOUT_MINUTES = 20  # one chapter's grade (its build and its solution's, two runs) on a 2-core runner: 2 to 6


def setup_command() -> str:
    return "make setup"


def chapter_command(chapter: Chapter) -> str:
    return f"make {chapter.name} grade BACKEND=emu FULL_MARKS=1"


def commands(chapters: list[Chapter]) -> list[str]:
    return [setup_command()] + [chapter_command(c) for c in chapters]


def step_id(chapter: Chapter) -> str:
    return chapter.name


def workflow(chapters: list[Chapter]) -> str:
    lines = [
        "# GitHub Classroom autograding: generated from chapters/registry by `make classroom`;",
        "# make check fails when it is not what the registry makes. docs/instructors.md explains it.",
        "# Each chapter is one test, worth its points when make grade scores it 100% on the CPU",
        "# backend (GitHub's runners have no GPU); make grade's reports give points per case.",
        "name: Autograding Tests",
        '"on": [push, repository_dispatch, workflow_dispatch]',
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Install what the tutorial needs",
        f"        run: {setup_command()}",
    ]
    for c in chapters:
        lines += [
            f"      - name: {json.dumps(f'{c.name}: {c.title}')}",
            f"        id: {step_id(c)}",
            "        uses: classroom-resources/autograding-command-grader@v1",
            "        with:",
            f"          test-name: {c.name}",
            f"          command: {chapter_command(c)}",
            f"          timeout: {TIMEOUT_MINUTES}",
            f"          max-score: {POINTS_PER_CHAPTER}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        "        uses: classroom-resources/autograding-grading-reporter@v1",
        "        env:",
    ]
    lines += [f"          {step_id(c).upper()}_RESULTS: \"${{{{steps.{step_id(c)}.outputs.result}}}}\"" for c in chapters]
    lines += [
        "        with:",
        f"          runners: {','.join(step_id(c) for c in chapters)}",
    ]
    return "\n".join(lines) + "\n"


def classroom(args) -> int:
    text = workflow(args.chapters)
    path = ROOT / WORKFLOW
    if args.commands:
        print("\n".join(commands(args.chapters)))
        return 0
    if args.write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {WORKFLOW}")
        return 0
    if not path.exists() or path.read_text() != text:
        print(f"{WORKFLOW} is not what chapters/registry makes: run make classroom and commit it.")
        return 1
    return 0
