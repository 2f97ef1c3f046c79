"""Rewrites shared by several rules. Each returns a FixPlan or None when no honest rewrite exists."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

from inplace_lint.analysis.events import Write
from inplace_lint.analysis.findings import FixPlan
from inplace_lint.analysis.model import INDENT, ModuleAnalysis


@cache
def aug_to_bin() -> dict:
    import libcst as cst

    return {
        cst.AddAssign: cst.Add,
        cst.SubtractAssign: cst.Subtract,
        cst.MultiplyAssign: cst.Multiply,
        cst.DivideAssign: cst.Divide,
        cst.FloorDivideAssign: cst.FloorDivide,
        cst.ModuloAssign: cst.Modulo,
        cst.PowerAssign: cst.Power,
        cst.BitAndAssign: cst.BitAnd,
        cst.BitOrAssign: cst.BitOr,
        cst.BitXorAssign: cst.BitXor,
        cst.LeftShiftAssign: cst.LeftShift,
        cst.RightShiftAssign: cst.RightShift,
    }


@cache
def precedence() -> dict:
    import libcst as cst

    return {
        cst.BitOr: 1,
        cst.BitXor: 2,
        cst.BitAnd: 3,
        cst.LeftShift: 4,
        cst.RightShift: 4,
        cst.Add: 5,
        cst.Subtract: 5,
        cst.Multiply: 6,
        cst.Divide: 6,
        cst.FloorDivide: 6,
        cst.Modulo: 6,
        cst.MatrixMultiply: 6,
        cst.Power: 8,
    }


def right_operand(value: cst.BaseExpression, operator: cst.BaseBinaryOp) -> cst.BaseExpression:
    """`value` as the right operand of `operator`, parenthesised only where precedence needs it."""
    import libcst as cst

    looser_than_any_operator = (
        cst.BooleanOperation,
        cst.IfExp,
        cst.Lambda,
        cst.Comparison,
        cst.NamedExpr,
        cst.Yield,
    )
    is_not = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not)
    if (isinstance(value, looser_than_any_operator) or is_not) and not value.lpar:
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    binds_looser = isinstance(value, cst.BinaryOperation) and precedence().get(
        type(value.operator), 0
    ) <= precedence().get(type(operator), 0)
    if binds_looser and not value.lpar:
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return value


def applicability(write: Write) -> str:
    """Rebinding instead of writing is safe only when no other name sees the tensor: not another
    name here, not the caller that passed it in."""
    import libcst as cst

    target = write.target
    if write.aliased or write.argument or not isinstance(target, cst.Name):
        return "unsafe"
    return "safe"


def _walk(root: cst.CSTNode):
    """``root`` and every node under it, in the order of the text."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _inside(node: cst.CSTNode, root: cst.CSTNode | None) -> bool:
    return root is not None and any(n is node for n in _walk(root))


def _saved_by_its_statement(write: Write) -> bool:
    """An op of the write's own statement saved the tensor (`hs[t] = cell(xs[t], hs[t - 1])`)."""
    return write.stmt is not None and any(_inside(s.node, write.stmt) for s in write.saves)


def _in_lambda(node: cst.CSTNode, stmt: cst.CSTNode) -> bool:
    """The write is in a lambda of the statement (`p.register_hook(lambda g: g.clip_(...))`): the
    statement itself does not run it."""
    import libcst as cst

    return any(type(n) is cst.Lambda and _inside(node, n) for n in _walk(stmt))


def _names_after(analysis: ModuleAnalysis, write: Write) -> set[str] | None:
    """The names the write's function mentions after the write's statement runs: later in its
    text and, when the statement is in a loop, anywhere in that loop (the next round). None when
    the statement is not found (the fix then assumes every name is read again)."""
    import libcst as cst

    info = analysis.index.functions.get(write.stmt_function or write.function)
    if info is None and analysis.index.module_info is not None:
        info = analysis.index.module_info
    stmt = write.stmt
    if info is None or stmt is None:
        return None
    after: set[str] = set()
    found = False
    loop = None
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(info.node.body, None)]
    while stack:
        node, outer = stack.pop()
        if node is stmt:
            found, loop = True, outer
            continue
        if found and type(node) is cst.Name:
            after.add(node.value)
        if outer is None and type(node) in (cst.For, cst.While):
            outer = node
        stack.extend((child, outer) for child in reversed(node.children))
    if not found:
        return None
    if loop is not None:
        after.update(n.value for n in _walk(loop) if type(n) is cst.Name)
    return after


