"""A chapter's metadata: its chapters/NN-name/chapter.toml, read here and nowhere else.

The registry line says what a chapter is (number, folder, title, borrows); the manifest says
what the tools write about it, as data: no chapter folder holds code. Its sections, all
optional (docs/maintainers.md explains them, with an example):

  [profile_table]   the lesson's profile table (profile_tables.py, make profile-tables):
      compared_with = [1]      the chapters whose predicted tables' rows come before its own
                               (never its own number, so that a copy's table is its own);
      [[profile_table.columns]] heading = "...", value = a formula of the profile's counters,
                               "{global loads: bytes requested} / {global stores: bytes requested}":
                               {group: counter} as chapterN-predicted.csv names it, numbers,
                               + - * / and parentheses; "{group: counter or 0}" for a counter
                               that a kernel without, say, shared memory does not have.
  [[results.bars]]  what, seed_share, problem, variants: the bars the solution must reach;
  [[results.goals]] what, goal, aim, problem, variants: the going-further goals, as shares
      of the ceiling in percent; with measure = "speedup", as speed-ups over the problem's
      baseline (the library a user would call), 5 for five times as fast; with measure =
      "library", as the library row's time over the variant's (1 for as fast as the library,
      where the library is not the baseline); with measure = "over_previous", each variant's speed-up over the one before it in `variants` (the
      steps in order; 1 for as fast), each named by its first word, or its first two when
      the first has no digit ("10b over 10a", "8a over tiled 32");
  [results.values]  the numbers the summary quotes, by name (results.py computes them):
      name = "share: PROBLEM | VARIANT"     its share of the ceiling, shown as 10.3%
             "speedup: PROBLEM | VARIANT"   its speed-up over the baseline, shown as 1.23x
             "library: PROBLEM | VARIANT"   the library row's time over the variant's
                                            (× the library), shown as 1.03x (0.997x where
                                            two decimals would read 1.00x)
             "times: PROBLEM | SLOWER | FASTER"  the slower one's median time over the
                                            faster one's, shown as 5.4x (12,190x from 100)
             "difference: NAME | NAME"      the first value less the second, shown as 12.3
             "shares: PROBLEM | VARIANT | VARIANT ..."  "VARIANT 10.3%, ..." for the
                                            variants measured, in that order
             "variant: PROBLEM | PREFIX*"   what follows PREFIX in the name of the first
                                            variant measured whose name starts with it
      A VARIANT ending in * is the first variant measured whose name starts with the rest.
      A value not measured (no row, or a row whose check failed) shows as n/a.
  [[results.summary]] text = "... {name} ...", when = "condition": the page's sentence about
      the chapter is the texts whose condition holds, in order; each {name} is a value. A
      condition is an expression of the values: numbers, + - * /, comparisons, and, or, not,
      measured(name, ...) (every one has a value) and goals_met("PROBLEM") (every goal on
      that problem is reached; goals_met(): every goal). A sum with a value not measured is
      not measured either, and a comparison with one is false.
  going_further     = ["@c", "@d"]: the chapter's optional steps, as its lesson labels them
                      (in any string of the file, "@c" is the chapter's own step c: "8c" in
                      chapter 8, so that a copy under another number names its own)
      "(going further)". Their test cases name the step first ("8c: ...") and are tagged
      [extra]: reported, scored and shown by `make status` apart (tests/manifest_reader.py
      checks that the lesson, the tests and this list agree).
  [roofline]        problem = the benchmark's problem the points come from, and
      variants = [[the profile's variant name, the benchmark's variant name], ...].

Python 3.11 or later (tomllib); the verbs that do not read manifests run on older ones.
"""

from __future__ import annotations

import ast
import dataclasses
import operator
import re
import string
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python before 3.11: only the verbs that read a manifest need it
    tomllib = None

from .course import ROOT, Refusal

FILE_NAME = "chapter.toml"


# ---- Expressions ---------------------------------------------------------------------------

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}


