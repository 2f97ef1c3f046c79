"""What the analysis reads from a module's text rather than from its tree.

The pipeline parses only what the prefilter keeps of a file (docs/performance.md); a few facts
that decide a finding can sit in code it blanks (a `main()` that freezes a model's table, a
`release()` method that removes a hook). They are read here from the full text, cheaply, and
only ever make the analysis promise less (or, for `mentions_inplace`, skip a search that can
find nothing in the kept text)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# `model.pos_embed.requires_grad_(False)`, `net.temp.requires_grad = False`, Paddle's
# `layer.table.stop_gradient = True` / `.trainable = False`: an attribute frozen by code outside
# the class (not `self.x`, which `__init__` does and the analysis follows)
_FROZEN_ATTRIBUTE = re.compile(
    r"(?<!\bself)\.(\w+)\.(?:requires_grad_\(\s*False\s*\)|requires_grad\s*=\s*False\b"
    r"|stop_gradient\s*=\s*True\b|trainable\s*=\s*False\b)"
)
# `teacher.requires_grad_(False)`, `self.backbone.requires_grad_(False)` (not `self.` alone,
# which `__init__` and the analysis follow), `set_requires_grad(netD, False)`-style loops:
# `for p in model.parameters(): p.requires_grad = False`
_FROZEN_INSTANCE = re.compile(
    r"(?<![\w.])(?!self\.requires)[\w.]+\.requires_grad_\(\s*False\s*\)"
    r"|for\s+\w+\s+in\s+(?!self\.(?:named_)?parameters)[\w.()]+\.(?:named_)?parameters\(\)"
    r"[\s\S]{0,200}?\.(?:requires_grad\s*=\s*False|requires_grad_\(\s*False\s*\)"
    r"|stop_gradient\s*=\s*True)"
)
# `handle.remove()`, `self.hook.remove()`, `for h in self.handles: h.remove()` (a list's
# `remove` takes an argument)
_REMOVE_CALL = re.compile(r"\.remove\(\s*\)")


@dataclass(frozen=True)
class TextFacts:
    # the kept text says `inplace`: an `inplace=` keyword may be there to find
    # (``ModuleDataflow.dropout_rates`` has nothing to look for otherwise)
    mentions_inplace: bool = True
    # attribute names some code freezes on an object other than `self` (``_FROZEN_ATTRIBUTE``):
    # a class's parameter of that name may be frozen where its instances are used
    frozen_attributes: frozenset[str] = frozenset()
    # some code freezes a whole module from outside it (``_FROZEN_INSTANCE``): any class's own
    # parameters may be frozen where its instances run
    freezes_instances: bool = False
    # some code removes a hook (``_REMOVE_CALL``): a hook may be gone before a module runs
    removes_hooks: bool = False

    @classmethod
    def of(cls, kept: str, full: str) -> TextFacts:
        """The facts of a file whose full text is ``full`` and whose analysed text is ``kept``
        (the same string when nothing was blanked)."""
        freezes = "requires_grad" in full or "stop_gradient" in full or "trainable" in full
        return cls(
            mentions_inplace="inplace" in kept,
            frozen_attributes=frozenset(_FROZEN_ATTRIBUTE.findall(full))
            if freezes
            else frozenset(),
            freezes_instances=freezes and _FROZEN_INSTANCE.search(full) is not None,
            removes_hooks="remove" in full and _REMOVE_CALL.search(full) is not None,
        )