def _rebinding_loses_the_write(analysis: ModuleAnalysis, write: Write) -> bool:
    """Rebinding the name instead of writing the tensor would drop what the write was for: another
    name for the tensor (the base of a view) is read afterwards, or the tensor is the caller's and
    this function never reads the name again (`def power_(spec): spec.mul_(spec)`)."""
    if not (write.aliased or write.argument):
        return False
    after = _names_after(analysis, write)
    if after is None:
        return False
    if any(name.split(".", 1)[0] in after for name in write.alias_names):
        return True
    target = write.target
    name = getattr(target, "value", None)
    return write.argument and isinstance(name, str) and name not in after


def _attribute_rebindable(write: Write) -> bool:
    """`self.h = self.h + y` rebinds a module's attribute; a parameter refuses a tensor with a
    graph (TypeError), another object's attribute may not be assignable (a namedtuple's)."""
    import libcst as cst

    target = write.target
    if not isinstance(target, cst.Attribute):
        return True
    return (
        isinstance(target.value, cst.Name)
        and target.value.value == "self"
        and not write.tensor.parameter
    )


def out_of_place(analysis: ModuleAnalysis, write: Write) -> FixPlan | None:
    """`x += y` -> `x = x + y`; `x.add_(y)` -> `x = x.add(y)`; `F.relu(x, inplace=True)` -> `inplace=False`.

    None for a write made with grad off (`with torch.no_grad(): probs.clamp_(min=eps)`): the
    out-of-place result would be detached, and the name rebound to it would carry no graph, so
    a loud error would become a silently missing gradient."""
    import libcst as cst

    if not write.grad_enabled:
        return None
    node = write.node
    if write.how in ("augassign", "method") and (
        not _attribute_rebindable(write) or _rebinding_loses_the_write(analysis, write)
    ):
        return None
    if isinstance(node, cst.AugAssign) and isinstance(node.target, (cst.Name, cst.Attribute)):
        operator = aug_to_bin().get(type(node.operator))
        if operator is None:
            return None
        value = right_operand(node.value, operator())
        new = cst.Assign(
            targets=[cst.AssignTarget(node.target)],
            value=cst.BinaryOperation(node.target, operator(), value),
        )
        code = analysis.code(node.target)
        return FixPlan(
            f"Rewrite as `{code} = {code} {analysis.module.code_for_node(operator()).strip()} ...`",
            [(node, new)],
            applicability(write),
        )
    if write.how == "method" and isinstance(write.stmt, cst.Expr) and write.stmt.value is node:
        call = node
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
            return None
        method = call.func.attr.value
        if (
            not method.endswith("_")
            or method.endswith("__")
            or not isinstance(call.func.value, (cst.Name, cst.Attribute))
        ):
            return None
        from inplace_lint.analysis import knowledge as kb

        if kb.method(write.fw, method[:-1]) is None:
            return None
        new_call = call.with_changes(func=call.func.with_changes(attr=cst.Name(method[:-1])))
        new = cst.Assign(targets=[cst.AssignTarget(call.func.value)], value=new_call)
        target = analysis.code(call.func.value)
        return FixPlan(
            f"Rewrite as `{target} = {target}.{method[:-1]}(...)`",
            [(write.stmt, new)],
            applicability(write),
        )
    if write.how in ("inplace-kw", "module"):
        return inplace_false(analysis, write)
    return None


def inplace_false(analysis: ModuleAnalysis, write: Write) -> FixPlan | None:
    """Turn `inplace=True` off, at the call or at the module's constructor."""
    import libcst as cst

    for owner in (write.node, write.constructor_node):
        if not isinstance(owner, cst.Call):
            continue
        for arg in owner.args:
            if arg.keyword is not None and arg.keyword.value == "inplace":
                used = not (isinstance(write.stmt, cst.Expr) and write.stmt.value is write.node)
                return FixPlan(
                    "Pass `inplace=False`",
                    [(arg.value, cst.Name("False"))],
                    "safe" if used else "unsafe",
                )
        if owner is write.constructor_node and owner.args and owner.args[0].keyword is None:
            value = owner.args[0].value
            if isinstance(value, cst.Name) and value.value == "True":
                return FixPlan("Pass `inplace=False`", [(value, cst.Name("False"))], "safe")
    return None