class Expression:
    """A formula or condition of a manifest, parsed once and checked against what it may use:
    names, numbers, + - * / and parentheses; a condition also comparisons, and/or/not, and
    calls of its functions with names or quoted strings as arguments. A value that is None
    (not measured) makes a sum None and a comparison false.

    @p written is the text as the manifest writes it, for messages, and @p spelled each name
    as written there (a profile formula's counters are the names counter_0, ... here)."""

    def __init__(self, text: str, where: str, functions: frozenset[str] | None = None, written: str | None = None,
                 spelled: dict[str, str] | None = None):
        self.text, self.where, self.written, self.spelled = text, where, written or text, spelled or {}
        self.logic = functions is not None
        try:
            self.tree = ast.parse(text.strip(), mode="eval").body
        except SyntaxError as error:
            raise Refusal(f"{where}: cannot read the expression {self.written!r}: {error.msg}") from None
        self.names: set[str] = set()
        self._check(self.tree, functions or frozenset())

    def _check(self, node, functions):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return
        if isinstance(node, ast.Name):
            self.names.add(node.id)
            return
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            children = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp) and (isinstance(node.op, ast.USub) or (self.logic and isinstance(node.op, ast.Not))):
            children = [node.operand]
        elif self.logic and isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            children = [node.left, *node.comparators]
        elif self.logic and isinstance(node, ast.BoolOp):
            children = node.values
        elif (self.logic and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions
              and not node.keywords):
            for argument in node.args:
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    continue
                if not isinstance(argument, ast.Name):
                    raise Refusal(f"{self.where}: in {self.written!r}, {node.func.id}() takes names or quoted strings")
                self.names.add(argument.id)
            return
        else:
            allowed = ("{group: counter}, numbers, + - * / and parentheses" if not self.logic else
                       "names, numbers, + - * /, comparisons, and, or, not, and the functions "
                       + ", ".join(f"{f}()" for f in sorted(functions)))
            what = re.sub(r"\w+", lambda word: self.spelled.get(word[0], word[0]), ast.unparse(node))
            raise Refusal(f"{self.where}: {self.written!r} uses {what!r}, which a manifest's expression "
                          f"cannot: it may use {allowed}")
        for child in children:
            self._check(child, functions)

    def evaluate(self, values: dict, functions: dict | None = None):
        return self._evaluate(self.tree, values, functions or {})

    def _evaluate(self, node, values, functions):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.BinOp):
            left, right = self._evaluate(node.left, values, functions), self._evaluate(node.right, values, functions)
            if left is None or right is None or (isinstance(node.op, ast.Div) and right == 0):
                return None
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self._evaluate(node.operand, values, functions)
            if isinstance(node.op, ast.Not):
                return not operand
            return None if operand is None else -operand
        if isinstance(node, ast.Compare):
            left = self._evaluate(node.left, values, functions)
            for op, comparator in zip(node.ops, node.comparators):
                right = self._evaluate(comparator, values, functions)
                if left is None or right is None or not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            results = (bool(self._evaluate(v, values, functions)) for v in node.values)
            return all(results) if isinstance(node.op, ast.And) else any(results)
        arguments = [a.value if isinstance(a, ast.Constant) else values[a.id] for a in node.args]
        return functions[node.func.id](*arguments)


# ---- The profile table ---------------------------------------------------------------------

_COUNTER = re.compile(r"\{([^{}:]+):([^{}]+)\}")


@dataclasses.dataclass(frozen=True)
class Counter:
    """A counter of the profile's table, {group: counter}; with `or 0`, one a variant may lack."""

    group: str
    counter: str
    absent_is_zero: bool


@dataclasses.dataclass(frozen=True)
class ProfileColumn:
    heading: str
    formula: Expression  # of the names counter_0, counter_1, ...: the counters below, in order
    counters: tuple[Counter, ...]

    def value(self, variant):
        """The cell of one variant (profile_tables.Variant), or None when it divides by zero."""
        values = {}
        for index, c in enumerate(self.counters):
            values[f"counter_{index}"] = variant.get(c.group, c.counter) if c.absent_is_zero else variant[c.group, c.counter]
        return self.formula.evaluate(values)


