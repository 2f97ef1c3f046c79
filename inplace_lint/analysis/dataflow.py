"""The per-function autograd dataflow.

Each function body is interpreted once, in statement order, over abstract values
(``values.py``): branches are analysed on copies of the state and merged, loop bodies run twice
so that a second iteration sees what the first left behind. Along the way the interpreter records
the events of ``events.py`` (writes, out= calls, Paddle rebinds, ...) that the rules read.

What is modelled, in one place:
- tensor-ness, framework and requires-grad (tri-state) of every name and attribute path;
- leaves (``requires_grad=True``, ``nn.Parameter``, module parameters, ``parameters()`` loops);
- grad mode (``with torch.no_grad()``, decorators, guards living in callers);
- aliases and views (one ``storage`` per version counter), multi-output views;
- saves, from the knowledge tables, with their requires-grad conditions;
- backward reachability: a save matters only if a later backward (or the function's return value,
  for forward-like code) has the saving op in its lineage.
"""

from __future__ import annotations

import itertools
import re
import sys
import typing
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, fields

import libcst as cst

from inplace_lint.analysis import knowledge as kb
from inplace_lint.analysis.annotations import LAYER_PARAMETER, NON_TENSOR_TYPES
from inplace_lint.analysis.events import (
    CustomFunctionIssue,
    OutCall,
    Rebind,
    Reuse,
    SequentialAdjacency,
    Write,
)
from inplace_lint.analysis.imports import dotted_name
from inplace_lint.analysis.index import (
    FUNCTION_BASES,
    ClassInfo,
    FunctionInfo,
    ModuleIndex,
    local_lineage,
)
from inplace_lint.analysis.snippets import snippet
from inplace_lint.analysis.textfacts import TextFacts
from inplace_lint.analysis.values import (
    GENERIC_SUBMODULE,
    PARAMETER_LOOP_PRODUCER,
    UNKNOWN,
    ArrayVal,
    AutocastVal,
    ConstVal,
    DictVal,
    FrameworkRef,
    GradModeVal,
    LambdaVal,
    LoopCounter,
    ModuleVal,
    OptimizerVal,
    ParamsVal,
    Save,
    SeqVal,
    State,
    SubmodulesVal,
    TensorVal,
    Unknown,
    Value,
    ZipVal,
    either_module,
    generic_submodule,
    is_module_uid,
    lineage_of,
    merge_states,
    merge_values,
    new_id,
    new_module_uid,
    replace,
    tri_or,
)
from inplace_lint.fastcst import subclasses, value_node_classes

MAX_LOOP_PASSES = 2
_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)
MODULE_KEY = "<module>"
MAX_SPECIALIZATIONS = 200


@dataclass
class FunctionSummary:
    """What callers in the same module need to know about a function."""

    param_writes: dict[int, Write] = field(default_factory=dict)  # param index -> its first write
    # the same for an item unpacked from a tuple argument (`x, mel, t = input_data`, DiffWave's
    # residual block given `(h, mel, t)`): (param index, position) -> its first write
    param_item_writes: dict[tuple[int, int], Write] = field(default_factory=dict)
    # params the function writes through something that does not require grad although the
    # caller's tensor may (`p.detach().uniform_()`, or after `out.stop_gradient = True` in
    # Paddle's sinusoidal-embedding initialisers): the caller's tensor is written so
    grad_off_params: set[int] = field(default_factory=set)
    self_param_writes: list[Write] = field(default_factory=list)  # writes to `self.<parameter>`
    # writes to another tensor kept on `self` (a buffer: MoCo's `self.queue[:, p:q] = keys.T` in
    # `_dequeue_and_enqueue`), by attribute name: a method of the same instance calling it
    # replays them against what it saved of that tensor
    self_buffer_writes: dict[str, Write] = field(default_factory=dict)
    # a method's `self.<name>` left holding a tensor that an op on the way to the returned value
    # saved, on every return path (`self.hidden = h.detach(); return self.value(h)`): name ->
    # saved as what. Called on an instance from outside, the instance's field then carries that
    # save, in the graph of the call's result (lookalike33's TBPTT agent)
    attribute_saves: dict[str, str] | None = None
    # `self.<name> = ...` in a method's own body: name -> whether the tensor it holds at the end
    # requires grad (None: not a tensor, or not known). Called on an instance from outside, the
    # instance's field holds a new object after the call (lookalike35: `mem.write(x)` rebinding
    # `self.state`, then `mem.state.mul_(...)` writes the new tensor, not the one saved before)
    rebound_attributes: dict[str, bool | None] | None = None
    returned: Value | None = None  # modules / optimizers / tuples of them a factory returns
    saved_params: dict[int, str] = field(default_factory=dict)  # argument index -> saved as what
    # the same for the tensors of a list or tuple argument, by (argument index, position):
    # MAML's `forward(params, x)` with `F.linear(x, params[0], params[1])` saved the caller's
    # fast weights, which its `w.sub_(lr * g)` then breaks
    saved_param_items: dict[tuple[int, int], str] = field(default_factory=dict)
    saved_self_attributes: set[str] = field(default_factory=set)  # forward saved `self.<name>`
    # those of them saved for their version only (``Save.version_only``: BN running statistics)
    version_only_attributes: set[str] = field(default_factory=set)
    ctx_stashed: set[int] = field(default_factory=set)  # autograd.Function: params kept on ctx
    ctx_saved: set[int] = field(default_factory=set)  # params given to save_for_backward
    # an autograd.Function's forward returns, on every path, a tensor it gave to
    # save_for_backward (`r = torch.sigmoid(i); ctx.save_for_backward(r); return r`)
    ctx_saves_output: bool = False
    returns_saved_output: bool = False  # the returned tensor was saved by an op inside
    # ... but only on one side of an `if <option>:` (`if self.with_activation: x = self.act(x)`)
    saved_output_condition: str | None = None
    returns_known: bool = False  # the returned tensor's producer is known
    # every return path returns a tensor without a graph (`return x.detach()`, made under
    # no_grad): the caller's result does not require grad and no backward runs through the call
    returns_grad_free: bool = False
    # every return path returns a tensor that requires grad whatever the arguments are: it reads
    # a trainable module-level tensor (`def conv(x): return x * psf`, waveprop's learned PSF) or
    # makes one
    returns_requires_grad: bool = False
    returns_dict: bool = False  # every return path returns a dict it built (``DictVal``)
    # every return path returns a tensor made in inference mode (`@torch.inference_mode()`)
    returns_inference: bool = False
    # every return path returns a fresh leaf that requires grad (fastbook's `init_params(size)`
    # returning `(torch.randn(size) * std).requires_grad_()`)
    returns_leaf: bool = False
    # every return path returns Python values without a graph (`return bool(t.item()),
    # q.argmax().item()`): the caller's result carries none of its arguments' graph
    returns_graphless: bool = False
    marks_dirty: bool = False  # an autograd.Function's forward calls `ctx.mark_dirty(...)`
    returns_custom_view: bool = False  # the multi views returned are a custom Function's input
    # every return path returns one tensor that is a view of a tensor made inside (`return
    # out.view(*shape, -1)`, AQLM PR#26); None before the first return
    returns_view: bool | None = None
    # an autograd.Function's forward: every return path returns an argument itself (`return x`)
    returns_input_itself: bool = False
    # every return path returns one argument itself, a view of it or its `.detach()` (the same
    # memory): (argument index, "same" | "view" | "detach")
    returns_alias: tuple[int, str] | None = None
    # every return path returns a tuple whose every item is such an alias of an argument
    # (`return t[:, :c], t[:, c:]`, Glow's `split_feature`): per item, (argument, kind)
    returns_item_aliases: tuple[tuple[int, str], ...] | None = None
    # every return path returns a tuple of the same length whose items at the same positions
    # are such aliases, the others not (`return a.view(-1, n), b.view(-1, n), c`, Liger's
    # `swiglu_forward`): per item, (argument, kind) or None
    returns_some_item_aliases: tuple[tuple[int, str] | None, ...] | None = None
    # every return path returns a tuple (a literal one) of this many items
    returned_arity: int | None = None
    # the `self.<name>` parameters (and submodules) an op on the way to a returned value saved;
    # such a save on a submodule the function does not name; a parameter itself (or a view of
    # it) returned; an opaque call's result took part somewhere, so what it saved is not known
    saved_parameter_names: set[str] = field(default_factory=set)
    saves_submodule_parameters: bool = False
    # modules passed in as arguments whose parameters an op on the way to a returned value saved,
    # by their parameter storage (`params:<uid>`, the same in the caller) -> saved as what:
    # `return -d(g(z)).mean()` hands the caller a loss whose backward needs `d`'s weights, so a
    # step of `d`'s optimizer before that backward breaks it (IPL006 through a helper)
    saved_module_arguments: dict[str, str] = field(default_factory=dict)
    # the parameter storages of modules passed in whose calls are on the way to a returned value:
    # a backward through the result gives them gradients (what a later step updates)
    graph_module_arguments: set[str] = field(default_factory=set)
    # a method whose returned value went through its own module's call (`return
    # -self.forward(fake).mean()`, Vid-ODE's `netD.g_loss(fake)`): what that call saved of the
    # module's parameters (None: nothing), and whether the result's graph reaches them
    saved_own_parameters: str | None = None
    graph_own_parameters: bool = False
    # a method of a class holding modules (`self.critic`) whose returned value went through
    # their calls (SAC's `q1_loss, q2_loss, ... = self.calc_critic_loss(batch)`): by attribute
    # name, what those calls saved of the submodules' parameters, and the submodules the
    # result's graph reaches (a backward through it gives them gradients). A caller that calls
    # it on `self` sees the same submodules under the same names
    saved_self_submodules: dict[str, str] = field(default_factory=dict)
    graph_self_submodules: set[str] = field(default_factory=set)
    # the same per item of a returned tuple, when the items differ (edge-connect's `process`
    # returning `gen_loss, dis_loss`, where only `gen_loss` went through `self.discriminator`
    # with the generator's graph): per item, (submodule -> saved as what, submodules reached),
    # the module's own parameters under "" (`self(x)`). The caller gives each item a graph of
    # its own, so that the backward of one does not consume what the other's backward still
    # needs (a step between the two)
    item_self_submodules: tuple[tuple[dict[str, str], frozenset[str]], ...] | None = None
    # per item, the other items whose whole graph is part of its own on every return path
    # (`return self.pi(h), h`: the logits were computed from `h`). A backward of the item runs
    # through theirs too, and frees it (lookalike32's recurrent policy)
    item_contains: tuple[frozenset[int], ...] | None = None
    # the returned tuple holds tuples (`return (loss_G, loss_D), fake`: pix2pixHD's models): the
    # items above are its leaves, and this is its nesting, as leaf indices (`((0, 1), 2)`)
    item_shape: tuple | None = None
    # a training-step helper (`def update_params(optim, net, loss): optim.zero_grad();
    # loss.backward(); optim.step()`): its backwards of arguments and steps of argument
    # optimizers, in order, as ("backward", index, retain) / ("step", index, the step's call);
    # a method's step of an optimizer it holds (`self.critic_opt.step()`) as ("self_step",
    # attribute name, the step's call): a caller of the method on an instance replays it there;
    # a step of a module-level optimizer as ("global_step", its name, the step's call)
    # the caller replays them on what it passed
    train_steps: list[tuple[str, object, object]] = field(default_factory=list)
    # every return path returns the views of one multi-output call (`return
    # self._in_proj(query).chunk(3, dim=-1)`, fairseq's in_proj_qkv): whether they require grad,
    # and how many return paths did so (-1 once one returned something else)
    returns_multi_view: bool | None = None
    multi_view_returns: int = 0
    returns_parameter: bool = False
    # parameter storages of modules passed in whose parameters it froze (`requires_grad_(False)`
    # on each): the caller's modules are frozen after the call
    frozen_module_arguments: set[str] = field(default_factory=set)
    # modules passed in that it gave a full backward hook (Grad-CAM's `__init__(self, model,
    # target_layer)` registering on `target_layer`): (parameter position, the registration);
    # each caller hooks what it passed there (``ModuleVal.backward_hook``)
    hooked_module_arguments: list[tuple[int, cst.CSTNode]] = field(default_factory=list)
    # the same, for modules whose parameters it writes in place without grad or through
    # `set_value` / `.data` (an EMA swap, a weight shrink between forward and backward): each
    # caller replays that as an update of what it passed (IPL006 / IPL104)
    updated_module_arguments: dict[str, Write] = field(default_factory=dict)
    # a method's own such write (`for p in self.parameters(): p.data.clamp_(-c, c)`, WGAN's
    # clip): a call on an instance (`D.clip_weights(c)`) replays it on that instance's
    # parameters, as for a module argument
    updated_own_parameters: Write | None = None
    opaque_inside: bool = False
    # Every return path returns a tuple of this many items, and these items (index -> saved as
    # what) are tensors saved by an op on the way to the returned values: `return k * z, z`
    # hands the caller a `z` that its next write into breaks the backward of the first item.
    saved_items: tuple[int, dict[int, str]] | None = None
    saved_items_fields: tuple[str, ...] = ()  # the namedtuple's field names, by position
    # The same for a dict every return path builds with the same string keys (`return
    # {"logits": z, "probs": z.softmax(-1)}`, a local dataclass `Out(logits=z, probs=...)`):
    # its tensor keys, and those (key -> saved as what) saved on the way to the returned values
    saved_entries: tuple[tuple[str, ...], dict[str, str]] | None = None
    # a forward that reads a `self.<state>` it then rebinds to a tensor with a graph (a recurrent
    # state kept on the module, not detached): the next call's result carries this call's graph
    carries_graph: bool = False
    # (saved argument, written argument) -> what: an op whose graph an in-place write gave to
    # the written argument's memory saved the other (or the same) argument, and the save is
    # intact on every way out: `x.exp_()` saves x's own memory (its output), `a1 *= a0` saves
    # a0. The caller's written tensor holds that op's graph; its next write of the saved
    # tensor breaks the save
    param_graph_saves: dict[tuple[int, int], str] = field(default_factory=dict)
    # a module's forward (or the like): its saves are not replayed at the call (above)
    forward_like: bool = False
    # the tensor parameters whose graph the analysis follows inside (by index), and those of
    # them whose graph reaches a returned value on some path (None: no value returned): the
    # caller's result carries the graph of those arguments only (SAC's `calc_entropy_loss(
    # entropies)` detaches them: a backward of its result does not run through them)
    traced_params: frozenset[int] = frozenset()
    returned_params: frozenset[int] | None = None
    # every return path returns the same literal True, False or None as this call runs it
    # (lucidrains' `def exists(val): return val is not None`, given a None): `if exists(mask):`
    # in the caller takes one branch, as `if mask is not None:` does
    returns_constant: ConstVal | None = None
    # a forward's `self.<name>` left holding a tensor computed from its inputs (the neural-style
    # tutorial's `ContentLoss.forward`: `self.loss = F.mse_loss(input, self.target); return
    # input`): read from outside after the call (`cl.loss.backward()`), it has the call's graph
    forward_graph_attributes: frozenset[str] = frozenset()
    # every return path returns a view of the same `self.<name>` parameter (`return
    # self.h0.expand(n, -1)`, a learned initial state): seen from outside, a view of that leaf
    returns_parameter_view: str | None = None

    def saved_parameters(self) -> frozenset[str] | None:
        """What a call of this `forward` saves of its module's parameters, by attribute name;
        None when the analysis cannot tell (an empty set: it followed the forward whole and
        found no such save)."""
        if self.opaque_inside or self.returns_parameter or self.saves_submodule_parameters:
            return None
        return frozenset(self.saved_parameter_names)


@dataclass
class FunctionResult:
    info: FunctionInfo
    writes: list[Write] = field(default_factory=list)
    out_calls: list[OutCall] = field(default_factory=list)
    rebinds: list[Rebind] = field(default_factory=list)
    reuses: list[Reuse] = field(default_factory=list)
    function_issues: list[CustomFunctionIssue] = field(default_factory=list)
    adjacency: list[SequentialAdjacency] = field(default_factory=list)
    # callee, grad enabled, grad mode explicit, the enclosing option test (`not train_mode`)
    call_sites: list[tuple[str, bool, bool, str | None]] = field(default_factory=list)
    # module forwards called with grad and given data (tensors that do not require grad) for
    # every input that the forward, on its own, takes for one that does (``_data_inputs``)
    data_calls: list[tuple[str, frozenset[int]]] = field(default_factory=list)
    # a result of one of its module's own methods was not taken to require grad, since the
    # method may run without grad (``FunctionInterpreter.self_results_grad``)
    self_results_unsure: bool = False
    summary: FunctionSummary = field(default_factory=FunctionSummary)
    self_attributes: dict[str, Value] = field(default_factory=dict)  # for __init__


class ModuleDataflow:
    """Analyses every function of one module; memoises so helpers are analysed before callers."""

    def __init__(
        self,
        module: cst.Module,
        index: ModuleIndex,
        top_level: frozenset[str] | None = None,
        facts: TextFacts | None = None,
    ) -> None:
        self.module = module
        self.index = index
        # what the file's text says beyond the analysed tree (``textfacts.TextFacts``)
        self.text = facts if facts is not None else TextFacts()
        # the functions and methods ("f", "Class.method") to analyse on their own, when the text
        # is the prefilter's (``prefilter.Plan.writers``): the others hold no in-place syntax and
        # call nothing that writes, so they can report nothing; they run where they are called,
        # for their summaries. None: every function (docs/performance.md, session 30)
        self.top_level = top_level
        # an in-place child of a container right after a child that saves its output (by the
        # in-place child's constructor node): one entry per call of the container, the op id of
        # the saving child's output when the tensor there may require grad (else None)
        self.adjacency_calls: dict[int, list[tuple[str, int | None]]] = {}
        # a helper's key -> the op ids its calls' results got in their callers (None: a result
        # without one); and the functions where a backward of a graph the analysis cannot see
        # ran (empty: none did)
        self.helper_results: dict[str, set[int | None]] = {}
        self.unknown_backward_in: set[str] = set()
        # a local function, method or module forward -> per call here that got a tuple back:
        # the caller, and each item's lineage there (``_drop_unread_tuple_items``)
        self.tuple_item_calls: dict[str, list[tuple[str, list[frozenset[int]]]]] = {}
        self._class_mentions: dict[str, tuple[list[cst.Call], bool]] = {}  # ``class_mentions``
        self.guarded: set[str] = set()  # functions every call site of which runs without grad
        self.reached_ops: set[int] = set()  # op ids some backward, return or `self.x =` reaches
        self.backward_ops: set[int] = set()  # those a backward reaches
        self.results: dict[str, FunctionResult] = {}
        self._in_progress: set[str] = set()
        self.class_attributes: dict[str, dict[str, Value]] = {}
        self.specializations: dict[tuple, FunctionResult] = {}
        self.globals: dict[str, Value] = {}
        self.global_uids: frozenset[str] = frozenset()  # the modules the globals hold
        self._closure_reads: dict[str, bool] = {}  # nested function -> reads its encloser's names
        self.snippets: dict[cst.CSTNode, str] = {}  # node -> its one-line quote (_code)
        # autograd.Function class -> one entry per `Fn.apply(...)` call: for each positional
        # argument, whether the caller may use it after the call (IPL106 needs a caller that does)
        self.apply_uses: dict[str, list[tuple[bool, ...]]] = {}
        self._inlinable: dict[str, str | None] = {}
        self._forward_attributes: dict[str, frozenset[str]] = {}
        self._readable: dict[str, frozenset[str] | None] = {}
        self._framework_bases: dict[str, tuple[str, object] | None] = {}
        self._class_kinds: dict[str, str] = {}  # ``class_kind``
        self._reads_only: dict[tuple[str, str], bool] = {}  # ``reads_only``
        self._methods_named: dict[str, tuple[str, ...]] = {}  # ``methods_named``
        self._loop_facts: dict[int, tuple] = {}  # ``loop_fact``
        self._returns: dict[str, tuple[int | None, bool]] = {}  # ``_return_facts``
        self._tested_defaults: dict[str, dict[str, object]] = {}
        self._required: dict[str, frozenset[str]] = {}
        self._dropout_rates: dict[str, dict[int, object]] = {}
        # (module key root, attribute) given a parametrization (`register_parametrization(lin,
        # "weight", ...)`): reading it computes a fresh tensor, not the parameter
        self.parametrized: set[tuple[str, str]] = set()
        self._carried: dict[str, frozenset[str]] = {}
        self._appended: dict[str, tuple[tuple[int, int], ...]] = {}  # (``appended_arguments``)
        # id of a `for` -> the start of the counter its body compares (``_counter_start``)
        self.counter_tests: dict[int, int | None] = {}
        self.retaining_loops: dict[int, bool] = {}  # id of a loop -> it backwards retaining

    def run(self) -> list[FunctionResult]:
        self.globals = self._module_globals()
        self.global_uids = frozenset(
            m.uid
            for value in self.globals.values()
            if isinstance(value, ModuleVal)
            for m in (value, *value.children)
            if m.uid
        )
        for key, info in list(self.index.functions.items()):  # (nested defs join as met)
            if info.inherited_from is not None and not _entry_of_subclass(info):
                continue  # an inherited method runs for a subclass where it is called
            if self.top_level is not None and _run_on_demand(key, info, self.top_level):
                continue
            self.result(key)
        self.results[MODULE_KEY] = FunctionInterpreter(self, self.index.module_info).run()
        self._apply_caller_guards()
        self._apply_data_callers()
        self._rerun_called_with_grad()
        self._apply_caller_conditions()
        self._mark_speculative()
        self._drop_init_only_reruns()
        self._drop_unread_helper_returns()
        self._drop_unread_tuple_items()
        # a method `__init__` calls runs during construction: that run comes first, so that when
        # the same write is also found by the method's analysis alone (from what `__init__` left
        # on `self` at its end), its message speaks of the tensors as they were at the call
        in_init: list[FunctionResult] = []
        rest: list[FunctionResult] = []
        for memo, result in self.specializations.items():
            (in_init if _called_from_init(memo) else rest).append(result)
        return in_init + list(self.results.values()) + rest

    def _drop_unread_helper_returns(self) -> None:
        """A helper's write that only its own `return` confirms (no backward in it) holds for a
        caller that takes the result into a backward, a returned value or `self.x`. Where every
        call of the helper in this module hands its result to none of them (dgl's deepwalk
        `adam()`, whose result only goes into `weight.data.index_add_`), nothing ever reads the
        broken save: the write is not confirmed. A helper nobody here calls is left as it is
        (its callers are elsewhere), and so is any module where a backward of a graph the
        analysis cannot follow ran."""
        for key, result in self._every_result():
            ops = self.helper_results.get(key)
            if not ops or None in ops or not ops & self.backward_ops:
                # (a training step's return: only a backward seen here through the result
                # confirms the step it broke, not a caller returning it in turn)
                for write in result.writes:
                    if write.confirmed_by_step_return and not write.confirmed_by_backward:
                        write.confirmed = set()
        if self.unknown_backward_in:
            return
        for key, result in self._every_result():
            ops = self.helper_results.get(key)
            if not ops or None in ops or ops & self.reached_ops:
                continue
            for write in result.writes:
                if write.confirmed_by_return and not write.confirmed_by_backward:
                    write.confirmed = set()

    def class_mentions(self, name: str) -> tuple[list[cst.Call], bool]:
        """The calls of ``name`` (`Block(...)`) in this module, and whether it is also named any
        other way (passed as a factory, subclassed, `partial(Block, ...)`): memoised."""
        found = self._class_mentions.get(name)
        if found is None:
            calls: list[cst.Call] = []
            other = False
            stack = [self.module]
            while stack:
                node = stack.pop()
                kind = type(node)
                if kind is cst.Call and type(node.func) is cst.Name and node.func.value == name:
                    calls.append(node)
                    stack.extend(a.value for a in node.args)
                    continue
                if kind is cst.ClassDef and node.name.value == name:
                    stack.extend(node.body.body)
                    stack.extend(node.decorators)
                    continue
                if kind is cst.Name and node.value == name:
                    other = True
                    continue
                stack.extend(_subnodes(node))
            found = self._class_mentions[name] = (calls, other)
        return found

    def _drop_unread_tuple_items(self) -> None:
        """A forward, method or function returning a tuple (`return logits, feats`) whose write
        breaks a save only the graph of some items reaches (``Write.returned_items``:
        `feats.mul_(2)` after `feats = tanh(h)`), where every call here backwards another item
        and never takes those anywhere (`logits, feats = enc(x); logits.sum().backward()`):
        nothing runs the broken backward, as for a helper's unread return
        (``_drop_unread_helper_returns``, which looks at the whole result only). lookalike36:
        a forward called as `enc(x)`, a method reached through `self.model` bound from a
        constructor argument. Code nothing here calls, or a call whose items cannot be told
        apart, is left as it is."""
        if not self.tuple_item_calls:
            return
        sites = self._call_sites() if self.unknown_backward_in else {}
        for key, result in self._every_result():
            calls = self.tuple_item_calls.get(key)
            if not calls:
                continue
            if self.unknown_backward_in and not self.unknown_backward_in <= _with_callers(
                {caller for caller, _ in calls}, sites
            ):
                # (a backward of a graph the analysis cannot see ran elsewhere than in a
                # function making such a call or one calling it: it may run the written item's
                # graph. In those, the item's graph leaves only through what reaches a return
                # or `self`, which keeps the finding: `def train_step(model, ...): logits,
                # feats = model(x)` is also run on its own with `model` unknown, and replayed
                # in `main()` that calls it)
                continue
            for write in result.writes:
                if (
                    write.confirmed
                    and write.confirmed_by_return
                    and not write.confirmed_by_backward
                    and write.returned_items
                    and all(
                        self._other_items_backwarded(lineages, write.returned_items)
                        for _, lineages in calls
                    )
                ):
                    write.confirmed = set()

    def _other_items_backwarded(self, lineages: list[frozenset[int]], written: set[int]) -> bool:
        """In one call's result: a backward, a return or `self.x =` reached an item outside
        ``written`` through ops of its own, and nothing reached an item of ``written``."""
        if max(written) >= len(lineages):
            return False
        own = []
        for index, lineage in enumerate(lineages):
            others = frozenset().union(*(x for j, x in enumerate(lineages) if j != index))
            own.append(lineage - others)
        if any(not own[i] or own[i] & self.reached_ops for i in written):
            return False
        # (another item went on, into a backward or out through a return or `self`: the
        # call is a training path that chose its items, not a smoke test printing shapes)
        return any(own[i] & self.reached_ops for i in range(len(lineages)) if i not in written)

    def _drop_init_only_reruns(self) -> None:
        """A method that only its class's `__init__` calls (nerfstudio's `build_nn_modules`) runs
        once, inside the constructor, and that run is analysed there (``_called_from_init``).
        Its analysis on its own starts from what `__init__` left at its end, as if it ran a
        second time: `self.table = torch.rand(...)` on what is by then a registered Parameter,
        `self.table *= s` on a leaf. Nothing runs it again, so that analysis reports nothing."""
        sites = self._call_sites()
        for key, result in self.results.items():
            info = result.info
            if info.cls is None or info.node.name.value.startswith("__") or key not in sites:
                continue
            init = f"{info.cls.name}.__init__"
            if all(c == init or c.startswith(f"{init}@") for c, _, _, _ in sites[key]):
                result.writes = []
                result.rebinds = []
                result.reuses = []
                result.out_calls = []

    def _mark_speculative(self) -> None:
        """A method that is neither a forward nor called in this module runs in a context we do not
        know (timm FasterNet's inference-only `forward_slicing`): what only its return confirms is
        not a promise. Nor is it in a helper defined inside a function: it reads its enclosing
        function's names, which its own analysis does not see (ESMFold's inference-only
        `_inference_forward` builds its projections in one); a write into what its caller passed
        is replayed, and judged, in the caller."""
        # (a method called only by methods nothing here calls counts as called: an uncalled
        # method is usually an entry point some framework or script runs, `training_step` ->
        # `shared_step`, and its helpers' errors stay errors; AlphaPose's `v2_transform` ->
        # `transform`, dead code, is the price)
        called = {
            callee
            for r in (*self.results.values(), *self.specializations.values())
            for callee, _, _, _ in r.call_sites
        }
        for r in (*self.results.values(), *self.specializations.values()):
            cls = r.info.cls
            for write in r.writes if cls is not None else ():
                # `self.reset_parameters()` in `__init__`, taken as the module's reset: the
                # class's own method runs there (a custom reset filling its bias in place)
                node = write.node
                if write.how == "module-reset" and type(node) is cst.Call:
                    name = _self_attribute(node.func)
                    if name is not None:
                        called.add(f"{cls.name}.{name}")
        for result in (*self.results.values(), *self.specializations.values()):
            info = result.info
            if ".<locals>." in info.key:
                if not self._reads_enclosing_names(info):
                    # it reads nothing of its enclosing function but `self`, which it is given
                    # (mmcv's `_inner_forward` closures): its analysis sees what it reads
                    continue
                for write in result.writes:
                    if not write.confirmed_by_backward:
                        write.speculative = True
                continue
            if info.cls is None and info.key not in called and info.key not in (MODULE_KEY, "main"):
                # a function nothing here calls (nni's `replace_conv2d`, run by its library
                # under `no_grad`): its leaf writes raise only if a caller elsewhere runs it with
                # grad, as for an uncalled method (IPL203, not IPL002); its other writes keep
                # what they were (a helper's return reaching a broken save). Not a script's
                # `main()`, which a console script or `__main__` runs as it is, with grad
                for write in result.writes:
                    if write.tensor.leaf or write.tensor.view_of_leaf:
                        write.speculative = True
                continue
            if info.cls is None or info.key in called or info.node.name.value.startswith("__"):
                continue
            if info.cls.is_module and info.node.name.value in ("forward", "_forward_impl"):
                continue
            for write in result.writes:
                if not write.confirmed_by_backward:
                    write.speculative = True

    def _reads_enclosing_names(self, info: FunctionInfo) -> bool:
        """Whether a nested function reads a name its enclosing function binds (other than the
        `self` it is given, and the objects its closure was given): its own analysis does not
        see those."""
        if info.key in self._closure_reads:
            return self._closure_reads[info.key]
        encloser = self.index.functions.get(info.key.rsplit(".<locals>.", 1)[0])
        reads = True
        if encloser is not None and (info.enclosing_cls is not None or info.closure):
            free = (
                _free_names(info.node)
                if info.closure
                else _names_in(info.node.body) - _bound_names(info.node)
            )
            seen = {"self", *(name for name, _ in info.closure)}
            reads = bool((free & _bound_names(encloser.node)) - seen)
        self._closure_reads[info.key] = reads
        return reads

    def inlinable(self, key: str) -> str | None:
        """How a method can run inside its caller (`FunctionInterpreter._inline_method`):
        "plain" — only `self` as parameter, no value returned; "training" — it runs a backward
        itself (`loss.backward()`), takes plain positional or keyword parameters and may return
        a value; None — neither (or a decorator, a `yield`, `*args`, keyword-only parameters)."""
        if key in self._inlinable:
            return self._inlinable[key]
        info = self.index.functions.get(key)
        node = info.node if info is not None else None
        found = None
        if node is not None and info.cls is not None and not node.decorators:
            params = node.params
            plain_params = (
                not params.posonly_params
                and not params.kwonly_params
                and isinstance(params.star_arg, cst.MaybeSentinel)
                and params.star_kwarg is None
                and len(params.params) >= 1
            )
            if plain_params and not _yields(node.body):
                if len(params.params) == 1 and not _returns_value(node.body):
                    found = "plain"
                elif _runs_backward(node.body):
                    found = "training"
        self._inlinable[key] = found
        return found

    def carried_attributes(self, info: FunctionInfo) -> frozenset[str]:
        """The `self.<name>` a method reads before it rebinds them (in text order)."""
        found = self._carried.get(info.key)
        if found is None:
            found = self._carried[info.key] = frozenset(_read_then_rebound(info.node.body))
        return found

    def forward_attributes(self, cls: ClassInfo | None) -> frozenset[str]:
        """The `self.<name>` a module's `forward` assigns (statements at any depth of its body);
        empty when the class has no undecorated `forward` of its own."""
        if cls is None:
            return frozenset()
        found = self._forward_attributes.get(cls.name)
        if found is None:
            info = self.index.functions.get(f"{cls.name}.forward")
            found = frozenset()
            if info is not None and info.cls is cls and not info.node.decorators:
                found = frozenset(_self_attributes_assigned(info.node.body))
            self._forward_attributes[cls.name] = found
        return found

    def readable_attributes(self, key: str) -> frozenset[str] | None:
        """The `self.<name>` a call of the method ``key`` can read: those its body reads and
        those of the methods of its own class it reaches through `self` (calls, properties).
        None when it may read any: a generic access (`self.parameters()`, `getattr(self, n)`,
        `self` handed to a function, `super()`), or a call of a method it may inherit from a
        class not in this module. (Only the class's own methods and its `__init__`s are read:
        the prefilter keeps exactly those, so the answer is the same on a reduced text.)"""
        if key in self._readable:
            return self._readable[key]
        info = self.index.functions.get(key)
        found: frozenset[str] | None = None
        if info is not None and info.cls is not None:
            found = _readable_attributes(info, self.index)
        self._readable[key] = found
        return found

    def class_kind(self, name: str, qual: str | None) -> str:
        """Whether instances of the class ``name`` (``qual``: its qualified name when imported)
        are tensors: "tensor", "other" or "unknown" (``FunctionInterpreter.type_test``).
        Memoised."""
        key = qual or name
        found = self._class_kinds.get(key)
        if found is not None:
            return found
        self._class_kinds[key] = "unknown"  # (while a class's own bases are looked at)
        if qual is not None:
            found = _qualified_class_kind(qual)
        elif name in self.index.classes:
            kinds = set()
            for owner in local_lineage(self.index.classes[name], self.index.classes):
                for base in owner.base_names:
                    if base in self.index.classes:
                        continue  # (in the lineage)
                    if base in _NOT_TENSOR_BUILTINS or base == "object":
                        kinds.add("other")
                    elif "." in base:
                        kinds.add(_qualified_class_kind(base))
                    else:
                        kinds.add("unknown")  # (a name from a star import, `Generic[T]`)
            found = "tensor" if "tensor" in kinds else "unknown" if "unknown" in kinds else "other"
        elif name in _NOT_TENSOR_BUILTINS:
            found = "other"
        else:
            found = "unknown"
        self._class_kinds[key] = found
        return found

    def framework_base(self, cls_name: str) -> tuple[str, object] | None:
        """A local module class built on a framework layer (`class Conv2d(nn.Conv2d)`, Glow's
        actnorm convolution): that layer's qualified name and facts, configured by the literal
        arguments of the class's `super().__init__(...)` (the others unknown)."""
        if cls_name in self._framework_bases:
            return self._framework_bases[cls_name]
        found = None
        cls = self.index.classes.get(cls_name)
        for owner in local_lineage(cls, self.index.classes) if cls is not None else ():
            layers = [
                base
                for base in owner.base_names
                if base not in self.index.classes and kb.is_module_class(base)
            ]
            if not layers:
                continue
            init = owner.methods.get("__init__")
            call = _super_init_call(init) if init is not None else None
            facts = kb.module_class(layers[0], _literal_keywords(call) if call else {})
            if facts is not None and not getattr(facts, "container", False):
                found = (layers[0], facts)
            break
        self._framework_bases[cls_name] = found
        return found

    def appended_arguments(self, key: str) -> tuple[tuple[int, int], ...]:
        """(list, item) argument positions for each `lst.append(item)` the function runs on two of
        its own arguments, at its top level or under `if item is not None:` / `if item:` alone
        (fepegar/unet's `add_if_not_none(module_list, module)` building a block's layers,
        recall42): its callers' list grows by what they passed."""
        found = self._appended.get(key)
        if found is None:
            found = ()
            info = self.index.functions.get(key)
            if info is not None:
                names = self.parameter_names(key)
                found = tuple(_argument_appends(info.node, names))
            self._appended[key] = found
        return found

    def only_appends(self, key: str, name: str) -> bool:
        """The function uses its parameter ``name`` only in the `name.append(item)` statements
        ``appended_arguments`` lists (`add_if_not_none(module_list, module)`)."""
        names = self.parameter_names(key)
        if name not in names:
            return False
        index = names.index(name)
        appends = sum(1 for target, _ in self.appended_arguments(key) if target == index)
        if not appends:
            return False
        info = self.index.functions[key]
        return _name_uses(info.node.body, name) == appends

    def tested_defaults(self, key: str) -> dict[str, object]:
        """The parameters defaulting to None, True or False that the function tests: None with
        `is None` / `is not None` (DeBERTa's `if query_states is None:`), a flag as a condition
        (GFDN's `forward(self, x, edge_index, active=True)` with `if active: x = F.relu(x)`).
        Name -> default."""
        found = self._tested_defaults.get(key)
        if found is None:
            info = self.index.functions.get(key)
            found = {}
            if info is not None:
                params = info.node.params
                optional = {
                    p.name.value: {"None": None, "True": True, "False": False}[p.default.value]
                    for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                    if type(p.default) is cst.Name and p.default.value in ("None", "True", "False")
                }
                if optional:
                    nones, flags = _default_tests(info.node.body)
                    found = {
                        name: default
                        for name, default in optional.items()
                        if name in (nones if default is None else flags)
                    }
            self._tested_defaults[key] = found
        return found

    def dropout_rates(self, key: str) -> dict[int, object]:
        """The parameters that the function gives an in-place dropout as its rate
        (`self.dropout = nn.Dropout(dropout, inplace=True)`, torchgeo's L-TAE), by position
        among ``parameter_names``, with their number defaults (``_NOT_LITERAL`` for none).
        Numbers are not part of a constructor's ``init_entry`` (every width would make a
        specialisation of its own); these are, so that an instance built with the default rate,
        or with a literal one, is analysed with it: the write is then certain (p > 0) or absent
        (p = 0), not a configuration away (IPL203)."""
        if not self.text.mentions_inplace:
            return {}
        found = self._dropout_rates.get(key)
        if found is None:
            self._dropout_rates[key] = {}  # (a recursive call meets none)
            info = self.index.functions.get(key)
            found = {}
            rates = _inplace_dropout_rate_names(info.node.body) if info is not None else set()
            if info is not None:
                rates |= self._rates_handed_on(info)
            if rates:
                names = self.parameter_names(key)
                params = info.node.params
                for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                    if param.name.value in rates and param.name.value in names:
                        value = _literal(param.default) if param.default is not None else None
                        number = isinstance(value, (int, float)) and not isinstance(value, bool)
                        found[names.index(param.name.value)] = value if number else _NOT_LITERAL
            self._dropout_rates[key] = found
        return found

    def _rates_handed_on(self, info: FunctionInfo) -> set[str]:
        """The names a body hands, as they are, to a local function or class at a parameter that
        is an in-place dropout rate there (`Critic(p=0.2)` building `mlp(d, h, p=p)`, lookalike44):
        rates of this function too."""
        names: set[str] = set()
        stack: list = [info.node.body]
        while stack:
            current = stack.pop()
            kind = type(current)
            if kind is cst.FunctionDef or kind is cst.ClassDef:
                continue
            stack.extend(_subnodes(current))
            if kind is not cst.Call or type(current.func) is not cst.Name:
                continue
            callee = current.func.value
            key = f"{callee}.__init__" if callee in self.index.classes else callee
            if key not in self.index.functions or key == info.key:
                continue
            rates = self.dropout_rates(key)
            if not rates:
                continue
            callee_names = self.parameter_names(key)
            for position, arg in enumerate(current.args):
                if arg.star or type(arg.value) is not cst.Name:
                    continue
                name = arg.keyword.value if arg.keyword is not None else None
                index = callee_names.index(name) if name in callee_names else position
                if index in rates:
                    names.add(arg.value.value)
        return names

    def required_parameters(self, key: str) -> frozenset[str]:
        """The parameters defaulting to None that the function cannot run through without:
        a statement of its body's top level reads an attribute or an item of one, with no
        way out before it (funasr's CIF predictor: `if mask is not None: ...`, then `mask =
        mask.squeeze(-1)` for every call). A path where it is None raises there, so `if mask
        is not None:` holds wherever the function completes (prec44: seven false IPL203 from
        the path that skipped it)."""
        found = self._required.get(key)
        if found is None:
            info = self.index.functions.get(key)
            found = frozenset()
            if info is not None:
                params = info.node.params
                optional = {
                    p.name.value
                    for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                    if type(p.default) is cst.Name and p.default.value == "None"
                }
                if optional:
                    found = _required_names(info.node.body, optional)
            self._required[key] = found
        return found

    def literal_defaults(self, key: str) -> dict[str, object]:
        """Parameters whose default is True, False, None or a string (`NL='relu'`: NWPU-MOC's
        Conv2d, whose `__init__` builds `self.relu` only when it is 'relu')."""
        info = self.index.functions.get(key)
        if info is None:
            return {}
        params = info.node.params
        out = {}
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if isinstance(param.default, cst.Name) and param.default.value in (
                "True",
                "False",
                "None",
            ):
                out[param.name.value] = {"True": True, "False": False, "None": None}[
                    param.default.value
                ]
            elif (names := _string_tuple(param.default)) is not None:
                # `order=("conv", "norm", "act")` (mmcv's ConvModule): a dispatch order
                out[param.name.value] = names
            elif type(param.default) is cst.SimpleString:
                value = _literal(param.default)
                if isinstance(value, str):
                    out[param.name.value] = value
            elif _config_default(param.default):
                out[param.name.value] = CONFIG_DEFAULT
        return out

    def returned_parameter(self, key: str) -> int | None:
        """The index of the parameter every `return` of the function returns by name (`return
        h`), among ``parameter_names``; None otherwise."""
        return self._return_facts(key)[0]

    def returns_unsized_list(self, key: str) -> bool:
        """Every `return` of the function returns a list whose length the code does not spell
        (``_unsized_list``)."""
        return self._return_facts(key)[1]

    def _return_facts(self, key: str) -> tuple[int | None, bool]:
        """``returned_parameter`` and ``returns_unsized_list``, read once per function."""
        found = self._returns.get(key)
        if found is None:
            info = self.index.functions.get(key)
            returns = (
                [s.value for s in _statements_of(info.node.body) if type(s) is cst.Return]
                if info is not None
                else []
            )
            returned = None
            names = {type(value) is cst.Name and value.value for value in returns}
            if returns and all(v is not None for v in returns) and len(names) == 1:
                (name,) = names
                params = self.parameter_names(key)
                returned = params.index(name) if name and name in params else None
            found = (returned, bool(returns) and all(map(_unsized_list, returns)))
            self._returns[key] = found
        return found

    def loop_fact(self, stmt: cst.For, which: int) -> object:
        """What a `for` statement's text says, read once per statement (the loop runs once per
        pass, per function run and per specialisation): 0, whether it has a last pass of its
        own (``_tests_last_pass``); 1, the container it freezes item by item
        (``_freezes_each_item``)."""
        facts = self._loop_facts.get(id(stmt))
        if facts is None or facts[0] is not stmt:
            facts = (stmt, _tests_last_pass(stmt), _freezes_each_item(stmt))
            self._loop_facts[id(stmt)] = facts
        return facts[1 + which]

    def methods_named(self, name: str) -> tuple[str, ...]:
        """The keys of this module's class methods called ``name`` (memoised)."""
        found = self._methods_named.get(name)
        if found is None:
            found = tuple(
                key
                for key, info in self.index.functions.items()
                if info.cls is not None
                and info.node.name.value == name
                and key == f"{info.cls.name}.{name}"
            )
            self._methods_named[name] = found
        return found

    def reads_only(self, key: str, name: str) -> bool:
        """Whether the function only reads the list its parameter ``name`` holds: every use is
        an item read (`params[0]`, not a target), a loop over it, or an argument of a builtin
        that does not change it (`len`, `zip`, `enumerate` ...). Memoised."""
        memo = (key, name)
        found = self._reads_only.get(memo)
        if found is None:
            info = self.index.functions.get(key)
            found = info is not None and _reads_only(info.node, name)
            self._reads_only[memo] = found
        return found

    def parameter_names(self, key: str) -> list[str]:
        """Positional and keyword parameters of a function, without `self` / `cls` / `ctx`."""
        info = self.index.functions.get(key)
        if info is None:
            return []
        params = info.node.params
        names = [
            p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        ]
        static = any(dotted_name(d.decorator) == "staticmethod" for d in info.node.decorators)
        is_function_forward = bool(
            info.cls and info.cls.autograd_function_fw and info.node.name.value == "forward"
        )
        if info.cls is not None and (not static or is_function_forward) and names:
            names = names[1:]
        return names

    def _module_globals(self) -> dict[str, Value]:
        """Modules, tensors and optimizers the module body binds, as functions see them."""
        if self.index.module_info is None or not self.index.functions:
            return {}
        interpreter = FunctionInterpreter(self, self.index.module_info)
        interpreter.call_local_functions = False
        interpreter.factory_calls = _factory_calls(self.index.module_info.node, self.index)
        state = State()
        # (a factory's analysis here sees no globals yet; what it leaves in the module's
        # bookkeeping is dropped with its result: its functions are analysed again below)
        kept_books = self._bookkeeping() if interpreter.factory_calls else None
        interpreter.exec_block(_body(self.index.module_info.node), state)
        if kept_books is not None:
            self._restore_bookkeeping(kept_books)
        self.results.clear()
        self.specializations.clear()
        self.class_attributes.clear()
        kept = (ModuleVal, TensorVal, OptimizerVal, ParamsVal)
        return {
            k: replace(v, lineage=frozenset()) if isinstance(v, TensorVal) else v
            for k, v in state.env.items()
            if "." not in k
            and (
                isinstance(v, kept)
                or (
                    isinstance(v, FrameworkRef)
                    and v.qualname.startswith(("<local-apply>.", _NAMEDTUPLE))
                )
                # `FEAT = "feat"`: a constant key (`data[FEAT] = x` writes a mapping's entry)
                or (k.isupper() and _holds_string(v))
                # `activate_name = {"relu": nn.ReLU, "mish": Mish()}`: a registry of layer
                # classes (or instances), looked up by an option (YOLOv4-pytorch#247, recall33)
                or (
                    type(v) is DictVal
                    and bool(v.items)
                    and all(type(item) in (FrameworkRef, ModuleVal) for _, item in v.items)
                )
            )
        }

    def _bookkeeping(self) -> tuple:
        """Copies of what analysing a function adds to the module's bookkeeping."""
        return (
            {k: set(v) for k, v in self.helper_results.items()},
            set(self.unknown_backward_in),
            {k: list(v) for k, v in self.tuple_item_calls.items()},
            set(self.reached_ops),
            set(self.backward_ops),
            {k: list(v) for k, v in self.apply_uses.items()},
            set(self.parametrized),
            {k: list(v) for k, v in self.adjacency_calls.items()},
        )

    def _restore_bookkeeping(self, kept: tuple) -> None:
        (
            self.helper_results,
            self.unknown_backward_in,
            self.tuple_item_calls,
            self.reached_ops,
            self.backward_ops,
            self.apply_uses,
            self.parametrized,
            self.adjacency_calls,
        ) = kept

    def specialized(self, key: str, entry: tuple, self_entry: tuple = ()) -> FunctionResult | None:
        """The function analysed again with what a caller knows about its arguments (and, for a
        method, what its instance's constructor was given: ``ModuleVal.init_entry``)."""
        memo = (key, entry, self_entry) if self_entry else (key, entry)
        if memo in self.specializations:
            return self.specializations[memo]
        if memo in self._in_progress or len(self.specializations) > MAX_SPECIALIZATIONS:
            return None
        info = self.index.functions.get(key)
        if info is None:
            return None
        self._in_progress.add(memo)
        try:
            if self_entry and info.cls is not None and info.node.name.value != "__init__":
                self.init_attributes(info.cls, self_entry)
            result = FunctionInterpreter(self, info, entry, self_entry).run()
        finally:
            self._in_progress.discard(memo)
        self.specializations[memo] = result
        return result

    def result(self, key: str) -> FunctionResult | None:
        if key in self.results:
            return self.results[key]
        if key in self._in_progress:
            return None
        info = self.index.functions.get(key)
        if info is None:
            return None
        self._in_progress.add(key)
        try:
            if info.cls is not None and info.node.name.value != "__init__":
                self.init_attributes(info.cls)
            result = FunctionInterpreter(self, info).run()
        finally:
            self._in_progress.discard(key)
        self.results[key] = result
        return result

    def init_attributes(self, cls: ClassInfo, init_entry: tuple = ()) -> dict[str, Value]:
        """`self.*` facts established by `__init__` (modules, parameters, buffers), inherited too;
        with ``init_entry``, by `__init__` given those literal arguments."""
        if init_entry and isinstance(init_entry[0], _InitState):
            # a method `__init__` calls: what `__init__` had set up when it called it
            return {**self._inherited_attributes(cls), **init_entry[0].attrs}
        memo = (cls.name, init_entry) if init_entry else cls.name
        if memo in self.class_attributes:
            return self.class_attributes[memo]
        init_key = f"{cls.name}.__init__"
        if (init_key, init_entry) in self._in_progress or (
            not init_entry and init_key in self._in_progress
        ):
            # asked while `__init__` itself runs: not known yet, and not to be remembered so
            return {}
        self.class_attributes[memo] = {}
        attrs = self._inherited_attributes(cls)
        if init_key in self.index.functions:
            result = self.specialized(init_key, init_entry) if init_entry else None
            if result is None:
                result = self.result(init_key)
            if result is not None:
                attrs.update(result.self_attributes)
        if self.text.frozen_attributes or self.text.freezes_instances:
            # frozen by code that uses an instance (`m.pos.requires_grad_(False)`,
            # `teacher.requires_grad_(False)`): whether the class's own parameters require grad
            # where its methods run is not known
            for key, held in attrs.items():
                if (
                    isinstance(held, TensorVal)
                    and held.requires_grad is True
                    and held.leaf
                    and (self.text.freezes_instances or key[5:] in self.text.frozen_attributes)
                ):
                    attrs[key] = replace(held, requires_grad=None, leaf=False)
        self.class_attributes[memo] = attrs
        return attrs

    def _inherited_attributes(self, cls: ClassInfo) -> dict[str, Value]:
        """The `self.*` facts of the local base classes' `__init__`."""
        attrs: dict[str, Value] = {}
        for base in cls.base_names:
            base_cls = self.index.classes.get(base)
            if base_cls is not None and base_cls is not cls:
                attrs.update(self.init_attributes(base_cls))
        return attrs

    def _every_result(self) -> list[tuple[str, FunctionResult]]:
        """Every analysis made, by the key of the function analysed (a specialisation's too)."""
        return list(self.results.items()) + [(k[0], r) for k, r in self.specializations.items()]

    def _call_sites(self) -> dict[str, list[tuple[str, bool, bool, str | None]]]:
        """Callee -> its calls in this module: (caller, grad enabled, grad mode explicit, the
        option test the call is made under)."""
        sites: dict[str, list[tuple[str, bool, bool, str | None]]] = {}
        for caller, result in self._every_result():
            for callee, grad, explicit, condition in result.call_sites:
                sites.setdefault(callee, []).append((caller, grad, explicit, condition))
        return sites

    def _apply_caller_guards(self) -> None:
        """A function whose every call site in this module runs without grad is guarded. So is
        a framework's inference step that nothing here calls (`validation_step`, `predict`,
        mmocr's `forward_test` greedy decoders: their frameworks run them under `no_grad`),
        unless a backward in it confirms a write."""
        sites = self._call_sites()
        every = self._every_result()
        guarded: set[str] = {
            key
            for key, result in self.results.items()
            if key not in sites
            and result.info.cls is not None
            and result.info.node.name.value in _INFERENCE_METHODS
            and not any(w.confirmed_by_backward for w in result.writes)
        }
        changed = True
        while changed:
            changed = False
            for callee, calls in sites.items():
                if callee in guarded:
                    continue
                # every call runs without grad, or inherits it from a caller that is guarded
                if all(
                    not grad or (not explicit and caller in guarded)
                    for caller, grad, explicit, _ in calls
                ):
                    guarded.add(callee)
                    changed = True
        self.guarded = guarded
        for key, result in every:
            if key not in guarded:
                continue
            for event in result.writes:
                event.guarded_by_caller = True
            for event in result.out_calls:
                event.guarded_by_caller = True

    def _apply_data_callers(self) -> None:
        """A module's `forward` takes each input it does not recognise as data for a tensor
        that requires grad (a forward's input comes from earlier layers). Where every call of it
        with grad in this module gives data there instead (an observation normaliser called on
        raw observations, whose running statistics it updates in place after dividing by them),
        the runs for those calls (``specialized``, with those inputs not requiring grad) tell
        what happens. Its analysis on its own is replaced by one with those inputs not requiring
        grad, in any configuration of the instance (an option no call here sets still makes an
        IPL203). As for guards, this module's calls are taken for the calls. A forward called
        from another forward taken so counts with that forward's other runs only."""
        runs = [(k, True, r) for k, r in self.results.items()] + [
            (k[0], False, r) for k, r in self.specializations.items()
        ]
        # callee -> (caller, from the caller's own run, the inputs given data)
        data: dict[str, list[tuple[str, bool, frozenset[int]]]] = {}
        for caller, own, result in runs:
            for callee, positions in result.data_calls:
                data.setdefault(callee, []).append((caller, own, positions))
        if not data:
            return
        sites: dict[str, list[tuple[str, bool]]] = {}  # callee -> (caller, own run)
        for caller, own, result in runs:
            for callee, grad, _, _ in result.call_sites:
                if grad and callee in data:
                    sites.setdefault(callee, []).append((caller, own))
        superseded: dict[str, frozenset[int]] = {}  # forward -> the inputs every call gives data
        changed = True
        while changed:
            changed = False
            for callee, calls in sites.items():
                if callee in superseded:
                    continue
                counted = [c for c, own in calls if not (own and c in superseded)]
                given = [p for c, own, p in data[callee] if not (own and c in superseded)]
                if counted and len(given) >= len(counted):
                    positions = frozenset.intersection(*given)
                    if positions:
                        superseded[callee] = positions
                        changed = True
        for key, positions in superseded.items():
            result = self.results.get(key)
            if result is None:
                continue
            entry = tuple(False if i in positions else None for i in range(max(positions) + 1))
            if self.specialized(key, entry) is None:
                continue
            for event in (*result.writes, *result.out_calls):
                event.guarded_by_caller = True

    def _rerun_called_with_grad(self) -> None:
        """A method whose run took a result of its module's own methods for one that may not
        require grad (it may itself run under `no_grad`, as a `predict` that a framework calls
        so), when every call of it in this module is made with grad (neural-CLBF's
        `descent_loss`, called by `training_step`, with `V = self.V(x)`): it is analysed
        again with those results requiring grad, and that run replaces its own. Not a method
        of a framework's inference step, nor one only such a method calls: mmpretrain's
        zero-shot `predict` (run under `no_grad` by mmengine's test loop, reached here from
        `forward(mode="predict")`) calls `prepare_text_prototype`, which normalises text
        features in place and never meets a backward."""
        sites = self._call_sites()
        for key, result in list(self.results.items()):
            calls = sites.get(key)
            info = result.info
            if (
                not result.self_results_unsure
                or not calls
                or key in self.guarded
                or (self.top_level is not None and _run_on_demand(key, info, self.top_level))
                or info.cls is None
                or not all(grad for _, grad, _, _ in calls)
                or _on_inference_path(key, sites, {})
            ):
                continue
            if (key, (_WITH_GRAD,)) in self.specializations:
                continue  # (already run so, for a caller's run)
            if self.with_grad(key) is None:
                continue
            for event in (*result.writes, *result.out_calls):
                event.guarded_by_caller = True

    def with_grad(self, key: str) -> FunctionResult | None:
        """The method analysed with what its module's own methods return through its trainable
        parameters requiring grad (``FunctionInterpreter.self_results_grad``); the methods it
        calls on `self` are taken so too."""
        memo = (key, (_WITH_GRAD,))
        if memo in self.specializations:
            return self.specializations[memo]
        info = self.index.functions.get(key)
        if info is None or info.cls is None or memo in self._in_progress:
            return None
        self._in_progress.add(memo)
        try:
            if info.node.name.value != "__init__":
                self.init_attributes(info.cls)
            interpreter = FunctionInterpreter(self, info)
            interpreter.self_results_grad = True
            result = interpreter.run()
        finally:
            self._in_progress.discard(memo)
        self.specializations[memo] = result
        return result

    def _apply_caller_conditions(self) -> None:
        """A method that every call with grad in this module makes under the same option test
        runs only when it holds: `if train_mode: return self.forward_train(...)` then `return
        self.forward_test(...)` (OCR decoders' greedy loops writing `decode_sequence[:, i + 1]`).
        Its writes carry that condition (IPL203 rather than an error). Entry methods (`forward`,
        `__call__`) are left alone: other files call them too."""
        # the callers' own analyses, which follow every path; a caller's run for a call that
        # fixed the option (`model(x, train_mode=False)` under `no_grad`) only says that the
        # option held there
        sites: dict[str, set[str | None]] = {}
        for result in self.results.values():
            for callee, grad, _, condition in result.call_sites:
                if grad:  # (calls made without grad break nothing)
                    sites.setdefault(callee, set()).add(condition)
        held: dict[str, str] = {}  # callee -> the one option test all its calls are made under
        for callee, conditions in sites.items():
            info = self.index.functions.get(callee)
            if (
                len(conditions) == 1
                and None not in conditions
                and info is not None
                and info.cls is not None
                and info.node.name.value not in _ENTRY_METHODS
            ):
                held[callee] = next(iter(conditions))
        for key, result in self._every_result() if held else ():
            condition = held.get(key)
            for write in result.writes if condition is not None else ():
                if write.condition is None:
                    write.condition = condition


# --------------------------------------------------------------------------------------------
# The interpreter


@dataclass(frozen=True, eq=False)
class _InitState:
    """The `self.*` values `__init__` has bound when it calls one of its class's methods: that
    call's view of the instance (compared by identity: one per call analysed)."""

    attrs: dict


class FunctionInterpreter:
    def __init__(
        self, flow: ModuleDataflow, info: FunctionInfo, entry: tuple = (), self_entry: tuple = ()
    ) -> None:
        # (a callee called inside a caller's autocast region runs in it: ``_in_region``)
        in_autocast = bool(entry) and entry[-1] is _IN_AUTOCAST
        if in_autocast:
            entry = entry[:-1]
        self.entry = entry  # per positional parameter: what the caller passes (see _entry_value)
        self.self_entry = self_entry  # a method's: its instance's ModuleVal.init_entry
        self.flow = flow
        self.info = info
        self.index = flow.index
        self.imports = flow.index.imports
        self.result = FunctionResult(info)
        self.cls = info.cls
        self.fw = self._framework()
        self.pending: list[Write] = []
        self.branch: tuple[tuple[int, int], ...] = ()  # (if run, branch) enclosing the code run
        self.stmt: cst.CSTNode | None = None
        self.last_inplace_activation: tuple[str, cst.CSTNode, str] | None = None
        self.clobbered: dict[str, tuple[cst.CSTNode, str]] = {}
        # calls whose `*args` of unknown length comes before other positional arguments, and
        # its index among the evaluated ones (``_spread_star``)
        self.unsized_star: dict[cst.Call, int] = {}
        # in-place activations whose result went to names nothing has read yet (by name): an
        # activation called only for its effect on its input (`relu_out = self.relu(bn_out)`,
        # then `self.conv(bn_out)`: a Caffe port's in-place ReLU) is read as meant (IPL102)
        self.unread_results: dict[str, list[cst.CSTNode]] = {}
        self.unread_activations: set[cst.CSTNode] = set()
        self.is_function_forward = bool(
            info.cls is not None
            and info.cls.autograd_function_fw
            and info.node.name.value == "forward"
        )
        self.ctx_name: str | None = None
        self.mark_dirty: set[int] = set()  # storages passed to ctx.mark_dirty
        self.ctx_saved_storages: set[object] = set()  # other tensors given to save_for_backward
        # an input given to save_for_backward -> how many writes were recorded before that call
        self.inputs_saved_at: dict[object, int] = {}
        self.lambda_depth = 0  # lambdas being called (``_call_lambda``)
        self.param_storages: dict[object, int] = {}  # storage -> param index
        self.unpacked_items: set[object] = set()  # storages of items unpacked from an argument
        self.item_of_param: dict[object, tuple[int, int]] = {}  # such an item -> (index, position)
        self.param_index: dict[str, int] = {}  # parameter name -> index (self / ctx left out)
        self.param_origins: dict[int, int] = {}  # an argument's own lineage id -> its index
        self._tensor_names: dict[str, bool] = {}  # name -> used as only a tensor can be (memo)
        self.param_entry_rg: dict[object, bool | None] = {}  # storage -> requires-grad at entry
        # parameters a caller here gave as tensors (``_save_indices``)
        self.params_given_tensors: set = set()
        self.module_arguments: set[str] = set()  # parameter storages of modules passed in
        self.last_callee: FunctionResult | None = None  # of the last call_local_function
        self.violated: set[object] = set()  # storages already written after a save
        self.returns_seen = False
        # return paths judged for ``returns_saved_output``, and the options whose early returns
        # of an unsaved tensor they left out
        self.output_returns_seen = False
        self.option_exits: list[str] = []
        self.alias_returns: list[tuple[int, str] | None] = []  # one entry per return path
        self.arity_returns: list[int | None] = []  # (``returned_arity``)
        self.item_alias_returns: list[tuple[tuple[int, str], ...] | None] = []  # the same, tuples
        self.some_item_alias_returns: list[tuple | None] = []  # (``returns_some_item_aliases``)
        self.constant_returns: list[ConstVal | None] = []  # one entry per return path
        self.parameter_view_returns: list[str | None] = []  # one entry per return path
        self.reference_returns: list[FrameworkRef | None] = []  # one entry per return path
        self.graph_save_exits: list[dict[tuple[int, int], str]] = []  # per way out (above)
        self.tuple_returns: list[tuple[int, dict[int, str]] | None] = []  # per return path
        self.dict_returns: list[tuple[tuple[str, ...], dict[str, str]] | None] = []  # the same
        # per return path, ``FunctionSummary.item_self_submodules`` of its tuple (or None)
        self.item_submodule_returns: list[tuple | None] = []
        self.item_shape_returns: list[tuple | None] = []  # (``FunctionSummary.item_shape``)
        self.item_contains_returns: list[tuple[frozenset[int], ...]] = []  # the same, per path
        self.call_local_functions = True  # False while the module's globals are collected
        # ...but for these calls: `model = create_model()` at the module's top level
        self.factory_calls: frozenset[cst.Call] = frozenset()
        # the method is called in this module, always with grad: what its module's own methods
        # return through its trainable parameters requires grad (``_rerun_called_with_grad``)
        self.self_results_grad = False
        self._top_level: set[int] | None = None  # (``_straight_line``)
        self.grad_explicit = False  # grad mode set by a decorator or `with` in this function
        self.autocast = in_autocast  # inside a `with torch.autocast(...)` region
        self.conditions: list[str] = []  # enclosing `if self.<option>:` tests
        self.exit_condition: str | None = None  # the test an `if <option>: return` left
        self.lost_models = False  # a name that held a model was rebound to an unknown value
        # saves a call's callee made of an argument it then wrote, reached by what it returns
        # (``_apply_param_writes``): the op ids the call's result carries
        # ops standing for saves a callee's return reaches, for the call's result: op -> the
        # items of a returned tuple that reach it (None: the whole result)
        self.returned_saves: dict[int, frozenset[int] | None] = {}
        self._order: _StatementOrder | None = None  # built on demand (_used_after)
        self._optional: frozenset[str] | None = None  # built on demand (_optional_parameters)
        self.sequence_params: set[object] = set()  # arguments found to be lists (`torch.cat(x)`)
        self.inlining: list[str] = []  # methods being run inside this one (_inline_method)
        self.inline_returns: list[list[Value]] = []  # what each of them returned
        # parameter storages a backward in this function has reached (their gradients exist, so
        # a step updates them); None until a backward with a known graph runs
        self.graded: set[object] | None = None
        # op id of a module call -> its parameters; of a helper's call -> those of the modules
        # passed to it that its result's graph runs through (a frozenset)
        self.module_ops: dict[int, object] = {}
        self.ran_backward = False  # a backward ran in this function (inlined methods included)
        self.ran_step = False  # so did an optimizer's step
        # the forward pass an entry method of a module runs after (_forward_prelude): pending
        # until the method reads an attribute only `forward` sets; then the op ids it made
        self._prelude_pending = False
        self._prelude_ops: tuple[int, int] | None = None
        self._entry_self: dict[str, Value] = {}

    # ---------------------------------------------------------------- setup
    def _framework(self) -> str:
        if self.info.cls is not None:
            fw = self.info.cls.module_fw or self.info.cls.autograd_function_fw
            if fw:
                return fw
        return self.index.default_fw

    @property
    def is_forward_like(self) -> bool:
        cls = self.info.cls
        if cls is None:
            return False
        return cls.is_module and self.info.node.name.value in (
            "forward",
            "__call__",
            "_forward_impl",
        )

    def run(self) -> FunctionResult:
        if self._jit_kernel():
            return self.result  # (its body is not tensor code: nothing to report, nothing done)
        state = State()
        if self.info.key != MODULE_KEY:
            state.env.update(self.flow.globals)
        state.grad_enabled, explicit, state.inference = self._decorator_grad_mode()
        self.grad_explicit = explicit
        if self.is_function_forward:
            state.grad_enabled, self.grad_explicit = False, True
        self._bind_parameters(state)
        self._prelude_pending = self._wants_forward_prelude()
        if self._prelude_pending:
            self._entry_self = {k: v for k, v in state.env.items() if k.startswith("self.")}
        state = self.exec_block(_body(self.info.node), state)
        if self._prelude_ops is not None:
            self._drop_unconfirmed_prelude_writes()
        if self.is_forward_like and not self.entry:
            carried = self.flow.carried_attributes(self.info)
            self.result.summary.carries_graph = any(
                isinstance(state.env.get(f"self.{name}"), TensorVal)
                and bool(state.env[f"self.{name}"].lineage)
                for name in carried
            )
        if (
            self.info.cls is not None
            and not self.is_forward_like
            and self.info.node.name.value != "__init__"
        ):
            self._record_rebound_attributes(state)
        built_for_init = bool(self.self_entry) and isinstance(self.self_entry[0], _InitState)
        if (self.info.node.name.value == "__init__" or built_for_init) and self.info.cls:
            # `__init__`'s facts; or a method `__init__` calls (`self.build_model()`), whose
            # attributes `__init__` takes over at the call
            self.result.self_attributes = {
                k: v for k, v in state.env.items() if k.startswith("self.")
            }
            own = state.env.get("self")
            if isinstance(own, ModuleVal) and own.frozen:
                # `self.requires_grad_(False)` / `for p in self.parameters(): p.requires_grad =
                # False` in `__init__` (a frozen teacher, a frozen text encoder): its instances
                # are frozen
                self.result.self_attributes[_SELF_FROZEN] = ConstVal(True)
        if state.reachable:
            self._record_graph_saves(state)
        if self.is_forward_like and self.param_origins and self.info.cls is not None:
            origins = self.param_origins.keys()
            kept = {
                name: v.lineage
                for name, v in _own_attributes(state)
                if isinstance(v, TensorVal) and not v.lineage.isdisjoint(origins)
            }
            summary = self.result.summary
            summary.forward_graph_attributes = frozenset(kept)
            lineage = frozenset().union(*kept.values()) if kept else frozenset()
            # (for a forward handing its input on: what the ops on the way to them saved of it,
            # `F.mse_loss(input, target)` saved `input`, which the caller's next in-place ReLU
            # breaks. Where the forward returns a result of its own, a backward of that result
            # need not reach those ops: their saves are not the call's)
            if summary.returns_alias is None:
                lineage = frozenset()
            for storage, saves in state.saves.items() if lineage else ():
                if storage in self.param_storages:
                    for save in saves:
                        if save.certain and save.op_id in lineage:
                            summary.saved_params.setdefault(self.param_storages[storage], save.what)
                            break
        self.result.summary.forward_like = self.is_forward_like
        if self.graph_save_exits:
            first, *rest = self.graph_save_exits
            self.result.summary.param_graph_saves = {
                pair: what for pair, what in first.items() if all(pair in o for o in rest)
            }
        self._finish_function_checks(state)
        if self.sequence_params:
            self.result.writes = [
                w for w in self.result.writes if w.tensor.storage not in self.sequence_params
            ]
            summary = self.result.summary
            for storage in self.sequence_params:
                summary.param_writes.pop(self.param_storages[storage], None)
        self._dedupe()
        return self.result

    def _jit_kernel(self) -> bool:
        """`@ti.kernel`, `@numba.njit(...)`, `@triton.jit`: the body runs compiled, on raw
        memory, outside autograd."""
        for decorator in self.info.node.decorators:
            expr = decorator.decorator
            if isinstance(expr, cst.Call):
                expr = expr.func
            if self.imports.resolve(expr) in kb.JIT_KERNEL_DECORATORS:
                return True
        return False

    def _decorator_grad_mode(self) -> tuple[bool, bool, bool]:
        """(grad enabled, set explicitly, inference mode) by the function's decorators:
        `@torch.inference_mode()` runs the body in inference mode, so what it makes and returns
        are inference tensors (CosyVoice's `inference` methods)."""
        for decorator in self.info.node.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            if call is not None:
                expr = call.func
            qual = self.imports.resolve(expr)
            if qual in kb.NO_GRAD_CONTEXTS:
                inference = "inference_mode" in qual and (
                    call is None or _inference_mode_literal(call) is True
                )
                return False, True, inference
            if qual in kb.ENABLE_GRAD_CONTEXTS:
                return True, True, False
        return True, False, False

    def _bind_parameters(self, state: State) -> None:
        params = self.info.node.params
        all_params = list(params.posonly_params) + list(params.params)
        is_method = self.info.cls is not None and (
            self.is_function_forward
            or not any(
                dotted_name(d.decorator) == "staticmethod" for d in self.info.node.decorators
            )
        )
        index = 0
        if self.info.cls is None and self.info.enclosing_cls is not None:
            self._bind_self(state, self.info.enclosing_cls)
        state.env.update(self.info.closure)
        is_classmethod = any(
            dotted_name(d.decorator) == "classmethod" for d in self.info.node.decorators
        )
        # `def forward(cls, ctx, x)` (HRNet's InPlaceABNSync): `cls` first, then `ctx`
        first = 1 if is_method and self.is_function_forward and is_classmethod else 0
        for i, param in enumerate(all_params + list(params.kwonly_params)):
            name = param.name.value
            if i < first:
                continue
            if is_method and i == first:
                if self.is_function_forward or is_classmethod:
                    self.ctx_name = name
                    continue
                if name == "self":
                    self._bind_self(state)
                continue
            storage = new_id()
            self.param_storages[storage] = index
            self.param_index[name] = index
            index += 1
            rg = _forward_input_rg(param) if self.is_forward_like else None
            dtype = None
            if self.is_function_forward:
                rg = False
            if index - 1 < len(self.entry) and self.entry[index - 1] is not None:
                passed = self.entry[index - 1]
                if isinstance(passed, _FrameworkModuleArg):
                    passed = passed.module
                if isinstance(passed, ModuleVal):
                    state.env[name] = replace(passed, path=name)
                    self.module_arguments.add(passed.params_storage_key)
                    continue
                if isinstance(
                    passed, (ConstVal, FrameworkRef, LambdaVal, OptimizerVal, ParamsVal, SeqVal)
                ):
                    state.env[name] = passed
                    continue
                if isinstance(passed, _ModuleListArg):
                    state.env[name] = passed.values(name)
                    continue
                if isinstance(passed, _TensorItems):
                    items = tuple(
                        TensorVal(
                            fw=passed.fw,
                            storage=new_id(),
                            requires_grad=passed.requires_grad,
                            leaf=passed.leaf,
                            producer=f"a tensor in the argument `{name}`",
                        )
                        for _ in range(passed.count)
                    )
                    for position, item in enumerate(items):
                        # (a write into one is the caller's item's: ``param_item_writes``)
                        self.item_of_param[item.storage] = (index - 1, position)
                    state.env[name] = SeqVal(items)
                    continue
                if type(passed) is _Typed:
                    dtype = passed.dtype
                    passed = passed.requires_grad
                rg = None if passed is _PRESENT else passed
                if passed is not _PRESENT:
                    self.params_given_tensors.add(storage)
            elif (order := _string_tuple(param.default)) is not None:
                # a dispatch order left at its default (`order=("conv", "norm", "act")`)
                state.env[name] = ConstVal(order)
                continue
            elif (layer := self._layer_class_default(param.default)) is not None:
                # `norm_layer=nn.LayerNorm`, `act_layer=nn.GELU` (timm, MAE-DFER's LGBlock):
                # `norm_layer(dim)` builds that layer unless a caller passes another
                state.env[name] = FrameworkRef(layer)
                continue
            elif (built := self._partial_layer_default(param.default, state)) is not None:
                # `act_layer=partial(nn.ReLU, inplace=True)` (timm-style blocks, lookalike37):
                # `act_layer()` builds that layer unless a caller passes another
                state.env[name] = built
                continue
            elif _is_non_tensor_default(param.default) or _non_tensor_annotation(param):
                state.env[name] = UNKNOWN
                continue
            self.param_entry_rg[storage] = rg
            # a lineage of its own: a backward of what is computed from the argument inside is
            # tied to the caller's graph of it (``FunctionSummary.train_steps``)
            origin = new_id()
            self.param_origins[origin] = index - 1
            state.env[name] = TensorVal(
                fw=self.fw,
                storage=storage,
                requires_grad=rg,
                producer=f"the argument `{name}`",
                known=True,
                lineage=frozenset({origin}),
                dtype=dtype,
                # `target_embedding=None` that no caller here gives: `if target_embedding is not
                # None:` is an option of the call, not known to hold (the SAM family, prec33)
                maybe_none=(index - 1 >= len(self.entry) or self.entry[index - 1] is None)
                and type(param.default) is cst.Name
                and param.default.value == "None"
                and name not in self.flow.required_parameters(self.info.key),
            )

    def _partial_layer_default(self, default, state: State) -> FrameworkRef | None:
        """What a parameter's default `functools.partial(<framework layer class>, ...)` is (the
        partial, as the same expression in a body), if it is one."""
        if type(default) is not cst.Call or not default.args or default.args[0].keyword:
            return None
        if self.imports.resolve(default.func) != "functools.partial":
            return None
        if self._layer_class_default(default.args[0].value) is None:
            return None
        if self._default_never_used(default):
            return None
        value = self.eval(default, state)
        return value if isinstance(value, FrameworkRef) and value.partial is not None else None

    def _default_never_used(self, default) -> bool:
        """A default of `__init__`'s parameter that every construction of the class here
        overrides (`Block(act_layer=nn.GELU)`, lookalike38): the class is named only as the
        function of calls, each of which passes that parameter by keyword or position (or
        passes `*args` / `**kwargs`, which may hold it)."""
        info = self.info
        if info.cls is None or info.node.name.value != "__init__":
            return False
        params = [*info.node.params.posonly_params, *info.node.params.params]
        found = [i for i, p in enumerate(params) if p.default is default]
        keyword = [p for p in info.node.params.kwonly_params if p.default is default]
        if found:
            position, name = found[0] - 1, params[found[0]].name.value  # (after `self`)
        elif keyword:
            position, name = None, keyword[0].name.value
        else:
            return False
        calls, other = self.flow.class_mentions(info.cls.name)
        if other or not calls:
            return False
        for call in calls:
            if any(a.star for a in call.args):
                continue
            if any(a.keyword is not None and a.keyword.value == name for a in call.args):
                continue
            given = sum(1 for a in call.args if a.keyword is None)
            if position is None or given <= position:
                return False
        return True

    def _layer_class_default(self, default) -> str | None:
        """The framework layer class a parameter's default names (`nn.LayerNorm`), if any."""
        if type(default) is not cst.Attribute:
            return None
        qual = self.imports.resolve(default)
        if qual is not None and kb.is_optimizer_class(qual):
            # `optimizer_class=optim.Adam` (rlkit-style trainers: oac-explore's SAC)
            return qual
        if qual is None or not qual.startswith(("torch.nn.", "paddle.nn.")):
            return None
        if not qual.rsplit(".", 1)[-1][:1].isupper():
            return None
        return qual if kb.module_class(qual, {}) is not None else None

    def _bind_self(self, state: State, cls: ClassInfo | None = None) -> None:
        cls = cls or self.info.cls
        assert cls is not None
        state.env["self"] = ModuleVal(
            "self", local_class=cls.name, fw=self.fw, init_entry=self.self_entry
        )
        if self.info.node.name.value != "__init__":
            state.env.update(self.flow.init_attributes(cls, self.self_entry))

    # ---------------------------------------------------------------- methods run in place
    # A training step spread over methods (pix2pix's `optimize_parameters`: `self.forward()`,
    # `self.backward_D()`, `self.optimizer_D.step()`, `self.backward_G()`) shares its graph
    # through `self.*` attributes: the order of forward, backward and step is only visible when
    # the methods it calls run in its own state. A method called as `self.m()` (no argument, no
    # value returned, no decorator) runs inline, in a scope of its own that shares `self.*`
    # and the saved tensors with the caller. An entry method of a module that reads what only
    # `forward` sets (DRIT's `update_EG`, called after `model(x)`) runs after `forward`: its
    # events are dropped unless a backward in the method reaches what `forward` saved.

    def _data_inputs(self, key: str, arguments: list, state: State) -> frozenset[int] | None:
        """The positions of a module forward's inputs that it takes, on its own, for tensors
        that require grad (``_bind_parameters``) and where this call, made with grad, gives a
        tensor that surely does not (`policy(torch.randn(8, 4))`, a distillation loss given the
        teacher's logits computed under `no_grad`); None when there is none."""
        info = self.index.functions.get(key)
        if (
            not state.grad_enabled
            or info is None
            or info.cls is None
            or not info.cls.is_module
            or info.node.name.value not in _ENTRY_METHODS
            or info.node.params.star_arg is not cst.MaybeSentinel.DEFAULT
            and type(info.node.params.star_arg) is cst.Param
        ):
            return None
        params = info.node.params
        positions: set[int] = set()
        for index, param in enumerate([*params.posonly_params, *params.params][1:]):
            if _forward_input_rg(param) is not True or _non_tensor_annotation(param):
                continue
            given = arguments[index] if index < len(arguments) else None
            if isinstance(given, TensorVal) and given.requires_grad is False:
                positions.add(index)
        return frozenset(positions) if positions else None

    def _inline_method(self, key: str, call: cst.Call, state: State) -> Value | None:
        """Run `self.m(...)` inside this function (see above); None when it is not run so."""
        info = self.index.functions.get(key)
        if (
            info is None
            or not self.call_local_functions
            or key == self.info.key
            or key in self.inlining
            or len(self.inlining) >= _MAX_INLINE_DEPTH
            or self.info.node.name.value == "__init__"
        ):
            return None
        kind = self.flow.inlinable(key)
        if kind is None or (kind == "plain" and call.args):
            return None
        bindings: dict[str, Value] = {}
        if call.args:
            if any(arg.star for arg in call.args):
                return None
            positional, keywords = self._args(call, state)
            names = [p.name.value for p in info.node.params.params[1:]]
            if len(positional) > len(names) or any(k not in names for k in keywords):
                return None
            bindings = dict(zip(names, positional))
            bindings.update(keywords)
            for param in info.node.params.params[1:]:
                name = param.name.value
                if name not in bindings:
                    literal = _literal(param.default) if param.default is not None else None
                    bindings[name] = (
                        ConstVal(literal)
                        if literal is not _NOT_LITERAL and isinstance(literal, (bool, type(None)))
                        else UNKNOWN
                    )
        self._note_call(key, state)
        returned = self._run_inline(info, state, bindings)
        if not returned:
            return UNKNOWN
        return returned[0] if len(returned) == 1 else merge_values(returned)

    def _run_inline(
        self, info: FunctionInfo, state: State, bindings: dict[str, Value]
    ) -> list[Value]:
        """Run ``info``'s body in ``state`` (see above); returns the values it returned."""
        outer = state.env
        inner = dict(self.flow.globals)
        inner.update((k, v) for k, v in outer.items() if k == "self" or k.startswith("self."))
        inner.update(bindings)
        kept = (
            self.stmt,
            self.last_inplace_activation,
            self.clobbered,
            self.grad_explicit,
            state.grad_enabled,
            state.inference,
        )
        self.clobbered = {}
        state.env = inner
        self.inlining.append(info.key)
        self.inline_returns.append([])
        try:
            end = self.exec_block(_body(info.node), state)
        finally:
            self.inlining.pop()
            returned = self.inline_returns.pop()
            self.stmt, self.last_inplace_activation, self.clobbered, self.grad_explicit = kept[:4]
        env = {k: v for k, v in outer.items() if not k.startswith("self.") or k in end.env}
        env.update((k, v) for k, v in end.env.items() if k.startswith("self."))
        state.env = env
        state.saves = end.saves
        state.grad_enabled, state.inference = kept[4], kept[5]
        state.reachable = True
        return returned

    def _training_step(self) -> bool:
        """A function (not a forward) that has run a backward, or stepped an optimizer (its
        backward in a helper the analysis does not follow: nequip's manual-optimization
        `training_step` hands the loss dict to `self._ConFIG_backwards`): what it returns or keeps
        on `self` after that is for logging or the next step, not a graph a caller backwards."""
        return (self.ran_backward or self.ran_step) and not self.is_forward_like

    def _wants_forward_prelude(self) -> bool:
        cls, name = self.cls, self.info.node.name.value
        return (
            cls is not None
            and cls.is_module
            and not self.entry
            and not self.self_entry
            and self.call_local_functions
            and not name.startswith("__")
            and name not in ("forward", "_forward_impl")
            and bool(self.flow.forward_attributes(cls))
        )

    def _forward_prelude(self, state: State) -> None:
        """Run `forward` (inputs as a forward's inputs) before what is left of this method; what
        it reports is not this method's (see above)."""
        self._prelude_pending = False
        info = self.index.functions[f"{self.cls.name}.forward"]
        bindings: dict[str, Value] = {}
        params = info.node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)[1:]:
            name = param.name.value
            if param.default is not None or _non_tensor_annotation(param):
                bindings[name] = UNKNOWN
                continue
            # a model the training code calls is given data, not a tensor that requires grad
            bindings[name] = TensorVal(
                fw=self.fw,
                storage=new_id(),
                requires_grad=False,
                producer=f"the argument `{name}` of `forward`",
                known=True,
            )
        result = self.result
        lengths = [
            len(x)
            for x in (
                result.writes,
                result.out_calls,
                result.rebinds,
                result.reuses,
                result.function_issues,
                result.adjacency,
                result.call_sites,
                self.pending,
                result.data_calls,
            )
        ]
        before = {k: v for k, v in state.env.items() if k.startswith("self.")}
        first = new_id()
        self._run_inline(info, state, bindings)
        self._prelude_ops = (first, new_id())
        del result.writes[lengths[0] :], result.out_calls[lengths[1] :]
        del result.rebinds[lengths[2] :], result.reuses[lengths[3] :]
        del result.function_issues[lengths[4] :], result.adjacency[lengths[5] :]
        del result.call_sites[lengths[6] :], self.pending[lengths[7] :]
        del result.data_calls[lengths[8] :]
        # what this method bound before it got here stays its own
        for key, value in before.items():
            if value is not self._entry_self.get(key):
                state.env[key] = value

    def _drop_unconfirmed_prelude_writes(self) -> None:
        first, last = self._prelude_ops
        self.result.writes = [
            w
            for w in self.result.writes
            if w.confirmed_by_backward
            or not w.saves
            or not all(first < s.op_id < last for s in w.saves)
        ]

    # ---------------------------------------------------------------- statements
    def _closure(self, stmt: cst.FunctionDef, state: State) -> tuple[tuple[str, object], ...]:
        """What a function defined here reads of this function's names, where those hold an
        object and not a tensor: a module, an optimizer, a function, a constant (kn's `main()`
        defines `edit()`, which writes the weights of the `model` that `main` built). A tensor's
        saves and versions live in this function's state, which the helper's own analysis does
        not share: a name holding one stays unknown there (and the helper speculative)."""
        free = _free_names(stmt)
        # (a name the encloser binds again, before or after the `def`, holds at the helper's
        # call whatever was bound last: not known here)
        once = _bound_once(self.info.node)
        captured = []
        for name in sorted(free & once):
            value = state.env.get(name)
            if type(value) in _CLOSURE_VALUES:
                captured.append((name, value))
        return tuple(captured)

    def exec_block(self, body: list | tuple, state: State) -> State:
        pushed = 0
        try:
            for stmt in body:
                if not state.reachable:
                    break
                state = self.exec_stmt(stmt, state)
                if self.exit_condition is not None:
                    # `if train_mode: return ...`: what follows runs when the test fails
                    self.conditions.append(self.exit_condition)
                    self.exit_condition = None
                    pushed += 1
        finally:
            if pushed:
                del self.conditions[-pushed:]
        return state

    def _note_framework_call(self, func: cst.Attribute, state: State) -> None:
        """`super().__call__(*args)` (or `nn.Module.__call__(self, ...)`) in a module's own
        `__call__`: the framework's call runs this class's `forward`, here with this grad mode
        (torchjd's `_NonDifferentiable` mixin runs it under `no_grad`, prec39)."""
        base = func.value
        framework_call = (
            type(base) is cst.Call and type(base.func) is cst.Name and base.func.value == "super"
        ) or self.imports.resolve(base) in ("torch.nn.Module", "paddle.nn.Layer")
        if framework_call and self.cls is not None and self.info.node.name.value == "__call__":
            for cls in local_lineage(self.cls, self.index.classes):
                key = f"{cls.name}.forward"
                if key in self.index.functions:
                    self._note_call(key, state)
            for key, info in self.index.functions.items():
                # (a mixin's `__call__`: the forward of every class built on it)
                if (
                    info.node.name.value == "forward"
                    and info.cls is not None
                    and self.cls in local_lineage(info.cls, self.index.classes)[1:]
                ):
                    self._note_call(key, state)

    def _note_unresolved_calls(self, method: str, state: State) -> None:
        """`expert.copy_from_experts_module(experts, i)` under `no_grad` on an object the
        analysis cannot tell (`expert = self[index]` of a ModuleList subclass built by
        `cls(...)`: llmcompressor, prec38): a call, without grad, of each method of this
        module's classes so named. Only
        calls without grad are noted so: they can only make a method's callers all run it
        without grad (``ModuleDataflow._apply_caller_guards``), never add a call with grad."""
        if method.startswith("__") or method.endswith("_"):
            return  # (a tensor's own in-place methods)
        keys = self.flow.methods_named(method)
        for key in keys:
            self._note_call(key, state)

    def _note_call(self, callee: str, state: State) -> None:
        """Remember a call of a local function or method (``ModuleDataflow._call_sites``)."""
        self.result.call_sites.append(
            (
                callee,
                state.grad_enabled,
                self.grad_explicit,
                self.conditions[-1] if self.conditions else None,
            )
        )

    def exec_stmt(self, stmt: cst.CSTNode, state: State) -> State:
        kind = type(stmt)  # exact classes, as in `eval`
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            for small in stmt.body:
                self.stmt = small
                self.exec_small(small, state)
                if not state.reachable:
                    break
            return state
        if kind is cst.If:
            test = self.eval(stmt.test, state)
            if isinstance(test, ConstVal) and isinstance(test.value, _DECIDING_LITERALS):
                # a flag the caller passed as a literal: only one branch runs
                if test.value:
                    return self.exec_block(_body(stmt), state)
                if isinstance(stmt.orelse, cst.If):
                    return self.exec_stmt(stmt.orelse, state)
                return self.exec_block(_body(stmt.orelse), state) if stmt.orelse else state
            configuration = _is_configuration(stmt.test, self._optional_parameters())
            if configuration:
                self.conditions.append(_code(self, stmt.test))
            clobbered = self.clobbered  # an activation's input clobbered in one branch is
            self.clobbered = dict(clobbered)  # not read in the other (X2Paddle's ReLU.forward)
            outer_branch, run = self.branch, new_id()
            try:
                then = state.copy()
                self._refine(stmt.test, then, True)
                if configuration:
                    # (a save made only when the test fails cannot hold where it holds)
                    _drop_saves_under(then, _negated(self.conditions[-1]))
                self.branch = (*outer_branch, (run, 0))
                then = self.exec_block(_body(stmt), then)
                self.branch = (*outer_branch, (run, 1))
                then_clobbered, self.clobbered = self.clobbered, dict(clobbered)
                other = state.copy()
                self._refine(stmt.test, other, False)
                if configuration:  # a write in the other branch happens when the test fails
                    # `if not self.use_linear: x = self.proj_in(x)` then `if self.use_linear:
                    # x = self.proj_in(x)` (ppdiffusers): the GroupNorm's save of `x`, carried
                    # past the first under `self.use_linear`, is gone where the second is skipped
                    _drop_saves_under(other, self.conditions[-1])
                    self.conditions[-1] = _negated(self.conditions[-1])
                if stmt.orelse is not None:
                    if isinstance(stmt.orelse, cst.If):
                        other = self.exec_stmt(stmt.orelse, other)
                    else:
                        other = self.exec_block(_body(stmt.orelse), other)
            finally:
                self.branch = outer_branch
                if configuration:
                    self.conditions.pop()
            if then.reachable and other.reachable:
                self.clobbered = {**then_clobbered, **self.clobbered}
            elif then.reachable:
                self.clobbered = then_clobbered
            merged = merge_states([then, other])
            _mark_one_sided_leaves(merged, then, other, lambda: _code(self, stmt.test))
            if configuration:
                _mark_one_sided_saves(merged, then, other, _code(self, stmt.test))
            if configuration or self._in_constructor():
                # (in `__init__`, any test is one of the object's options: `if n > 1:`,
                # `if cfg.use_proj:`)
                _mark_alternative_modules(merged, then, other, _code(self, stmt.test))
                if not then.reachable and other.reachable and stmt.orelse is None:
                    self.exit_condition = _negated(_code(self, stmt.test))
            return merged
        if kind is cst.For or kind is cst.While:
            return self.exec_loop(stmt, state)
        if kind is cst.With:
            return self.exec_with(stmt, state)
        if kind is cst.Try:
            body = self.exec_block(_body(stmt), state.copy())
            branches = [body]
            for handler in stmt.handlers:
                branches.append(self.exec_block(_body(handler), merge_states([state, body])))
            merged = merge_states(branches)
            if stmt.orelse is not None:
                merged = self.exec_block(_body(stmt.orelse), merged)
            if stmt.finalbody is not None:
                merged.reachable = True if any(b.reachable for b in branches) else merged.reachable
                merged = self.exec_block(_body(stmt.finalbody), merged)
            return merged
        if kind is cst.Match:
            branches = [self.exec_block(_body(case), state.copy()) for case in stmt.cases]
            return merge_states(branches + [state])
        if kind is cst.FunctionDef and self.info.key != MODULE_KEY:
            # a helper defined inside this function (torchvision's `make_grid` defines
            # `norm_ip`, which clamps its argument in place): a local function of its own,
            # called as any other; what it reads of this function's names it does not know
            key = f"{self.info.key}.<locals>.{stmt.name.value}"
            if key not in self.index.functions:
                own = self.info.cls or self.info.enclosing_cls
                self.index.functions[key] = FunctionInfo(
                    key,
                    stmt,
                    None,
                    # (`self` read from the method it is defined in: that instance)
                    enclosing_cls=own
                    if own is not None
                    and isinstance(state.env.get("self"), ModuleVal)
                    and not any(p.name.value == "self" for p in stmt.params.params)
                    else None,
                    closure=self._closure(stmt, state) if own is None else (),
                )
            state.env[stmt.name.value] = FrameworkRef(f"<local-function>.{key}")
            return state
        # nested classes (and defs in the module's own body) are analysed on their own
        return state

    def type_test(self, expr, state: State) -> str:
        """What the class argument of an `isinstance` test says of a tensor: "tensor" (a
        framework tensor class, or a local class built on one), "other" (a class whose
        instances are never tensors: a builtin, numpy's array, a class of the standard library,
        a local class on no other base), "unknown" (a class from elsewhere, or a name this
        function binds). A tuple of classes: "tensor" if any is, "other" if all are."""
        if type(expr) is cst.Tuple:
            kinds = {
                "unknown" if type(e) is cst.StarredElement else self.type_test(e.value, state)
                for e in expr.elements
            }
            if "tensor" in kinds:
                return "tensor"
            return "other" if kinds == {"other"} else "unknown"
        name = dotted_name(expr)
        if name is None or name.partition(".")[0] in state.env:
            return "unknown"
        return self.flow.class_kind(name, self.imports.resolve(expr))

    def _refine(
        self, test, state: State, truth: bool, names: dict[str, str] | None = None, depth: int = 0
    ) -> None:
        """What a branch learns from its test: past `if x.requires_grad: return ...`, `x` does
        not require grad (kornia runs `out=` kernels only there), nor inside `if
        x.stop_gradient:` (Paddle); where `torch.is_grad_enabled()` is false, grad mode
        is off. Through `not`, `and` (when true), `or` (when false), and a local predicate
        whose body is one `return` (`if _fast_path_ok(img1, img2):`), its parameters read as
        the caller's arguments (``names``).

        `not (torch.is_grad_enabled() and x.requires_grad)` (true) says grad is off or `x` does
        not require grad: either way no op on `x` is recorded, which is what `x` not requiring
        grad models."""
        if depth > 8:
            return
        kind = type(test)
        if kind is cst.UnaryOperation and type(test.operator) is cst.Not:
            self._refine(test.expression, state, not truth, names, depth + 1)
        elif (
            kind is cst.BooleanOperation
            and type(test.operator) is cst.Or
            and truth
            and names is None
            and (merged := _isinstance_union(test)) is not None
        ):
            # `isinstance(m, nn.ReLU) or isinstance(m, nn.Dropout)`: one test of a tuple
            self._refine(merged, state, truth, names, depth + 1)
        elif kind is cst.BooleanOperation:
            operator = type(test.operator)
            if (operator is cst.And and truth) or (operator is cst.Or and not truth):
                self._refine(test.left, state, truth, names, depth + 1)
                self._refine(test.right, state, truth, names, depth + 1)
            elif operator is cst.And and not truth and self._is_grad_enabled_call(test.left):
                self._refine(test.right, state, False, names, depth + 1)
        elif kind is cst.Attribute and test.attr.value in ("requires_grad", "stop_gradient"):
            path = dotted_name(test.value)
            if path and names is not None:
                head, _, rest = path.partition(".")
                if head not in names:
                    return
                path = names[head] + ("." + rest if rest else "")
            value = state.env.get(path) if path else None
            if not isinstance(value, TensorVal):
                return
            requires = truth if test.attr.value == "requires_grad" else not truth
            # Only the negative is kept: a branch where `x` requires grad would widen `x` to
            # "requires grad" when the branches merge (a merge keeps what any path requires).
            if not requires and value.requires_grad is not False:
                state.env[path] = replace(value, requires_grad=False, leaf=False)
                if self._sole_grad_source(value.storage):
                    # nothing else can carry grad into this function: what it computed so far
                    # does not require grad on this path either (kornia's `rgb_to_hls` takes
                    # `maxc = image.max(-3)[0]` before `if image.requires_grad: ... else:
                    # torch.add(maxc, minc, out=l_)`)
                    for key, held in list(state.env.items()):
                        state.env[key] = _without_grad(held)
        elif (
            truth
            and names is None
            and kind is cst.Call
            and _isinstance_call(test, state.env)
            and not any(a.star or a.keyword for a in test.args)
        ):
            # inside `if isinstance(y, TensorList):` (deepinv's RAM model, prec37), with a class
            # that is not a tensor's or may not be: `y` is no longer known to be a tensor there
            path = dotted_name(test.args[0].value)
            value = state.env.get(path) if path else None
            if (
                isinstance(value, TensorVal)
                and self.type_test(test.args[1].value, state) != "tensor"
            ):
                state.env[path] = Unknown(value.lineage)
            elif (
                isinstance(value, ModuleVal)
                and value.qualname == GENERIC_SUBMODULE
                and (quals := self._framework_classes(test.args[1].value, state)) is not None
            ):
                # `if isinstance(m, nn.ReLU):` over `self.modules()` (BDRAR, MVANet)
                state.env[path] = replace(value, kind_filter=quals)
            elif (
                isinstance(value, ModuleVal)
                and value.qualname == GENERIC_SUBMODULE
                and type(test.args[1].value) is cst.Name
                and (cls := self.index.classes.get(test.args[1].value.value)) is not None
                and cls.is_module
                and test.args[1].value.value not in state.env
            ):
                # `if isinstance(m, Block): m.scale.mul_(0.5)` in an init callback: a submodule
                # of that local class, whose parameters `__init__` made (lookalike48)
                state.env[path] = ModuleVal(
                    path=path, local_class=cls.name, fw=value.fw, uid=value.uid
                )
        elif (given := _none_test(test, truth)) is not None:
            # past `if mask is not None:` (or in the `else:` of `if mask is None:`) the argument
            # is there
            value = state.env.get(given) if names is None else None
            if isinstance(value, TensorVal) and value.maybe_none:
                state.env[given] = replace(value, maybe_none=False)
        elif (leafness := _leaf_test(test, truth)) is not None:
            # `if not h.is_leaf: h.mul_(g)`, `if h.grad_fn is not None:`: where the test says
            # `h` is no leaf, it has a graph: a write there is no leaf's (lookalike32); a view of
            # a leaf has one too, and keeps its own error
            path = dotted_name(leafness)
            value = state.env.get(path) if path and names is None else None
            if isinstance(value, TensorVal):
                state.env[path] = replace(value, leaf=False, leaf_condition=None, has_graph=True)
        elif kind is cst.Call and self._is_grad_enabled_call(test):
            if not truth:
                state.grad_enabled = False
                if not self.grad_explicit:
                    # the mode this function inherited is off: nothing it ran was recorded
                    state.saves = {}
        elif kind is cst.Call and names is None and type(test.func) is cst.Name:
            predicate = self._single_return(test.func.value)
            if predicate is not None:
                parameters, expr = predicate
                arguments = [a for a in test.args if a.keyword is None and not a.star]
                names = {
                    p: dotted_name(a.value)
                    for p, a in zip(parameters, arguments)
                    if dotted_name(a.value)
                }
                self._refine(expr, state, truth, names, depth + 1)

    def _sole_grad_source(self, storage: object) -> bool:
        """The parameter holding ``storage`` is the only way grad can enter this function: a
        plain function (no `self`, no `*args` / `**kwargs`) whose other parameters are tensors
        that do not require grad or not tensors at all."""
        params = self.info.node.params
        if (
            self.info.cls is not None
            or storage not in self.param_entry_rg
            or isinstance(params.star_arg, cst.Param)
            or params.star_kwarg is not None
        ):
            return False
        return all(rg is False for s, rg in self.param_entry_rg.items() if s != storage)

    def _is_grad_enabled_call(self, expr) -> bool:
        return (
            type(expr) is cst.Call
            and not expr.args
            and self.imports.resolve(expr.func)
            in ("torch.is_grad_enabled", "paddle.is_grad_enabled")
        )

    def _single_return(self, name: str) -> tuple[list[str], cst.BaseExpression] | None:
        """A module-level function whose body is one `return <expr>` (after a docstring): its
        positional parameter names and the expression."""
        info = self.flow.index.functions.get(name)
        if info is None or info.cls is not None:
            return None
        body = [s for s in _body(info.node) if not _is_docstring(s)]
        if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine:
            return None
        small = body[0].body
        if len(small) != 1 or type(small[0]) is not cst.Return or small[0].value is None:
            return None
        params = info.node.params
        return [p.name.value for p in (*params.posonly_params, *params.params)], small[0].value

    def exec_loop(self, stmt: cst.For | cst.While, state: State) -> State:
        constants = self._constant_items(stmt, state)
        if constants is None:
            constants = self._spelled_children_items(stmt, state)
        if constants is None:
            constants = self._instance_display_items(stmt, state)
        if constants is not None:
            return self._exec_unrolled(stmt, constants, state)
        entry = state
        current = state.copy()
        # a counted loop (`for t in range(n)`) decides `if t == 0:` on each pass: one more pass,
        # so that what the second iteration computes reaches the third (an attention over the
        # outputs so far, skipped on the first step, feeds the step whose write breaks its save)
        start = self._counter_start(stmt)
        passes = (
            MAX_LOOP_PASSES + 1
            if start is not None or self._retains_graph(stmt)
            else MAX_LOOP_PASSES
        )
        for loop_pass in range(passes):
            body_state = current.copy()
            if isinstance(stmt, cst.For):
                iterable = self.eval(stmt.iter, body_state)
                item = self._iteration_value(iterable, stmt.iter)
                if (
                    loop_pass
                    and isinstance(iterable, ModuleVal)
                    and iterable.last_child_known
                    and len(iterable.children) > 1
                ):
                    # the container's children are not all known, but its last is: a later
                    # pass runs it, and the loop leaves its output (an MLP builder's closing
                    # `layers.append(nn.Sigmoid())`, then `p.clamp_(...)`: lookalike27)
                    item = iterable.children[-1]
                elif loop_pass:
                    item = _next_element(item)
                if start is not None:
                    item = self._with_counter(
                        stmt,
                        item,
                        start,
                        first=not loop_pass,
                        before_last=bool(self.flow.loop_fact(stmt, 0)),
                    )
                self.bind(stmt.target, item, body_state, stmt)
            else:
                self.eval(stmt.test, body_state)
            body_state = self.exec_block(_body(stmt), body_state)
            body_state.reachable = True  # `break` / `continue` / early return inside the loop
            current = body_state  # a later iteration starts where an earlier one ended
        if start is not None and isinstance(stmt, cst.For) and self.flow.loop_fact(stmt, 0):
            # `for i, layer in enumerate(self.layers): h = layer(h); if i < len(self.layers) -
            # 1: h = F.relu(h)` (an MLP's activation between layers, none after the last): the
            # loop leaves what its last pass made, where that test is false (lookalike41)
            body_state = current.copy()
            item = _next_element(self._iteration_value(self.eval(stmt.iter, body_state), stmt.iter))
            item = self._with_counter(stmt, item, start, first=False, last=True)
            self.bind(stmt.target, item, body_state, stmt)
            body_state = self.exec_block(_body(stmt), body_state)
            body_state.reachable = True
            current = body_state
        # After the loop: it ran no time, or (as far as the passes go) it ran through. Not the
        # end of every pass: a name rebound in each iteration holds the last iteration's value,
        # and the first pass's ops must not be counted as reached through it.
        if not (isinstance(stmt, cst.For) and self._runs_surely(stmt, entry)):
            current = merge_states([entry, current])
        container = self.flow.loop_fact(stmt, 1) if isinstance(stmt, cst.For) else None
        held = current.env.get(container) if container is not None else None
        if isinstance(held, ModuleVal) and held.children and not held.frozen:
            # `for proto in self.prototypes: proto.requires_grad_(False)` froze every item:
            # the container is frozen (solo-learn's DeepClusterV2 prototypes, prec38)
            current.env[container] = replace(held, frozen=True)
        if stmt.orelse is not None:
            current = self.exec_block(_body(stmt.orelse), current)
        return current

    def _constant_items(self, stmt, state: State) -> tuple[ConstVal, ...] | None:
        """The items of `for name in <known tuple or list of literals>` (mmcv's ConvModule:
        `for layer in self.order:` over `("conv", "norm", "act")`), when the body has no `break`
        and no `else` follows: each iteration is then known, and runs once, in order."""
        if (
            type(stmt) is not cst.For
            or type(stmt.target) is not cst.Name
            or stmt.orelse is not None
            or type(stmt.iter) not in _PURE_ITERABLES
        ):
            return None
        if type(stmt.iter) in (cst.Tuple, cst.List) and not all(
            type(e.value) in _LITERAL_NODES for e in stmt.iter.elements
        ):
            return None
        iterable = self.eval(stmt.iter, state)  # a lookup or a display of literals: no effect
        if isinstance(iterable, ConstVal) and isinstance(iterable.value, tuple):
            iterable = SeqVal(tuple(ConstVal(v) for v in iterable.value))
        if (
            isinstance(iterable, SeqVal)
            and 0 < len(iterable.items) <= _UNROLLED_LOOP
            and all(
                isinstance(i, ConstVal) and isinstance(i.value, (str, int, float, bool, type(None)))
                for i in iterable.items
            )
            and not _has_break(stmt.body)
        ):
            return iterable.items
        return None

    def _straight_line(self) -> bool:
        """The statement being run is one of the function body's own (not inside a loop, a
        branch, a `with` or a `try`): it runs once, whenever the function runs."""
        if self._top_level is None:
            self._top_level = {
                id(small)
                for stmt in _body(self.info.node)
                if type(stmt) is cst.SimpleStatementLine
                for small in stmt.body
            }
        return id(self.stmt) in self._top_level and not self.inlining

    def _spelled_children_items(self, stmt, state: State) -> tuple[ModuleVal, ...] | None:
        """The children of `for layer in self.layers:` over a container built from a display
        of modules (`nn.ModuleList([nn.Sequential(nn.Linear(...), nn.ReLU()), nn.Linear(...)])`),
        when the body has no `break` and no `else` follows: the loop runs once per child, in
        order, and after it the name holds the last child's output (not, as a loop's merged
        passes would have it, possibly the first child's ReLU output)."""
        if (
            type(stmt) is not cst.For
            or type(stmt.target) is not cst.Name
            or stmt.orelse is not None
            or type(stmt.iter) not in (cst.Name, cst.Attribute)
        ):
            return None
        container = self.eval(stmt.iter, state)  # a lookup: no effect
        if (
            isinstance(container, ModuleVal)
            and container.children_exact
            and 0 < len(container.children) <= _UNROLLED_LOOP
            and not _has_break(stmt.body)
        ):
            return container.children
        return None

    def _instance_display_items(self, stmt, state: State) -> tuple[Value, ...] | None:
        """The items of `for gen in [gen0, gen1]:` / `for step, gen in enumerate((g0, g1)):`,
        a display of names or attributes that hold distinct module instances, when the body has
        no `break` and no `else` follows: each instance runs once, in order (a cascade of
        generators, each stage fed the previous one's output: ganimator#5), instead of a
        merged "one of them" whose parameters no save is held against."""
        if type(stmt) is not cst.For or stmt.orelse is not None:
            return None
        display, counted = stmt.iter, False
        if (
            type(display) is cst.Call
            and type(display.func) is cst.Name
            and display.func.value == "enumerate"
            and len(display.args) == 1
            and not display.args[0].keyword
            and not display.args[0].star
            and "enumerate" not in self.index.functions
        ):
            display, counted = display.args[0].value, True
        items: list[Value] = []
        if type(display) in (cst.Name, cst.Attribute):
            # a list the caller spelled (`draw_example([gen0, gen1], ...)`; ``SeqVal.exact``)
            held = self.eval(display, state)  # a lookup: no effect
            if not isinstance(held, SeqVal) or not held.exact:
                return None
            items = list(held.items)
        elif type(display) in (cst.List, cst.Tuple):
            for element in display.elements:
                if type(element) is not cst.Element or type(element.value) not in (
                    cst.Name,
                    cst.Attribute,
                ):
                    return None
                items.append(self.eval(element.value, state))  # a lookup: no effect
        else:
            return None
        if not 0 < len(items) <= _UNROLLED_LOOP or _has_break(stmt.body):
            return None
        if not all(isinstance(item, ModuleVal) and item.node is not None for item in items):
            return None
        if len({id(item.node) for item in items}) != len(items):
            return None  # one instance twice: the merged loop says as much
        if counted:
            return tuple(SeqVal((ConstVal(i), item)) for i, item in enumerate(items))
        return tuple(items)

    def _exec_unrolled(self, stmt: cst.For, items: tuple[Value, ...], state: State) -> State:
        """Run the body once per known item: `if layer == "act":` is then decided on each."""
        current = state.copy()
        for item in items:
            self.bind(stmt.target, item, current, stmt)
            current = self.exec_block(_body(stmt), current)
            current.reachable = True  # `continue` / an early return inside the body
        return current

    def _retains_graph(self, stmt) -> bool:
        """A loop whose body backwards with `retain_graph=True` (a recurrent state carried into
        the next iteration, stepped each time): the graph a pass keeps is run through again one
        pass later, so what the second pass saved and stepped breaks only in a third."""
        memo = self.flow.retaining_loops
        if id(stmt) not in memo:
            memo[id(stmt)] = _runs_backward(stmt.body, retaining=True)
        return memo[id(stmt)]

    def _counter_start(self, stmt) -> int | None:
        """The start of the counter ``_with_counter`` tracks in `for t in range(n)` /
        `range(a, n)` (a literal `a`, no step, `range` not rebound) or `for i, x in
        enumerate(xs)`, when the body compares it (`if t == 0:`, `x if layer == 0 else y`); such
        a loop runs a third pass. None for any other loop (the third pass costs analysis time)."""
        if type(stmt) is not cst.For:
            return None
        memo = self.flow.counter_tests
        if id(stmt) not in memo:
            memo[id(stmt)] = self._find_counter_start(stmt)
        return memo[id(stmt)]

    def _find_counter_start(self, stmt: cst.For) -> int | None:
        name = _counter_name(stmt)
        if name is None:
            return None
        call = stmt.iter  # `range(...)` / `enumerate(...)` (``_counter_name``)
        if call.func.value in self.index.functions or self.imports.resolve(call.func) is not None:
            return None  # a local or imported `range`
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) != len(call.args):
            return None
        if call.func.value == "range" and len(positional) in (1, 2):
            start = _literal(positional[0].value) if len(positional) == 2 else 0
        elif call.func.value == "enumerate" and len(positional) == 1:
            start = 0
        else:
            return None
        if type(start) is not int or not _compares_name(stmt.body, name):
            return None
        return start

    def _runs_surely(self, stmt: cst.For, entry: State) -> bool:
        """A loop over `self.modules()` runs at least once (the module itself is one): what its
        body did (`m.inplace = True` on the filtered layers) holds after it."""
        if not (
            type(stmt.iter) is cst.Call
            and type(stmt.iter.func) is cst.Attribute
            and stmt.iter.func.attr.value in ("modules", "named_modules")
            and not stmt.iter.args
        ):
            return False
        iterable = self.eval(stmt.iter, entry.copy())
        return isinstance(iterable, SubmodulesVal) and iterable.never_empty

    def _with_counter(
        self,
        stmt: cst.For,
        item: Value,
        start: int,
        first: bool,
        last: bool = False,
        before_last: bool = False,
    ) -> Value:
        """The loop's item with its counter a ``LoopCounter`` (first pass, or a later one)."""
        if isinstance(item, TensorVal):
            # `range(len(feats))` with `feats` taken for a tensor: the analysis indexes with
            # what it made of the range, as before (a list-returning module's items indexed by
            # a true int were a false IPL012 on ppdiffusers' adapter)
            return item
        counter = LoopCounter(start=start, first=first, last=last, before_last=before_last)
        if type(stmt.target) is cst.Name:  # `for t in range(...)`
            return counter
        if isinstance(item, SeqVal) and item.items:  # `for i, x in enumerate(...)`
            return replace(item, items=(counter, *item.items[1:]))
        return item

    def exec_with(self, stmt: cst.With, state: State) -> State:
        saved = (state.grad_enabled, state.inference, self.grad_explicit, self.autocast)
        for item in stmt.items:
            value = self.eval(item.item, state)
            if isinstance(value, GradModeVal):
                state.grad_enabled = value.enabled
                state.inference = value.inference or (state.inference and value.enabled is False)
                self.grad_explicit = True
            elif isinstance(value, AutocastVal):
                self.autocast = value.on
            if item.asname is not None:
                self.bind(item.asname.name, UNKNOWN, state, stmt)
        state = self.exec_block(_body(stmt), state)
        state.grad_enabled, state.inference, self.grad_explicit, self.autocast = saved
        return state

    def exec_small(self, small: cst.BaseSmallStatement, state: State) -> None:
        self.last_inplace_activation = None
        kind = type(small)  # exact classes, as in `eval`
        if kind is cst.Expr:
            self.eval(small.value, state)
        elif kind is cst.Assign:
            value = self.eval(small.value, state)
            activation = self.last_inplace_activation
            written = state.env.get(activation[0]) if activation is not None else None
            kept = _rewrapped(small, value, state)
            for target in small.targets:
                self.bind(target.target, value, state, small)
            state.env.update(kept)
            if activation is not None:
                name, node, text = activation
                targets = {dotted_name(t.target) for t in small.targets}
                if isinstance(written, TensorVal) and type(value) is TensorVal:
                    # `shortcut = x; x = self.relu(x)` with an in-place ReLU: `shortcut` holds
                    # the same tensor, overwritten too (lookalike35's M6: silently a residual of
                    # relu(x))
                    for alias, held in state.env.items():
                        if (
                            alias != name
                            and alias not in targets
                            and "." not in alias
                            and type(held) is TensorVal
                            and held.storage == written.storage
                            and held.storage == value.storage
                            and held.view is None
                        ):
                            self.clobbered[alias] = (node, text, name)
                if name not in targets:
                    self.clobbered[name] = (node, text)
                    if all(type(t.target) is cst.Name for t in small.targets):
                        self.unread_activations.add(node)
                        for t in small.targets:
                            self.unread_results.setdefault(t.target.value, []).append(node)
        elif kind is cst.AnnAssign:
            if small.value is not None:
                self.bind(small.target, self.eval(small.value, state), state, small)
        elif kind is cst.AugAssign:
            self.exec_augassign(small, state)
        elif kind is cst.Return:
            if small.value is not None:
                value = self.eval(small.value, state)
                if self.inlining:  # an inlined method's return is its caller's value
                    self.inline_returns[-1].append(value)
                else:
                    if not self._training_step():  # (as for `self.x = ...` in ``bind``)
                        self.reach(lineage_of(value), state, retain=True, by_return=True)
                        self._note_returned_items(value)
                    else:
                        self._reach_after_step(lineage_of(value))
                    self._record_return(value, state, small.value)
            state.reachable = False
        elif kind is cst.Raise:
            state.reachable = False
        elif kind is cst.Import:
            self.imports.add_import(small)
        elif kind is cst.ImportFrom:
            self.imports.add_import_from(small)
        elif kind is cst.Del:
            for target in _del_targets(small.target):
                name = dotted_name(target)
                if name:
                    state.env.pop(name, None)

    def _record_graph_saves(self, state: State) -> None:
        """At a way out: the saves of arguments made by an op that an in-place write put in the
        graph of an argument's memory (``FunctionSummary.param_graph_saves``). Not for a module's
        forward, whose saves its callers do not take (``_apply_param_writes``)."""
        if self.is_forward_like:
            return
        graphs: dict[object, frozenset[int]] = {}  # a written argument's memory -> its ops
        for held in state.env.values():
            if isinstance(held, TensorVal) and held.storage in self.param_storages:
                graphs[held.storage] = graphs.get(held.storage, frozenset()) | held.lineage
        found: dict[tuple[int, int], str] = {}
        for storage, index in self.param_storages.items():
            for save in state.saves.get(storage, ()):
                if not save.certain:
                    continue
                for written, ops in graphs.items():
                    if save.op_id in ops:
                        found.setdefault((index, self.param_storages[written]), save.what)
        self.graph_save_exits.append(found)

    def _param_alias(self, value: Value) -> tuple[int, str] | None:
        """(argument index, kind) when ``value`` is an argument itself, a view of it or its
        detached alias."""
        if not isinstance(value, TensorVal) or value.storage not in self.param_storages:
            return None
        kind = (
            "detach"
            if value.requires_grad is False
            else "view"
            if value.view is not None
            else "same"
        )
        return (self.param_storages[value.storage], kind)

    def _note_returned_items(self, value: Value) -> None:
        """Which items of a returned tuple reach each pending write's saves
        (``Write.returned_items``)."""
        if not isinstance(value, SeqVal) or len(value.items) < 2:
            return
        lineages = [lineage_of(item) for item in value.items]
        for write in self.pending:
            ops = {save.op_id for save in write.saves}
            if ops:
                write.returned_items.update(i for i, lin in enumerate(lineages) if ops & lin)

    def _record_return(self, value: Value, state: State, expr=None) -> None:
        self._record_graph_saves(state)
        summary = self.result.summary
        if self.is_function_forward:
            saved = isinstance(value, TensorVal) and value.storage in self.ctx_saved_storages
            summary.ctx_saves_output = saved and (summary.ctx_saves_output or not self.returns_seen)
            # `return x` of an argument itself (not `x.detach()`, `x.data`: new tensors to
            # autograd, measured by lookalike46)
            itself = (
                type(expr) is cst.Name
                and expr.value in self.param_index
                and isinstance(value, TensorVal)
                and value.storage in self.param_storages
            )
            summary.returns_input_itself = itself and (
                summary.returns_input_itself or not self.returns_seen
            )
        for item in _flatten(value) if isinstance(value, SeqVal) else (value,):
            if isinstance(item, TensorVal) and (
                item.parameter
                or (isinstance(item.storage, str) and item.storage.startswith("params:"))
            ):
                summary.returns_parameter = True
        first_return = not self.alias_returns
        # (a view of an argument may be a copy: `x.reshape(-1)` of a transposed input; and an
        # argument's `detach()` is no view to autograd: lookalike46)
        is_view = (
            isinstance(value, TensorVal)
            and value.view is not None
            and value.storage not in self.param_storages
        )
        summary.returns_view = is_view if first_return else bool(summary.returns_view and is_view)
        summary.returns_alias = _unanimous(self.alias_returns, self._param_alias(value))
        items = some = None
        if isinstance(value, SeqVal) and len(value.items) > 1:
            items = tuple(self._param_alias(item) for item in value.items)
            if None in items:
                some = items if any(item is not None for item in items) else None
                items = None
        summary.returns_item_aliases = _unanimous(self.item_alias_returns, items)
        summary.returns_some_item_aliases = _unanimous(self.some_item_alias_returns, some)
        summary.returned_arity = _unanimous(
            self.arity_returns, len(value.items) if isinstance(value, SeqVal) else None
        )
        constant = (
            value
            if isinstance(value, ConstVal)
            and (value.value is None or type(value.value) is bool)
            and not self.is_forward_like
            else None
        )
        summary.returns_constant = _unanimous(self.constant_returns, constant)
        parameter_view = None
        if isinstance(value, TensorVal) and value.view_of_leaf and self.info.cls is not None:
            parameter_view = next(
                (
                    name
                    for name, v in _own_attributes(state)
                    if isinstance(v, TensorVal) and v.parameter and v.storage == value.storage
                ),
                None,
            )
        summary.returns_parameter_view = _unanimous(self.parameter_view_returns, parameter_view)
        # (a tuple of tensors counts when every item does: `return targets, max_probs` from an
        # `@torch.inference_mode()` method)
        items = _tensor_items(value)
        grad_free = bool(items) and all(i.requires_grad is False for i in items)
        summary.returns_grad_free = grad_free and (summary.returns_grad_free or first_return)
        is_dict = type(value) is DictVal
        summary.returns_dict = is_dict and (summary.returns_dict or first_return)
        leaf = (
            isinstance(value, TensorVal)
            and value.leaf
            and value.requires_grad is True
            and value.view is None
            and not value.parameter
            and value.storage not in self.param_storages
            and not isinstance(value.storage, str)
        )
        summary.returns_leaf = leaf and (summary.returns_leaf or first_return)
        inference = bool(items) and all(i.inference for i in items)
        summary.returns_inference = inference and (summary.returns_inference or first_return)
        requires = bool(items) and all(i.requires_grad is True for i in items)
        summary.returns_requires_grad = requires and (summary.returns_requires_grad or first_return)
        summary.returns_graphless = _graphless(value) and (
            summary.returns_graphless or first_return
        )
        multi = (
            isinstance(value, TensorVal)
            and value.view == "multi"
            and value.storage not in self.param_storages
        )
        if multi and summary.multi_view_returns >= 0:
            summary.multi_view_returns += 1
            summary.returns_multi_view = value.multi_base_requires_grad
            summary.returns_custom_view = value.custom_function_view
        else:
            summary.multi_view_returns = -1  # one path returns something else
        lineage = lineage_of(value)
        reached = frozenset(self.param_origins[o] for o in lineage & self.param_origins.keys())
        summary.traced_params = frozenset(self.param_origins.values())
        summary.returned_params = reached | (summary.returned_params or frozenset())
        if lineage:
            self._record_saved_inputs(lineage, state)
        self._record_saved_items(value, lineage, state)
        self._record_item_submodules(value, state)
        self._record_attribute_saves(lineage, state)
        if _portable(value):
            self.result.summary.returned = value
        # a function every path of which returns one framework function (DETR's
        # `_get_activation_fn("relu")` returning `F.relu`): callers get that function
        reference = value if isinstance(value, FrameworkRef) else None
        reference = _unanimous(self.reference_returns, reference)
        if reference is not None:
            self.result.summary.returned = reference
        elif isinstance(self.result.summary.returned, FrameworkRef):
            self.result.summary.returned = None
        if isinstance(value, TensorVal):
            saves = state.saves.get(value.storage, ())
            outputs = [s for s in saves if s.certain and s.what == "output"]
            saved = bool(outputs)
            summary = self.result.summary
            condition = (
                outputs[0].condition if outputs and all(s.condition for s in outputs) else None
            )
            if not saved and self.conditions and not self.output_returns_seen:
                # an option's early return of something unsaved (`if self.cfg.logits_only:
                # return z` before `return torch.softmax(z, -1)`): the later paths' saved output
                # is one under the option's negation (lookalike43)
                self.option_exits.append(" and ".join(self.conditions))
            else:
                if (
                    saved
                    and condition is None
                    and len(self.option_exits) == 1
                    # (past the early return, its negation is one of this path's conditions)
                    and " and ".join(self.conditions) in ("", _negated(self.option_exits[0]))
                ):
                    condition = _negated(self.option_exits[0])
                # every return path must return a saved output for callers to rely on it
                summary.returns_saved_output = saved and (
                    summary.returns_saved_output or not self.output_returns_seen
                )
                if not self.output_returns_seen or summary.saved_output_condition is None:
                    summary.saved_output_condition = condition
                self.output_returns_seen = True
            summary.returns_known = value.known and (summary.returns_known or not self.returns_seen)
            self.returns_seen = True

    def _record_saved_items(self, value: Value, lineage: frozenset[int], state: State) -> None:
        """``FunctionSummary.saved_items`` (a returned tuple, by position) and ``saved_entries``
        (a returned dict, by string key): kept only while every return path agrees."""
        found = None
        if isinstance(value, SeqVal) and lineage:
            parts = list(enumerate(value.items))
            saved = _saved_parts(parts, lineage, state)
            found = (len(value.items), saved) if saved else None
        summary = self.result.summary
        summary.saved_items = _agreed(self.tuple_returns, found)
        # (a namedtuple's field names, where every return path gives the same)
        fields = value.fields if isinstance(value, SeqVal) else ()
        if len(self.tuple_returns) > 1 and summary.saved_items_fields != fields:
            fields = ()
        summary.saved_items_fields = fields
        found = None
        if type(value) is DictVal and lineage:
            parts = [(k, v) for k, v in value.items if type(k) is str and isinstance(v, TensorVal)]
            keys = tuple(k for k, _ in parts)
            saved = _saved_parts(parts, lineage, state)
            found = (keys, saved) if saved and len(set(keys)) == len(keys) else None
        self.result.summary.saved_entries = _agreed(self.dict_returns, found)

    def _record_attribute_saves(self, lineage: frozenset[int], state: State) -> None:
        """``FunctionSummary.attribute_saves``: kept while every return path agrees."""
        if self.info.cls is None or not state.grad_enabled:
            self.result.summary.attribute_saves = {}
            return
        found: dict[str, str] = {}
        for name, held in _own_attributes(state):
            if type(held) is TensorVal and not held.parameter and lineage:
                for save in state.saves.get(held.storage, ()):
                    if save.certain and save.op_id in lineage and not save.via_data:
                        found.setdefault(name, save.what)
        before = self.result.summary.attribute_saves
        self.result.summary.attribute_saves = (
            found if before is None else {n: w for n, w in before.items() if n in found}
        )

    def _record_item_submodules(self, value: Value, state: State) -> None:
        """``FunctionSummary.item_self_submodules``: what each item of a returned tuple saved of
        the `self.<name>` submodules and which of them its graph reaches; kept while every return
        path returns a tuple of the same length (saves common to all paths, graphs of any)."""
        found = None
        leaves, shape = _tuple_leaves(value) if isinstance(value, SeqVal) else ((), None)
        self.item_shape_returns.append(shape)
        if (
            isinstance(value, SeqVal)
            and len(leaves) > 1
            and isinstance(state.env.get("self"), ModuleVal)
        ):
            submodules = {
                held.params_storage_key: name
                for name, held in _own_attributes(state)
                if isinstance(held, ModuleVal)
            }
            submodules[state.env["self"].params_storage_key] = ""  # its own (`self(x)`)
            items = []
            for item in leaves:
                lineage = lineage_of(item)
                graph = set()
                for op_id, storage in self.module_ops.items():
                    if op_id in lineage:
                        for one in storage if isinstance(storage, frozenset) else (storage,):
                            if one in submodules:
                                graph.add(submodules[one])
                saved: dict[str, str] = {}
                for storage, name in submodules.items():
                    for save in state.saves.get(storage, ()):
                        if save.certain and save.op_id in lineage:
                            saved.setdefault(name, save.what)
                items.append((saved, frozenset(graph)))
            found = tuple(items)
            self.item_contains_returns.append(_contained_items(leaves))
        self.item_submodule_returns.append(found)
        first = self.item_submodule_returns[0]
        summary = self.result.summary
        if (
            first is None
            or any(
                other is None or len(other) != len(first) for other in self.item_submodule_returns
            )
            or any(other != self.item_shape_returns[0] for other in self.item_shape_returns)
        ):
            summary.item_self_submodules = summary.item_contains = summary.item_shape = None
            return
        summary.item_shape = self.item_shape_returns[0]
        summary.item_contains = tuple(
            frozenset.intersection(*column) for column in zip(*self.item_contains_returns)
        )
        merged = []
        for index, (saved, graph) in enumerate(first):
            others = [other[index] for other in self.item_submodule_returns]
            common = {
                name: what for name, what in saved.items() if all(name in o[0] for o in others)
            }
            merged.append((common, frozenset().union(*(o[1] for o in others))))
        # (items that went through the same submodules share their graph, as before: SAC's
        # `q1_loss, q2_loss` both through `self.critic`, whose Q1 and Q2 this cannot tell apart)
        went = {(frozenset(saved.items()), graph) for saved, graph in merged if saved or graph}
        summary.item_self_submodules = tuple(merged) if len(went) > 1 else None

    def _record_saved_inputs(self, lineage: frozenset[int], state: State) -> None:
        """Arguments and `self.` tensors that an op on the way to the returned value saved: a
        caller's later write to them is checked against this call."""
        summary = self.result.summary
        unnamed: set[str] = set()  # `params:` storages (submodules) saved, not yet named
        own = state.env.get("self")
        buffers: set[str] | None = None  # (_buffer_roots, when a buffer's save is reached)
        has_self = isinstance(own, ModuleVal)
        own = own.params_storage_key if isinstance(own, ModuleVal) else None
        if own is not None and self.is_forward_like:
            own = None  # a forward's own saves are its callers' business (call_module)
        graph: set[str] = set()
        for op_id, storage in self.module_ops.items():
            if op_id in lineage:
                if storage in self.module_arguments:
                    summary.graph_module_arguments.add(storage)
                elif storage == own:
                    summary.graph_own_parameters = True
                elif isinstance(storage, frozenset):
                    graph.update(storage)
                else:
                    graph.add(storage)
        unnamed_what: dict[str, str] = {}
        unnamed_only: dict[str, frozenset[str]] = {}  # what every save of a storage names
        for storage, saves in state.saves.items():
            reached = [
                s for s in saves if s.certain and s.op_id in lineage and s.what != "ctx attribute"
            ]
            if not reached:
                continue
            if storage in self.param_storages:
                summary.saved_params.setdefault(self.param_storages[storage], reached[0].what)
            elif storage in self.item_of_param:
                summary.saved_param_items.setdefault(self.item_of_param[storage], reached[0].what)
            if (
                has_self
                and isinstance(storage, str)
                and storage.startswith("buffer:")
                and not all(s.via_data for s in reached)
            ):
                if buffers is None:
                    buffers = _buffer_roots(state)
                prefix = storage[: storage.rfind(".") + 1]
                if prefix in buffers:
                    # a buffer of a submodule its call saved (a NoisyLinear held as `self.fc`):
                    # this module's own, for its callers
                    summary.saved_self_attributes.add(storage[len(prefix) :])
                    if all(s.version_only for s in reached):
                        summary.version_only_attributes.add(storage[len(prefix) :])
            if isinstance(storage, str) and storage.startswith("params:"):
                unnamed.add(storage)
                unnamed_what.setdefault(storage, reached[0].what)
                if all(s.only for s in reached):
                    unnamed_only[storage] = frozenset().union(*(s.only for s in reached))
                if storage in self.module_arguments:
                    summary.saved_module_arguments.setdefault(storage, reached[0].what)
                elif storage == own and summary.saved_own_parameters is None:
                    summary.saved_own_parameters = reached[0].what
        for attr, held in _own_attributes(state):
            if isinstance(held, ModuleVal):
                storage = held.params_storage_key
                # (a forward's too: `self(obs)` in the module's own `update` runs it)
                if storage in graph:
                    summary.graph_self_submodules.add(attr)
                if storage in unnamed_what:
                    summary.saved_self_submodules.setdefault(attr, unnamed_what[storage])
                if storage in unnamed:
                    # `self.seq0(x)` saved that submodule's parameters: named by its attribute,
                    # and by their paths under it where every save names them (`head.weight`
                    # for a Linear, which never keeps its bias)
                    kept = unnamed_only.get(storage)
                    if kept:
                        summary.saved_parameter_names.update(f"{attr}.{k}" for k in kept)
                    else:
                        summary.saved_parameter_names.add(attr)
                    unnamed.discard(storage)
                    continue
            if not isinstance(held, TensorVal):
                continue
            saves = state.saves.get(held.storage, ())
            if not any(s.certain and s.op_id in lineage for s in saves):
                continue
            if not held.parameter and all(
                s.via_data for s in saves if s.certain and s.op_id in lineage
            ):
                continue  # only its `.data` was saved: a later write of it does not raise
            if held.parameter:
                summary.saved_parameter_names.add(attr)
            else:
                summary.saved_self_attributes.add(attr)
        if unnamed:
            summary.saves_submodule_parameters = True

    # ---------------------------------------------------------------- assignment
    def bind(
        self, target: cst.BaseExpression, value: Value, state: State, node: cst.CSTNode
    ) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, ModuleVal) and value.path.startswith("<"):
                value = replace(value, path=target.value)
            held = state.env.get(target.value)
            if isinstance(held, ModuleVal) and held.has_parameters and isinstance(value, Unknown):
                # `netD, optimizerD = privacy_engine.make_private(module=netD, ...)`: a model
                # whose parameters the analysis no longer follows (``optimizer_step``)
                self.lost_models = True
            state.env[target.value] = value
            self.clobbered.pop(target.value, None)
            self._drop_attribute_paths(target.value, state)
            return
        if isinstance(target, cst.Attribute):
            if (
                target.attr.value == "inplace"
                and isinstance(value, ConstVal)
                and type(value.value) is bool
                and self._set_inplace(target, value.value, state)
            ):
                return
            if target.attr.value == "data":
                base = self.eval(target.value, state)
                if isinstance(base, TensorVal):
                    self.record_write(
                        state,
                        base,
                        "data-assign",
                        node,
                        target,
                        bumps=False,
                        op_text=_code(self, node),
                    )
                return
            if target.attr.value in ("requires_grad", "stop_gradient") or (
                target.attr.value == "trainable" and self.fw == "paddle"
            ):
                self._set_grad_flag(target, value, state, node)
                return
            if self.ctx_name and dotted_name(target.value) == self.ctx_name:
                if isinstance(value, TensorVal) and value.storage in self.param_storages:
                    self.result.summary.ctx_stashed.add(self.param_storages[value.storage])
                return
            path = dotted_name(target)
            if path is not None:
                if isinstance(value, TensorVal) and not value.parameter:
                    self._parameter_assign(target, path, value, state, node)
                owner = state.env.get(path.split(".", 1)[0])
                if isinstance(owner, ModuleVal):
                    state.env.pop(_carry_key(owner), None)  # `model.hx = model.hx.detach()`
                if isinstance(value, ModuleVal) and value.path.startswith("<"):
                    value = replace(value, path=path)
                state.env[path] = value
                self._drop_attribute_paths(path, state)
                if (
                    path.startswith("self.")
                    and self.info.node.name.value != "__init__"
                    and not self._training_step()
                ):
                    # kept where a caller may run the backward (not in a training step that ran
                    # its own: what it keeps on `self` there is for logging or the next step)
                    self.reach(lineage_of(value), state, retain=True)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e for e in target.elements]
            if self._may_be_a_sequence(value):
                # `z, log_s_list, log_det_W_list = model_output`: its items are separate objects
                # (fairseq WaveGlow's loss: a false IPL004 once `if i == 0:` was decided per pass),
                # and each may be a list itself (PaddleSeg's STFPM loss is given
                # `[student_feats, teacher_feats]` and replaces their items: _may_be_a_container)
                items = [replace(value, storage=new_id()) for _ in elements]
                self.unpacked_items.update(item.storage for item in items)
                if isinstance(value, TensorVal) and value.storage in self.param_storages:
                    index = self.param_storages[value.storage]
                    starred = any(type(e) is cst.StarredElement for e in elements)
                    for position, item in enumerate(items if not starred else ()):
                        self.item_of_param[item.storage] = (index, position)
            else:
                items = _unpack(value, len(elements))
            for element, item in zip(elements, items):
                self.bind(element.value, item, state, node)
            return
        if isinstance(target, cst.Subscript):
            base = self.eval(target.value, state)
            for element in target.slice:
                if isinstance(element.slice, cst.Index):
                    self.eval(element.slice.value, state)
            if isinstance(base, DictVal):
                path = dotted_name(target.value)
                if path is not None and state.env.get(path) is base:
                    key = _dict_index(target)
                    state.env[path] = (
                        base.with_item(key, value)
                        if key is not _NOT_LITERAL
                        # (an entry the analysis cannot name may be any of them)
                        else DictVal(base.lineage | lineage_of(value))
                    )
                return
            if isinstance(base, SeqVal) and type(target.value) is cst.Name:
                # `rep[0] = nn.ReLU(inplace=False)`: that item of the list is replaced
                # (segmentation_models_pytorch's Xception block); any other index: unknown
                index = _int_index(target)
                items = list(base.items)
                # `laterals[i - 1] += up`: the item updated in place goes back into its slot
                same = next(
                    (
                        i
                        for i, item in enumerate(items)
                        if isinstance(value, TensorVal)
                        and isinstance(item, TensorVal)
                        and item.storage == value.storage
                    ),
                    None,
                )
                if index is not None and -len(items) <= index < len(items):
                    items[index] = value
                    state.env[target.value.value] = SeqVal(tuple(items))
                elif same is not None:
                    items[same] = value
                    state.env[target.value.value] = SeqVal(tuple(items), base.lineage)
                else:
                    state.env[target.value.value] = UNKNOWN
                return
            self._subscript_write(base, target, state, node, value, augmented=False)
            return
        if isinstance(target, cst.StarredElement):
            self.bind(target.value, UNKNOWN, state, node)

    def _parameter_assign(
        self, target: cst.Attribute, path: str, value: TensorVal, state: State, node
    ) -> None:
        """`self.w = self.w * mask`: a module's ``__setattr__`` (torch and Paddle alike) raises
        TypeError when a registered parameter's name is given a tensor that is not a Parameter
        (IPL014). Only where the owner is surely a module and the name surely a parameter; the
        rule leaves out files that could bypass ``__setattr__`` or reparametrise."""
        owner = target.value
        if type(owner) is cst.Name and owner.value == "self":
            cls = self.info.cls
            if cls is None or cls.module_fw is None:
                return
        owner_path = dotted_name(owner)
        if owner_path is None:
            return
        module = state.env.get(owner_path)
        if module is None and type(owner) is cst.Attribute:
            module = self.eval(owner, state)  # `net.fc` of a local `net = Net()`
        if not isinstance(module, ModuleVal):
            return
        held = state.env.get(path)
        if held is None and LAYER_PARAMETER.fullmatch(target.attr.value):
            # a layer's own `weight` (`class MaskedConv(nn.Conv2d)`), a submodule's
            held = self._module_attribute(module, target.attr.value, path)
        if not (isinstance(held, TensorVal) and held.parameter):
            return
        if not value.known or held.via_data or not self._makes_plain_tensor(node, state):
            return
        self._parameter_rebind(node, target, held)

    def _parameter_rebind(self, node, target, held: TensorVal, graph_gained: bool = False) -> None:
        """IPL014's event: the assignment ``node`` stores back into the parameter ``held``
        (under the current option, if any)."""
        self.result.rebinds.append(
            Rebind(
                node,
                _code(self, target),
                held,
                True,
                self.info.key,
                assign=True,
                condition=self.conditions[-1] if self.conditions else None,
                graph_gained=graph_gained,
            )
        )

    def _makes_plain_tensor(self, node, state: State) -> bool:
        """The assigned expression surely builds a tensor that is not a Parameter: an operator, a
        framework function, or a tensor method that never returns its receiver itself. Not an
        argument (tied weights are passed in as Parameters), a local helper's result
        (`self._resize_bias(...)` returns `nn.Parameter(...)`: transformers' LXMERT), nor a
        conversion such as `.float()`, which returns the Parameter itself when nothing changes
        (fairseq's `Fp32BatchNorm`). Read from the text; only a plain name or attribute is
        evaluated (again): a call is never run twice."""
        expr = getattr(node, "value", None)
        while True:
            kind = type(expr)
            if kind is cst.BinaryOperation or kind is cst.UnaryOperation:
                return True
            if kind is not cst.Call:
                return False
            qual = self.imports.resolve(expr.func)
            if qual is not None:
                return (
                    qual.startswith(("torch.", "paddle."))
                    and qual not in kb.PARAMETER_CLASSES
                    and qual not in kb.PADDLE_CREATE_PARAMETER
                )
            func = expr.func
            if type(func) is not cst.Attribute or func.attr.value in _SELF_RETURNING_METHODS:
                return False
            expr = func.value  # `(a - b).sqrt().clamp(...)`: what the method is called on
            if type(expr) in (cst.Name, cst.Attribute):
                return isinstance(self.eval(expr, state), TensorVal)

    def _set_grad_flag(self, target: cst.Attribute, value: Value, state: State, node) -> None:
        """`x.requires_grad = True` / `x.stop_gradient = False` make a leaf that requires grad."""
        path = dotted_name(target.value)
        base = state.env.get(path) if path else None
        if base is None and path:
            base = self.eval(target.value, state)
        flag = _literal(node.value) if isinstance(node, cst.Assign) else _NOT_LITERAL
        if flag is _NOT_LITERAL and isinstance(value, ConstVal) and isinstance(value.value, bool):
            flag = value.value  # `param.requires_grad = requires_grad`, given False by the caller
        if not isinstance(base, TensorVal) or flag is _NOT_LITERAL:
            return
        # (Paddle's `p.trainable = False` sets `stop_gradient`: measured under paddle 3.3.1)
        requires = flag is True if target.attr.value != "stop_gradient" else flag is False
        if not requires:
            self._freeze_looped_parameters(base, state)
            self._freeze_layer_parameter(path, state)
        state.env[path] = replace(base, requires_grad=requires, leaf=requires and base.known)

    def _freeze_layer_parameter(self, path: str, state: State) -> None:
        """`head.weight.requires_grad_(False)` (or `= False`) on a framework layer held at
        `head`: that layer's call saves what it saves when its weight needs no gradient
        (``ModuleVal.frozen_parameters``)."""
        owner, _, name = path.rpartition(".")
        if not owner or name not in ("weight", "bias"):
            return
        held = state.env.get(owner)
        if isinstance(held, ModuleVal) and held.facts is not None:
            state.env[owner] = replace(
                held, frozen_parameters=held.frozen_parameters | frozenset({name})
            )

    def _freeze_looped_parameters(self, tensor: TensorVal, state: State) -> None:
        """`for p in ema.parameters(): p.detach_()` (or `p.requires_grad_(False)`, `p.requires_grad
        = False`): every parameter of that module stops requiring grad, as with
        `ema.requires_grad_(False)`."""
        if tensor.producer != PARAMETER_LOOP_PRODUCER or not isinstance(tensor.storage, str):
            return
        found = False
        if tensor.storage in self.module_arguments:
            # a caller's module, frozen here (CycleGAN's `set_requires_grad(netD, False)`)
            self.result.summary.frozen_module_arguments.add(tensor.storage)
        for path, value in list(state.env.items()):
            if isinstance(value, ModuleVal) and value.params_storage_key == tensor.storage:
                state.env[path] = replace(value, frozen=True)
                found = True
        name = tensor.storage.split(":", 1)[1]
        if not found and name in state.env:  # `ema = copy.deepcopy(model)` of an unknown class
            state.env[name] = ModuleVal(name, fw=tensor.fw, uid=new_module_uid(), frozen=True)

    def _drop_attribute_paths(self, prefix: str, state: State) -> None:
        dotted = prefix + "."
        for key in [k for k in state.env if k.startswith(dotted)]:
            del state.env[key]

    def _subscript_write(
        self,
        base: Value,
        target: cst.Subscript,
        state: State,
        node: cst.CSTNode,
        value: Value,
        augmented: bool,
    ) -> None:
        how = "aug-setitem" if augmented else "setitem"
        if isinstance(base, TensorVal) and (
            _keyed_by_string(target)
            or self._string_valued_key(target, state)
            or (
                type(node) is cst.Assign
                and (_never_an_item(node.value) or self._may_be_a_container(base, target, state))
            )
        ):
            # `d["key"] = v`: a mapping; `slicer[dim] = slice(0, n)`: a list (no tensor holds
            # a slice or a string); `feats[j] = F.normalize(feats[j])`: maybe a list
            self._not_a_tensor(target, state)
        elif isinstance(base, TensorVal):
            # (`x[:] = v` is `x.__setitem__`: torch reports the leaf; `x[:] += v` updates the
            # view `x[:]` in place and stores it back: a view of the leaf, recall37)
            full = _is_full_slice(target) and not augmented
            tensor = base
            if not full and not base.via_data:
                tensor = replace(
                    base,
                    view="view" if base.view is None else base.view,
                    view_of_leaf=base.leaf or base.view_of_leaf,
                )
            # `tokens[i] = self.fc(tokens[i])` on an argument used only as a list could be (VAND's
            # LinearLayer is given a list): what this function saved of it is not held against
            # the write; callers replay the write on what they pass (a tensor, or not)
            maybe_list = (
                type(node) is cst.Assign
                and base.storage in self.param_storages
                and self._used_as_container(target, state)
            )
            self.record_write(
                state,
                tensor,
                how,
                node,
                target.value,
                full_slice=full,
                op_text=_code(self, node),
                local_saves=not maybe_list,
                operand_rg=value.requires_grad if isinstance(value, TensorVal) else None,
            )
            self._absorb(base.storage, value, state)
        elif isinstance(base, ArrayVal):
            self._numpy_write(base, state, node, target.value)
        elif (
            isinstance(base, ConstVal)
            and base.value is None
            and self.info.cls is not None
            and (path := dotted_name(target.value)) is not None
            and path.startswith("self.")
            and path.count(".") == 1
        ):
            self._declared_none_buffer_write(path, how, node, target.value, state)

    def _declared_none_buffer_write(self, path: str, how: str, node, target, state: State) -> None:
        """`self.hidden[done] = 0.0` in a method, where `__init__` left `self.hidden = None` and
        another method fills it (`init_hidden`, a rollout): a call of this method on an instance
        whose field a caller knows to hold a saved tensor writes that tensor
        (``FunctionSummary.self_buffer_writes``, replayed by the caller). Here, where the
        attribute is None, nothing is written: the write is kept for callers only."""
        placeholder = TensorVal(fw=self.fw, storage=new_id(), known=False, producer=f"`{path}`")
        count = len(self.result.writes)
        self.record_write(state, placeholder, how, node, target, op_text=_code(self, node))
        del self.result.writes[count:]
        state.saves.pop(placeholder.storage, None)

    def _string_valued_key(self, target: cst.Subscript, state: State) -> bool:
        """`data[FEAT] = x` with a name or attribute key that holds a string (`FEAT = "feat"`
        at module level): no tensor takes a string key."""
        key = _lookup_key(target)
        return key is not None and _holds_string(self.eval(key, state))

    def _may_be_a_container(self, base: TensorVal, target: cst.Subscript, state: State) -> bool:
        """`s_feat[j] = F.normalize(s_feat[j], axis=1)` (PaddleSeg's STFPM): an item of a name
        replaced by one plain key, where the name's tensor-ness was only assumed (what a module
        or function we cannot see returned: backbones return lists of feature maps) and nothing
        in the function uses the name as only a tensor can be used (an attribute other than a
        list's or a dict's, an operator, a tuple or `...` key, a framework function given it).
        A list or a dict takes such a write without any tensor being written, so no finding can
        be promised. Not for arguments: a helper's `a[0] = 0` is replayed on what its callers
        pass, which the callers know (docs/analysis.md, session 13); but for the items unpacked
        from one (`s_feat, t_feat = inputs`), which no caller's replay reaches, and for a module
        forward's own arguments, which its callers hand on unknown (mmocr ABCNet's BiFPN layer
        given a list of feature maps: `pathtd[i - 1] = swish(pathtd[i - 1])`, prec42)."""
        if (
            base.known
            and base.storage not in self.unpacked_items
            and not (
                self.is_forward_like and self._may_be_a_sequence(base) and _neighbour_index(target)
            )
        ):
            return False
        return self._used_as_container(target, state)

    def _used_as_container(self, target: cst.Subscript, state: State) -> bool:
        """`X[k] = v` with one plain key, in a function that uses the name `X` only as a list or a
        dict could be used too (``_may_be_a_container``)."""
        name = target.value
        if type(name) is not cst.Name:
            return False
        if len(target.slice) != 1 or type(target.slice[0].slice) is not cst.Index:
            return False
        key = target.slice[0].slice.value
        if type(key) is cst.UnaryOperation and type(key.operator) is cst.Minus:
            key = key.expression  # `blocks[-1] = ...`
        key = _neighbour_name(key) or key  # `feats[i - 1] = ...`: as `feats[i]`
        if type(key) is cst.Integer:
            pass
        elif type(key) is cst.Name and key.value not in ("None", "Ellipsis"):
            if isinstance(state.env.get(key.value), TensorVal):
                return False  # `x[mask] = 0`, `x[idx] = v`: an index tensor
        elif type(key) is cst.Attribute and dotted_name(key) is not None:
            # `data[AtomicDataDict.EDGE_INDEX_KEY] = ...` (nequip's dict of graph fields),
            # `data[self.out_field] = ...`: a constant or a setting, unless it holds a tensor
            if key.attr.value == "newaxis" or isinstance(self.eval(key, state), TensorVal):
                return False
        else:
            return False
        used = self._tensor_names.get(name.value)
        if used is None:
            used = _used_as_tensor(self.info.node.body, name.value, self.imports)
            self._tensor_names[name.value] = used  # (a loop's body is run more than once)
        return not used

    def _not_a_tensor(self, expr: cst.Subscript, state: State) -> None:
        """A tensor cannot be indexed by a string (`TypeError`): the name indexed so is a mapping
        (a `dict` of features, a `ModelOutput`), whatever the analysis assumed of it."""
        if type(expr.value) is cst.Name and isinstance(state.env.get(expr.value.value), TensorVal):
            state.env[expr.value.value] = UNKNOWN

    def _absorb(self, storage: object, value: Value, state: State) -> None:
        """After `x[i] = v`, everything aliasing x carries v's graph (and grad) too."""
        lineage = lineage_of(value)
        requires = (
            isinstance(value, TensorVal) and value.requires_grad is True and state.grad_enabled
        )
        if not lineage and not requires:
            return
        for key, held in list(state.env.items()):
            new = _absorbed(held, storage, lineage, requires)
            if new is not held:
                state.env[key] = new

    def _numpy_write(self, array: ArrayVal, state: State, node: cst.CSTNode, target) -> None:
        tensor = TensorVal(
            fw="torch",
            storage=array.storage,
            requires_grad=False,
            numpy_shared=True,
            producer="numpy",
        )
        # `t.numpy()[...] = v` writes through the tensor itself (like `.data`); a numpy name bound
        # elsewhere (`a = t.numpy()`, `torch.from_numpy(a)`) is shared memory (IPL108)
        how = "numpy-inline" if isinstance(target, cst.Call) else "numpy"
        self.record_write(state, tensor, how, node, target, bumps=False, op_text=_code(self, node))

    def _numpy_out(self, keywords: dict[str, Value], call: cst.Call, state: State) -> None:
        """`np.clip(a, 0, 1, out=a)` and the like: numpy writes its result into `out`; an array
        sharing memory with a tensor is written in place (IPL108 when a save sees it)."""
        out = keywords.get("out")
        if isinstance(out, ArrayVal):
            self._numpy_write(out, state, call, _arg_expr(call, (), "out"))

    def exec_augassign(self, node: cst.AugAssign, state: State) -> None:
        op = _aug_operator(node.operator)
        rhs = self.eval(node.value, state)
        target = node.target
        if isinstance(target, cst.Subscript):
            base = self.eval(target.value, state)
            if isinstance(base, (TensorVal, ArrayVal)):
                self._subscript_write(base, target, state, node, rhs, augmented=True)
                return
            current = _list_item(base, target, state)
            if isinstance(base, DictVal) and isinstance(
                held := base.get(_dict_index(target)), TensorVal
            ):
                current = held  # `blocks[(0, 0)] *= s`: the tensor under that key, in place
            if current is None:
                return
        else:
            current = self.eval(target, state)
        if op == "+" and type(node.value) in (cst.List, cst.Tuple, cst.ListComp):
            # `outputs += [y]` / `acc += (x,)`: a tensor raises TypeError on these, so the
            # target is a list or tuple, whatever the analysis assumed of it
            items = current.items if isinstance(current, SeqVal) else ()
            extra = rhs.items if isinstance(rhs, SeqVal) else (UNKNOWN,)
            self.bind(target, SeqVal(tuple(items) + tuple(extra)), state, node)
            return
        if isinstance(current, SeqVal) and isinstance(rhs, SeqVal) and op == "+":
            # `layers += [nn.Linear(...), nn.Tanh()]`: a list being built
            self.bind(
                target,
                SeqVal(current.items + rhs.items, current.lineage | rhs.lineage),
                state,
                node,
            )
            return
        if isinstance(current, SeqVal) and isinstance(rhs, ParamsVal) and op == "+":
            # `params = []; params += list(G.parameters())` (MonoLayout's parameters_to_train,
            # handed to the optimizer): a list of those parameter groups
            self.bind(target, SeqVal(current.items + (rhs,), current.lineage), state, node)
            return
        if isinstance(current, ArrayVal):
            self._numpy_write(current, state, node, target)
            return
        if not isinstance(current, TensorVal):
            if isinstance(rhs, TensorVal) and isinstance(target, (cst.Name, cst.Attribute)):
                # `acc += t` with an unknown `acc`: the result is a tensor from here on
                self.bind(target, self._binary_result(current, rhs, op, node, state), state, node)
            elif isinstance(current, ConstVal) and isinstance(target, (cst.Name, cst.Attribute)):
                self.bind(target, UNKNOWN, state, node)  # `n += 1`: no longer the literal
            return
        if current.fw == "paddle" or (op == "@"):
            # Paddle tensors have no __iadd__: the name is rebound. `@=` is not in place in torch.
            # `w.data *= s` goes through the `data` setter, which writes the new value into `w`
            # (measured under paddle 3.3): an update, not a rebinding
            data_setter = type(target) is cst.Attribute and target.attr.value == "data"
            passed_on = type(target) is cst.Name and self._passed_on_after(target.value)
            if current.fw == "paddle" and not data_setter and not passed_on:
                on_attr = isinstance(target, cst.Attribute) and dotted_name(target.value) == "self"
                update = not state.grad_enabled or _reads_gradient(node.value)
                self.result.rebinds.append(
                    Rebind(node, _code(self, target), current, on_attr, self.info.key, update)
                )
            self.bind(target, self._binary_result(current, rhs, op, node, state), state, node)
            return
        if (
            type(target) is cst.Attribute
            and current.parameter
            and current.requires_grad is False
            and not current.via_data
            and state.grad_enabled
            and type(rhs) is TensorVal
            and rhs.requires_grad is True
            and isinstance(self.eval(target.value, state), ModuleVal)
        ):
            # `self.weight += self.delta` (a LoRA merge without `no_grad`) on a frozen weight:
            # the in-place add runs, then the module's `__setattr__` refuses the parameter that
            # now has a graph (lookalike33)
            self._parameter_rebind(node, target, current, graph_gained=True)
        facts = kb.binary_operator(current.fw, op, augmented=True)
        self.apply_op(
            facts,
            [current, rhs],
            {},
            node,
            state,
            op_text=_code(self, node),
            how="augassign",
            target_expr=target,
        )

    # ---------------------------------------------------------------- expressions
    def eval(self, expr: cst.BaseExpression | None, state: State) -> Value:
        if expr is None:
            return UNKNOWN
        # Dispatch on the exact class: libcst's node classes are final, and `isinstance` against
        # them goes through ABCMeta for every class that does not match (see test_engine.py).
        kind = type(expr)
        if kind is cst.Name:
            return self.eval_name(expr, state)
        if kind is cst.Integer or kind is cst.Float:
            return ConstVal(_number(expr))
        if kind is cst.SimpleString:
            value = _literal(expr)
            return ConstVal(value) if isinstance(value, str) else UNKNOWN
        if kind is cst.Attribute:
            return self.eval_attribute(expr, state)
        if kind is cst.Call:
            return self.eval_call(expr, state)
        if kind is cst.Lambda:
            # `self.norm = lambda x: x` (SPARNet's NormLayer without a norm): hands its
            # argument back, the same tensor
            params = expr.params
            if (
                len(params.params) == 1
                and not params.posonly_params
                and not params.kwonly_params
                and type(expr.body) is cst.Name
                and expr.body.value == params.params[0].name.value
            ):
                return FrameworkRef(_IDENTITY)
            if self._plain_lambda(expr, state):
                return LambdaVal(expr)
            return UNKNOWN
        if kind is cst.BinaryOperation:
            left = self.eval(expr.left, state)
            right = self.eval(expr.right, state)
            if (
                type(expr.operator) is cst.Add
                and _parameter_collection(left)
                and _parameter_collection(right)
            ):
                # `list(D_a.parameters()) + list(D_b.parameters())` handed to an optimizer
                return SeqVal((left, right))
            if type(expr.operator) is cst.Multiply and (
                repeated := _repeated(left, right) or _repeated(right, left)
            ):
                # `[self.anchors[None]] * n`: the same tensors, repeated (neural-motifs' RPN
                # head: `torch.cat` of them is a buffer's copy, which no grad reaches)
                return repeated
            return self._binary_result(left, right, _bin_operator(expr.operator), expr, state)
        if kind is cst.UnaryOperation:
            value = self.eval(expr.expression, state)
            if isinstance(value, ConstVal) and isinstance(expr.operator, cst.Not):
                return ConstVal(not value.value)
            if (
                isinstance(value, ConstVal)
                and type(value.value) in (int, float)
                and isinstance(expr.operator, (cst.Minus, cst.Plus))
            ):  # `-0.5`: a Python number (overload resolution tells pow.Tensor_Scalar by it)
                return ConstVal(
                    -value.value if isinstance(expr.operator, cst.Minus) else value.value
                )
            if isinstance(value, TensorVal):
                text = f"`{_code(self, expr.operator).strip()}{_operand_text(expr.expression)}`"
                return self._fresh_from([value], expr, state, text)
            return value if isinstance(value, Unknown) else UNKNOWN
        if kind is cst.Subscript:
            return self.eval_subscript(expr, state)
        if kind is cst.Tuple or kind is cst.List:
            items = tuple(self.eval(e.value, state) for e in expr.elements)
            return SeqVal(
                items, frozenset().union(*(lineage_of(i) for i in items)) if items else frozenset()
            )
        if kind is cst.IfExp:
            test = self.eval(expr.test, state)
            if isinstance(test, ConstVal) and isinstance(test.value, _DECIDING_LITERALS):
                taken, other = (expr.body, expr.orelse) if test.value else (expr.orelse, expr.body)
                value = self.eval(taken, state)
                return UNKNOWN if self._sequence_argument(value, other) else value
            a = self.eval(expr.body, state)
            b = self.eval(expr.orelse, state)
            if self._sequence_argument(a, expr.orelse) or self._sequence_argument(b, expr.body):
                return UNKNOWN
            merged = self._either(a, b, state)
            if type(merged) is TensorVal and type(a) is TensorVal and type(b) is TensorVal:
                # `out.cuda() if use_gpu else out`: the leaf when the test fails
                merged = _one_sided_leaf(merged, a, b, lambda: _code(self, expr.test))
            elif type(merged) is ModuleVal and (
                self._in_constructor() or _is_configuration(expr.test, self._optional_parameters())
            ):
                # `nn.Linear(d, d) if use_proj else nn.Identity()`: each under its condition
                merged = _with_alternatives(merged, a, b, lambda: _code(self, expr.test))
            elif _class_reference(a) and _class_reference(b) and a != b:
                # `module_fn = PreXceptionModule if preact else XceptionModule` (timm): either
                # class, built as alternatives under the test (``_call_reference``)
                return FrameworkRef(_EITHER_CLASS, bound=(_code(self, expr.test), a, b))
            return merged
        if kind is cst.BooleanOperation or kind is cst.Comparison:
            values = [self.eval(child, state) for child in _children_exprs(expr)]
            if kind is cst.BooleanOperation and self._sequence_argument(values[0], expr.right):
                return UNKNOWN  # `cache or []`
            if kind is cst.BooleanOperation:
                decided = _short_circuit(type(expr.operator) is cst.And, values)
                if decided is not None:
                    return decided
                first = values[0]
                if (
                    type(expr.operator) is cst.Or
                    and isinstance(first, ConstVal)
                    and (first.value is None or first.value is False)
                ):
                    # `act_layer = act_layer or partial(nn.ReLU, inplace=True)` with the
                    # parameter left at None (lookalike38): the fallback
                    return values[1]
            identity = _identity_test(expr, values) or _equality_test(expr, values)
            if identity is not None:
                return identity
            tensors = [v for v in values if isinstance(v, TensorVal)]
            if kind is cst.Comparison and tensors:
                # a boolean mask: never requires grad, carries no graph
                return TensorVal(
                    fw=tensors[0].fw,
                    storage=new_id(),
                    requires_grad=False,
                    producer=f"`{_code(self, expr)}`",
                    producer_node=expr,
                )
            return UNKNOWN
        if kind is cst.NamedExpr:
            value = self.eval(expr.value, state)
            self.bind(expr.target, value, state, expr)
            return value
        if kind is cst.Await:
            return self.eval(expr.expression, state)
        if kind is cst.Dict and all(_dict_key(e) is not _NOT_LITERAL for e in expr.elements):
            # `blocks = {}`, `{"q": q, "k": k}`: a dict whose entries are followed by key
            items = tuple((_dict_key(e), self.eval(e.value, state)) for e in expr.elements)
            lineage = frozenset().union(*(lineage_of(v) for _, v in items))
            values = [ConstVal(k) for k, _ in items] + [v for _, v in items]
            if _plain_config(expr.elements, values, lineage):
                return ConstVal(CONFIG_DEFAULT)  # `{"type": "ReLU"}`: a config, not None
            return DictVal(lineage, items)
        if kind is cst.Dict or kind is cst.Set:
            lineage = frozenset()
            values = [self.eval(child, state) for child in _children_exprs(expr)]
            for value in values:
                lineage |= lineage_of(value)
            if kind is cst.Dict and _plain_config(expr.elements, values, lineage):
                return ConstVal(CONFIG_DEFAULT)  # `{"type": "ReLU"}`: a config, not None
            return Unknown(lineage)
        if kind in _COMPREHENSIONS:
            return self._eval_comprehension(expr, state)
        return UNKNOWN

    def _lists_escape(self, call: cst.Call, state: State, key: str | None = None) -> None:
        """A list handed to a call the analysis does not follow may be filled there
        (PaddleClas ReXNet's `conv_bn_act(out, ...)` appends to `out`): what it holds is no
        longer known. A local function (``key``) that only reads the list it is given
        (`functional_forward(params, x)` reading `params[0]`, MAML's fast weights) leaves it
        as it was (``ModuleDataflow.reads_only``)."""
        names = None
        for position, arg in enumerate(call.args):
            if type(arg.value) is cst.Name and isinstance(state.env.get(arg.value.value), SeqVal):
                if key is not None and not any(a.star for a in call.args[: position + 1]):
                    if names is None:
                        names = self.flow.parameter_names(key)
                    if arg.keyword is not None:
                        param = arg.keyword.value
                    else:
                        param = names[position] if position < len(names) else None
                    if param is not None and self.flow.reads_only(key, param):
                        continue
                    if param is not None and self.flow.only_appends(key, param):
                        continue  # (grown after the call: ``_append_to_argument``)
                state.env[arg.value.value] = UNKNOWN
            elif type(arg.value) is cst.Name and isinstance(
                held := state.env.get(arg.value.value), DictVal
            ):
                state.env[arg.value.value] = DictVal(held.lineage)  # (its entries may change)

    def _sequence_argument(self, value: Value, other: cst.BaseExpression) -> bool:
        """`cache if cache is not None else []` / `cache or []`: an argument that stands in for a
        list is a list (of tensors): its item writes are list writes (as after `torch.cat(x)`)."""
        return type(other) in (cst.List, cst.Tuple, cst.ListComp) and self._list_argument(value)

    def _list_argument(self, value: Value) -> bool:
        """Record that ``value``, if it is one of the function's arguments, is a list of tensors
        (``sequence_params``: its writes are dropped); whether it was."""
        if isinstance(value, TensorVal) and value.storage in self.param_storages:
            self.sequence_params.add(value.storage)
            return True
        return False

    def _either(self, a: Value, b: Value, state: State) -> Value:
        """`a if c else b`: saved only if both are (an error must hold whichever branch runs)."""
        for module, other in ((a, b), (b, a)):
            if (
                isinstance(module, ModuleVal)
                and isinstance(other, ConstVal)
                and other.value is None
            ):
                # `nn.InstanceNorm2d(c, affine=True) if use_bn else None` (C-3-Framework's
                # BasicConv): a call of it runs that module (the code tests for None first)
                return replace(module, maybe_none=True)
        if (
            (isinstance(a, ConstVal) or isinstance(b, ConstVal))
            and a != b
            and not isinstance(a, TensorVal)
            and not isinstance(b, TensorVal)
        ):
            return UNKNOWN  # `start_with_relu if i == 0 else True`: either value
        either = either_module([a, b])
        if either is not None:
            return either
        for module, other in ((a, b), (b, a)):
            if isinstance(module, ModuleVal) and type(other) is Unknown:
                # `act_factory() if act_factory is not None else nn.Identity()` with the factory
                # not known: either that module or something unknown (lookalike44: the Identity
                # taken for sure handed a chunk view on to an in-place write)
                return ModuleVal(
                    path=module.path,
                    fw=module.fw,
                    has_parameters=module.has_parameters,
                    uid=f"either:{module.key_root}|?",
                )
        if (
            a is b
            or not isinstance(a, TensorVal)
            or not isinstance(b, TensorVal)
            or a.storage == b.storage
        ):
            return a if isinstance(a, TensorVal) or a is b else b
        merged = replace(
            a,
            storage=new_id(),
            lineage=a.lineage | b.lineage,
            known=a.known and b.known,
            requires_grad=tri_or([a.requires_grad, b.requires_grad]),
            leaf=a.leaf and b.leaf,
            view_of_leaf=a.view_of_leaf and b.view_of_leaf,
        )
        if state.saves.get(a.storage) and state.saves.get(b.storage):
            for save in state.saves[a.storage] + state.saves[b.storage]:
                state.add_save(merged.storage, save)
        return merged

    def _eval_comprehension(self, expr, state: State) -> Value:
        inner = state.copy()
        clause = expr.for_in
        element = getattr(expr, "elt", None)
        if element is not None and clause.inner_for_in is None and not clause.ifs:
            iterable = self.eval(clause.iter, inner)
            if (
                isinstance(iterable, SeqVal)
                and 1 < len(iterable.items) <= _ITEMWISE_COMPREHENSION
                and all(isinstance(i, TensorVal) for i in iterable.items)
            ):
                # `q, k, v = (z.reshape(...) for z in (q, k, v))`: one value per item, in order
                values = []
                for item in iterable.items:
                    self.bind(clause.target, item, inner, expr)
                    values.append(self.eval(element, inner))
                state.add_saves_of(inner)
                lineage = frozenset().union(*(lineage_of(v) for v in values))
                return SeqVal(tuple(values), lineage)
            item = self._iteration_value(iterable, clause.iter)
            self.bind(clause.target, item, inner, expr)
            clause = clause.inner_for_in
        elif type(expr) is cst.DictComp and clause.inner_for_in is None and not clause.ifs:
            iterable = self.eval(clause.iter, inner)
            if (
                isinstance(iterable, SeqVal)
                and iterable.exact
                and 0 < len(iterable.items) <= _ITEMWISE_COMPREHENSION
            ):
                # `{name: head(x) for name, head in self.heads.items()}`: one entry per item,
                # under its literal key
                entries: dict[str, Value] = {}
                for item in iterable.items:
                    self.bind(clause.target, item, inner, expr)
                    key = self.eval(expr.key, inner)
                    entries[key.value if type(key) is ConstVal else ""] = self.eval(
                        expr.value, inner
                    )
                state.add_saves_of(inner)
                if "" not in entries and all(isinstance(k, str) for k in entries):
                    return _keyword_dict(entries)
                return Unknown(frozenset().union(*(lineage_of(v) for v in entries.values())))
            item = self._iteration_value(iterable, clause.iter)
            self.bind(clause.target, item, inner, expr)
            clause = clause.inner_for_in
        while clause is not None:
            item = self._iteration_value(self.eval(clause.iter, inner), clause.iter)
            self.bind(clause.target, item, inner, expr)
            clause = clause.inner_for_in
        value = self.eval(element, inner) if element is not None else UNKNOWN
        # writes inside the comprehension are recorded; the state it leaves behind is discarded
        state.add_saves_of(inner)
        if isinstance(value, (ModuleVal, TensorVal, OptimizerVal)):
            # (`[Adam(c.parameters()) for c in self.critics]`: one optimizer stands for each)
            return SeqVal((value,), lineage_of(value), uniform=type(expr) is cst.ListComp)
        return Unknown(lineage_of(value))

    def _super_layer_forward(
        self, func: cst.Attribute, state: State
    ) -> tuple[ModuleVal, ModuleVal] | None:
        """`super().forward(x)` in a local subclass of a framework layer (`class
        Conv2d(nn.Conv2d)` whose forward adds a norm after `super().forward(input)`): the layer,
        as this instance, and the instance (the owner of its parameters)."""
        own = state.env.get("self")
        if func.attr.value not in ("forward", "__call__") or not isinstance(own, ModuleVal):
            return None
        found = self._super_bases(func)
        if found is None:
            return None
        _, defining, after = found
        if _calls_own_code(after):
            return None
        base = self.flow.framework_base(defining)
        if base is None:
            return None
        qual, facts = base
        layer = replace(own, qualname=qual, facts=facts, local_class=None, children=())
        return layer, own

    def _super_method(self, func: cst.Attribute) -> str | None:
        """The key of the base method `super().m` / `super(C, self).m` names, with this
        function's class as `self` (an entry made on first use); None when it is not a call
        on `super()` in a method, or the base is not a class of this module."""
        method = func.attr.value
        if method != "__init__":
            return None  # (the prefilter keeps a base's `__init__`, not its other methods)
        found = self._super_bases(func)
        if found is None:
            return None
        cls, _, after = found
        for base in after:
            node = base.methods.get(method)
            if node is None:
                continue
            key = f"{cls.name}.{method}@{base.name}"
            if key not in self.index.functions:
                self.index.functions[key] = FunctionInfo(key, node, cls, inherited_from=base.name)
            return key
        return None

    def _super_bases(self, func: cst.Attribute) -> tuple[ClassInfo, str, list[ClassInfo]] | None:
        """For `super().m` / `super(C, self).m` in a method of a class of this module: that
        class, the class `super()` starts from, and the local classes after it in the lineage
        (where the lookup of `m` goes on); None otherwise."""
        inner = func.value
        if not (type(inner.func) is cst.Name and inner.func.value == "super"):
            return None
        cls = self.info.cls
        if cls is None or "super" in self.index.functions:
            return None
        defining = self.info.inherited_from or cls.name
        if len(inner.args) == 2 and type(inner.args[0].value) is cst.Name:
            defining = inner.args[0].value.value
        elif inner.args:
            return None
        lineage = local_lineage(cls, self.index.classes)
        names = [c.name for c in lineage]
        if defining not in names:
            return None
        return cls, defining, lineage[names.index(defining) + 1 :]

    def _map_lambda(self, function: cst.Lambda, items, state: State) -> Value | None:
        """`q, k, v = map(lambda t: rearrange(t, ...), (q, k, v))` (lucidrains' attention): the
        lambda applied to each item of a short sequence, in order, as the itemwise comprehension
        does; None when it is not that shape."""
        name = _single_parameter(function)
        if name is None:
            return None
        sequence = self.eval(items, state)
        if not (
            isinstance(sequence, SeqVal)
            and 1 <= len(sequence.items) <= _ITEMWISE_COMPREHENSION
            and all(isinstance(i, TensorVal) for i in sequence.items)
        ):
            return None
        before = state.env.get(name)
        values = []
        for item in sequence.items:
            state.env[name] = item
            values.append(self.eval(function.body, state))
        if before is None:
            state.env.pop(name, None)
        else:
            state.env[name] = before
        lineage = frozenset().union(*(lineage_of(v) for v in values))
        return SeqVal(tuple(values), lineage)

    def eval_name(self, expr: cst.Name, state: State) -> Value:
        name = expr.value
        if name in ("True", "False", "None"):
            return ConstVal({"True": True, "False": False, "None": None}[name])
        if name in self.clobbered:
            node, text, *via = self.clobbered.pop(name)
            self.result.reuses.append(
                Reuse(node, name, expr, text, self.info.key, via[0] if via else None)
            )
        if name in self.unread_results:
            self.unread_activations.difference_update(self.unread_results.pop(name))
        value = state.env.get(name)
        if value is not None:
            return value
        qual = self.imports.resolve(expr)
        if qual is not None:
            return FrameworkRef(qual)
        if name in self.index.classes:
            return FrameworkRef(f"<local-class>.{name}")
        if name in self.index.functions:
            return FrameworkRef(f"<local-function>.{name}")
        scope = self.info.key
        while "<locals>" in scope:
            # a helper defined beside this one, in the function that encloses both
            scope = scope.rsplit(".<locals>.", 1)[0]
            key = f"{scope}.<locals>.{name}"
            if key in self.index.functions:
                return FrameworkRef(f"<local-function>.{key}")
        return UNKNOWN

    def _framework_attribute(self, expr, name: str, state: State) -> FrameworkRef | None:
        """`getattr(nn, "ReLU")`, `getattr(nn, activation)` with `activation` a known string
        (``expr`` is `nn`, ``name`` the string): the framework's `nn.ReLU` (fepegar/unet's
        `getattr(nn, activation)()`, recall42)."""
        if not name.isidentifier():
            return None
        base = self.eval(expr, state)
        if not isinstance(base, FrameworkRef) or base.qualname.startswith("<") or base.bound:
            return None
        if base.qualname.split(".", 1)[0] not in ("torch", "paddle"):
            return None
        return FrameworkRef(f"{base.qualname}.{name}")

    def _eval_receiver(self, expr, attr: str, state: State) -> Value:
        """The value whose attribute `attr` is read. `x.size(0)` after `out = F.relu(x,
        inplace=True)` reads the shape, which the write did not change (gpytorch's DenseNet
        `out.view(features.size(0), -1)`): no reuse of the overwritten name (IPL102)."""
        if (
            (attr in _NOT_VALUE_READS or attr in _METADATA_FACTORIES)
            and type(expr) is cst.Name
            and expr.value in self.clobbered
        ):
            kept = self.clobbered.pop(expr.value)
            value = self.eval(expr, state)
            self.clobbered[expr.value] = kept
            return value
        return self.eval(expr, state)

    def eval_attribute(self, expr: cst.Attribute, state: State) -> Value:
        path = dotted_name(expr)
        if path is not None and path in state.env:
            return state.env[path]
        if (
            self._prelude_pending
            and path is not None
            and path.count(".") == 1
            and path.startswith("self.")
            and path[5:] in self.flow.forward_attributes(self.cls)
        ):
            self._forward_prelude(state)
            if path in state.env:
                return state.env[path]
        if path == "self.training" and self.cls is not None and self.cls.is_module:
            # Backward runs in training mode: the eval-mode paths of a module (`if not
            # self.training: x += bias`, VAE's `std.add_(mu)` at inference) are not where a
            # saved tensor meets its backward
            return ConstVal(True)
        qual = self.imports.resolve(expr)
        if qual is not None:
            return FrameworkRef(qual)
        attr = expr.attr.value
        base = self._eval_receiver(expr.value, attr, state)
        if type(base) is SeqVal and attr in base.fields and len(base.fields) == len(base.items):
            return base.items[base.fields.index(attr)]  # `out.std` of a namedtuple built here
        if type(base) is DictVal and (entry := base.get(attr)) is not None:
            # a field of a dataclass (or a model output) built here or returned by a call
            # (`out.probs`): its value, as `out["probs"]`
            return entry
        if (
            attr == "apply"
            and isinstance(base, FrameworkRef)
            and base.qualname.startswith("<local-class>.")
        ):
            # `sparsemax = SparsemaxFunction.apply`: calls through the alias are its applies
            return FrameworkRef("<local-apply>." + base.qualname.split(".", 1)[1])
        if isinstance(base, TensorVal):
            if attr == "data":
                return replace(
                    base,
                    via_data=True,
                    requires_grad=False,
                    leaf=False,
                    view_of_leaf=False,
                    view=None,
                )
            if attr == "grad":
                # Paddle 3.3 (measured, docs/paddle.md): a tensor's `.grad` is itself a leaf
                # with `stop_gradient=False`, so `p.grad.scale_(...)` outside `paddle.no_grad()`
                # raises the leaf error; torch's `.grad` never requires grad
                trainable = base.fw == "paddle"
                return TensorVal(
                    fw=base.fw,
                    storage=f"grad:{base.storage}",
                    requires_grad=trainable,
                    leaf=trainable,
                    producer=f"`{_code(self, expr)}`",
                )
            if attr in kb.VIEW_ATTRIBUTES:
                return self._view_of(
                    base, expr, state, f"`.{attr}`", permutes=attr in _PERMUTING_VIEWS
                )
            if base.nondiff_outputs and attr in ("values", "indices"):
                return output_at(base, 0 if attr == "values" else 1)
            if not base.known and attr not in _GRAPHLESS_ATTRIBUTES:
                # a field of what a call we know nothing about computed (`critic(obs, a).q` of
                # a forward returning `AttrDict(q=...)`, a model's `out.logits`): as for an
                # entry read by a string key, the value has that call's graph
                return Unknown(base.lineage)
            return UNKNOWN
        if isinstance(base, ModuleVal):
            field_key = _instance_field_key(base, attr)
            if field_key in state.env:
                return state.env[field_key]
            return self._module_attribute(base, attr, path)
        if isinstance(base, OptimizerVal) and attr == "param_groups":
            return SeqVal((ParamsVal(base.modules[0] if base.modules else None, fw=base.fw),))
        return UNKNOWN

    def _module_attribute(self, module: ModuleVal, attr: str, path: str | None) -> Value:
        if (module.key_root, attr) in self.flow.parametrized:
            # computed by the parametrization at each read (`orthogonal`, `weight_norm`, a
            # `register_parametrization`): a fresh tensor with a graph, not a leaf
            return TensorVal(
                fw=module.fw,
                storage=new_id(),
                requires_grad=True,
                producer=f"the parametrized `{path or attr}`",
            )
        if module.local_class and module.path != "self":
            cls = self.index.classes.get(module.local_class)
            declared = (
                self.flow.init_attributes(cls, module.init_entry).get(f"self.{attr}")
                if cls
                else None
            )
            if isinstance(declared, TensorVal):
                # what `__init__` made it: a parameter (leaf) or a buffer, seen from outside
                storage = (
                    module.params_storage_key
                    if declared.parameter
                    else f"buffer:{module.key_root}.{attr}"
                )
                return replace(
                    declared,
                    storage=storage,
                    param_of=module.path if declared.parameter else None,
                    lineage=frozenset(),
                    attr=attr if declared.parameter else None,
                    attr_by=module.node if declared.parameter else None,
                    owner_attr=module.owner_attr if declared.parameter else None,
                    owner_by=module.owner_by if declared.parameter else None,
                )
            if isinstance(declared, ModuleVal):
                # a submodule seen from outside: its parameters are the owner's parameters
                # (`net.enc.conv`: its path under the outermost instance, `enc.conv`)
                outermost = module.owner_attr is not None
                return replace(
                    declared,
                    uid=module.key_root,
                    path=path or declared.path,
                    frozen=declared.frozen or module.frozen,
                    params_unknown=declared.params_unknown or module.params_unknown,
                    owner_attr=f"{module.owner_attr}.{attr}" if outermost else attr,
                    owner_by=module.owner_by if outermost else module.node,
                )
            if not (
                declared is None
                and (
                    attr == "module"  # (below: what `nn.DataParallel` wrapped)
                    or attr in ("weight", "bias")
                    and self._inherits_layer_with_parameters(module.local_class)
                )
            ):
                return UNKNOWN
            # (`class StdConv2d(nn.Conv2d)` overriding only `forward`: the layer's weight,
            # TransUNet)
        facts = module.facts
        if _RECURRENT_PARAMETER.fullmatch(attr) and facts is not None and facts.has_parameters:
            # nn.LSTM's `weight_ih_l0`, `bias_hh_l1_reverse`: parameters, like `weight`
            producer = f"the parameter `{path or attr}`"
            return _module_tensor(module, module.params_storage_key, producer)
        if attr in ("weight", "bias") and (module.has_parameters or facts is not None):
            if facts is not None and not getattr(facts, "has_parameters", False):
                return UNKNOWN
            if module.local_class and not self._inherits_layer_with_parameters(module.local_class):
                # `self.weight` that `__init__` does not make, in a class that does not extend a
                # layer with one (`nn.Linear`): a metric state (torchmetrics' `add_state`), a
                # base class's attribute: not known to be a parameter
                return UNKNOWN
            producer = f"the parameter `{path or attr}`"
            tensor = _module_tensor(module, module.params_storage_key, producer)
            if facts is not None and module.node is not None:
                # which of the layer's parameters: its call's save names those it keeps (a
                # Linear's weight, never its bias)
                tensor = replace(
                    tensor,
                    attr=attr,
                    attr_by=module.node,
                    owner_attr=module.owner_attr,
                    owner_by=module.owner_by,
                )
            return tensor
        if attr and attr in module.child_names:
            # `seq.conv` of a container whose children have names: that child, its tensors the
            # container's (as `seq[0]`); `block.rbr_dense.conv.weight` with `rbr_dense` built
            # by RepVGG's `conv_bn` helper
            child = module.children[module.child_names.index(attr)]
            return replace(child, uid=module.key_root, path=path or child.path)
        if attr == "module":
            # `.module` of what `nn.DataParallel` wrapped (_MODULE_WRAPPERS): that module
            return module
        if attr in _RUNNING_STAT_ATTRIBUTES:
            return TensorVal(
                fw=module.fw,
                storage=f"buffer:{module.key_root}.{attr}",
                requires_grad=False,
                producer=f"the buffer `{path or attr}`",
            )
        return UNKNOWN

    def _inherits_layer_with_parameters(self, class_name: str) -> bool:
        """The class extends, through local classes, a framework layer other than the plain
        containers (`class MyConv(nn.Conv2d)`), whose `weight` and `bias` are parameters."""
        seen: set[str] = set()
        todo = [class_name]
        while todo:
            cls = self.index.classes.get(todo.pop())
            if cls is None or cls.name in seen:
                continue
            seen.add(cls.name)
            for base in cls.base_names:
                if base.startswith(("torch.nn.", "paddle.nn.")) and base not in _CONTAINER_BASES:
                    return True
                todo.append(base)
        return False

    def eval_subscript(self, expr: cst.Subscript, state: State) -> Value:
        if type(expr.value) is cst.Attribute and dotted_name(expr.value) == "self._modules":
            # `self._modules["gcl_%d" % i](h)` after `self.add_module("gcl_%d" % i, E_GCL(...))`
            # (EGNN): the module registered under that name (any of one kind, for a name built
            # at run time)
            key = _string_index(expr)
            held = state.env.get(f"self.{key}" if key else _ADDED_MODULES)
            if isinstance(held, ModuleVal):
                for element in expr.slice:
                    if isinstance(element.slice, cst.Index):
                        self.eval(element.slice.value, state)
                return held
        base = self.eval(expr.value, state)
        advanced = False
        string_key = False  # `data[FEAT]` with `FEAT = "feat"`: a mapping's entry
        index_tensors: list[TensorVal] = []
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                index_value = self.eval(element.slice.value, state)
                string_key = string_key or _holds_string(index_value)
                if isinstance(index_value, (TensorVal, SeqVal)) or isinstance(
                    element.slice.value, (cst.List, cst.ListComp)
                ):
                    advanced = True
                if isinstance(index_value, TensorVal):
                    index_tensors.append(index_value)
                    if (
                        isinstance(base, TensorVal)
                        and index_value.requires_grad is not False
                        and (path := dotted_name(element.slice.value)) is not None
                        and state.env.get(path) is index_value
                    ):
                        # a tensor that indexes a tensor is an integer or a mask (a float one
                        # raises IndexError): it never requires grad (KPConv's `neighb_inds`
                        # argument, later the `gather` input whose index the analysis took
                        # for saved: prec43)
                        state.env[path] = replace(index_value, requires_grad=False, leaf=False)
        if isinstance(base, TensorVal) and (string_key or _keyed_by_string(expr)):
            self._not_a_tensor(expr, state)  # `features["input_ids"]`: a mapping, not a tensor
            # an entry of what a call computed (`critic(obs, a)["q"]`) has its graph
            return Unknown(base.lineage)
        if isinstance(base, DictVal):
            key = _dict_index(expr)
            if (
                key is _NOT_LITERAL
                and len(expr.slice) == 1
                and type(expr.slice[0].slice) is cst.Index
            ):
                # `activate_name[activate]` with `activate` a known string (a constructor's
                # option, or its default): that entry
                named = self.eval(expr.slice[0].slice.value, state)
                if type(named) is ConstVal and type(named.value) is str:
                    key = named.value
            held = base.get(key) if key is not _NOT_LITERAL else None
            return held if held is not None else Unknown(base.lineage)
        if isinstance(base, ParamsVal) and base.mapping:
            # `params[f"weight_ih_l{layer}"]` of `dict(rnn.named_parameters())`: a parameter
            return _parameter_of(base, f"the parameter `{_code(self, expr)}`")
        if isinstance(base, TensorVal) and base.nondiff_outputs and _int_index(expr) is not None:
            return output_at(
                base, _int_index(expr) % 2 if _int_index(expr) < 0 else _int_index(expr)
            )
        if isinstance(base, TensorVal):
            if advanced:
                op_text = f"`{_code(self, expr)}`"
                result = self._fresh_from([base], expr, state, op_text)
                if index_tensors and base.fw == "torch":
                    self._save_indices(base, index_tensors, result, expr, state, op_text)
                return result
            view = self._view_of(base, expr, state, "indexing")
            return replace(view, strided=True) if _strided_index(expr) else view
        if isinstance(base, SeqVal):
            index = _int_index(expr)
            if index is None and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
                # `h_list[layer]` where `layer` holds a known int (OGB's JK sum)
                held = state.env.get(_name_value(expr.slice[0].slice.value))
                if isinstance(held, ConstVal) and type(held.value) is int:
                    index = held.value
                elif isinstance(held, LoopCounter) and held.first:
                    index = held.start  # (the loop's first pass: `for layer in range(n)`)
            if index is not None and -len(base.items) <= index < len(base.items):
                return base.items[index]
            if index is not None and base.uniform:
                return base.items[0]  # (any item of a comprehension's list: lookalike48)
            if base.items and all(
                isinstance(i, TensorVal) and i.view == "multi" for i in base.items
            ):
                return base.items[0]
            return Unknown(base.lineage)
        if isinstance(base, ArrayVal):
            return base
        if isinstance(base, ParamsVal):
            return base
        if isinstance(base, ModuleVal) and base.children:
            index = _int_index(expr)
            if index is None:
                index = self._constant_index(expr, state)
            key = _string_index(expr) if base.child_names else None
            if index is None and key in base.child_names:
                # `self.heads["box"]` of a ModuleDict built from a dict display
                index = base.child_names.index(key)
            if index is not None and -len(base.children) <= index < len(base.children):
                # `model[1]` of a Sequential: its tensors are the container's
                child = _child_of(base, base.children[index])
                if (
                    (base.qualname or "").rsplit(".", 1)[-1] in _LIST_CONTAINERS
                    and isinstance(child, ModuleVal)
                    and child.uid
                    and index in (0, -len(base.children))
                ):
                    # `self.critics[0]` of a ModuleList, never called whole: that block, as
                    # the first pass of a loop over the list sees it (`[Adam(c.parameters())
                    # for c in self.critics]`: its optimizer, spirl#15)
                    return replace(child, path=f"{base.path}[{index}]")
                return replace(child, uid=base.key_root, path=f"{base.path}[{index}]")
            first = base.children[0]
            if (
                index is None
                and len(expr.slice) == 1
                and type(expr.slice[0].slice) is cst.Index
                and all(
                    c.local_class == first.local_class
                    and c.qualname == first.qualname
                    and c.init_entry == first.init_entry
                    for c in base.children
                )
            ):
                # `encoder.layer[i]` of a ModuleList of one kind of block: whichever it is, it is
                # built that way, and its tensors are the container's
                path = f"{base.path}[{_code(self, expr.slice[0].slice)}]"
                return replace(first, uid=base.key_root, path=path)
        if isinstance(base, Unknown) and expr.value is not None:
            key = _string_index(expr)
            if key == "params":
                return UNKNOWN
        return Unknown(lineage_of(base))

    # ---------------------------------------------------------------- calls
    def eval_call(self, call: cst.Call, state: State) -> Value:
        func = call.func
        if (
            type(func) is cst.Name
            and func.value == "getattr"
            and len(call.args) == 2
            and not any(a.star or a.keyword is not None for a in call.args)
            and "getattr" not in state.env
            and "getattr" not in self.index.functions
        ):
            name = _known_literal(call.args[1].value, state.env)
            if isinstance(name, str):
                named = self._framework_attribute(call.args[0].value, name, state)
                if named is not None:
                    return named
                path = dotted_name(call.args[0].value)
                if path is not None and f"{path}.{name}" in state.env:
                    # `getattr(self, "act")`: the attribute itself, as `self.act` reads it
                    return state.env[f"{path}.{name}"]
        if (
            type(func) is cst.Name
            and func.value == "list"
            and not call.args
            and "list" not in state.env
            and "list" not in self.index.functions
            and self.imports.resolve(func) is None
        ):
            # `rep = list()`, then `rep.append(...)`: the empty list `[]` is (recall37's
            # Xception BlockA, whose `nn.Sequential(*rep)` was opaque)
            return SeqVal(())
        if type(func) is cst.Attribute and type(func.value) in _STRING_LITERALS:
            # `'Epoch {0} | loss {1:.3f}'.format(epoch, loss)`: a string, never a tensor (a log
            # line extended with `s += ...` was an opt-in IPL201: precision30, residual-flows)
            self._args(call, state)
            return UNKNOWN
        if (
            type(func) is cst.Attribute
            and func.attr.value == "state_dict"
            and not call.args
            and not any("state_dict" in c.methods for c in self.index.classes.values())
        ):
            # `model.state_dict()`, an optimizer's: a dict of tensors, never a tensor (`sd[k] =
            # sd[k].cpu()` was an opt-in IPL202 on an unknown `obj`: precision31)
            self.eval(func.value, state)
            return UNKNOWN
        if type(func) is cst.Attribute and type(func.value) is cst.Call:
            key = self._super_method(func)
            if key is not None:
                # `super().__init__(...)`: the base's code, run with this instance as `self`
                # (its `self._init_layers()` runs the override: mmdet's heads)
                return self.call_local_function(key, call, state)
            if (
                func.attr.value == "__init__"
                and self.cls is not None
                and any(
                    b.startswith("torch.") and kb.is_optimizer_class(b) for b in self.cls.base_names
                )
                and self._super_bases(func) is not None
            ):
                # a `torch.optim.Optimizer` subclass given the parameters (SAM): the base makes
                # `self.param_groups` of them, which its own methods then update
                positional, _ = self._args(call, state)
                if positional and isinstance(positional[0], ParamsVal):
                    state.env["self.param_groups"] = SeqVal((positional[0],))
                return UNKNOWN
            if (
                func.attr.value == "__init__"
                and self.cls is not None
                and self.info.node.name.value == "__init__"
                and _sequential_base(self.cls) is not None
                and self._super_bases(func) is not None
                and not any(a.keyword is not None for a in call.args)
            ):
                # `class Block(nn.Sequential): super().__init__(ResidualAdd(...), FeedForward())`
                # (glasses' ViT): the instance applies these children in order
                positional, _ = self._args(call, state)
                items = list(_flatten(SeqVal(tuple(positional))))
                if items and any(isinstance(v, ModuleVal) for v in items):
                    children = tuple(
                        v
                        if isinstance(v, ModuleVal)
                        else ModuleVal("<unknown>", fw=self.fw, uid=new_module_uid())
                        for v in items
                    )
                    self._check_adjacency(children)
                    state.env[_SEQUENTIAL_CHILDREN] = SeqVal(children)
                return UNKNOWN
            layer = self._super_layer_forward(func, state)
            if layer is not None:
                positional, keywords = self._args(call, state)
                return self._apply_module(
                    layer[0],
                    positional,
                    keywords,
                    call,
                    state,
                    f"`{_short(self, func)}`",
                    report_writes=True,
                    owner=layer[1],
                )
        if (
            type(func) is cst.Subscript
            and type(func.value) is cst.Name
            and type(state.env.get(func.value.value)) is DictVal
            and type(picked := self.eval(func, state)) is FrameworkRef
        ):
            # `activate_name[activate](inplace=True)`: a layer class picked from a registry by a
            # known string (YOLOv4-pytorch#247, recall33)
            return self._call_reference(picked, call, state)
        if (
            type(func) is cst.Subscript
            and _int_index(func) is None
            and _string_index(func) is None  # (`self.heads["box"](x)`: that entry, eval_subscript)
            and self._constant_index(func, state) is None
            and dotted_name(func.value) != "self._modules"  # (eval_subscript: EGNN's layers)
        ):
            # `self.m[i](x[i])`: a block of a ModuleList picked by a variable. Its parameters
            # are known (eval_subscript), but what its call saves is not assumed: the same loop
            # usually walks a list of feature maps (`x[i] = self.m[i](x[i])` in YOLO's Detect,
            # RT-DETR's encoder), whose item writes are list writes
            block = (
                _uniform_local_child(self.eval(func.value, state))
                if type(func.value) in (cst.Name, cst.Attribute)
                else None
            )
            if block is None:
                layer = self._uniform_layer_on_local_tensors(func, call, state)
                if layer is not None:
                    return self.call_module(layer, call, state)
                result = self.call_opaque(call, state, func)
                if (
                    isinstance(result, TensorVal)
                    and result.requires_grad is False
                    and state.grad_enabled
                    and self._trainable_children(func.value, state)
                ):
                    # (`x = self.vgg[k](x)` over convolutions and ReLUs, given data: whichever
                    # runs may have weights that require grad; PytorchSSD#72's L2Norm then
                    # saves a tensor that may be in the graph)
                    result = replace(result, requires_grad=None)
                return result
            return self._call_list_block(block, func, call, state)
        if _lambda_builtin(call, "map", state):
            mapped = self._map_lambda(call.args[0].value, call.args[1].value, state)
            if mapped is not None:
                return mapped
        if (
            _lambda_builtin(call, "filter", state)
            and type(call.args[1].value) is cst.Call
            and type(call.args[1].value.func) is cst.Attribute
            and call.args[1].value.func.attr.value == "parameters"
        ):
            # `filter(lambda p: p.requires_grad, G.parameters())` (handed to an optimizer):
            # some of those parameters
            kept = self.eval(call.args[1].value, state)
            return kept if isinstance(kept, ParamsVal) else Unknown(lineage_of(kept))
        if (
            isinstance(func, cst.Name)
            and func.value in ("zip", "enumerate")
            and func.value not in state.env
        ):
            positional, _ = self._args(call, state)
            return ZipVal(
                tuple(positional[:1] if func.value == "enumerate" else positional),
                counter_first=func.value == "enumerate",
            )
        if (
            type(func) is cst.Name
            and func.value == "getattr"
            and "getattr" not in state.env
            and len(call.args) == 2
            and all(a.keyword is None and not a.star for a in call.args)
        ):
            receiver = self.eval(call.args[0].value, state)
            name = _attribute_name(call.args[1].value)
            if isinstance(receiver, ModuleVal) and name is not None:
                # `getattr(self.rnn, f"bias_hh_l{i}")`: that attribute of the module
                base = dotted_name(call.args[0].value)
                return self._module_attribute(receiver, name, f"{base}.{name}" if base else None)
            self.eval(call.args[1].value, state)
            return UNKNOWN
        if _isinstance_call(call, state.env) and _container_types(call.args[1].value):
            # `if not isinstance(nets, list): nets = [nets]` (CycleGAN's set_requires_grad) given
            # a module or a tensor: not a list
            checked = self.eval(call.args[0].value, state)
            if isinstance(checked, (ModuleVal, TensorVal)):
                return ConstVal(False)
            return UNKNOWN
        if _isinstance_call(call, state.env) and not any(a.star or a.keyword for a in call.args):
            # `isinstance(t, np.ndarray)` of a tensor this function made: a class that is never
            # a tensor's (a builtin, numpy's array, a local class on no other base) is not its.
            # A parameter is only taken for a tensor (`if not isinstance(heatmaps, np.ndarray):
            # raise ...`, transformers' ViTPose): there the test stays open, and the branch
            # where it holds no longer knows the parameter for a tensor (``_refine``)
            checked = self.eval(call.args[0].value, state)
            if (
                isinstance(checked, TensorVal)
                and checked.storage not in self.param_storages
                and self.type_test(call.args[1].value, state) == "other"
            ):
                return ConstVal(False)
            if isinstance(checked, ModuleVal) and checked.subtree_kinds is not None:
                # a submodule of a model made only of known layers, tested against layer
                # classes none of them is (``_submodule_kinds``)
                classes = _class_arguments(call.args[1].value)
                if all(self._absent_class(c, checked.subtree_kinds, state) for c in classes):
                    return ConstVal(False)
            return UNKNOWN
        if dotted_name(func) in ("copy.deepcopy", "deepcopy") and call.args:
            positional, _ = self._args(call, state)
            if isinstance(positional[0], ModuleVal):
                return replace(positional[0], uid=new_module_uid(), path="<copy>")
            return self._opaque_result(positional, call, state, "`copy.deepcopy`", known=False)
        qual = self.imports.resolve(func)
        if qual == "itertools.chain":
            # `chain(G.parameters(), E.parameters())` handed to an optimizer (PyTorch-GAN)
            positional, _ = self._args(call, state)
            return SeqVal(tuple(positional))
        if (
            qual == "functools.partial"
            and call.args
            and call.args[0].keyword is None
            and type(call.args[0].value) in (cst.Name, cst.Attribute)
            and not any(a.star for a in call.args)
        ):
            target = self.eval(call.args[0].value, state)
            if isinstance(target, FrameworkRef) and target.qualname.startswith("<local-function>."):
                # `self.gen_grid_fn = partial(gen_sample_grid, grid_offsets=...)` (SA-SSD):
                # calling it calls the function with these arguments first
                positional, keywords = self._args(call, state)
                return replace(
                    target,
                    bound=target.bound + tuple(positional[1:]),
                    bound_keywords=tuple({**dict(target.bound_keywords), **keywords}.items()),
                )
            if (
                isinstance(target, FrameworkRef)
                and not target.qualname.startswith("<")
                and target.partial is None
                and kb.is_module_class(target.qualname)
            ):
                # `act_layer = partial(nn.ReLU, inplace=True)` (torchvision's EfficientNet,
                # timm): calling it builds that layer with these arguments first
                self._args(call, state)
                return replace(target, partial=call)
        if qual == "functools.partial":
            return self.call_opaque(call, state, func)  # (of anything else: not followed)
        if qual is not None:
            return self.call_framework(qual, call, state)
        if isinstance(func, cst.Attribute) and func.attr.value == "__call__":
            self._note_framework_call(func, state)
        if isinstance(func, cst.Attribute):
            stored = state.env.get(dotted_name(func) or "")
            if isinstance(stored, ModuleVal):
                return self.call_module(stored, call, state)
            if isinstance(stored, FrameworkRef):
                # `self.attn_func = F.softmax` in `__init__`, called in `forward`
                return self._call_reference(stored, call, state)
            if isinstance(stored, LambdaVal):
                return self._call_lambda(stored, call, state)
            method = func.attr.value
            receiver_expr = func.value
            receiver = self._eval_receiver(receiver_expr, method, state)
            if not state.grad_enabled and not isinstance(
                receiver, (ModuleVal, OptimizerVal, ParamsVal)
            ):
                self._note_unresolved_calls(method, state)
            return self.call_method(receiver, receiver_expr, method, call, state)
        callee = self.eval(func, state)
        if isinstance(callee, ModuleVal):
            return self.call_module(callee, call, state)
        if isinstance(callee, FrameworkRef):
            return self._call_reference(callee, call, state)
        if isinstance(callee, LambdaVal):
            return self._call_lambda(callee, call, state)
        return self.call_opaque(call, state, func)

    def _plain_lambda(self, expr: cst.Lambda, state: State) -> bool:
        """A lambda with plain positional parameters whose body reads nothing of the scope it is
        written in but module-level classes, functions and imports: its body means the same
        wherever it is called (``LambdaVal``)."""
        params = expr.params
        if (
            params.posonly_params
            or params.kwonly_params
            or isinstance(params.star_arg, cst.Param)
            or params.star_kwarg is not None
            or any(p.default is not None and _literal(p.default) is None for p in params.params)
        ):
            return False
        names = {p.name.value for p in params.params}
        for name in _read_names(expr.body) - names:
            if name in state.env or not (
                name in self.index.classes
                or name in self.index.functions
                or self.imports.resolve(cst.Name(name)) is not None
            ):
                return False
        return True

    def _call_lambda(self, callee: LambdaVal, call: cst.Call, state: State) -> Value:
        """Evaluate the lambda's body with the call's arguments bound to its parameters."""
        positional, keywords = self._args(call, state)
        params = [p.name.value for p in callee.node.params.params]
        if (
            len(positional) > len(params)
            or any(a.star for a in call.args)
            or not set(keywords) <= set(params)
            or self.lambda_depth > _MAX_LAMBDA_DEPTH
        ):
            return self.call_opaque(call, state, call.func)
        bound = {
            p.name.value: ConstVal(_literal(p.default))
            for p in callee.node.params.params
            if p.default is not None
        }
        bound.update(zip(params, positional))
        bound.update(keywords)
        hidden = {name: state.env.get(name) for name in params}
        for name in params:
            state.env[name] = bound.get(name, UNKNOWN)
        self.lambda_depth += 1
        try:
            return self.eval(callee.node.body, state)
        finally:
            self.lambda_depth -= 1
            for name, value in hidden.items():
                if value is None:
                    state.env.pop(name, None)
                else:
                    state.env[name] = value

    def _constant_index(self, expr: cst.Subscript, state: State) -> int | None:
        """`self.lateral_convs[self.fusion_level]` where the attribute holds an int the
        constructor was given (mmdet's FusedSemanticHead): that index."""
        key = _lookup_key(expr)
        if key is None:
            return None
        value = self.eval(key, state)
        if isinstance(value, ConstVal) and type(value.value) is int:
            return value.value
        return None

    def _trainable_children(self, expr, state: State) -> bool:
        """A container module (a lookup) one of whose known children has parameters that are not
        frozen."""
        if type(expr) not in (cst.Name, cst.Attribute):
            return False
        container = self.eval(expr, state)  # a lookup: no effect
        return (
            isinstance(container, ModuleVal)
            and not container.frozen
            and any(
                c.has_parameters or getattr(c.facts, "has_parameters", False)
                for c in container.children
            )
        )

    def _uniform_layer_on_local_tensors(
        self, func: cst.Subscript, call: cst.Call, state: State
    ) -> ModuleVal | None:
        """`layers[i](buffer[:, :offset])` over a ModuleList of one framework layer class (a
        memory-efficient DenseNet's Linears of growing width) called on tensors this function
        made: that layer's call, whichever it is (what it saves does not depend on its sizes).
        None when an argument is not such a tensor (YOLO's `x[i] = self.m[i](x[i])` walks a list
        of feature maps it was given)."""
        if type(func.value) not in (cst.Name, cst.Attribute) or any(a.star for a in call.args):
            return None
        container = self.eval(func.value, state)
        if not isinstance(container, ModuleVal) or not container.children:
            return None
        first = container.children[0]
        if (
            first.facts is None
            or first.local_class
            or not all(
                c.qualname == first.qualname and c.facts == first.facts for c in container.children
            )
        ):
            return None
        for arg in call.args:
            if type(arg.value) not in (cst.Name, cst.Subscript) or "(" in _code(self, arg.value):
                return None  # (read again by the call: only names and plain subscripts)
            value = self.eval(arg.value, state)
            if not isinstance(value, TensorVal) or value.storage in self.param_storages:
                return None
        path = f"{container.path}[{_code(self, func.slice[0].slice)}]"
        return replace(
            first, uid=container.key_root, path=path, frozen=first.frozen or container.frozen
        )

    def _call_list_block(self, block: ModuleVal, func, call: cst.Call, state: State) -> Value:
        """`self.residual_blocks[n]((h, mel, t))` over a list whose blocks are one local class:
        what the block's forward writes into its arguments is replayed here (DiffWave's residual
        block adds to the `h` it unpacks, which `init_conv`'s ReLU saved); the result is opaque,
        as for any block picked by a variable, but for its last op's save of it."""
        positional, keywords = self._args(call, state)
        entry = f"{block.local_class}.forward"
        forward = self.flow.result(entry) if entry in self.index.functions else None
        if forward is not None and block.init_entry:
            forward = self.flow.specialized(entry, (), block.init_entry) or forward
        if forward is not None:
            names = self.flow.parameter_names(entry)
            arguments = list(positional) + [keywords.get(n) for n in names[len(positional) :]]
            op_text = f"`{_short(self, func)}`"
            self._apply_param_writes(forward.summary, arguments, call, state, op_text)
            if forward.summary.returns_saved_output and state.grad_enabled:
                # what every block of the list returns was saved by its last op (mmdet's
                # ConvModule ending in a ReLU: `inter_outs = [self.fpn_convs[i](laterals[i])
                # ...]` then `inter_outs[i + 1] += ...`, mmdetection#9450). Its saves of the
                # arguments stay unknown: the list they are read from may be one of feature maps
                return self._opaque_result(
                    positional + list(keywords.values()),
                    call,
                    state,
                    op_text,
                    known=True,
                    requires_grad=True if block.has_parameters else None,
                    saves_output=True,
                    output_condition=forward.summary.saved_output_condition,
                )
        return self._unknown_call_result(positional + list(keywords.values()), call, state, func)

    def _call_reference(self, callee: FrameworkRef, call: cst.Call, state: State) -> Value:
        """Call what a name or attribute refers to: a framework function, a local class or
        function, a local autograd.Function's `apply`."""
        if callee.qualname.startswith("<local-class>."):
            return self.instantiate_local(callee.qualname.split(".", 1)[1], call, state)
        if callee.qualname.startswith("<local-function>."):
            bound = (
                (callee.bound, dict(callee.bound_keywords))
                if callee.bound or callee.bound_keywords
                else None
            )
            return self.call_local_function(
                callee.qualname.split(".", 1)[1], call, state, bound=bound
            )
        if callee.qualname.startswith("<local-apply>."):
            return self.call_autograd_function(callee.qualname.split(".", 1)[1], call, state)
        if callee.qualname == _IDENTITY:
            positional, _ = self._args(call, state)
            return positional[0] if len(positional) == 1 else UNKNOWN
        if callee.qualname == _EITHER_CLASS:
            test, first, second = callee.bound
            built = [self._call_reference(c, call, state) for c in (first, second)]
            merged = either_module(built)
            if merged is None:
                return built[0] if built[0] == built[1] else UNKNOWN
            return _with_alternatives(merged, built[0], built[1], lambda: test)
        if callee.qualname.startswith(_NAMEDTUPLE):
            # `EncOut(lv, torch.exp(0.5 * lv))`: the tuple of its fields, in order (unpacked as
            # `lv, std = self.enc(x)`, indexed as `out[1]`)
            positional, keywords = self._args(call, state)
            fields = callee.qualname[len(_NAMEDTUPLE) :].split(",")
            if len(positional) > len(fields) or any(a.star for a in call.args):
                return UNKNOWN
            return _fields_tuple(fields, positional, keywords)
        if callee.partial is not None:
            # the layer the partial builds: its own call spelled with the partial's arguments
            # first; the layer's construction site is the `partial(...)` call (where its
            # `inplace=True` is written, and where a fix changes it)
            # (positional arguments before keywords, as Python binds them: `act_layer(c)` of
            # `partial(nn.ReLU, inplace=True)`)
            merged = (*callee.partial.args[1:], *call.args)
            spelled = callee.partial.with_changes(
                func=callee.partial.args[0].value,
                args=(
                    *(a for a in merged if a.keyword is None and not a.star),
                    *(a for a in merged if a.keyword is not None or a.star),
                ),
            )
            built = self.call_framework(callee.qualname, spelled, state)
            return replace(built, node=callee.partial) if isinstance(built, ModuleVal) else built
        return self.call_framework(callee.qualname, call, state)

    def _args(self, call: cst.Call, state: State) -> tuple[list[Value], dict[str, Value]]:
        positional: list[Value] = []
        keywords: dict[str, Value] = {}
        for arg in call.args:
            value = self.eval(arg.value, state)
            if arg.keyword is not None:
                keywords[arg.keyword.value] = value
            elif arg.star == "**":
                continue  # `**kwargs`: names not known
            elif arg.star and isinstance(value, SeqVal):
                positional.extend(value.items)  # `f(*inputs)` of a known list
            elif arg.star and isinstance(value, ModuleVal) and _iterates_children(value):
                positional.extend(value.children)  # `nn.Sequential(*blocks)`
            else:
                if arg.star and arg is not call.args[-1]:
                    # `f(*tensors, depth, W)`: how many positions the star fills is not known
                    # here (``_spread_star``)
                    self.unsized_star[call] = len(positional)
                positional.append(value)
        return positional, keywords

    def _spread_star(self, key: str, call: cst.Call, positional: list) -> list:
        """`self.mpn(*tensors, self.depthG, self.W_a, self.outputAtom)` (Modof, recall28): a
        star of unknown length before other positional arguments. When the callee takes a fixed
        number of positional parameters, none with a default, and the call passes no keyword,
        the star fills what the others leave, and the arguments after it bind to the last
        parameters (each of the star's positions gets its value, as unpacking it would).
        Otherwise the arguments after the star are not bound by position at all."""
        at = self.unsized_star.pop(call, None)
        if at is None:
            return positional
        info = self.index.functions.get(key)
        names = self.flow.parameter_names(key)
        params = info.node.params if info is not None else None
        fixed = (
            params is not None
            and isinstance(params.star_arg, cst.MaybeSentinel)
            and not any(p.default is not None for p in (*params.posonly_params, *params.params))
            and all(a.keyword is None and a.star != "**" for a in call.args)
            and sum(1 for a in call.args if a.star) == 1
        )
        width = len(names) - (len(positional) - 1)
        if not fixed or width < 0:
            return (
                positional[:at] + [UNKNOWN] * (len(names) - at)
                if len(names) > at
                else positional[:at]
            )
        return positional[:at] + [positional[at]] * width + positional[at + 1 :]

    def call_framework(self, qual: str, call: cst.Call, state: State) -> Value:
        if qual in _NEVER_IN_EAGER_MODE:
            # `if torch.jit.is_scripting():` is never taken when Python runs the code, which is
            # where autograd's checks run (mmrazor's LSQ `_load_from_state_dict`, prec38)
            self._args(call, state)
            return ConstVal(False)
        if qual in _NAMEDTUPLE_FACTORIES:
            # `EncOut = namedtuple("EncOut", "lv std")`: calling it makes a tuple of its fields
            self._args(call, state)
            fields = _namedtuple_fields(call)
            return FrameworkRef(f"{_NAMEDTUPLE}{','.join(fields)}") if fields else UNKNOWN
        if qual in _CHECKPOINT_CALLS and state.grad_enabled:
            # `checkpoint(self.fc, h)`: the function's result, whose graph is rebuilt at
            # backward from the inputs it was given: a fresh tensor that requires grad when the
            # inputs or the module's parameters do, saving nothing a later write can break
            # (measured: an in-place write on it runs in both reentrant modes), but what ops
            # after it save of it counts (lookalike43: `torch.sigmoid(z)`, then `add_`)
            positional, keywords = self._args(call, state)
            function, *inputs = positional or [UNKNOWN]
            tensors = [t for v in (*inputs, *keywords.values()) for t in _flatten(v)]
            tensors = [t for t in tensors if isinstance(t, TensorVal)]
            trainable = isinstance(function, ModuleVal) and function.has_parameters
            trainable = trainable and not function.frozen and not function.params_unknown
            rg = tri_or([trainable or None, *(t.requires_grad for t in tensors)])
            return self._opaque_result(
                [*inputs, *keywords.values()],
                call,
                state,
                f"`{_short(self, call.func)}`",
                known=True,
                requires_grad=rg,
                opaque=False,
                tensor_result=True,
            )
        if qual == "einops.rearrange":
            # a reshape and a permute: like `reshape`, a view of its input where it can be
            # (MAE-DFER#15: `rearrange(x[:, 0], ...)` saved by a LayerNorm, then `x[:, 0] = ...`)
            positional, _ = self._args(call, state)
            if positional and isinstance(positional[0], TensorVal):
                text = f"`{_code(self, call)}`"
                if _rearrange_merges_permuted(call):
                    # `b t d -> b (d t)`: a permute, then a reshape that merges swapped axes: a
                    # copy
                    return self._fresh_from([positional[0]], call, state, text)
                return self._view_of(positional[0], call, state, text)
            return self._opaque_result(positional, call, state, "", known=False)
        if qual.startswith("torch._foreach_") and qual.endswith("_") and call.args:
            return self._foreach_write(qual, call, state)
        if qual.startswith("torch.nn.init.") and qual.endswith("_") and call.args:
            # `nn.init.uniform_(w)`: `w.uniform_()` under no_grad (a VQ codebook's dead-code
            # reset between a forward that saved the weight and its backward breaks the save)
            positional, _ = self._args(call, state)
            target = positional[0] if positional else None
            if isinstance(target, TensorVal):
                self.record_write(
                    state,
                    target,
                    "method",
                    call,
                    call.args[0].value,
                    op_text=f"`{_short(self, call.func)}(...)`",
                    grad_override=False,
                )
            return UNKNOWN
        if qual in _PARAMETRIZATIONS:
            positional, _ = self._args(call, state)
            name_expr = _arg_expr(call, _PARAMETRIZATIONS[qual], _PARAMETRIZATIONS[qual][1])
            name = _literal(name_expr) if name_expr is not None else "weight"
            if positional and isinstance(positional[0], ModuleVal) and isinstance(name, str):
                self.flow.parametrized.add((positional[0].key_root, name))
            return positional[0] if positional else UNKNOWN
        if qual == "paddle.assign" and (output := _arg_expr(call, ("x", "output"), "output")):
            return self._paddle_assign_output(call, output, state)
        fw = qual.split(".")[0]
        if qual in kb.NO_GRAD_CONTEXTS:
            self._args(call, state)
            if "inference_mode" in qual:
                # `torch.inference_mode(False)` changes nothing; a mode the code does not spell
                # out is not known to be inference mode
                mode = _inference_mode_literal(call)
                if mode is False:
                    return UNKNOWN
                return GradModeVal(False, inference=mode is True)
            return GradModeVal(False)
        if qual in kb.ENABLE_GRAD_CONTEXTS:
            return GradModeVal(True)
        if qual in kb.AUTOCAST_CONTEXTS:
            self._args(call, state)
            if _literal_kw(call, "enabled", state.env) is False:
                return AutocastVal(on=False)  # full precision, also inside another region
            # (with `enabled=use_amp` it may be off: then the op saves the tensor itself, and
            # taking the region for on can only miss that save, never invent one)
            return AutocastVal()
        if qual in kb.SET_GRAD_ENABLED:
            arg = call.args[0].value if call.args else None
            enabled = _literal(arg)
            return GradModeVal(enabled is not False)
        if qual in _LEGACY_VARIABLE:
            return self._legacy_variable(call, state)
        if qual == "torch.einsum":
            contracted = self._einsum(call, state)
            if contracted is not None:
                return contracted
        if qual in kb.BACKWARD_FUNCTIONS:
            positional, keywords = self._args(call, state)
            roots = positional[:1] + [
                keywords.get("outputs", UNKNOWN),
                keywords.get("tensors", UNKNOWN),
            ]
            lineage = frozenset().union(*(lineage_of(v) for v in roots))
            retain = _retain_requested(call, state.env)
            stepped = self.ran_backward
            if qual == "torch.autograd.grad":
                inputs = positional[1] if len(positional) > 1 else keywords.get("inputs")
            else:  # `torch.autograd.backward(tensors, ..., inputs=...)`
                inputs = keywords.get("inputs")
            self.backward(self._toward_inputs(lineage, inputs), state, retain)
            if qual == "torch.autograd.grad" and state.grad_enabled:
                result = self._grad_result(call, positional, keywords, lineage)
                if isinstance(result, SeqVal):
                    # derivatives for a loss (a PINN residual, a gradient penalty): the function
                    # builds a graph for its caller, it is no training step
                    self.ran_backward = stepped
                return result
            return UNKNOWN
        if qual in kb.FROM_NUMPY:
            if (
                qual != "torch.from_numpy"
                and call.args
                and not call.args[0].star
                and isinstance(call.args[0].value, (cst.Name, cst.Attribute))
                and self._default_float_dtype(call, state)
                and isinstance(given := self.eval(call.args[0].value, state), TensorVal)
            ):
                # `torch.as_tensor(tensor, dtype=torch.float32, device=tensor.device)` given a
                # tensor of that dtype and device returns that very tensor (mmdetection3d's box
                # classes), as `tensor.to(...)` does; another dtype (or one the code does not
                # spell) may make a copy
                self._args(call, state)
                return given
            storage = new_id()
            if call.args and isinstance(call.args[0].value, (cst.Name, cst.Attribute)):
                path = dotted_name(call.args[0].value)
                if path:
                    state.env[path] = ArrayVal(storage)
            return TensorVal(
                fw="torch",
                storage=storage,
                requires_grad=False,
                numpy_shared=True,
                producer=f"`{_code(self, call)}`",
                producer_node=call,
            )
        if qual in kb.BUFFER_CLASSES:
            self._args(call, state)
            return TensorVal(
                fw=fw,
                storage=new_id(),
                requires_grad=False,
                producer=f"`{_code(self, call)}`",
                producer_node=call,
            )
        if qual in kb.MODULE_WRAPPERS:
            positional, keywords = self._args(call, state)
            module = positional[0] if positional else keywords.get("module")
            if isinstance(module, ModuleVal):
                return module  # `weight_norm(nn.Conv1d(...))`: the same module, reparametrised
            return UNKNOWN
        if qual in kb.PARAMETER_CLASSES:
            positional, keywords = self._args(call, state)
            rg = _literal_kw(call, "requires_grad")
            if qual.startswith("paddle"):
                rg = True
            return TensorVal(
                fw=fw,
                storage=new_id(),
                requires_grad=rg is not False,
                leaf=rg is not False,
                parameter=True,
                producer=f"`{_code(self, call)}`",
                producer_node=call,
            )
        if qual in kb.PADDLE_CREATE_PARAMETER:
            return self._paddle_parameter(call, state)
        if kb.is_optimizer_class(qual):
            return self._make_optimizer(call, state, fw)
        if qual in _IDENTITY_CALLS:
            # `torch.jit._unwrap_optional(hidden)`, `torch.jit.annotate(List[Tensor], [])`:
            # TorchScript's markers return their argument itself
            positional, _ = self._args(call, state)
            at = _IDENTITY_CALLS[qual]
            return positional[at] if len(positional) > at else UNKNOWN
        if kb.is_noop_framework_call(qual):
            self._args(call, state)
            return UNKNOWN
        if qual in _LEGACY_CONSTRUCTORS:
            # `torch.Tensor(beam, 1)`, `torch.FloatTensor([0.5])`: a new tensor without grad;
            # given a tensor, the legacy constructor shares its memory
            positional, keywords = self._args(call, state)
            if not keywords and len(positional) == 1 and isinstance(positional[0], TensorVal):
                return positional[0]
            return self._new_leaf(fw, False, call, state)
        if kb.is_constructor(qual):
            self._args(call, state)
            rg = _literal_kw(call, "requires_grad")
            stop = _literal_kw(call, "stop_gradient")
            made = self._new_leaf(fw, rg is True or stop is False, call, state)
            dtype = _constructor_dtype(qual, call, state.env) if fw == "torch" else None
            return replace(made, dtype=dtype) if dtype is not None else made
        if qual in _MODULE_WRAPPERS:
            # `nn.DataParallel(model)`: the wrapped module itself (its parameters, its forward;
            # `.module` is it again), not a new module with parameters of its own (a frozen
            # EMA copy wrapped so, pytorch_GAN_zoo's avgG, was taken for trainable leaves)
            positional, keywords = self._args(call, state)
            wrapped = positional[0] if positional else keywords.get("module")
            return wrapped if isinstance(wrapped, ModuleVal) else UNKNOWN
        keywords = _literal_keywords(call, state.env)
        write_condition = None
        if qual.rsplit(".", 1)[-1].startswith(_DROPOUT_CLASSES):
            rate = keywords.get("p", keywords.get("0", 0.5))
            if rate is kb.UNKNOWN_LITERAL and keywords.get("inplace") is True:
                # in-place dropout writes only when p > 0; with p unknown the error is a
                # configuration away, not a promise (timm's TNT: nn.Dropout(attn_drop, inplace=True)):
                # its writes are conditional (IPL203)
                rate_arg = _arg_expr(call, ("p",), "p")
                default = self._parameter_default(rate_arg)
                if isinstance(default, (int, float)) and not default > 0:
                    # `attn_drop: float = 0.0` (timm's TNT): as built by default, it writes nothing
                    keywords = {**keywords, "inplace": False}
                elif rate_arg is not None:
                    write_condition = f"{_code(self, rate_arg)} > 0"
            elif not (isinstance(rate, (int, float)) and not isinstance(rate, bool) and rate > 0):
                keywords = {**keywords, "inplace": False}
        module_facts = kb.module_class(qual, keywords)
        if module_facts is not None or kb.is_module_class(qual):
            module = self._make_module(qual, module_facts, call, state)
            if write_condition is not None and isinstance(module, ModuleVal):
                module = replace(module, write_condition=write_condition)
            return module
        inplace = _literal_kw(call, "inplace", state.env) is True
        flag = None if inplace else self._inplace_option(call, state)
        inplace = inplace or flag is not None
        facts = kb.function(qual, _keyword_names(call), inplace)
        if (
            not inplace
            and facts is not None
            and _positional_flag(call, facts.params, "inplace", state.env)
        ):
            facts = kb.function(qual, _keyword_names(call), True)  # `F.relu(x, True)`
        positional, keywords = self._args(call, state)
        if qual.rsplit(".", 1)[-1] in _SEQUENCE_JOINS and positional:
            # `torch.cat(x, dim=1)` on the argument itself: `x` was a list of tensors
            # (avalanche's PNN adapter), so its item writes were list writes
            self._list_argument(positional[0])
        if facts is None:
            self._numpy_out(keywords, call, state)  # `np.clip(a, 0, 1, out=a)`
        if (
            facts is not None
            and facts.name.rstrip("_") == qual.rsplit(".", 1)[-1].rstrip("_")
            and not (fw == "torch" and kb.explicit_saves(qual))
        ):
            facts = kb.resolve_overload(fw, facts, _kinds(positional), _keyword_names(call))
        if facts is not None and facts.saves and fw == "torch":
            conditions = kb.saves_nothing_if(qual)
            if conditions and kb.saves_nothing_with(
                conditions,
                {
                    p: _literal(e) if (e := _arg_expr(call, facts.params, p)) is not None else None
                    for p in conditions
                },
            ):
                # `F.adaptive_avg_pool2d(x, 1)`: a mean, which saves nothing (RCAN's `x.mul_(y)`)
                facts = replace(facts, saves={}, saves_output=False)
        if facts is None:
            if fw in ("torch", "paddle") and any(isinstance(v, TensorVal) for v in positional):
                return self._opaque_result(
                    positional + list(keywords.values()),
                    call,
                    state,
                    f"`{_short(self, call.func)}`",
                    known=False,
                )
            return UNKNOWN
        target_expr = None
        if facts.inplace_param:
            target_expr = _arg_expr(call, facts.params, facts.inplace_param)
        if qual == "torch.nn.functional.embedding" and _max_norm_set(call, facts.params):
            # embedding_renorm_ writes the weight first (see _renorm_write)
            weight = positional[1] if len(positional) > 1 else keywords.get("weight")
            if isinstance(weight, TensorVal):
                self.record_write(
                    state,
                    weight,
                    "renorm",
                    call,
                    _arg_expr(call, facts.params, "weight"),
                    op_text=f"`{_short(self, call)}` (`max_norm` renormalises the weight)",
                    grad_override=False,
                )
        if flag is not None:
            self.conditions.append(flag)  # `F.dropout(h, p, inplace=inplace)`: when it holds
        try:
            return self.apply_op(
                facts,
                positional,
                keywords,
                call,
                state,
                op_text=_framework_op_text(self, call, qual),
                how="inplace-kw",
                target_expr=target_expr,
            )
        finally:
            if flag is not None:
                self.conditions.pop()

    def _inplace_option(self, call: cst.Call, state: State) -> str | None:
        """`inplace=inplace` given the function's own parameter defaulting to a literal, whose
        value here is not known: the write happens when the option holds (as under `if
        inplace:`)."""
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "inplace":
                value = arg.value
                if (
                    type(value) is cst.Name
                    and value.value in self._optional_parameters()
                    and not isinstance(state.env.get(value.value), ConstVal)
                ):
                    return value.value
                return None
        return None

    def call_method(
        self, receiver: Value, receiver_expr, method: str, call: cst.Call, state: State
    ) -> Value:
        if (
            isinstance(receiver, ConstVal)
            and isinstance(receiver.value, str)
            and method in _STRING_CASE_METHODS
            and not call.args
        ):
            # `norm_type = norm_type.lower()` (SPARNet's NormLayer): the option stays known
            return ConstVal(getattr(receiver.value, method)())
        if (
            method == "step"
            and len(call.args) == 1
            and call.args[0].keyword is None
            and type(call.args[0].value) in (cst.Name, cst.Attribute)
            and not isinstance(receiver, (OptimizerVal, ModuleVal))
        ):
            # `scaler.step(opt_d)` (a GradScaler; accelerate's and apex's wrappers alike): the
            # optimizer's step, unless the gradients overflowed
            optimizer = self.eval(call.args[0].value, state)
            if not isinstance(optimizer, OptimizerVal) and kb.looks_like_optimizer(
                dotted_name(call.args[0].value) or ""
            ):
                optimizer = OptimizerVal(None, fw=self.fw)
            if isinstance(optimizer, OptimizerVal):
                self.optimizer_step(optimizer, call, state)
                return UNKNOWN
        if isinstance(receiver, TensorVal):
            return self.call_tensor_method(receiver, receiver_expr, method, call, state)
        if (
            isinstance(receiver, ModuleVal)
            and method in ("items", "values", "keys")
            and not call.args
            and receiver.child_names
            and receiver.children_exact
            and len(receiver.child_names) == len(receiver.children)
        ):
            # `self.heads.items()` of a ModuleDict built from a dict display: its entries, in
            # order (`{name: head(x) for name, head in self.heads.items()}`)
            children = [_child_of(receiver, c) for c in receiver.children]
            names = [ConstVal(n) for n in receiver.child_names]
            items = (
                [SeqVal((n, c)) for n, c in zip(names, children)]
                if method == "items"
                else children
                if method == "values"
                else names
            )
            return SeqVal(tuple(items), exact=True)
        if isinstance(receiver, DictVal) and method not in _DICT_READERS:
            # `d.update(...)`, `d.pop(k)`, `d.setdefault(...)`: its entries may change
            path = dotted_name(receiver_expr)
            lineage = receiver.lineage
            if method in _DICT_FILLERS:
                # what it is given is in it now (`losses.update(self.descent_loss(x))`, then
                # `total += v` for each of its values: that graph reaches the backward)
                positional, keywords = self._args(call, state)
                lineage = lineage.union(*(lineage_of(v) for v in (*positional, *keywords.values())))
            if path is not None and state.env.get(path) is receiver:
                state.env[path] = DictVal(lineage)
            if method in _DICT_FILLERS:
                return Unknown(lineage)
        if method in _NEW_TENSOR_METHODS and self.fw == "torch" and isinstance(receiver, Unknown):
            return self._new_tensor("torch", call, state)  # a tensor the analysis lost track of
        if isinstance(receiver, ModuleVal):
            return self.call_module_method(receiver, method, call, state)
        if (
            isinstance(receiver, SeqVal)
            and method in ("append", "extend")
            and (held := _list_name(receiver_expr, state)) is not None
            and len(call.args) == 1
            and not call.args[0].star
        ):
            # `layers.append(nn.Linear(...))`, `self.agents.append(Agent(...))`: a list being
            # built (a factory's Sequential, a holder of instances)
            value = self.eval(call.args[0].value, state)
            # the list's graph is its items' (returning it reaches what made them)
            lineage = receiver.lineage | lineage_of(value)
            if method == "append":
                state.env[held] = SeqVal((*receiver.items, value), lineage)
            elif isinstance(value, SeqVal):
                state.env[held] = SeqVal((*receiver.items, *value.items), lineage)
            else:
                # `outs.extend([self.convs[i](x[i]) for i in ...])`: items not known one by one,
                # but the list's graph is still theirs (PAFPN returns `tuple(outs)`)
                state.env[held] = Unknown(lineage)
            return UNKNOWN
        if isinstance(receiver, OptimizerVal):
            key = f"{receiver.local_class}.{method}"
            written_at = None
            if receiver.local_class and key in self.index.functions:
                # the class's own method, with what its `__init__` made of the parameters: a
                # write into them outside `no_grad` is found there (a leaf written in place)
                self.call_local_function(key, call, state, self_entry=receiver.init_entry)
                ran = self.last_callee
                written_at = next(
                    (
                        w.node
                        for w in (ran.writes if ran is not None else ())
                        if isinstance(w.tensor.storage, str)
                        and w.tensor.storage.startswith("params:")
                    ),
                    None,
                )
            else:
                self._args(call, state)
            if method == "step" or written_at is not None:
                # (a method of its own that writes the parameters in place is a step too:
                # SAM's `first_step` adds the ascent direction, davda54/sam)
                self.optimizer_step(receiver, call, state, written_at=written_at)
                if type(receiver_expr) is cst.Name and receiver_expr.value in self.param_index:
                    index = self.param_index[receiver_expr.value]
                    self.result.summary.train_steps.append(("step", index, call))
                elif (held := _self_attribute(receiver_expr)) is not None and self.cls is not None:
                    self.result.summary.train_steps.append(("self_step", held, call))
                elif (
                    type(receiver_expr) is cst.Name
                    and self.info.key != MODULE_KEY
                    and self.flow.globals.get(receiver_expr.value) is receiver
                ):
                    # `d_opt.step()` of the module's own optimizer in a helper given the losses
                    # (`def backward(gen_loss, dis_loss)`): each caller replays it in order
                    name = receiver_expr.value
                    self.result.summary.train_steps.append(("global_step", name, call))
                else:
                    # (`opt.step()` of a method run inline, `opt` bound to `self.copt`)
                    self._note_passed_step(receiver, call, state)
            return UNKNOWN
        if isinstance(receiver, ParamsVal):
            self._args(call, state)
            if receiver.mapping:  # `params.items()`, `params.values()`; names otherwise
                if method in ("items", "values"):
                    return replace(receiver, mapping=False, named=method == "items")
                return UNKNOWN
            return receiver
        if isinstance(receiver, ArrayVal):
            _, keywords = self._args(call, state)
            if method in kb.NUMPY_INPLACE_METHODS:
                self._numpy_write(receiver, state, call, receiver_expr)
            else:
                self._numpy_out(keywords, call, state)  # `a.clip(0, 1, out=a)`
            return UNKNOWN
        if isinstance(receiver, FrameworkRef):
            if receiver.qualname.startswith("<local-class>."):
                cls_name = receiver.qualname.split(".", 1)[1]
                if method == "apply":
                    return self.call_autograd_function(cls_name, call, state)
                key = f"{cls_name}.{method}"
                info = self.index.functions.get(key)
                if info is not None and any(
                    dotted_name(d.decorator) in ("staticmethod", "classmethod")
                    for d in info.node.decorators
                ):
                    # `thops.split_feature(z)` (Glow): a static or class method of a local class
                    return self.call_local_function(key, call, state)
            return self.call_opaque(call, state, call.func)
        if (
            method == "step"
            and type(receiver_expr) is cst.Attribute
            and isinstance(owner := self.eval(receiver_expr.value, state), ModuleVal)
            and owner.local_class
            and owner.path != "self"
            and self._instance_optimizer(owner, receiver_expr.attr.value) is not None
        ):
            # `model.dis_optimizer.step()`: the optimizer the instance's `__init__` built over
            # `self.discriminator.parameters()` updates `model.discriminator`, not all of `model`
            self._args(call, state)
            self._instance_step(owner, receiver_expr.attr.value, call, call, state)
            return UNKNOWN
        # Unknown receiver
        name = dotted_name(receiver_expr) or ""
        if (
            name == "self"
            and self.cls is not None
            and f"{self.cls.name}.{method}" in self.index.functions
        ):
            return self.call_local_function(f"{self.cls.name}.{method}", call, state)
        if method == "backward":
            positional, _ = self._args(call, state)
            retain = _retain_requested(call, state.env)
            lineage = lineage_of(receiver)
            if not lineage and positional and isinstance(positional[0], TensorVal):
                # `accelerator.backward(loss)`, `scaler.backward(loss)`: the loss's backward
                lineage = positional[0].lineage
            self.backward(lineage if lineage else None, state, retain)
            return UNKNOWN
        if method == "step" and kb.looks_like_optimizer(name):
            self._args(call, state)
            self.optimizer_step(OptimizerVal(None, fw=self.fw), call, state)
            return UNKNOWN
        if method in ("parameters", "named_parameters") and name:
            self._args(call, state)
            return ParamsVal(name, named=method == "named_parameters", fw=self.fw)
        if method in _CONVERSION_METHODS:
            positional, keywords = self._args(call, state)
            args = [*positional, *keywords.values()]
            if any(isinstance(a, TensorVal) for a in args):
                return receiver  # a conversion of what the receiver is
            return self._opaque_result([*args, receiver], call, state, "", known=False)
        if method == "requires_grad_" and call.args and _literal(call.args[0].value) is False:
            # `build_model(...).requires_grad_(False)` (StyleGAN's G, D): a module whose class is
            # not known, with frozen parameters (a tensor's `requires_grad_` is handled above)
            self._args(call, state)
            module = ModuleVal(name or "<module>", fw=self.fw, uid=new_module_uid(), frozen=True)
            if name and not isinstance(state.env.get(name), (TensorVal, ModuleVal)):
                state.env[name] = module
            return module
        if self.ctx_name and name == self.ctx_name:
            positional, _ = self._args(call, state)
            if method == "save_for_backward":
                for value in positional:
                    if isinstance(value, TensorVal) and value.storage in self.param_storages:
                        self.result.summary.ctx_saved.add(self.param_storages[value.storage])
                        self.inputs_saved_at.setdefault(value.storage, len(self.result.writes))
                    elif isinstance(value, TensorVal):
                        self.ctx_saved_storages.add(value.storage)
            elif method == "mark_dirty":
                self.result.summary.marks_dirty = True
                for value in positional:
                    if isinstance(value, TensorVal):
                        self.mark_dirty.add(value.storage)
            return UNKNOWN
        return self.call_opaque(call, state, call.func, receiver=receiver)

    def call_tensor_method(
        self, tensor: TensorVal, receiver_expr, method: str, call: cst.Call, state: State
    ) -> Value:
        target = _conversion_dtype(method, call, state.env) if tensor.fw == "torch" else None
        if target is not None and tensor.dtype == target:
            # `.long()` of an int64 tensor, `.to(torch.float64)` of a float64 one: torch returns
            # the tensor itself (measured: the same object, its version counter), so a write
            # to the result is a write to it (Lightning#2862's `target.long().clamp_max_()`)
            self._args(call, state)
            return tensor
        result = self._call_tensor_method(tensor, receiver_expr, method, call, state)
        if (
            target is not None
            and isinstance(result, TensorVal)
            and result.storage != tensor.storage
        ):
            result = replace(result, dtype=target)
        elif (
            method == "to"
            and tensor.leaf
            and tensor.view is None
            and tensor.requires_grad is True
            and tensor.fw == "torch"
            and type(result) is TensorVal
            and result.storage != tensor.storage
            and (device := _device_argument(call)) is not None
        ):
            # `torch.zeros(n, requires_grad=True).to(device)`: on another device a copy, on the
            # leaf's own device (a CPU run) the leaf itself (measured)
            result = replace(
                result,
                leaf_condition=f"{_code(self, device)} == {_short(self, receiver_expr)}.device",
            )
        return result

    def _call_tensor_method(
        self, tensor: TensorVal, receiver_expr, method: str, call: cst.Call, state: State
    ) -> Value:
        fw = tensor.fw
        if method == "backward":
            _, keywords = self._args(call, state)
            retain = _retain_requested(call, state.env)
            self.backward(
                self._toward_inputs(tensor.lineage, keywords.get("inputs")), state, retain
            )
            for origin in sorted(tensor.lineage & self.param_origins.keys()):
                index = self.param_origins[origin]
                self.result.summary.train_steps.append(("backward", index, retain))
            return UNKNOWN
        if (
            fw == "paddle"
            and method == "register_hook"
            and len(call.args) == 1
            and self._paddle_hook(call.args[0].value, call, state)
        ):
            return UNKNOWN
        if method in ("detach", "detach_"):
            self._args(call, state)
            if method == "detach_":
                self._freeze_looped_parameters(tensor, state)
            return _detached(tensor, f"`{_code(self, call)}`", call)
        if method == "clone" or method in kb.COPYING_METHODS:
            self._args(call, state)
            return self._fresh_from(
                [tensor], call, state, f"`{_short(self, call)}`", keep_grad=method == "clone"
            )
        if method == "numpy":
            self._args(call, state)
            if fw == "paddle":
                # Paddle's `Tensor.numpy()` returns a copy (measured on 3.3.1, paddle18 p01)
                return ArrayVal(new_id())
            return ArrayVal(tensor.storage)
        if fw == "torch" and method in _NEW_TENSOR_METHODS:
            return self._new_tensor(fw, call, state)
        if fw == "torch" and method == "new":
            # the legacy `x.new()`, `x.new(4, 2)`, `x.new([1.0, 2.0])`: a new tensor without
            # grad (measured); given a tensor, the legacy constructor may share its memory
            positional, keywords = self._args(call, state)
            if not any(isinstance(v, TensorVal) for v in (*positional, *keywords.values())):
                return self._new_leaf(fw, False, call, state)
            return UNKNOWN
        if (
            method in _MODULE_ONLY_METHODS
            and self.info.node.name.value == "__init__"
            and tensor.storage in self.param_storages
            and tensor.view is None
        ):
            # `self.qf = qf; ... self.qf.parameters()` in `__init__`: the argument is a module of
            # a class not known here (rlkit's SACTrainer(env, policy, qf1, ...)), from now on
            module = ModuleVal(
                dotted_name(receiver_expr) or "<module>", fw=fw, uid=new_module_uid(tensor.storage)
            )
            for key, held in list(state.env.items()):
                if isinstance(held, TensorVal) and held.storage == tensor.storage:
                    state.env[key] = replace(module, path=key)
            return self.call_module_method(module, method, call, state)
        if method == "requires_grad_":
            positional, _ = self._args(call, state)
            flag = _flag_argument(call, positional)
            path = dotted_name(receiver_expr)
            if flag is False:
                self._freeze_looped_parameters(tensor, state)
                if path:
                    self._freeze_layer_parameter(path, state)
            updated = replace(tensor, requires_grad=flag is not False, leaf=flag is not False)
            if path:
                state.env[path] = updated
            return updated
        if fw == "paddle" and method in kb.PADDLE_NO_BUMP_METHODS:
            self._args(call, state)
            op_text = f"`{_code(self, receiver_expr)}.{method}(...)`"
            self.record_write(
                state, tensor, "set_value", call, receiver_expr, bumps=False, op_text=op_text
            )
            return UNKNOWN
        if method in _PYTHON_VALUE_METHODS:
            self._args(call, state)  # `x.sum().item()`, `x.size(0)`: a Python value, no graph
            if method in ("item", "tolist"):
                _drop_unread_saves(tensor, receiver_expr, state)
            return UNKNOWN
        facts = kb.method(fw, method)
        positional, keywords = self._args(call, state)
        if method in _CONVERSION_METHODS and any(isinstance(p, TensorVal) for p in positional):
            positional = [UNKNOWN if isinstance(p, TensorVal) else p for p in positional]
        if facts is not None and facts.name.rstrip("_") == method.rstrip("_"):
            facts = kb.resolve_overload(
                fw, facts, _kinds([tensor, *positional]), _keyword_names(call)
            )
        if facts is None:
            if kb.is_inplace_method_name(fw, method):
                # an in-place method the tables do not know: still a write
                self.record_write(
                    state,
                    tensor,
                    "method",
                    call,
                    receiver_expr,
                    op_text=f"`{_code(self, receiver_expr)}.{method}(...)`",
                )
                return tensor
            return self._opaque_result(
                [tensor] + positional + list(keywords.values()),
                call,
                state,
                f"`.{method}()`",
                known=False,
            )
        return self.apply_op(
            facts,
            [tensor] + positional,
            keywords,
            call,
            state,
            op_text=f"`{_code(self, receiver_expr)}.{method}(...)`",
            how="method",
            target_expr=receiver_expr,
        )

    def _casts_to_lower_precision(self, facts) -> bool:
        """An op autocast runs in lower precision (``kb.AUTOCAST_LOWER_PRECISION``), called in an
        autocast region: it saves cast copies of its fp32 inputs and weights."""
        return self.autocast and facts.name in kb.AUTOCAST_LOWER_PRECISION

    def _in_region(self, entry: tuple) -> tuple:
        """A callee's specialisation key for a call made here: marked (``_IN_AUTOCAST``) inside
        an autocast region, so that the callee runs in the region too."""
        return (*entry, _IN_AUTOCAST) if self.autocast else entry

    def _paddle_hook(self, hook, call: cst.Call, state: State) -> bool:
        """`y.register_hook(lambda g: g.scale_(0.5))`, `w.register_hook(mask_grad)` with `def
        mask_grad(g): g.multiply_(mask)`: Paddle hands a hook the gradient as a leaf that does
        not stop gradient, so an in-place API on it raises the leaf error during backward
        (measured on 3.3.1, paddle23; torch allows it). A lambda's body runs with its parameter
        bound to that leaf; a local function's write into its argument is replayed on it. False
        when the hook is neither."""
        name = _single_parameter(hook) if type(hook) is cst.Lambda else None
        key = hook.value if type(hook) is cst.Name else None
        callee = self.flow.result(key) if key in self.index.functions else None
        inner = callee.summary.param_writes.get(0) if callee is not None else None
        if name is None and (inner is None or not self.call_local_functions):
            return False
        leaf = TensorVal(
            fw="paddle",
            storage=new_id(),
            requires_grad=True,
            leaf=True,
            producer=f"the gradient `{name}` the hook receives"
            if name
            else f"the gradient the hook `{key}` receives",
            producer_node=hook,
        )
        grad_enabled, state.grad_enabled = state.grad_enabled, True
        if name is not None:
            before = state.env.get(name)
            state.env[name] = leaf
            self.eval(hook.body, state)
            if before is None:
                state.env.pop(name, None)
            else:
                state.env[name] = before
        else:
            self._replay(inner, leaf, call, state)
        state.grad_enabled = grad_enabled
        return True

    def _local_method(self, module: ModuleVal, method: str) -> bool:
        """The module's local class (or a local base) defines ``method``."""
        cls = self.index.classes.get(module.local_class or "")
        return cls is not None and any(
            method in c.methods for c in local_lineage(cls, self.index.classes)
        )

    def call_module_method(
        self, module: ModuleVal, method: str, call: cst.Call, state: State
    ) -> Value:
        if module.path == "self" and self.cls is not None and module.local_class == self.cls.name:
            inlined = self._inline_method(f"{self.cls.name}.{method}", call, state)
            if inlined is not None:
                return inlined
        if method in ("parameters", "named_parameters"):
            self._args(call, state)
            return ParamsVal(
                module.key_root,
                named=method == "named_parameters",
                fw=module.fw,
                label=module.path,
                frozen=module.frozen,
            )
        if method in ("forward", "__call__"):
            return self.call_module(module, call, state, method=method)
        if (
            method == "manual_backward"
            and module.path == "self"
            and call.args
            and not self._local_method(module, method)
        ):
            # a LightningModule's `self.manual_backward(loss)`: `loss.backward()`
            positional, _ = self._args(call, state)
            retain = _retain_requested(call, state.env)
            lineage = lineage_of(positional[0]) if positional else frozenset()
            self.backward(lineage if lineage else None, state, retain)
            return UNKNOWN
        if method in _SUBMODULE_ITERATORS:
            self._args(call, state)
            return SubmodulesVal(
                module,
                named=method.startswith("named_"),
                never_empty=method in ("modules", "named_modules") and module.fw == "torch",
            )
        if method in _FULL_BACKWARD_HOOKS:
            self._args(call, state)
            if (
                module.fw == "torch"
                and module.qualname != GENERIC_SUBMODULE
                and not self.flow.text.removes_hooks
            ):
                # (a loop's submodule stands for every submodule, which an `isinstance` test
                # usually narrows: not followed, see docs/analysis.md; in a file that calls
                # `handle.remove()` the hook may be off before the module runs)
                self._hook_module(module, call, state)
                # (a plain function's: a method's arguments at its call sites are aligned
                # otherwise)
                names = self.flow.parameter_names(self.info.key) if self.info.cls is None else ()
                for index, name in enumerate(names):
                    held = state.env.get(name)
                    if isinstance(held, ModuleVal) and module.uid and held.uid == module.uid:
                        # a module the caller passed: the caller's is hooked (Grad-CAM)
                        self.result.summary.hooked_module_arguments.append((index, call))
                        break
            return UNKNOWN
        if method == "apply" and len(call.args) == 1 and call.args[0].keyword is None:
            applied = self._apply_to_submodules(module, call, state)
            if applied is not None:
                return applied
        if method in kb.MODULE_RESET_METHODS:
            self._args(call, state)
            self._module_reset(module, method, call, state)
            return UNKNOWN
        if method == "create_parameter" and module.fw == "paddle":
            return self._paddle_parameter(call, state)
        if method in ("register_buffer", "register_parameter") and module.path == "self":
            positional, _ = self._args(call, state)
            name = _literal(call.args[0].value) if call.args else None
            if isinstance(name, str) and len(positional) > 1:
                tensor = positional[1]
                if not isinstance(tensor, TensorVal):  # a buffer is a tensor whatever built it
                    tensor = TensorVal(
                        fw=module.fw,
                        storage=new_id(),
                        requires_grad=False,
                        producer=f"the buffer `self.{name}`",
                        producer_node=call,
                    )
                if method == "register_buffer":
                    tensor = replace(
                        tensor,
                        requires_grad=False,
                        leaf=False,
                        producer=f"the buffer `self.{name}`",
                    )
                state.env[f"self.{name}"] = tensor
            return UNKNOWN
        if method == "add_module" and module.path == "self" and module.local_class:
            # `self.add_module("gcl_%d" % i, E_GCL(...))` in a module's own `__init__`
            positional, keywords = self._args(call, state)
            child = positional[1] if len(positional) > 1 else keywords.get("module")
            name = _literal(call.args[0].value) if call.args else None
            if isinstance(name, str):
                state.env[f"self.{name}"] = child if isinstance(child, ModuleVal) else UNKNOWN
            else:
                held = state.env.get(_ADDED_MODULES)
                same = isinstance(child, ModuleVal) and (
                    held is None or (isinstance(held, ModuleVal) and held.node is child.node)
                )
                state.env[_ADDED_MODULES] = child if same else UNKNOWN
            return UNKNOWN
        if method in ("add_module", "append") and getattr(module.facts, "container", False):
            # `self.body = nn.Sequential(); self.body.add_module("block1", D())`: a child at the
            # end of the chain
            positional, keywords = self._args(call, state)
            child = positional[-1] if positional else keywords.get("module")
            path = _receiver_path(call)
            if path and state.env.get(path) is module:
                child = _as_child(child, module.fw)
                name = (
                    _literal(call.args[0].value) if method == "add_module" and call.args else None
                )
                given = name if isinstance(name, str) and name.isidentifier() else ""
                state.env[path] = self._grown_container(module, child, given)
                if given:
                    # `seq.conv` is that child, its tensors the container's (as `seq[0]`):
                    # RepVGG's `conv_bn`, whose `rbr_dense.conv.weight` a BN fold writes
                    named = f"{path}.{name}"
                    state.env[named] = replace(child, uid=module.key_root, path=named)
            return UNKNOWN
        state.env.pop(_carry_key(module), None)  # `model.reset_state()`, `model.init_hidden()`
        if module.local_class and module.path == "self":
            key = f"{module.local_class}.{method}"
            if key in self.index.functions:
                return self.call_local_function(key, call, state, self_entry=module.init_entry)
        if (
            module.local_class
            and f"{module.local_class}.{method}" in self.index.functions
            and (cls := self.index.classes.get(module.local_class)) is not None
            and not (cls.module_fw or cls.looks_like_module)
        ):
            # `runner.train(x)` of a plain class (a TBPTT runner, an RL agent): its own method,
            # not `nn.Module.train`
            key = f"{module.local_class}.{method}"
            return self.call_local_function(key, call, state, module=module)
        if method in (
            "to",
            "cuda",
            "cpu",
            "train",
            "eval",
            "float",
            "half",
            "double",
            "requires_grad_",
        ):
            self._args(call, state)
            if method == "requires_grad_":
                flag = _flag_argument(call, self._args(call, state)[0])
                if isinstance(flag, bool) and flag is module.frozen:
                    # `nn.Conv2d(...).requires_grad_(False)` (yolov5's fused conv): its
                    # parameters are no longer leaves that require grad
                    module = replace(module, frozen=not flag)
                    path = _receiver_path(call)
                    if path and isinstance(state.env.get(path), ModuleVal):
                        state.env[path] = module
            return module
        if module.local_class:
            key = f"{module.local_class}.{method}"
            if key in self.index.functions:
                return self.call_local_function(key, call, state, module=module)
            if module.path != "self":
                # `agent.critic(s, a)`: a submodule `__init__` built, called from outside; its
                # saves are the instance's parameters, made by that submodule (``Save.by``)
                base = dotted_name(call.func.value) if type(call.func) is cst.Attribute else None
                held = self._module_attribute(module, method, f"{base}.{method}" if base else None)
                if isinstance(held, ModuleVal) and held.node is not None:
                    return self.call_module(held, call, state)
        return self.call_opaque(call, state, call.func)

    def call_module(
        self, module: ModuleVal, call: cst.Call, state: State, method: str | None = None
    ) -> Value:
        """Call the module (``method``: named explicitly, `m.forward(x)` runs `forward` even
        when the class overrides `__call__`)."""
        positional, keywords = self._args(call, state)
        op_text = f"`{_short(self, call.func)}`"
        if module.alternatives and state.grad_enabled:
            return self._call_alternatives(module, positional, keywords, call, state, op_text)
        return self._call_module_with(module, positional, keywords, call, state, op_text, method)

    def _call_alternatives(
        self, module: ModuleVal, positional, keywords, call, state: State, op_text: str
    ) -> Value:
        """A call of a module that is one of two kinds, by an option (``ModuleVal.alternatives``):
        each runs on its own copy of the state, under its condition, and the copies merge as
        after an `if`: a save only one of them makes is a save under its condition (IPL203)."""
        sides = []
        for condition, alternative in module.alternatives:
            side = state.copy()
            # (what another option's module saved only when this one is not built, as for an
            # `if` on that option: timm's aligned Xception, `self.act` in place only with
            # `preact`, whose blocks then end in a convolution)
            _drop_saves_under(side, _negated(condition))
            self.conditions.append(condition)
            try:
                value = self._call_module_with(
                    alternative, positional, keywords, call, side, op_text, None
                )
            finally:
                self.conditions.pop()
            side.env[_ALTERNATIVE_RESULT] = value
            sides.append(side)
        then, other = sides
        merged = merge_states(sides)
        _mark_one_sided_saves(merged, then, other, module.alternatives[0][0])
        for storage in merged.saves:
            # (what one kind saves of the call's input, the other not: a Linear with and without
            # its frozen weight, which saves its input only when the weight needs a gradient)
            if then.saves.get(storage) != other.saves.get(storage):
                _mark_one_side(
                    merged, storage, then, storage, other, storage, module.alternatives[0][0]
                )
        value = merged.env.pop(_ALTERNATIVE_RESULT, UNKNOWN)
        state.env, state.saves, state.stale_multi = merged.env, merged.saves, merged.stale_multi
        state.reachable = merged.reachable
        return value

    def _call_module_with(
        self,
        module: ModuleVal,
        positional,
        keywords,
        call: cst.Call,
        state: State,
        op_text: str,
        method: str | None,
    ) -> Value:
        if module.children and module.backward_hook is not None:
            # the container hooked as a whole (`model.register_full_backward_hook(h)`)
            return self._through_hook(
                module,
                positional,
                call,
                state,
                lambda plain, given: self._call_module_with(
                    plain, given, keywords, call, state, op_text, method
                ),
            )
        if module.children:
            value: Value = positional[0] if positional else UNKNOWN
            children = _sequence_children(module)
            through = True  # every child so far handed the container's input on unchanged
            for i, child in enumerate(children):
                if i and child.node is not None and _saves_then_writes(children[i - 1], child):
                    may = state.grad_enabled and not (
                        isinstance(value, TensorVal) and value.requires_grad is False
                    )
                    self.flow.adjacency_calls.setdefault(id(child.node), []).append(
                        (self.info.key, _last_op_id(value) if may else None)
                    )
                # a child's write reaches the caller's tensor when it is the first, or when the
                # children before it handed the input through (`nn.Sequential(nn.Identity(),
                # nn.LeakyReLU(0.2, inplace=True))`: SPARNet's NormLayer `lambda x: x`)
                through = through and (i == 0 or self._passes_through(children[i - 1]))
                # (or the child before it handed on what it saved: the neural-style tutorial's
                # ContentLoss before VGG's `ReLU(inplace=True)`; reported where that child is
                # built, the line its fix changes)
                handed = (
                    not through
                    and i > 0
                    and child.node is not None
                    and self._returns_saved_input(children[i - 1])
                )
                if handed and isinstance(value, TensorVal):
                    value = replace(
                        value, producer=f"what `{children[i - 1].local_class}` returned (its input)"
                    )
                value = self._apply_module(
                    replace(child, frozen=True) if module.frozen else child,
                    [value],
                    {},
                    child.node if handed else call,
                    state,
                    op_text,
                    # (a hooked child's input, or a hooked child's output handed to the next
                    # one, is a view that raises when written, wherever it came from)
                    report_writes=through
                    or handed
                    or child.backward_hook is not None
                    or (isinstance(value, TensorVal) and value.backward_hook is not None),
                    owner=module,
                )
            return value
        return self._apply_module(
            module,
            positional,
            keywords,
            call,
            state,
            op_text,
            report_writes=True,
            owner=module,
            method=method,
        )

    def _passes_through(self, module: ModuleVal) -> bool:
        """A module whose call returns its input itself, unchanged: `nn.Identity`, a local
        module whose forward is `return x`."""
        if module.facts is not None:
            call = getattr(module.facts, "call", None)
            return call is not None and call.view_of is not None and not call.inplace_param
        summary = self._local_forward_summary(module)
        return (
            summary is not None
            and summary.returns_alias == (0, "same")
            and not summary.param_writes
        )

    def _returns_saved_input(self, module: ModuleVal) -> bool:
        """A local module whose forward returns its input itself after an op saved it
        (`self.loss = F.mse_loss(input, self.target); return input`)."""
        summary = self._local_forward_summary(module) if module.facts is None else None
        return (
            summary is not None
            and summary.returns_alias == (0, "same")
            and 0 in summary.saved_params
        )

    def _local_forward_summary(self, module: ModuleVal) -> FunctionSummary | None:
        """The summary of a local module class's own `forward`, analysed for the class."""
        if not module.local_class:
            return None
        result = self.flow.result(f"{module.local_class}.forward")
        return result.summary if result is not None else None

    def _grown_container(self, module: ModuleVal, child: ModuleVal, name: str = "") -> ModuleVal:
        """The container ``module`` (an `nn.Sequential`, a ModuleList) with ``child`` appended
        (`seq.add_module(name, child)`, `layers.append(child)`)."""
        children = (*module.children, child)
        if len(children) > 1 and children[-2].node is not child.node:
            # (the same constructor twice in a row: a loop's next pass, whose branches the
            # analysis cannot tell apart — funasr's `get_nonlinear("batchnorm-relu")`)
            self._check_adjacency(children[-2:])
        names = module.child_names or ("",) * len(module.children)
        straight = self._straight_line()
        return replace(
            module,
            children=children,
            # every child, when each was added by a statement of the function's own body (not in
            # a loop or a branch: `self.layers.append(nn.Linear(...))`, then
            # `self.layers.append(nn.Sigmoid())`, lookalike27)
            children_exact=module.children_exact and straight,
            last_child_known=straight,
            child_names=(*names, name) if len(names) == len(module.children) else (),
            has_parameters=any(c.has_parameters for c in children),
        )

    def _append_to_argument(self, arguments: list, target: int, item: int, state: State) -> None:
        """A helper appended its argument ``item`` to its argument ``target``
        (``ModuleDataflow.appended_arguments``): the caller's list or container module holds it
        at the end now."""
        if max(target, item) >= len(arguments):
            return
        given, value = arguments[target], arguments[item]
        if value is None or isinstance(value, ConstVal):
            return  # (`None` is what the helper's `if module is not None:` leaves out)
        if isinstance(given, SeqVal):
            grown: Value = SeqVal((*given.items, value), given.lineage | lineage_of(value))
        elif isinstance(given, ModuleVal) and getattr(given.facts, "container", False):
            # `block = nn.ModuleList()` grown by `self.add_if_not_none(block, conv)` (unet)
            grown = self._grown_container(given, _as_child(value, given.fw))
        else:
            return
        for key, held in list(state.env.items()):
            if held is given:
                state.env[key] = grown

    def _hook_module(self, module: ModuleVal, call: cst.Call, state: State) -> None:
        """`m.register_full_backward_hook(h)`: from now on the instance `m` (under every name
        and in every container that holds it, `seq[0]`) has a full backward hook."""
        if not module.uid:
            return
        for key, held in list(state.env.items()):
            if isinstance(held, ModuleVal):
                marked = _hooked(held, module, call)
                if marked is not held:
                    state.env[key] = marked

    def _through_hook(self, module: ModuleVal, positional: list, call, state: State, run) -> Value:
        """A call of a module with a full backward hook (``ModuleVal.backward_hook``). In grad
        mode, when one of its positional tensors requires grad, torch hands the forward those
        tensors through `BackwardHookFunction`, and when a result requires grad, it hands back
        the results through it too: views made inside a custom Function, which raise
        `Output 0 of BackwardHookFunctionBackward is a view and is being modified inplace` when
        written (measured: the hooked `nn.ReLU(inplace=True)` writing its input, an in-place
        op on the hooked layer's output). Tensors passed by keyword are not wrapped."""
        plain = replace(module, backward_hook=None)
        if not state.grad_enabled or module.fw != "torch":
            return run(plain, positional)
        label = f"`{_code(self, call.func) if type(call) is cst.Call else module.path}`"
        if module.path.startswith("<") and module.node is not None:
            # a child run by its container (`nn.Sequential(nn.Linear(3, 3), nn.ReLU(...))`)
            label = f"`{_code(self, module.node)}` (in {label})"
        hook = module.backward_hook
        if any(isinstance(v, TensorVal) and v.requires_grad is True for v in positional):
            positional = [
                _through_backward_hook(v, hook, f"the input of {label}", call) for v in positional
            ]
        result = run(plain, positional)
        role = f"the output of {label}"
        if isinstance(result, SeqVal):
            if any(isinstance(v, TensorVal) and v.requires_grad is True for v in result.items):
                return replace(
                    result,
                    items=tuple(_through_backward_hook(v, hook, role, call) for v in result.items),
                )
            return result
        return _through_backward_hook(result, hook, role, call)

    def _apply_module(
        self,
        module: ModuleVal,
        positional,
        keywords,
        call,
        state,
        op_text,
        report_writes: bool,
        owner: ModuleVal,
        method: str | None = None,
    ) -> Value:
        """Apply one module's facts; parameter saves go to the owner's (the container's) storage."""
        if module.backward_hook is not None:
            return self._through_hook(
                module,
                positional,
                call,
                state,
                lambda plain, given: self._apply_module(
                    plain, given, keywords, call, state, op_text, report_writes, owner, method
                ),
            )
        facts = module.facts
        split_items = False  # the result was split into items, each with its own graph
        if facts is not None and not getattr(facts, "container", False) and module.write_condition:
            self.conditions.append(module.write_condition)  # `nn.Dropout(p, inplace=True)`
            try:
                return self._apply_module(
                    replace(module, write_condition=None),
                    positional,
                    keywords,
                    call,
                    state,
                    op_text,
                    report_writes,
                    owner,
                )
            finally:
                self.conditions.pop()
        if facts is not None and not getattr(facts, "container", False):
            if _renormalises_weight(module):
                self._renorm_write(module, owner, call, state)
            if module.node is not None:
                # say which module it is: `self.act(...)` (`nn.ReLU(inplace=True)`), `self.gate` (`nn.Sigmoid`)
                label = (
                    _code(self, module.node) if facts.call.inplace_param else _short_class(module)
                )
                op_text = f"{op_text.rstrip('`')}` (`{label}`)"
            all_frozen = module.frozen or _all_parameters_frozen(module)
            frozen = (all_frozen or "weight" in module.frozen_parameters) and getattr(
                facts, "frozen_saves", None
            ) is not None
            result = self.apply_op(
                # a frozen layer (`requires_grad_(False)`) saves only what its inputs' gradients
                # need: a frozen Linear keeps no input (VPT / linear probes on a backbone)
                replace(facts.call, saves=facts.frozen_saves) if frozen else facts.call,
                positional,
                keywords,
                call,
                state,
                op_text=op_text,
                how="module",
                report_writes=report_writes,
                constructor=module.node,
                target_expr=_first_arg(call),
                params_require_grad=bool(facts.has_parameters) and not all_frozen,
            )
            if facts.has_parameters and state.grad_enabled:
                op_id = _last_op_id(result)
                if op_id is not None:
                    self.module_ops[op_id] = owner.params_storage_key
                    triggers = dict(getattr(facts, "attribute_triggers", ()))
                    # (in an autocast region a Linear / Conv saves a cast copy of its weight:
                    # an update of the weight before backward raises nothing, measured)
                    cast = self._casts_to_lower_precision(facts.call)
                    for what in () if cast else facts.saved_attributes or ():
                        certain = _attribute_saved(triggers.get(what), facts.call, positional)
                        if certain is None:
                            continue  # Linear's weight, the input not requiring grad
                        if what in _RUNNING_STAT_ATTRIBUTES:
                            # Paddle's batch_norm saves its running mean and variance (measured,
                            # train and eval): `bn._mean` is a buffer of its own storage
                            state.add_save(
                                f"buffer:{owner.key_root}.{what}",
                                Save(
                                    _unquote(op_text),
                                    call,
                                    op_id,
                                    f"buffer `{what}`",
                                    certain,
                                    version_only=True,
                                ),
                            )
                            continue
                        # (a Linear saves its weight, never its bias)
                        only = None if "*" in what else frozenset({what})
                        by = owner.node
                        if owner.owner_attr is not None:
                            # a layer seen through the instance holding it (`self.flava.
                            # text_projection(x)`) shares that instance's parameter storage: the
                            # save names its path there, so that a write of another parameter
                            # of the instance (`self.flava.logit_scale.data.clamp_()`) is not
                            # held against it
                            path = owner.owner_attr
                            only = frozenset({path if only is None else f"{path}.{what}"})
                            by = owner.owner_by
                        state.add_save(
                            owner.params_storage_key,
                            Save(
                                _unquote(op_text),
                                call,
                                op_id,
                                f"parameters `{what}`" if "*" in what else f"parameter `{what}`",
                                certain,
                                only=only,
                                by=by,
                            ),
                        )
                    for buffer in facts.inplace_buffers or ():
                        state.add_save(
                            f"buffer:{owner.key_root}.{buffer}",
                            Save(_unquote(op_text), call, op_id, f"buffer `{buffer}`"),
                        )
                if all_frozen:
                    pass  # (its output requires grad only if its input does: apply_op's)
                elif isinstance(result, TensorVal):
                    result = replace(result, requires_grad=True)
                elif isinstance(result, SeqVal):
                    result = _requiring_grad(result)
            return result
        # a local or unknown module: its parameters take part; its own saves are opaque
        args = positional + list(keywords.values())
        summary = None
        if module.local_class and method is None and not self._overrides_call(module.local_class):
            base = self.flow.framework_base(module.local_class)
            if base is not None:
                # `class Conv2d(nn.Conv2d)` with only an `__init__` of its own: the layer's call
                return self._apply_module(
                    replace(module, qualname=base[0], facts=base[1], local_class=None),
                    positional,
                    keywords,
                    call,
                    state,
                    op_text,
                    report_writes,
                    owner,
                )
        if module.local_class:
            # calling the instance runs `__call__` when the class overrides it (RKNet's USAM);
            # `m.forward(x)` runs `forward` whatever `__call__` is
            entry = f"{module.local_class}.{method or '__call__'}"
            if entry not in self.index.functions:
                entry = f"{module.local_class}.forward"
            self._note_call(entry, state)
            forward = None
            names = self.flow.parameter_names(entry)
            arguments = list(positional) + [keywords.get(n) for n in names[len(positional) :]]
            # modules handed to `forward` (P2T passes its `d_convs` down to each block): the
            # forward is analysed with them, as a local function is (only modules: tensors and
            # lists passed to a forward stay unknown, see docs/analysis.md)
            cls = self.index.classes.get(module.local_class)
            if cls is not None and not cls.is_module and not any(a.star for a in call.args):
                # a plain class's `__call__` (HF's logits processors) is a function: it is
                # analysed with what the call knows of its tensors, as a local function is
                passed_modules = _entry_signature(arguments)
            else:
                passed_modules = _modules_entry(arguments)
            tested = self.flow.tested_defaults(entry)
            if tested and not any(a.star for a in call.args):
                # an input the call leaves at its default (None, a flag) or passes as a literal,
                # which the forward tests: the forward as this call runs it (`if query_states is
                # None:` in DeBERTa's attention, `if active:` in GFDN's SAGE_NET)
                given = [
                    _tested_argument(arguments[i], tested[name]) if name in tested else None
                    for i, name in enumerate(names)
                ]
                passed_modules = _with_present(passed_modules, arguments, names, tested)
                if any(g is not None for g in given):
                    passed_modules = _trimmed(
                        [
                            given[i]
                            if given[i] is not None
                            else (passed_modules[i] if i < len(passed_modules) else None)
                            for i in range(len(names))
                        ]
                    )
            data = self._data_inputs(entry, arguments, state) if cls is not None else None
            if data is not None:
                # (the forward run with those inputs not requiring grad: ``_apply_data_callers``)
                self.result.data_calls.append((entry, data))
                passed_modules = _trimmed(
                    [
                        False
                        if i in data
                        else (passed_modules[i] if i < len(passed_modules) else None)
                        for i in range(max(len(passed_modules), max(data) + 1))
                    ]
                )
            # (in an autocast region, its Linear / Conv save cast copies of their fp32 weights:
            # an update before backward breaks nothing, lookalike30)
            passed_modules = self._in_region(passed_modules)
            if module.init_entry or passed_modules:
                forward = self.flow.specialized(entry, passed_modules, module.init_entry)
            if forward is None:
                forward = self.flow.result(entry)
            summary = forward.summary if forward is not None else None
            if summary is not None:
                self._apply_param_writes(summary, arguments, call, state, op_text, module)
                alias = summary.returns_alias
                if (
                    alias is not None
                    and alias[1] == "same"
                    # (followed whole, saving no parameter: nothing of the module's own enters
                    # the result's graph)
                    and summary.saved_parameters() == frozenset()
                    and alias[0] < len(arguments)
                    and isinstance(arguments[alias[0]], TensorVal)
                ):
                    # a forward that returns its input (`class Ident:
                    # forward(self, x): return x`, an activation wrapper writing it in place)
                    base = arguments[alias[0]]
                    if state.grad_enabled and (
                        summary.saved_params or summary.forward_graph_attributes
                    ):
                        # what it saved of its inputs on the way (`self.loss =
                        # F.mse_loss(input, self.target)`), for this call
                        op_id = new_id()
                        for index, what in summary.saved_params.items():
                            if index < len(arguments) and isinstance(arguments[index], TensorVal):
                                state.add_save(
                                    arguments[index].storage,
                                    Save(_unquote(op_text), call, op_id, what),
                                )
                        self._forward_graph_attributes(
                            module, summary, base.lineage | {op_id}, state
                        )
                    return base
        # a frozen instance given tensors without grad: nothing in its call requires grad (a
        # frozen teacher's logits, divided in place by the temperature)
        inert = _inert_call(module, args)
        result = self._opaque_result(
            args,
            call,
            state,
            op_text,
            known=bool(summary and summary.returns_known),
            requires_grad=False
            if inert
            else True
            if module.has_parameters or (summary and summary.returns_requires_grad)
            else None,
            saves_output=bool(summary and summary.returns_saved_output) and not inert,
            output_condition=summary.saved_output_condition if summary else None,
            opaque=summary is None or summary.opaque_inside,
        )
        if summary is not None:
            result = self._saved_items_result(summary, result, call, state, op_text)
            self._apply_callee_saves(
                summary, arguments, result, call, state, op_text, module=module
            )
            if module.path != "self" and not module.path.startswith("self."):
                # `loss_d, loss_g = trainer(x)` whose forward computed each loss through other
                # submodules: one graph per item, with the saves of those submodules (an
                # instance seen from outside; a submodule called by its owner keeps one graph)
                split = self._split_item_submodules(summary, module, result, call, state, op_text)
                if split is not None:
                    result = split
                    split_items = True
            if module.path == "self" and type(call.func) is cst.Name:
                # `self(obs)` in the module's own method (a critic's `update`): the forward's
                # submodules saved their parameters for this call
                self._apply_self_submodules(summary, result, call, state, op_text)
            if summary.carries_graph and state.grad_enabled:
                result = self._carry_state(module, result, state)
            if summary.forward_graph_attributes and state.grad_enabled:
                self._forward_graph_attributes(module, summary, lineage_of(result), state)
            if module.local_class and isinstance(result, (SeqVal, TensorVal)):
                result = self._note_tuple_items(entry, forward, result, state)
        if state.grad_enabled and module.has_parameters:
            op_id = _last_op_id(result)
            if op_id is not None:
                held = self.module_ops.get(op_id)
                # (`self(obs)`: its submodules' parameters too, ``_apply_self_submodules``)
                self.module_ops[op_id] = (
                    held | {owner.params_storage_key}
                    if isinstance(held, frozenset)
                    else owner.params_storage_key
                )
                # a local forward the analysis followed whole, which saved no parameter on the
                # way to what it returns (`x + self.pos_embed`), leaves none for a step to break
                only = summary.saved_parameters() if summary is not None else None
                if only is None and summary is not None:
                    # not followed whole: still, it can only have saved what it reads
                    only = self.flow.readable_attributes(entry)
                if (only is None or only) and not split_items:
                    # (split into items, each holds the saves of the submodules it went through:
                    # one more save under the last item's op would outlive the backward of the
                    # item that made it, lookalike32's TBPTT loop returning `(head(h), h)`)
                    state.add_save(
                        owner.params_storage_key,
                        Save(
                            _unquote(op_text),
                            call,
                            op_id,
                            "parameters",
                            certain=True,
                            only=only,
                            by=owner.node,
                        ),
                    )
        return self._saved_entries_result(summary, result, call, state, op_text)

    def _forward_graph_attributes(
        self, module: ModuleVal, summary: FunctionSummary, lineage: frozenset[int], state: State
    ) -> None:
        """``FunctionSummary.forward_graph_attributes``: after this call, `<instance>.<name>`
        (whatever name the instance is read through: `for sl in style_losses: sl.loss`) is a
        tensor with the call's graph."""
        for name in summary.forward_graph_attributes:
            state.env[_instance_field_key(module, name)] = TensorVal(
                fw=module.fw,
                storage=new_id(),
                requires_grad=True,
                producer=f"`{module.path}.{name}`",
                known=True,
                lineage=lineage,
            )

    def _overrides_call(self, cls_name: str) -> bool:
        """The local class, or a local base of it, defines `forward` or `__call__`."""
        cls = self.index.classes.get(cls_name)
        return cls is None or _calls_own_code(local_lineage(cls, self.index.classes))

    def _carry_state(self, module: ModuleVal, result: Value, state: State) -> Value:
        """A module that keeps its recurrent state on itself: this call's result also depends on
        the graph of the calls before it (until the caller resets or detaches that state)."""
        key = _carry_key(module)
        before = state.env.get(key)
        if (
            isinstance(before, Unknown)
            and before.lineage
            and isinstance(result, (TensorVal, SeqVal))
        ):
            result = replace(result, lineage=result.lineage | before.lineage)
        state.env[key] = Unknown(lineage_of(result))
        return result

    def _renorm_write(self, module: ModuleVal, owner: ModuleVal, call, state: State) -> None:
        """`nn.Embedding(max_norm=...)`: its forward renormalises the looked-up rows of `weight`
        in place (`embedding_renorm_`, under no_grad) before the lookup. The weight's version
        moves, so an earlier op that saved the weight fails at backward (the nn.Embedding
        documentation's own pitfall)."""
        producer = f"the parameter `{module.path}.weight`"
        tensor = _module_tensor(module, owner.params_storage_key, producer)
        self.record_write(
            state,
            tensor,
            "renorm",
            call,
            None,
            op_text=f"`{_short(self, call)}` (`nn.Embedding(max_norm=...)` renormalises its weight)",
            grad_override=False,
            target_text=f"{module.path}.weight",
        )

    def _paddle_parameter(self, call: cst.Call, state: State) -> TensorVal:
        """`paddle.create_parameter(...)` / `self.create_parameter(...)`: a trainable leaf, unless
        `attr=paddle.ParamAttr(trainable=False)` (a fixed filter bank, a prior: paddle22)."""
        self._args(call, state)
        trainable = not _untrainable_attr(call)
        return TensorVal(
            fw="paddle",
            storage=new_id(),
            requires_grad=trainable,
            leaf=trainable,
            parameter=True,
            producer=f"`{_code(self, call)}`",
            producer_node=call,
        )

    def _module_reset(self, module: ModuleVal, method: str, call: cst.Call, state: State) -> None:
        """`bn.reset_running_stats()` / `layer.reset_parameters()`: in-place writes (under no_grad
        inside torch) to the module's buffers or parameters."""
        text = f"`{_code(self, call)}`"
        if method == "reset_running_stats":
            buffers = getattr(module.facts, "inplace_buffers", ()) or (
                "running_mean",
                "running_var",
            )
            storages = [(f"buffer:{module.key_root}.{b}", False) for b in buffers]
        else:
            storages = [(module.params_storage_key, True)]
        for storage, parameter in storages:
            tensor = _module_tensor(module, storage, f"`{module.path}`", parameter)
            self.record_write(
                state, tensor, "module-reset", call, None, op_text=text, grad_override=False
            )

    def call_local_function(
        self,
        key: str,
        call: cst.Call,
        state: State,
        module: ModuleVal | None = None,
        self_entry: tuple = (),
        bound: tuple[tuple, dict] | None = None,
    ) -> Value:
        """Call a local function or method; ``bound``: the arguments a `functools.partial` fixed
        (positional ones first, keywords the call may override)."""
        outer, self.returned_saves = self.returned_saves, {}
        try:
            result = self._call_local_function(key, call, state, module, self_entry, bound)
            if self.returned_saves:
                result = _with_returned_saves(result, self.returned_saves)
            if isinstance(result, TensorVal) and self.flow.returns_unsized_list(key):
                # a list of per-layer states (tsl's GRIN `get_h0` returning `[*torch.zeros(
                # size)]`, prec38): its item is the result's tensor, and `h[layer] = ...` rebinds
                # a slot of the list, not a tensor write
                result = SeqVal((result,), result.lineage)
            # (the analysis this call ran: none when it did not run one)
            callee = self.last_callee
            if callee is not None and callee.info.key != key:
                callee = None
            if (
                isinstance(result, TensorVal)
                and callee is not None
                and any(w.confirmed_by_return and w.confirmed for w in callee.writes)
            ):
                # a graph in which the callee broke a save of its own reaches its return
                # (torchani's `_numerical_virial`, prec36): an op of this call in the result,
                # so that where the result goes here decides whether a backward ever runs that
                # graph (``ModuleDataflow._drop_unread_helper_returns``)
                result = replace(result, lineage=result.lineage | {new_id()})
            if module is not None and module.path != "self" and self.last_callee is not None:
                self._rebind_instance_attributes(module, state)
                result = self._instance_attribute_saves(module, result, call, state)
        finally:
            self.returned_saves = outer
        # what this call's result became here (``ModuleDataflow._drop_unread_helper_returns``)
        self.flow.helper_results.setdefault(key, set()).add(
            _last_op_id(result) if not isinstance(result, (ModuleVal, OptimizerVal)) else None
        )
        if isinstance(result, (SeqVal, TensorVal)):
            result = self._note_tuple_items(key, callee, result, state)
        return result

    def _note_tuple_items(self, key: str, callee, result: Value, state: State) -> Value:
        """Record each item's lineage in this call's tuple result
        (``ModuleDataflow._drop_unread_tuple_items``). Where the callee broke a save that only
        some of its returned items reach, each tensor item first takes an op of its own, so
        that what this caller does with each one can be told apart (an opaque result's items
        share one graph: `res = self.model(x); res[0]...backward(); res[1].mean().item()`)."""
        if callee is not None and any(
            w.returned_items and w.confirmed_by_return and w.confirmed for w in callee.writes
        ):
            if isinstance(result, TensorVal):
                # an opaque result standing for the whole tuple (`res = self.model(x)`): one
                # tensor per returned item, so that `res[0]` and `res[1]` are told apart
                arity = callee.summary.returned_arity
                if arity is None or arity < 2:
                    return result
                items = _result_parts(result, arity)
                for save in state.saves.get(result.storage, ()):
                    for item in items:  # (what was saved of the whole is saved of each item)
                        state.add_save(item.storage, save)
                result = SeqVal(tuple(items), result.lineage)
            result = replace(
                result,
                items=tuple(
                    replace(item, lineage=item.lineage | {new_id()})
                    if isinstance(item, TensorVal)
                    else item
                    for item in result.items
                ),
            )
        if isinstance(result, SeqVal) and len(result.items) > 1:
            self.flow.tuple_item_calls.setdefault(key, []).append(
                (self.info.key, [lineage_of(item) for item in result.items])
            )
        return result

    def _record_rebound_attributes(self, state: State) -> None:
        """``FunctionSummary.rebound_attributes``: the attributes this method binds itself."""
        names = _self_attributes_assigned(self.info.node.body)
        if not names:
            return
        rebound: dict[str, bool | None] = {}
        for name in names:
            held = state.env.get(f"self.{name}")
            rebound[name] = held.requires_grad if isinstance(held, TensorVal) else None
        self.result.summary.rebound_attributes = rebound

    def _rebind_instance_attributes(self, module: ModuleVal, state: State) -> None:
        """After `mem.write(x)` whose method rebinds `self.state`: `mem.state` is a new object
        here (a tensor when the method left one), not the one read before the call."""
        rebound = self.last_callee.summary.rebound_attributes
        if not rebound:
            return
        for name, requires_grad in rebound.items():
            path = f"{module.path}.{name}"
            state.env.pop(path, None)
            self._drop_attribute_paths(path, state)
            state.env[_instance_field_key(module, name)] = (
                TensorVal(
                    fw=module.fw,
                    storage=new_id(),
                    requires_grad=requires_grad,
                    producer=f"`{path}`",
                    known=requires_grad is not None,
                )
                if requires_grad is not None
                else UNKNOWN
            )

    def _instance_attribute_saves(
        self, module: ModuleVal, result: Value, call: cst.Call, state: State
    ) -> Value:
        """`v = agent.rollout(obs)` whose method left `self.hidden` holding a tensor an op on
        the way to `v` saved (``FunctionSummary.attribute_saves``): `agent.hidden` is that
        tensor here, saved by this call, in `v`'s graph; a later `agent.reset_done(d)` writing
        `self.hidden[d] = 0` breaks `v`'s backward."""
        saved = self.last_callee.summary.attribute_saves
        if not saved or not state.grad_enabled or type(result) is not TensorVal:
            return result
        op_id = new_id()
        op_text = _unquote(f"`{_short(self, call.func)}`")
        for name, what in saved.items():
            field_value = TensorVal(
                fw=module.fw,
                storage=new_id(),
                requires_grad=True,
                producer=f"`{module.path}.{name}`",
                known=True,
                lineage=frozenset({op_id}),
            )
            state.env[_instance_field_key(module, name)] = field_value
            state.add_save(field_value.storage, Save(op_text, call, op_id, what))
        return replace(result, lineage=result.lineage | {op_id})

    def _call_local_function(
        self,
        key: str,
        call: cst.Call,
        state: State,
        module: ModuleVal | None = None,
        self_entry: tuple = (),
        bound: tuple[tuple, dict] | None = None,
    ) -> Value:
        if not self.call_local_functions and call not in self.factory_calls:
            return self.call_opaque(call, state, call.func)
        positional, keywords = self._args(call, state)
        positional = self._spread_star(key, call, positional)
        if bound is not None:
            positional = [*bound[0], *positional]
            keywords = {**bound[1], **keywords}
        self._lists_escape(call, state, None if bound is not None else key)
        self._note_call(key, state)
        self._transformed_modules(key.rsplit(".", 1)[-1], call, state)
        arguments = self._arguments_by_index(key, positional, keywords)
        entry = _entry_signature(arguments)
        if rates := self.flow.dropout_rates(key):
            # `mlp(d, h, p=0.2)` building `nn.Dropout(p, inplace=True)`: the rate it is given,
            # or its number default, as a constructor's (``_init_signature``)
            entry = _with_rates(entry, arguments, rates)
        if tested := self.flow.tested_defaults(key):
            entry = _with_present(entry, arguments, self.flow.parameter_names(key), tested)
        if state.grad_enabled and any(map(_is_data, entry)) and not _is_entry_method(key):
            # a helper given data (`update(torch.randn(4, 3))`): ``_apply_data_callers``
            self.result.data_calls.append(
                (key, frozenset(i for i, e in enumerate(entry) if _is_data(e)))
            )
        if module is not None and module.local_class and key.startswith(f"{module.local_class}."):
            self_entry = module.init_entry  # `block.fuse()`: a method of that very instance
        cls = self.info.cls
        in_init = (
            module is None
            # (or this `__init__` itself runs for a subclass's `super().__init__()`)
            and (not self_entry or isinstance(self_entry[0], _InitState))
            and cls is not None
            and self.info.node.name.value == "__init__"
            and key.startswith(f"{cls.name}.")
            and key != self.info.key
        )
        if in_init:
            # `self.reset_parameters()` in `__init__`: the method sees what `__init__` has built
            # so far (and `__init__`'s own analysis is not finished: nothing to remember)
            attrs = {k: v for k, v in state.env.items() if k.startswith("self.")}
            self_entry = (_InitState(attrs),)
        callee = None if in_init else self.flow.result(key)
        if callee is not None and self.self_results_grad and _called_on_self(call):
            callee = self.flow.with_grad(key) or callee
        if not in_init:
            # (`loss = compute_loss(net, x)` under `torch.autocast`: the forwards the helper
            # calls save cast copies of fp32 weights)
            entry = self._in_region(entry)
        if any(e is not None for e in entry) or self_entry:
            specialized = self.flow.specialized(key, entry, self_entry)
            if specialized is not None:
                callee = specialized
        self.last_callee = callee  # (what a local optimizer class's `step` wrote: call_method)
        op_text = f"`{_short(self, call.func)}`"
        if in_init and callee is not None:
            state.env.update(callee.self_attributes)  # what `self.build_model()` built
        if callee is not None:
            self._apply_param_writes(callee.summary, arguments, call, state, op_text, module)
            for storage, inner in callee.summary.updated_module_arguments.items():
                if state.grad_enabled or inner.how == "set_value":
                    # `swap_in_ema(model, ema)` between a forward and its backward
                    self._parameter_update(
                        state,
                        inner.fw,
                        storage,
                        self._label_of(storage, state),
                        inner.node,
                        op_text,
                        call,
                        via_data=inner.tensor.via_data,
                        bumps=inner.bumps_version,
                    )
            own = callee.summary.updated_own_parameters
            if (
                own is not None
                and module is not None
                and module.path != "self"
                and module.has_parameters
                and (state.grad_enabled or own.how == "set_value")
            ):
                # `D.clip_weights(0.01)` between `D(real)` and the backward
                self._parameter_update(
                    state,
                    own.fw,
                    module.params_storage_key,
                    self._label_of(module.params_storage_key, state),
                    own.node,
                    op_text,
                    call,
                    via_data=own.tensor.via_data,
                    bumps=own.bumps_version,
                )
            for frozen in callee.summary.frozen_module_arguments:
                for path, held in list(state.env.items()):
                    if isinstance(held, ModuleVal) and held.params_storage_key == frozen:
                        state.env[path] = replace(held, frozen=True)
            for target, item in self.flow.appended_arguments(key):
                self._append_to_argument(arguments, target, item, state)
            for index, registration in callee.summary.hooked_module_arguments:
                given = arguments[index] if index < len(arguments) else None
                if isinstance(given, ModuleVal) and given.fw == "torch":
                    self._hook_module(given, registration, state)
            if callee.summary.train_steps:
                self._replay_train_steps(
                    callee.summary.train_steps, arguments, call, state, instance=module
                )
            if callee.summary.self_buffer_writes and _called_on_self(call) and not in_init:
                # (in `__init__`, the method's own run from what `__init__` had built reports
                # its writes; `self.*` here already holds what it left at its end)
                # `self._dequeue_and_enqueue(k)`: it writes this instance's own tensors
                for name, inner in callee.summary.self_buffer_writes.items():
                    held = state.env.get(f"self.{name}")
                    if isinstance(held, TensorVal):
                        self._replay(inner, held, call, state)
            elif callee.summary.self_buffer_writes and module is not None and module.path != "self":
                # `agent.reset_done(d)` writing `self.hidden[d] = 0`: what this function knows
                # `agent.hidden` holds (left by an earlier method call, or assigned here)
                for name, inner in callee.summary.self_buffer_writes.items():
                    held = state.env.get(_instance_field_key(module, name))
                    if held is None:
                        held = state.env.get(f"{module.path}.{name}")
                    if isinstance(held, TensorVal) and held.storage in state.saves:
                        self._replay(inner, held, call, state)
            if callee.summary.returned is not None:
                return _fresh_copy(callee.summary.returned, self.flow.global_uids)
            viewed = callee.summary.returns_parameter_view
            if viewed is not None and module is not None and module.path != "self":
                # `pol.initial_state(n)` returning `self.h0.expand(n, -1)`: a view of the
                # instance's parameter, as `pol.h0.expand(n, -1)` would be
                held = self._module_attribute(module, viewed, f"{module.path}.{viewed}")
                if isinstance(held, TensorVal) and held.leaf and held.requires_grad:
                    return self._view_of(held, call, state, op_text)
            alias = callee.summary.returns_alias
            if alias is not None and alias[0] < len(arguments):
                base = arguments[alias[0]]
                if isinstance(base, TensorVal):
                    return self._alias_of(base, alias[1], call, state, op_text)
            aliases = callee.summary.returns_item_aliases
            if aliases is not None and all(
                index < len(arguments) and isinstance(arguments[index], TensorVal)
                for index, _ in aliases
            ):
                return SeqVal(
                    tuple(
                        self._alias_of(arguments[index], kind, call, state, op_text)
                        for index, kind in aliases
                    ),
                    frozenset().union(*(arguments[index].lineage for index, _ in aliases)),
                )
        if callee is not None and callee.summary.returns_constant is not None:
            return callee.summary.returns_constant
        if callee is not None and callee.summary.returns_graphless:
            return UNKNOWN  # Python values: none of the arguments' graph reaches them
        known = bool(callee and callee.summary.returns_known)
        # `to_tensor(obs)` given a numpy array: a tensor without a graph, whatever it was given
        grad_free = bool(callee and callee.summary.returns_grad_free)
        trainable = callee is not None and (
            callee.summary.returns_requires_grad
            and module is None
            or _through_trainable_parameters(callee.summary, module)
        )
        if callee is not None and callee.self_results_unsure and _called_on_self(call):
            self.result.self_results_unsure = True  # (`self.V(x)` running `self.V_with_jacobian`)
        if trainable and _called_on_self(call) and not self.self_results_grad:
            # not a module's own method, which reads its parameters: mmpretrain's
            # `self.extract_text_feat(...)` in a `predict` that mmengine runs under no_grad;
            # unless this method is called here, always with grad (``_rerun_called_with_grad``)
            trainable = False
            self.result.self_results_unsure = True
        result = self._opaque_result(
            positional + list(keywords.values()),
            call,
            state,
            op_text,
            known=known,
            requires_grad=False if grad_free else True if trainable else None,
            saves_output=bool(callee and callee.summary.returns_saved_output)
            # (a frozen module's method given tensors without grad: nothing requires grad, so
            # nothing is saved: diffusers' `vae.requires_grad_(False); vae.encode(x)`)
            and not (
                module is not None and _inert_call(module, positional + list(keywords.values()))
            ),
            output_condition=callee.summary.saved_output_condition if callee else None,
            opaque=callee is None or callee.summary.opaque_inside,
            uses_views=callee is None,
            # `self.critic_losses(s, r)` given what this function cannot follow (a batch from
            # `self.sample()`): what it returns went through `self.critic`, so it is a tensor
            # with that graph, whatever the arguments were
            # (also `critic.learn(s, r, s_)` of a plain class's instance given numpy arrays,
            # whose returned TD error went through `self.critic_net`)
            tensor_result=callee is not None
            and _returns_value(callee.info.node.body)
            and (
                _called_on_self(call)
                and bool(
                    callee.summary.graph_self_submodules or callee.summary.item_self_submodules
                )
                or module is not None
                and module.local_class is not None
                and module.path != "self"
                and callee.summary.returns_requires_grad is True
            ),
        )
        if callee is not None:
            result = self._untraced_arguments_dropped(
                callee.summary, arguments, positional + list(keywords.values()), result
            )
            returned = self.flow.returned_parameter(key)
            if (
                returned is not None
                and returned < len(arguments)
                and isinstance(arguments[returned], SeqVal)
                and isinstance(result, TensorVal)
            ):
                # `h = self.update_state(x, h)` handing back the list it was given, its slots
                # rebound (tsl's GRIN, prec38): still a list, its items what the call made
                return SeqVal((result,), result.lineage)
            if callee.summary.returns_inference and isinstance(result, TensorVal):
                # made by a function decorated `@torch.inference_mode()`
                return replace(result, requires_grad=False, lineage=frozenset(), inference=True)
            if callee.summary.returns_grad_free and isinstance(result, TensorVal):
                return replace(result, requires_grad=False, lineage=frozenset())
            if callee.summary.returns_leaf and isinstance(result, TensorVal):
                # a new leaf that requires grad, made by the helper (a fresh one per call)
                return replace(result, requires_grad=True, leaf=True, view=None, known=True)
            if callee.summary.multi_view_returns > 0 and isinstance(result, TensorVal):
                # the views of one chunk / split made inside: writing one in place raises
                custom = callee.summary.returns_custom_view
                return replace(
                    result,
                    view="multi",
                    multi_base_requires_grad=callee.summary.returns_multi_view,
                    custom_function_view=custom,
                    producer=f"{op_text}"
                    if custom
                    else f"{op_text} (the views of one multi-output call inside)",
                    producer_node=call,
                )
            result = self._saved_items_result(callee.summary, result, call, state, op_text)
            self._apply_callee_saves(callee.summary, arguments, result, call, state, op_text)
            split = self._split_item_submodules(
                callee.summary, module, result, call, state, op_text
            )
            if split is not None:
                return split
            if _called_on_self(call):
                self._apply_self_submodules(callee.summary, result, call, state, op_text)
            if module is not None and module.has_parameters:
                self._apply_own_parameters(callee.summary, module, result, call, state, op_text)
            if callee.summary.saved_entries is not None and isinstance(result, TensorVal):
                return self._saved_entries_result(callee.summary, result, call, state, op_text)
            if callee.summary.returns_dict and isinstance(result, TensorVal):
                # `grads = self._integrate_gradients(instance)` returning the dict it built:
                # entries to read (with the call's graph), not a tensor to write into
                return DictVal(result.lineage)
            some = callee.summary.returns_some_item_aliases
            if some is not None:
                result = self._with_item_aliases(some, arguments, result, call, state, op_text)
        return result

    def _with_item_aliases(
        self, aliases: tuple, arguments: list, result: Value, call, state: State, op_text: str
    ) -> Value:
        """The tuple a helper returns whose items at ``aliases`` are its arguments or views of
        them (``FunctionSummary.returns_some_item_aliases``): those items are the caller's
        tensors here, the others the call's result (recall36: `a2, b2, _ = swiglu_forward(x,
        x)` returning `a.view(-1, n)`; a write into `a2` writes `x`)."""
        if any(
            alias is not None
            and (alias[0] >= len(arguments) or not isinstance(arguments[alias[0]], TensorVal))
            for alias in aliases
        ):
            return result
        items = _result_parts(result, len(aliases))
        if items is None:
            return result
        for index, alias in enumerate(aliases):
            if alias is not None:
                base = arguments[alias[0]]
                items[index] = self._alias_of(base, alias[1], call, state, op_text)
        return SeqVal(tuple(items), lineage_of(result))

    @staticmethod
    def _untraced_arguments_dropped(
        summary: FunctionSummary, arguments: list, passed: list, result: Value
    ) -> Value:
        """The call's result without the graph of the tensor arguments the callee's analysis
        followed and found reaching no returned value (``FunctionSummary.returned_params``)."""
        returned = summary.returned_params
        if returned is None or not isinstance(result, (TensorVal, SeqVal)) or not result.lineage:
            return result
        dropped: set[int] = set()
        excluded: list = []
        for index, value in enumerate(arguments):
            if index in summary.traced_params and index not in returned:
                dropped |= lineage_of(value)
                excluded.append(value)
        if not dropped:
            return result
        for value in passed:  # (`*args` and the rest keep their graph)
            if not any(value is e for e in excluded):
                dropped -= lineage_of(value)
        if not dropped & result.lineage:
            return result
        return replace(result, lineage=result.lineage - dropped)

    def _split_item_submodules(
        self,
        summary: FunctionSummary,
        module: ModuleVal | None,
        result: Value,
        call,
        state: State,
        op_text: str,
    ) -> SeqVal | None:
        """`outputs, gen_loss, dis_loss = self.edge_model.process(...)` whose items went
        through different submodules (``FunctionSummary.item_self_submodules``): one graph per
        item, each with the saves of the submodules it went through (on `self`, the submodule's
        parameters; on an instance seen from outside, the instance's), so that
        `dis_loss.backward()` leaves what `gen_loss.backward()` needs. None: not such a call."""
        items = summary.item_self_submodules
        if items is None or not state.grad_enabled:
            return None
        on_self = _called_on_self(call)
        if not on_self and not (module is not None and module.has_parameters):
            return None
        shape = summary.item_shape
        parts = (
            _result_parts(result, len(items))
            if shape is None
            else self._leaf_parts(result, shape, len(items), state)
        )
        if parts is None:
            return None
        out = []
        item_ops = [new_id() for _ in items]
        contains = summary.item_contains or ()
        for index, (part, (saved, graph)) in enumerate(zip(parts, items)):
            if not isinstance(part, TensorVal):
                out.append(part)
                continue
            item_op = item_ops[index]
            inner = {item_ops[j] for j in contains[index]} if index < len(contains) else set()
            part = replace(part, lineage=part.lineage | {item_op} | inner)
            reached: set[str] = set()
            for name in sorted(graph | saved.keys()):
                by = None
                if on_self:
                    held = state.env.get(f"self.{name}" if name else "self")
                    if not isinstance(held, ModuleVal):
                        continue
                    storage = held.params_storage_key
                else:
                    # seen from outside, its submodules' parameters are the instance's, saved
                    # by that submodule (``Save.by``: a step of a sibling's optimizer is not
                    # held against the save)
                    storage = module.params_storage_key
                    if name:
                        held = self._module_attribute(module, name, f"{module.path}.{name}")
                        if not isinstance(held, ModuleVal) or held.node is None:
                            continue
                        by = held.node
                if name in saved:
                    state.add_save(
                        storage, Save(_unquote(op_text), call, item_op, saved[name], by=by)
                    )
                if name in graph:
                    reached.add(storage)
            if reached:
                self.module_ops[item_op] = frozenset(reached)
            out.append(part)
        if shape is not None:
            return _nest_items(out, shape)
        return SeqVal(tuple(out), frozenset().union(*(lineage_of(p) for p in out)))

    def _leaf_parts(self, result: Value, shape: tuple, count: int, state: State) -> list | None:
        """A call's result as one value per leaf of a nested returned tuple
        (``FunctionSummary.item_shape``): an opaque result split, a tuple's items, and an item
        standing for an inner tuple split in its turn (what was saved of it is saved of each
        part). None when the result has another form."""
        if isinstance(result, TensorVal):
            return _result_parts(result, count)
        if not (isinstance(result, SeqVal) and len(result.items) == len(shape)):
            return None
        parts: list = []
        for item, slot in zip(result.items, shape):
            if not isinstance(slot, tuple):
                parts.append(item)
                continue
            inner = _result_parts(item, len(slot))
            if inner is None:
                return None
            if isinstance(item, TensorVal):
                for save in state.saves.get(item.storage, ()):
                    for part in inner:
                        state.add_save(part.storage, save)
            parts.extend(inner)
        return parts

    def _apply_own_parameters(
        self, summary: FunctionSummary, module: ModuleVal, result: Value, call, state, op_text
    ) -> None:
        """A method of a local module whose result went through the module's own call: the
        module's parameters were saved by this call and its result's graph reaches them."""
        op_id = _last_op_id(result)
        if op_id is None or not state.grad_enabled:
            return
        # its submodules' parameters are the module's too (`model.get_state(obs)` returning
        # `self.features(obs)`: `model.parameters()` holds them)
        saved = summary.saved_own_parameters
        only = None
        if saved is None and summary.saved_self_submodules:
            saved = next(iter(summary.saved_self_submodules.values()))
            # (the submodules it went through, where the analysis followed it whole: FQF's
            # `calculate_quantiles` reads `cosine_net` and `quantile_net`, so a step of
            # `fraction_net`'s optimizer does not break this save, recall39)
            only = summary.saved_parameters() or None
        if saved is not None:
            state.add_save(
                module.params_storage_key,
                Save(_unquote(op_text), call, op_id, saved, only=only, by=module.node),
            )
        graph = summary.graph_own_parameters or bool(summary.graph_self_submodules)
        if graph and op_id not in self.module_ops:
            self.module_ops[op_id] = module.params_storage_key

    def _replay_train_steps(
        self,
        steps: list[tuple[str, object, object]],
        arguments: list,
        call,
        state: State,
        instance: ModuleVal | None = None,
    ) -> None:
        """`update_params(self.q1_optim, self.critic.Q1, q1_loss)`: the helper's backward of an
        argument runs through the graph of what this caller passed, and its step of an argument
        optimizer updates what that optimizer holds here (``FunctionSummary.train_steps``); the
        step is reported where the helper steps, for this call, as a helper's other writes are."""
        for kind, index, detail in steps:
            if kind == "self_step":
                if instance is not None and instance.path != "self":
                    self._instance_step(instance, index, detail, call, state)
                elif self.cls is not None and _called_on_self(call):
                    # `self.update_all(cl, al)`, not run inline (it steps through helpers of
                    # its own): the step of `self.copt` is this instance's, here
                    optimizer = state.env.get(f"self.{index}")
                    if isinstance(optimizer, OptimizerVal):
                        self.optimizer_step(optimizer, detail, state, callee=call)
                        self.result.summary.train_steps.append(("self_step", index, detail))
                continue
            if kind == "global_step":
                # (by name: the caller's own view of the module's optimizer, unless the
                # caller's own local of that name hides it)
                optimizer = state.env.get(index)
                hidden = self.info.key != MODULE_KEY and optimizer is not self.flow.globals.get(
                    index
                )
                if isinstance(optimizer, OptimizerVal) and not hidden:
                    self.optimizer_step(optimizer, detail, state, callee=call)
                continue
            value = arguments[index] if index < len(arguments) else None
            if kind == "backward" and isinstance(value, TensorVal):
                self.backward(value.lineage or None, state, bool(detail))
                # (a helper of a helper: `update_all(cl, al)` hands its losses on to
                # `take_step(opt, loss)`; its own callers replay the backward on theirs)
                for origin in sorted(value.lineage & self.param_origins.keys()):
                    self.result.summary.train_steps.append(
                        ("backward", self.param_origins[origin], detail)
                    )
            elif kind == "step" and isinstance(value, OptimizerVal):
                self.optimizer_step(value, detail, state, callee=call)
                self._note_passed_step(value, detail, state)

    def _note_passed_step(self, optimizer: OptimizerVal, step, state: State) -> None:
        """A helper stepped an optimizer this function passed it: record the step as this
        function's own, by how it holds the optimizer (an argument of its own, `self.<name>`,
        the module's global), so that its callers replay it in order with its backwards."""
        summary = self.result.summary
        for name, index in self.param_index.items():
            if state.env.get(name) is optimizer:
                summary.train_steps.append(("step", index, step))
                return
        if self.cls is not None:
            for path, held in state.env.items():
                if held is optimizer and path.startswith("self.") and "." not in path[5:]:
                    summary.train_steps.append(("self_step", path[5:], step))
                    return
        if self.info.key != MODULE_KEY:
            for name, held in self.flow.globals.items():
                if held is optimizer and state.env.get(name) is optimizer:
                    summary.train_steps.append(("global_step", name, step))
                    return

    def _instance_optimizer(self, instance: ModuleVal, name: str) -> OptimizerVal | None:
        """The optimizer over known modules that the instance's `__init__` bound to `self.<name>`."""
        if not instance.local_class:
            return None
        cls = self.index.classes.get(instance.local_class)
        declared = self.flow.init_attributes(cls, instance.init_entry) if cls else {}
        optimizer = declared.get(f"self.{name}")
        if not isinstance(optimizer, OptimizerVal) or optimizer.modules is None:
            return None
        return optimizer

    def _instance_step(self, instance: ModuleVal, name: str, step, call, state: State) -> bool:
        """`agent.update_critic(loss)` whose method steps `self.critic_opt`: the optimizer
        `__init__` made updates, here, the parameters of `agent.critic` (the instance's storage,
        written as by that submodule, so that saves made by its siblings are not held against
        it: ``Save.by``); reported where the method steps, for this call. Also a step of that
        optimizer read from outside (`model.dis_optimizer.step()`: ``step`` is ``call``).
        False when `__init__` made no optimizer over known modules of that name."""
        optimizer = self._instance_optimizer(instance, name)
        if optimizer is None:
            return False
        text = f"`{_code(self, step)}`"
        labels = optimizer.labels or optimizer.modules
        for root, held in zip(optimizer.modules, labels):
            attr = attr_by = None
            if held == "self":
                storage, label, writer = instance.params_storage_key, instance.path, None
                if instance.owner_attr is not None and instance.owner_by is not None:
                    # a submodule seen through the instance holding it (`agent.critic.optimizer
                    # .step()` over CriticNetwork's own parameters): its parameters are that
                    # instance's, written as its submodule, so that what a sibling's call saved
                    # (`agent.actor(...)`) is not held against the step (recall44's MADDPG)
                    attr, attr_by = instance.owner_attr, instance.owner_by
                    if instance.node is not None:
                        writer = (instance.node, instance.owner_by)
            elif held.startswith("self.") and "." not in held[5:]:
                target = self._module_attribute(instance, held[5:], f"{instance.path}{held[4:]}")
                if not isinstance(target, ModuleVal):
                    continue
                storage, label = target.params_storage_key, target.path
                # (a save by the instance's own call holds too, when it names this submodule:
                # `loss_d, loss_g = trainer(x)` saved `self.globalD`'s parameters)
                writer = (target.node, instance.node) if instance.node is not None else target.node
                attr, attr_by = held[5:], instance.node
            elif is_module_uid(root):
                # a module the constructor was given (`Trainer(model)`): the caller's own
                storage, label, writer = (
                    f"params:{root}",
                    self._label_of(f"params:{root}", state),
                    None,
                )
            else:
                continue
            self._parameter_update(
                state,
                optimizer.fw,
                storage,
                label,
                step,
                text,
                call,
                writer,
                attr=attr,
                attr_by=attr_by,
            )
        return True

    def _apply_self_submodules(
        self, summary: FunctionSummary, result: Value, call, state: State, op_text: str
    ) -> None:
        """`self.calc_loss(batch)` whose result went through `self.critic(...)` inside: this
        call saved `self.critic`'s parameters, and a backward through its result gives them
        gradients (``FunctionSummary.saved_self_submodules``)."""
        op_id = _last_op_id(result)
        if op_id is None or not state.grad_enabled:
            return
        if not summary.saved_self_submodules and not summary.graph_self_submodules:
            return
        reached: set[str] = set()
        for name in summary.graph_self_submodules | summary.saved_self_submodules.keys():
            held = state.env.get(f"self.{name}")
            if not isinstance(held, ModuleVal):
                continue
            what = summary.saved_self_submodules.get(name)
            if what is not None:
                state.add_save(held.params_storage_key, Save(_unquote(op_text), call, op_id, what))
            if name in summary.graph_self_submodules:
                reached.add(held.params_storage_key)
        if reached and op_id not in self.module_ops:
            self.module_ops[op_id] = frozenset(reached)

    def _apply_to_submodules(self, module: ModuleVal, call: cst.Call, state: State) -> Value | None:
        """`net.apply(weights_init)`: the module-level function runs on every submodule, so it
        is analysed as called with a submodule of a class not known (DCGAN's `weights_init`
        writing `m.weight.normal_(...)` outside `no_grad`: Paddle#46171). Returns the module
        (what `apply` returns), or None when the callback is not a function of this file."""
        target = call.args[0].value
        key = None
        if type(target) is cst.Name and target.value in self.index.functions:
            key = target.value
        elif (
            type(target) is cst.Attribute
            and type(target.value) is cst.Name
            and target.value.value == "self"
            and self.cls is not None
            and f"{self.cls.name}.{target.attr.value}" in self.index.functions
        ):
            # `self.apply(self._init_weights)` (timm's, HF's shape): the class's own method
            # (lookalike47: `m.weight.fill_(1.0)` under `isinstance(m, nn.LayerNorm)`)
            key = f"{self.cls.name}.{target.attr.value}"
        if key is None:
            return None
        self._args(call, state)
        self._note_call(key, state)
        if self.call_local_functions:
            kinds = self._submodule_kinds(state) if module.path == "self" else None
            submodule = generic_submodule(module, kinds)
            self.flow.specialized(key, _entry_signature([submodule]), ())
        return module

    def _framework_classes(self, expr, state: State) -> frozenset[str] | None:
        """The framework layer classes an `isinstance` class argument names (one, or a tuple of
        them); None when any is something else."""
        quals = set()
        for cls in _class_arguments(expr):
            name = dotted_name(cls)
            qual = (
                self.imports.resolve(cls)
                if name and name.partition(".")[0] not in state.env
                else None
            )
            if qual is None or not kb.is_module_class(qual):
                return None
            quals.add(qual)
        return frozenset(quals)

    def _set_inplace(self, target: cst.Attribute, flag: bool, state: State) -> bool:
        """`self.act.inplace = True`, or `m.inplace = True` past `if isinstance(m, nn.ReLU):` in
        a loop over `self.modules()` (BDRAR#2, MVANet#2: switched on after construction): the
        module (those of the filtered classes among `self`'s submodules) now writes in place,
        as if built with `inplace=True`. True when handled."""
        owner = self.eval(target.value, state)
        if not isinstance(owner, ModuleVal):
            return False
        path = dotted_name(target.value)
        if owner.qualname == GENERIC_SUBMODULE:
            own = state.env.get("self")
            if owner.kind_filter is None or not isinstance(own, ModuleVal):
                return False
            if owner.generic_of != "self":
                return False  # (the submodules of another model this method holds)
            for key, held in list(state.env.items()):
                if key.startswith("self.") and key.count(".") == 1 and isinstance(held, ModuleVal):
                    state.env[key] = self._with_inplace(held, flag, owner.kind_filter, state)
            return True
        if owner.facts is None or not owner.qualname:
            return False
        changed = self._with_inplace(owner, flag, frozenset({owner.qualname}), state)
        if path is not None:
            state.env[path] = changed
            return True
        base = target.value
        index = _int_index(base) if type(base) is cst.Subscript else None
        holder = dotted_name(base.value) if index is not None else None
        container = state.env.get(holder) if holder else None
        if not (
            isinstance(container, ModuleVal)
            and -len(container.children) <= index < len(container.children)
        ):
            return False
        # `net[1].inplace = True` on a Sequential's child: that child, in its place
        children = list(container.children)
        children[index] = replace(children[index], facts=changed.facts)
        if flag:
            self._check_new_adjacency(tuple(children))
        state.env[holder] = replace(container, children=tuple(children))
        return True

    def _with_inplace(
        self, module: ModuleVal, flag: bool, kinds: frozenset[str], state: State
    ) -> ModuleVal:
        """``module`` (and its children) with `inplace=flag` on those of the classes ``kinds``."""
        if module.children:
            children = tuple(self._with_inplace(c, flag, kinds, state) for c in module.children)
            if flag and any(a is not b for a, b in zip(children, module.children)):
                self._check_new_adjacency(children)
            return replace(module, children=children)
        if module.qualname not in kinds or module.facts is None:
            return module
        keywords = (
            _literal_keywords(module.node, state.env) if type(module.node) is cst.Call else {}
        )
        facts = kb.module_class(module.qualname, {**keywords, "inplace": flag})
        return replace(module, facts=facts) if facts is not None else module

    def _check_new_adjacency(self, children: tuple[ModuleVal, ...]) -> None:
        """``_check_adjacency`` of a container whose children were switched in place after it
        was built: the pairs it did not report then."""
        known = {id(a.node) for a in self.result.adjacency}
        before = len(self.result.adjacency)
        self._check_adjacency(children)
        self.result.adjacency[before:] = [
            a for a in self.result.adjacency[before:] if id(a.node) not in known
        ]

    def _absent_class(self, expr, kinds: frozenset[str], state: State) -> bool:
        """No submodule of a model made of the layers ``kinds`` is an instance of the class
        ``expr`` names: a framework layer class not among them (not a private base class), or a
        local class other than the model's own and its bases (``_submodule_kinds``)."""
        name = dotted_name(expr)
        if name is None or name.partition(".")[0] in state.env:
            return False
        if type(expr) is cst.Name and expr.value in self.index.classes:
            own = self.cls
            return own is not None and expr.value != own.name and expr.value not in own.base_names
        qual = self.imports.resolve(expr)
        return (
            qual is not None
            and kb.is_module_class(qual)
            and not qual.rsplit(".", 1)[-1].startswith("_")
            and qual not in kinds
        )

    def _submodule_kinds(self, state: State) -> frozenset[str] | None:
        """The classes of the submodules `self.apply(...)` visits in `__init__`, when each is a
        known framework layer (or a container of such) bound to `self.<name>`: `isinstance(m,
        nn.Conv2d)` then tells whether that branch of an init callback ever runs (lookalike48: a
        false IPL002 on a branch for a layer the model has none of). None when a submodule is a
        local class, a framework module without facts, or registered another way."""
        if _ADDED_MODULES in state.env or self.cls is None or _registers_dynamically(self.cls.node):
            return None
        kinds: set[str] = set()
        stack = [v for k, v in state.env.items() if k.startswith("self.") and k.count(".") == 1]
        while stack:
            value = stack.pop()
            if not isinstance(value, ModuleVal):
                continue
            if value.children:
                stack.extend(value.children)
                continue
            if value.local_class or value.facts is None or not value.qualname:
                return None
            kinds.add(value.qualname)
        return frozenset(kinds)

    def _alias_of(self, base: TensorVal, kind: str, call, state: State, op_text: str) -> Value:
        """A callee's result that is its argument ``base`` itself, a view of it, or its detached
        alias: the same memory, so a write to it is a write to ``base``."""
        if kind == "same":
            return base
        if kind == "view":
            return self._view_of(base, call, state, op_text)
        return _detached(base, op_text, call)

    def _saved_items_result(
        self, summary: FunctionSummary, result: Value, call, state: State, op_text: str
    ) -> Value:
        """A call to a function whose returned tuple holds tensors saved on the way to it: one
        tensor per item (not one for the whole result), the saved ones saved by this call."""
        if summary.saved_items is None or not isinstance(result, TensorVal):
            return result
        arity, saved = summary.saved_items
        parts = self._result_parts_saved(result, range(arity), saved, call, state, op_text)
        fields = summary.saved_items_fields if len(summary.saved_items_fields) == arity else ()
        return SeqVal(tuple(parts), result.lineage, fields=fields)

    def _result_parts_saved(
        self, result: TensorVal, keys, saved: dict, call, state: State, op_text: str
    ) -> list[TensorVal]:
        """One tensor per key of a call's returned tuple or dict, standing for the whole
        ``result``; those ``saved`` names saved by this call (as what it says)."""
        op_id = _last_op_id(result)
        parts = []
        for key in keys:
            part = replace(result, storage=new_id(), nondiff_outputs=())
            if key in saved and op_id is not None and state.grad_enabled:
                state.add_save(part.storage, Save(_unquote(op_text), call, op_id, saved[key]))
            parts.append(part)
        return parts

    def _saved_entries_result(
        self, summary: FunctionSummary | None, result: Value, call, state: State, op_text: str
    ) -> Value:
        """A call to a function whose returned dict holds tensors saved on the way to it
        (``FunctionSummary.saved_entries``): a dict of one tensor per key, the saved ones saved
        by this call (`out["probs"] *= 0.9`, `out.probs *= 0.9` of a dataclass output)."""
        if summary is None or summary.saved_entries is None or not isinstance(result, TensorVal):
            return result
        keys, saved = summary.saved_entries
        parts = self._result_parts_saved(result, keys, saved, call, state, op_text)
        return DictVal(result.lineage, tuple(zip(keys, parts)))

    def _apply_callee_saves(
        self,
        summary: FunctionSummary,
        arguments: list,
        result: Value,
        call,
        state: State,
        op_text: str,
        module: ModuleVal | None = None,
    ) -> None:
        """Saves the callee made of its arguments (and of its module's tensors) belong to this call."""
        op_id = _last_op_id(result)
        if op_id is None or not state.grad_enabled:
            return
        for index, what in summary.saved_params.items():
            if index < len(arguments) and isinstance(arguments[index], TensorVal):
                state.add_save(arguments[index].storage, Save(_unquote(op_text), call, op_id, what))
        for (index, position), what in summary.saved_param_items.items():
            passed = arguments[index] if index < len(arguments) else None
            if isinstance(passed, SeqVal) and position < len(passed.items):
                item = passed.items[position]
                if isinstance(item, TensorVal):
                    state.add_save(item.storage, Save(_unquote(op_text), call, op_id, what))
        passed = {a.params_storage_key for a in arguments if isinstance(a, ModuleVal)}
        for storage, what in summary.saved_module_arguments.items():
            if storage in passed:
                state.add_save(storage, Save(_unquote(op_text), call, op_id, what))
        graph = frozenset(summary.graph_module_arguments & passed)
        if graph:
            self.module_ops[op_id] = graph
        if module is not None:
            # what the forward saved of a plain tensor it holds, it saved because its input or
            # a parameter required grad: a promise only when one of them surely does here
            # (a from-scratch MLP's weights, plain tensors, with data as input: no graph)
            certain = module.has_parameters or any(
                isinstance(a, TensorVal) and a.requires_grad is True for a in arguments
            )
            for name in summary.saved_self_attributes:
                state.add_save(
                    f"buffer:{module.key_root}.{name}",
                    Save(
                        _unquote(op_text),
                        call,
                        op_id,
                        name,
                        certain,
                        by=module.node,
                        version_only=name in summary.version_only_attributes,
                    ),
                )

    def _arguments_by_index(
        self, key: str, positional: list[Value], keywords: dict[str, Value]
    ) -> list:
        """The call's arguments in the callee's parameter order (self / ctx left out)."""
        names = self.flow.parameter_names(key)
        arguments: list = list(positional[: len(names)]) + [None] * max(
            0, len(names) - len(positional)
        )
        for name, value in keywords.items():
            if name in names:
                arguments[names.index(name)] = value
        # a flag left at its literal default (`chunk_size=None`, `inplace=False`) is known too
        defaults = self.flow.literal_defaults(key)
        for index, name in enumerate(names):
            if index >= len(positional) and name not in keywords and name in defaults:
                arguments[index] = ConstVal(defaults[name])
        return arguments

    def _apply_param_writes(
        self,
        summary: FunctionSummary,
        positional,
        call,
        state,
        op_text,
        module: ModuleVal | None = None,
    ) -> None:
        """Replay a callee's writes to its arguments (or its module's parameters) in this caller,
        and the saves its writes carry (their own op's save of the target, ``param_graph_saves``).
        Not a module forward's saves: it is called again and again on the same input, and a
        module call's result is taken to depend on all its inputs, so the next call's replayed
        write was reported against backwards that never reach the save (differential seeds 1
        and 2: false alarms)."""
        carries_saves = state.grad_enabled and not summary.forward_like
        ops: dict[int, int] = {}  # written argument -> the op standing for the callee's there
        for index, inner in summary.param_writes.items():
            if index < len(positional) and isinstance(positional[index], TensorVal):
                tensor = positional[index]
                if index in summary.grad_off_params and inner.tensor.requires_grad is False:
                    # the flag was off when the callee wrote it (`a.detach().mul_(2)`): no leaf
                    # or multi-view check at the write (the views' next use still raises)
                    view = None if tensor.view == "multi" else tensor.view
                    tensor = replace(tensor, requires_grad=False, leaf=False, view=view)
                # the write's op saved its own target first (`a *= a`, `a.addcmul_(a, b)`): here
                # it saves the caller's tensor, and the write breaks that save
                own = (
                    [save for save in inner.saves if save.node is inner.node]
                    if carries_saves and inner.grad_enabled
                    else []
                )
                certain = tensor.requires_grad is True
                for save in own:
                    op_id = ops.setdefault(index, new_id())
                    state.add_save(
                        tensor.storage, Save(_unquote(op_text), call, op_id, save.what, certain)
                    )
                if (
                    carries_saves
                    and inner.grad_enabled
                    and inner.confirmed_by_return
                    # (a write the callee's own analysis leaves to its callers: not reported
                    # there, with its own op named)
                    and inner.judged_by_caller
                    # (a tensor this caller made; not a cache's state that an unknown call
                    # handed over, `cache.get_recurrent_state()`, updated by decode steps)
                    and tensor.known
                ):
                    # an op in the callee saved the argument before the callee wrote it, and
                    # what the callee returns reaches that save (`out = conv(spec); spec[...] =
                    # 0; return out.sum()`): for this call, the call saved it
                    for save in inner.saves:
                        if save.node is not inner.node and save.certain:
                            op_id = ops.setdefault(index, new_id())
                            # (named as the callee's op that saved it, on its own line)
                            state.add_save(
                                tensor.storage, Save(save.op, save.node, op_id, save.what)
                            )
                            own.append(save)
                            # (the call's result reaches it; of a tuple, the items that do)
                            self.returned_saves[op_id] = frozenset(inner.returned_items) or None
                self._replay(inner, tensor, call, state)
                if own:
                    positional[index] = self._in_graph_of(tensor, ops[index], state)
            elif index < len(positional) and isinstance(positional[index], SeqVal):
                # `outputs[0].masked_fill_(mask, 0)` in a helper given `[mel, post]` (tacotron2's
                # `parse_output`): the write is to that item of the caller's list
                item = _constant_item(positional[index], inner.target)
                if isinstance(item, TensorVal):
                    self._replay(inner, item, call, state)
        for (index, position), inner in summary.param_item_writes.items():
            passed = positional[index] if index < len(positional) else None
            if isinstance(passed, SeqVal) and position < len(passed.items):
                item = passed.items[position]
                if isinstance(item, TensorVal):
                    self._replay(inner, item, call, state)
        for (saved, written), what in summary.param_graph_saves.items() if carries_saves else ():
            if max(saved, written) >= len(positional):
                continue
            tensor, target = positional[saved], positional[written]
            if isinstance(tensor, TensorVal) and tensor.fw == "paddle" and tensor.view:
                # one storage stands for a Paddle tensor and all its views, whose in-place
                # writes do not invalidate each other's saves (`unbind` rows: differential
                # seed 21's one false alarm)
                continue
            if isinstance(tensor, TensorVal) and isinstance(target, TensorVal):
                op_id = ops.setdefault(written, new_id())
                state.add_save(tensor.storage, Save(_unquote(op_text), call, op_id, what))
                positional[written] = self._in_graph_of(target, op_id, state)
        if module is not None and module.path != "self":
            for inner in summary.self_param_writes:
                tensor = TensorVal(
                    fw=inner.fw,
                    storage=module.params_storage_key,
                    requires_grad=inner.tensor.requires_grad,
                    leaf=inner.tensor.leaf,
                    parameter=True,
                    param_of=module.path,
                    via_data=inner.tensor.via_data or not inner.bumps_version,
                    producer=inner.tensor.producer,
                    producer_node=inner.tensor.producer_node,
                )
                self._replay(inner, tensor, call, state, writer=module.node)
            # (NoisyNet's `self.epsilon_weight.normal_()` at every call of its forward; a
            # method run between a forward and its backward, `rope.refresh(2.0)` copying new
            # values into the cache the forward multiplied by: paddle21 b10): it breaks what an
            # earlier call of this module saved of that buffer
            for name, inner in summary.self_buffer_writes.items():
                if inner.tensor.via_data or not inner.bumps_version:
                    continue  # (an EMA's `.data` update: no version check to break)
                tensor = TensorVal(
                    fw=inner.fw,
                    storage=f"buffer:{module.key_root}.{name}",
                    requires_grad=False,
                    producer=f"the buffer `{module.path}.{name}`",
                )
                # (`net.rope.refresh()`: a save by `net`'s call holds too)
                writer = self._submodule_writer(module.path, state) or module.node
                self._replay(inner, tensor, call, state, writer=writer)

    def _in_graph_of(self, tensor: TensorVal, op_id: int, state: State) -> TensorVal:
        """A callee's in-place write gave ``tensor``'s memory the graph of op ``op_id``: so it is
        for every name holding that memory."""
        for name, held in state.env.items():
            if isinstance(held, TensorVal) and held.storage == tensor.storage:
                state.env[name] = replace(held, lineage=held.lineage | {op_id})
        return replace(tensor, lineage=tensor.lineage | {op_id})

    def _replay(self, inner: Write, tensor: TensorVal, call, state: State, writer=None) -> None:
        """``writer``: the constructor call of the module whose own forward made the write."""
        if inner.tensor.via_data and not tensor.via_data:
            tensor = replace(tensor, via_data=True)
        if inner.tensor.view == "multi":
            # the views the callee made of it (`hidden.unbind(0)`), named as the callee made them
            tensor = replace(
                tensor,
                view="multi",
                multi_base_requires_grad=tensor.requires_grad,
                producer=inner.tensor.producer,
                producer_node=inner.tensor.producer_node,
            )
        elif inner.tensor.view == "view" and not inner.full_slice and tensor.view is None:
            # `out[:, 0::2] = ...` on the argument: through a view of the caller's tensor, so a
            # leaf there raises the view-of-leaf error (XLM's sinusoidal embeddings: IPL003)
            tensor = replace(tensor, view="view", view_of_leaf=tensor.leaf or tensor.view_of_leaf)
        if inner.tensor.has_graph and tensor.leaf:
            # the callee writes it only where it is no leaf (`if not h.is_leaf: h.mul_(g)`)
            tensor = replace(tensor, leaf=False)
        if inner.tensor.requires_grad is False and tensor.requires_grad is not False:
            # the callee turned its argument's grad off before writing it (`param.stop_gradient =
            # True; param[:] = ...`, Paddle#34514's workaround): no leaf is written there
            tensor = replace(tensor, requires_grad=False, leaf=False, view_of_leaf=False)
        grad = state.grad_enabled and inner.grad_enabled
        self.record_write(
            state,
            tensor,
            inner.how,
            inner.node,
            inner.target,
            bumps=inner.bumps_version,
            op_text=inner.op_text,
            callee=call,
            stmt=inner.stmt,
            grad_override=None if not inner.grad_explicit else grad,
            full_slice=inner.full_slice,
            target_text=inner.target_text,
            condition=inner.condition,
            writer=writer,
        )
        # (the statement is the callee's: what its fixes read is the callee's view of it)
        replayed = self.result.writes[-1]
        replayed.stmt_function = inner.stmt_function
        replayed.argument = inner.argument
        replayed.alias_names = inner.alias_names
        replayed.aliased = replayed.aliased or inner.aliased
        replayed.operand_requires_grad = inner.operand_requires_grad

    def call_autograd_function(self, cls_name: str, call: cst.Call, state: State) -> Value:
        positional, _ = self._args(call, state)
        uses: list[bool] = []
        for arg, value in zip([a for a in call.args if a.keyword is None], positional):
            if arg.star:  # `apply(f, outputs, *args)`: positions after it are not known
                break
            uses.append(
                isinstance(value, TensorVal)
                and value.requires_grad is not False  # a frozen codebook: no graph to mislead
                and self._used_after(arg.value)
            )
        self.flow.apply_uses.setdefault(cls_name, []).append(tuple(uses))
        forward = self.flow.result(f"{cls_name}.forward")
        tensors = [v for v in positional if isinstance(v, TensorVal)]
        recorded = state.grad_enabled and any(t.requires_grad is not False for t in tensors)
        op_id = new_id()
        op_text = f"{cls_name}.apply"
        if forward is not None and forward.summary.param_writes:
            # the forward writes an input in place (with or without `ctx.mark_dirty`): the
            # caller's tensor changes, and an earlier op's save of it breaks (Liger-Kernel#272).
            # Its own `save_for_backward` does not: autograd packs what forward saved, with its
            # version, once forward has returned, so whatever the order inside forward (write
            # then save, as inplace_abn and MONAI's PHLFilter do, or save then write) the saved
            # version is the written one
            self._apply_param_writes(forward.summary, list(positional), call, state, op_text)
        if forward is not None and recorded:
            cls = self.index.classes.get(cls_name)
            # Paddle checks no version for what a PyLayer saved (`ctx.save_for_backward`,
            # measured on 3.3.1, lookalike41): a later write silently changes what its backward
            # reads, as a torch Function's ctx attribute does (IPL107), not the version error
            saved = (
                "ctx attribute"
                if cls is not None and cls.autograd_function_fw == "paddle"
                else "input"
            )
            for index in forward.summary.ctx_saved:
                if index < len(positional) and isinstance(positional[index], TensorVal):
                    state.add_save(positional[index].storage, Save(op_text, call, op_id, saved))
            for index in forward.summary.ctx_stashed:
                if index < len(positional) and isinstance(positional[index], TensorVal):
                    state.add_save(
                        positional[index].storage, Save(op_text, call, op_id, "ctx attribute")
                    )
        alias = forward.summary.returns_alias if forward is not None else None
        base = None
        if (
            recorded
            and alias is not None
            and alias[1] in ("same", "detach")  # (inside forward, inputs do not require grad)
            and forward.summary.returns_input_itself
            and not forward.summary.marks_dirty
            and alias[0] < len(positional)
            and isinstance(positional[alias[0]], TensorVal)
            and positional[alias[0]].requires_grad is True
        ):
            # `return x` in forward: autograd hands back a view of the input, which no in-place
            # op may touch (pytorch#30454: `logits = CustomOp.apply(x); logits *= s`)
            base = positional[alias[0]]
        elif (
            recorded
            and forward is not None
            and forward.summary.returns_view
            and not forward.summary.marks_dirty
            and any(t.requires_grad is True for t in tensors)
        ):
            # a view of a tensor made inside returned (`return flat.view(...)`, `(x * 2).t()`):
            # autograd's output is a view made inside a custom Function too, measured under
            # torch 2.13 (AQLM PR#26: `out += bias` raises)
            base = TensorVal(fw="torch", storage=new_id(), requires_grad=True)
        if base is not None:
            return replace(
                base,
                storage=new_id(),
                view="multi",
                multi_base_requires_grad=True,
                custom_function_view=True,
                leaf=False,
                producer=f"`{op_text}`",
                producer_node=call,
                lineage=frozenset().union(*(t.lineage for t in tensors)) | {op_id},
            )
        cls = self.index.classes.get(cls_name)
        upstream = frozenset().union(*(t.lineage for t in tensors))
        backward_defined = cls is None or _defines_backward(cls, self.index)
        if not backward_defined:
            # an export-only Function (yolov7's TRT_NMS: forward and symbolic, no backward): a
            # backward through it raises NotImplementedError before it reaches anything saved
            # on the way to its inputs
            upstream = frozenset()
        result = TensorVal(
            fw=self.fw,
            storage=new_id(),
            requires_grad=tri_or([t.requires_grad for t in tensors])
            if state.grad_enabled
            else False,
            producer=f"`{op_text}`",
            producer_node=call,
            known=forward is not None,
            lineage=upstream | {op_id},
        )
        if (
            recorded
            and forward is not None
            and forward.summary.ctx_saves_output
            and backward_defined
        ):
            # its forward saved what it returns: the caller's later write to the result breaks
            # that save (a custom sigmoid's `y.mul_(2)`)
            state.add_save(result.storage, Save(op_text, call, op_id, "output"))
        return result

    def instantiate_local(self, cls_name: str, call: cst.Call, state: State) -> Value:
        positional, keywords = self._args(call, state)
        cls = self.index.classes.get(cls_name)
        if cls is not None and (cls.module_fw or cls.looks_like_module):
            init_key = f"{cls_name}.__init__"
            init_entry: tuple = ()
            if init_key in self.index.functions and not any(a.star == "*" for a in call.args):
                arguments = self._arguments_by_index(init_key, positional, keywords)
                if any(a.star == "**" for a in call.args):
                    # `Module(c, relu=False, **dd)` (timm's factory keywords): what the call
                    # spells is known (a name given twice raises); a parameter it leaves out
                    # may come from the mapping, so its default is not
                    names = self.flow.parameter_names(init_key)
                    arguments = [
                        value if index < len(positional) or names[index] in keywords else None
                        for index, value in enumerate(arguments)
                    ]
                init_entry = _init_signature(
                    arguments,
                    rates=self.flow.dropout_rates(init_key),
                    exact=self._spelled_lists(call, positional, keywords, state),
                )
            children: tuple = ()
            frozen = False
            if init_key in self.index.functions and cls.module_fw:
                frozen = _SELF_FROZEN in self.flow.init_attributes(cls, init_entry)
            sequential = _sequential_base(cls)
            if sequential is not None and not _calls_own_code([cls]):
                held = self.flow.init_attributes(cls, init_entry).get(_SEQUENTIAL_CHILDREN)
                if isinstance(held, SeqVal):
                    children = tuple(c for c in held.items if isinstance(c, ModuleVal))
            return ModuleVal(
                path=f"<{cls_name}>",
                local_class=cls_name,
                qualname=sequential if children else None,
                fw=cls.module_fw or self.fw,
                node=call,
                uid=new_module_uid(),
                init_entry=init_entry,
                children=children,
                frozen=frozen,
                has_parameters=bool(cls.module_fw) or self._holds_parameters(cls, init_entry),
            )
        if (
            cls is not None
            and not cls.autograd_function_fw
            and any(isinstance(v, ParamsVal) for a in positional for v in _flatten(a))
            and not any(a.star for a in call.args)
        ):
            # a plain class of this module given the parameters (a from-scratch `SGD(params,
            # lr)`, a `torch.optim.Optimizer` subclass): an optimizer over them, as for a class
            # the analysis does not know (call_opaque), whose methods run with what `__init__`
            # made of those arguments
            params = [v for a in positional for v in _flatten(a) if isinstance(v, ParamsVal)]
            optimizer = self._optimizer_over(params, self.fw)
            init_key = f"{cls_name}.__init__"
            entry: tuple = ()
            if init_key in self.index.functions:
                entry = _entry_signature(self._arguments_by_index(init_key, positional, keywords))
            return replace(optimizer, local_class=cls_name, init_entry=entry)
        if (
            cls is not None
            and not positional
            and keywords
            and not any(a.star for a in call.args)
            and "__init__" not in cls.methods
            and _record_class(cls)
        ):
            # `ClsOutput(logits=z, probs=z.softmax(-1))` of a local `@dataclass` or NamedTuple
            # (HF-style model outputs): its fields are what was given, read as `out.probs`
            return _keyword_dict(keywords)
        if (
            cls is not None
            and positional
            and not any(a.star for a in call.args)
            and any(b.rsplit(".", 1)[-1] == "NamedTuple" for b in cls.base_names)
            and (fields := _annotated_fields(cls.node))
            and len(positional) <= len(fields)
        ):
            # `EncOut(mu, logvar)` of `class EncOut(NamedTuple)`: the tuple of its fields
            return _fields_tuple(fields, positional, keywords)
        if cls is not None and _mapping_class(cls, self.index):
            # `AttrDict(q=...)` of `class AttrDict(dict)`: a mapping like `dict(q=...)`, whose
            # entries are read as attributes
            return self.call_opaque(call, state, call.func)
        if cls is not None and not cls.autograd_function_fw:
            # an instance of a plain class of this module (an RL agent, a trainer holding its
            # networks and optimizers): no parameters of its own, but its methods run with what
            # `__init__` made, and the submodules it holds are what they are; a trainable
            # tensor it is given is one it holds (waveprop's `RealFFTConvolve2D(psf)`)
            init_key = f"{cls_name}.__init__"
            init_entry = ()
            if init_key in self.index.functions and not any(a.star for a in call.args):
                arguments = self._arguments_by_index(init_key, positional, keywords)
                init_entry = _init_signature(arguments, trainable=True)
                self._replay_init_writes(init_key, arguments, call, state)
            return ModuleVal(
                path=f"<{cls_name}>",
                local_class=cls_name,
                fw=self.fw,
                node=call,
                uid=new_module_uid(),
                init_entry=init_entry,
                has_parameters=False,
            )
        return UNKNOWN

    def _default_float_dtype(self, call: cst.Call, state: State) -> bool:
        """`torch.as_tensor(x)` / `torch.as_tensor(x, dtype=torch.float32)`: no dtype, or the
        default float one that model tensors have (spelled so, or held by a name)."""
        for arg in call.args[1:]:
            if (arg.keyword is None and arg is call.args[1]) or (
                arg.keyword is not None and arg.keyword.value == "dtype"
            ):
                expr = arg.value
                if dotted_name(expr) in _FLOAT32:
                    continue
                held = self.eval(expr, state) if type(expr) is cst.Name else None
                if isinstance(held, FrameworkRef) and held.qualname in _FLOAT32:
                    continue
                default = self._default_of(expr.value) if held is UNKNOWN else None
                if default is not None and dotted_name(default) in _FLOAT32:
                    continue  # (`def to_tensor(x, dtype=torch.float32)` left at its default)
                return False
        return True

    def _default_of(self, name: str) -> cst.BaseExpression | None:
        """The default expression of this function's parameter ``name``, if it has one."""
        params = self.info.node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.name.value == name and param.default is not None:
                return param.default
        return None

    def _replay_init_writes(self, init_key: str, arguments: list, call, state: State) -> None:
        """`Boxes(pred)` whose `__init__` keeps the tensor and writes it in place (`self.tensor =
        tensor; self.tensor[:, :3] += ...`, mmdetection3d's box classes): the construction writes
        the caller's tensor, as a helper writing its argument does."""
        if not self.call_local_functions or init_key == self.info.key:
            return
        callee = self.flow.result(init_key)
        if callee is None or not callee.summary.param_writes:
            return
        self._apply_param_writes(
            callee.summary, arguments, call, state, f"`{_short(self, call.func)}`"
        )

    def _spelled_lists(self, call: cst.Call, positional: list, keywords: dict, state: State):
        """The ids of the arguments of ``call`` that are lists or tuples known item by item: a
        display without a star, or a name holding such a list (``SeqVal.exact``)."""
        exact: set[int] = set()
        values = iter(positional)
        for arg in call.args:
            value = (
                keywords.get(arg.keyword.value) if arg.keyword is not None else next(values, None)
            )
            if not isinstance(value, SeqVal):
                continue
            expr = arg.value
            if (
                type(expr) in (cst.List, cst.Tuple)
                and not any(type(e) is cst.StarredElement for e in expr.elements)
            ) or value.exact:
                exact.add(id(value))
        return exact

    def _holds_parameters(self, cls, init_entry: tuple) -> bool:
        """A class with a `forward` but no module base (a from-scratch MLP holding plain
        tensors): whether its `__init__` gives it anything that requires grad, a parameter or a
        module with parameters; when `__init__` cannot be followed, assume it does."""
        if f"{cls.name}.__init__" not in self.index.functions:
            return True
        attrs = self.flow.init_attributes(cls, init_entry)
        return (
            any(
                (isinstance(v, ModuleVal) and v.has_parameters)
                or (isinstance(v, TensorVal) and (v.parameter or v.requires_grad is True))
                or isinstance(v, (Unknown, ParamsVal))
                for v in attrs.values()
            )
            or not attrs
        )

    def call_opaque(
        self, call: cst.Call, state: State, callee: cst.CSTNode, receiver: Value | None = None
    ) -> Value:
        """A call we know nothing about; ``callee`` is quoted only when the result is a tensor
        (most opaque calls take none)."""
        positional, keywords = self._args(call, state)
        if type(callee) is cst.Name and callee.value in _NUMBER_BUILTINS and receiver is None:
            if len(call.args) == 1 and positional:
                _drop_unread_saves(positional[0], call.args[0].value, state)
            return UNKNOWN  # `float(x.norm())`: a Python number, no graph (like `.item()`)
        builtin = (
            callee.value
            if type(callee) is cst.Name and receiver is None and callee.value not in state.env
            else None
        )
        if builtin == "dict" and not call.args:
            return DictVal()  # `feats = dict()`: entries followed by key, as for `{}`
        if (
            not call.args
            and receiver is None
            and (name := dotted_name(callee)) in _ORDERED_DICTS
            and name.split(".")[0] not in state.env
        ):
            # `losses = OrderedDict()` (ADN's loss dicts, recall33): as `{}`
            return DictVal()
        if builtin == "dict" and _plain_config(call.args, positional + list(keywords.values())):
            # `act_cfg = dict(type="ReLU")` handed to mmcv's ConvModule: not None, so the
            # activation it guards is built
            return ConstVal(CONFIG_DEFAULT)
        if builtin in _NON_TENSOR_BUILTINS:
            return UNKNOWN  # `len(x)` is an int, `isinstance(...)` a bool: never a tensor
        if (
            builtin == "dict"
            and len(positional) == 1
            and isinstance(positional[0], ParamsVal)
            and positional[0].named
        ):
            return replace(positional[0], mapping=True)  # `dict(rnn.named_parameters())`
        if builtin == "dict" and not positional and not any(a.star for a in call.args):
            # `dict(logits=z, probs=z.softmax(-1))`: its entries, as `{"logits": z, ...}`
            return _keyword_dict(keywords)
        if builtin == "dict":
            # `dict(assertions)`, `dict(zip(names, feats))`: a dict, never a tensor; its entries
            # are not followed
            args = positional + list(keywords.values())
            return DictVal(frozenset().union(*(lineage_of(a) for a in args)))
        if builtin in _SEQUENCE_BUILTINS:
            # `list(range(n))`, `list(torch.split(x, 2))`: a Python list (a write into its items
            # rebinds a slot); the same items when the analysis knows them
            value = positional[0] if positional else UNKNOWN
            if isinstance(value, SeqVal) or _parameter_collection(value):
                return value  # (`list(model.parameters())` handed to an optimizer)
            if (
                builtin in ("list", "tuple")
                and isinstance(value, TensorVal)
                and value.fw == "torch"
                and value.view != "multi"  # `list(torch.split(x, 2))`: the split's own views
                and value.known  # not what an unknown call returned (`list(range(n))`)
                # nor an argument, which is as often a list of tensors (`inputs = list(inputs)`)
                and value.storage not in self.param_storages
                and len(call.args) == 1
                and (facts := kb.method("torch", "unbind")) is not None
            ):
                # `list(lin.weight)`: iterating a tensor is `unbind(0)`, its rows the views of
                # one multi-output call (DeepCTR#130: kept, then used after the step)
                text = f"`{_code(self, call)}`"
                return self.apply_op(facts, [value], {}, call, state, text, how="function")
            return Unknown(lineage_of(value))
        if not (type(callee) is cst.Name and callee.value in _READ_ONLY_BUILTINS):
            self._lists_escape(call, state)
        self._numpy_out(keywords, call, state)
        params = positional[0] if positional else keywords.get("params")
        name = dotted_name(callee) or ""
        self._transformed_modules(name, call, state)
        if (
            receiver is None
            and name.rsplit(".", 1)[-1][:1].isupper()
            and any(isinstance(v, ParamsVal) for v in _flatten(params))
        ):
            # `AdamW(model.parameters())` of a class the analysis does not know (torchao.optim,
            # bitsandbytes, a project's own): an optimizer over those parameters
            return self._optimizer_over(params, self.fw)
        args = positional + list(keywords.values())
        if receiver is not None:
            args.append(receiver)
        return self._unknown_call_result(args, call, state, callee)

    def _unknown_call_result(self, args: list, call, state: State, callee) -> Value:
        """What a call the analysis cannot see into returns; ``callee`` is quoted only when a
        tensor is among ``args`` (printing it costs: most such calls take none)."""
        if not any(isinstance(t, TensorVal) for a in args for t in _flatten(a)):
            return self._opaque_result(args, call, state, "", known=False)  # its own shortcut
        return self._opaque_result(args, call, state, f"`{_short(self, callee)}`", known=False)

    def _opaque_result(
        self,
        args,
        call,
        state,
        op_text,
        known: bool,
        requires_grad: bool | None = None,
        saves_output: bool = False,
        opaque: bool | None = None,
        uses_views: bool = True,
        output_condition: str | None = None,
        tensor_result: bool = False,
    ) -> Value:
        """A call's result when the op is not in the tables. ``opaque``: what the call saved is
        not known (by default: when the result is not ``known``); with a tensor that may require
        grad among the arguments, the function's summary says so (``opaque_inside``)."""
        # tensors passed in a tuple or list count as passed (`rearrange_many((q, k, v), ...)`)
        tensors = [t for a in args for t in _flatten(a) if isinstance(t, TensorVal)]
        if uses_views:  # (a local callee's own ops are the uses, not the call)
            self._use_views(tensors, call, state)
        if (not known if opaque is None else opaque) and any(
            t.requires_grad is not False for t in tensors
        ):
            self.result.summary.opaque_inside = True
        lineage = frozenset().union(*(lineage_of(a) for a in args)) if args else frozenset()
        if not tensors and requires_grad is None and not tensor_result:
            return Unknown(lineage) if lineage else UNKNOWN
        op_id = new_id()
        rg = (
            requires_grad
            if requires_grad is not None
            else tri_or([t.requires_grad for t in tensors])
        )
        if rg is False and any(t.requires_grad is None for t in tensors):
            rg = None
        if not state.grad_enabled:
            rg = False
        fw = tensors[0].fw if tensors else self.fw
        result = _op_result(fw, rg, op_text, call, lineage | {op_id}, state, known=known)
        if saves_output and state.grad_enabled:
            state.add_save(
                result.storage,
                Save(_unquote(op_text), call, op_id, "output", condition=output_condition),
            )
        return result

    # ---------------------------------------------------------------- ops
    def apply_op(
        self,
        facts,
        positional: list[Value],
        keywords: dict[str, Value],
        node,
        state: State,
        op_text: str,
        how: str,
        target_expr=None,
        report_writes: bool = True,
        constructor=None,
        params_require_grad: bool = False,
        uncertain: bool = False,
    ) -> Value:
        """Bind arguments to the op's parameters, record its write, its saves, and its result.
        ``uncertain``: the op may not run at all as these facts say (its saves make no promise)."""
        autocast_copies = self._casts_to_lower_precision(facts)
        bound: dict[str, Value] = {}
        for name, value in zip(facts.params, positional):
            bound[name] = value
        for name, value in keywords.items():
            if name in facts.params or name not in bound:
                bound[name] = value
        values = list(bound.values()) + positional
        tensors = [v for v in values if isinstance(v, TensorVal)]
        for value in values:
            if isinstance(value, SeqVal):
                tensors.extend(i for i in _flatten(value) if isinstance(i, TensorVal))
        # a list's items count too: `torch.stack(outs)` of a list built with `.append`
        lineage = frozenset().union(*(lineage_of(v) for v in values), *(t.lineage for t in tensors))

        # out=
        out_value = keywords.get("out")
        if isinstance(out_value, TensorVal) or (
            facts.out_param
            and facts.out_param in keywords
            # (`torch.mean(x, dim=-1, out=None)`: no output tensor, DeepCTR's FiBiNET)
            and not (isinstance(out_value, ConstVal) and out_value.value is None)
        ):
            requiring = [t for t in tensors if t.requires_grad is True]
            self.result.out_calls.append(
                OutCall(
                    node,
                    op_text,
                    [t.producer for t in requiring],
                    state.grad_enabled,
                    self.grad_explicit,
                    self.info.key,
                )
            )
            if isinstance(out_value, TensorVal):
                # (the `out=` expression: `out=self._u` writes the module's buffer, which a
                # caller's earlier call of the module saved: pytorch#62293's spectral norm)
                out_expr = _arg_expr(node, (), "out") if type(node) is cst.Call else None
                # ("out": the op raises first, an argument requires grad (IPL005); "out-write":
                # it runs, and its write breaks what an earlier op saved of that tensor, NeMo's
                # `torch.where(..., out=states)` after `weights[states]` saved the indices)
                how = "out" if requiring else "out-write"
                self.record_write(state, out_value, how, node, out_expr, op_text=op_text)

        target = bound.get(facts.inplace_param) if facts.inplace_param else None
        grad_on = state.grad_enabled
        self._use_views(tensors, node, state)
        may_record = (
            grad_on
            and facts.differentiable
            and (params_require_grad or any(t.requires_grad is not False for t in tensors))
        )
        certain = (
            grad_on
            and not uncertain
            and (params_require_grad or any(t.requires_grad is True for t in tensors))
        )
        op_id = new_id()
        saves: list[tuple[str, int, Save]] = []  # (param, storage, save), added around the write
        if may_record:
            for param, condition in facts.saves.items():
                value = bound.get(param)
                if isinstance(value, SeqVal):  # a state tuple (`lstm(x, (h0, c0))`): each part
                    for part in _flatten(value):
                        if isinstance(part, TensorVal):
                            save = Save(_unquote(op_text), node, op_id, "input", certain)
                            saves.append((param, part.storage, save))
                    continue
                if not isinstance(value, TensorVal):
                    continue
                if facts.inplace_param == param and facts.inplace_saves_clone:
                    continue
                if condition:
                    triggers = [bound.get(c) for c in condition]
                    flags = [t.requires_grad for t in triggers if isinstance(t, TensorVal)]
                    if any(f is True for f in flags) and grad_on:
                        save_certain = not uncertain
                    elif any(f is None for f in flags):
                        save_certain = False
                    else:
                        continue
                else:
                    save_certain = certain
                what = (
                    "output"
                    if facts.inplace_param == param and not facts.inplace_saves_clone
                    else "input"
                )
                only = frozenset({value.attr}) if value.attr else None
                if value.strided and value.fw == "paddle" and facts.name in PADDLE_COPIES_STRIDED:
                    continue  # it saved a contiguous copy: a write to the view's base is harmless
                if autocast_copies and value.dtype not in _AUTOCAST_KEPT:
                    # autocast cast this input to lower precision and the op saved the cast copy
                    # (measured: a later write to the fp32 tensor raises nothing); a tensor
                    # already in lower precision (made by such an op in the region) is saved
                    continue
                saves.append(
                    (
                        param,
                        value.storage,
                        Save(
                            _unquote(op_text),
                            node,
                            op_id,
                            what,
                            save_certain,
                            only=only,
                            via_data=value.via_data,
                        ),
                    )
                )
        if isinstance(target, TensorVal) and report_writes:
            # An argument that is the target itself (`x.mul_(x)`, `x.addcmul_(x[0], y)`) is saved
            # before the op writes it: the op invalidates its own save.
            before, after = [], []
            for entry in saves:
                own = entry[0] != facts.inplace_param and entry[1] == target.storage
                (before if own else after).append(entry)
            for _, storage, save in before:
                state.add_save(storage, save)
            self.record_write(
                state,
                target,
                how,
                node,
                target_expr,
                op_text=op_text,
                constructor=constructor,
                operand_rg=tri_or(
                    [t.requires_grad for t in tensors if t.storage != target.storage] or [False]
                ),
            )
            # (`y = self.relu(x)`, `y = F.relu(x, inplace=True)`; `x0 = pos.floor_()` when the
            # method's result itself is what is assigned, and it computes new values)
            if isinstance(target_expr, cst.Name) and (
                how in ("module", "inplace-kw")
                or (
                    how == "method"
                    and type(node) is cst.Call
                    and type(node.func) is cst.Attribute
                    and node.func.attr.value in _ELEMENTWISE_METHODS
                    and type(self.stmt) is cst.Assign
                    and (
                        _assigned_as_is(self.stmt.value, node)
                        or _arithmetic_operand(self.stmt.value, node)
                    )
                )
            ):
                self.last_inplace_activation = (target_expr.value, node, op_text)
            saves = after
        for _, storage, save in saves:
            state.add_save(storage, save)

        rg: bool | None = (
            # a module's parameters make the result require grad; without them, the inputs
            # decide, when they are all known tensors (an unknown one may require grad)
            tri_or(
                [t.requires_grad for t in tensors]
                + ([True] if params_require_grad else [])
                + ([None] if not tensors or _has_unknown(values) else [])
            )
            if grad_on
            else False
        )
        if not facts.differentiable:
            rg = False
        if isinstance(target, TensorVal):
            # under no_grad the write records no node: the operands do not join its graph
            result: Value = replace(
                target,
                lineage=target.lineage | lineage | {op_id} if grad_on else target.lineage,
                requires_grad=tri_or([target.requires_grad, rg])
                if grad_on
                else target.requires_grad,
            )
            if (
                target_expr is not None
                and (path := dotted_name(_inplace_chain_base(target_expr)))
                and path in state.env
                and state.env[path] is target
            ):
                # (`h.mul_(0.5).add_(new)`: the chain's second write is `h`'s too)
                state.env[path] = result
        elif (
            facts.view_of
            and isinstance(base := bound.get(facts.view_of), TensorVal)
            and base.permuted
            and facts.name in _COPIES_WHEN_PERMUTED
        ):
            # `sigmoid(x).transpose(1, 2).reshape(B, -1)`: the merge of swapped axes cannot be a
            # view, so reshape / flatten copy (a reshape that merges none would still be a view:
            # taken for a copy, that can only miss a write)
            result = self._fresh_from([base], node, state, op_text)
        elif facts.view_of and isinstance(bound.get(facts.view_of), TensorVal):
            result = self._view_of(
                bound[facts.view_of],
                node,
                state,
                op_text,
                op_id=op_id,
                permutes=facts.name in _PERMUTING_VIEWS,
            )
        elif facts.multi_view_of and isinstance(bound.get(facts.multi_view_of), TensorVal):
            base = bound[facts.multi_view_of]
            result = replace(
                base,
                view="multi",
                multi_id=op_id,
                nondiff_outputs=(),  # the views, not the base op's tuple (`bn(x).unbind(0)`)
                multi_base_requires_grad=base.requires_grad if grad_on else False,
                view_of_leaf=base.leaf or base.view_of_leaf,
                leaf=False,
                lineage=base.lineage | {op_id},
                producer=op_text,
                producer_node=node,
            )
        elif not facts.returns_tensor:
            return Unknown(lineage)
        else:
            fw = tensors[0].fw if tensors else self.fw
            result = _op_result(
                fw,
                rg,
                op_text,
                node,
                # `idx = torch.argmin(d, dim=1)`: integers, no graph; no backward through them
                # reaches what the ops before saved (a VQ codebook's EMA writes stay unread)
                lineage | {op_id} if facts.differentiable else frozenset(),
                state,
                known=True,
                nondiff_outputs=facts.nondiff_outputs,
            )
            if autocast_copies:
                result = replace(result, dtype=_AUTOCAST_DTYPE)
            elif fw == "torch" and "dtype" not in keywords:
                if facts.name in _INDEX_OPS:
                    result = replace(result, dtype="int64")
                elif (
                    # float64 in, float64 out: type promotion keeps the widest float, and
                    # autocast never casts a float64 tensor (its eligibility test excludes
                    # double); a float32 one it may, so only float64 is followed through ops
                    facts.differentiable
                    and tensors
                    and all(t.dtype == "float64" for t in tensors)
                    and not _has_unknown(values)
                    and not any(part in facts.name for part in _COMPLEX_PRODUCERS)
                ):
                    result = replace(result, dtype="float64")
        if facts.saves_output and may_record and isinstance(result, TensorVal):
            state.add_save(result.storage, Save(_unquote(op_text), node, op_id, "output", certain))
        if facts.result is not None and isinstance(result, TensorVal):
            return _tuple_result(facts.result, result)
        return result

    def _view_of(
        self,
        base: TensorVal,
        node,
        state: State,
        op_text: str,
        op_id: int | None = None,
        permutes: bool = False,  # the view swaps axes (`transpose`, `.T`): torch reshapes copy
    ) -> TensorVal:
        op_id = op_id or new_id()
        return replace(
            base,
            view=base.view or "view",
            permuted=base.permuted or (permutes and base.fw == "torch"),
            nondiff_outputs=(),
            view_of_leaf=base.leaf or base.view_of_leaf,
            leaf=False,
            lineage=base.lineage | {op_id},
            producer=base.producer,
            producer_node=base.producer_node,
        )

    def _save_indices(
        self,
        base: TensorVal,
        indices: list[TensorVal],
        result: Value,
        expr,
        state: State,
        op_text: str,
    ) -> None:
        """`w[idx]` / `x[mask]` with tensors as indices: aten's `index.Tensor` saves them
        (derivatives.yaml: `indices` in its backward), so a later in-place write to the index
        tensor breaks the backward through the result (NeMo's n-gram LM: `backoff_weights[states]`
        then `torch.where(..., out=states)`)."""
        facts = kb.method("torch", "__getitem__")
        op_id = _last_op_id(result)
        if (
            facts is None
            or not facts.saves
            or op_id is None
            or not state.grad_enabled
            or base.requires_grad is False
        ):
            return
        certain = base.requires_grad is True
        for index in indices:
            # (a tensor the analysis only assumes, a forward's parameter, may be a Python int:
            # `self.bias[step]; step += 1` rebinds a number; lookalike36)
            if index.storage == base.storage or not index.known:
                continue
            if (
                index.storage in self.param_storages
                and index.storage not in self.params_given_tensors
                and index.dtype not in _INDEX_DTYPES
            ):
                continue  # (an argument no caller here gave as a tensor: maybe `Head()(0)`)
            state.add_save(index.storage, Save(_unquote(op_text), expr, op_id, "input", certain))

    def _fresh_from(
        self, tensors: list[TensorVal], node, state: State, op_text: str, keep_grad: bool = True
    ) -> TensorVal:
        self._use_views(tensors, node, state)
        op_id = new_id()
        rg = (
            tri_or([t.requires_grad for t in tensors])
            if (state.grad_enabled and keep_grad)
            else False
        )
        lineage = frozenset().union(*(t.lineage for t in tensors)) | {op_id}
        return _op_result(tensors[0].fw, rg, op_text, node, lineage, state, known=True)

    def _binary_result(self, left: Value, right: Value, op: str, node, state: State) -> Value:
        tensor = (
            left if isinstance(left, TensorVal) else right if isinstance(right, TensorVal) else None
        )
        if tensor is None:
            return Unknown(lineage_of(left) | lineage_of(right))
        facts = kb.binary_operator(tensor.fw, op, augmented=False)
        if isinstance(left, ConstVal) and isinstance(left.value, str):
            return Unknown(lineage_of(right))  # `"%s" % x`: string formatting
        if tensor.fw == "torch" and op in ("/", "//", "%") and isinstance(left, ConstVal):
            # `5000. / q` is `q.__rtruediv__(5000.)`, i.e. `q.reciprocal() * 5000.` (torch/_tensor.py):
            # the reciprocal saves its own output, an intermediate; `q` is not saved
            facts = None
        else:
            facts = kb.resolve_overload(tensor.fw, facts, _kinds([left, right]), frozenset())
        if (
            tensor.fw == "paddle"
            and op != "**"
            and not (isinstance(left, TensorVal) and isinstance(right, TensorVal))
        ):
            # a Python scalar operand: paddle runs `scale`, which saves no tensor (but `x ** 2`
            # runs `pow`, which saves `x`: measured under paddle 3.3)
            facts = None
        text = _operation_text(node, op) if isinstance(node, cst.BinaryOperation) else None
        if text is None:
            text = f"`{_short(self, node)}`"
        if facts is None:
            return self._fresh_from(
                [t for t in (left, right) if isinstance(t, TensorVal)], node, state, text
            )
        return self.apply_op(
            facts,
            [left, right],
            {},
            node,
            state,
            op_text=text,
            how="operator",
            report_writes=False,
            # paddle runs `scale`, saving nothing, when the operand is a Python number: an
            # argument of unknown type (`x * size[1]` with `size` a list of ints) may be one
            uncertain=tensor.fw == "paddle" and op != "**" and self._maybe_number(left, right),
        )

    def _maybe_number(self, *values: Value) -> bool:
        """One of ``values`` is (part of) an argument of this function whose type nothing shows:
        a Python number or list as well as a tensor (a forward's inputs are tensors)."""
        return not self.is_forward_like and any(
            isinstance(v, TensorVal)
            and v.storage in self.param_storages
            and self.param_entry_rg.get(v.storage) is None
            for v in values
        )

    def _used_after(self, expr) -> bool:
        """Whether the caller may read the tensor ``expr`` names after the statement being run:
        False for a temporary (`Fn.apply(x * 2)`), or a name the statement rebinds or no later
        statement (nor any statement of an enclosing loop) mentions."""
        if type(expr) is not cst.Name:
            return type(expr) is cst.Attribute  # `self.buf`: others may read it
        order = self._statement_order()
        return self._seen_later(expr.value, order.reads, unplaced=True)

    def _passed_on_after(self, name: str) -> bool:
        """Whether a later statement (or one of an enclosing loop) writes the value ``name`` holds
        now back into another tensor or an item before rebinding it: `param -= lr * g` followed by
        `params[i].set_value(param)` (d2l's Paddle `sgd`) computes a value it then stores."""
        order = self._statement_order()
        return self._seen_later(name, order.passed, unplaced=False)

    def _seen_later(self, name: str, found: list[set[str]], unplaced: bool) -> bool:
        """Whether ``name`` is in ``found`` (a ``_StatementOrder`` table) for a statement after the
        one being run, or one of an enclosing loop's from its start, before a later statement
        rebinds it; ``unplaced`` when the statement being run is not in the table. A name the
        statement itself binds is gone (`Q = Fn.apply(Q)`)."""
        order = self._statement_order()
        position = order.index.get(id(self.stmt))
        if position is None:
            return unplaced
        if name in order.binds[position]:
            return False
        later = range(position + 1, len(order.reads))
        loop = order.loop_start[position]
        candidates = list(later) + (list(range(loop, position)) if loop is not None else [])
        for i in candidates:
            if name in found[i]:
                return True
            if name in order.binds[i] and i > position:
                return False
        return False

    def _statement_order(self) -> _StatementOrder:
        if self._order is None:
            self._order = _StatementOrder(self.info.node)
        return self._order

    def _transformed_modules(self, name: str, call: cst.Call, state: State) -> None:
        """`quantize_(model, config)` (torchao): a function named like an in-place op transforms
        the modules it is given, and may replace or freeze their parameters."""
        if not name.endswith("_") or name.endswith("__"):
            return
        for arg in call.args:
            path = dotted_name(arg.value)
            value = state.env.get(path) if path else None
            if isinstance(value, ModuleVal):
                state.env[path] = replace(value, params_unknown=True)

    def _in_constructor(self) -> bool:
        """This is a class's `__init__` (or a method it runs while building the object)."""
        return self.info.cls is not None and (
            self.info.node.name.value == "__init__"
            or bool(self.self_entry)
            and isinstance(self.self_entry[0], _InitState)
        )

    def _optional_parameters(self) -> frozenset[str]:
        """Parameters defaulting to None, True or False (`last_attended_idx=None`): a branch on
        them depends on how the function is called. Computed once per function (every `if`
        asks)."""
        if self._optional is None:
            params = self.info.node.params
            self._optional = frozenset(
                p.name.value
                for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                if type(p.default) is cst.Name and p.default.value in ("None", "True", "False")
            )
        return self._optional

    def _parameter_default(self, expr) -> object:
        """The literal default of the function's parameter that ``expr`` names, else _NOT_LITERAL."""
        if type(expr) is not cst.Name:
            return _NOT_LITERAL
        default = self._default_of(expr.value)
        return _literal(default) if default is not None else _NOT_LITERAL

    def _make_module(self, qual: str, facts, call: cst.Call, state: State) -> Value:
        container = facts is not None and getattr(facts, "container", False)
        named = _ordered_dict_items(call) if container else None
        names: tuple[str, ...] = ()
        if named is not None:
            # `nn.Sequential(OrderedDict([("conv", nn.Conv2d(...)), ("bn", ...)]))`: named
            # children, in order
            positional = [SeqVal(tuple(self.eval(expr, state) for _, expr in named))]
            names = tuple(name for name, _ in named)
        else:
            positional, _ = self._args(call, state)
        fw = qual.split(".")[0]
        children: tuple[ModuleVal, ...] = ()
        # `nn.Sequential(*layers)` of a list built one way or the other by an option
        given = (
            state.env.get(call.args[0].value.value)
            if container
            and len(call.args) == 1
            and call.args[0].star == "*"
            and type(call.args[0].value) is cst.Name
            else None
        )
        if not (type(given) is SeqVal and given.alternatives):
            given = None
        if container:
            items = list(_flatten(SeqVal(tuple(positional))))
            if any(isinstance(v, ModuleVal) for v in items):
                # A child the analysis does not know (`spectral_norm(nn.Conv2d(...))`, an
                # imported block) stays in the chain as an opaque module: the activation after
                # it works on its output, not on the container's input.
                children = tuple(
                    v
                    if isinstance(v, ModuleVal)
                    else ModuleVal("<unknown>", fw=fw, uid=new_module_uid())
                    for v in items
                )
            if given is not None:
                self._check_alternative_adjacency(given.alternatives)
            else:
                self._check_adjacency(children)
        exact = (
            (
                len(names) == len(children)
                if named is not None
                else _spelled_children(call, positional) == len(children)
            )
            if children
            else container and not call.args  # `nn.ModuleList()`: none yet
        )
        if (
            not exact
            and children
            and named is None
            and len(call.args) == 1
            and call.args[0].keyword is None
            and (held := _given_list(call.args[0], positional, state)) is not None
            and held.exact
            and len(held.items) == len(children)
        ):
            # `nn.ModuleList(layers)` / `nn.Sequential(*layers)` of a list the caller spelled
            # item by item (cgnet-style constructors given `[nn.Linear(...), nn.Tanh()]`)
            exact = True
        if len(names) != len(children):
            names = ()
        has_params = bool(getattr(facts, "has_parameters", True)) if facts is not None else True
        if children:
            has_params = any(c.has_parameters for c in children)
        alternatives: tuple = ()
        if given is not None:
            # one container per side of the option, each called under its condition
            # (``_call_alternatives``)
            alternatives = tuple(
                (
                    condition,
                    ModuleVal(
                        path="<anonymous>",
                        qualname=qual,
                        facts=facts,
                        children=side.items,
                        fw=fw,
                        node=call,
                        has_parameters=any(c.has_parameters for c in side.items),
                        uid=new_module_uid(),
                    ),
                )
                for condition, side in given.alternatives
            )
        return ModuleVal(
            path="<anonymous>",
            qualname=qual,
            facts=facts,
            children=children,
            children_exact=exact,
            child_names=names,
            fw=fw,
            node=call,
            has_parameters=has_params,
            uid=new_module_uid(),
            alternatives=alternatives,
        )

    def _check_alternative_adjacency(self, alternatives: tuple) -> None:
        """``_check_adjacency`` for a container built from one of two lists by an option: a pair
        on both sides holds always, a pair on one side only under that side's condition."""
        found: dict[tuple[int, int], list] = {}
        for condition, side in alternatives:
            before = len(self.result.adjacency)
            self._check_adjacency(side.items)
            for event in self.result.adjacency[before:]:
                found.setdefault((id(event.node), id(event.previous_node)), []).append(
                    (condition, event)
                )
            del self.result.adjacency[before:]
        for sides in found.values():
            condition, event = sides[0]
            if len(sides) == 1 and event.condition is None:
                event = replace(event, condition=condition)
            self.result.adjacency.append(event)

    def _check_adjacency(self, children: tuple[ModuleVal, ...]) -> None:
        """An in-place activation right after a module that saves its output, inside one container."""
        for previous, child in itertools.pairwise(children):
            if (
                previous.facts is None
                or child.facts is None
                or child.node is None
                or previous.node is None
            ):
                continue
            if _saves_then_writes(previous, child):
                self.result.adjacency.append(
                    SequentialAdjacency(
                        child.node,
                        previous.node,
                        _code(self, previous.node),
                        _code(self, child.node),
                        child.fw,
                        _inplace_keyword(child.node, child.qualname),
                        child.write_condition,  # a dropout whose rate is not known: IPL203
                    )
                )

    def _paddle_assign_output(self, call: cst.Call, output, state: State) -> Value:
        """`paddle.assign(x, output=t)` copies into `t` in place: its version moves (an op
        that saved `t` fails at backward), without Paddle's leaf check (measured: a trainable
        parameter takes it and raises only at backward)."""
        positional, keywords = self._args(call, state)
        target = keywords.get("output", positional[1] if len(positional) > 1 else None)
        if isinstance(target, TensorVal):
            self.record_write(
                state,
                target,
                "assign-output",
                call,
                output,
                op_text=f"`{_short(self, call)}`",
            )
            source = positional[0] if positional else keywords.get("x")
            if (
                isinstance(source, TensorVal)
                and source.requires_grad is True
                and state.grad_enabled
            ):
                # a source that requires grad gives `t` its own history (measured on 3.3.1:
                # `assign(x * 3.0, output=softmax_out)` then a backward of `t` runs and gives
                # x.grad == 3): a backward from `t` reaches the ops that saved `t` only through
                # the source (`assign(p * prior, output=p)`: the product saved `p`, and raises)
                rerooted = replace(target, lineage=source.lineage, requires_grad=True)
                path = dotted_name(output)
                if path and state.env.get(path) is target:
                    state.env[path] = rerooted
                return rerooted
            return target
        return UNKNOWN

    def _foreach_write(self, qual: str, call: cst.Call, state: State) -> Value:
        """`torch._foreach_lerp_(ema_params, params, w)` (EMA and fused optimizer code): an
        in-place write to every tensor of its first list."""
        positional, _ = self._args(call, state)
        written = positional[0] if positional else UNKNOWN
        if isinstance(written, ParamsVal):
            if written.mapping:
                return UNKNOWN
            tensors = [_parameter_of(written, PARAMETER_LOOP_PRODUCER)]
        elif isinstance(written, SeqVal):
            tensors = [i for i in _flatten(written) if isinstance(i, TensorVal)]
        else:
            return UNKNOWN
        text = f"`{qual.removeprefix('torch.')}(...)`"
        seen: set[object] = set()
        for tensor in tensors:
            if tensor.storage in seen:
                continue
            seen.add(tensor.storage)
            self.record_write(
                state,
                tensor,
                "method",
                call,
                None,
                op_text=text,
                target_text=_code(self, call.args[0].value),
            )
        return UNKNOWN

    def _einsum(self, call: cst.Call, state: State) -> Value | None:
        """`torch.einsum("nc,ck->nk", q, queue)` of two operands, each sharing every index it
        sums away with the other: torch contracts them with one `bmm` over views of the
        operands, so each is saved iff the other requires grad, as by `matmul` (whose facts come
        from the generated table; measured in tests/runtime/test_torch_surface.py). Other
        equations (one operand, three, an index only one operand has and sums away first) stay
        unknown: None."""
        args = [a for a in call.args if a.keyword is None]
        if len(args) < 2 or any(a.star for a in args) or len(args) != len(call.args):
            return None
        equation = _literal(args[0].value)
        if not isinstance(equation, str) or _einsum_pairs_operands(equation) is not True:
            return None
        positional, _ = self._args(call, state)
        operands = positional[1:]
        if len(operands) == 1 and isinstance(operands[0], SeqVal):
            operands = list(operands[0].items)  # `torch.einsum(eq, (q, k))`, the old form
        facts = kb.function("torch.matmul", frozenset(), False)
        if len(operands) != 2 or facts is None:
            return self._opaque_result(positional, call, state, "`torch.einsum`", known=False)
        return self.apply_op(
            facts,
            operands,
            {},
            call,
            state,
            op_text=f"`{_short(self, call)}`",
            how="operator",
            report_writes=False,
        )

    def _new_tensor(self, fw: str, call: cst.Call, state: State) -> TensorVal:
        """`x.new_zeros(shape)` and the like: a new leaf, requiring grad only when told so
        (measured under torch 2.13: no grad_fn, its own memory, whatever `x` is)."""
        self._args(call, state)
        requires = _literal_kw(call, "requires_grad", state.env) is True
        return self._new_leaf(fw, requires, call, state, f"`{_short(self, call)}`")

    def _new_leaf(
        self, fw: str, requires: bool | None, call, state: State, producer: str | None = None
    ) -> TensorVal:
        """A tensor a call makes from nothing with a graph (`torch.zeros(...)`, `x.new_ones(...)`,
        `Variable(data)`): a leaf when it requires grad."""
        return TensorVal(
            fw=fw,
            storage=new_id(),
            requires_grad=requires,
            leaf=bool(requires),
            inference=state.inference,
            producer=producer if producer is not None else f"`{_code(self, call)}`",
            producer_node=call,
        )

    def _legacy_variable(self, call: cst.Call, state: State) -> Value:
        """`Variable(t, requires_grad=...)` (the API before PyTorch 0.4, still accepted): a new
        leaf over `t`'s memory, as `t.detach()` (measured under torch 2.13: no grad_fn, the same
        data pointer); with `requires_grad=True` (by keyword or second argument) a leaf that
        requires grad, which an in-place write then refuses."""
        positional, _ = self._args(call, state)
        flag = _literal_kw(call, "requires_grad", state.env)
        second = [a for a in call.args if a.keyword is None and not a.star][1:2]
        if flag is None and second:
            flag = _known_literal(second[0].value, state.env)
        requires = True if flag is True else False if flag in (False, None) else None
        base = positional[0] if positional else None
        if isinstance(base, TensorVal):
            out = _detached(base, f"`{_code(self, call)}`", call)
            return replace(out, requires_grad=requires, leaf=bool(requires))
        return self._new_leaf("torch", requires, call, state)

    def _make_optimizer(self, call: cst.Call, state: State, fw: str) -> Value:
        groups = self._parameter_groups(call, state)
        positional, keywords = self._args(call, state)
        params = keywords.get("params", keywords.get("parameters"))
        if params is None and positional:
            if fw == "paddle":
                # `paddle.optimizer.Adam(1e-3, parameters=...)` puts the learning rate first:
                # the parameters are whichever positional argument holds them
                params = next(
                    (a for a in positional if any(isinstance(v, ParamsVal) for v in _flatten(a))),
                    None,
                )
            else:
                params = positional[0]
        return self._optimizer_over(groups if groups is not None else params, fw)

    def _parameter_groups(self, call: cst.Call, state: State) -> Value | None:
        """`Adam([{"params": G.parameters()}, {"params": D.parameters(), "lr": 1e-4}])`: the
        parameters of every group (each dict's "params"); None when the first argument is not a
        list or tuple of dict displays that all name their "params"."""
        first = next((a for a in call.args if a.keyword is None), None)
        if first is None:
            first = next(
                (a for a in call.args if a.keyword and a.keyword.value in ("params", "parameters")),
                None,
            )
        if first is None or first.star or type(first.value) not in (cst.List, cst.Tuple):
            return None
        groups = []
        for element in first.value.elements:
            group = element.value
            if type(group) is not cst.Dict:
                return None
            found = None
            for item in group.elements:
                if (
                    type(item) is cst.DictElement
                    and type(item.key) is cst.SimpleString
                    and item.key.raw_value == "params"
                ):
                    found = self.eval(item.value, state)
            if found is None:
                return None
            groups.append(found)
        return SeqVal(tuple(groups)) if groups else None

    def _optimizer_over(self, params: Value | None, fw: str) -> OptimizerVal:
        modules: list[str] = []
        labels: list[str] = []
        unknown = params is None
        for value in _flatten(params):
            if isinstance(value, ParamsVal) and value.module:
                modules.append(value.module)
                labels.append(value.label or value.module)
            else:
                unknown = True
        if unknown or not modules:
            return OptimizerVal(None, fw=fw)
        return OptimizerVal(tuple(modules), fw=fw, labels=tuple(labels))

    def optimizer_step(
        self, optimizer: OptimizerVal, call: cst.Call, state: State, callee=None, written_at=None
    ) -> None:
        """``written_at``: the line of the optimizer's own `step` (a class of this module) that
        writes the parameters; the update is reported there, called from ``call``."""
        self.ran_step = True
        if optimizer.modules is None:
            # an optimizer the analysis cannot tie to its parameters (an unknown class, or one
            # returned by a wrapper such as opacus' make_private): it updates the one model
            # that saved parameters, or, when several did, none that can be named
            storages = [
                (k, None) for k in state.saves if isinstance(k, str) and k.startswith("params:")
            ]
            in_scope = {k for k, _ in storages} | {
                v.params_storage_key
                for v in state.env.values()
                if isinstance(v, ModuleVal) and v.has_parameters
            }
            if len(in_scope) > 1 or self.lost_models:
                # a GAN's D step while G's forward is still saved: which? (or a model rebound
                # by a wrapper, which may be the one it updates)
                return
        else:
            labels = optimizer.labels or optimizer.modules
            storages = [(f"params:{m}", label) for m, label in zip(optimizer.modules, labels)]
            if "self" in optimizer.modules:
                # `Adam(self.parameters())` also updates what `self.enc(x)` saved
                storages += [
                    (v.params_storage_key, k)
                    for k, v in state.env.items()
                    if k.startswith("self.") and isinstance(v, ModuleVal) and v.has_parameters
                ]
        if self.graded is not None:
            # a step skips the parameters without a gradient: after a backward this function
            # ran, those outside its graph (`zero_grad()` leaves them None)
            storages = [(k, label) for k, label in storages if k in self.graded]
        text = f"`{_code(self, call)}`"
        for storage, label in storages:
            self._parameter_update(
                state,
                optimizer.fw,
                storage,
                label or self._label_of(storage, state),
                call if written_at is None else written_at,
                text,
                callee if written_at is None else call,
                writer=self._submodule_writer(label, state),
            )

    def _submodule_writer(self, label: str | None, state: State):
        """`SGD(model.netG.parameters())`: seen from outside, `model.netG`'s parameters are in
        `model`'s storage; its step writes them as that submodule (``Save.by``), so that a save
        made by `model.netD` is not held against it. None when the label names no such
        submodule."""
        if not label or "." not in label:
            return None
        root, *attrs = label.split(".")
        held = state.env.get(root)
        if root == "self" and len(attrs) > 1:
            # `SGD(self.net.b.parameters())` in an agent's method: `self.net` holds them
            root, *attrs = f"self.{attrs[0]}", *attrs[1:]
            held = state.env.get(root)
        if not isinstance(held, ModuleVal) or held.path == "self" or not held.local_class:
            return None
        container = held.node
        for attr in attrs:
            if not isinstance(held, ModuleVal):
                return None
            held = self._module_attribute(held, attr, None)
        if not isinstance(held, ModuleVal) or held.node is None:
            return None
        # (a save by the whole instance's call holds too; one that names the submodules it
        # kept holds if it names this one: a layer called through the instance, `self.net.a`)
        return (held.node, container, ".".join(attrs))

    def _grad_result(self, call: cst.Call, positional, keywords, lineage) -> Value:
        """`torch.autograd.grad(outputs, inputs, create_graph=True)`: one derivative per input,
        each a tensor with a graph of its own (a PINN's `u_x`, a gradient penalty's norm), so an
        op using it saves it; without `create_graph` the derivatives have no graph."""
        if _literal_kw(call, "create_graph") is not True:
            return UNKNOWN
        inputs = positional[1] if len(positional) > 1 else keywords.get("inputs")
        count = len(inputs.items) if isinstance(inputs, SeqVal) and inputs.items else 1
        op_id = new_id()
        text = f"`{_short(self, call.func)}`"
        items = tuple(
            TensorVal(
                fw="torch",
                storage=new_id(),
                requires_grad=True,
                producer=text,
                producer_node=call,
                known=True,
                lineage=lineage | {op_id},
            )
            for _ in range(count)
        )
        return SeqVal(items, lineage | {op_id})

    def _parameter_update(
        self,
        state: State,
        fw: str,
        storage: str,
        label: str,
        node,
        text: str,
        callee,
        writer=None,
        via_data: bool = False,
        bumps: bool | None = None,
        attr: str | None = None,
        attr_by=None,
    ) -> None:
        """An optimizer's in-place update of the parameters in ``storage`` (no grad: a version
        bump that breaks their saves; Paddle's update does not bump it). ``via_data``: made
        through `.data` (a helper's `param.data.copy_(...)`), which bumps no version either.
        ``bumps``: what the helper's own write does (Paddle's `assign(q, output=w)` bumps it).
        ``attr`` / ``attr_by``: the submodule of the instance built by ``attr_by`` whose
        parameters these are (a save by that instance's call holds if it names it)."""
        tensor = TensorVal(
            fw=fw,
            storage=storage,
            requires_grad=True,
            leaf=True,
            parameter=True,
            param_of=label,
            producer="the parameters",
            via_data=via_data,
            attr=attr,
            attr_by=attr_by,
        )
        self.record_write(
            state,
            tensor,
            "data-assign" if via_data else "optimizer",
            node,
            None,
            op_text=text,
            bumps=(fw != "paddle" and not via_data) if bumps is None else bumps,
            grad_override=False,
            callee=callee,
            writer=writer,
        )

    def _label_of(self, storage: str, state: State) -> str:
        """The name the code gives the module behind a parameter storage."""
        for name, value in state.env.items():
            if isinstance(value, ModuleVal) and value.params_storage_key == storage:
                return name
        return storage.split(":", 1)[1]

    def _iteration_value(self, iterable: Value, expr) -> Value:
        if isinstance(iterable, ZipVal):
            items = tuple(self._zipped_item(part, expr) for part in iterable.parts)
            return SeqVal(((UNKNOWN,) if iterable.counter_first else ()) + items)
        if isinstance(iterable, ParamsVal) and iterable.mapping:
            return UNKNOWN  # a dict's names
        if isinstance(iterable, ParamsVal):
            param = _parameter_of(iterable, PARAMETER_LOOP_PRODUCER)
            if iterable.named:
                return SeqVal((UNKNOWN, param))
            return param
        if isinstance(iterable, SeqVal) and iterable.items:
            first = iterable.items[0]
            if isinstance(first, ParamsVal):
                # `for group in self.param_groups:` of one group (an Optimizer subclass given
                # `model.parameters()`, SAM): the group's `params` are those
                return first if len(iterable.items) == 1 else Unknown()
            if all(isinstance(i, TensorVal) for i in iterable.items):
                return first
            if isinstance(first, ModuleVal) and all(
                isinstance(i, ModuleVal) and i.uid and i.uid == first.uid for i in iterable.items
            ):
                return first  # `nets = [nets]; for net in nets:` (CycleGAN's set_requires_grad)
            if all(isinstance(i, OptimizerVal) and i == first for i in iterable.items):
                # `for opt in self.critic_opts: opt.step()` over optimizers of the same
                # modules (spirl's SAC keeps one per critic, built by one comprehension)
                return first
            if (
                isinstance(first, ModuleVal)
                and first.local_class
                and all(
                    isinstance(i, ModuleVal)
                    and i.local_class == first.local_class
                    and i.node is first.node
                    for i in iterable.items
                )
            ):
                # `for agent in self.agents:` of `[Agent(...) for _ in range(n)]` (MADDPG), or
                # of a loop appending `Agent(...)`: one construction stands for each instance
                return first
        if (
            isinstance(iterable, TensorVal)
            and iterable.known
            and (self._iterates_tensor(expr, iterable) or self._rows_of_given_graph(iterable))
        ):
            # iterating a tensor (`for row in X`, `enumerate(X)`) unbinds it: its rows are views
            # of one multi-output op, which autograd forbids writing in place when it requires
            # grad. Only for a name the code iterates itself: a call (`d.items()`, `zip(...)`)
            # may well be a sequence the analysis took for a tensor
            return replace(
                iterable,
                view="multi",
                multi_base_requires_grad=iterable.requires_grad,
                view_of_leaf=iterable.leaf or iterable.view_of_leaf,
                leaf=False,
                producer=f"iterating over `{_code(self, expr)}`"
                if expr is not None
                else "iteration",
                producer_node=expr,
            )
        if isinstance(iterable, TensorVal):
            return self._view_of(iterable, expr, State(), "iteration")
        if isinstance(iterable, ModuleVal) and iterable.children:
            return _child_of(iterable, iterable.children[0])
        if isinstance(iterable, SubmodulesVal):
            # `for m in self.modules(): ... m.weight.fill_(1)`: a submodule of that module
            submodule = generic_submodule(iterable.owner)
            return SeqVal((UNKNOWN, submodule)) if iterable.named else submodule
        return Unknown(lineage_of(iterable))

    def _rows_of_given_graph(self, iterable: TensorVal) -> bool:
        """A tensor computed here from an argument the caller surely gave with grad (Score-CAM's
        `denormalize(tensor)` cloning an input whose `requires_grad` its caller set): its rows,
        zipped with other sequences, are the views of one unbind too. (Not a tensor made from
        the function's own modules: zipped predictions post-processed in place under a `no_grad`
        in another file, mmpose's YOLOX-Pose head.)"""
        if iterable.requires_grad is not True or iterable.storage in self.param_storages:
            return False
        given = {
            self.param_storages[storage]
            for storage, rg in self.param_entry_rg.items()
            if rg is True and storage in self.param_storages
        }
        return any(
            index in given for o, index in self.param_origins.items() if o in iterable.lineage
        )

    def _iterates_tensor(self, expr, iterable: TensorVal) -> bool:
        """Iterating ``iterable`` surely iterates a tensor (an implicit ``unbind(0)``): a name or
        attribute the code iterates itself (`for row in X`, `enumerate(X)`), or an item of a
        tensor the function computed (`for channel in d[0]`; an argument's item may be a list's).
        Not a call's result (`d.items()`): a sequence the analysis may have taken for a tensor."""
        if type(expr) is cst.Call and dotted_name(expr.func) == "enumerate" and expr.args:
            expr = expr.args[0].value
        if type(expr) in (cst.Name, cst.Attribute):
            return True
        return type(expr) is cst.Subscript and iterable.storage not in self.param_storages

    def _zipped_item(self, part: Value, expr) -> Value:
        """An item of one of `zip(...)`'s sequences. A function's argument the analysis takes for
        a tensor (`for block, layer_past in zip(self.h, past)`) is most often a list of tensors
        (one cache per layer): each pass's item another tensor (``_next_element``), not a row
        of one tensor whose writes would break every other row's saves (LoRA's GPT-2: a false
        IPL001). A tensor the function computed stays a view per item, not one of several views
        of a multi-output op: zipped predictions are post-processed in place in inference code
        whose `no_grad` is in another file (mmpose's YOLOX-Pose head: a false IPL004)."""
        if self._may_be_a_sequence(part):
            return TensorVal(
                fw=part.fw,
                storage=new_id(),
                requires_grad=part.requires_grad,
                known=part.known,
                lineage=part.lineage,
                producer="an item of a zipped sequence",
            )
        return self._iteration_value(part, expr)

    def _may_be_a_sequence(self, value: Value) -> bool:
        """One of the function's arguments itself, which the analysis takes for a tensor but the
        code unpacks or zips: most often a tuple or list, whose items are separate tensors, not
        rows of one (``_zipped_item``, ``bind``)."""
        return (
            isinstance(value, TensorVal)
            and value.storage in self.param_storages
            and value.view is None
        )

    # ---------------------------------------------------------------- writes and backward
    def record_write(
        self,
        state: State,
        tensor: TensorVal,
        how: str,
        node,
        target_expr,
        *,
        bumps: bool = True,
        op_text: str = "",
        full_slice: bool = False,
        callee=None,
        constructor=None,
        grad_override: bool | None = None,
        stmt=None,
        target_text: str | None = None,
        condition: str | None = None,  # a replayed write's own (`if self.activate:` in the callee)
        local_saves: bool = True,  # False: this function's saves are not held against it
        writer=None,  # the constructor call of the module whose forward writes its own parameter
        operand_rg: bool | None = None,  # ``Write.operand_requires_grad``
    ) -> None:
        if tensor.via_data:
            bumps = False
        grad = state.grad_enabled if grad_override is None else grad_override
        if target_text is None:
            target_text = _code(self, target_expr) if target_expr is not None else tensor.producer
        path = dotted_name(target_expr) if target_expr is not None else None
        saves = state.saves.get(tensor.storage, ()) if local_saves else ()
        if writer is not None:
            # a module updating its own weight: a sibling's save in the shared storage of their
            # container is another module's parameters (unless built by the same call)
            # (``writer`` may also be (submodule, its container): a save by the container's own
            # call holds, one by a sibling submodule does not)
            writers = writer[:2] if type(writer) is tuple else (writer,)
            saves = tuple(s for s in saves if s.by is None or any(s.by is w for w in writers))
            if type(writer) is tuple and len(writer) == 3:
                saves = _naming(saves, writer[1], writer[2])
        if bumps and not tensor.via_data:
            # `self.sigma * self.epsilon.data` saved an alias with a version counter of its
            # own: a later `self.epsilon.normal_()` does not make its backward raise
            saves = tuple(s for s in saves if not s.via_data)
        elif not bumps:
            # `bn._mean.set_value(...)`: the saved running mean is checked, never read
            saves = tuple(s for s in saves if not s.version_only)
        if tensor.attr is not None and tensor.attr_by is not None:
            # `self.flava.logit_scale.data.clamp_()`: a save of `self.flava`'s parameters by
            # its call holds only those its forward can read
            saves = _naming(saves, tensor.attr_by, tensor.attr)
        if tensor.owner_attr is not None:
            # `net.fc1.weight.mul_(...)` after `net(x)` whose forward saved only `fc2`'s
            # parameters (`F.linear` keeps its weight only for an input that requires grad),
            # `net.head.bias` after one that saved `head.weight` (a Linear never keeps its
            # bias). (In a run for a caller's instance, ``_module_entry``, the instance and the
            # saves by its call have no construction site: None is then that instance.)
            owned = f"{tensor.owner_attr}.{tensor.attr}" if tensor.attr else tensor.owner_attr
            saves = _naming(saves, tensor.owner_by, owned)
        own = path.removesuffix(".data") if path else None
        if callee is not None and own and own.startswith("self.") and own.count(".") == 1:
            # a module's call replays its forward's write to `self.<name>` (or its `.data`): a
            # save of that module's parameters that names those it saved counts only if it
            # names this one
            saves = tuple(s for s in saves if s.only is None or _names(s.only, own[5:]))
        elif callee is not None and own and own.startswith("self.") and type(writer) is not tuple:
            # `net.renorm_()` writing `self.fc1.weight`: a save by `net`'s own call that names
            # the submodules it saved (`fc2` only: `fc1` was given data) holds if it names `fc1`
            saves = _naming(saves, writer, own.split(".")[1])
        write = Write(
            node=node,
            stmt=stmt if stmt is not None else self.stmt,
            target=target_expr,
            target_text=target_text,
            how=how,
            op_text=op_text,
            fw=tensor.fw,
            tensor=tensor,
            grad_enabled=grad,
            grad_explicit=self.grad_explicit or grad_override is not None,
            inference_mode=state.inference,
            bumps_version=bumps,
            saves=saves,
            function=self.info.key,
            full_slice=full_slice,
            callee_node=callee,
            constructor_node=constructor,
        )
        write.condition = self.conditions[-1] if self.conditions else condition
        write.branch = self.branch
        if (
            tensor.leaf_condition is not None
            and tensor.fw == "torch"
            and bumps
            and not saves
            and tensor.view != "multi"
            and tensor.requires_grad is not False
            and not (tensor.leaf or tensor.view_of_leaf)
        ):
            # the leaf on one path only (`if using_gpu: out = out.cuda()`): IPL203's leaf write
            # under that path's condition
            write.tensor = replace(
                tensor, leaf=tensor.view is None, view_of_leaf=tensor.view is not None
            )
            write.condition = (
                tensor.leaf_condition
                if write.condition is None
                else f"{write.condition} and {tensor.leaf_condition}"
            )
        if write.condition is None and write.saves and all(s.condition for s in write.saves):
            write.condition = write.saves[0].condition  # saved only under some option's path
        write.caller_state_update = (
            tensor.storage in self.param_storages
            and self.param_entry_rg.get(tensor.storage) is not True
            and not self.is_forward_like
            and how != "helper"
        )
        aliases = tuple(
            k
            for k, v in state.env.items()
            if isinstance(v, TensorVal) and v.storage == tensor.storage and k != path
        )
        write.aliased = bool(aliases)
        write.alias_names = aliases
        write.argument = tensor.storage in self.param_storages
        write.operand_requires_grad = operand_rg
        write.stmt_function = self.info.key
        self.result.writes.append(write)
        self.pending.append(write)
        if (
            tensor.storage in self.module_arguments
            and how != "optimizer"  # (a step is replayed with its backward: train_steps)
            and (not write.grad_enabled or how == "set_value" or tensor.via_data)
        ):
            self.result.summary.updated_module_arguments.setdefault(tensor.storage, write)
        elif (
            tensor.storage == _OWN_PARAMETERS
            and self.info.cls is not None
            and how != "optimizer"
            and (not write.grad_enabled or how == "set_value" or tensor.via_data)
            and self.result.summary.updated_own_parameters is None
        ):
            self.result.summary.updated_own_parameters = write
        if bumps and tensor.fw == "torch":
            self._note_stale_views(write, state)
        # The first write of an argument is replayed by each caller against what it saved,
        # also when an op here saved it first (`r_l = x.min(); x[x < left] = left`, MIPCandy's
        # Normalize given a sigmoid's output: the caller's save breaks whatever this one does)
        first = tensor.storage not in self.violated
        if write.saves and bumps:
            self.violated.add(tensor.storage)
        own_only = bool(write.saves) and all(save.node is node for save in write.saves)
        if how != "helper" and (first or own_only):
            if tensor.storage in self.item_of_param:
                self.result.summary.param_item_writes.setdefault(
                    self.item_of_param[tensor.storage], write
                )
            if tensor.storage in self.param_storages:
                index = self.param_storages[tensor.storage]
                held = self.result.summary.param_writes.get(index)
                if held is None or (write.grad_enabled and not held.grad_enabled and bumps):
                    # (a write with grad after one under `no_grad`: both move the version, the
                    # later one also meets the leaf check, XLM's helper with its first column
                    # write wrapped)
                    self.result.summary.param_writes[index] = write
                if (
                    tensor.requires_grad is False
                    and self.param_entry_rg.get(tensor.storage) is not False
                    and not tensor.via_data
                ):
                    # written through an alias that does not require grad (`p.detach().uniform_()`)
                    self.result.summary.grad_off_params.add(index)
            elif tensor.parameter and path and path.startswith("self."):
                self.result.summary.self_param_writes.append(write)
            elif path and path.startswith("self.") and path.count(".") == 1:
                self.result.summary.self_buffer_writes.setdefault(path[5:], write)
        if bumps and write.saves:
            # the saved tensor is already invalid; later writes to it are not new bugs (the
            # saves this write does not break stay: a sibling's parameters in a shared storage,
            # `agent.actor`'s beside the `agent.critic` a step updated, recall44's MADDPG)
            held = state.saves.get(tensor.storage, ())
            left = tuple(s for s in held if s not in write.saves)
            if left:
                state.saves[tensor.storage] = left
            else:
                state.saves.pop(tensor.storage, None)

    def _note_stale_views(self, write: Write, state: State) -> None:
        """The write changes memory that views from a multi-output call share (the call's input
        or one of its outputs): remember it until one of those views is used."""
        tensor = write.tensor
        if tensor.view == "multi" and write.grad_enabled:
            return  # the write itself raises (IPL004)
        for value in state.env.values():
            for item in _flatten(value) if isinstance(value, SeqVal) else (value,):
                if (
                    isinstance(item, TensorVal)
                    and item.view == "multi"
                    and item.storage == tensor.storage
                    and item.multi_base_requires_grad is True
                ):
                    write.stale_view_producer = item.producer
                    write.stale_view_producer_node = item.producer_node
                    write.stale_since = write.stale_since or new_id()
                    state.stale_multi.setdefault(tensor.storage, write)
                    return

    def _use_views(self, values, node, state: State) -> None:
        """A use in grad mode of a view whose memory a write changed since its multi-output call
        made it: PyTorch raises here ("... is a view and its base or another view of its base has
        been modified inplace")."""
        if not state.stale_multi or not state.grad_enabled:
            return
        for value in values:
            if (
                isinstance(value, TensorVal)
                and value.view == "multi"
                and value.storage in state.stale_multi
                and value.multi_base_requires_grad is True
                and value.multi_id < state.stale_multi[value.storage].stale_since
            ):
                write = state.stale_multi.pop(value.storage)
                if write.stale_view_use is None:
                    write.stale_view_use = node

    def _toward_inputs(
        self, lineage: frozenset[int], inputs: Value | None
    ) -> frozenset[int] | None:
        """The ops `loss.backward(inputs=list(head.parameters()))` runs: autograd goes only
        from the loss down to those inputs, so an op that ran before every op that used them
        (the backbone's tanh under a linear probe, lookalike39/40) is not run, and its save not
        checked. The ops from the first one using the inputs on (ops are numbered as they run)
        are kept: every op between the loss and the inputs is among them. Only for the
        parameters of known modules; otherwise the whole graph."""
        if not lineage:
            return None
        groups = inputs.items if isinstance(inputs, SeqVal) else (inputs,)
        keys = set()
        for group in groups:
            if isinstance(group, ParamsVal) and group.module:
                keys.add(f"params:{group.module}")  # `list(head.parameters())`
            elif (
                isinstance(group, TensorVal)
                and group.parameter
                and isinstance(group.storage, str)
                and group.storage.startswith("params:")
            ):
                keys.add(group.storage)  # `[head.weight, head.bias]`
            else:
                return lineage
        if not keys:
            return lineage
        users = [
            op
            for op, storage in self.module_ops.items()
            if op in lineage
            and (storage in keys if isinstance(storage, str) else not keys.isdisjoint(storage))
        ]
        if not users:
            return lineage
        first = min(users)
        return frozenset(op for op in lineage if op >= first)

    def backward(self, lineage: frozenset[int] | None, state: State, retain: bool) -> None:
        self.ran_backward = True
        if lineage is not None:
            self.reach(lineage, state, retain, by_backward=True)
            graded = set() if self.graded is None else self.graded
            for op_id, storage in self.module_ops.items():
                if op_id in lineage:
                    if isinstance(storage, frozenset):
                        graded.update(storage)
                    else:
                        graded.add(storage)
            self.graded = graded
        else:
            self.graded = None  # a graph we cannot see may give any parameter its gradient
            self.flow.unknown_backward_in.add(self.info.key)
        if not retain:
            state.clear_saves(lineage)
            self.pending = [w for w in self.pending if not _fully_reached(w)]

    def reach(
        self,
        lineage: frozenset[int],
        state: State,
        retain: bool,
        by_backward: bool = False,
        by_return: bool = False,
    ) -> None:
        if not lineage:
            return
        self.flow.reached_ops.update(lineage)
        if by_backward:
            self.flow.backward_ops.update(lineage)
        for write in self.pending:
            if write.branch and self.branch and _other_branch(write.branch, self.branch):
                continue  # (made in the other branch of an `if` this code runs in)
            for save in write.saves:
                if save.op_id in lineage:
                    write.confirmed.add(save.op_id)
                    write.confirmed_by_backward |= by_backward
                    write.confirmed_by_return |= by_return
            if write.tensor.lineage & lineage:
                write.reaches_backward = True

    # ---------------------------------------------------------------- wrap-up
    def _reach_after_step(self, lineage: frozenset[int]) -> None:
        """A training step returns a graph its own optimizer step broke (`Critic.learn`: forward,
        backward, `self.optimizer.step()`, `return td_error` that the actor's loss multiplies
        in). What such a function returns is usually for logging, so the step is confirmed only
        where a caller in this module backwards the result
        (``ModuleDataflow._drop_unread_helper_returns``)."""
        if not lineage:
            return
        for write in self.pending:
            if write.how != "optimizer" or write.confirmed:
                continue
            reached = {save.op_id for save in write.saves if save.op_id in lineage}
            if reached:
                write.confirmed |= reached
                write.confirmed_by_return = True
                write.confirmed_by_step_return = True

    def _finish_function_checks(self, state: State) -> None:
        if not self.is_function_forward or _backward_raises(self.info.cls):
            # (a backward that only raises, MONAI's PHLFilter: no gradient at all, so no
            # wrong one)
            return
        optional = self._optional_parameters()
        names = [
            p.name.value
            for p in (*self.info.node.params.posonly_params, *self.info.node.params.params)
        ][1:]  # after ctx
        reported: set[int] = set()
        writes = self.result.writes
        for position, write in enumerate(writes):
            if (
                write.tensor.storage in self.param_storages
                and write.tensor.storage not in self.mark_dirty
                and write.bumps_version
            ):
                index = self.param_storages[write.tensor.storage]
                if index < len(names) and names[index] in optional:
                    continue  # `out=None`: a buffer given to be written (bitsandbytes)
                if index in reported:
                    continue  # (`running_mean.mul_(m).add_(d)`: one input, reported once)
                reported.add(index)
                # `ctx.save_for_backward(x)` before this write (or a later one of the same
                # input): autograd packs the saved tensors when forward returns, so the backward
                # reads the written values (timm#156's in-place swish: no error, wrong gradient)
                saved_at = self.inputs_saved_at.get(write.tensor.storage)
                saved_before = saved_at is not None and any(
                    w.tensor.storage == write.tensor.storage for w in writes[saved_at:]
                )
                why = (
                    "`ctx.save_for_backward` kept it before, and the backward reads the new "
                    "values as the input: the gradient is computed from values the input never had"
                    if saved_before
                    else "autograd keeps treating the old value as the input, so the gradient is "
                    "computed for values that no longer exist"
                )
                self.result.function_issues.append(
                    CustomFunctionIssue(
                        "missing-mark-dirty",
                        write.node,
                        f"{write.op_text} writes the input `{write.target_text}` of "
                        f"`{self.info.key.split('.')[0]}.forward` in place without `ctx.mark_dirty("
                        f"{write.target_text})`: {why}",
                        function=self.info.key.split(".")[0],
                        param=index,
                        param_name=names[index] if index < len(names) else "",
                        saved_before=saved_before,
                    )
                )

    def _dedupe(self) -> None:
        seen: dict[tuple, Write] = {}
        unique: list[Write] = []
        for write in self.result.writes:
            # (a helper's write replayed under no_grad and again with grad is two events)
            key = (id(write.node), write.how, str(write.tensor.storage), write.grad_enabled)
            if key in seen:
                first = seen[key]
                first.confirmed |= write.confirmed
                first.reaches_backward |= write.reaches_backward
                first.confirmed_by_backward |= write.confirmed_by_backward
                # each pass of a loop may meet other saves (`t5 = t4 @ t3` before the loop, the
                # write's own `relu_` save from the pass before): all of them are the write's
                first.saves = first.saves + tuple(s for s in write.saves if s not in first.saves)
                continue
            seen[key] = write
            unique.append(write)
        self.result.writes = unique
        self.result.reuses = _unique_by_node(
            [r for r in self.result.reuses if r.node not in self.unread_activations]
        )
        self.result.rebinds = _unique_by_node(self.result.rebinds)
        self.result.out_calls = _unique_by_node(self.result.out_calls)
        self.result.adjacency = _unique_by_node(self.result.adjacency)


# --------------------------------------------------------------------------------------------
# small helpers


def _op_result(
    fw: str,
    requires_grad: bool | None,
    op_text: str,
    node,
    lineage: frozenset[int],
    state: State,
    *,
    known: bool,
    nondiff_outputs: tuple[int, ...] = (),
) -> TensorVal:
    """A fresh tensor produced by an op (its own storage and version counter). Made under
    no_grad it has no graph: no backward through it reaches an earlier op."""
    if not state.grad_enabled:
        lineage = frozenset()
    return TensorVal(
        fw=fw,
        storage=new_id(),
        requires_grad=requires_grad,
        producer=op_text,
        producer_node=node,
        known=known,
        lineage=lineage,
        inference=state.inference,
        nondiff_outputs=nondiff_outputs,
    )


def _unquote(text: str) -> str:
    """`x` -> x; text with inner quoting (`a` (`b`)) is kept as written."""
    if text.startswith("`") and text.endswith("`") and text.count("`") == 2:
        return text[1:-1]
    return text


def _short_class(module: ModuleVal) -> str:
    """`nn.Sigmoid` for torch.nn.Sigmoid, `nn.Conv2D` for paddle.nn.Conv2D."""
    return "nn." + (module.qualname or module.path).rsplit(".", 1)[-1]


def _parameter_of(params: ParamsVal, producer: str) -> TensorVal:
    """One of the parameters ``params`` holds (a loop's item, a named entry)."""
    return TensorVal(
        fw=params.fw,
        storage=f"params:{params.module}",
        requires_grad=not params.frozen,
        leaf=not params.frozen,
        parameter=True,
        param_of=params.label or params.module,
        producer=producer,
    )


def _graphless(value: Value) -> bool:
    """A Python value that no graph reaches: a constant, an unknown value without lineage, or a
    tuple or list of them."""
    if isinstance(value, ConstVal):
        return True
    if isinstance(value, Unknown):
        return not value.lineage
    if isinstance(value, SeqVal):
        return not value.lineage and all(_graphless(i) for i in value.items)
    return False


def _portable(value: Value) -> bool:
    """A returned value whose identity callers can use: modules, optimizers, tuples holding them."""
    if isinstance(value, (ModuleVal, OptimizerVal)):
        return True
    if isinstance(value, SeqVal):
        return any(isinstance(i, (ModuleVal, OptimizerVal)) for i in value.items) and all(
            isinstance(i, (ModuleVal, OptimizerVal, TensorVal, Unknown)) for i in value.items
        )
    return False


def _tensor_items(value: Value) -> tuple[TensorVal, ...]:
    """A returned tensor, or the items of a returned tuple all of which are tensors; else ()."""
    if isinstance(value, TensorVal):
        return (value,)
    if (
        isinstance(value, SeqVal)
        and value.items
        and all(isinstance(i, TensorVal) for i in value.items)
    ):
        return value.items
    return ()


_WITH_GRAD = "<called with grad>"  # the key of ``_rerun_called_with_grad``'s runs


def _factory_calls(module, index) -> frozenset[cst.Call]:
    """`model = create_model(...)` / `net, opt = build(...)` at the module's top level, calling
    a function of the module: the modules and optimizers it returns are the globals functions
    read (a swapped EMA update of that model, its optimizer stepped between two backwards)."""
    calls = set()
    for stmt in _body(module):
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if (
                type(small) is cst.Assign
                and type(small.value) is cst.Call
                and type(small.value.func) is cst.Name
                and small.value.func.value in index.functions
                and all(type(t.target) in (cst.Name, cst.Tuple) for t in small.targets)
            ):
                calls.add(small.value)
    return frozenset(calls)


def _fresh_copy(value: Value, shared: Collection[str] = ()) -> Value:
    """What a caller gets from a factory: new tensors, and new instances of the modules it
    built, one per call (`model = create_model(); ema = create_model()` are two models: an EMA
    update of one is no write into the other), with the optimizers it built over them. Modules
    it did not build (``shared``: the module's globals) stay what they are."""
    return _copied(value, shared, {})


def _copied(value: Value, shared: Collection[str], renamed: dict[str, str]) -> Value:
    """``_fresh_copy`` (a module-level function: a closure calling itself is a reference cycle,
    garbage for the cycle collector, ``tests/speed/test_no_cycles.py``)."""
    if isinstance(value, SeqVal):
        return SeqVal(tuple(_copied(i, shared, renamed) for i in value.items))
    if isinstance(value, TensorVal):
        return replace(value, storage=new_id(), lineage=frozenset(), producer_node=None)
    if isinstance(value, ModuleVal):
        return replace(
            value,
            path=value.path if value.path.startswith("<") else f"<{value.path}>",
            uid=_renamed_uid(value.uid, shared, renamed) if value.uid else value.uid,
            children=tuple(_copied(c, shared, renamed) for c in value.children),
        )
    if isinstance(value, OptimizerVal) and value.modules:
        return replace(
            value, modules=tuple(_renamed_uid(k, shared, renamed) for k in value.modules)
        )
    return value


def _renamed_uid(key: str, shared: Collection[str], renamed: dict[str, str]) -> str:
    if not is_module_uid(key) or key in shared:
        return key
    if key not in renamed:
        renamed[key] = new_module_uid()
    return renamed[key]


class _InAutocast:
    """The last item of a callee's specialisation key when its call is made inside an autocast
    region (``FunctionInterpreter._in_region``)."""

    def __repr__(self) -> str:
        return "<in autocast>"


_IN_AUTOCAST = _InAutocast()


@dataclass(frozen=True)
class _TensorItems:
    """A list or tuple of up to eight tensors that all require grad, or all do not, passed to a
    function, as part of a specialisation key: the function sees that many such tensors.
    Leaves that require grad: d2l's `sgd([w, b], lr, batch_size)`. Tensors that require grad,
    not all leaves (``leaf`` False): a multi-scale loss given `model(x)`'s list of outputs
    (lookalike27). Tensors that do not (``requires_grad`` False): a training step's `(x, y)`
    batch of data, whose `x` the model's first Linear saves no weight for (lookalike30)."""

    fw: str
    count: int
    leaf: bool = True
    requires_grad: bool = True


def _items_entry(value: object) -> _TensorItems | None:
    if not isinstance(value, SeqVal) or not 0 < len(value.items) <= _ITEMWISE_COMPREHENSION:
        return None
    flags = {i.requires_grad if isinstance(i, TensorVal) else None for i in value.items}
    if flags != {True} and flags != {False}:
        return None
    requires_grad = flags == {True}
    leaf = requires_grad and all(i.leaf for i in value.items)
    return _TensorItems(value.items[0].fw, len(value.items), leaf, requires_grad)


class _FrameworkModuleArg:
    """A framework module instance passed to a helper (`run_cell(nn.GRUCell(...), x)`), as part
    of a specialisation key: its facts are not hashable, so it is keyed by class, facts and the
    constructor call (one specialisation per construction site)."""

    __slots__ = ("module",)

    def __init__(self, module: ModuleVal) -> None:
        self.module = module

    def _key(self) -> tuple:
        return (self.module.qualname, id(self.module.facts), id(self.module.node))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _FrameworkModuleArg) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


class _ModuleListArg:
    """A list or tuple of modules passed to a local module's constructor (`CGnet(arch)` with
    `arch = [nn.Linear(6, 16), nn.Tanh(), ...]`, kept as `self.arch = nn.Sequential(*arch)`:
    cgnet#63): each item as ``_module_entry`` keeps it, in order."""

    __slots__ = ("exact", "items")

    def __init__(self, items: tuple, exact: bool = False) -> None:
        self.items = items
        self.exact = exact  # the caller spelled every item (``SeqVal.exact``)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _ModuleListArg)
            and self.items == other.items
            and self.exact == other.exact
        )

    def __hash__(self) -> int:
        return hash((self.items, self.exact))

    def values(self, name: str) -> SeqVal:
        return SeqVal(
            tuple(
                replace(
                    item.module if isinstance(item, _FrameworkModuleArg) else item,
                    path=f"{name}[{i}]",
                )
                for i, item in enumerate(self.items)
            ),
            exact=self.exact,
        )


def _given_list(arg: cst.Arg, positional: list, state: State) -> SeqVal | None:
    """The list a container's only argument passes: `layers` or `*layers` of a name holding
    one."""
    if arg.star == "*" and type(arg.value) is cst.Name:
        held = state.env.get(arg.value.value)
        return held if isinstance(held, SeqVal) else None
    if not arg.star and len(positional) == 1 and isinstance(positional[0], SeqVal):
        return positional[0]
    return None


def _module_list_entry(value: object, exact: bool = False) -> _ModuleListArg | None:
    """``_ModuleListArg`` of a sequence holding only modules (at most 64), else None."""
    if not isinstance(value, SeqVal) or not value.items or len(value.items) > 64:
        return None
    items = []
    for item in value.items:
        module = _module_entry(item)
        if not isinstance(module, (_FrameworkModuleArg, ModuleVal)):
            return None
        items.append(module)
    return _ModuleListArg(tuple(items), exact)


def _tuple_leaves(value: SeqVal) -> tuple[tuple, tuple | None]:
    """A returned tuple's items, and where an item is itself a tuple of non-tuples (`return
    (loss_G, loss_D), fake`), that tuple's items in its place: (the leaves, the nesting as leaf
    indices, `((0, 1), 2)`; None when nothing is nested)."""
    leaves: list = []
    shape: list = []
    nested = False
    for item in value.items:
        if type(item) is SeqVal and item.items and not any(type(i) is SeqVal for i in item.items):
            shape.append(tuple(range(len(leaves), len(leaves) + len(item.items))))
            leaves.extend(item.items)
            nested = True
        else:
            shape.append(len(leaves))
            leaves.append(item)
    return tuple(leaves), (tuple(shape) if nested else None)


def _nest_items(parts: list, shape: tuple) -> SeqVal:
    """``parts`` (one per leaf) nested as ``shape`` says (``_tuple_leaves``)."""
    items = tuple(
        SeqVal(
            tuple(parts[i] for i in slot), frozenset().union(*(lineage_of(parts[i]) for i in slot))
        )
        if isinstance(slot, tuple)
        else parts[slot]
        for slot in shape
    )
    return SeqVal(items, frozenset().union(*(lineage_of(p) for p in parts)))


def _contained_items(items) -> tuple[frozenset[int], ...]:
    """Per item of a returned tuple, the other items whose graph (non-empty lineage) is part of
    its own: they were computed on the way to it."""
    lineages = [lineage_of(item) for item in items]
    return tuple(
        frozenset(
            j
            for j, other in enumerate(lineages)
            if j != i and other and other <= lineage and other != lineage
        )
        for i, lineage in enumerate(lineages)
    )


def _literal_signature(arguments: list) -> tuple:
    """What a constructor call tells `__init__`: its literal flags and strings (a local module
    instance's ``init_entry``). Numbers are left out: sizes differ from one block to the next, and
    each distinct entry is one more analysis of the class."""
    return _trimmed([v if _flag_or_string(v) else None for v in map(_as_string_tuple, arguments)])


def _init_signature(
    arguments: list,
    trainable: bool = False,
    rates: dict[int, object] | None = None,
    exact: set[int] = frozenset(),
) -> tuple:
    """A local module's ``init_entry``: the literal flags and strings of its constructor call
    (``_literal_signature``), and the framework modules it is given (`Block(nn.ReLU())`, kept as
    `self.activation`: dgl#4202's ARMA layer), keyed by class, facts and construction site.
    ``trainable``: tensors that surely require grad too (True, as ``_entry_signature`` keeps
    them). ``rates``: positions of in-place dropout rates, with their number defaults
    (``ModuleDataflow.dropout_rates``): kept when a number is passed or left at its default."""
    entry = []
    for position, value in enumerate(map(_as_string_tuple, arguments)):
        if rates and position in rates:
            entry.append(_rate_entry(value, rates[position]))
            continue
        module = _module_entry(value)
        if isinstance(module, (_FrameworkModuleArg, ModuleVal)):
            entry.append(module)
        elif isinstance(value, LambdaVal) or _class_reference(value):
            # `Flow(lambda i, o: Net(i, o))`, `Block(d, act_layer=nn.Sigmoid)`: what `__init__`
            # builds by calling it
            entry.append(value)
        elif (modules := _module_list_entry(value, id(value) in exact)) is not None:
            entry.append(modules)
        elif isinstance(value, OptimizerVal) and value.modules is not None:
            # `TBPTT(net, loss_fn, k1, k2, optimizer)`: the optimizer its methods step, over
            # the modules the caller built it for
            entry.append(value)
        elif trainable and isinstance(value, TensorVal) and value.requires_grad is True:
            entry.append(True)
        else:
            entry.append(value if _flag_or_string(value) else None)
    return _trimmed(entry)


def _with_rates(entry: tuple, arguments: list, rates: dict[int, object]) -> tuple:
    """``entry`` with the in-place dropout rates a call gives (or leaves at their number
    defaults) in their positions (``ModuleDataflow.dropout_rates``)."""
    out = list(entry)
    for position, default in rates.items():
        rate = _rate_entry(arguments[position] if position < len(arguments) else None, default)
        if rate is not None:
            out.extend([None] * (position + 1 - len(out)))
            out[position] = rate
    return _trimmed(out)


def _rate_entry(value: object, default: object) -> ConstVal | None:
    """What an entry keeps of an in-place dropout rate: the number given, or the number
    default when none is (``ModuleDataflow.dropout_rates``); None otherwise."""
    if value is None and default is not _NOT_LITERAL:
        value = ConstVal(default)
    return value if isinstance(value, ConstVal) and type(value.value) in (int, float) else None


def _class_reference(value: object) -> bool:
    """A layer class passed as it is (`act_layer=nn.Sigmoid`, a local `Net`), not a partial."""
    return (
        type(value) is FrameworkRef
        and value.partial is None
        and not value.bound
        and not value.bound_keywords
        and (value.qualname.startswith("<local-class>.") or kb.is_module_class(value.qualname))
    )


def _as_string_tuple(value: object) -> object:
    """A tuple or list display of string literals (`order=("conv", "act")`) as one constant."""
    if (
        isinstance(value, SeqVal)
        and value.items
        and all(isinstance(i, ConstVal) and isinstance(i.value, str) for i in value.items)
    ):
        return ConstVal(tuple(i.value for i in value.items))
    return value


class _ConfigDefault:
    """The value of a parameter left at a default that is a non-empty dict (`act_cfg=dict(
    type="ReLU")`, mmcv's ConvModule): not None and true, whatever its contents."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<a dict default>"


CONFIG_DEFAULT = _ConfigDefault()


# Paddle 3.3 ops that, given a non-contiguous view (`x[:, 0:1]`), save a contiguous copy of it
# for backward, so a later write to the view's base breaks nothing: measured by running each op on
# `x[:, 0:1]` then writing `x[:, 2:3]` before backward (layer_norm, gelu and `**` run; matmul,
# linear, multiply, silu, abs and log raise). docs/paddle.md.
PADDLE_COPIES_STRIDED = frozenset(
    {"layer_norm", "paddle.nn.LayerNorm", "gelu", "paddle.nn.GELU", "**", "pow"}
)


def _strided_index(expr: cst.Subscript) -> bool:
    """Basic indexing that leaves the result non-contiguous: a full leading slice (or `...`)
    followed by an index or a partial slice (`x[:, 0:1]`, `x[..., :4]`, `x[:, 0]`)."""
    elements = [e.slice for e in expr.slice]
    if len(elements) < 2:
        return False
    first = elements[0]
    leading = (type(first) is cst.Slice and first.lower is None and first.upper is None) or (
        type(first) is cst.Index and type(first.value) is cst.Ellipsis
    )
    if not leading:
        return False
    for element in elements[1:]:
        if type(element) is cst.Index:
            return True
        if type(element) is cst.Slice and (element.lower is not None or element.upper is not None):
            return True
    return False


def _plain_config(elements, values: list, lineage: frozenset = frozenset()) -> bool:
    """A non-empty dict display or `dict(k=v)` call of plain values (strings, numbers, flags,
    other configs): a configuration, never None and never a tensor."""
    return (
        bool(elements)
        and not lineage
        and not any(getattr(e, "star", "") or type(e) is cst.StarredDictElement for e in elements)
        and all(
            isinstance(v, ConstVal) or v is UNKNOWN or (isinstance(v, Unknown) and not v.lineage)
            for v in values
        )
    )


def _config_default(node) -> bool:
    if type(node) is cst.Dict:
        return bool(node.elements)
    return (
        type(node) is cst.Call
        and type(node.func) is cst.Name
        and node.func.value == "dict"
        and bool(node.args)
    )


def _flag_or_string(value: object) -> bool:
    return isinstance(value, ConstVal) and (
        isinstance(value.value, (bool, type(None), str))
        or value.value is CONFIG_DEFAULT
        or (
            isinstance(value.value, tuple)
            and len(value.value) <= _UNROLLED_LOOP
            and all(isinstance(v, str) for v in value.value)
        )
    )


def _string_tuple(node) -> tuple[str, ...] | None:
    """The strings of a tuple or list display of string literals (at most _UNROLLED_LOOP); None
    for anything else (no default at all too)."""
    if type(node) not in (cst.Tuple, cst.List):
        return None
    elements = node.elements
    if not elements or len(elements) > _UNROLLED_LOOP:
        return None
    out = []
    for element in elements:
        value = element.value
        if type(value) is not cst.SimpleString or element.__class__ is cst.StarredElement:
            return None
        text = _literal(value)
        if not isinstance(text, str):
            return None
        out.append(text)
    return tuple(out)


@dataclass(frozen=True)
class _Typed:
    """An entry for a tensor whose dtype is known: whether it requires grad, and the dtype."""

    requires_grad: bool
    dtype: str


class _Present:
    """An entry for a tensor (or a number) given to a parameter that defaults to None and that
    the callee tests against None (``_with_present``)."""

    def __repr__(self) -> str:
        return "_PRESENT"


_PRESENT = _Present()


def _with_present(entry: tuple, arguments: list, names: list[str], tested: dict) -> tuple:
    """``entry`` with ``_PRESENT`` where a parameter the callee tests against its default None
    (``ModuleDataflow.tested_defaults``) is given a tensor that is surely not None, and the entry
    says nothing else of it."""
    out = list(entry) + [None] * (len(arguments) - len(entry))
    for index, name in enumerate(names[: len(arguments)]):
        if name in tested and tested[name] is None and out[index] is None:
            given = arguments[index]
            if (
                (type(given) is TensorVal and not given.maybe_none)
                or (type(given) is ConstVal and given.value is not None)  # `chunk=2`
                or type(given) is LoopCounter  # `model(tok, start_pos=i)` in `for i in range(n)`
            ):
                out[index] = _PRESENT
    return _trimmed(out)


def _is_data(entry: object) -> bool:
    """An entry for a tensor that does not require grad (``_entry_signature``)."""
    return entry is False or (type(entry) is _Typed and entry.requires_grad is False)


def _entry_signature(positional: list) -> tuple:
    """What a call tells its callee: tensors that surely require grad, local modules, literal flags
    and strings."""
    entry: list[object] = []
    for value in positional:
        if _flag_or_string(value):
            entry.append(value)
        elif isinstance(value, TensorVal) and value.requires_grad is not None:
            # True, or data (False: `torch.randn(...)`, made under no_grad, detached); with its
            # dtype where known (`torch.randint(...)`: int64, so that the callee's `.long()` is
            # the tensor itself)
            rg = value.requires_grad
            entry.append(_Typed(rg, value.dtype) if value.dtype is not None else rg)
        elif (module := _module_entry(value)) is not None:
            entry.append(module)
        elif isinstance(value, FrameworkRef) and not value.qualname.startswith("<"):
            entry.append(value)  # `reduce(..., op=torch.mul)`: the function it calls
        elif isinstance(value, LambdaVal) or _class_reference(value):
            entry.append(value)  # `build(lambda i, o: Net(i, o))`, `build(Net)`
        elif (
            isinstance(value, FrameworkRef)
            and value.qualname.startswith("<local-function>.")
            and not value.bound
            and not value.bound_keywords
        ):
            # `train_step(netG, clf, x, y, normalize_and_scale)`: the helper the callee calls
            # through its parameter (`scale_fn(delta, n)`) is this module's function
            entry.append(value)
        elif isinstance(value, OptimizerVal) and value.modules is not None:
            entry.append(value)  # `run_epoch(model, loader, optimizer)`: what its step updates
        elif (
            isinstance(value, SeqVal)
            and 0 < len(value.items) <= _ITEMWISE_COMPREHENSION
            and all(isinstance(i, OptimizerVal) and i.modules is not None for i in value.items)
        ):
            # `train_model(model, [opt_l, opt_u], mse)`: each optimizer, by position (MASSL,
            # recall34); `optimizer[0].step()` then updates what that one holds
            entry.append(SeqVal(value.items))
        elif (items := _items_entry(value)) is not None:
            entry.append(items)  # `sgd([w, b], lr)`: leaves that require grad; a data batch
        elif isinstance(value, ParamsVal):
            entry.append(value)  # `sgd(model.parameters(), lr)`: the module's parameters
        else:
            entry.append(None)
    return _trimmed(entry)


def _untrainable_attr(call: cst.Call) -> bool:
    """`attr=paddle.ParamAttr(..., trainable=False)` among the call's keywords."""
    for arg in call.args:
        if (
            arg.keyword is not None
            and arg.keyword.value == "attr"
            and type(arg.value) is cst.Call
            and (dotted_name(arg.value.func) or "").rsplit(".", 1)[-1] == "ParamAttr"
        ):
            return _literal_kw(arg.value, "trainable") is False
    return False


def _is_entry_method(key: str) -> bool:
    """`Class.forward` / `__call__` / `_forward_impl` (their inputs: ``_data_inputs``)."""
    return "." in key and key.rsplit(".", 1)[-1] in _ENTRY_METHODS


def _forward_input_rg(param: cst.Param) -> bool | None:
    """What a module's `forward` takes its parameter for, on its own: an input without a default
    comes from earlier layers and requires grad, unless named as data (indices, masks, labels);
    None for one with a default."""
    if param.default is not None:
        return None
    return _DATA_ARGUMENT.fullmatch(param.name.value) is None


def _trimmed(entry: list) -> tuple:
    """An entry without its trailing unknowns (so that calls differing only there share one)."""
    while entry and entry[-1] is None:
        entry.pop()
    return tuple(entry)


_FLOAT32 = frozenset({"torch.float32", "torch.float"})
_LEGACY_CONSTRUCTORS = frozenset(
    f"torch.{name}Tensor"
    for name in ("", "Float", "Double", "Half", "Long", "Int", "Short", "Byte", "Char", "Bool")
)
# dict methods that put what they are given among its entries
_DICT_FILLERS = frozenset({"update", "setdefault", "__setitem__"})
# dict methods that leave its entries as they are
_DICT_READERS = frozenset({"get", "keys", "values", "items", "copy", "__getitem__", "__contains__"})

# Views that swap axes, and the reshapes that then copy (torch).
_PERMUTING_VIEWS = frozenset(
    {"transpose", "permute", "t", "T", "mT", "mH", "H", "swapaxes", "movedim"}
)
_COPIES_WHEN_PERMUTED = frozenset({"reshape", "flatten", "reshape_as"})


def _rearrange_merges_permuted(call: cst.Call) -> bool:
    """`einops.rearrange(x, "b t d -> b (d t)")`: the output lists the input's axes in another
    order and groups some of them, so einops reshapes a permuted tensor: a copy."""
    if len(call.args) < 2 or type(call.args[1].value) is not cst.SimpleString:
        return False
    pattern = _string_value(call.args[1].value)
    if not isinstance(pattern, str) or "->" not in pattern:
        return False
    left, _, right = pattern.partition("->")
    if "(" not in right or "..." in pattern:
        return False
    axes = left.replace("(", " ").replace(")", " ").split()
    for group in re.findall(r"\(([^()]*)\)", right):
        # a merged group whose axes are not adjacent and in order in the input (`b (h d) x y ->
        # b h (y x) d`, recall28's BoTNet probe): no stride can step through it, a copy (measured)
        at = [axes.index(a) for a in group.split() if a in axes]
        if at and at != list(range(at[0], at[0] + len(at))):
            return True
    if "(" in left:
        return False
    order = right.replace("(", " ").replace(")", " ").split()
    inputs = [a for a in left.split() if a in order]
    return order != inputs and order == [a for a in order if a in inputs]


def _without_grad(value: Value) -> Value:
    """``value`` on a path where nothing requires grad (a tuple's tensors too)."""
    if isinstance(value, TensorVal) and value.requires_grad is not False:
        return replace(value, requires_grad=False)
    if isinstance(value, SeqVal) and any(isinstance(i, TensorVal) for i in value.items):
        return replace(value, items=tuple(_without_grad(i) for i in value.items))
    return value


def _unique_by_node(items: list) -> list:
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item.node) not in seen:
            seen.add(id(item.node))
            out.append(item)
    return out


def _fully_reached(write: Write) -> bool:
    return all(s.op_id in write.confirmed for s in write.saves)


_CONTAINER_BASES = frozenset(
    {"torch.nn.Module", "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
    | {"paddle.nn.Layer", "paddle.nn.Sequential", "paddle.nn.LayerList", "paddle.nn.LayerDict"}
)

# `x.type_as(y)`, `x.to(y)`: a tensor argument gives only a dtype and a device, no gradient path.
_CONVERSION_METHODS = frozenset({"type_as", "to"})
# Tensor methods that may return the tensor itself (a no-op conversion, an in-place method)
_SELF_RETURNING_METHODS = frozenset(
    {"to", "type", "type_as", "float", "double", "half", "bfloat16", "int", "long", "bool"}
    | {"cuda", "cpu", "contiguous", "requires_grad_", "detach_", "share_memory_", "pin_memory"}
    | {"astype", "cast", "numpy"}
)
# The parameters of nn.RNN / nn.GRU / nn.LSTM / nn.LSTMCell (torch/nn/modules/rnn.py names them).
_RECURRENT_PARAMETER = re.compile(r"(?:weight|bias)_(?:ih|hh|hr)(?:_l\d+(?:_reverse)?)?")
# Functions joining a sequence of tensors: their first argument is a list or tuple.
_SEQUENCE_JOINS = frozenset(
    {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"}
)

# `m.register_full_backward_hook(h)`: a hook whose `BackwardHookFunction` wraps the module's
# tensors (``ModuleVal.backward_hook``); not the old `register_backward_hook`, which wraps none
_FULL_BACKWARD_HOOKS = frozenset({"register_full_backward_hook", "register_full_backward_pre_hook"})
# Module methods iterating its submodules (torch; Paddle's `sublayers`)
_SUBMODULE_ITERATORS = frozenset(
    {"modules", "children", "named_modules", "named_children", "sublayers", "named_sublayers"}
)
# Tensor methods that return a Python value (a number, a list, a size, a flag), never a tensor.
_PYTHON_VALUE_METHODS = frozenset(
    {"item", "tolist", "size", "dim", "ndimension", "numel", "nelement", "element_size"}
    | {"is_contiguous", "is_floating_point", "is_complex", "data_ptr", "stride", "get_device"}
    | {"storage_offset", "equal", "__len__"}
)

# Forward arguments named as integer or boolean data (`edge_index`, `input_ids`, `attention_mask`,
# `labels`): tensors that do not require grad, not activations from earlier layers.
# framework calls that return one of their arguments itself: its position
_IDENTITY_CALLS = {"torch.jit._unwrap_optional": 0, "torch.jit.annotate": 1}

_DATA_ARGUMENT = re.compile(
    r"(?:\w+_)?(?:index|indices|idx|ids|mask|masks|labels?|targets?|lengths?|lens|batch"
    # geometry a detector or a view transform is given (a point cloud, calibration and
    # augmentation matrices: mmdet3d's BEVFusion `points`, `lidar2image`, `img_aug_matrix`)
    r"|points|xyz|matrix|matrices|intrinsics?|extrinsics?|calib)"
    r"|\w+2(?:img|image|lidar|cam|camera|ego)"
)


def _is_docstring(stmt) -> bool:
    return (
        type(stmt) is cst.SimpleStatementLine
        and len(stmt.body) == 1
        and type(stmt.body[0]) is cst.Expr
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _body(node) -> list:
    """The statements of a block; a one-line suite (`if x: a; b`) is one statement of its own."""
    body = getattr(node, "body", None)
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return [body]
    return []


def _number(node: cst.Integer | cst.Float) -> int | float | complex:
    """The literal's value; libcst's ``evaluated_value`` compiles the text with ``literal_eval``."""
    try:
        return int(node.value, 0) if type(node) is cst.Integer else float(node.value)
    except ValueError:  # `0_7`, hex floats and the like: the slow, exact way
        return node.evaluated_value


def _string_value(node: cst.SimpleString) -> str | bytes:
    """The literal's value. libcst's ``evaluated_value`` runs ``ast.literal_eval`` (a parse) on
    every string; a plain or raw string whose body has no backslash (plain) and no carriage
    return (which the tokenizer would turn into a newline) is its body, as ``literal_eval``
    gives it. Anything else (bytes, escapes) takes libcst's way."""
    text = node.value
    start = 0
    while text[start] not in "'\"":
        start += 1
    prefix = text[:start]
    width = 3 if text.startswith(text[start] * 3, start) and len(text) - start >= 6 else 1
    body = text[start + width : len(text) - width]
    raw = prefix in ("r", "R")
    if "\r" not in body and (raw or (prefix in ("", "u", "U") and "\\" not in body)):
        return body
    return node.evaluated_value


def _code(interp: FunctionInterpreter, node) -> str:
    if node is None:
        return ""
    memo = interp.flow.snippets  # loops and specialisations quote the same nodes again
    text = memo.get(node)
    if text is None:
        try:
            text = snippet(interp.flow.module, node)
        except Exception:  # noqa: BLE001 - a message fragment is never worth a lost finding
            text = "<expr>"
        memo[node] = text
    return text


def _framework_op_text(interp: FunctionInterpreter, call: cst.Call, qual: str) -> str:
    """`torch.mul`; through a name that holds the function (`op=torch.mul` passed in):
    `op` (`torch.mul`)."""
    text = f"`{_short(interp, call.func)}`"
    if type(call.func) is cst.Name and qual.rsplit(".", 1)[-1] != call.func.value:
        return f"{text} (`{qual}`)"
    return text


def _short(interp: FunctionInterpreter, node) -> str:
    return _short_text(_code(interp, node))


def _short_text(text: str) -> str:
    if "(" in text and len(text) > 40:
        return text.split("(", 1)[0] + "(...)"
    return text


def _other_branch(made: tuple, here: tuple) -> bool:
    """Whether code running in the branches ``here`` cannot follow a write made in ``made``: the
    two went different ways at one run of an `if`."""
    taken = dict(made)
    return any(taken.get(run, branch) != branch for run, branch in here)


def _dict_index(expr: cst.Subscript) -> object:
    """The literal key of `d[k]` (one index), else _NOT_LITERAL."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return _NOT_LITERAL
    return _subscript_key(expr.slice[0].slice.value)


def _dict_key(element) -> object:
    """The key of a dict display's entry when it is a hashable literal (`"q"`, `0`, `(0, 1)`),
    else _NOT_LITERAL (a `**spread` too)."""
    if type(element) is not cst.DictElement:
        return _NOT_LITERAL
    return _subscript_key(element.key)


def _subscript_key(expr) -> object:
    """A literal usable as a dict key (strings, numbers, flags, tuples of them)."""
    key = _literal(expr)
    try:
        hash(key)
    except TypeError:
        return _NOT_LITERAL
    return key


def _literal(expr) -> object:
    """The value of a literal (`True`, `0.5`, `-1`, `1e-3`, `"relu"`, `(1, 1)`), else _NOT_LITERAL."""
    kind = type(expr)
    if kind is cst.Name:
        return {"True": True, "False": False, "None": None}.get(expr.value, _NOT_LITERAL)
    if kind is cst.Integer or kind is cst.Float:
        try:
            return _number(expr)
        except ValueError:
            return _NOT_LITERAL
    if kind is cst.SimpleString:
        return _string_value(expr)
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        value = _literal(expr.expression)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
        return _NOT_LITERAL
    if kind is cst.Tuple or kind is cst.List:
        items = [_literal(e.value) for e in expr.elements if type(e) is cst.Element]
        if len(items) != len(expr.elements) or any(i is _NOT_LITERAL for i in items):
            return _NOT_LITERAL
        return tuple(items)
    return _NOT_LITERAL


_NOT_LITERAL = object()


def _all_parameters_frozen(module: ModuleVal) -> bool:
    """Every parameter of a framework layer frozen one by one: its weight, and its bias unless
    it has none (an Embedding; `bias=False` at the constructor)."""
    frozen = module.frozen_parameters
    if "weight" not in frozen:
        return False
    if "bias" in frozen or module.qualname.rsplit(".", 1)[-1] in _LAYERS_WITHOUT_BIAS:
        return True
    return type(module.node) is cst.Call and _literal_kw(module.node, "bias") is False


_LAYERS_WITHOUT_BIAS = frozenset({"Embedding", "EmbeddingBag"})
_INDEX_DTYPES = frozenset({"int64", "int32", "int16", "int8", "uint8", "bool"})


def _literal_kw(call: cst.Call, name: str, env: dict | None = None) -> object:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return _known_literal(arg.value, env)
    return None


def _known_literal(expr, env: dict | None) -> object:
    """``_literal``, or the literal a name holds (`nn.ReLU(inplace=inplace)` in an `__init__`
    given `inplace=True`, `F.relu(x, inplace=self.inplace)`)."""
    value = _literal(expr)
    if value is _NOT_LITERAL and env is not None and type(expr) in (cst.Name, cst.Attribute):
        held = env.get(dotted_name(expr) or "")
        if isinstance(held, ConstVal):
            return held.value
    return value


def _receiver_path(call: cst.Call) -> str | None:
    """`self.body` for `self.body.add_module(...)`: the dotted name a method is called on."""
    return dotted_name(call.func.value) if type(call.func) is cst.Attribute else None


def _positional_flag(
    call: cst.Call, params: tuple[str, ...], name: str, env: dict | None = None
) -> bool:
    """The flag ``name`` passed as a literal True by position (`F.dropout(x, 0.5, True, True)`)."""
    if name not in params:
        return False
    index = params.index(name)
    positional = [a for a in call.args if a.keyword is None]
    if index >= len(positional) or any(a.star for a in positional[: index + 1]):
        return False
    return _known_literal(positional[index].value, env) is True


_DROPOUT_CLASSES = ("Dropout", "AlphaDropout", "FeatureAlphaDropout")


def _inplace_dropout_rate_names(body) -> set[str]:
    """The names a body passes as the rate of a dropout module built in place (`nn.Dropout(p,
    inplace=True)`, `Dropout2d(p=rate, inplace=True)`)."""
    names: set[str] = set()
    stack: list = [body]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Call:
            func = current.func
            last = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
            if (
                type(last) is str
                and last.startswith(_DROPOUT_CLASSES)
                and any(
                    a.keyword is not None
                    and a.keyword.value == "inplace"
                    and not (type(a.value) is cst.Name and a.value.value == "False")
                    for a in current.args
                )
            ):
                rate = _arg_expr(current, ("p",), "p")
                if type(rate) is cst.Name:
                    names.add(rate.value)
        elif kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Name:
            continue
        stack.extend(_subnodes(current))
    return names


def _default_tests(body) -> tuple[set[str], set[str]]:
    """The names a body compares with `is None` / `is not None`, and the names it takes as a
    condition (`if active:`, `x if training else y`, `if not flag and ...`)."""
    nones: set[str] = set()
    flags: set[str] = set()
    stack: list = [body]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Comparison:
            compared = _none_comparison(current)
            if compared is not None:
                nones.add(compared[0])
                continue
        elif kind is cst.If or kind is cst.IfExp or kind is cst.While:
            tests = [current.test]
            while tests:
                test = tests.pop()
                if type(test) is cst.Name:
                    flags.add(test.value)
                elif type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
                    tests.append(test.expression)
                elif type(test) is cst.BooleanOperation:
                    tests.extend((test.left, test.right))
                elif (
                    type(test) is cst.Call
                    and type(test.func) is cst.Name
                    and len(test.args) == 1
                    and type(test.args[0].value) is cst.Name
                ):
                    # `if exists(mask):` through a helper of this module (lucidrains' `exists`,
                    # `default`): the helper's literal result decides (``returns_constant``)
                    nones.add(test.args[0].value.value)
                    flags.add(test.args[0].value.value)
        elif kind is cst.Call:
            for arg in current.args:
                if type(arg.value) is cst.Name and not arg.star:
                    # `self.attn(x, start_pos)`: handed on as it is to a callee that may test
                    # it (a KV cache written `if start_pos is not None:`), the caller's value
                    # decides there as here
                    nones.add(arg.value.value)
        elif kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Name:
            continue
        stack.extend(_subnodes(current))
    return nones, flags


def _tested_argument(argument: object, default: object) -> ConstVal | None:
    """What a forward's tested parameter (``ModuleDataflow.tested_defaults``) is at a call: its
    default when left out, the literal passed, or None when not known."""
    if argument is None:
        return ConstVal(default)
    if isinstance(argument, ConstVal) and (argument.value is None or type(argument.value) is bool):
        return argument
    return None


# `isinstance` class arguments whose instances are never tensors (``ModuleDataflow.class_kind``)
_NOT_TENSOR_BUILTINS = frozenset(
    {"list", "tuple", "dict", "set", "frozenset", "str", "bytes", "bytearray", "int", "float"}
    | {"bool", "complex", "range", "slice", "type", "memoryview"}
)
_TENSOR_CLASSES = frozenset(
    {"torch.Tensor", "torch.autograd.Variable", "torch.autograd.variable.Variable", "paddle.Tensor"}
    | {"torch.nn.Buffer", "torch.nn.parameter.Buffer", "torch.nn.UninitializedParameter"}
    | {"torch.nn.parameter.UninitializedParameter", "torch.nn.UninitializedBuffer"}
    | {"paddle.base.framework.EagerParamBase", "paddle.base.framework.Parameter"}
    | kb.PARAMETER_CLASSES
)
_NOT_TENSOR_CLASSES = frozenset(
    {"torch.nn.Module", "paddle.nn.Layer", "torch.Size", "torch.dtype", "torch.device"}
)


def _qualified_class_kind(qual: str) -> str:
    """ "tensor" / "other" / "unknown" for an imported class (see ``class_kind``): torch's and
    Paddle's tensor classes, any class named `...Tensor` (`MaskedTensor`, torchvision's
    `TVTensor`) and torchvision's tv_tensors are tensors; the standard library's and numpy's
    classes and the frameworks' layers are not; anything else may be either."""
    head = qual.partition(".")[0]
    if (
        qual in _TENSOR_CLASSES
        or qual.rsplit(".", 1)[-1].endswith("Tensor")
        or qual.startswith(("torchvision.tv_tensors.", "torchvision.datapoints."))
    ):
        return "tensor"
    if (
        head in sys.stdlib_module_names
        or head == "numpy"
        or qual in _NOT_TENSOR_CLASSES
        or kb.is_module_class(qual)
    ):
        return "other"
    return "unknown"


def _class_arguments(expr) -> list:
    """The classes an `isinstance` class argument names: one, or a tuple's."""
    return [e.value for e in expr.elements] if type(expr) is cst.Tuple else [expr]


def _isinstance_union(test: cst.BooleanOperation) -> cst.Call | None:
    """`isinstance(m, A) or isinstance(m, B)` as `isinstance(m, (A, B))` (the same name on both
    sides); None for anything else."""
    parts = []
    stack = [test]
    while stack:
        node = stack.pop()
        if type(node) is cst.BooleanOperation and type(node.operator) is cst.Or:
            stack.extend((node.right, node.left))
        elif (
            type(node) is cst.Call
            and type(node.func) is cst.Name
            and node.func.value == "isinstance"
            and len(node.args) == 2
            and not any(a.star or a.keyword for a in node.args)
        ):
            parts.append(node)
        else:
            return None
    names = {dotted_name(p.args[0].value) for p in parts}
    if len(names) != 1 or None in names:
        return None
    classes = [c for part in parts for c in _class_arguments(part.args[1].value)]
    return parts[0].with_changes(
        args=[parts[0].args[0], cst.Arg(cst.Tuple([cst.Element(c) for c in classes]))]
    )


def _registers_dynamically(cls: cst.ClassDef) -> bool:
    """The class body calls `setattr(...)`, `add_module(...)` or `register_module(...)`: its
    submodules are not all bound as `self.<name> = ...`."""
    stack: list = [cls.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            func = node.func
            name = func.value if type(func) is cst.Name else getattr(func, "attr", None)
            name = name.value if type(name) is cst.Name else name
            if name in ("setattr", "add_module", "register_module", "add_sublayer"):
                return True
        stack.extend(_subnodes(node))
    return False


def _isinstance_call(call: cst.Call, env: dict) -> bool:
    """`isinstance(x, C)` of the builtin (not a name this function binds)."""
    return (
        type(call.func) is cst.Name
        and call.func.value == "isinstance"
        and "isinstance" not in env
        and len(call.args) == 2
    )


def _container_types(expr) -> bool:
    """`list`, `tuple`, `dict`, or a tuple of them (an `isinstance` class argument)."""
    if type(expr) is cst.Tuple:
        return bool(expr.elements) and all(_container_types(e.value) for e in expr.elements)
    return type(expr) is cst.Name and expr.value in ("list", "tuple", "dict")


def _flag_argument(call: cst.Call, positional: list) -> object:
    """`requires_grad_(flag)`'s flag: a literal, or a bool the analysis knows the name holds
    (`param.requires_grad_(requires_grad)` given False); True when not passed."""
    if not call.args:
        return True
    flag = _literal(call.args[0].value)
    if flag is _NOT_LITERAL and positional and isinstance(positional[0], ConstVal):
        return positional[0].value
    return flag


def _super_init_call(init: cst.FunctionDef) -> cst.Call | None:
    """The `super().__init__(...)` / `super(C, self).__init__(...)` statement of an
    `__init__`'s own body."""
    for stmt in init.body.body if type(init.body) is cst.IndentedBlock else ():
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            call = small.value if type(small) is cst.Expr else None
            if (
                type(call) is cst.Call
                and type(call.func) is cst.Attribute
                and call.func.attr.value == "__init__"
                and type(call.func.value) is cst.Call
                and type(call.func.value.func) is cst.Name
                and call.func.value.func.value == "super"
            ):
                return call
    return None


def _literal_keywords(call: cst.Call, env: dict | None = None) -> dict[str, object]:
    """A constructor call's arguments as literals (UNKNOWN_LITERAL where not one), positional ones
    under their index; `*args` and `**kwargs` leave every parameter they may fill unknown (keys
    ``kb.SPREAD_POSITIONAL``, the position where it starts, and ``kb.SPREAD_KEYWORDS``)."""
    out: dict[str, object] = {}
    for position, arg in enumerate(call.args):
        if arg.star == "**":
            out[kb.SPREAD_KEYWORDS] = kb.UNKNOWN_LITERAL
            continue
        if arg.star == "*":
            out.setdefault(kb.SPREAD_POSITIONAL, position)
            continue
        value = _known_literal(arg.value, env)
        key = arg.keyword.value if arg.keyword is not None else str(position)
        out[key] = value if value is not _NOT_LITERAL else kb.UNKNOWN_LITERAL
    return out


def _keyword_names(call: cst.Call) -> frozenset[str]:
    return frozenset(a.keyword.value for a in call.args if a.keyword is not None)


class _StatementOrder:
    """A function's small statements (and compound headers) in text order, with the names each
    reads and binds and, inside a loop, where the outermost enclosing loop starts."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.index: dict[int, int] = {}
        self.reads: list[set[str]] = []
        self.binds: list[set[str]] = []
        self.passed: list[set[str]] = []  # names written back whole (`t.set_value(x)`, `d[k] = x`)
        self.loop_start: list[int | None] = []
        self._block(function.body, None)

    def _unit(self, node, parts, binds: set[str], loop: int | None) -> None:
        self.index[id(node)] = len(self.reads)
        reads: set[str] = set()
        passed: set[str] = set()
        for part in parts:
            if part is not None:
                reads |= _names_in(part)
                passed |= _names_passed(part)
        self.reads.append(reads - binds if binds else reads)
        self.passed.append(passed)
        self.binds.append(binds)
        self.loop_start.append(loop)

    def _block(self, block, loop: int | None) -> None:
        body = block.body if hasattr(block, "body") else block
        if not isinstance(body, (list, tuple)):
            body = [body]
        for stmt in body:
            kind = type(stmt)
            if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
                for small in stmt.body:
                    binds: set[str] = set()
                    if type(small) in (cst.Assign, cst.AnnAssign):
                        targets = (
                            [t.target for t in small.targets]
                            if type(small) is cst.Assign
                            else [small.target]
                        )
                        binds = {t.value for t in targets if type(t) is cst.Name}
                        value = small.value
                        parts = [value] + [t for t in targets if type(t) is not cst.Name]
                        self._unit(small, parts, binds, loop)
                        if type(value) is cst.Name and any(
                            type(t) is not cst.Name for t in targets
                        ):
                            self.passed[-1].add(value.value)  # `params[i] = param`
                    else:
                        self._unit(small, [small], set(), loop)
            elif kind in (cst.For, cst.While):
                start = len(self.reads) if loop is None else loop
                header = [stmt.iter] if kind is cst.For else [stmt.test]
                self._unit(stmt, header, set(), start)
                self._block(stmt.body, start)
                if stmt.orelse is not None:
                    self._block(stmt.orelse.body, loop)
            elif kind is cst.If:
                self._unit(stmt, [stmt.test], set(), loop)
                self._block(stmt.body, loop)
                if stmt.orelse is not None:
                    orelse = stmt.orelse
                    if type(orelse) is cst.If:
                        self._block([orelse], loop)
                    else:
                        self._block(orelse.body, loop)
            elif kind is cst.With:
                self._unit(stmt, [i.item for i in stmt.items], set(), loop)
                self._block(stmt.body, loop)
            elif kind is cst.Try:
                self._block(stmt.body, loop)
                for handler in stmt.handlers:
                    self._block(handler.body, loop)
                for extra in (stmt.orelse, stmt.finalbody):
                    if extra is not None:
                        self._block(extra.body, loop)
            elif kind not in (cst.FunctionDef, cst.ClassDef):
                self._unit(stmt, [stmt], set(), loop)


_MAX_INLINE_DEPTH = 3


def _run_on_demand(key: str, info: FunctionInfo, top_level: frozenset[str]) -> bool:
    """Whether a function the prefilter did not find writing (``ModuleDataflow.top_level``) is
    left to run where it is called (an inherited entry counts as its base's method)."""
    if info.inherited_from is not None:
        key = f"{info.inherited_from}.{info.node.name.value}"
    return key not in top_level


def _statements_of(node, tests: bool = False, loops: bool = True) -> Iterator:
    """The small statements under a block, nested blocks included, in text order (nested defs
    and classes left out); with ``tests``, each `if`/`while` test too, as an expression statement
    before its body; without ``loops``, nested `for`/`while` loops left out too."""
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from _statements_of(item, tests, loops)
        return
    kind = type(node)
    if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
        yield from node.body
        return
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return
    if not loops and (kind is cst.For or kind is cst.While):
        return
    test = getattr(node, "test", None)
    if tests and isinstance(test, cst.BaseExpression):
        yield cst.Expr(test)
    for name in ("body", "handlers", "cases", "orelse", "finalbody"):
        part = getattr(node, name, None)
        if part is not None and not isinstance(part, cst.BaseExpression):
            yield from _statements_of(part, tests, loops)


def _returns_value(body) -> bool:
    return any(
        type(small) is cst.Return and small.value is not None for small in _statements_of(body)
    )


def _yields(body) -> bool:
    for small in _statements_of(body):
        kind = type(small)
        if kind is cst.Expr and type(small.value) in (cst.Yield, cst.Await):
            return True
        if (kind is cst.Assign or kind is cst.AnnAssign) and type(small.value) is cst.Yield:
            return True
    return False


def _runs_backward(body, retaining: bool = False) -> bool:
    """A statement `<expr>.backward(...)` among the statements of ``body`` (at any depth of its
    blocks); with ``retaining``, one that passes `retain_graph`."""
    for small in _statements_of(body):
        call = small.value if type(small) is cst.Expr else None
        if (
            type(call) is cst.Call
            and type(call.func) is cst.Attribute
            and call.func.attr.value in ("backward", "manual_backward")
            and (
                not retaining
                or any(
                    a.keyword is not None and a.keyword.value == "retain_graph" for a in call.args
                )
            )
        ):
            return True
    return False


def _carry_key(module: ModuleVal) -> str:
    return f"<carried>:{module.key_root}"


def _read_then_rebound(body) -> set[str]:
    """`self.<name>` read by a statement (in text order) before any statement rebinds it, and
    rebound later or by that statement (`self.h = self.cell(x, self.h)`)."""
    if not _self_attributes_assigned(body):
        return set()  # most forwards: no expression walk at all
    assigned: set[str] = set()
    carried: set[str] = set()
    read_first: set[str] = set()
    for small in _statements_of(body, tests=True):
        kind = type(small)
        if kind is cst.Assign:
            values = [small.value]
        elif kind is cst.AnnAssign:
            values = [small.value] if small.value is not None else []
        elif kind is cst.AugAssign:
            values = [small.target, small.value]
        else:
            values = [small]
        for value in values:
            read_first |= _self_attributes_read(value) - assigned
        bound = _self_attributes_bound(small)
        carried |= bound & read_first
        assigned |= bound
    return carried


def _self_attributes_read(node) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Attribute:
            name = dotted_name(current)
            if name and name.startswith("self.") and name.count(".") == 1:
                found.add(name[5:])
                continue
        stack.extend(_subnodes(current))
    return found


# what gives a method every attribute of `self` at once (its parameters, its submodules)
_GENERIC_SELF_ACCESS = frozenset(
    {
        "parameters", "named_parameters", "buffers", "named_buffers", "state_dict",
        "modules", "named_modules", "children", "named_children", "apply", "get_parameter",
        "get_submodule", "get_buffer", "_parameters", "_buffers", "_modules", "__dict__",
        "__getattr__", "__getattribute__", "forward", "__call__", "sublayers",
        "named_sublayers", "_sub_layers",
    }
)  # fmt: skip
# bases whose methods read no attribute a subclass defines, but through the accesses above
_PLAIN_MODULE_BASES = frozenset(
    {"torch.nn.Module", "torch.nn.modules.module.Module", "paddle.nn.Layer", "nn.Module",
     "nn.Layer", "object"}
)  # fmt: skip


def _readable_attributes(info: FunctionInfo, index: ModuleIndex) -> frozenset[str] | None:
    """``ModuleDataflow.readable_attributes`` (a module-level function: no closure cycles)."""
    cls = info.cls
    methods = cls.methods
    plain = _plain_lineage(cls, index, 0)
    declared: set[str] = set()
    for owner in local_lineage(cls, index.classes):
        init = owner.methods.get("__init__")
        if init is not None:
            declared |= _self_attributes_assigned(init.body)
    found: set[str] = set()
    todo: list[cst.FunctionDef] = [info.node]
    seen = {info.node.name.value}
    while todo:
        reads = _self_reads(todo.pop())
        if reads is None:
            return None
        for name, called in reads:
            if name in _GENERIC_SELF_ACCESS:
                return None
            method = methods.get(name)
            if method is not None:
                if not method.params.params:  # a stub of the prefilter: its body is unknown
                    return None
                if name not in seen:
                    seen.add(name)
                    todo.append(method)
                continue
            if called and not plain and name not in declared:
                return None  # `self.get_extended_attention_mask(...)`: inherited, unknown
            found.add(name)
    return frozenset(found)


def _plain_lineage(cls: ClassInfo, index: ModuleIndex, depth: int) -> bool:
    """Every base of the class is a local class (with a plain lineage) or a plain module base,
    and no local base defines a method (the class's own are all that `self.m()` can run)."""
    if depth > 8:
        return False
    for base in cls.base_names:
        local = index.classes.get(base)
        if local is not None and local is not cls:
            if any(name != "__init__" for name in local.methods):
                return False
            if not _plain_lineage(local, index, depth + 1):
                return False
        elif base not in _PLAIN_MODULE_BASES:
            return False
    return True


def _self_reads(node: cst.FunctionDef) -> list[tuple[str, bool]] | None:
    """The `self.<name>` a method's body reads, each with whether it is called there; None when
    `self` is used otherwise (handed to a function, `getattr(self, ...)`) or `super()` is."""
    out: list[tuple[str, bool]] = []
    stack: list = [node.body]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Call:
            func = current.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name:
                if func.value.value == "self":
                    out.append((func.attr.value, True))
                    stack.extend(current.args)
                    continue
            elif type(func) is cst.Name and func.value == "super":
                return None
        elif kind is cst.Attribute:
            if type(current.value) is cst.Name and current.value.value == "self":
                out.append((current.attr.value, False))
                continue
        elif kind is cst.Name:
            if current.value == "self":
                return None
            continue
        stack.extend(_subnodes(current))
    return out


def _self_attributes_assigned(body) -> set[str]:
    found: set[str] = set()
    for small in _statements_of(body):
        found |= _self_attributes_bound(small)
    return found


def _self_attributes_bound(small) -> set[str]:
    """The `self.<name>` one small statement assigns."""
    kind = type(small)
    if kind is cst.Assign:
        targets = [t.target for t in small.targets]
    elif kind is cst.AnnAssign or kind is cst.AugAssign:
        targets = [small.target]
    else:
        return set()
    found: set[str] = set()
    while targets:
        target = targets.pop()
        if type(target) in (cst.Tuple, cst.List):
            targets.extend(e.value for e in target.elements)
        elif type(target) is cst.StarredElement:
            targets.append(target.value)
        else:
            name = dotted_name(target)
            if name and name.startswith("self.") and name.count(".") == 1:
                found.add(name[5:])
    return found


_BINDING_TARGETS = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.NamedExpr,
    cst.For,
    cst.CompFor,
)


def _rewrapped(small: cst.Assign, value: Value, state: State) -> dict[str, Value]:
    """`D, opt_d = accelerator.prepare(D, opt_d)`, `model, optimizer = amp.initialize(model,
    optimizer)`, `netD, optimizerD, loader = privacy_engine.make_private(module=netD,
    optimizer=optimizerD, ...)`: a call the analysis cannot see into, handed models and
    optimizers and unpacked into the same names, returns them wrapped; they run and update as
    before. Those names keep what they held."""
    call = small.value
    if type(call) is not cst.Call or isinstance(value, SeqVal) or len(small.targets) != 1:
        return {}
    target = small.targets[0].target
    if type(target) not in (cst.Tuple, cst.List):
        return {}
    given: set[str] = set()
    for arg in call.args:
        if arg.star:
            continue
        inner = arg.value.elements if type(arg.value) in (cst.Tuple, cst.List) else [arg]
        given.update(e.value.value for e in inner if type(e.value) is cst.Name)
    kept: dict[str, Value] = {}
    for element in target.elements:
        name = element.value.value if type(element.value) is cst.Name else None
        held = state.env.get(name) if name in given else None
        if isinstance(held, (ModuleVal, OptimizerVal)):
            kept[name] = held
    return kept


def _arithmetic_operand(value, node) -> bool:
    """`h = o * c.tanh_()`: ``node`` is an operand of the arithmetic the assigned value is made
    of (binary and unary operators only, not a call's argument): its result is used as a value,
    as when it is assigned (latent-treelstm#5, recall35: the cell state `c` returned after)."""
    stack = [value]
    while stack:
        current = stack.pop()
        if current is node:
            return current is not value
        if type(current) is cst.BinaryOperation:
            stack.extend((current.left, current.right))
        elif type(current) is cst.UnaryOperation:
            stack.append(current.expression)
    return False


def _assigned_as_is(value, node) -> bool:
    """`y = <node>`, or one branch of `y = <node> if c else <other>`."""
    while type(value) is cst.IfExp:
        if value.body is node:
            return True
        value = value.orelse
    return value is node


# `collections.namedtuple("Out", "a b")` / `typing.NamedTuple("Out", [("a", T), ...])`: a tuple
# class, held as a reference `<namedtuple>a,b` (``FunctionInterpreter._call_reference``)
_NAMEDTUPLE_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple"})
_NAMEDTUPLE = "<namedtuple>"
# `A if c else B` of two layer classes: ``bound`` holds the test's text and both
_EITHER_CLASS = "<either-class>"


def _namedtuple_fields(call: cst.Call) -> list[str] | None:
    """The field names a namedtuple factory call spells literally, or None."""
    args = [a for a in call.args if a.keyword is None]
    spec = args[1].value if len(args) > 1 else None
    if spec is None:
        spec = next(
            (
                a.value
                for a in call.args
                if a.keyword and a.keyword.value in ("field_names", "fields")
            ),
            None,
        )
    literal = _literal(spec) if spec is not None else None
    if isinstance(literal, str):
        fields = literal.replace(",", " ").split()
    elif type(spec) in (cst.List, cst.Tuple):
        fields = []
        for element in spec.elements:
            value = element.value
            if type(value) is cst.Tuple and value.elements:  # `("lv", torch.Tensor)`
                value = value.elements[0].value
            name = _literal(value)
            if not isinstance(name, str):
                return None
            fields.append(name)
    else:
        return None
    return fields if fields and all(f.isidentifier() for f in fields) else None


# activation checkpointing: the result is the function's, its graph rebuilt at backward
_CHECKPOINT_CALLS = frozenset(
    {"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential"}
)
# lambdas calling lambdas: how deep ``_call_lambda`` follows
_MAX_LAMBDA_DEPTH = 4
# the parameter storage of a method's own `self` (``ModuleVal.params_storage_key`` of "self")
_OWN_PARAMETERS = "params:self"
# what a nested function may be given of its encloser's names (``FunctionInterpreter._closure``)
_CLOSURE_VALUES = frozenset({ModuleVal, OptimizerVal, FrameworkRef, LambdaVal, ConstVal, Unknown})


def _bound_names(function: cst.FunctionDef, exact: bool = False) -> set[str]:
    """The names a function binds: its parameters, and every target assigned, looped over, caught
    or defined in its body (nested scopes included: a wider set is the cautious answer).
    ``exact``: not the names a target only reads (`model` of `model.weight[0] -= d`)."""
    params = function.params
    bound = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            bound.add(star.name.value)
    for names in _body_bindings(function, exact):
        bound |= names
    return bound


def _body_bindings(function: cst.FunctionDef, exact: bool) -> Iterator[set[str]]:
    """The names each binding in a function's body binds (nested scopes included), one set per
    target, `def` or `class`; ``exact`` as for ``_bound_names``."""
    targets = _names_bound_by if exact else _names_in
    stack = [function.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _BINDING_TARGETS:
            yield targets(node.target)
        elif kind is cst.AsName:
            yield targets(node.name)
        elif kind in (cst.FunctionDef, cst.ClassDef):
            yield {node.name.value}
        stack.extend(_subnodes(node))


def _read_names(node) -> set[str]:
    """The names an expression or body reads (not an attribute's name, nor a keyword
    argument's)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            names.add(node.value)
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(node.value)
        else:
            stack.extend(_subnodes(node))
    return names


def _free_names(function: cst.FunctionDef) -> set[str]:
    """The names a function's body reads that it does not bind (not an attribute's name, nor a
    keyword argument's): those of its enclosing scopes."""
    return _read_names(function.body) - _bound_names(function, exact=True)


def _bound_once(function: cst.FunctionDef) -> set[str]:
    """The names a function's body binds exactly once (as a name, not through an item or an
    attribute), nested scopes included."""
    counts: dict[str, int] = {}
    for names in _body_bindings(function, exact=True):
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return {name for name, count in counts.items() if count == 1}


def _names_bound_by(target) -> set[str]:
    """The names an assignment's target binds: a name, or the names it unpacks into."""
    kind = type(target)
    if kind is cst.Name:
        return {target.value}
    if kind in (cst.Tuple, cst.List):
        return set().union(*(_names_bound_by(e.value) for e in target.elements))
    if kind is cst.StarredElement:
        return _names_bound_by(target.value)
    return set()


def _names_in(node) -> set[str]:
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            names.add(current.value)
            continue
        stack.extend(_subnodes(current))
    return names


def _is_configuration(expr, optional: frozenset[str] = frozenset()) -> bool:
    """A test on the object's options (`self.norm_topk_prob`, `not self.cfg.fast`, `self.mode == "x"`)
    or on an optional argument of the function (``optional``: `if last_attended_idx is not None:`
    where the parameter defaults to None).

    `self.training` is not an option here: training is when backward runs, so a write under
    `if self.training:` is as certain as one outside it (`not self.training` is the eval path).
    `a and b` depends on an option when either does (`self.training and self.p > 0`); `a or b`
    when both do."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        inner = expr.expression
        return dotted_name(inner) == "self.training" or _is_configuration(inner, optional)
    if dotted_name(expr) == "self.training":
        return False
    if isinstance(expr, cst.BooleanOperation):
        left = _is_configuration(expr.left, optional)
        right = _is_configuration(expr.right, optional)
        return (left or right) if isinstance(expr.operator, cst.And) else (left and right)
    if isinstance(expr, cst.Name) and expr.value in optional:
        return True
    if (
        isinstance(expr, cst.Comparison)
        and _is_shape_read(expr.left)
        and all(isinstance(c.operator, (cst.Equal, cst.NotEqual)) for c in expr.comparisons)
    ):
        # `if x.shape[2] == 1:` (MetaBIN's meta-BIN, precision31), `if mu.size() == (k, d):`
        # (mammoth's GMM, precision28): a write under it runs for some input shapes only
        return True
    if isinstance(expr, cst.Comparison):
        return _is_configuration(expr.left, optional) and all(
            isinstance(c.comparator, (cst.SimpleString, cst.Integer, cst.Float))
            or (
                isinstance(c.comparator, cst.Name)
                and c.comparator.value in ("True", "False", "None")
            )
            for c in expr.comparisons
        )
    name = dotted_name(expr)
    return name is not None and name.startswith("self.")


def _is_shape_read(expr) -> bool:
    """`x.shape`, `x.shape[2]`, `x.size()`, `x.size(1)`, `x.dim()`, `x.ndim`, `len(x.shape)`."""
    if type(expr) is cst.Subscript:
        expr = expr.value
    if type(expr) is cst.Call:
        if type(expr.func) is cst.Name and expr.func.value == "len" and len(expr.args) == 1:
            inner = expr.args[0].value
            return type(inner) is cst.Attribute and inner.attr.value == "shape"
        return type(expr.func) is cst.Attribute and expr.func.attr.value in (
            "size",
            "dim",
            "ndimension",
        )
    return type(expr) is cst.Attribute and expr.attr.value in ("shape", "ndim")


_CONDITIONAL_EXPRESSIONS = (
    cst.BooleanOperation,
    cst.IfExp,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.FunctionDef,
    cst.ClassDef,
)


def _required_names(body, candidates: set[str]) -> frozenset[str]:
    """``ModuleDataflow.required_parameters``: the ``candidates`` some top-level simple
    statement of ``body`` (or of a `with` block there) dereferences (`mask.squeeze(-1)`,
    `mask[0]`) before any `return`, `raise`, `yield` or rebinding of the name, except under
    `if <name> is not None:` (where it is not None anyway)."""
    open_names = set(candidates)
    required: set[str] = set()
    _scan_required(getattr(body, "body", ()), open_names, required)
    return frozenset(required)


def _scan_required(statements, open_names: set[str], required: set[str]) -> bool:
    """``_required_names`` over a run of statements; False once one may leave the function."""
    for stmt in statements:
        if not open_names:
            return False
        if type(stmt) is cst.With:
            # (`with autocast(False):` around the whole body: its statements run in order)
            exits, mentioned = _exits_and_mentions(stmt.items, None)
            open_names -= mentioned
            if exits or not _scan_required(getattr(stmt.body, "body", ()), open_names, required):
                return False
            continue
        if type(stmt) is cst.SimpleStatementLine:
            used = _dereferenced(stmt, open_names)
            required |= used
            open_names -= used
        guarded = None
        if type(stmt) is cst.If and stmt.orelse is None:
            compared = _none_comparison(stmt.test)
            if compared is not None and compared[1]:
                guarded = compared[0]
        exits, mentioned = _exits_and_mentions(stmt, guarded)
        if exits:
            return False
        open_names -= mentioned
    return True


def _dereferenced(stmt, names: set[str]) -> set[str]:
    """The ``names`` an attribute read or an indexing in ``stmt`` surely dereferences."""
    found: set[str] = set()
    stack = [stmt]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _CONDITIONAL_EXPRESSIONS:
            continue
        if (
            (kind is cst.Attribute or kind is cst.Subscript)
            and type(node.value) is cst.Name
            and node.value.value in names
        ):
            found.add(node.value.value)
        elif (
            kind is cst.Call
            and type(node.func) is cst.Name
            and node.func.value in ("len", "iter")
            and len(node.args) == 1
            and type(node.args[0].value) is cst.Name
            and node.args[0].value.value in names
        ):
            found.add(node.args[0].value.value)  # `len(None)` raises TypeError (lookalike48)
        stack.extend(_subnodes(node))
    return found


# nodes whose `target` field names what they bind
_BINDING_NODES = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.For,
    cst.CompFor,
    cst.NamedExpr,
    cst.Del,
)


def _exits_and_mentions(stmt, guarded: str | None) -> tuple[bool, set[str]]:
    """Whether ``stmt`` may leave the function (`return`, `raise`, `yield`), and the names it
    may rebind (assigned, a loop or `with` target, deleted, imported, declared `global`);
    under its own `if <guarded> is not None:` test, ``guarded`` is not None anyway."""
    bound: set[str] = set()
    stack = list(stmt) if type(stmt) in (list, tuple) else [stmt]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Return or kind is cst.Raise or kind is cst.Yield:
            return True, bound
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            bound.add(node.name.value)
            continue
        if kind is cst.Lambda:
            continue
        targets: list = []
        if kind in _BINDING_NODES:
            targets.append(node.target)
        elif kind is cst.WithItem:
            if node.asname is not None:
                targets.append(node.asname.name)
        elif kind is cst.ExceptHandler:
            if node.name is not None:
                targets.append(node.name.name)
        elif kind is cst.Import or kind is cst.ImportFrom:
            if type(node.names) in (list, tuple):
                targets.extend(a.asname.name if a.asname else a.name for a in node.names)
        elif kind is cst.Global or kind is cst.Nonlocal:
            bound.update(n.name.value for n in node.names)
        while targets:
            target = targets.pop()
            if type(target) is cst.Name:
                bound.add(target.value)
            elif type(target) in (cst.Tuple, cst.List):
                targets.extend(e.value for e in target.elements)
            elif type(target) is cst.StarredElement:
                targets.append(target.value)
            elif type(target) is cst.Attribute and type(target.value) is cst.Name:
                bound.add(target.value.value)  # (`import a.b`: binds `a`)
        stack.extend(_subnodes(node))
    bound.discard(guarded)
    return False, bound


def _none_comparison(test) -> tuple[str, bool] | None:
    """`name is None` as (name, False), `name is not None` as (name, True); else None."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator = type(target.operator)
    if (
        type(test.left) is not cst.Name
        or operator not in (cst.Is, cst.IsNot)
        or type(target.comparator) is not cst.Name
        or target.comparator.value != "None"
    ):
        return None
    return test.left.value, operator is cst.IsNot


def _none_test(test, truth: bool) -> str | None:
    """The name that `name is not None` (true) or `name is None` (false) says is not None."""
    compared = _none_comparison(test)
    return compared[0] if compared is not None and compared[1] == truth else None


def _identity_test(expr, values: list) -> ConstVal | None:
    """`x is None` / `x is not None` when both sides are known: a literal, or a tensor/module."""
    if not isinstance(expr, cst.Comparison) or len(expr.comparisons) != 1 or len(values) != 2:
        return None
    operator = expr.comparisons[0].operator
    if not isinstance(operator, (cst.Is, cst.IsNot)):
        return None
    left, right = values

    def known(value):
        if isinstance(value, ConstVal):
            return value.value
        if isinstance(value, TensorVal) and (not value.known or value.maybe_none):
            # what an unknown callee returned (a cache lookup) may be None, and so may an
            # argument that defaults to None
            return _NOT_LITERAL
        if isinstance(value, ModuleVal) and value.maybe_none:
            return _NOT_LITERAL  # a module or None
        if isinstance(value, (TensorVal, ModuleVal)):
            return value  # not None
        return _NOT_LITERAL

    a, b = known(left), known(right)
    if a is _NOT_LITERAL or b is _NOT_LITERAL or (a is not None and b is not None):
        return None
    same = a is b
    return ConstVal(same if isinstance(operator, cst.Is) else not same)


def _operand_text(expr) -> str:
    """A short name for an operand, without printing it (printing every level of a long
    `a + b + c + ...` chain would make the analysis quadratic in its length)."""
    name = dotted_name(expr)
    if name is not None:
        return name
    if isinstance(expr, cst.Call):
        callee = dotted_name(expr.func)
        return f"{callee}(...)" if callee else "(...)"
    if isinstance(expr, (cst.Integer, cst.Float)):
        return expr.value
    return "(...)"


def _operation_text(node: cst.BinaryOperation, op: str) -> str:
    return f"`{_operand_text(node.left)} {op} {_operand_text(node.right)}`"


def _kinds(values: list) -> tuple[str, ...]:
    """What each argument is, for overload resolution: a tensor, a Python scalar, or unknown."""
    return tuple(
        "tensor"
        if isinstance(v, TensorVal)
        else "scalar"
        if isinstance(v, ConstVal) and not isinstance(v.value, str)
        else "unknown"
        for v in values
    )


_STRING_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _single_parameter(function: cst.Lambda) -> str | None:
    """The name of a lambda's one plain parameter (`lambda g: ...`), else None."""
    params = function.params
    if (
        len(params.params) != 1
        or params.posonly_params
        or params.kwonly_params
        or not isinstance(params.star_arg, cst.MaybeSentinel)
        or params.star_kwarg is not None
    ):
        return None
    return params.params[0].name.value


def _naming(saves: tuple, by, attr: str) -> tuple:
    """``saves`` without those made by the call of the module built by ``by`` that name which of
    its parameters or submodules they kept (``Save.only``) and do not name ``attr``."""
    return tuple(s for s in saves if s.only is None or s.by is not by or _names(s.only, attr))


def _names(only: frozenset[str], attr: str) -> bool:
    """Whether a save that kept ``only`` (attribute paths: `fc2`, `head.weight`) may have kept
    ``attr`` (`head.bias`, `enc`): one path is the other or under it."""
    if attr in only:
        return True
    return any(attr.startswith(f"{kept}.") or kept.startswith(f"{attr}.") for kept in only)


def _inplace_chain_base(expr):
    """`h` for `h.mul_(0.5)` (the receiver of a chain of in-place methods, which return it)."""
    while (
        type(expr) is cst.Call
        and type(expr.func) is cst.Attribute
        and expr.func.attr.value.endswith("_")
        and not expr.func.attr.value.endswith("__")
    ):
        expr = expr.func.value
    return expr


def _arg_expr(call: cst.Call, params: tuple[str, ...], name: str):
    """The expression passed for parameter `name` (by keyword or by position)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    if name in params:
        position = params.index(name)
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if position < len(positional):
            return positional[position].value
    return None


def _module_tensor(
    module: ModuleVal, storage: str, producer: str, parameter: bool = True
) -> TensorVal:
    """A tensor ``module`` owns: a trainable parameter (a leaf, as `module.weight` reads it), or
    with ``parameter`` False a buffer."""
    trainable = parameter and not module.frozen
    return TensorVal(
        fw=module.fw,
        storage=storage,
        requires_grad=None if trainable and module.params_unknown else trainable,
        leaf=trainable and not module.params_unknown,
        parameter=parameter,
        param_of=module.path,
        producer=producer,
    )


def _renormalises_weight(module: ModuleVal) -> bool:
    """An `nn.Embedding` built with `max_norm` (by keyword, or fourth positional) not None."""
    call = module.node
    if module.qualname != "torch.nn.Embedding" or not isinstance(call, cst.Call):
        return False
    return _max_norm_set(call, kb.torch_module_init_params("torch.nn.Embedding"))


def _max_norm_set(call: cst.Call, params: tuple[str, ...]) -> bool:
    """`max_norm` passed (by keyword, or at its place in ``params``) and not the literal None."""
    if any(arg.star for arg in call.args):
        return False  # `*args` / `**kwargs`: we cannot tell
    value = _arg_expr(call, params, "max_norm")
    return value is not None and not (isinstance(value, cst.Name) and value.value == "None")


def _first_arg(call: cst.Call):
    for arg in call.args:
        if arg.keyword is None:
            return arg.value
    return None


def _drop_unread_saves(value: Value, expr, state: State) -> None:
    """`float(t.min())`, `t.max().item()`: the op's result becomes a Python number right where
    it is made, so no backward can run through it and what it saved is never read (torchvision's
    `norm_range` reads `t.min()` so, then clamps `t` in place)."""
    if type(expr) is not cst.Call or not isinstance(value, TensorVal):
        return
    if value.producer_node is not expr:
        return
    op_id = _last_op_id(value)
    if op_id is not None:
        state.clear_saves(frozenset({op_id}))


def _repeated(sequence: Value, times: Value) -> SeqVal | None:
    """`[x] * n` of a list display's value and a count: the same items, `n` times for a
    literal `n` (up to 16), once for a count not known (their values, not their number, is what
    `torch.cat` / `torch.stack` of them needs)."""
    if not isinstance(sequence, SeqVal) or isinstance(times, (TensorVal, SeqVal, ArrayVal)):
        return None
    count = times.value if isinstance(times, ConstVal) else 1
    if type(count) is not int or not 0 < count <= 16:
        count = 1
    return SeqVal(sequence.items * count, sequence.lineage)


def _with_returned_saves(result: Value, ops: dict[int, frozenset[int] | None]) -> Value:
    """A call's result with the ops of the saves its callee's return reached: a tensor takes
    them all; a tuple's items take those their own graph reached (every item when unknown)."""
    if isinstance(result, TensorVal):
        return replace(result, lineage=result.lineage | frozenset(ops))
    if not isinstance(result, SeqVal):
        return result
    items = list(result.items)
    for index, item in enumerate(items):
        if not isinstance(item, TensorVal):
            continue
        reached = {op for op, which in ops.items() if which is None or index in which}
        if reached:
            items[index] = replace(item, lineage=item.lineage | frozenset(reached))
    return replace(result, items=tuple(items), lineage=result.lineage | frozenset(ops))


def _result_parts(result: Value, count: int) -> list[Value] | None:
    """A call's result as ``count`` items: a tuple's own, or, for an opaque result standing for
    the whole tuple, one tensor per item (each its own memory); None for anything else."""
    if isinstance(result, SeqVal) and len(result.items) == count:
        return list(result.items)
    if isinstance(result, TensorVal):
        return [replace(result, storage=new_id(), nondiff_outputs=()) for _ in range(count)]
    return None


def _last_op_id(value: Value) -> int | None:
    if isinstance(value, (TensorVal, SeqVal)) and value.lineage:
        return max(value.lineage)
    return None


def _tuple_result(
    shape: tuple, first: TensorVal, *, first_slot: bool = True, name: str | None = None
) -> SeqVal:
    """The tuple an op returns (`out, (h, c) = lstm(x)`): ``first`` in the first slot, and in
    any slot named as the first (a Paddle cell's new state is its output: `y, h = cell(x, h)`
    returns one tensor twice), fresh tensors of the same grad and lineage elsewhere."""
    items: list[Value] = []
    for slot in shape:
        if isinstance(slot, tuple):
            inner = _tuple_result(slot, first, first_slot=first_slot and not items, name=name)
            items.append(inner)
            name = name if name is not None else _first_name(slot)
        elif first_slot and not items:
            items.append(first)
            name = slot
        elif slot == name:
            items.append(first)
        else:
            items.append(replace(first, storage=new_id()))
    return SeqVal(tuple(items), lineage=first.lineage)


def _first_name(shape: tuple) -> str | None:
    head = shape[0] if shape else None
    return _first_name(head) if isinstance(head, tuple) else head


def output_at(value: TensorVal, index: int) -> TensorVal:
    """Output `index` of a tuple-returning op: indices never carry grad or lineage."""
    if index in value.nondiff_outputs:
        return replace(
            value,
            storage=new_id(),
            requires_grad=False,
            lineage=frozenset(),
            nondiff_outputs=(),
            leaf=False,
            view=None,
            view_of_leaf=False,
        )
    return replace(value, nondiff_outputs=())


# calls only a module answers (a tensor has none of them)
_MODULE_ONLY_METHODS = frozenset(
    {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children"}
    | {"zero_grad", "state_dict", "load_state_dict", "buffers", "named_buffers"}
)


def _modules_entry(arguments: list) -> tuple:
    """The entry (``_entry_signature``) of a module's `forward` call that keeps only the modules
    passed to it."""
    return _trimmed([_module_entry(value) for value in arguments])


def _module_entry(value: object) -> object | None:
    """What a call's entry keeps of a module passed to it: a local module instance (without its
    construction site), a submodule of a class not known (``generic_submodule``), a framework
    module keyed by class, facts and site; None otherwise."""
    if isinstance(value, ModuleVal) and value.qualname == GENERIC_SUBMODULE:
        # one entry for any such submodule: a function recursing into `m.children()` (PaddleGAN's
        # `replace_layers`) meets the same entry again instead of a new one at every level
        return replace(value, node=None, uid="", path="m")
    if isinstance(value, ModuleVal) and value.local_class:
        return replace(value, node=None)
    if isinstance(value, ModuleVal) and value.facts is not None and value.qualname:
        return _FrameworkModuleArg(value)
    return None


def _called_on_self(call: cst.Call) -> bool:
    return _self_attribute(call.func) is not None


def _called_from_init(memo: tuple) -> bool:
    """A specialisation's key (``ModuleDataflow.specialized``) for a method `__init__` calls."""
    return len(memo) == 3 and bool(memo[2]) and isinstance(memo[2][0], _InitState)


def _sequence_children(module: ModuleVal, depth: int = 0) -> list[ModuleVal]:
    """The modules a call of the container ``module`` applies, in order: a child that is itself a
    Sequential with known children is applied as its children are (SOLOv2's mask branch nests one
    ending in ReLU inside another, whose output is that ReLU's)."""
    out: list[ModuleVal] = []
    for child in module.children:
        if (
            child.children
            and depth < 8
            and (child.qualname or "").endswith(".Sequential")  # (a local subclass's too)
        ):
            out.extend(_sequence_children(child, depth + 1))
        else:
            out.append(child)
    return out


def _attribute_saved(triggers, call_facts, positional: list) -> bool | None:
    """Whether a module call saves an attribute kept only when one of the ``triggers`` inputs
    requires grad: True (surely), False (maybe), None (it does not)."""
    if not triggers:
        return True
    flags = []
    for name in triggers:
        index = call_facts.params.index(name) if name in call_facts.params else len(positional)
        value = positional[index] if index < len(positional) else None
        flags.append(value.requires_grad if isinstance(value, TensorVal) else None)
    if any(f is True for f in flags):
        return True
    return None if all(f is False for f in flags) else False


def _requiring_grad(value: SeqVal) -> SeqVal:
    items = tuple(
        _requiring_grad(i)
        if isinstance(i, SeqVal)
        else replace(i, requires_grad=True)
        if isinstance(i, TensorVal)
        else i
        for i in value.items
    )
    return SeqVal(items, value.lineage)


def _unpack(value: Value, count: int) -> list[Value]:
    if isinstance(value, SeqVal) and len(value.items) == count:
        return list(value.items)
    if isinstance(value, ModuleVal) and len(value.children) == count:
        # `for attn, ff in self.layers:` over a ModuleList of ModuleLists (lucidrains' blocks):
        # its blocks, whose tensors are the container's
        return [replace(child, uid=value.key_root) for child in value.children]
    if isinstance(value, TensorVal) and value.nondiff_outputs:
        return [output_at(value, i) for i in range(count)]
    if isinstance(value, TensorVal) and value.view == "multi":
        return [value] * count
    if isinstance(value, TensorVal):
        if value.known:
            return [replace(value, view=value.view or "view") for _ in range(count)]
        return [replace(value, storage=new_id()) for _ in range(count)]
    lineage = lineage_of(value)
    return [Unknown(lineage) for _ in range(count)]


def _detached(tensor: TensorVal, producer: str, node) -> TensorVal:
    """`tensor.detach()`: the same storage (it shares the version counter), no grad, no graph,
    and no autograd view (no multi-output-view check)."""
    return replace(
        tensor,
        requires_grad=False,
        leaf=False,
        view=None if tensor.view == "multi" else tensor.view,
        view_of_leaf=False,
        producer=producer,
        producer_node=node,
        lineage=frozenset(),
    )


def _saves_then_writes(previous: ModuleVal, child: ModuleVal) -> bool:
    """``child`` writes its input in place, and ``previous``, right before it in a container,
    saved that input (its output) for backward."""
    if previous.facts is None or child.facts is None:
        return False
    # (whether the child's own backward keeps a clone of its input does not matter: the write
    # still moves the version of the tensor the previous child saved)
    return bool(child.facts.call.inplace_param and previous.facts.call.saves_output)


def _has_unknown(values) -> bool:
    """An argument (or a list item) the analysis could not evaluate: it may be a tensor."""
    return any(isinstance(item, Unknown) for value in values for item in _flatten(value))


def _iterates_children(module: ModuleVal) -> bool:
    """`nn.Sequential(*blocks)` of a local `blocks = nn.ModuleList()` filled with `.append`:
    iterating a ModuleList, a Sequential or a LayerList yields its children in order (a ModuleDict
    yields its keys). Only for one built without arguments, whose children are then all it holds
    (one built from something unknown has none recorded)."""
    return (
        bool(module.children)
        and (module.qualname or "").rsplit(".", 1)[-1] in _ITERABLE_CONTAINERS
        and type(module.node) is cst.Call
        and not module.node.args
    )


_ITERABLE_CONTAINERS = frozenset({"ModuleList", "Sequential", "LayerList"})
_LIST_CONTAINERS = frozenset({"ModuleList", "LayerList"})


# tensor methods that make a new tensor of the receiver's dtype and device, with no graph
# torch dtypes by the names code spells them (`torch.long`, `.long()`)
_DTYPES = {
    "float": "float32",
    "float32": "float32",
    "double": "float64",
    "float64": "float64",
    "half": "float16",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "long": "int64",
    "int64": "int64",
    "int": "int32",
    "int32": "int32",
    "short": "int16",
    "int16": "int16",
    "bool": "bool",
    "uint8": "uint8",
    "int8": "int8",
}
# the conversion methods named after their dtype (`byte` is uint8, `char` int8)
_DTYPE_METHODS = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "bfloat16": "bfloat16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
    "bool": "bool",
    "byte": "uint8",
    "char": "int8",
}
# module wrappers that run the module they are given and hold no parameters of their own
_MODULE_WRAPPERS = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "paddle.DataParallel",
    }
)
# a BatchNorm's running statistics, read as attributes (``_module_attribute``: buffers)
_RUNNING_STAT_ATTRIBUTES = frozenset({"running_mean", "running_var", "_mean", "_variance"})
# the dtype of what a lower-precision op makes under autocast: float16 or bfloat16, whichever
# the region says; a name no conversion spells, so that `.half()` of it is never taken for it
_AUTOCAST_DTYPE = "autocast"
# the dtypes autocast does not cast: an op saves such an input itself
_AUTOCAST_KEPT = frozenset({_AUTOCAST_DTYPE, "float16", "bfloat16", "float64"})
# ops whose result holds int64 indices, whatever their input (torch's documented dtype)
_INDEX_OPS = frozenset({"argmax", "argmin", "argsort"})
# ops whose real input gives a complex result (`fft_rfft`, `stft`, `view_as_complex`, `polar`)
_COMPLEX_PRODUCERS = ("fft", "stft", "complex", "polar")


def _dtype_of(expr, env: dict) -> str | None:
    """The dtype an expression names: `torch.long`, or `x.dtype` of a tensor whose dtype is
    known."""
    if type(expr) is not cst.Attribute:
        return None
    base = dotted_name(expr.value)
    if base == "torch":
        return _DTYPES.get(expr.attr.value)
    if expr.attr.value == "dtype" and base is not None:
        held = env.get(base)
        if isinstance(held, TensorVal):
            return held.dtype
    return None


def _conversion_dtype(method: str, call: cst.Call, env: dict) -> str | None:
    """The dtype a torch conversion converts to and nothing else (`.long()`, `.to(torch.long)`,
    `.to(dtype=x.dtype)`, `.type(torch.float64)`); None for one that may also move the tensor
    (`.to(device)`, `.to(other)`, `.cuda()`) or copy it (`copy=True`)."""
    if method in _DTYPE_METHODS:
        if any(a.keyword is None or a.keyword.value != "memory_format" for a in call.args):
            return None
        return _DTYPE_METHODS[method]
    if method not in ("to", "type"):
        return None
    # (not `.to(device, dtype)`, `copy=True`, `device=...`)
    expr = _sole_argument(call, "dtype", ("non_blocking", "memory_format"))
    return _dtype_of(expr, env) if expr is not None else None


def _sole_argument(call: cst.Call, keyword: str, others: tuple[str, ...]):
    """The one argument of ``call`` passed by position or as ``keyword``, when every other
    argument is one of the keywords ``others``; None otherwise (none, two, a star)."""
    found = None
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None or arg.keyword.value == keyword:
            if found is not None:
                return None
            found = arg.value
        elif arg.keyword.value not in others:
            return None
    return found


def _device_argument(call: cst.Call):
    """The device of `.to(device)` / `.to(device=d)` (a name or attribute that names a device,
    or a device string), when that is the call's only argument besides `non_blocking`."""
    device = _sole_argument(call, "device", ("non_blocking",))
    if type(device) is cst.SimpleString:
        return device if device.value.strip("\"'").split(":")[0] in ("cpu", "cuda") else None
    name = dotted_name(device) if device is not None else None
    return device if name and "device" in name.rsplit(".", 1)[-1].lower() else None


def _constructor_dtype(qual: str, call: cst.Call, env: dict) -> str | None:
    """The dtype a torch factory's result surely has: the one its `dtype=` names, int64 for
    `randint` / `randperm` and for an `arange` of integer literals (a float factory's follows
    `torch.set_default_dtype`, which may run anywhere: not known)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return _dtype_of(arg.value, env)
    name = qual.rsplit(".", 1)[-1]
    if name in ("randint", "randperm"):
        return "int64"
    if (
        name == "arange"
        and call.args
        and all(
            a.keyword is None and not a.star and type(a.value) is cst.Integer for a in call.args
        )
    ):
        return "int64"
    return None


_NEW_TENSOR_METHODS = frozenset({"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})
# `torch.autograd.Variable`, as old code imports it
_LEGACY_VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})


def _einsum_pairs_operands(equation: str) -> bool | None:
    """Whether the einsum ``equation`` has two operands, each summing away only indices the
    other has too (then one `bmm` contracts them). None when it cannot be read."""
    text = equation.replace(" ", "").replace("...", "")
    inputs, arrow, output = text.partition("->")
    operands = inputs.split(",")
    if len(operands) != 2 or not all(o.isalpha() for o in operands):
        return None
    if arrow and output and not output.isalpha():
        return None
    a, b = set(operands[0]), set(operands[1])
    if not arrow:
        counts = {c: inputs.count(c) for c in a | b}
        output = "".join(c for c in counts if counts[c] == 1)
    kept = set(output)
    return not ((a - b - kept) or (b - a - kept))


def _parameter_collection(value: Value) -> bool:
    """`m.parameters()`, or a list or chain of such (what an optimizer is given)."""
    if isinstance(value, ParamsVal):
        return True
    return (
        isinstance(value, SeqVal)
        and bool(value.items)
        and all(_parameter_collection(i) for i in value.items)
    )


_NAMED_CONTAINERS = frozenset({"ModuleDict", "LayerDict"})


def _ordered_dict_items(call: cst.Call) -> list[tuple[str, cst.BaseExpression]] | None:
    """`nn.Sequential(OrderedDict([("conv", nn.Conv2d(...)), ("bn", nn.BatchNorm2d(...))]))`:
    the names and expressions of the children, when each is a pair with a literal name."""
    if (
        call.args
        and all(a.keyword is not None and not a.star for a in call.args)
        and dotted_name(call.func).rsplit(".", 1)[-1] in _NAMED_CONTAINERS
    ):
        # `nn.ModuleDict(box=..., cls=...)` (keyword arguments are its entries)
        return [(a.keyword.value, a.value) for a in call.args]
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    inner = call.args[0].value
    if type(inner) is cst.Dict and dotted_name(call.func).rsplit(".", 1)[-1] in _NAMED_CONTAINERS:
        # `nn.ModuleDict({"box": nn.Sequential(...), "cls": nn.Linear(...)})`
        pairs = []
        for element in inner.elements:
            name = _literal(element.key) if type(element) is cst.DictElement else None
            if not isinstance(name, str):
                return None
            pairs.append((name, element.value))
        return pairs or None
    if (
        type(inner) is not cst.Call
        or dotted_name(inner.func) not in ("OrderedDict", "collections.OrderedDict")
        or len(inner.args) != 1
        or inner.args[0].keyword is not None
        or inner.args[0].star
        or type(inner.args[0].value) not in (cst.List, cst.Tuple)
    ):
        return None
    pairs = []
    for element in inner.args[0].value.elements:
        pair = element.value
        if (
            type(element) is not cst.Element
            or type(pair) is not cst.Tuple
            or len(pair.elements) != 2
            or any(type(e) is not cst.Element for e in pair.elements)
        ):
            return None
        name = _literal(pair.elements[0].value)
        if not isinstance(name, str):
            return None
        pairs.append((name, pair.elements[1].value))
    return pairs or None


def _spelled_children(call: cst.Call, positional: list) -> int | None:
    """How many children a container's construction spells out one by one (`nn.Sequential(a,
    b)`: 2, `nn.ModuleList([a, b, c])`: 3), or None when an argument may stand for several (a
    starred or keyword argument, a comprehension, a name or call holding a list)."""
    if len(positional) != len(call.args):
        return None
    count = 0
    for arg, value in zip(call.args, positional):
        if arg.star or arg.keyword is not None:
            return None
        if type(arg.value) in (cst.List, cst.Tuple):
            if not isinstance(value, SeqVal) or any(
                type(e) is not cst.Element for e in arg.value.elements
            ):
                return None
            if any(isinstance(item, SeqVal) for item in value.items):
                return None
            count += len(arg.value.elements)
        elif isinstance(value, ModuleVal):
            count += 1
        else:
            return None
    return count


def _flatten(value: Value | None):
    if isinstance(value, SeqVal):
        for item in value.items:
            yield from _flatten(item)
    elif value is not None:
        yield value


def _is_full_slice(target: cst.Subscript) -> bool:
    if len(target.slice) != 1:
        return False
    element = target.slice[0].slice
    if isinstance(element, cst.Slice):
        return element.lower is None and element.upper is None and element.step is None
    return isinstance(element, cst.Index) and isinstance(element.value, cst.Ellipsis)


def _name_value(node) -> str:
    return node.value if type(node) is cst.Name else ""


def _int_index(expr: cst.Subscript) -> int | None:
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    value = expr.slice[0].slice.value
    if isinstance(value, cst.Integer):
        return int(value.value)
    if (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
    ):
        return -int(value.expression.value)
    return None


# attributes of a tensor (or of what an unknown call returned) that are facts about it, not
# values computed from it: they carry no graph
_METADATA_ATTRIBUTES = frozenset(
    {
        "shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "grad_fn",
        "layout", "names", "itemsize", "nbytes", "is_sparse", "is_quantized", "is_meta",
        "place", "stop_gradient", "name", "persistable", "type", "training",
    }
)  # fmt: skip

_MAPPING_BASES = frozenset(
    {"dict", "collections.OrderedDict", "OrderedDict", "collections.UserDict", "UserDict"}
)


def _keyword_dict(keywords: dict[str, Value]) -> DictVal:
    """The dict a call of keywords only builds (`dict(logits=z, ...)`, a dataclass's
    `Out(logits=z, ...)`): its entries under those names."""
    lineage = frozenset().union(*(lineage_of(v) for v in keywords.values()))
    return DictVal(lineage, tuple(keywords.items()))


def _fields_tuple(fields: list[str], positional: list, keywords: dict) -> SeqVal:
    """A namedtuple built from a call: its fields in order, positional ones first."""
    items = [*positional, *(keywords.get(f, UNKNOWN) for f in fields[len(positional) :])]
    lineage = frozenset().union(*(lineage_of(v) for v in items))
    return SeqVal(tuple(items), lineage, exact=True, fields=tuple(fields))


def _annotated_fields(node: cst.ClassDef) -> list[str]:
    """The fields a NamedTuple class declares (`mu: torch.Tensor`), in order."""
    fields = []
    for stmt in node.body.body if type(node.body) is cst.IndentedBlock else ():
        for small in stmt.body if type(stmt) is cst.SimpleStatementLine else ():
            if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                fields.append(small.target.value)
    return fields


def _record_class(cls: ClassInfo) -> bool:
    """A local class whose constructor only stores its fields: `@dataclass` (of dataclasses,
    or any decorator named so) or a `NamedTuple` subclass."""
    for decorator in cls.node.decorators:
        expr = decorator.decorator
        if type(expr) is cst.Call:
            expr = expr.func
        if (dotted_name(expr) or "").rsplit(".", 1)[-1] == "dataclass":
            return True
    return any(base.rsplit(".", 1)[-1] == "NamedTuple" for base in cls.base_names)


def _mapping_class(cls: ClassInfo, index: ModuleIndex, depth: int = 0) -> bool:
    """A plain class of this module that is a dict with no `__init__` of its own (spirl's
    `class AttrDict(dict)` with `__getattr__ = dict.__getitem__`-like access)."""
    if "__init__" in cls.methods or depth > 8:
        return False
    for base in cls.base_names:
        if base in _MAPPING_BASES:
            return True
        parent = index.classes.get(base)
        if parent is not None and parent is not cls and _mapping_class(parent, index, depth + 1):
            return True
    return False


def _entry_of_subclass(info: FunctionInfo) -> bool:
    """An inherited method analysed on its own for the subclass: a module's forward, when the
    subclass defines methods of its own (its `__init__` builds other layers, or it overrides what
    the forward calls); otherwise the base's own analysis says it all."""
    cls = info.cls
    return (
        cls is not None
        and cls.is_module
        and bool(cls.methods)
        and info.node.name.value in ("forward", "_forward_impl", "__call__")
    )


# In-place elementwise transforms of a tensor's own values: `y = x.<m>_()` followed by a read of
# `x` reads the transformed values (IPL102). Fills, copies, partial writes and shape changes
# are not among them: reading the target after those is what they are for.
_ELEMENTWISE_METHODS = frozenset(
    {
        "floor_", "ceil_", "round_", "trunc_", "frac_", "abs_", "neg_", "sign_", "exp_",
        "expm1_", "log_", "log1p_", "log2_", "log10_", "sqrt_", "rsqrt_", "square_", "sigmoid_",
        "tanh_", "relu_", "clamp_", "clamp_min_", "clamp_max_", "clip_", "reciprocal_", "sin_",
        "cos_", "tan_", "atan_", "erf_", "erfinv_", "hardtanh_", "leaky_relu_", "elu_",
        "silu_", "nan_to_num_",
    }
)  # fmt: skip
# The methods a module's call runs (the analysis takes their inputs from earlier layers).
_ENTRY_METHODS = frozenset({"forward", "__call__", "_forward_impl"})
# the steps training frameworks run without grad (Lightning's evaluation and prediction loops,
# mmengine's `val_step` / `test_step` and the `predict` mode they call, mmdet 2's tests)
_INFERENCE_METHODS = frozenset(
    {"predict", "predict_step", "validation_step", "test_step", "val_step", "inference"}
    | {"simple_test", "aug_test", "forward_test"}
)


def _on_inference_path(key: str, sites: dict, memo: dict[str, bool]) -> bool:
    """Whether the method ``key`` is a framework's inference step or is called in this module
    only by such steps (and by methods only they call). A caller already on the path being
    followed (recursion) casts no vote; a method no other caller reaches is not on the path. The
    answer does not depend on the order callers are visited in (``memo``: the answers found so
    far, shared by the calls of one judgement)."""
    return _inference_path(key, sites, memo, frozenset())[0] is True


def _inference_path(key: str, sites: dict, memo: dict, path: frozenset) -> tuple[bool | None, bool]:
    """(the answer, or None when every caller was on ``path``; whether a caller on ``path`` was
    left out to reach it: such an answer holds for this path only and is not memoised)."""
    if key.rsplit(".", 1)[-1] in _INFERENCE_METHODS:
        return True, False
    if key in memo:
        return memo[key], False
    path = path | {key}
    pruned = False
    judged = []
    for caller, *_ in sites.get(key) or ():
        if caller in path:
            pruned = True
            continue
        answer, below = _inference_path(caller, sites, memo, path)
        pruned = pruned or below
        if answer is not None:
            judged.append(answer)
            if not answer:
                break
    result = all(judged) if judged else (None if pruned else False)
    if not pruned:
        memo[key] = result
    return result, pruned


# What a tensor tells of itself without its values: an in-place write does not change them.
_UNCHANGED_BY_WRITES = frozenset(
    {"size", "shape", "dim", "ndim", "ndimension", "dtype", "device", "numel", "is_cuda"}
)
# ...and what else a read of which is no reuse of its values (IPL102): its gradient and autograd
# flags (PaddleTest's `return out, y.grad` after `fill_diagonal_(y, ...)`: precision29)
_NOT_VALUE_READS = _UNCHANGED_BY_WRITES | {
    "grad", "grad_fn", "requires_grad", "is_leaf", "stop_gradient", "place", "layout",
}  # fmt: skip
# Methods that read only a tensor's dtype and device (`c.new_zeros(n)`): no reuse of its values.
_METADATA_FACTORIES = frozenset({"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"})
# (an unknown value's attribute among these carries no graph: ``eval_attribute``)
_GRAPHLESS_ATTRIBUTES = _METADATA_ATTRIBUTES | _UNCHANGED_BY_WRITES


# String methods that keep an option's literal known (`relu_type.lower()`).
_STRING_CASE_METHODS = frozenset({"lower", "upper", "strip", "casefold"})
# What `lambda x: x` is called as (``FunctionInterpreter._call_reference``).
_IDENTITY = "<identity>"
# Where `self.add_module(<name built at run time>, m)` keeps `m` (one kind of module).
_ADDED_MODULES = "self._modules[*]"


def _constant_item(passed: SeqVal, target) -> Value | None:
    """The item of ``passed`` that a callee's write target `param[k]` (k a literal int, the
    base the parameter's name, `.data` allowed after it) names; None for any other target."""
    if type(target) is cst.Attribute and target.attr.value == "data":
        target = target.value
    if type(target) is not cst.Subscript or type(target.value) is not cst.Name:
        return None
    index = _int_index(target)
    if index is None or not -len(passed.items) <= index < len(passed.items):
        return None
    return passed.items[index]


def _absorbed(held: Value, storage: object, lineage: frozenset[int], requires: bool) -> Value:
    """``held`` after `x[i] = v` wrote the memory ``storage`` with a value of ``lineage``
    (``FunctionInterpreter._absorb``): a tensor of that memory, or a tuple holding one
    (`encoder_out[0][:, j] = ...`, fairseq#251), carries its graph (a module-level function: no
    closure cycles, docs/performance.md)."""
    if isinstance(held, TensorVal) and held.storage == storage:
        return replace(
            held,
            lineage=held.lineage | lineage,
            requires_grad=True if requires else held.requires_grad,
        )
    if isinstance(held, SeqVal) and any(isinstance(i, (TensorVal, SeqVal)) for i in held.items):
        items = tuple(_absorbed(i, storage, lineage, requires) for i in held.items)
        if any(a is not b for a, b in zip(items, held.items)):
            return replace(held, items=items, lineage=held.lineage | lineage)
    return held


def _backward_raises(cls: ClassInfo | None) -> bool:
    """The class's own `backward` starts by raising (`raise NotImplementedError(...)`, after a
    docstring at most): a backward through it never computes a gradient."""
    backward = cls.methods.get("backward") if cls is not None else None
    if backward is None:
        return False
    body = _body(backward)
    first = 1 if body and _is_docstring(body[0]) else 0
    return (
        len(body) > first
        and type(body[first]) is cst.SimpleStatementLine
        and type(body[first].body[0]) is cst.Raise
    )


def _defines_backward(cls: ClassInfo, index: ModuleIndex) -> bool:
    """An autograd.Function / PyLayer class of this module, or a local base of it, defines
    `backward`; True too when a base is neither local nor the framework's Function class."""
    for owner in local_lineage(cls, index.classes):
        if "backward" in owner.methods:
            return True
        for base in owner.base_names:
            if base not in index.classes and base not in FUNCTION_BASES:
                return True
    return False


def _list_name(expr, state: State) -> str | None:
    """The name a list being built is held under: `layers`, or `self.agents` when the function
    holds it under that path."""
    if type(expr) is cst.Name:
        return expr.value
    if type(expr) is cst.Attribute:
        path = dotted_name(expr)
        if path is not None and isinstance(state.env.get(path), SeqVal):
            return path
    return None


# Calls that make a module attribute a computed tensor: (module parameter, name parameter); the
# name defaults to "weight"
_PARAMETRIZATIONS = {
    "torch.nn.utils.parametrize.register_parametrization": ("module", "tensor_name"),
    "torch.nn.utils.parametrizations.orthogonal": ("module", "name"),
    "torch.nn.utils.parametrizations.spectral_norm": ("module", "name"),
    "torch.nn.utils.parametrizations.weight_norm": ("module", "name"),
    "torch.nn.utils.weight_norm": ("module", "name"),
    "torch.nn.utils.spectral_norm": ("module", "name"),
}


def _with_callers(keys: set[str], sites: dict) -> set[str]:
    """``keys`` and every function that calls one of them, transitively (``_call_sites``)."""
    found = set(keys)
    todo = list(keys)
    while todo:
        for caller, _, _, _ in sites.get(todo.pop(), ()):
            if caller not in found:
                found.add(caller)
                todo.append(caller)
    return found


def _unanimous(seen: list, value):
    """Record one return path's ``value`` in ``seen``: the value every path so far gave, or
    None when they differ."""
    seen.append(value)
    return seen[0] if all(v == seen[0] for v in seen) else None


def _inference_mode_literal(call: cst.Call) -> object:
    """The `mode` of a `torch.inference_mode(...)` call: True when left out, else the literal
    passed (``_NOT_LITERAL`` when it is not one)."""
    mode = _arg_expr(call, ("mode",), "mode")
    return True if mode is None else _literal(mode)


def _retain_requested(call: cst.Call, env: dict | None = None) -> bool:
    """A backward call (`loss.backward(...)`, `self.manual_backward(...)`) that keeps the graph:
    `retain_graph=True` or `create_graph=True`, or a name holding True there (a helper's
    `loss.backward(retain_graph=retain_graph)` run for a caller passing `retain_graph=True`).
    A value not known (`retain_graph=k < accum_steps - 1`, lookalike47) may keep it: a program
    that runs keeps it wherever a later backward goes through it (a freed graph raises there)."""
    return any(
        _literal_kw(call, name, env) in (True, _NOT_LITERAL)
        for name in ("retain_graph", "create_graph")
    )


def _lambda_builtin(call: cst.Call, name: str, state: State) -> bool:
    """`map(lambda ..., xs)` / `filter(lambda ..., xs)` of the builtin ``name``."""
    func = call.func
    return (
        type(func) is cst.Name
        and func.value == name
        and name not in state.env
        and len(call.args) == 2
        and type(call.args[0].value) is cst.Lambda
        and not any(a.star or a.keyword for a in call.args)
    )


def _own_attributes(state: State):
    """The `self.<name>` bindings one level deep, as (name, value)."""
    for key, value in state.env.items():
        if key.startswith("self.") and key.count(".") == 1:
            yield key[len("self.") :], value


def _inert_call(module: ModuleVal, values: list) -> bool:
    """A frozen instance called on tensors none of which requires grad: nothing in the call
    requires grad, so nothing is saved and the result has no graph."""
    return module.frozen and all(
        t.requires_grad is False for a in values for t in _flatten(a) if isinstance(t, TensorVal)
    )


def _through_trainable_parameters(summary: FunctionSummary, module: ModuleVal | None) -> bool:
    """A named method of a module instance called from outside (`enc_out = model.encode(src)`)
    whose returned value went through the module's own trainable parameters: it requires grad
    where grad is on, as the instance's call does."""
    return (
        module is not None
        and module.path != "self"
        and module.local_class is not None
        and module.has_parameters
        and not module.frozen
        and not module.params_unknown
        and not summary.forward_like
        and (summary.graph_own_parameters or bool(summary.graph_self_submodules))
    )


# `self.*` key under which an `nn.Sequential` subclass's `__init__` keeps the children it hands to
# `super().__init__(...)`
_SEQUENTIAL_CHILDREN = "self.<sequential children>"
# `self.*` key marking an `__init__` that froze its own parameters
_SELF_FROZEN = "self.<frozen>"


def _instance_field_key(module: ModuleVal, name: str) -> str:
    """The state key of what a forward left on one instance (``_forward_graph_attributes``)."""
    return f"<instance {module.key_root}>.{name}"


def _sequential_base(cls: ClassInfo) -> str | None:
    """`torch.nn.Sequential` (or Paddle's) when the class names it among its bases."""
    for base in cls.base_names:
        if base in ("torch.nn.Sequential", "paddle.nn.Sequential"):
            return base
    return None


def _uniform_local_child(container: Value) -> ModuleVal | None:
    """The block a ModuleList stands for when every child is an instance of one local class
    built by one construction (`self.blocks.append(Block(...))` in a loop)."""
    if not isinstance(container, ModuleVal) or not container.children:
        return None
    first = container.children[0]
    if first.local_class and all(
        c.local_class == first.local_class and c.node is first.node for c in container.children
    ):
        return first
    return None


def _calls_own_code(classes: list[ClassInfo]) -> bool:
    """One of these classes defines what calling an instance runs (`forward`, `__call__`)."""
    return any("forward" in c.methods or "__call__" in c.methods for c in classes)


def _lookup_key(expr: cst.Subscript):
    """The one key of `x[k]` when it is a name or an attribute (a lookup, evaluated without
    effects), else None."""
    if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:
        return None
    key = expr.slice[0].slice.value
    return key if type(key) in (cst.Name, cst.Attribute) else None


def _holds_string(value: Value) -> bool:
    return isinstance(value, ConstVal) and isinstance(value.value, str)


def _keyed_by_string(expr: cst.Subscript) -> bool:
    """`d["key"]`, `d[f"layer_{i}"]`, `td["next", "reward"]`, `td[(key, "prompt")]`: a string in
    the key, which no tensor accepts (a dict, a ModelOutput, a TensorDict's nested key)."""
    for element in expr.slice:
        if type(element.slice) is not cst.Index:
            continue
        value = element.slice.value
        parts = [e.value for e in value.elements] if type(value) is cst.Tuple else [value]
        if any(_stringish(p) for p in parts):
            return True
    return False


# Builtins that only read the list they are given.
# Builtins that turn a (one-element) tensor into a Python number: the result has no graph.
_NUMBER_BUILTINS = frozenset({"float", "int", "bool", "complex"})
# a comprehension over a tuple or list of up to this many known tensors is evaluated item by item
_ITEMWISE_COMPREHENSION = 8
# a loop over a tuple or list of up to this many literals runs once per item (exec_loop)
_UNROLLED_LOOP = 8
# loop iterables looked at for that: a name or attribute (a lookup), or a display of literals
_PURE_ITERABLES = (cst.Name, cst.Attribute, cst.Tuple, cst.List)
_LITERAL_NODES = (cst.SimpleString, cst.Integer, cst.Float, cst.Name)


def _has_break(body) -> bool:
    """A `break` in the loop body (not in a loop nested in it, nor in a nested def)."""
    return any(type(small) is cst.Break for small in _statements_of(body, loops=False))


# builtins whose result is never a tensor, and those that build a Python list of their argument
_NON_TENSOR_BUILTINS = frozenset(
    {"len", "str", "repr", "isinstance", "issubclass", "hasattr", "callable", "id", "hash"}
    | {"type", "print", "format", "ord", "chr", "range"}
)
_SEQUENCE_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed"})

_READ_ONLY_BUILTINS = frozenset(
    {"len", "zip", "enumerate", "sum", "max", "min", "sorted", "reversed", "list", "tuple"}
    | {"iter", "print", "isinstance", "range", "any", "all", "map", "filter", "set", "dict"}
)


def _attribute_name(expr) -> str | None:
    """The attribute `getattr(m, name)` reads: a string literal, or an f-string whose text before
    the first field names a recurrent parameter (`f"bias_hh_l{i}"` -> `bias_hh_l0`: every layer's
    is a parameter alike)."""
    value = _literal(expr)
    if isinstance(value, str):
        return value
    if type(expr) is cst.FormattedString and expr.parts:
        head = expr.parts[0]
        if type(head) is cst.FormattedStringText and len(expr.parts) > 1:
            name = head.value + "0"
            if _RECURRENT_PARAMETER.fullmatch(name):
                return name
    return None


def _never_an_item(expr) -> bool:
    """A value no tensor item can take (`TypeError`): a string, `slice(...)`."""
    if type(expr) in _STRING_NODES:
        return True
    return type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "slice"


def _stringish(expr) -> bool:
    """A string, or a string built with `+` / `%` (`handle[kind + "_work"]`, `"k%d" % i`)."""
    if type(expr) in _STRING_NODES:
        return True
    if type(expr) is cst.BinaryOperation and type(expr.operator) in (cst.Add, cst.Modulo):
        return _stringish(expr.left) or (type(expr.operator) is cst.Add and _stringish(expr.right))
    return False


_STRING_NODES = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


def _string_index(expr: cst.Subscript) -> str | None:
    if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        value = expr.slice[0].slice.value
        if isinstance(value, cst.SimpleString):
            return _string_value(value)
    return None


def _neighbour_name(key) -> cst.Name | None:
    """`i` of the key `i - 1` / `i + 1`: a name plus or minus a number."""
    if (
        type(key) is cst.BinaryOperation
        and type(key.operator) in (cst.Add, cst.Subtract)
        and type(key.left) is cst.Name
        and type(key.right) is cst.Integer
    ):
        return key.left
    return None


def _neighbour_index(target: cst.Subscript) -> bool:
    """`x[i - 1]`, `x[i + 1]`: one index, a neighbour's (``_neighbour_name``: a feature
    pyramid's top-down or bottom-up pass over its levels). A plain `x[i]` is not (yolov7's
    Detect, `x[i] = self.m[i](x[i])` on its list of maps, then `y = x[i].sigmoid()` written in
    eval mode with grad: the items must stay tensors there, a true IPL203 of prec41)."""
    if len(target.slice) != 1 or type(target.slice[0].slice) is not cst.Index:
        return False
    return _neighbour_name(target.slice[0].slice.value) is not None


def _list_item(base: Value, target: cst.Subscript, state: State) -> TensorVal | None:
    """The tensor `lat[0] += v` (or `lat[i - 1] += v` over a comprehension's one item) updates in
    place: an item of a list the analysis built (an FPN's laterals: NWPU-MOC#4)."""
    if not isinstance(base, SeqVal) or len(target.slice) != 1:
        return None
    index = target.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    position = _literal(index.value)
    if type(position) is int and -len(base.items) <= position < len(base.items):
        item = base.items[position]
    elif type(position) is int and base.uniform and base.items:
        item = base.items[0]  # `outs[1] += 1` on a comprehension's list (lookalike48)
    elif position is _NOT_LITERAL and len(base.items) == 1:
        item = base.items[0]
    elif position is _NOT_LITERAL and _one_producer(base.items):
        # `laterals.append(conv(x))` in a loop, then `laterals[i - 1] += up`: whichever item it
        # is, the same expression made it (the loop's passes): one of them stands for all
        item = base.items[0]
    elif (
        position is _NOT_LITERAL
        and base.items
        and all(
            isinstance(i, TensorVal)
            and any(save.certain for save in state.saves.get(i.storage, ()))
            for i in base.items
        )
    ):
        # a list whose every item an op saved (mmseg UPerHead's top-down `laterals[i - 1] +=
        # resize(laterals[i])` over ConvModule outputs and the PSP output appended to them,
        # recall43): whichever item it is, a saved tensor is written; the first stands for it
        item = base.items[0]
    else:
        return None
    return item if isinstance(item, TensorVal) else None


def _one_producer(items: tuple) -> bool:
    """Tensors all made by one expression (a loop's passes over the same call)."""
    first = items[0] if items else None
    return (
        isinstance(first, TensorVal)
        and first.producer_node is not None
        and all(isinstance(i, TensorVal) and i.producer_node is first.producer_node for i in items)
    )


def _freezes_each_item(stmt: cst.For) -> str | None:
    """The container a loop freezes item by item, unconditionally: `for m in self.blocks:` (or
    `enumerate(self.blocks)`) whose body runs `m.requires_grad_(False)`, or `for p in
    m.parameters(): p.requires_grad = False` (or `p.requires_grad_(False)`), as statements of
    its own body, with no `break` anywhere in it. None otherwise."""
    target, iterable = stmt.target, stmt.iter
    if type(iterable) is cst.Call and dotted_name(iterable.func) == "enumerate" and iterable.args:
        if type(target) is not cst.Tuple or len(target.elements) != 2:
            return None
        target, iterable = target.elements[1].value, iterable.args[0].value
    container = dotted_name(iterable)
    if container is None or type(target) is not cst.Name or stmt.orelse is not None:
        return None
    name = target.value
    if any(type(small) is cst.Break for small in _statements_of(stmt.body)):
        return None  # (nested loops' too)
    for inner in _body(stmt):
        if type(inner) is cst.SimpleStatementLine and any(
            _freeze_call(small, name) for small in inner.body
        ):
            return container
        if (
            type(inner) is cst.For
            and type(inner.target) is cst.Name
            and type(inner.iter) is cst.Call
            and dotted_name(inner.iter.func) == f"{name}.parameters"
        ):
            param = inner.target.value
            for small_line in _body(inner):
                if type(small_line) is cst.SimpleStatementLine and any(
                    _freeze_call(small, param) or _freeze_assign(small, param)
                    for small in small_line.body
                ):
                    return container
    return None


def _freeze_call(small, name: str) -> bool:
    """`name.requires_grad_(False)`."""
    if type(small) is not cst.Expr or type(small.value) is not cst.Call:
        return False
    call = small.value
    return (
        dotted_name(call.func) == f"{name}.requires_grad_"
        and len(call.args) == 1
        and _literal(call.args[0].value) is False
    )


def _freeze_assign(small, name: str) -> bool:
    """`name.requires_grad = False`."""
    return (
        type(small) is cst.Assign
        and len(small.targets) == 1
        and dotted_name(small.targets[0].target) == f"{name}.requires_grad"
        and _literal(small.value) is False
    )


def _saved_parts(parts: list, lineage: frozenset[int], state: State) -> dict:
    """Of a returned tuple's or dict's (key, value) parts, the tensors an op on the way to the
    returned value saved: key -> saved as what."""
    saved: dict = {}
    for key, item in parts:
        if isinstance(item, TensorVal):
            for save in state.saves.get(item.storage, ()):
                if save.certain and save.op_id in lineage and save.what != "ctx attribute":
                    saved.setdefault(key, save.what)
    return saved


def _agreed(returns: list, found: tuple | None) -> tuple | None:
    """``found`` (the parts of this return path: their shape, key -> saved as what) added to the
    return paths so far; what every path agrees on: the same shape (tuple length, or set of dict
    keys), and the keys saved on each. None when a path disagrees or nothing is left."""
    returns.append(found)
    first = returns[0]
    shape = (
        (lambda f: set(f[0])) if first is not None and type(first[0]) is tuple else (lambda f: f[0])
    )
    if first is None or any(other is None or shape(other) != shape(first) for other in returns):
        return None
    common = {
        key: what for key, what in first[1].items() if all(key in other[1] for other in returns)
    }
    return (first[0], common) if common else None


def _as_child(value: Value, fw: str) -> ModuleVal:
    """What a container holds when ``value`` is added to it: the module, or a module of a class
    not known."""
    if isinstance(value, ModuleVal):
        return value
    return ModuleVal("<unknown>", fw=fw, uid=new_module_uid())


def _hooked(held: ModuleVal, module: ModuleVal, call: cst.Call) -> ModuleVal:
    """``held`` with the instance ``module`` in it given the full backward hook ``call``
    (``FunctionInterpreter._hook_module``; a module-level function: a closure calling itself
    would be a reference cycle)."""
    if held.uid == module.uid and (
        module.node is None or held.node is module.node or not held.children
    ):
        return replace(held, backward_hook=call)
    if held.uid == module.uid:
        # `seq[0]`: a child reached by index carries its container's uid (its tensors are the
        # container's); the child is the one its constructor call names
        children = tuple(
            replace(c, backward_hook=call) if c.node is module.node else c for c in held.children
        )
        return replace(held, children=children)
    children = tuple(_hooked(c, module, call) for c in held.children)
    if any(a is not b for a, b in zip(children, held.children, strict=True)):
        return replace(held, children=children)
    return held


def _name_uses(body, name: str) -> int:
    """How many times ``body`` (nested scopes too) names ``name``."""
    count = 0
    stack: list = [body]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            count += current.value == name
            continue
        stack.extend(_subnodes(current))
    return count


def _argument_appends(function: cst.FunctionDef, names: list[str]) -> list[tuple[int, int]]:
    """``ModuleDataflow.appended_arguments`` of one function: `P.append(Q)` statements with `P`
    and `Q` parameter names its body never rebinds, at the top level or alone under `if Q is not
    None:` / `if Q:` (no `else`)."""
    rebound = set().union(*_body_bindings(function, True))
    found: list[tuple[int, int]] = []
    for stmt in _body(function):
        guard = None
        if type(stmt) is cst.If and stmt.orelse is None and len(_body(stmt)) == 1:
            test = stmt.test
            compared = _none_comparison(test)
            if type(test) is cst.Name:
                guard = test.value
            elif compared is not None and compared[1]:
                guard = compared[0]
            if guard is None:
                continue
            stmt = _body(stmt)[0]
        if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
            continue
        expr = stmt.body[0]
        if type(expr) is not cst.Expr or type(expr.value) is not cst.Call:
            continue
        call = expr.value
        func = call.func
        if (
            type(func) is not cst.Attribute
            or func.attr.value != "append"
            or type(func.value) is not cst.Name
            or len(call.args) != 1
            or call.args[0].star
            or call.args[0].keyword is not None
            or type(call.args[0].value) is not cst.Name
        ):
            continue
        target, item = func.value.value, call.args[0].value.value
        if guard is not None and guard != item:
            continue
        if target in names and item in names and not {target, item} & rebound:
            found.append((names.index(target), names.index(item)))
    return found


def _through_backward_hook(value: Value, hook: cst.CSTNode, role: str, call) -> Value:
    """``value`` as a module's full backward hook hands it on (``_through_hook``): a
    tensor that requires grad becomes an output of `BackwardHookFunction`, a view made inside a
    custom Function."""
    if not isinstance(value, TensorVal) or value.requires_grad is not True or value.fw != "torch":
        return value
    return replace(
        value,
        storage=new_id(),
        view="multi",
        multi_base_requires_grad=True,
        custom_function_view=True,
        backward_hook=hook,
        leaf=False,
        view_of_leaf=False,
        producer=role,
        producer_node=call,
    )


def _child_of(container: ModuleVal, child: Value) -> Value:
    """A child of a container module, frozen with it (`self.prototypes.requires_grad_(False)`,
    then `for proto in self.prototypes: proto.weight.copy_(c)`: solo-learn, prec38)."""
    if container.frozen and isinstance(child, ModuleVal) and not child.frozen:
        return replace(child, frozen=True)
    return child


def _next_element(item: Value) -> Value:
    """The item of a later iteration over a list: another tensor than the first pass's (the
    gradients of `for g in grads:` are distinct objects, and so are the blocks of a ModuleList),
    so what the first pass saved of its item is not a save of this one. Views (`for row in x:`, `for q in x.split(n)`) and
    parameters keep their storage: they are parts of one object."""
    if isinstance(item, SeqVal):
        return replace(item, items=tuple(_next_element(i) for i in item.items))
    if isinstance(item, ModuleVal) and item.uid:
        # `for block in self.blocks:` (an nn.ModuleList): the next block has its own parameters
        return replace(item, uid=new_module_uid())
    if (
        isinstance(item, TensorVal)
        and type(item.storage) is int
        and item.view is None
        and not item.parameter
    ):
        return replace(item, storage=new_id())
    return item


_ALTERNATIVE_RESULT = "<alternative result>"  # (not a name Python code can bind)
# an `if` / `x if c else y` whose test the analysis knows as one of these literals takes one
# branch: a flag, None, or an option's string or number (`if self.activate:` holding "relu")
_DECIDING_LITERALS = (bool, type(None), str, int, float)
_ORDERED_DICTS = frozenset({"OrderedDict", "collections.OrderedDict"})  # (imports of the stdlib
# are not tracked: the name, unless the function binds it)


def _mark_alternative_modules(merged: State, then: State, other: State, test: str) -> None:
    """After `if <option>: self.m = A(...) else: self.m = B(...)`, modules of different kinds:
    `self.m` is A when the test holds and B when it fails (``ModuleVal.alternatives``). An
    attribute that already holds alternatives on one side (an `elif` chain) stays unknown."""
    if not (then.reachable and other.reachable):
        return
    for key, value in merged.env.items():
        if key.startswith("self.") and type(value) is ModuleVal:
            merged.env[key] = _with_alternatives(
                value, then.env.get(key), other.env.get(key), lambda: test
            )
        elif type(value) is SeqVal:
            a, b = then.env.get(key), other.env.get(key)
            if (
                type(a) is SeqVal
                and type(b) is SeqVal
                and not (a.alternatives or b.alternatives)
                and a.items
                and b.items
                and all(type(i) is ModuleVal for i in (*a.items, *b.items))
                # (the same kinds of layers in the same order, built with other sizes, as
                # Xception's BlockA with and without a stride: one list, as before)
                and _layer_kinds(a.items) != _layer_kinds(b.items)
            ):
                # `layers = [nn.Linear(2, 2)]; if bounded: layers.append(nn.Tanh())`: the
                # Sequential built from it is one of two, by the option (lookalike49)
                merged.env[key] = replace(value, alternatives=((test, a), (_negated(test), b)))


def _layer_kinds(modules: tuple) -> tuple:
    """What calling each module of a list does, in order: its class and facts."""
    return tuple((m.qualname, m.local_class, m.facts) for m in modules)


def _with_alternatives(merged: ModuleVal, a, b, test: Callable[[], str]) -> ModuleVal:
    """``merged`` (the unknown module `either_module` made of `a`, on the test's true side, and
    `b`) holding both, each under its condition; also one layer with and without a parameter
    frozen (`if cfg.freeze_head: self.head.weight.requires_grad_(False)`: lookalike35).
    Unchanged when they are neither, or one of them already holds alternatives (an `elif`
    chain)."""
    # (a container that is itself one of two by an inner option, `nn.Sequential(*layers)` of a
    # list built per `num_layer`: here, as its fullest form, as before those were told apart;
    # dgl's LapPosEncoder, prec44)
    if type(a) is ModuleVal and a.alternatives and not a.uid.startswith("either:"):
        a = replace(a, alternatives=())
    if type(b) is ModuleVal and b.alternatives and not b.uid.startswith("either:"):
        b = replace(b, alternatives=())
    if type(a) is not ModuleVal or type(b) is not ModuleVal or a.alternatives or b.alternatives:
        return merged
    refrozen = bool(a.uid) and a.uid == b.uid and a.frozen_parameters != b.frozen_parameters
    if not (refrozen or merged.uid.startswith("either:")):
        return merged
    text = test()
    return replace(merged, alternatives=((text, a), (_negated(text), b)))


def _mark_one_sided_saves(merged: State, then: State, other: State, test: str) -> None:
    """After `if <option>: out = self.dp(out)`, `out` is either branch's tensor; a save that only
    one branch's tensor carries (the in-place LeakyReLU's output, kept when the option is off) is
    a save in some configurations only."""
    if not (then.reachable and other.reachable):
        return
    same: set[object] = set()
    for key, value in merged.env.items():
        a, b = then.env.get(key), other.env.get(key)
        if type(value) is SeqVal and type(a) is SeqVal and type(b) is SeqVal:
            # `laterals = [conv(x) for ...]` then `if self.relu_laterals: laterals =
            # [F.relu(l) for l in laterals]` (lookalike47's FPN neck): item by item, as a name
            if len(a.items) == len(b.items) == len(value.items):
                for item, one, two in zip(value.items, a.items, b.items):
                    _mark_one_sided_item(merged, then, other, test, same, item, one, two)
            elif a.items and b.items and 1 in (len(a.items), len(b.items)):
                # one side's list is a comprehension's, its one item standing for all: the
                # merge kept the other side's items as they are
                for i, item in enumerate(value.items):
                    one = a.items[min(i, len(a.items) - 1)]
                    two = b.items[min(i, len(b.items) - 1)]
                    if (
                        isinstance(item, TensorVal)
                        and isinstance(one, TensorVal)
                        and isinstance(two, TensorVal)
                        and one.storage != two.storage
                        and item.storage in (one.storage, two.storage)
                    ):
                        _mark_one_side(
                            merged, item.storage, then, one.storage, other, two.storage, test
                        )
            continue
        _mark_one_sided_item(merged, then, other, test, same, value, a, b)


def _mark_one_sided_item(
    merged: State, then: State, other: State, test: str, same: set, value, a, b
) -> None:
    """``_mark_one_sided_saves`` for one name's (or one list item's) tensor."""
    if True:
        if not (
            isinstance(value, TensorVal) and isinstance(a, TensorVal) and isinstance(b, TensorVal)
        ):
            return
        if a.storage == b.storage:
            # `if self.with_activation: x = self.activate(x)` with an in-place ReLU: the same
            # tensor either way, saved (as the ReLU's output) on one side only
            # (only a name the branch rebound: `identity = self.conv(x)` under `if` leaves `x`
            # as it was, and what the conv saved of it counts as before)
            if value.storage == a.storage and a.storage not in same:
                # (and a tensor neither side rebound: what `h * torch.sigmoid(g)` saved of `h`
                # under `if self.gated:` is saved only when that holds, so a write under `if
                # not self.gated:` breaks nothing, lookalike43)
                same.add(a.storage)
                _mark_one_side(
                    merged,
                    value.storage,
                    then,
                    a.storage,
                    other,
                    b.storage,
                    test,
                    weak=a.lineage == b.lineage,
                )
            return
        if value.storage in (a.storage, b.storage):
            return
        _mark_one_side(merged, value.storage, then, a.storage, other, b.storage, test)


# a test that decides whether the tensor is a leaf that requires grad, or whether grad is on:
# `if x.requires_grad: x = x.clone()` copies exactly the tensors the leaf check would refuse
_GRAD_TESTS = ("requires_grad", "is_leaf", "grad_enabled", "training", "no_grad", "inference")


def _mark_one_sided_leaves(
    merged: State, then: State, other: State, test: Callable[[], str]
) -> None:
    """After `if using_gpu: out = out.cuda()`, `out` is the leaf on the path that skipped the
    copy: a write through it raises the leaf check when that path is taken (lang2logic's
    seq2seq on a CPU run): the merged tensor is a leaf under the test's outcome
    (``TensorVal.leaf_condition``). Any test, not only an option's; not a test of the tensor's
    grad itself. ``test``: the test's text, quoted only when needed."""
    if not (then.reachable and other.reachable):
        return
    for key, value in merged.env.items():
        if type(value) is not TensorVal:
            continue
        a, b = then.env.get(key), other.env.get(key)
        if type(a) is TensorVal and type(b) is TensorVal:
            marked = _one_sided_leaf(value, a, b, test)
            if marked is not value:
                merged.env[key] = marked


def _one_sided_leaf(value: TensorVal, a: TensorVal, b: TensorVal, test) -> TensorVal:
    """``value`` (what `a` on the test's true side and `b` on its false side merge into), with
    the leaf condition of the side that holds a leaf requiring grad when the other holds a
    non-leaf tensor."""
    if value.fw != "torch" or value.leaf or value.view_of_leaf or a.storage == b.storage:
        return value
    if a.requires_grad is False or b.requires_grad is False:
        return value
    if _leafy(a) == _leafy(b):
        return value
    text = test()
    if any(word in text for word in _GRAD_TESTS):
        return value
    return replace(value, leaf_condition=text if _leafy(a) else _negated(text))


def _leafy(tensor: TensorVal) -> bool:
    return (tensor.leaf or tensor.view_of_leaf) and tensor.requires_grad is True


def _leaf_test(test, truth: bool):
    """The tensor expression a test says is no leaf when it has ``truth``: `x.is_leaf` false,
    `x.grad_fn` true, `x.is_leaf is False` / `== False`, `x.grad_fn is not None` (and their
    negations when false); None for any other test or outcome."""
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        target = test.comparisons[0]
        literal = _literal(target.comparator)
        operator = type(target.operator)
        if literal is not True and literal is not False and literal is not None:
            return None
        if operator in (cst.IsNot, cst.NotEqual):
            truth = not truth
        elif operator not in (cst.Is, cst.Equal):
            return None
        # `x.is_leaf is False` holding is `x.is_leaf` false; `x.grad_fn is None` holding is
        # `x.grad_fn` false
        truth = truth if literal is True else not truth
        test = test.left
    if type(test) is not cst.Attribute or test.attr.value not in ("is_leaf", "grad_fn"):
        return None
    no_leaf = (not truth) if test.attr.value == "is_leaf" else truth
    return test.value if no_leaf else None


def _buffer_roots(state: State) -> set[str]:
    """The `buffer:<root>.` prefixes of `self` and of its submodules (a Sequential's blocks keep
    roots of their own)."""
    roots: set[str] = set()
    todo = [
        held
        for key, held in state.env.items()
        if (key == "self" or key.startswith("self.")) and isinstance(held, ModuleVal)
    ]
    while todo and len(roots) < 256:
        held = todo.pop()
        roots.add(f"buffer:{held.key_root}.")
        todo.extend(held.children)
    return roots


def _drop_saves_under(state: State, condition: str) -> None:
    """Forget the saves made only when ``condition`` holds, on a path where it does not."""
    for storage, saves in list(state.saves.items()):
        kept = tuple(s for s in saves if s.condition != condition and s.made_under != condition)
        if len(kept) == len(saves):
            continue
        if kept:
            state.saves[storage] = kept
        else:
            del state.saves[storage]


def _mark_one_side(
    merged: State, storage, then: State, a, other: State, b, test: str, weak: bool = False
) -> None:
    """The saves of ``storage`` after the `if`: one that only the `then` side's tensor (``a``)
    or only the other side's (``b``) carries is a save under ``test`` or its negation (``weak``:
    only ``Save.made_under`` says so)."""
    on_then = set(then.saves.get(a, ()))
    on_other = set(other.saves.get(b, ()))
    saves = merged.saves.get(storage)
    field = "made_under" if weak else "condition"
    if saves and on_then != on_other:
        marked = []
        for s in saves:
            # (one marked weakly before, by the same test: as it was on its side)
            seen = s if s.made_under is None else replace(s, made_under=None)
            if s.condition or (weak and s.made_under) or (seen in on_then) == (seen in on_other):
                marked.append(s)
            else:
                side = test if seen in on_then else _negated(test)
                marked.append(replace(seen, **{field: side}))
        merged.saves[storage] = tuple(marked)


def _reads_gradient(expr) -> bool:
    """`lr * w.grad`, `w.grad * lr`: the expression reads some tensor's `.grad`."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is cst.Attribute and node.attr.value == "grad":
            return True
        stack.extend(_subnodes(node))
    return False


def _negated(test: str) -> str:
    if test.startswith("not "):
        return test[4:]
    return f"not ({test})" if " " in test else f"not {test}"


def _equality_test(expr, values: list) -> ConstVal | None:
    """`self.activation == "relu"` (also `!=`, `in ("relu", "gelu")`) when both sides are known
    literals: a constructor's string option decides which branch runs. A loop counter against
    its start (`t == 0`, `layer > 0`) is decided on each pass (``LoopCounter``)."""
    if not isinstance(expr, cst.Comparison) or len(expr.comparisons) != 1 or len(values) != 2:
        return None
    left, right = values
    if (
        isinstance(left, LoopCounter)
        and (left.last or left.before_last)
        and _minus_one(expr.comparisons[0].comparator)
    ):
        # `i < n - 1` on the loop's last pass (``_tests_last_pass``): false; on the passes
        # before it, true (`if i == n - 1: opt.step()` after the last of several backwards
        # through one retained graph runs once, after them all: lookalike48)
        operator = type(expr.comparisons[0].operator)
        if operator in (cst.LessThan, cst.NotEqual):
            return ConstVal(not left.last)
        if operator in (cst.Equal, cst.GreaterThanEqual):
            return ConstVal(left.last)
        return None
    if isinstance(left, LoopCounter) and isinstance(right, ConstVal):
        return _counter_test(left, type(expr.comparisons[0].operator), right.value)
    if not (isinstance(left, ConstVal) and isinstance(left.value, (str, bool, type(None)))):
        return None  # numbers are left alone: a counter changes in loops the analysis merges
    operator = type(expr.comparisons[0].operator)
    if operator in (cst.Equal, cst.NotEqual) and isinstance(right, ConstVal):
        if type(left.value) is not type(right.value):
            return None  # `1 == True`: not worth deciding
        return ConstVal((left.value == right.value) is (operator is cst.Equal))
    if operator in (cst.In, cst.NotIn) and isinstance(right, SeqVal):
        items = [i.value for i in right.items if isinstance(i, ConstVal)]
        if len(items) != len(right.items) or any(type(i) is not type(left.value) for i in items):
            return None
        return ConstVal((left.value in items) is (operator is cst.In))
    return None


def _counter_name(stmt: cst.For) -> str | None:
    """The counter of `for i in range(...)` / `for i, x in enumerate(...)`."""
    call, target = stmt.iter, stmt.target
    if type(call) is not cst.Call or type(call.func) is not cst.Name:
        return None
    if call.func.value == "range" and type(target) is cst.Name:
        return target.value
    if call.func.value == "enumerate" and type(target) is cst.Tuple and target.elements:
        first = target.elements[0].value
        return first.value if type(first) is cst.Name else None
    return None


def _names_passed(root: cst.CSTNode) -> set[str]:
    """Names written back whole into another tensor under ``root``: `t.set_value(x)`,
    `t.copy_(x)`, `paddle.assign(x, t)`."""
    found: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and _last_attr_or_name(node.func) in _WRITE_BACKS:
            found.update(a.value.value for a in node.args if type(a.value) is cst.Name)
        stack.extend(_subnodes(node))
    return found


_WRITE_BACKS = frozenset({"set_value", "copy_", "assign"})


def _last_attr_or_name(func) -> str:
    if type(func) is cst.Attribute:
        return func.attr.value
    return func.value if type(func) is cst.Name else ""


def _compares_name(root: cst.CSTNode, name: str) -> bool:
    """A comparison under ``root`` with ``name`` as one side (`t == 0`, `0 < t`)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) is cst.Comparison:
            sides = [node.left, *(c.comparator for c in node.comparisons)]
            if any(type(side) is cst.Name and side.value == name for side in sides):
                return True
        stack.extend(_subnodes(node))
    return False


def _used_as_tensor(root: cst.CSTNode, name: str, imports) -> bool:
    """Whether ``name`` is used under ``root`` in a way only a tensor (or an array) allows: an
    attribute that is not a list's or a dict's (`x.shape`, `x.view(...)`), an arithmetic or
    ordering operand, an augmented assignment of something that is not a list, a tuple, slice
    or `...` key (`x[:, 0]`), or an argument of a framework function other than those taking a
    sequence of tensors (`torch.cat(xs)`). Subscripts with one key, `len()`, loops, calls of
    other functions and returns are what a list or a dict allows too."""

    def is_name(node) -> bool:
        return type(node) is cst.Name and node.value == name

    stack = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Attribute:
            if is_name(node.value) and node.attr.value not in _CONTAINER_METHODS:
                return True
        elif kind is cst.BinaryOperation:
            if is_name(node.left) or is_name(node.right):
                return True
        elif kind is cst.UnaryOperation:
            if is_name(node.expression) and type(node.operator) is not cst.Not:
                return True
        elif kind is cst.Comparison:
            sides = [node.left, *(c.comparator for c in node.comparisons)]
            if any(is_name(side) for side in sides) and any(
                type(c.operator) not in _IDENTITY_OPERATORS for c in node.comparisons
            ):
                return True
        elif kind is cst.AugAssign:
            if is_name(node.target) and type(node.value) not in _SEQUENCE_DISPLAYS:
                return True
        elif kind is cst.Subscript:
            if is_name(node.value) and _tensor_key(node):
                return True
        elif kind is cst.Call and any(is_name(arg.value) for arg in node.args):
            qual = imports.resolve(node.func)
            if (
                qual is not None
                and qual.startswith(("torch.", "paddle."))
                and qual.rsplit(".", 1)[-1] not in _SEQUENCE_OPS
            ):
                return True
        stack.extend(_subnodes(node))
    return False


def _tensor_key(subscript: cst.Subscript) -> bool:
    """A key only a tensor or an array takes: several (`x[:, 0]`), `...`, `None`."""
    if len(subscript.slice) != 1:
        return True
    element = subscript.slice[0].slice
    if type(element) is not cst.Index:
        return False  # a slice: lists take those too
    key = element.value
    return type(key) in (cst.Tuple, cst.Ellipsis) or (type(key) is cst.Name and key.value == "None")


# what a list or a dict answers too: using one of these tells nothing of a tensor
_CONTAINER_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "index", "count", "sort"}
    | {"reverse", "copy", "items", "keys", "values", "get", "update", "setdefault"}
)
_IDENTITY_OPERATORS = (cst.Is, cst.IsNot, cst.In, cst.NotIn, cst.Equal, cst.NotEqual)
_SEQUENCE_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp)
# framework functions that take a sequence of tensors
_SEQUENCE_OPS = frozenset(
    {"cat", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"}
    | {"broadcast_tensors", "meshgrid", "block_diag", "add_n", "multi_dot", "chain_matmul"}
)


# builtins that read a list they are given and keep no reference to it
_LIST_READERS = frozenset(
    {"len", "zip", "enumerate", "iter", "list", "tuple", "sum", "min", "max", "sorted"}
    | {"reversed", "isinstance", "print", "any", "all", "map", "filter"}
)


def _reads_only(fn: cst.FunctionDef, name: str) -> bool:
    """``ModuleDataflow.reads_only``: a walk of the body with each node's parent."""
    targets: set[int] = set()  # (subscripts written: `p[i] = v`, `p[i] += v`, `del p[i]`)
    parents: dict[int, object] = {}
    uses: list[cst.Name] = []
    stack: list = [fn.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            if node.value == name:
                uses.append(node)
            continue
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Global, cst.Nonlocal):
            if name in _names_in(node):
                return False  # (a nested scope, or a rebinding out of this one)
            continue
        if kind is cst.Assign:
            targets.update(id(t.target) for t in node.targets)
        elif kind in (cst.AugAssign, cst.AnnAssign, cst.Del, cst.For, cst.CompFor):
            targets.add(id(node.target))
        for child in _subnodes(node):
            parents[id(child)] = node
            stack.append(child)
    for use in uses:
        parent = parents.get(id(use))
        if id(use) in targets:
            continue  # (`p = ...`: the name rebound; what it held is not changed by that)
        if type(parent) is cst.Subscript and parent.value is use and id(parent) not in targets:
            continue  # `p[0]`
        if type(parent) in (cst.For, cst.CompFor) and parent.iter is use:
            continue  # `for w in p:`
        if type(parent) is cst.Arg and parent.value is use and not parent.star:
            call = parents.get(id(parent))
            if (
                type(call) is cst.Call
                and type(call.func) is cst.Name
                and call.func.value in _LIST_READERS
            ):
                continue  # `zip(p, grads)`, `len(p)`
        return False
    return True


def _subnodes(node) -> list:
    """The child nodes of ``node`` that can hold a statement, an expression or a name, in no
    particular order: the walkers above collect sets or answer yes/no. libcst's ``children`` runs
    a visitor over the node and yields whitespace and punctuation too (41% of the nodes of a
    parsed file are whitespace): the walk through ``children`` was 3% of a run over torchvision.
    Only the fields whose declared type can hold such a node are read (``_node_fields``), and a
    value's class is looked up in a table (``_NODE_KINDS``): ``isinstance`` against libcst's
    abstract ``CSTNode`` goes through ``ABCMeta.__instancecheck__`` for every value."""
    out = []
    kinds = _NODE_KINDS
    for name in _node_fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        is_node = kinds.get(kind)
        if is_node is None:
            is_node = _node_kind(kind)
        if is_node:
            out.append(value)
        elif kind is tuple or kind is list:
            for item in value:
                is_node = kinds.get(type(item))
                if is_node is None:
                    is_node = _node_kind(type(item))
                if is_node:
                    out.append(item)
    return out


def _node_kind(kind: type) -> bool:
    """Whether values of ``kind`` are nodes ``_subnodes`` yields (not whitespace or punctuation);
    remembered in ``_NODE_KINDS``."""
    found = _NODE_KINDS[kind] = kind not in _TRIVIA and issubclass(kind, cst.CSTNode)
    return found


def _node_fields(kind: type) -> tuple[str, ...]:
    found = _FIELDS.get(kind)
    if found is None:
        types = _field_types(kind)
        found = _FIELDS[kind] = tuple(
            f.name for f in fields(kind) if _may_hold_node(types.get(f.name))
        )
    return found


def _field_types(kind: type) -> dict[str, object]:
    try:
        return typing.get_type_hints(kind)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: read every field
        return {}


def _may_hold_node(annotation: object) -> bool:
    """False only for a declared type that cannot hold a node other than whitespace and
    punctuation (``Sequence[LeftParen]``, ``BaseParenthesizableWhitespace``, ``str``); an
    unknown or unresolved annotation may."""
    if annotation is None:
        return True
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return False
    if typing.get_origin(annotation) is not None:
        return any(_may_hold_node(arg) for arg in args) if args else True
    if not isinstance(annotation, type):
        return True
    if not issubclass(annotation, cst.CSTNode):
        return annotation not in _PLAIN_FIELD_TYPES
    return any(
        sub not in _TRIVIA and not getattr(sub, "__abstractmethods__", None)
        for sub in (annotation, *_all_subclasses(annotation))
    )


def _all_subclasses(kind: type) -> list[type]:
    """The subclasses of ``kind`` its module names: libcst's slots decorator leaves the class
    it copied among the subclasses, unreachable (it would count as a node class)."""
    return [
        sub
        for sub in subclasses(kind)
        if getattr(sys.modules.get(sub.__module__), sub.__qualname__, sub) is sub
    ]


# field types that never hold a node
_PLAIN_FIELD_TYPES = frozenset({str, bool, int, float, type(None), cst.MaybeSentinel})
_FIELDS: dict[type, tuple[str, ...]] = {}
# whitespace, comments, operators and punctuation: the value nodes fastcst shares
_TRIVIA = value_node_classes()
_NODE_KINDS: dict[type, bool] = {}


# tests that are false whenever Python itself runs the code
_NEVER_IN_EAGER_MODE = frozenset(
    {"torch.jit.is_scripting", "torch.jit._script.is_scripting", "torch._jit_internal.is_scripting"}
)


def _unsized_list(expr) -> bool:
    """A list display with a starred element (`[*t]`), or a list comprehension."""
    if expr is None:
        return False
    kind = type(expr)
    if kind is cst.ListComp:
        return True
    return kind is cst.List and any(type(e) is cst.StarredElement for e in expr.elements)


def _minus_one(expr) -> bool:
    """`<something> - 1`."""
    return (
        type(expr) is cst.BinaryOperation
        and type(expr.operator) is cst.Subtract
        and type(expr.right) is cst.Integer
        and expr.right.value == "1"
    )


def _tests_last_pass(stmt: cst.For) -> bool:
    """A counted loop without `break` whose body compares its counter with `<something> - 1`
    (`if i < len(self.layers) - 1:`, `i != n - 1`, `i == n - 1`)."""
    name = _counter_name(stmt)
    if name is None:
        return False
    found = False
    stack: list = [stmt.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Break:
            return False
        if kind in (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue  # (a `break` there is that loop's; a test there is not on this counter)
        if (
            kind is cst.Comparison
            and len(node.comparisons) == 1
            and type(node.left) is cst.Name
            and node.left.value == name
            and _minus_one(node.comparisons[0].comparator)
        ):
            found = True
        stack.extend(_subnodes(node))
    return found


def _counter_test(counter: LoopCounter, operator: type, other: object) -> ConstVal | None:
    """`i == start` / `!=` / `>` / `<=` on a loop counter's first or later pass."""
    if type(other) is not int or other != counter.start:
        return None
    at_start = counter.first
    if operator is cst.Equal or operator is cst.LessThanEqual:
        return ConstVal(at_start)
    if operator is cst.NotEqual or operator is cst.GreaterThan:
        return ConstVal(not at_start)
    return None


def _short_circuit(conjunction: bool, values: list) -> ConstVal | None:
    """`a and b` with a literal False operand is False (`or`: a literal True is True); when
    every operand is a literal, its truth. Otherwise None (not known)."""
    flags = [v.value for v in values if isinstance(v, ConstVal) and isinstance(v.value, bool)]
    if (conjunction and False in flags) or (not conjunction and True in flags):
        return ConstVal(not conjunction)
    if len(flags) == len(values):
        return ConstVal(all(flags) if conjunction else any(flags))
    return None


def _children_exprs(expr) -> list:
    """The operand expressions of a boolean operation, comparison, dict or set, in order (read
    from the fields: libcst's ``children`` runs a visitor over the node)."""
    kind = type(expr)
    if kind is cst.BooleanOperation:
        return [expr.left, expr.right]
    if kind is cst.Comparison:
        return [expr.left, *(target.comparator for target in expr.comparisons)]
    out = []
    for element in expr.elements:
        element_kind = type(element)
        if element_kind is cst.DictElement:
            out += (element.key, element.value)
        elif element_kind is cst.Element or element_kind is cst.StarredElement:
            out.append(element.value if element_kind is cst.Element else element)
    return out


def _del_targets(target) -> list:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [e.value for e in target.elements]
    return [target]


def _is_non_tensor_default(default) -> bool:
    if default is None:
        return False
    value = _literal(default)
    return (
        value is not _NOT_LITERAL
        and value is not None
        or isinstance(default, (cst.Float, cst.Tuple, cst.Dict, cst.List, cst.Set))
        # `act_cfg=dict(type="ReLU")` (mmcv's ConvModule): a config, never a tensor
        or (
            type(default) is cst.Call
            and type(default.func) is cst.Name
            and default.func.value in ("dict", "list", "set", "tuple", "frozenset")
        )
    )


def _non_tensor_annotation(param: cst.Param) -> bool:
    """`x: int`, `features: dict[str, Tensor]`, `xs: Optional[List[Tensor]]`, `"Dict[str, Any]"`:
    a parameter annotated as a Python scalar or container is not a tensor."""
    if param.annotation is None:
        return False
    return _annotation_head(param.annotation.annotation) in NON_TENSOR_TYPES


def _annotation_head(node) -> str:
    """The outer type an annotation names: `Dict` for `typing.Dict[str, T]`, `list` for
    `Optional[list[T]]` (and `list[T] | None`), the head of a quoted annotation."""
    for _ in range(8):
        kind = type(node)
        if kind is cst.SimpleString:
            match = _QUOTED_HEAD.match(_string_value(node))
            return match.group(1) if match else ""
        if kind is cst.BinaryOperation and type(node.operator) is cst.BitOr:
            if _is_none(node.right):
                node = node.left
                continue
            if _is_none(node.left):
                node = node.right
                continue
            return ""
        if kind is cst.Subscript:
            head = (dotted_name(node.value) or "").rsplit(".", 1)[-1]
            if (
                head == "Optional"
                and len(node.slice) == 1
                and type(node.slice[0].slice) is cst.Index
            ):
                node = node.slice[0].slice.value
                continue
            return head
        return (dotted_name(node) or "").rsplit(".", 1)[-1]
    return ""


def _is_none(node) -> bool:
    return type(node) is cst.Name and node.value == "None"


_QUOTED_HEAD = re.compile(r"\s*(?:Optional\[\s*)?(?:typing\.)?(\w+)")


_AUG = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.PowerAssign: "**",
    cst.MatrixMultiplyAssign: "@",
    cst.BitAndAssign: "&",
    cst.BitOrAssign: "|",
    cst.BitXorAssign: "^",
    cst.LeftShiftAssign: "<<",
    cst.RightShiftAssign: ">>",
}
_BIN = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
}


def _aug_operator(op) -> str:
    return _AUG.get(type(op), "+")


def _bin_operator(op) -> str:
    return _BIN.get(type(op), "+")


def _inplace_keyword(expr, qual: str | None = None) -> cst.Arg | None:
    """The argument that turns the module's `inplace` on: the keyword, or the positional one at
    the constructor's `inplace` position (`nn.ReLU(True)`, `nn.LeakyReLU(0.2, True)`; not the
    rate of `nn.Dropout(0.1)`, switched on later by `m.inplace = True`)."""
    if isinstance(expr, cst.Call):
        for arg in expr.args:
            if arg.keyword is not None and arg.keyword.value == "inplace":
                return arg
        params = kb.torch_module_init_params(qual) if qual else ()
        position = params.index("inplace") if "inplace" in params else 0 if not qual else None
        if (
            position is not None
            and position < len(expr.args)
            and all(a.keyword is None and not a.star for a in expr.args[: position + 1])
        ):
            return expr.args[position]
    return None


def _self_attribute(expr) -> str | None:
    """`self.<name>` -> name (one attribute deep); None for anything else."""
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        return expr.attr.value
    return None