def clone_before(analysis: ModuleAnalysis, write: Write) -> FixPlan | None:
    """`x[i] = v` -> `x = x.clone()` then the write: the saved tensor keeps its old values. None
    with grad off (a clone made under `no_grad` is detached, as in ``out_of_place``)."""
    import libcst as cst

    if not write.grad_enabled:
        return None
    target = write.target
    stmt = write.stmt
    if stmt is None or not isinstance(target, (cst.Name, cst.Attribute)):
        return None
    if not isinstance(stmt, (cst.Assign, cst.AugAssign, cst.Expr)):
        return None
    if _saved_by_its_statement(write):
        # `hs[t] = cell(hs[t - 1])`: the statement's own op saves the clone it then writes
        return None
    if not _attribute_rebindable(write) or (
        isinstance(target, cst.Attribute) and write.callee_node is not None
    ):
        # (`self.hidden[0] = 0.0` in `reset()`, which the caller runs after a `step()` saved the
        # state: the analysis follows the attribute by its name from call to call, so it cannot
        # tell the clone from the saved tensor, and the fix would never settle)
        return None
    name = analysis.module.code_for_node(target)
    text = f"{name} = {name}.clone()\n{INDENT}{analysis.module.code_for_node(stmt)}"
    return FixPlan(f"Clone `{name}` before writing to it", [(stmt, text)], "unsafe")


def computes_with_graph(write: Write) -> bool:
    """A leaf that is no parameter given a value from the graph (EGNN's `coord += agg` on the
    caller's leaf coordinates): a computation, not an update. (A module's own parameter given
    one, a Hebbian `self.weight += eta * y.t() @ x`, is an update: `no_grad` is its rewrite.)"""
    return write.operand_requires_grad is True and not write.tensor.parameter


def wrap_no_grad(analysis: ModuleAnalysis, write: Write, framework: str) -> FixPlan | None:
    """Wrap a parameter update or initialisation in `with torch.no_grad():` (or paddle's)."""
    import libcst as cst

    stmt = write.stmt
    if stmt is None or not isinstance(stmt, (cst.Expr, cst.AugAssign, cst.Assign)):
        return None
    if computes_with_graph(write):
        # `coord += agg` with `agg` from the graph: under no_grad the gradient through `agg`
        # would be silently lost; the computation wants the out-of-place form
        plan = out_of_place(analysis, write) or (
            clone_before(analysis, write) if write.how in ("setitem", "aug-setitem") else None
        )
        # (the name no longer holds the leaf after it: whatever reads its `.grad` sees None)
        return replace(plan, applicability="unsafe") if plan is not None else None
    if _in_lambda(write.node, stmt):
        return None  # a hook's body runs in backward, not where the statement is
    spelled = analysis.local_name(f"{framework}.no_grad")
    if spelled is None:
        return None
    body = analysis.module.code_for_node(stmt)
    text = f"with {spelled}():\n{INDENT}    {body}"
    return FixPlan(f"Wrap in `with {spelled}():`", [(stmt, text)], "unsafe")


def target_name(write: Write) -> str:
    return write.target_text or "the tensor"


def advice(analysis: ModuleAnalysis, write: Write) -> str:
    """One sentence on what to change, in the user's terms."""
    target = target_name(write)
    if not write.grad_enabled and write.how != "renorm":
        # an out-of-place op or a clone made under no_grad is detached: rebinding the name to it
        # would cut the graph that the backward needs (lookalike33)
        return (
            "Move it out of the `no_grad` block (an out-of-place result made there has no "
            "graph), or apply it after the backward."
        )
    operator = getattr(write.node, "operator", None)
    if write.how == "augassign" and operator is not None:
        symbol = analysis.code(operator).strip().removesuffix("=")
        return f"Write it out of place: `{target} = {target} {symbol} ...`."
    if write.how == "method":
        return "Use the out-of-place method (drop the trailing `_`) and assign the result."
    if write.how in ("module", "inplace-kw"):
        return "Pass `inplace=False`."
    if write.how in ("setitem", "aug-setitem"):
        if _saved_by_its_statement(write):
            # `hs[t] = cell(xs[t], hs[t - 1])`: a clone taken before would be saved and written
            # the same way
            fw = write.fw
            return (
                f"Build the new rows out of place: collect them in a list and `{fw}.stack` "
                f"(or `{fw}.{'concat' if fw == 'paddle' else 'cat'}`) them."
            )
        # clone the whole tensor, not the item (`T[b] = T[b].clone()` would be a write too)
        root = target.split("[", 1)[0]
        if root and root.replace(".", "").replace("_", "").isalnum():
            return f"Clone it first (`{root} = {root}.clone()`) or build the value out of place."
        return "Write into a clone, or build the value out of place."
    if write.how in ("out", "out-write"):
        return "Assign the result instead of passing `out=`."
    if write.how == "renorm":
        return (
            f"Use a clone in the earlier op (`{target}.clone()`), as the nn.Embedding docs advise."
        )
    return "Write to a clone, or compute the new value out of place."
