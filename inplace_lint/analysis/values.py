"""The abstract values the per-function dataflow tracks, and the state they live in.

A tensor's identity for autograd purposes is its *version counter*, shared by a tensor, its views,
its `.detach()` and its `.data`. We call that group a ``Storage``; saves are recorded on storages,
so a write through any alias is checked against every save of the group.

Tri-state booleans: ``True`` / ``False`` when known, ``None`` when we cannot tell.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the rule registry imports this module; keep libcst out of warm runs
    import libcst as cst

_ids = itertools.count(1)


def new_id() -> int:
    return next(_ids)


def new_module_uid(number: int | None = None) -> str:
    """The identity of a module value made by the analysis (a construction, a copy, a module
    found without a name; ``number``: one already drawn from ``new_id``, such as the storage of
    the tensor the module was first taken for): ``is_module_uid`` recognises exactly these."""
    return f"m{next(_ids) if number is None else number}"


def is_module_uid(key: str) -> bool:
    return key.startswith("m") and key[1:].isdigit()


def replace(obj, /, **changes):
    """``dataclasses.replace`` for the analysis' value classes, which are frozen dataclasses with
    neither ``__post_init__`` nor ``init=False`` fields: the instance's fields copied with the
    changes, without going through the generated ``__init__`` (the analysis replaces values
    thousands of times per module; this is about four times cheaper). Unknown fields raise, as
    in ``dataclasses.replace`` (``tests/test_engine.py`` checks both agree)."""
    fields = obj.__dict__
    for name in changes:
        if name not in fields:
            raise TypeError(f"{type(obj).__name__} has no field {name!r}")
    new = object.__new__(type(obj))
    new.__dict__.update(fields)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class Save:
    """An op saved (a view of) a storage for its backward."""

    op: str  # how the user wrote the op, e.g. "torch.sigmoid", "self.conv1", "x * w"
    node: cst.CSTNode  # the op's expression, for the related location
    op_id: int  # identifies the recorded op; a backward reaches it iff op_id is in the lineage
    what: str  # "output", "input", "weight", "parameters", "running stats", ...
    certain: bool = True  # every requires-grad fact that made the save happen was known
    # made on one side of an `if <option>:` only, and carried past it in a name that now holds
    # either side's tensor: a write hitting only such saves fails in some configurations (IPL203)
    condition: str | None = None
    # for the parameters a local module's call saved: the attribute names (`self.<name>`) of
    # those it is known to have saved, when the analysis followed its forward whole
    only: frozenset[str] | None = None
    # for the parameters a module's call saved: that module's constructor call. Modules held in
    # one container share its parameter storage; a write made by a sibling built elsewhere (its
    # own forward updating its own weight) does not touch what this one saved
    by: cst.CSTNode | None = None
    # the op saved the tensor's `.data` alias, whose version counter is its own: a write to the
    # tensor itself does not make this save's backward raise
    via_data: bool = False
    # the backward checks the tensor's version but (in the usual mode) not its values: Paddle's
    # batch_norm saves its running statistics, which a training-mode backward never reads, so a
    # write that moves no version (`set_value`) changes nothing (measured)
    version_only: bool = False
    # made on one side of an `if <option>:` by an op that read a name neither side rebound
    # (`if self.gated: y = h * g` saves `h`): it counts as unconditional, as before, but a path
    # where that test fails (`if not self.gated: h.relu_()`) drops it (``_drop_saves_under``)
    made_under: str | None = None


@dataclass(frozen=True)
class TensorVal:
    fw: str  # "torch" | "paddle"
    storage: int
    requires_grad: bool | None = None
    leaf: bool = False  # a leaf that requires grad (parameter, requires_grad=True)
    view: str | None = None  # None | "view" | "multi" (output of split/chunk/unbind)
    view_of_leaf: bool = False
    multi_base_requires_grad: bool | None = None
    # the op id of the multi-output call that made this view: a write marks the views made
    # before it stale, not those a later call makes of the same memory (`list(w)` again)
    multi_id: int = 0
    # the output of a custom autograd.Function whose forward returned an input as is: autograd
    # makes it a view of that input, which may not be modified in place (with view="multi")
    custom_function_view: bool = False
    # such a view made by a module's full backward hook (``ModuleVal.backward_hook``): the
    # registration call
    backward_hook: cst.CSTNode | None = None
    producer: str = ""  # description of what produced it
    producer_node: cst.CSTNode | None = None
    known: bool = True  # False: produced by a callee we know nothing about
    lineage: frozenset[int] = frozenset()
    via_data: bool = False  # reached through `.data`: writes do not bump the version counter
    # a basic-indexing view that is not contiguous (`x[:, 0:1]`, `x[..., :4]`): some Paddle ops
    # save a contiguous copy of such an input rather than the view (PADDLE_COPIES_STRIDED)
    strided: bool = False
    permuted: bool = False  # torch: a transpose/permute view (its reshape is a copy)
    inference: bool = False  # created under inference_mode
    numpy_shared: bool = False  # shares memory with a numpy array
    param_of: str | None = None  # the module path whose parameter this is
    # a parameter read as an attribute of a module seen from outside (`self.codebook.weight`):
    # its name there; that module's storage holds all of its parameters, and a save of this
    # one names it (``Save.only``) so that a write of another (`count`) is not held against it
    attr: str | None = None
    attr_by: cst.CSTNode | None = None  # and that module's constructor call (``Save.by``)
    # reached through a submodule of an instance seen from outside (`net.fc1.weight`): that
    # submodule's attribute on the instance and the instance's constructor call; a save by the
    # instance's call that names its submodules (``Save.only``) holds only if it names this one
    owner_attr: str | None = None
    owner_by: cst.CSTNode | None = None
    parameter: bool = False  # an nn.Parameter / module parameter (for IPL006 / paddle rules)
    nondiff_outputs: tuple[int, ...] = ()  # a tuple result whose outputs at these indices are
    #                                        integer-like (indices of topk/sort/max(dim)): no grad
    # its dtype where nothing can change it ("int64", "float64": an explicit `dtype=`, an index
    # op, a conversion), kept by views; None when not known (a float factory's follows
    # `torch.set_default_dtype`, an op's may follow autocast). A conversion to the dtype a
    # tensor already has returns that tensor itself (`.long()` of an int64 target)
    dtype: str | None = None
    # a leaf that requires grad only when this holds, a non-leaf copy otherwise: `if using_gpu:
    # out = out.cuda()` left the leaf `out` on the other path (lang2logic's CPU run), and
    # `leaf.to(device)` returns the leaf itself when it is already there. A write through it in
    # grad mode raises torch's leaf check in that configuration (IPL203)
    leaf_condition: str | None = None
    # a test said it is no leaf (`if not h.is_leaf:`, `if h.grad_fn is not None:`): a caller's
    # leaf never reaches a write made under it
    has_graph: bool = False
    # an argument whose parameter defaults to None, not given by a known caller: `x is not None`
    # is undecided (an option of the call), until a test says which
    maybe_none: bool = False


@dataclass(frozen=True)
class ModuleVal:
    """An nn.Module / paddle Layer instance."""

    path: str  # where it lives: "self.conv1", "model"
    qualname: str | None = None  # e.g. "torch.nn.ReLU" when a framework class
    facts: object | None = None  # knowledge.facts.ModuleFacts when known
    local_class: str | None = None  # name of a class defined in this module
    # nn.Sequential children, in order (not hashed: their facts hold dicts; equality still
    # compares them)
    children: tuple[ModuleVal, ...] = field(default=(), hash=False)
    # the children are every child, in order (a container built from a display of modules:
    # `nn.ModuleList([a, b])`, `nn.Sequential(a, b)`), not one child standing for several (a
    # comprehension's, a loop's appends): a loop over it runs once per child
    children_exact: bool = False
    # the last child is surely the last one (added by a statement of the function's own body
    # after appends in a loop: `layers.append(nn.Sigmoid())` closing an MLP builder)
    last_child_known: bool = False
    # the children's names, where the code gives them (`seq.add_module("conv", m)`,
    # `nn.Sequential(OrderedDict([("conv", m), ...]))`): `seq.conv` is that child; "" for none
    child_names: tuple[str, ...] = field(default=(), hash=False)
    fw: str = "torch"
    node: cst.CSTNode | None = None  # the constructor call
    has_parameters: bool = True
    uid: str = ""  # identity of the instance, stable however it is renamed or passed around
    frozen: bool = False  # `.requires_grad_(False)` was called: its parameters do not require grad
    # parameters frozen one by one (`head.weight.requires_grad_(False)`): a Linear whose weight
    # does not require grad saves no input (lookalike35)
    frozen_parameters: frozenset[str] = frozenset()
    # its in-place write happens only when this holds (`nn.Dropout(p, inplace=True)`: "p > 0")
    write_condition: str | None = None
    # handed to an unknown in-place transform (`quantize_(model, cfg)`): what its parameters
    # are now (replaced, frozen) is not known
    params_unknown: bool = False
    # `nn.InstanceNorm2d(c) if use_bn else None`: this module or None (whether it is None is
    # not known; where it is called, it is this module)
    maybe_none: bool = False
    # a local class's instance: the literal flags and strings its constructor was given, one per
    # `__init__` parameter (None where not a literal): `__init__` and its methods are analysed
    # with them (`Block(inplace=True)`, `ConvBN(activation="relu")`)
    init_entry: tuple = ()
    # a submodule seen from outside (`net.fc1`): its attribute on the outermost instance it was
    # reached through, and that instance's constructor call (``TensorVal.owner_attr``)
    owner_attr: str | None = None
    owner_by: cst.CSTNode | None = field(default=None, hash=False, compare=False)
    # a ``generic_submodule`` of an owner whose submodules are all known framework layers: their
    # classes (`isinstance(m, nn.Conv2d)` is false in `self.apply(self._init_weights)` of a model
    # without one); None when not known. Part of equality: a callback's run is memoised by the
    # submodule it is given, and two models applying one callback have different kinds
    subtree_kinds: frozenset[str] | None = field(default=None, hash=False)
    # a ``generic_submodule`` past `if isinstance(m, (nn.ReLU, nn.Dropout)):`: one of these
    # framework classes (`m.inplace = True` there turns those submodules in place)
    kind_filter: frozenset[str] | None = field(default=None, hash=False, compare=False)
    # a ``generic_submodule``: the path of the module it is a submodule of (`self`, `backbone`)
    generic_of: str | None = field(default=None, hash=False, compare=False)
    # modules of different kinds bound on the two sides of an option's test (`if
    # self.num_convs > 1: self.rpn_conv = nn.Sequential(...) else: self.rpn_conv = nn.Conv2d(...)`):
    # (the test, or its negation, under which each one is the module), exactly two. A call runs
    # both, each under its condition (mmdetection#7933)
    alternatives: tuple[tuple[str, ModuleVal], ...] = field(default=(), hash=False)
    # `m.register_full_backward_hook(h)` (or `register_full_backward_pre_hook`) was called: that
    # call. A call of the module in grad mode passes its positional tensors that require grad,
    # and its results, through `BackwardHookFunction`, whose outputs are views no in-place op
    # may touch (pytorch#61519: the hooked `nn.ReLU(inplace=True)`, or the module after it)
    backward_hook: cst.CSTNode | None = field(default=None, hash=False, compare=False)

    @property
    def key_root(self) -> str:
        return self.uid or self.path

    @property
    def params_storage_key(self) -> str:
        return f"params:{self.key_root}"


@dataclass(frozen=True)
class OptimizerVal:
    modules: tuple[str, ...] | None  # key roots of the modules it updates; None = unknown
    fw: str = "torch"
    labels: tuple[str, ...] = ()  # how the code names those modules, for messages
    # an instance of a plain class of this module given the parameters (a from-scratch `SGD`):
    # its methods run with what `__init__` made of its constructor's arguments (``init_entry``)
    local_class: str | None = None
    init_entry: tuple = ()


@dataclass(frozen=True)
class ParamsVal:
    """`model.parameters()` and friends; iterating yields the module's parameters."""

    module: str | None  # the module's key root (ModuleVal.key_root) or its name
    named: bool = False
    fw: str = "torch"
    label: str | None = None  # how the code names the module
    frozen: bool = False  # the module's parameters were frozen with `requires_grad_(False)`
    # `dict(model.named_parameters())`: indexing by name gives a parameter, iterating gives names
    mapping: bool = False


