# Bytes that are not a result at all on kgrade's channel.
import os

os.write(3, b'\x00\xff{"status": \n' * 1000)
os._exit(0)
