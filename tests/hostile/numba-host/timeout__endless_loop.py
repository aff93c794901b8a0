# Hostile: create_hidden_layer never returns (a loop on the host, no GPU work). The grade job stops
# waiting at the call's limit: a timeout naming the function, within the grading's bounds.
import math

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    i = 0
    while True:
        i += 1