@dataclass(frozen=True)
class SubmodulesVal:
    """`model.modules()`, `.children()`, Paddle's `.sublayers()` (and the `named_` forms):
    iterating yields a submodule of ``owner`` of a class not known (``generic_submodule``)."""

    owner: ModuleVal
    named: bool = False
    # `modules()` / `named_modules()`: the owner is among them, so a loop over it runs
    never_empty: bool = False


GENERIC_SUBMODULE = "<submodule>"  # the qualname of such a submodule


def generic_submodule(owner: ModuleVal, kinds: frozenset[str] | None = None) -> ModuleVal:
    """A submodule of ``owner`` whose class is not known: its `weight` and `bias` are parameters
    of the owner (the same storage: the owner's `parameters()` hold them). ``kinds``: the classes
    it may have, when every submodule of the owner is known (``ModuleVal.subtree_kinds``)."""
    return ModuleVal(
        path="m",
        qualname=GENERIC_SUBMODULE,
        fw=owner.fw,
        uid=owner.key_root,
        frozen=owner.frozen,
        params_unknown=owner.params_unknown,
        subtree_kinds=kinds,
        generic_of=owner.path,
    )


# The producer of the tensors a loop over `model.parameters()` binds: a write to one of them is a
# parameter update (an optimizer or EMA step), the module frozen or not.
PARAMETER_LOOP_PRODUCER = "a parameter"


