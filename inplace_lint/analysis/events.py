"""The facts the dataflow hands to the rules: one record per observable autograd event.

Rules never walk the tree; they filter these records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the rule registry imports this module; keep libcst out of warm runs
    import libcst as cst

from inplace_lint.analysis.values import Save, TensorVal


@dataclass
class Write:
    """An in-place write to a tensor's storage."""

    node: cst.CSTNode  # the anchor: the call, the augmented assignment, the assignment
    stmt: cst.CSTNode | None  # the small statement holding it (for statement-level fixes)
    target: cst.BaseExpression | None  # the expression written (`h`, `self.buf`, `x[0]`)
    target_text: str
    how: str  # method | augassign | setitem | aug-setitem | out | inplace-kw | module | helper |
    #           optimizer | data-assign | numpy | set_value | copy
    op_text: str  # e.g. "h += 1", "h.add_(...)", "self.act(...)" (ReLU(inplace=True))
    fw: str
    tensor: TensorVal
    grad_enabled: bool  # grad mode at the write, assuming callers do not guard the function
    grad_explicit: bool  # grad mode set by a `with`/decorator in this function (not inherited)
    inference_mode: bool
    bumps_version: bool
    saves: tuple[Save, ...]  # active saves on the storage just before the write
    function: str  # qualified function name ("Net.forward")
    confirmed: set[int] = field(default_factory=set)  # op_ids of saves a later backward reaches
    reaches_backward: bool = False  # the written value (or its storage) flows into a backward
    full_slice: bool = False  # `x[:] = v` / `x[...] = v`: torch reports the leaf, not a view
    callee_node: cst.CSTNode | None = None  # helper / module call that performed the write
    constructor_node: cst.CSTNode | None = None  # e.g. the `nn.ReLU(inplace=True)` for fixes
    guarded_by_caller: bool = False  # set after the module's call graph is known
    aliased: bool = False  # another name refers to the same tensor at the write
    alias_names: tuple[str, ...] = ()  # those other names (`rows = h[:, 0]`: `h`)
    # the storage written is one a caller passed in (the function's argument, or a view of it):
    # the caller may read the write after the call
    argument: bool = False
    stmt_function: str = ""  # the function whose body holds ``stmt`` (a callee's, for a replay)
    # the value written into the tensor (the right-hand side, the in-place op's other operands)
    # requires grad: True when one surely does (a `no_grad` around the write would cut it)
    operand_requires_grad: bool | None = None
    # the write updates an argument the caller passed without grad (a cache or recurrent state):
    # whether a backward ever reaches the saving op depends on the caller's context
    caller_state_update: bool = False
    confirmed_by_backward: bool = False  # a backward (not only a return) reaches a save
    confirmed_by_return: bool = False  # the function's own return reaches a save
    # the items of a returned tuple whose graph reaches a save (`return loss, loss_diff`): a
    # caller's backward of one item reaches it only through those
    returned_items: set[int] = field(default_factory=set)
    # a training step's return reaches the save its optimizer step broke (a critic's `learn`
    # returning its undetached TD error): holds only where a caller here backwards the result
    confirmed_by_step_return: bool = False
    condition: str | None = None  # the enclosing `if self.<option>:` test, when there is one
    # the branches of `if` statements the write was made in, as (that run of the statement, which
    # branch): a backward in the other branch of the same run never follows it
    branch: tuple[tuple[int, int], ...] = ()
    speculative: bool = False  # in a method no forward and nothing in this module calls
    # the write changed the memory of views returned by one multi-output call, and one of them
    # is used afterwards in grad mode (the node using it): that use raises
    stale_view_use: cst.CSTNode | None = None
    stale_view_producer: str = ""  # the multi-output call, as quoted
    stale_since: int = 0  # an id taken when the write was made (views made after it are fresh)
    stale_view_producer_node: cst.CSTNode | None = None

    @property
    def conditional(self) -> bool:
        """Whether the write raises only in a configuration or context we cannot see."""
        return self.condition is not None or self.speculative

    @property
    def judged_by_caller(self) -> bool:
        """A caller's state updated here is judged where the caller's saves and backward are
        known, unless a backward in this function already reaches the save."""
        return self.caller_state_update and not self.confirmed_by_backward

    @property
    def effective_grad(self) -> bool:
        if self.grad_explicit:
            return self.grad_enabled
        return self.grad_enabled and not self.guarded_by_caller

    def confirmed_saves(self, certain_only: bool = True) -> list[Save]:
        return [
            s for s in self.saves if s.op_id in self.confirmed and (s.certain or not certain_only)
        ]


@dataclass
class OutCall:
    """A call passing `out=`."""

    node: cst.CSTNode
    op_text: str
    args_requiring_grad: list[str]
    grad_enabled: bool
    grad_explicit: bool
    function: str
    guarded_by_caller: bool = False


@dataclass
class Rebind:
    """Paddle: an augmented assignment that rebinds the name instead of writing in place. Or
    (``assign``, either framework) a plain tensor assigned to a module's registered parameter
    attribute (`self.w = self.w * mask`), which the module's ``__setattr__`` refuses."""

    node: cst.AugAssign | cst.Assign | cst.AnnAssign
    target_text: str
    tensor: TensorVal  # what the name held: for ``assign``, the parameter
    on_layer_attribute: bool  # `self.p += v` inside a Layer: a TypeError at runtime
    function: str
    # an update, not an accumulation: under no_grad, or reading a gradient (`w -= lr * w.grad`)
    update: bool = True
    assign: bool = False  # `=` of a tensor that is not a Parameter onto a parameter attribute
    condition: str | None = None  # made only when this option test holds (`if self.tie:`)
    # ``assign`` by an augmented assignment (`self.weight += self.delta`) on a parameter that
    # does not require grad, with grad on and an operand that does: the in-place op gives the
    # parameter a graph, and `__setattr__` then refuses a non-leaf (ValueError)
    graph_gained: bool = False


@dataclass
class Reuse:
    """A name read after an in-place activation wrote it and its result went to another name."""

    node: cst.CSTNode  # the in-place activation call
    name: str
    read_node: cst.CSTNode  # the later read of the overwritten input
    activation_text: str
    function: str
    # the name the activation was given, when ``name`` is another name for the same tensor
    # (`shortcut = x; x = self.relu(x)`)
    via: str | None = None


@dataclass
class CustomFunctionIssue:
    """A custom autograd.Function's forward problem (missing mark_dirty / tensors stashed on ctx)."""

    kind: str  # "missing-mark-dirty" | "ctx-stash"
    node: cst.CSTNode
    message: str
    related: list[tuple[str, cst.CSTNode]] = field(default_factory=list)
    function: str = ""  # the Function class
    param: int = -1  # missing-mark-dirty: the written input's position in `apply(...)`
    param_name: str = ""  # missing-mark-dirty: that input's name in `forward`
    # missing-mark-dirty: the forward gave that input to `ctx.save_for_backward` before writing
    # it, so its own backward reads the new values whatever the caller does
    saved_before: bool = False


@dataclass
class SequentialAdjacency:
    """An in-place activation placed right after a module that saves its output."""

    node: cst.CSTNode  # the in-place child constructor
    previous_node: cst.CSTNode
    previous_text: str
    child_text: str
    fw: str
    keyword_node: cst.Arg | None  # the `inplace=True` argument, for the fix
    condition: str | None = None  # the child writes only when this holds (dropout: "p > 0")
