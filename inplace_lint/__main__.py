"""`python -m inplace_lint` is the `inplace-lint` command."""

from inplace_lint.cli import main

if __name__ == "__main__":
    main()
