# Hostile: behaves at import in the front end (which imports the module to see its form, and has no
# fd 5), but starts a process at import in the host job. The sandbox stops the host job while its
# module is imported; the verdict says so.
import math
import os

exp = math.exp
normalize = weigh = activate = None

try:
    os.fstat(5)
    in_the_host_job = True
except OSError:
    in_the_host_job = False
if in_the_host_job and os.fork() == 0:
    os._exit(0)


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    return greyscales
