# hidden-layer: out[i] = tanh(greyscales[i] / 255 * weights[i]). Compiles; not yet correct:
# it only normalizes the greyscales.
import math  # noqa: F401 (math.tanh works on the device; numpy's functions do not)

from numba import cuda


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        normalized = greyscales[i] / 255.0
        # TODO: weigh the normalized value by weights[i].
        # TODO: apply the activation function, tanh, to the weighted value.
        out[i] = normalized
