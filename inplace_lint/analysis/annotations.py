"""Names the analysis and the prefilter both read; kept free of libcst (the prefilter imports it).

Python types a parameter annotation can name that are never a tensor.

Read by the analysis (``dataflow._non_tensor_annotation``: `n: int`, `sizes: Optional[List[int]]`
bind no tensor) and by the prefilter, which may drop every other annotation from a signature it
keeps (the analysis reads nothing else of them). Kept free of libcst: the prefilter imports it."""

import re

NON_TENSOR_TYPES = frozenset(
    {"int", "float", "bool", "str", "bytes", "complex", "dict", "list", "tuple", "set"}
    | {"frozenset", "Dict", "List", "Tuple", "Set", "FrozenSet", "Mapping", "MutableMapping"}
    | {"Sequence", "MutableSequence", "Iterable", "Iterator", "Callable", "OrderedDict"}
    | {"DefaultDict", "defaultdict"}
)

# The parameters every framework layer with weights has: `weight`, `bias`, and nn.RNN / GRU /
# LSTM's `weight_ih_l0`, `bias_hh_l1_reverse` (torch/nn/modules/rnn.py names them). Read by
# IPL014's analysis (`self.weight = ...` in `class MaskedConv(nn.Conv2d)`) and its prefilter seed.
LAYER_PARAMETER = re.compile(r"(?:weight|bias)(?:_(?:ih|hh|hr)(?:_l\d+(?:_reverse)?)?)?")