def profile_column(heading: str, text: str, where: str) -> ProfileColumn:
    counters, spelled = [], {}

    def name(match):
        counter = match[2].strip()
        absent_is_zero = counter.endswith(" or 0")
        if absent_is_zero:
            counter = counter[: -len(" or 0")].strip()
        counters.append(Counter(match[1].strip(), counter, absent_is_zero))
        spelled[f"counter_{len(counters) - 1}"] = match[0]
        return f"counter_{len(counters) - 1}"

    formula = Expression(_COUNTER.sub(name, text), f"{where}: the column {heading!r}", written=text,
                         spelled=spelled)
    if not counters:
        raise Refusal(f"{where}: the column {heading!r} names no counter: write them as {{group: counter}}")
    return ProfileColumn(heading, formula, tuple(counters))


# ---- The results page ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Bar:
    """A seed kernel's share of the ceiling, which the reference solution must reach."""

    what: str
    seed_share: float
    problem: str
    variants: tuple[str, ...]


# How a goal is measured: the benchmark's column, and how a figure of it reads. "over_previous"
# compares each variant after the first with the one before it in `variants`: the earlier
# one's median time over the later one's, so that 1 is as fast and above 1 faster.
GOAL_MEASURES = {"share": "percent_of_ceiling", "speedup": "speedup", "library": "times_library",
                 "over_previous": "median_ms"}


@dataclasses.dataclass(frozen=True)
class Goal:
    """A going-further goal and aim: shares of the ceiling (measure "share"), speed-ups
    over the problem's baseline (measure "speedup") or over its library row (measure
    "library"), or each step's speed-up over the step before it (measure "over_previous")."""

    what: str
    goal: float
    aim: float
    problem: str
    variants: tuple[str, ...]
    measure: str = "share"

    @property
    def column(self) -> str:
        """The benchmark file's column the goal is read from."""
        return GOAL_MEASURES[self.measure]

    def shown(self, value: float) -> str:
        """A figure of this goal's measure: 90%, 17.5% or 5x."""
        return f"{value:g}%" if self.measure == "share" else f"{value:g}×"


VALUE_KINDS = {  # kind: the number of fields after the colon (None: two or more)
    "share": 2, "speedup": 2, "library": 2, "times": 3, "difference": 2, "shares": None, "variant": 2,
}


@dataclasses.dataclass(frozen=True)
class Value:
    """A number or name the summary quotes: its kind (VALUE_KINDS) and its fields, the problem
    first (for "difference", the two values' names)."""

    kind: str
    fields: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SummaryPart:
    text: str
    when: Expression | None


@dataclasses.dataclass
class Manifest:
    path: Path
    profile_compared_with: list[str] = dataclasses.field(default_factory=list)
    profile_columns: list[ProfileColumn] = dataclasses.field(default_factory=list)
    bars: list[Bar] = dataclasses.field(default_factory=list)
    goals: list[Goal] = dataclasses.field(default_factory=list)
    values: dict[str, Value] = dataclasses.field(default_factory=dict)
    summary: list[SummaryPart] = dataclasses.field(default_factory=list)
    roofline_problem: str | None = None
    roofline_variants: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    going_further: tuple[str, ...] = ()


CONDITION_FUNCTIONS = frozenset({"measured", "goals_met"})


