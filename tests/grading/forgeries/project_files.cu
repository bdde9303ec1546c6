// Writes files through the project's own functions (common/image_file.h): make grade checks
// every chapter's test program before it runs any, so chapter 1's run could replace a later
// chapter's checked program with a script that replays the expected results.
// expect: calls or uses tutorial::write_file.*a kernel's host wrapper does not need
// expect: calls or uses tutorial::read_pgm
#include "image_file.h"
void replace_the_next_chapters_tests() {
    tutorial::write_file("build/emu/chapters/bin/chapter2-tests", "#!/bin/sh\nexit 0\n");
    tutorial::read_pgm("build/grade/chapter2-expected.results");
}
