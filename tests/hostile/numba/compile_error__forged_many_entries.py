# A forged result with 100,000 kernels, none of them add_kernel: only the
# exercise's kernels are read, and one missing is the student's error.
import json
import os

names = ["k%d" % i for i in range(100000)]
os.write(3, (json.dumps({"status": "ok", "ptx": {n: "p" for n in names},
                         "entries": {n: "e" for n in names}}) + "\n").encode())
os._exit(0)
