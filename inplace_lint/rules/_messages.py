"""The runtime messages users will see, quoted by the rules (their stable prefixes). Where torch
names the output and the op (`Output 1 of SplitBackward0`), `<i>` and `<op>` stand for them: the
analysis knows the call (quoted in the message) but not always which of its outputs is written."""

VERSION_ERROR = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by an "
    "inplace operation"
)
LEAF_ERROR = (
    "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
)
VIEW_OF_LEAF_ERROR = "RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation."
MULTI_VIEW_ERROR = (
    "RuntimeError: Output <i> of <op> is a view and is being modified inplace. This view is "
    "the output of a function that returns multiple views"
)
CUSTOM_FUNCTION_VIEW_ERROR = (
    "RuntimeError: Output 0 of <Function>Backward is a view and is being modified inplace. This "
    "view was created inside a custom Function (or because an input was returned as-is)"
)
HOOK_VIEW_ERROR = (
    "RuntimeError: Output <i> of BackwardHookFunctionBackward is a view and is being modified "
    "inplace"
)
STALE_VIEW_ERROR = (
    "RuntimeError: Output <i> of <op> is a view and its base or another view of its base "
    "has been modified inplace. This view is the output of a function that returns multiple views"
)
OUT_ERROR = "RuntimeError: functions with out=... arguments don't support automatic differentiation"
INFERENCE_ERROR = (
    "RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed"
)
PADDLE_LEAF_ERROR = (
    "ValueError: (InvalidArgument) Leaf Var that doesn't stop gradient can't use inplace strategy."
)
PADDLE_VERSION_ERROR = (
    "RuntimeError: (PermissionDenied) Tensor used in gradient computation has been modified by an "
    "inplace operation"
)


def quote(text: str) -> str:
    """Code in a message: `x`, unless the text already carries its own quoting."""
    return text if "`" in text else f"`{text}`"
