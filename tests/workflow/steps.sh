# What the scripted sessions of tests/workflow/ share: steps run as a user types them,
# checks of their output, and the scratch clone they run in. Sourced by a session, which
# sets $root (this repository) and calls start_session first.

# start_session NAME [--keep]: a transcript, build/check/NAME.log, where every step and its
# output go; a scratch clone of the tree under test, entered, starting from the objects
# $root has built (reuse_build_of), its chapters read into $registry; with --keep, left in place.
start_session() {
    transcript=$root/build/check/$1.log
    mkdir -p "$(dirname "$transcript")"
    : >"$transcript"
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    if [ "${2:-}" = --keep ]; then
        echo "The scratch clone stays in $scratch/tutorial"
    else
        trap 'rm -rf "$scratch"' EXIT
    fi
    clone_tree_under_test "$root"
    reuse_build_of "$root"
    registry=$(python3 -m tools.tutorial chapters --fields)
}

# The chapters, through the tools' one reader of the registry, as the session started:
# "number<TAB>folder<TAB>title" a line. folder_of N, title_of N: chapter N's.
registry=
folder_of() { awk -F'\t' -v n="$1" '$1 == n {print $2}' <<<"$registry"; }
title_of() { awk -F'\t' -v n="$1" '$1 == n {print $3}' <<<"$registry"; }

passed=0
failed=0
step_name=
out=
rc=0

# run DESCRIPTION COMMAND...: run a step as the learner types it, in the scratch clone.
run() {
    step_name=$1
    shift
    local started=$SECONDS
    out=$("$@" 2>&1)
    rc=$?
    printf '\n==== %s\n$ %s\n%s\n(exit status %s, %s s)\n' "$step_name" "$*" "$out" "$rc" "$((SECONDS - started))" >>"$transcript"
}
ok() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "  FAIL  $step_name: $1"
    sed 's/^/        | /' <<<"$out" | head -40
}
# expect REGEX WHY: a line of the step's output matches the extended regex.
expect() { if grep -qE -- "$1" <<<"$out"; then ok; else fail "expected a line matching /$1/: $2"; fi; }
expect_text() { if grep -qF -- "$1" <<<"$out"; then ok; else fail "expected the text '$1': $2"; fi; }
expect_not() { if grep -qE -- "$1" <<<"$out"; then fail "expected no line matching /$1/: $2"; else ok; fi; }
expect_status() {
    if [ "$1" = nonzero ] && [ "$rc" -ne 0 ] || [ "$1" = "$rc" ]; then ok; else fail "exit status $rc, expected $1: $2"; fi
}
# expect_row CHAPTER TEXT WHY: the row of CHAPTER (a line starting with it) contains TEXT.
expect_row() {
    if grep -E "^$1 " <<<"$out" | grep -qF -- "$2"; then ok; else fail "the $1 row should contain '$2': $3"; fi
}
expect_last_line() {
    if tail -n 1 <<<"$out" | grep -qE -- "$1"; then ok; else fail "the last line should match /$1/: $2"; fi
}
same_file() { if cmp -s "$1" "$2"; then ok; else fail "$1 should equal $2: $3"; fi; }

# clone_tree_under_test ROOT: a clone of ROOT in $scratch/tutorial, with what is not
# committed yet committed on top (in the clone only), entered as the current folder.
clone_tree_under_test() {
    local root=$1
    # What is not committed yet is committed on top, in the scratch clone only.
    git clone -q "$root" "$scratch/tutorial" || { echo "  FAIL  cannot clone $root"; exit 1; }
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -xf - -C "$scratch/tutorial"
    cd "$scratch/tutorial" || exit 1
    # A file deleted in the tree but not yet in a commit is deleted in the clone too.
    git ls-files -z | while IFS= read -r -d '' f; do [ -e "$root/$f" ] || rm -f "$f"; done
    git add -A && git -c user.name=learner -c user.email=learner@example.invalid commit -qm "the tree under test" >/dev/null
    # A learner's shell: nothing inherited from the make that runs this check.
    unset MAKEFLAGS MFLAGS MAKELEVEL SOLUTIONS FORCE RESTART ARGS SEED
}

# reuse_build_of ROOT: the objects ROOT has built for this tree are valid in the clone too:
# start from them, so that only what a session changes is compiled. A clone's files are
# all new, so they are dated back first (the objects, built from the same sources, are
# then up to date).
reuse_build_of() {
    find . -path ./.git -prune -o -type f -exec touch -d '2000-01-01' {} +
    [ -d "$1/build" ] || return 0
    # What a learner would not have is left out, and so is what make check may be writing
    # while the copy is made (its logs and grades), when it runs parts side by side. The
    # solutions' expected runs (*.expected-seed*) come along: make check makes them before
    # any part starts, and make grade would only make them again, the same.
    mkdir -p build
    tar -C "$1/build" --exclude=./check --exclude=./grade --exclude='./*/status' --exclude=./backups \
        --exclude=./hints --exclude='*.results' -cf - . 2>/dev/null | tar -C build -xf -
}
