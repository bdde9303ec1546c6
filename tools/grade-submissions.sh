#!/usr/bin/env bash
# Grade a folder of student submissions on one machine, several at a time.
#
#   bash tools/grade-submissions.sh SUBMISSIONS OUT [JOBS]
#
# SUBMISSIONS holds one folder per student: a clone of their repository, or anything with
# the same chapters/NN-name/ folders. Only the files a student edits are taken from it
# (each chapter's .cu files, the names solutions/ has): the tests, the Makefile and
# everything else come from this copy of the course, so a submission cannot change how
# it is graded. Each submission is graded in its own scratch copy (under OUT/.work/) on
# the CPU backend (GRADE_BACKEND=cuda: on the GPU), with `make grade` and this copy's
# build as a head start; JOBS of them run at once (default: the number of cores), each
# limited to GRADE_TIMEOUT seconds (default 1800); the scratch copies are deleted after (KEEP_WORK=1 keeps them).
# GRADE_CHAPTERS="1 2" grades only those chapters. A file a student did not submit is
# graded as the skeleton that the solutions' markers make (tools/tutorial/skeleton.py),
# never as this copy's chapters/ file. make grade refuses code that could forge a grade
# (docs/instructors.md, "What the grader defends against"); still, student code runs on
# this machine: run this as a user (or in a container) that can reach nothing it should not.
#
# OUT/<student>/ receives make grade's reports: results.json (Gradescope), junit.xml,
# chapterN.{json,xml}, summary.txt. OUT/grades.csv has a row per student: the percentage
# of each chapter and overall, as make grade computes them.
set -u
cd "$(dirname "$0")/.."
course=$(pwd)

submissions=${1:?usage: tools/grade-submissions.sh SUBMISSIONS OUT [JOBS]}
out=${2:?usage: tools/grade-submissions.sh SUBMISSIONS OUT [JOBS]}
jobs=${3:-$(nproc 2>/dev/null || echo 2)}
timeout_s=${GRADE_TIMEOUT:-1800}
[ -d "$submissions" ] || { echo "grade-submissions: $submissions is not a folder" >&2; exit 1; }
case "$jobs" in '' | *[!0-9]* | 0) echo "grade-submissions: JOBS must be a positive number, got '$jobs'" >&2; exit 1 ;; esac
mkdir -p "$out/.work"
out=$(cd "$out" && pwd)
submissions=$(cd "$submissions" && pwd)

# GRADE_CHAPTERS="1 3": grade those chapters only (default: every chapter).
# GRADE_BACKEND=cuda: on the GPU (default emu, the CPU backend).
backend=${GRADE_BACKEND:-emu}
case "$backend" in emu | cuda) ;; *) echo "grade-submissions: GRADE_BACKEND must be emu or cuda, got '$backend'" >&2; exit 1 ;; esac
chapters=${GRADE_CHAPTERS:-$(python3 -m tools.tutorial chapters --fields | cut -f1 | tr '\n' ' ')}
for n in $chapters; do
    python3 -m tools.tutorial chapters --fields | cut -f1 | grep -qx "$n" ||
        { echo "grade-submissions: GRADE_CHAPTERS names chapter $n, which the registry does not have" >&2; exit 1; }
done
chapter_goals=$(printf 'chapter%s ' $chapters)

# The course once, built for the backend: every scratch copy starts from its build,
# which holds the solutions' programs and their runs (the cases each chapter must report).
# One make: the shared code (tested) and each solution's run (which builds its program).
echo "Building the course's shared code and solutions once (make test-common BACKEND=$backend)..."
expected_runs=$(printf "build/$backend/solutions/bin/chapter%s-tests.expected-seeddefault " $chapters)
make test-common $expected_runs SOLUTIONS=1 BACKEND="$backend" >"$out/.work/course-build.log" 2>&1 ||
    { echo "grade-submissions: the course does not build; see $out/.work/course-build.log" >&2; exit 1; }

grade_one() {
    local student=$1 name scratch folder file
    name=$(basename "$student")
    scratch=$out/.work/$name
    rm -rf "$scratch"
    mkdir -p "$scratch"
    # The course without its build, then its build for the backend (objects keep their times).
    tar -C "$course" --exclude=./build --exclude=./.git -cf - . | tar -C "$scratch" -xf -
    mkdir -p "$scratch/build"
    tar -C "$course/build" --exclude="./$backend/chapters/bin" --exclude="./$backend/compile_commands" \
        -cf - "./$backend" | tar -C "$scratch/build" -xf -
    # Every student file starts as the skeleton that the solutions' markers make, never as
    # this copy's chapters/ (which may hold the instructor's own solved work); then the
    # files the student submitted replace their skeletons.
    (cd "$scratch" && python3 -m tools.tutorial skeletons --write >/dev/null) ||
        { echo "grade-submissions: could not write the skeletons in $scratch" >&2; return 1; }
    local taken=() missing=()
    while IFS=$'\t' read -r number folder _; do
        [[ " $chapters " == *" $number "* ]] || continue
        for file in "$course/solutions/$folder"/*.cu; do
            file=chapters/$folder/$(basename "$file")
            if [ -f "$student/$file" ]; then
                cp "$student/$file" "$scratch/$file" && taken+=("$file")
            else
                missing+=("$file")
            fi
        done
    done < <(python3 -m tools.tutorial chapters --fields)
    # The solutions stay: make grade checks the student's objects against theirs and
    # counts the cases against their run. The student's compile and tests do not see them:
    # make grade refuses objects that read files or include a solution, and where the
    # machine allows mount namespaces it hides solutions/ and their builds, the course's
    # here too (TUTORIAL_GRADE_HIDE; tools/tutorial/confine.py).
    (cd "$scratch" && TUTORIAL_GRADE_HIDE="$course/solutions:$course/build/$backend/solutions" timeout "$timeout_s" make grade $chapter_goals BACKEND="$backend" JOBS=1 >grade.log 2>&1)
    local status=$?
    mkdir -p "$out/$name"
    cp -a "$scratch/build/grade/." "$out/$name/" 2>/dev/null
    cp "$scratch/grade.log" "$out/$name/grade.log"
    {
        echo "taken from the submission: ${taken[*]:-nothing}"
        [ ${#missing[@]} -eq 0 ] || echo "missing (graded as the skeleton): ${missing[*]}"
        [ $status -eq 124 ] && echo "grading stopped after $timeout_s s (GRADE_TIMEOUT)"
    } >"$out/$name/files.txt"
    [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$scratch"
    echo "graded $name: $(grep '^Overall' "$out/$name/summary.txt" 2>/dev/null | cut -d' ' -f2 || echo 'no grade (see grade.log)')"
}
export -f grade_one
export course out timeout_s KEEP_WORK chapter_goals chapters backend

find "$submissions" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -print0 | sort -z |
    xargs -0 -r -n 1 -P "$jobs" bash -c 'grade_one "$1"' _

# One row per student, from each results.json.
python3 - "$out" <<'EOF'
import csv, json, sys
from pathlib import Path
out = Path(sys.argv[1])
students = sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
chapters = sorted({c.stem for s in students for c in s.glob("chapter*.json")}, key=lambda n: int(n[7:]))
with open(out / "grades.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["student", *chapters, "overall"])
    for s in students:
        def percent(path):
            try:
                return str(round(json.loads(path.read_text())["score"]))
            except (OSError, ValueError, KeyError):
                return ""
        writer.writerow([s.name, *[percent(s / f"{c}.json") for c in chapters], percent(s / "results.json")])
print(f"{len(students)} submissions graded: {out / 'grades.csv'}")
EOF
