"""The language server (`inplace-lint server`, or `python -m inplace_lint.server`).

A thin shell over ``inplace_lint.api.lint_source``: pygls 2.x over stdio. pygls is imported
only when the server starts, so importing this package costs nothing for the command line.
"""

from __future__ import annotations


def main() -> None:
    """Serve LSP over stdin/stdout until the client says exit."""
    import logging
    import sys

    from inplace_lint.server.app import create_server

    # stdout carries the protocol; our own log lines go to stderr (editors show it).
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="inplace-lint: %(levelname)s %(message)s"
    )
    create_server().start_io()
