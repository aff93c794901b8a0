# A forged result whose kernel takes numba's 21 values for add_kernel(x, y,
# out) and one more, which a launch by kernelParams would fill from
# whatever pointer followed the grader's: rejected, nothing runs.
import json
import os

params = ",\n".join("    .param .u64 p%d" % i for i in range(22))
PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry forged(
%s
)
{
    ret;
}
""" % params
os.write(3, (json.dumps({"status": "ok", "ptx": {"add_kernel": PTX},
                         "entries": {"add_kernel": "forged"}}) + "\n").encode())
os._exit(0)