@dataclass(frozen=True)
class SeqVal:
    """A tuple/list of values (e.g. the outputs of `chunk`)."""

    items: tuple[Value, ...]
    lineage: frozenset[int] = frozenset()
    # every item, in order: a display the caller spelled (`Stem([nn.Linear(3, 3), nn.Tanh()])`),
    # not a list grown by appends in a loop (whose items stand for several)
    exact: bool = field(default=False, compare=False)
    # a namedtuple's field names, by position (`out.std` reads that item)
    fields: tuple[str, ...] = field(default=(), compare=False)
    # a comprehension's one item, standing for the item at every index (`outs = [torch.tanh(x *
    # k) for k in range(3)]`: `outs[1]` is made as `outs[0]` is)
    uniform: bool = field(default=False, compare=False)
    # a list of modules built differently under an option of a constructor (`if bounded:
    # layers.append(nn.Tanh())`): (condition, the list on that side), both sides
    alternatives: tuple = field(default=(), compare=False)


@dataclass(frozen=True)
class ZipVal:
    """`zip(a, b, ...)` / `enumerate(a)`: iterating yields a tuple of what each part yields."""

    parts: tuple[Value, ...]
    counter_first: bool = False  # enumerate: an int comes first


@dataclass(frozen=True)
class ArrayVal:
    """A numpy array sharing memory with a tensor storage (`t.numpy()`, `torch.from_numpy(a)`)."""

    storage: int


