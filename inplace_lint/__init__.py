"""inplace-lint: find the in-place tensor writes that break autograd, before backward() does."""

__version__ = "0.1.0"
