# Known bad: the course's thread_counter_race_condition: global_counter[0] += 1 is a read, an add and a write, and concurrent threads lose updates.
from numba import cuda


@cuda.jit
def thread_counter_safe(global_counter):
    global_counter[0] += 1
