// Includes files of the course that are not its chapter's, common/'s or the harness's public
// headers: the grading channel's header (to report through it) and another chapter's
// reference header.
// expect: includes harness/grade_channel\.h, another file of the course
// expect: includes chapters/03-box-mean/box_mean_reference\.h, another file of the course
#include "grade_channel.h"
#include "../03-box-mean/box_mean_reference.h"
bool channel_is_open() { return tutorial::grade_channel_open(); }
