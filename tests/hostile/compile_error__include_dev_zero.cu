// An endless include, unless the compiler refuses a device.
#include "/dev/zero"
