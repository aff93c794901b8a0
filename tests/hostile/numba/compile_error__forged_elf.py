# A forged result whose "PTX" is a cubin's first bytes (an ELF image, which
# the driver answers with another error than for PTX it refuses): every
# failure to load a Numba side's PTX is the student's compile_error.
import json
import os

os.write(3, (json.dumps({"status": "ok", "ptx": {"add_kernel": "\x7fELF\x02\x01\x01"},
                         "entries": {"add_kernel": "forged"}}) + "\n").encode())
os._exit(0)