@dataclass(frozen=True)
class GradModeVal:
    """A context manager / decorator object that changes grad mode."""

    enabled: bool
    inference: bool = False


@dataclass(frozen=True)
class AutocastVal:
    """`torch.autocast(...)`: a region where the lower-precision ops cast their fp32 inputs
    (``on``), or, with a literal `enabled=False`, a region where they do not."""

    on: bool = True


@dataclass(frozen=True)
class FrameworkRef:
    """A framework object that is not a tensor (a function, a class, a module namespace).

    ``bound`` / ``bound_keywords``: what `functools.partial(f, *args, **kwargs)` fixed of a local
    function (the call adds its own arguments after them)."""

    qualname: str
    bound: tuple = ()
    bound_keywords: tuple = ()
    # `functools.partial(nn.ReLU, inplace=True)`: that call, whose arguments after the class
    # come before those of each call of the partial (which builds the layer)
    partial: cst.Call | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, eq=False)
class LambdaVal:
    """A lambda whose body reads only its parameters and module-level names (nflows' `lambda i,
    o: TransformNet(i, o, hidden_features=16)` handed to a constructor): a call evaluates the
    body with the call's arguments bound to the parameters. One per lambda expression (equal
    and hashed by identity)."""

    node: cst.Lambda


@dataclass(frozen=True)
class ConstVal:
    """A literal (True / False / None, a number, a string), so that `if inplace:` or
    `if self.activation == "relu":` with a known value takes one branch."""

    value: object


