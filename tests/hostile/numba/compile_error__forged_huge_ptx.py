# A forged result larger than a job's result may be (6 MB of PTX).
import os

os.write(3, b'{"status": "ok", "ptx": {"add_kernel": "' + b"/" * (6 << 20) +
         b'"}, "entries": {"add_kernel": "k"}}\n')
os._exit(0)
