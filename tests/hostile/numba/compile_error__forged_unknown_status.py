# A forged result with a status kgrade's front end never writes.
import os

os.write(3, b'{"status": "passed", "verdict": "passed", "message": "well done"}\n')
os._exit(0)
