// The exercise's definition (sizes, tolerances, the speed bar), quoted line
// by line through compile errors.
#include "@EXERCISE_DIR@/exercise.json"
