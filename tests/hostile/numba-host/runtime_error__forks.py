# Hostile: starts a process of its own inside create_hidden_layer (os.fork). The sandbox stops the
# host job at the call; the verdict says so, not only that the program ended.
import math
import os

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    if os.fork() == 0:
        os._exit(0)
    return greyscales
