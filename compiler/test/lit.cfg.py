# lit configuration of the triton-mtia compiler tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TRITON_MTIA"
# The internal shell: PyPI's lit refuses the external one, and it is portable.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".ttir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.triton_mtia_obj_root)

llvm_config.use_default_substitutions()
tool_dirs = [
    os.path.join(config.triton_mtia_tools_dir, "triton-mtia-opt"),
    os.path.join(config.triton_mtia_tools_dir, "triton-mtia-compile"),
    config.llvm_tools_dir,
]
llvm_config.add_tool_substitutions(
    ["triton-mtia-opt", "triton-mtia-compile", "FileCheck", "not"], tool_dirs)
