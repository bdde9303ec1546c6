"""The chapters' manifests and their one reader (tools/tutorial/manifest.py), for `make check`:

- every chapter's chapter.toml reads, and no chapter folder holds Python;
- going further, one rule: the steps a chapter's going_further lists are the steps its
  lesson labels "(going further)", and its test cases tagged [extra] are exactly those
  whose names start with such a step ("8c: ..."); a name that mentions a going-further step
  anywhere else, or with a required step ("8a, 8b and 8d are right ..."), is refused: such a
  case would fail a chapter done without the optional step;
- the package tools/tutorial has no import cycle;
- a broken manifest is refused with a message naming its file and what is wrong, one case
  per rule the reader enforces;
- the summary's templates fill in as written: each kind of value, shown as the page shows
  it; a value not measured (no row, or a failed check) is n/a and makes its comparisons
  false; the conditions' and/or/not, measured() and goals_met();
- a profile column's formula: counters, `or 0`, a counter missing without it, division by zero;
- the chapters `make chapterN profile-tables` profiles: N and those its table compares with;
- the site's names of the lessons' figures: chapterN-NAME, none the same for two chapters.

Run: python3 tests/manifest_reader.py (exit status 1 and the failures on stderr).
"""

import ast
import dataclasses
import re
import tempfile
from pathlib import Path


from tool_checks import ROOT, check, failures, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial import docs, profile_tables  # noqa: E402
from tools.tutorial import manifest as reader  # noqa: E402
from tools.tutorial.course import Refusal, read_registry  # noqa: E402
from tools.tutorial.profile_tables import Variant  # noqa: E402
from tools.tutorial.results import MeasuredChapter, goal_against, summary  # noqa: E402



def array_of_tables(name, *tables):
    """The TOML of `[[name]]`, once per dict of string fields, as a chapter.toml writes it."""
    return "".join(f"\n[[{name}]]\n" + "".join(f'{key} = "{value}"\n' for key, value in table.items())
                   for table in tables)


