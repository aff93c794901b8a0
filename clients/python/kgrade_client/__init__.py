"""kgrade_client: submit kernels to a kgrade server from Python and notebooks.

Standard library only. `python3 -m kgrade_client submit --exercise ID FILE`
behaves as `kgrade submit` does (the same lines, the same exit codes);
`%load_ext kgrade_client` in IPython or Jupyter adds `%kgrade_login` and
the cell magic `%%kgrade EXERCISE`, which grades a cell and shows the
result in the notebook. Importing this package never imports IPython: only
load_ipython_extension does.
"""

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """Called by `%load_ext kgrade_client`: adds the magics to the shell."""
    from .notebook import register_magics

    register_magics(ipython)
