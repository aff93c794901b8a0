// A shipped known-good solution, by its absolute path.
#include "@EXERCISE_DIR@/solutions/@SOLUTION@"
