"""Meta rules: diagnostics about the file itself rather than about autograd.

They are emitted by the pipeline (parsing, reading, suppressions, fault isolation), not by the
dataflow, but they are rules all the same: selectable, documented, listed by ``rule --all``.
"""

from __future__ import annotations

from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Rule


class UnusedNoqa(Rule):
    """## What it does
    Reports a `# noqa` comment, or a code inside one, that suppresses no inplace-lint diagnostic.

    ## Why is this bad?
    A stale suppression hides the next real bug written on that line.

    ## Fix safety
    The fix removes only the stale codes (or the whole comment when none is left); it is safe.
    """

    code = "IPL900"
    name = "unused-noqa"
    severity = Severity.WARNING
    framework = None
    summary = "Unused `noqa` directive"
    fix_applicability = "safe"


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that does not parse as Python. Nothing else is checked in that file.
    """

    code = "IPL901"
    name = "syntax-error"
    severity = Severity.ERROR
    framework = None
    summary = "The file does not parse"


class UnreadableFile(Rule):
    """## What it does
    Reports a file that cannot be read or decoded (permissions, invalid encoding, not a file).
    """

    code = "IPL902"
    name = "unreadable-file"
    severity = Severity.ERROR
    framework = None
    summary = "The file cannot be read or decoded"


class InternalError(Rule):
    """## What it does
    Reports an exception raised inside a rule. The other rules' findings for the file are kept;
    run with `--verbose` for the traceback, and please report it.
    """

    code = "IPL903"
    name = "internal-error"
    severity = Severity.ERROR
    framework = None
    summary = "A rule raised an exception on this file"


class FileTooLarge(Rule):
    """## What it does
    Reports a file over the size or time budget; it was not analysed.
    """

    code = "IPL904"
    name = "file-too-large"
    severity = Severity.WARNING
    framework = None
    summary = "The file is over the analysis budget and was skipped"
