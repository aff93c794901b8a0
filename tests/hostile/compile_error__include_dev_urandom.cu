// Random bytes as source, unless the compiler refuses a device.
#include "/dev/urandom"
