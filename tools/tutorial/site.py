"""`make docs`: the course site, built by Doxygen from the pages docs.py writes.

  python3 -m tools.tutorial site STEP [--solutions] [--strict] [--doxygen D] [--dot D] [--css-dir DIR]

Two editions, in two folders so that they never mix: the student's (build/docs/html, no
solution code anywhere) and, with --solutions, the instructor's (build/docs-instructor/html,
the reference solutions too). make decides when to rebuild (mk/docs.mk); the steps:
  doxyfile  the edition's Doxyfile: docs/Doxyfile (the settings that never change) and what
            this build adds, rewritten only when it changes, so that switching --strict or
            Graphviz rebuilds and nothing else does;
  build     the site from scratch (so that no page of an earlier build lingers): the pages,
            then Doxygen;
  report    what the site lacks (Graphviz, the theme) and where it is; or, without Doxygen,
            the refusal.
--strict (make docs DOCS_STRICT=1, as make check builds it): a Doxygen warning fails the
build, and so does a link of a lesson or guide to a page of docs/ that the site does not have
(docs.py's GUIDES), which would show as plain text.
Python 3 standard library only.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import docs


def edition(args) -> tuple[str, Path]:
    return ("instructor", Path("build/docs-instructor")) if args.solutions else ("student", Path("build/docs"))


def settings(args) -> list[str]:
    name, folder = edition(args)
    chapter_dirs = [c.student_dir for c in args.chapters]
    headers = [str(h) for d in chapter_dirs for h in sorted(d.glob("*.h"))]
    css = Path(args.css_dir) / "doxygen-awesome.css"
    dot = shutil.which(args.dot)
    lines = [
        f'PROJECT_NUMBER = "{name} edition"',
        f"OUTPUT_DIRECTORY = {folder}",
        " ".join(["INPUT =", f"{folder}/pages", "common", "harness", *headers]),
        f"IMAGE_PATH = {folder}/pages/figures docs/figures",  # the lessons' figures, renamed by docs.py
        " ".join(["HTML_EXTRA_STYLESHEET =", *([str(css)] if css.is_file() else []), "docs/site.css"]),
        f"HTML_EXTRA_FILES = docs/lesson_search.js {folder}/pages/lesson_index.js",
        " ".join(["STRIP_FROM_INC_PATH = common harness", *map(str, chapter_dirs)]),
        f"HAVE_DOT = {'YES' if dot else 'NO'}",
        f"DOT_PATH = {Path(dot).parent if dot else ''}",
        f"WARN_AS_ERROR = {'FAIL_ON_WARNINGS' if args.strict else 'NO'}",
    ]
    if args.solutions:
        lines += ["ENABLED_SECTIONS = INSTRUCTOR", f"EXAMPLE_PATH = {folder}/solutions"]
    return lines


def site(args) -> int:
    name, folder = edition(args)
    if args.step == "doxyfile":
        text = Path("docs/Doxyfile").read_text() + "\n# Added by make docs for this build\n" + "\n".join(settings(args)) + "\n"
        doxyfile = folder / "Doxyfile"
        if not doxyfile.is_file() or doxyfile.read_text() != text:
            folder.mkdir(parents=True, exist_ok=True)
            doxyfile.write_text(text)
        return 0
    if args.step == "build":
        print(f"  DOCS  the {name} edition")
        for old in ("html", "pages", "solutions"):
            shutil.rmtree(folder / old, ignore_errors=True)
        docs.write_pages(str(folder / "pages"), args.solutions, args.strict)
        return subprocess.run([args.doxygen, str(folder / "Doxyfile")]).returncode
    if not shutil.which(args.doxygen):
        print("make docs needs Doxygen, which is not installed: run 'make setup', or install the package doxygen.")
        return 1
    if not shutil.which(args.dot):
        print(f"Graphviz ({args.dot}) is not installed: the site was built without its graphs. 'make setup' installs it.")
    if not (Path(args.css_dir) / "doxygen-awesome.css").is_file():
        print(f"doxygen-awesome-css is not installed ({args.css_dir}): the site has Doxygen's plain look. 'make setup' installs it.")
    print(f"The {name} edition of the course site: {folder}/html/index.html")
    return 0