@dataclass(frozen=True)
class Unknown:
    lineage: frozenset[int] = frozenset()


UNKNOWN = Unknown()


@dataclass(frozen=True)
class LoopCounter(Unknown):
    """The counter of `for i in range(n)` / `for i, x in enumerate(xs)`: ``start`` on the first
    pass of the loop (``first``), past it on the later pass, so that `if i == 0:` and
    `a if t == 0 else b` take their branch on each (the PyTorch RNN docs' `h_t[layer - 1]`).
    Any other use is an unknown number."""

    start: int = 0
    first: bool = True
    # the loop's last pass (``FunctionInterpreter.exec_loop``): `i < n - 1` is false there
    last: bool = False
    # the loop has such a last pass of its own: on the other passes `i < n - 1` holds (they
    # stand for the iterations before the last, after which nothing of the loop runs)
    before_last: bool = False


@dataclass(frozen=True)
class DictVal(Unknown):
    """A dict this function built (`blocks = {}`, `dict()`, `{"q": q}`): the values under keys
    written as literals (`blocks[(0, 0)] = u`, then `blocks[(0, 0)] *= s` writes `u`). Any other
    use is an unknown value, as before."""

    items: tuple[tuple[object, object], ...] = ()

    def get(self, key: object) -> object | None:
        for k, v in self.items:
            if k == key and type(k) is type(key):
                return v
        return None

    def with_item(self, key: object, value: object) -> DictVal:
        kept = tuple((k, v) for k, v in self.items if not (k == key and type(k) is type(key)))
        return DictVal(self.lineage | lineage_of(value), (*kept, (key, value)))


Value = (
    TensorVal
    | ModuleVal
    | OptimizerVal
    | ParamsVal
    | SeqVal
    | ZipVal
    | ArrayVal
    | GradModeVal
    | AutocastVal
    | FrameworkRef
    | LambdaVal
    | Unknown
)


def lineage_of(value: Value | None) -> frozenset[int]:
    if isinstance(value, (TensorVal, SeqVal, Unknown)):
        return value.lineage
    return frozenset()


def tri_or(values: list[bool | None]) -> bool | None:
    if any(v is True for v in values):
        return True
    if all(v is False for v in values):
        return False
    return None


