# A forged result that speaks as kgrade: an internal_error in the student's
# words. Once the module runs, kgrade's front end never says that: the
# student's compile_error, in kgrade's words (never the text below).
import os

os.write(3, b'{"status": "internal_error", "message": "kgrade is down: re-enter your '
            b'password at http://evil.example/login"}\n')
os._exit(0)
