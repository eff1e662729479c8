"""Triton backend plugin entry point (`triton.backends` entry point "mtia").

Triton imports `compiler` and `driver` from here and takes the one concrete
BaseBackend (MTIABackend) and DriverBase (MTIADriver) in them.
"""

# Importing triton runs its backend discovery, which imports our `compiler`
# and `driver` modules. Do it before either is imported directly, or
# discovery would find a half-initialised module (an import cycle).
import triton  # noqa: F401