@dataclass
class State:
    """What is known at one program point. Copied at branches, merged after them."""

    env: dict[str, Value] = field(default_factory=dict)
    saves: dict[object, tuple[Save, ...]] = field(default_factory=dict)  # storage -> active saves
    grad_enabled: bool = True
    inference: bool = False
    reachable: bool = True
    # storage -> the write that changed it while views from one multi-output call (`unbind`,
    # `chunk`, `split`) of a tensor requiring grad share it: the next use of one of those views
    # raises (autograd cannot rebuild the view's graph)
    stale_multi: dict[object, object] = field(default_factory=dict)

    def copy(self) -> State:
        return State(
            dict(self.env),
            dict(self.saves),
            self.grad_enabled,
            self.inference,
            self.reachable,
            dict(self.stale_multi),
        )

    def add_save(self, storage: object, save: Save) -> None:
        current = self.saves.get(storage, ())
        # (the same op's save of two submodules' parameters in one storage is two saves: `by`)
        if all(
            s.op_id != save.op_id or s.what != save.what or s.by is not save.by for s in current
        ):
            self.saves[storage] = current + (save,)

    def add_saves_of(self, other: State) -> None:
        """Every save ``other`` holds, added to this state's (a comprehension's own scope: its
        ops' saves outlive it)."""
        for storage, saves in other.saves.items():
            for save in saves:
                self.add_save(storage, save)

    def clear_saves(self, lineage: frozenset[int] | None) -> None:
        """A backward without retain_graph frees the graph it ran through."""
        if lineage is None:
            self.saves.clear()
            return
        for storage, saves in list(self.saves.items()):
            kept = tuple(s for s in saves if s.op_id not in lineage)
            if kept:
                self.saves[storage] = kept
            else:
                del self.saves[storage]


def merge_states(states: list[State]) -> State:
    live = [s for s in states if s.reachable]
    if not live:
        dead = states[0].copy()
        dead.reachable = False
        return dead
    if len(live) == 1:
        return live[0].copy()
    out = State(grad_enabled=live[0].grad_enabled, inference=live[0].inference)
    out.stale_multi = {  # stale on every path: a use raises whichever path ran
        storage: write
        for storage, write in live[0].stale_multi.items()
        if all(storage in s.stale_multi for s in live[1:])
    }
    # (the first path's saves as they are: each tuple was built by `add_save`, so it holds no
    # two saves that `add_save` would merge; the other paths' are added to them, a tuple the
    # paths share at once)
    out.saves = dict(live[0].saves)
    for s in live[1:]:
        for storage, saves in s.saves.items():
            if out.saves.get(storage) is saves:
                continue
            for save in saves:
                out.add_save(storage, save)
    keys = set().union(*(s.env for s in live))
    first_env, others = live[0].env, [s.env for s in live[1:]]
    for key in sorted(keys):
        held = first_env.get(key)
        if held is not None and all(env.get(key) is held for env in others):
            out.env[key] = held  # (the same object on every path: what merging would give)
            continue
        vals = [s.env.get(key) for s in live]
        either = either_module(vals) if key.startswith("self.") and None not in vals else None
        # (an attribute given modules of different kinds on different paths: `if use_proj:
        # self.proj = nn.Linear(d, d) else: self.proj = nn.Identity()`; a local name a builder
        # loop reuses for each kind of block keeps the first, as before)
        merged = either if either is not None else merge_values(vals)
        if isinstance(merged, TensorVal):
            storages = {v.storage for v in vals if isinstance(v, TensorVal)}
            if len(storages) > 1:
                merged = _grouped(merged, vals, live, out)
        elif type(merged) is SeqVal and all(
            type(v) is SeqVal and len(v.items) == len(merged.items) for v in vals
        ):
            # a list of one length on every path, its items different objects on different
            # paths (`if self.relu_laterals: laterals = [F.relu(l) for l in laterals]`): each
            # item as a name would be (lookalike47's FPN neck)
            items = tuple(
                _grouped(item, [v.items[i] for v in vals], live, out)
                if isinstance(item, TensorVal)
                and len({v.items[i].storage for v in vals if isinstance(v.items[i], TensorVal)}) > 1
                else item
                for i, item in enumerate(merged.items)
            )
            if any(a is not b for a, b in zip(items, merged.items)):
                merged = SeqVal(items, merged.lineage)
        out.env[key] = merged
    return out


