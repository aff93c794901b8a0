// The reference by a path relative to where kgrade was started (the
// checkout's root, for `kgrade grade` and for a service started there).
#include "@EXERCISE_REL@/reference.cu"