class _Reader:
    """Checks each field's type as it takes it, and that nothing is left unread."""

    def __init__(self, path: Path):
        self.where = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)

    def fail(self, message):
        raise Refusal(f"{self.where}: {message}")

    def table(self, data, name, keys):
        """data[name] as a table whose keys are among `keys`, or {} when absent."""
        table = data.get(name, {})
        if not isinstance(table, dict):
            self.fail(f"{name} must be a table")
        unknown = sorted(set(table) - set(keys))
        if unknown:
            self.fail(f"{name} has no field {unknown[0]!r} (its fields: {', '.join(keys)})")
        return table

    def tables(self, data, name, keys, context):
        """data[name] as a list of tables, each with exactly `keys` (those in `optional` may be absent)."""
        entries = data.get(name, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.fail(f"{context}{name} must be a list of tables ([[{context}{name}]])")
        for entry in entries:
            missing = [k for k, required in keys.items() if required and k not in entry]
            unknown = sorted(set(entry) - set(keys))
            if missing or unknown:
                self.fail(f"an entry of {context}{name} " + (f"lacks {missing[0]!r}" if missing else f"has no field {unknown[0]!r}")
                          + f" (its fields: {', '.join(keys)})")
        return entries

    def text(self, value, what):
        if not isinstance(value, str):
            self.fail(f"{what} must be a string, not {value!r}")
        return value

    def number(self, value, what):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(f"{what} must be a number, not {value!r}")
        return float(value)

    def texts(self, value, what):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            self.fail(f"{what} must be a list of strings, not {value!r}")
        return tuple(value)


# A step of the chapter itself, written in chapter.toml without its number: "@c" is "3c" in
# chapter 3 (C++ writes it STEP("c"), common/tutorial_chapter.h), so that a chapter copied
# under another number names its own steps. Another chapter's steps are written in full.
OWN_STEP = re.compile(r"@([a-z])\b")


def _chapter_number(path: Path) -> str | None:
    """The registry's number of the chapter whose folder holds `path`, or None."""
    from .course import read_registry
    return next((c.number for c in read_registry() if c.folder == path.parent.name), None)


def _own_steps(value, number: str | None, reader: "_Reader"):
    """`value` with every "@c" in its strings made the chapter's step, "3c"."""
    if isinstance(value, str):
        if OWN_STEP.search(value) and number is None:
            reader.fail(f"writes a step as {OWN_STEP.search(value).group(0)}, but its folder is not a chapter of "
                        "chapters/registry, which gives the number")
        return OWN_STEP.sub(lambda m: f"{number}{m.group(1)}", value)
    if isinstance(value, list):
        return [_own_steps(v, number, reader) for v in value]
    if isinstance(value, dict):
        return {k: _own_steps(v, number, reader) for k, v in value.items()}
    return value


def read_manifest(folder: str) -> Manifest | None:
    """The manifest of the chapter in chapters/`folder`, or None if it has none."""
    path = ROOT / "chapters" / folder / FILE_NAME
    return read_manifest_file(path) if path.exists() else None


def read_manifest_file(path: Path) -> Manifest:
    """The manifest in `path`, every field checked: a Refusal names the file and the field."""
    if tomllib is None:
        raise Refusal(f"reading {path.relative_to(ROOT)} needs Python 3.11 or later (its tomllib); "
                      f"this is Python {sys.version.split()[0]}")
    reader = _Reader(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        reader.fail(f"not valid TOML: {error}")
    data = _own_steps(data, _chapter_number(path), reader)
    unknown = sorted(set(data) - {"going_further", "profile_table", "results", "roofline"})
    if unknown:
        reader.fail(f"has no section [{unknown[0]}] (its fields: going_further; its sections: [profile_table], "
                    "[results], [roofline])")
    manifest = Manifest(path)
    if "going_further" in data:
        steps = data["going_further"]
        if (not isinstance(steps, list) or not all(isinstance(s, str) and re.fullmatch(r"\d+[a-z]", s) for s in steps)
                or len(set(steps)) != len(steps)):
            reader.fail(f"going_further must be a list of distinct steps such as \"8c\", not {steps!r}")
        manifest.going_further = tuple(steps)

    profile = reader.table(data, "profile_table", ["compared_with", "columns"])
    if "compared_with" in profile:
        chapters = profile["compared_with"]
        if not isinstance(chapters, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in chapters):
            reader.fail(f"profile_table.compared_with must be a list of chapter numbers, not {chapters!r}")
        manifest.profile_compared_with = [str(n) for n in chapters]
    for column in reader.tables(profile, "columns", {"heading": True, "value": True}, "profile_table."):
        heading = reader.text(column["heading"], "a profile column's heading")
        manifest.profile_columns.append(profile_column(heading, reader.text(column["value"], f"the column {heading!r}'s value"),
                                                       reader.where))
    if profile and not manifest.profile_columns:
        reader.fail("[profile_table] has no columns ([[profile_table.columns]])")

    results = reader.table(data, "results", ["bars", "goals", "values", "summary"])
    for bar in reader.tables(results, "bars", dict.fromkeys(["what", "seed_share", "problem", "variants"], True), "results."):
        what = reader.text(bar["what"], "a bar's what")
        manifest.bars.append(Bar(what, reader.number(bar["seed_share"], f"the bar {what!r}'s seed_share"),
                                 reader.text(bar["problem"], f"the bar {what!r}'s problem"),
                                 reader.texts(bar["variants"], f"the bar {what!r}'s variants")))
    goal_keys = {**dict.fromkeys(["what", "goal", "aim", "problem", "variants"], True), "measure": False}
    for goal in reader.tables(results, "goals", goal_keys, "results."):
        what = reader.text(goal["what"], "a goal's what")
        measure = reader.text(goal.get("measure", "share"), f"the goal {what!r}'s measure")
        if measure not in GOAL_MEASURES:
            reader.fail(f"the goal {what!r}'s measure must be one of {', '.join(map(repr, GOAL_MEASURES))}, not {measure!r}")
        manifest.goals.append(Goal(what, reader.number(goal["goal"], f"the goal {what!r}'s goal"),
                                   reader.number(goal["aim"], f"the goal {what!r}'s aim"),
                                   reader.text(goal["problem"], f"the goal {what!r}'s problem"),
                                   reader.texts(goal["variants"], f"the goal {what!r}'s variants"), measure))
    values = results.get("values", {})
    if not isinstance(values, dict):
        reader.fail("results.values must be a table of name = \"kind: fields\"")
    for name, definition in values.items():
        manifest.values[name] = read_value(reader, name, definition)
    for name, value in manifest.values.items():
        if value.kind == "difference":
            for other in value.fields:
                if manifest.values.get(other, Value("", ())).kind not in ("share", "speedup", "times"):
                    reader.fail(f"the value {name!r} is the difference of {other!r}, which is not a share, "
                                "speedup or times value of results.values")
    for part in reader.tables(results, "summary", {"text": True, "when": False}, "results."):
        text = reader.text(part["text"], "a summary text")
        for _, field, spec, conversion in string.Formatter().parse(text):
            if field is not None and (field not in manifest.values or spec or conversion):
                reader.fail(f"the summary text {text[:40]!r}... quotes {{{field}}}, which is not a name of results.values"
                            if field not in manifest.values else f"{{{field}}} takes no format: its kind sets it")
        when = None
        if "when" in part:
            when = Expression(reader.text(part["when"], "a summary part's when"), reader.where, CONDITION_FUNCTIONS)
            undefined = sorted(when.names - set(manifest.values))
            if undefined:
                reader.fail(f"the condition {when.text!r} names {undefined[0]!r}, which is not a name of results.values")
        manifest.summary.append(SummaryPart(text, when))

    roofline = reader.table(data, "roofline", ["problem", "variants"])
    if roofline:
        manifest.roofline_problem = reader.text(roofline.get("problem"), "roofline.problem")
        pairs = roofline.get("variants")
        if (not isinstance(pairs, list) or not pairs
                or not all(isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in pairs)):
            reader.fail("roofline.variants must be a list of [the profile's variant name, the benchmark's variant name]")
        manifest.roofline_variants = [tuple(p) for p in pairs]
    return manifest


def read_value(reader: _Reader, name: str, definition) -> Value:
    if not name.isidentifier():
        reader.fail(f"the value name {name!r} must be a word (letters, digits, _)")
    kind, colon, rest = reader.text(definition, f"the value {name!r}").partition(":")
    kind = kind.strip()
    if not colon or kind not in VALUE_KINDS:
        reader.fail(f"the value {name!r} = {definition!r} must be \"KIND: FIELDS\" with KIND one of "
                    f"{', '.join(VALUE_KINDS)}")
    fields = tuple(f.strip() for f in rest.split("|"))
    count = VALUE_KINDS[kind]
    if (count is not None and len(fields) != count) or (count is None and len(fields) < 2) or not all(fields):
        shape = {"times": "PROBLEM | SLOWER | FASTER", "difference": "NAME | NAME", "shares": "PROBLEM | VARIANT | ...",
                 "variant": "PROBLEM | PREFIX*"}.get(kind, "PROBLEM | VARIANT")
        reader.fail(f"the value {name!r} = {definition!r}: a {kind} value is \"{kind}: {shape}\"")
    if kind == "variant" and not fields[1].endswith("*"):
        reader.fail(f"the value {name!r} = {definition!r}: a variant value's second field is a prefix ending in *")
    return Value(kind, fields)
