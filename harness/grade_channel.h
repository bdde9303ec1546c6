// The grading channel: how a test run tells `make grade` its results, so that code in the
// student's files cannot forge them by printing, by writing files, or by ending the run.
//
// `make grade` (tools/tutorial/judge.py) starts the test program with a pipe open on a file
// descriptor and TUTORIAL_GRADE_CHANNEL=FD:KEY in its environment, KEY a random string made
// for this run. The harness reads both before any static initializer of the student's
// files runs (a constructor of priority 101; the grader rejects student objects with
// constructors of their own priority) and erases the variable from the environment. Each
// snapshot of the results (harness/results_file.cpp) then goes down the pipe, every
// line prefixed with KEY; the judge keeps the last snapshot and trusts nothing else: not
// the console, not the results file, not the exit status. Without the variable (every run
// but a graded one) nothing is sent.
#pragma once

#include <string>

namespace tutorial {

/// True when this run was started by the grader with a channel to report on.
bool grade_channel_open();

/// Send @p text (one or more lines) to the grader as one snapshot, each line prefixed with
/// the run's key, between a "begin" and an "end" line.
void grade_channel_send_snapshot(const std::string& text);

}  // namespace tutorial
