"""Python types a parameter annotation can name that are never a tensor.

Read by the analysis (``dataflow._non_tensor_annotation``: `n: int`, `sizes: Optional[List[int]]`
bind no tensor) and by the prefilter, which may drop every other annotation from a signature it
keeps (the analysis reads nothing else of them). Kept free of libcst: the prefilter imports it."""

NON_TENSOR_TYPES = frozenset(
    {"int", "float", "bool", "str", "bytes", "complex", "dict", "list", "tuple", "set"}
    | {"frozenset", "Dict", "List", "Tuple", "Set", "FrozenSet", "Mapping", "MutableMapping"}
    | {"Sequence", "MutableSequence", "Iterable", "Iterator", "Callable", "OrderedDict"}
    | {"DefaultDict", "defaultdict"}
)
