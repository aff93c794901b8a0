# Hostile: the module answers the grade job itself on the call channel (fd 5), with a reply that
# is not one and a descriptor; the grade job reads it as the program breaking the protocol.
import array
import os
import socket


# what the course passes (the grade job passes the module's own)
exp = normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    channel = socket.socket(fileno=os.dup(5))
    fd = os.open("/dev/null", os.O_RDONLY)
    channel.sendmsg([b'{"returned": true, "passed": true}'],
                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    return greyscales
