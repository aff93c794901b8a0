# A module that writes the front end's result itself, before numba runs:
# its PTX declares add_kernel's first parameter as 8 KB, so that a launch
# copying each parameter's declared size from the grader's pointers would
# hand the kernel 8 KB of the grade job's stack to print. kgrade checks the
# kernel's parameters against numba's ABI first: rejected, nothing runs.
import os

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry forged(
    .param .align 8 .b8 p0[8192]
)
{
    ret;
}
"""
os.write(3, ('{"status": "ok", "ptx": {"add_kernel": %s}, "entries": {"add_kernel": "forged"}}\n'
             % __import__("json").dumps(PTX)).encode())
os._exit(0)
