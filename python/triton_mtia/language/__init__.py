"""Device-specific language modules of the MTIA backend.

`libdevice` replaces `triton.language.extra.libdevice` for kernels compiled
for MTIA (through `MTIABackend.get_module_map`).
"""
