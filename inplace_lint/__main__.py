"""`python -m inplace_lint` is the `inplace-lint` command."""

from inplace_lint.cli import entry

if __name__ == "__main__":
    entry()
