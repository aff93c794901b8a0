// The kgrade binary that runs the job: it is executed by descriptor, never
// shown to the job.
#include "@KGRADE@"
