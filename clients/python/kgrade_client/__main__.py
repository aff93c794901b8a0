"""`python3 -m kgrade_client submit …`: the command line (cli.py)."""

from .cli import run

if __name__ == "__main__":
    run()
