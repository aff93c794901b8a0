# Known bad: defines only the course's other kernel, thread_counter_race_condition; the exercise asks for thread_counter_safe.
from numba import cuda


@cuda.jit
def thread_counter_race_condition(global_counter):
    cuda.atomic.add(global_counter, 0, 1)