def _grouped(merged: TensorVal, vals: list, live: list[State], out: State) -> TensorVal:
    """Different objects on different paths: a fresh group that carries, from each path, the
    saves on the object the name holds on that path. A save made on a path where the name then
    holds another object is not this name's: `if c: o = post(x[:2]); x = torch.cat(...)` leaves
    `x` unsaved on both paths, and `if c: a = torch.clamp(a)` saves the old `a`, which the name
    holds only on the path where the clamp did not run."""
    merged = replace(merged, storage=new_id())
    for state, value in zip(live, vals):
        if isinstance(value, TensorVal):
            for save in state.saves.get(value.storage, ()):
                out.add_save(merged.storage, save)
    return merged


def either_module(values: list) -> ModuleVal | None:
    """Modules of different kinds on different paths (`nn.Linear(d, d) if use_proj else
    nn.Identity()`): which one runs is not known, so neither's facts are promised (an Identity
    hands its input through, a Linear makes a new tensor). A module whose call is not known,
    holding the parameters of any of them. None when they are not modules of different kinds."""
    if len(values) < 2 or not all(isinstance(v, ModuleVal) for v in values):
        return None
    first = values[0]
    if first.uid and all(v.uid == first.uid for v in values):
        return None  # one instance, grown on one path (`self.body.add_module(...)` in a loop)
    kinds = {(v.qualname, v.local_class, v.facts is None, len(v.children)) for v in values}
    if len(kinds) == 1 and all(v.facts is first.facts or v.facts == first.facts for v in values):
        return None
    return ModuleVal(
        path=first.path,
        fw=first.fw,
        has_parameters=any(v.has_parameters for v in values),
        uid="either:" + "|".join(sorted(v.key_root for v in values)),
    )


def _backward_hooks(module: ModuleVal) -> frozenset:
    """The full backward hooks (``ModuleVal.backward_hook``) on ``module`` and its children, as
    (position among the children, id of the registration call) pairs."""
    found = set()
    stack = [((), module)]
    while stack:
        where, held = stack.pop()
        if held.backward_hook is not None:
            found.add((where, id(held.backward_hook)))
        stack.extend(((*where, i), child) for i, child in enumerate(held.children))
    return frozenset(found)


def _without_backward_hooks(module: ModuleVal) -> ModuleVal:
    children = tuple(_without_backward_hooks(c) for c in module.children)
    return replace(module, backward_hook=None, children=children)


