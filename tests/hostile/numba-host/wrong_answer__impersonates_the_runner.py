# Hostile: at import, before numba_host.py says a word, the module answers the grade job's call
# channel (fd 5) itself, through libc (Python's socket objects are stopped by the sandbox): it says
# "ready", then for each call maps the inputs it is sent, computes the answer with numpy on the host,
# writes it into the returned array's memfd and replies {"returned": true}. Its answer was never
# copied back from the GPU: not passed.
import ctypes
import mmap
import os
import socket
import struct

import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
libc.send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
libc.recvmsg.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.recvmsg.restype = ctypes.c_ssize_t


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class MsgHdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(IoVec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


def say(text):
    libc.send(5, text, len(text), socket.MSG_NOSIGNAL)


def receive():
    data = ctypes.create_string_buffer(1 << 16)
    control = ctypes.create_string_buffer(1024)
    iov = IoVec(ctypes.cast(data, ctypes.c_void_p), len(data))
    header = MsgHdr(None, 0, ctypes.pointer(iov), 1, ctypes.cast(control, ctypes.c_void_p),
                    len(control), 0)
    size = libc.recvmsg(5, ctypes.byref(header), 0)
    fds = []
    if header.controllen >= 16:
        length = struct.unpack_from("N", control.raw, 0)[0]
        fds = list(struct.unpack_from("%di" % ((length - 16) // 4), control.raw, 16))
    return data.raw[:max(size, 0)], fds


def array(fd, count, access=mmap.ACCESS_READ):
    return np.frombuffer(mmap.mmap(fd, count * 4, access=access), np.float32, count)


def impersonate():
    """The runner's part, on its channel: only in the host job (the front end, which imports the
    module first to see which form it takes, has no fd 5)."""
    say(b'{"ready": true}')
    while True:
        serve_one()


def serve_one():
    request, fds = receive()
    if not request:
        os._exit(0)
    n = len(fds) and os.fstat(fds[-1]).st_size // 4
    greyscales, weights, out = array(fds[0], n), array(fds[1], n), array(fds[2], n, mmap.ACCESS_WRITE)
    out[:] = np.tanh(greyscales / np.float32(255) * weights)
    say(b'{"returned": true}')


try:
    os.fstat(5)
    impersonate()
except OSError:
    pass


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    return None
