"""Triton backend plugin entry point (`triton.backends` entry point "mtia").

Triton imports `compiler` and `driver` from here and takes the one concrete
BaseBackend (MTIABackend) and DriverBase (MTIADriver) in them.
"""