def merge_values(vals: list[Value | None]) -> Value:
    """What one name holds after the paths that bound it to ``vals`` (None: a path that did not
    bind it); also what a function's return statements give, merged."""
    first = vals[0]
    if all(v is first for v in vals) and first is not None:
        return first
    present = [v for v in vals if v is not None]
    tensors = [v for v in present if isinstance(v, TensorVal)]
    # an unknown value on another path (`data = batch["X"]`, then `if self.first: data =
    # torch.relu(self.first(data))`: LibCity's STSGCN) may be a tensor too: on the path that
    # bound a tensor, that tensor's facts hold
    # (not a number, as in `test_loss = 0` before a loop of `test_loss += loss_fn(...)`: an
    # unknown callee's result taken for a tensor may be a number, `accuracy_fn(...)`'s float)
    unknowns = [v for v in present if type(v) is Unknown]
    if unknowns and not all(t.known for t in tensors):
        unknowns = []  # (a tensor only assumed, `px0 += (fw + up - 1) // 2`, stays unknown)
    # a number on the path that skipped a loop, a known tensor on the path through it: the
    # accumulator `test_loss = 0` / `for X in loader: test_loss += model(X).sum()` (recall18's
    # course test_step): after the loop it is the tensor (a loop over no data leaves the number)
    numbers = (
        [v for v in present if type(v) is ConstVal and type(v.value) in (int, float)]
        if tensors and all(t.known for t in tensors)
        else []
    )
    # None on the path that skipped a loop or a branch (`h = None` / `for x in xs: h = cell(x,
    # h)`): where it is used as a tensor it is the tensor, and `h is None` stays open
    nones = [v for v in present if type(v) is ConstVal and v.value is None] if tensors else []
    if tensors and len(tensors) + len(unknowns) + len(numbers) + len(nones) == len(present):
        # Keep the first tensor's identity (storage); widen the facts.
        base = tensors[0]
        return replace(
            base,
            requires_grad=tri_or([t.requires_grad for t in tensors] + ([None] if unknowns else [])),
            leaf=all(t.leaf for t in tensors) and len(tensors) == len(vals),
            known=all(t.known for t in tensors),
            lineage=frozenset().union(*(t.lineage for t in tensors)),
            view_of_leaf=all(t.view_of_leaf for t in tensors) and len(tensors) == len(vals),
            via_data=all(t.via_data for t in tensors),
            leaf_condition=base.leaf_condition
            if all(t.leaf_condition == base.leaf_condition for t in tensors)
            else None,
            maybe_none=bool(nones) or any(t.maybe_none for t in tensors),
        )
    if present and all(isinstance(v, SeqVal) for v in present) and len(present) == len(vals):
        size = len(present[0].items)
        if size and all(len(v.items) == size for v in present[1:]):
            # one tuple on every path, its items updated on some (`encoder_out[0][:, j] = ...`
            # in a loop): each item as the paths leave it
            return SeqVal(
                tuple(merge_values([v.items[i] for v in present]) for i in range(size)),
                frozenset().union(*(v.lineage for v in present)),
            )
        return max(present, key=lambda v: len(v.items))  # a list built in a loop: its fullest state
    frozen = [v for v in present if isinstance(v, ModuleVal) and v.frozen]
    if frozen:
        # `for p in m.parameters(): p.requires_grad_(False)` froze it on the loop's path; the
        # path that skips the loop runs only for a module without parameters
        return frozen[0]
    modules = [v for v in present if isinstance(v, ModuleVal)]
    if (
        modules
        and len(modules) < len(present)
        and all(
            isinstance(v, ModuleVal) or (isinstance(v, ConstVal) and v.value is None)
            for v in present
        )
    ):
        # `self.first = nn.Linear(...)` or `self.first = None` (LibCity's STSGCN): where the
        # module is called, it is the module (a call of None raises); `if self.first:` stays
        # undecided
        present = modules
    if present and all(
        isinstance(v, ModuleVal) and v.uid == present[0].uid and v.uid for v in present
    ):
        # One module on every path that binds the name: `if self.resize: self.proj = Conv(...)`
        # (where the other path binds nothing, a use there raises AttributeError), or
        # `self.body.add_module(...)` in a loop (its fullest state, as for lists).
        chosen = max(present, key=lambda v: len(v.children))
        # (a parameter frozen on one path only, `if freeze: head.weight.requires_grad_(False)`,
        # is not frozen after it; an option's test makes alternatives: _mark_alternative_modules)
        frozen_parameters = frozenset.intersection(*(v.frozen_parameters for v in present))
        if frozen_parameters != chosen.frozen_parameters:
            chosen = replace(chosen, frozen_parameters=frozen_parameters)
        hooks = _backward_hooks(chosen)
        if hooks and (
            len(present) < len(vals) or any(_backward_hooks(v) != hooks for v in present)
        ):
            # a full backward hook registered on one path only (`if cfg.log_grads:`): whether
            # the module's tensors are hook views is not known after the merge
            chosen = _without_backward_hooks(chosen)
        return chosen
    if present and all(type(v) is DictVal for v in present):
        # a dict built on every path: the keys every path wrote, their values merged
        first_items = present[0].items if len(present) == len(vals) else ()
        merged = tuple(
            (key, merge_values([v.get(key) for v in present]))
            for key, _ in first_items
            if all(v.get(key) is not None for v in present[1:])
        )
        return DictVal(frozenset().union(*(v.lineage for v in present)), merged)
    if (
        present
        and all(type(v) is type(present[0]) for v in present)
        and len(present) == len(vals)
        # `flag = False` / `if c: flag = True`: after the merge either literal may hold
        and not (isinstance(first, ConstVal) and any(v != first for v in vals))
    ):
        return present[0]
    return Unknown(frozenset().union(*(lineage_of(v) for v in present)) if present else frozenset())