def read_text(text):
    """The manifest of `text`, or the Refusal's message."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chapter.toml"
        path.write_text(text, encoding="utf-8")
        try:
            return reader.read_manifest_file(path)
        except Refusal as refusal:
            return str(refusal)


# ---- The chapters ----------------------------------------------------------------------------
for chapter in read_registry():
    try:
        reader.read_manifest(chapter.folder)
    except Refusal as refusal:
        failures.append(f"chapter {chapter.number}'s manifest: {refusal}")

# ---- Going further, one rule: the manifest, the lesson and the tests agree ---------------------
# The lesson labels a step "8c (going further" in its table, its work list or a heading
# ("| 8c | `tma_gemm` (going further) |", "**9d** (going further, sm_90)", "## 3c (going further)").
LESSON_LABEL = re.compile(r"\b(\d+[a-z])\b[^\n(]{0,40}\(going further", re.IGNORECASE)
# A test case's name is string literals and the chapter's steps, STEP("c") (common/tutorial_chapter.h).
TEST_CASE = re.compile(r'TEST_CASE\(\s*((?:STEP\("[a-z]"\)\s*|"(?:[^"\\]|\\.)*"\s*)+),([^{]*)\{')
NAME_PIECE = re.compile(r'STEP\("([a-z])"\)|"((?:[^"\\]|\\.)*)"')
# The steps a test case is of: "8c: ...", or several, "3c and 3d: ..." or "8a, 8b and 8d: ...".
STEP_PREFIX = re.compile(r"^(\d+[a-z](?:(?:, | and )\d+[a-z])*):")
# A step named anywhere in a test case's name ("8d" in "8a, 8b and 8d are right ...", "8d's").
STEP_MENTION = re.compile(r"(?<![\w.])(\d+[a-z])(?![a-z0-9_])")


def test_case_name(written, number):
    """The name a test case written `written` (its first argument) has in chapter `number`."""
    return "".join(number + step if step else text for step, text in NAME_PIECE.findall(written))


def going_further_disagreements(folder, listed, number):
    """What the lesson and the tests of chapters/`folder` (chapter `number`) say against its
    going_further `listed`."""
    problems = []
    chapter_dir = ROOT / "chapters" / folder
    lesson = (chapter_dir / "README.md").read_text(encoding="utf-8")
    labelled = set(LESSON_LABEL.findall(lesson))
    for step in sorted(labelled - set(listed)):
        problems.append(f"its lesson labels {step} going further, which chapter.toml's going_further does not list")
    for step in sorted(set(listed) - labelled):
        problems.append(f"chapter.toml's going_further lists {step}, which its lesson never labels \"(going further\"")
    tests = (chapter_dir / "test.cpp").read_text(encoding="utf-8")
    with_tests = set()
    for written, tags in TEST_CASE.findall(tests):
        name = test_case_name(written, number)
        prefix = STEP_PREFIX.match(name)
        steps = re.findall(r"\d+[a-z]", prefix.group(1)) if prefix else []
        further = [step for step in steps if step in listed]
        required = [step for step in steps if step not in listed]
        # Harness and status count a case as optional by its [extra] tag alone: a case that
        # also checks a required step, or an optional one it does not start with, would fail
        # (or pass) the chapter on work the student may skip.
        elsewhere = sorted({step for step in STEP_MENTION.findall(name) if step in listed} - set(steps))
        extra = "[extra]" in tags
        if extra and further and not required:
            elsewhere = []  # "8d: ... as 8c does": optional work only, counted apart
        if further and required:
            problems.append(f"the test case {name!r} mixes the required step{'s' if len(required) > 1 else ''} "
                            f"{' and '.join(required)} with the going-further step {' and '.join(further)}: "
                            f"give the going-further step a case of its own, \"{further[0]}: ...\", tagged [extra]")
        elif extra and not further:
            problems.append(f"the test case {name!r} is tagged [extra] but does not start with a going-further step (\"8c: \")")
        if elsewhere:
            problems.append(f"the test case {name!r} names the going-further step {' and '.join(elsewhere)} but is "
                            f"not its own case: name it \"{elsewhere[0]}: ...\" and tag it [extra], apart from the "
                            f"required steps")
        for step in further:
            with_tests.add(step)
        if further:
            shown = " and ".join(further)
            if not extra and not required:
                problems.append(f"the test case {name!r} is of the going-further step {shown} but is not tagged [extra]")
            if "[graded]" in tags:
                problems.append(f"the test case {name!r} is of the going-further step {shown} but is tagged [graded]")
    for step in sorted(set(listed) - with_tests):
        problems.append(f"the going-further step {step} has no test case named \"{step}: ...\" tagged [extra]")
    return problems


for chapter in read_registry():
    try:
        manifest = reader.read_manifest(chapter.folder)
    except Refusal:
        continue  # reported above
    for problem in going_further_disagreements(chapter.folder, manifest.going_further if manifest else (),
                                               chapter.number):
        failures.append(f"chapter {chapter.number}: {problem}")

# A planted disagreement is found: a lesson that labels a step the manifest does not list,
# and a going-further test tagged [graded].
with tempfile.TemporaryDirectory() as folder:
    planted = Path(folder).resolve()
    (planted / "README.md").write_text("| 8c | `tma_gemm` (going further) |\n## 8d (going further): warp tiles\n")
    (planted / "test.cpp").write_text('TEST_CASE(STEP("c") ": tma_gemm matches", CHAPTER_TAG "[extra][gpu]") {}\n'
                                      'TEST_CASE("8d: warp tiles match",\n          CHAPTER_TAG "[gpu][graded]") {}\n')
    found = going_further_disagreements(planted, ("8c",), "8")
    check(found == ["its lesson labels 8d going further, which chapter.toml's going_further does not list"],
          f"a step the lesson alone labels going further should be the one problem found: {found}")
    found = going_further_disagreements(planted, ("8c", "8d"), "8")
    check(found == ["the test case '8d: warp tiles match' is of the going-further step 8d but is not tagged [extra]",
                    "the test case '8d: warp tiles match' is of the going-further step 8d but is tagged [graded]"],
          f"8d's test case, graded and not [extra], should be the two problems found: {found}")
    found = going_further_disagreements(planted, ("8c", "8d", "8e"), "8")
    check(any("lists 8e, which its lesson never labels" in p for p in found)
          and any("8e has no test case" in p for p in found), f"a listed step with no label nor test should be found: {found}")
    # A required case that checks a going-further step too, named with the steps but no
    # colon (as chapter 8's large shapes were), and one that starts with a required and an
    # optional step: each found. An optional case that names another optional step, and a
    # required one that names another chapter's step, are no problem.
    (planted / "test.cpp").write_text(
        'TEST_CASE(STEP("c") ": tma_gemm matches", CHAPTER_TAG "[extra][gpu]") {}\n'
        'TEST_CASE("8d: warp tiles match where 8c\'s tensor maps cannot", CHAPTER_TAG "[extra][gpu]") {}\n'
        'TEST_CASE(STEP("a") ", " STEP("b") " and " STEP("d") " are right at 512³", CHAPTER_TAG "[gpu][large]") {}\n'
        'TEST_CASE("8b and 8c: pipelines drain", CHAPTER_TAG "[extra]") {}\n'
        'TEST_CASE("8b is no slower than 7d\'s warp tiles", CHAPTER_TAG "[gpu]") {}\n')
    found = going_further_disagreements(planted, ("8c", "8d"), "8")
    check(found == [
        "the test case '8a, 8b and 8d are right at 512³' names the going-further step 8d but is not its own case: "
        "name it \"8d: ...\" and tag it [extra], apart from the required steps",
        "the test case '8b and 8c: pipelines drain' mixes the required step 8b with the going-further step 8c: "
        "give the going-further step a case of its own, \"8c: ...\", tagged [extra]"],
        f"a required case naming 8d, and one of 8b and 8c, should be the two problems found: {found}")

python_files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "chapters").rglob("*.py"))
check(not python_files, f"chapter folders hold data, not code: {python_files}")

# ---- No import cycle in the package ---------------------------------------------------------------
package = ROOT / "tools" / "tutorial"
imports = {}
for module in package.glob("*.py"):
    names = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
    imports[module.stem] = names


def cycle_from(module, path):
    for imported in sorted(imports.get(module, ())):
        if imported in path:
            return path[path.index(imported):] + [imported]
        found = cycle_from(imported, path + [imported])
        if found:
            return found
    return None


for module in sorted(imports):
    cycle = cycle_from(module, [module])
    if cycle:
        failures.append(f"tools/tutorial has an import cycle: {' -> '.join(cycle)}")
        break

# ---- Broken manifests: refused, naming the file and the fault -------------------------------------
VALUES = '[results.values]\nnaive = "share: P | naive"\n'
BROKEN = [
    ("[result]\n", "no section [result]"),
    ("[results]\nbar = 1\n", "results has no field 'bar'"),
    ('[[results.bars]]\nwhat = "w"\nproblem = "P"\nvariants = ["v"]\n', "lacks 'seed_share'"),
    ('[[results.bars]]\nwhat = "w"\nseed_share = "ten"\nproblem = "P"\nvariants = ["v"]\n', "seed_share must be a number"),
    ('[[results.goals]]\nwhat = "w"\ngoal = 90\naim = 90\nproblem = "P"\nvariants = []\n', "variants must be a list of strings"),
    ('[results.values]\nnaive = "percent: P | naive"\n', "KIND one of share, speedup"),
    ('[results.values]\nnaive = "share: P"\n', 'a share value is "share: PROBLEM | VARIANT"'),
    ('[results.values]\nnaive = "times: P | a"\n', "PROBLEM | SLOWER | FASTER"),
    ('[results.values]\nnaive = "variant: P | CPU"\n', "a prefix ending in *"),
    ('[results.values]\ngap = "difference: naive | other"\n', "the difference of 'naive', which is not"),
    (VALUES + '[[results.summary]]\ntext = "{navie} of copy"\n', "quotes {navie}, which is not a name"),
    (VALUES + '[[results.summary]]\ntext = "{naive:.1f}"\n', "{naive} takes no format"),
    (VALUES + '[[results.summary]]\nwhen = "naive >"\ntext = "x"\n', "cannot read the expression"),
    (VALUES + '[[results.summary]]\nwhen = "navie > 1"\ntext = "x"\n', "names 'navie', which is not a name"),
    (VALUES + '[[results.summary]]\nwhen = "__import__(\'os\')"\ntext = "x"\n', "which a manifest's expression cannot"),
    (VALUES + '[[results.summary]]\nwhen = "naive.real > 1"\ntext = "x"\n', "which a manifest's expression cannot"),
    (VALUES + '[[results.summary]]\nwhen = "naive > 1"\n', "lacks 'text'"),
    ('[profile_table]\ncompared_with = [1]\n', "[profile_table] has no columns"),
    ('[profile_table]\nchapters = [1]\n', "profile_table has no field 'chapters'"),
    ('[profile_table]\ncompared_with = ["one"]\n', "compared_with must be a list of chapter numbers"),
    ('[[profile_table.columns]]\nheading = "h"\nvalue = "2 / 3"\n', "the column 'h' names no counter"),
    ('[[profile_table.columns]]\nheading = "h"\nvalue = "{global loads: requests} ** 2"\n', "which a manifest's expression cannot"),
    ('[roofline]\nproblem = "P"\nvariants = [["profile name"]]\n', "roofline.variants must be a list of"),
    ("[results\n", "not valid TOML"),
]
for text, expected in BROKEN:
    message = read_text(text)
    check(isinstance(message, str) and "chapter.toml" in message and expected in message,
          f"the manifest {text!r} should be refused with {expected!r}, got: {message}")

# ---- The summary's templates -------------------------------------------------------------------------
COLUMNS = ["chapter", "folder", "tree", "problem", "variant", "median_ms", "percent_of_ceiling", "speedup", "check"]


def measured(rows):
    return MeasuredChapter([dict(zip(COLUMNS, ["1", "01-x", "solutions", *row])) for row in rows], "test.csv")


TEMPLATES = read_text('''
[[results.goals]]
what = "g"
goal = 90.0
aim = 95.0
problem = "P"
variants = ["fast"]

[results.values]
slow = "share: P | slow"
fast = "share: P | fast"
fast_speedup = "speedup: P | fast"
broken = "share: P | broken"
gap = "difference: fast | slow"
over_cpu = "times: Q | CPU: library, * | fast"
threads = "variant: Q | CPU: library, *"
listed = "shares: P | slow | broken | fast | absent"
''' + array_of_tables(
    "results.summary",
    {"text": "{slow} {fast} {fast_speedup} {gap} {over_cpu} {threads} [{listed}]"},
    {"when": "fast > slow and measured(threads)", "text": " A"},
    {"when": "not fast > slow", "text": " B"},
    {"when": "goals_met('P')", "text": " C"},
    {"when": "fast - slow >= 45.5 or measured(broken)", "text": " D"},
))
check(not isinstance(TEMPLATES, str), f"the templates' manifest should read: {TEMPLATES}")
if not isinstance(TEMPLATES, str):
    # (problem, variant, median_ms, percent_of_ceiling, speedup, check)
    rows = [("P", "slow", "4", "45.25", "1", "ok"), ("P", "fast", "2", "90.75", "2", "ok"),
            ("P", "broken", "1", "99", "3", "WRONG"),
            ("Q", "CPU: library, 7 threads", "0.5", "", "", "WRONG"),
            ("Q", "CPU: library, 16 threads", "250", "", "", "ok"), ("Q", "fast", "0.125", "", "", "ok")]
    cases = [
        (rows, "45.2% 90.8% 2.00× 45.5 2,000× 16 threads [slow 45.2%, fast 90.8%] A C D"),
        # fast slower than slow, below its goal: the other branch, no C, no D
        ([("P", "slow", "4", "45.25", "1", "ok"), ("P", "fast", "2", "44", "0.5", "ok"),
          ("Q", "CPU: library, 2 threads", "9", "", "", "ok"), ("Q", "fast", "1", "", "", "ok")],
         "45.2% 44.0% 0.50× -1.2 9.0× 2 threads [slow 45.2%, fast 44.0%] B"),
        # slow not measured: a comparison with it is false, whatever the other value
        ([("P", "fast", "2", "90.75", "2", "ok"), ("Q", "CPU: library, 4 threads", "8", "", "", "ok"),
          ("Q", "fast", "1", "", "", "ok")],
         "n/a 90.8% 2.00× n/a 8.0× 4 threads [fast 90.8%] B C"),
        # nothing measured but a failed row: every value n/a, every comparison false (so B, the not)
        ([("P", "fast", "2", "95", "2", "WRONG")], "n/a n/a n/a n/a n/a n/a [n/a] B"),
    ]
    for case_rows, expected in cases:
        got = summary(TEMPLATES, measured(case_rows))
        check(got == expected, f"the summary of {case_rows}: expected {expected!r}, got {got!r}")

# ---- A goal over the step before (measure "over_previous") ------------------------------------------
def goal_of_one(what, measure, variants):
    """The manifest of one goal of 1 (and aim of 1) on problem P, measured as `measure`."""
    return read_text(f"""
