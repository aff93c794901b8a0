// The compile error shows the start of /etc/passwd, unless the sandbox hides it.
#include "/etc/passwd"
