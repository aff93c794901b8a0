# A forged result that says "ok" and nothing else (it crashed the grading
# worker once): the student's compile_error, never kgrade's.
import os

os.write(3, b'{"status": "ok"}\n')
os._exit(0)
