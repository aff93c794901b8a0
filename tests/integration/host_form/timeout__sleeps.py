# The host form's timeout: the call never returns (the grade job stops waiting at its limit).
import time


# what the course passes (the grade job passes the module's own)
exp = normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    time.sleep(3600)
