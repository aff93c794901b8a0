# Known bad: the Italian course's sum_row as it is written, '(n,m)->(n)': numba calls it once for the whole matrix, in one thread; refused, with the layout that runs one row per thread.
from numba import guvectorize


@guvectorize(['void(int32[:,:], int32[:])', 'void(float32[:,:], float32[:])'], '(n,m)->(n)',
             target='cuda')
def sum_rows(A, s):
    for i in range(A.shape[0]):
        tmp = 0.
        for j in range(A.shape[1]):
            tmp += A[i, j]
        # endfor
        s[i] = tmp
    # endfor
