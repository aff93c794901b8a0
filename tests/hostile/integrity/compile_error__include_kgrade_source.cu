// kgrade's own sources.
#include "@SOURCE@/grader/grade.c"