[[results.goals]]
what = "{what}"
goal = 1.0
aim = 1.0
problem = "P"
measure = "{measure}"
variants = [{", ".join(f'"{v}"' for v in variants)}]
""")


STEPS = goal_of_one("steps", "over_previous", ["1a first", "1b second", "tiled 32 (chapter 2)", "1d last"])
check(not isinstance(STEPS, str), f"a goal measured over the step before should read: {STEPS}")
if not isinstance(STEPS, str):
    goal = STEPS.goals[0]
    # 1b twice as fast as 1a, "tiled 32" slower than 1b, 1d's check failed: its comparison says so
    chapter = measured([("P", "1a first", "4", "", "", "ok"), ("P", "1b second", "2", "", "", "ok"),
                        ("P", "tiled 32 (chapter 2)", "2.5", "", "", "ok"), ("P", "1d last", "1", "", "", "WRONG")])
    expected = ("1b over 1a 2.00×, tiled 32 over 1b 0.80×, 1d over tiled 32 **WRONG**",
                "1b over 1a yes, tiled 32 over 1b **no**")
    got = goal_against(chapter, goal)
    check(got == expected, f"each step against the one before: expected {expected}, got {got}")
    check(goal_against(None, goal) == ("not measured", "–"),
          f"a goal of a chapter not measured reads 'not measured', got {goal_against(None, goal)}")

# ---- A goal against the library row (measure "library") ---------------------------------------------
LIBRARY_GOAL = goal_of_one("level with the library", "library", ["ours"])
check(not isinstance(LIBRARY_GOAL, str), f"a goal measured against the library should read: {LIBRARY_GOAL}")
if not isinstance(LIBRARY_GOAL, str):
    # The figure is the times_library column (the library's time over ours), not the speed-up
    # over the baseline: 0.99 misses a goal of 1 though the speed-up is 1.5.
    row = dict(zip(COLUMNS + ["times_library"], ["1", "01-x", "solutions", "P", "ours", "2", "50", "1.5", "ok", "0.99"]))
    got = goal_against(MeasuredChapter([row], "test.csv"), LIBRARY_GOAL.goals[0])
    check(got == ("0.99×", "**no**"), f"0.99 times the library against a goal of 1: expected ('0.99×', '**no**'), got {got}")
    # A figure just under the goal is not printed as the goal itself beside "missed".
    row["times_library"] = "0.9955"
    got = goal_against(MeasuredChapter([row], "test.csv"), LIBRARY_GOAL.goals[0])
    check(got == ("0.996×", "**no**"), f"0.9955 against a goal of 1: expected ('0.996×', '**no**'), got {got}")
    row["percent_of_ceiling"] = "89.96"
    share_goal = dataclasses.replace(LIBRARY_GOAL.goals[0], goal=90.0, measure="share")
    got = goal_against(MeasuredChapter([row], "test.csv"), share_goal)
    check(got == ("89.96%", "**no**"), f"89.96% against a goal of 90%: expected ('89.96%', '**no**'), got {got}")

# ---- A profile column's formula ---------------------------------------------------------------------
columns = read_text(array_of_tables(
    "profile_table.columns",
    {"heading": "per output", "value": "({global loads: bytes requested} - 2) / {global stores: bytes requested} * 3"},
    {"heading": "conflicts", "value": "{shared loads: bank conflicts or 0} + {shared stores: bank conflicts or 0}"},
    {"heading": "strict", "value": "{shared loads: wavefronts}"},
))
check(not isinstance(columns, str), f"the profile columns' manifest should read: {columns}")
if not isinstance(columns, str):
    variant = Variant(3, "tiles", "kernel")
    variant.counters = {("global loads", "bytes requested"): 10.0, ("global stores", "bytes requested"): 4.0,
                        ("shared stores", "bank conflicts"): 7.0}
    per_output, conflicts, strict = columns.profile_columns
    check(per_output.value(variant) == 6.0, f"(10 - 2) / 4 * 3 should be 6, got {per_output.value(variant)}")
    check(conflicts.value(variant) == 7.0, f"a counter absent with `or 0` counts 0: 0 + 7, got {conflicts.value(variant)}")
    try:
        strict.value(variant)
        failures.append("a counter absent without `or 0` should be refused")
    except Refusal as refusal:
        check("'shared loads: wavefronts'" in str(refusal), f"the refusal should name the counter: {refusal}")
    variant.counters[("global stores", "bytes requested")] = 0.0
    check(per_output.value(variant) is None, "a division by zero should give None, for the table to refuse")

# ---- make chapterN profile-tables: the chapters whose predictions a table reads --------------
registry = read_registry()
comparing = [(c, reader.read_manifest(c.folder).profile_compared_with) for c in registry
             if reader.read_manifest(c.folder) and reader.read_manifest(c.folder).profile_compared_with]
check(comparing, "some chapter's table should compare with another's (chapter 2's with chapter 1's), for the checks below")
for chapter, compared in comparing:
    wanted = [f"chapter{n}" for n in compared] + [chapter.name]
    got = profile_tables.needed(registry, [chapter.number])
    check(got == wanted, f"make {chapter.name} profile-tables should profile {wanted}, not {got}")
    got = profile_tables.needed(registry, [chapter.number, *compared])
    check(len(got) == len(set(got)) and set(wanted) <= set(got),
          f"a chapter named and compared with is profiled once: {wanted} and theirs, not {got}")
check(profile_tables.needed(registry, []) == [c.name for c in registry],
      f"no chapter named: every chapter, once each, got {profile_tables.needed(registry, [])}")
try:
    profile_tables.needed(registry, ["999"])
    failures.append("profile-tables of a chapter not in the registry should be refused")
except Refusal as refusal:
    check("chapter999" in str(refusal), f"the refusal should name the chapter: {refusal}")

# ---- The site: each chapter's figures under names of their own --------------------------------
pages = docs.chapter_pages()
page = pages[0]
lesson_figures = {f.name for f in page.figures()}
check("roofline.svg" in lesson_figures, f"{page.lesson.parent}/figures/ should hold roofline.svg: {sorted(lesson_figures)}")
line = "![the kernels](figures/roofline.svg)"
site_line = docs.LINK.sub(lambda m: docs.rewrite_link(m, page.lesson, pages), line)
check(site_line == f"![the kernels]({page.label}-roofline.svg)",
      f"a lesson's figure on the site should be {page.label}-roofline.svg: {site_line}")
names = [p.figure_name(f) for p in pages for f in p.figures()]
check(len(names) == len(set(names)), "two chapters' figures of one name should have different names on the site")
with tempfile.TemporaryDirectory() as folder:
    docs.write_pages(folder, False)
    written = sorted(f.name for f in (Path(folder) / "figures").iterdir())
    check(written == sorted(names), f"the site's figures/ should hold every chapter's figures, renamed: {written}")

finish("tests/manifest_reader.py", "every manifest reads, and broken ones are refused")
