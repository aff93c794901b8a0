// The reference by a path relative to the job's working folder.
#include "reference.cu"
