// A host file the compile and the run do not need (the library folders are
// not shown whole, only the libraries kgrade loads).
#include "/usr/lib/os-release"
