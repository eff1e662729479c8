"""Every setting of the Python face, read in one place.

Settings are plain attributes of the ``settings`` object, which the package
exports as ``triton_mtia.settings`` (this module's name is private, so that
the name means one thing), and a program configures the backend in Python::

    import triton_mtia
    triton_mtia.settings.trace_launches = True

A few environment variables override the *defaults* of tool locations (useful
in CI or when testing a compiler build from another tree); nothing else reads
the environment. Simulator parameters are not settings: they belong to the
simulator and are changed with ``triton_mtia.configure()``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

#: Name of the compiler executable (contract (a) in docs/python.md).
COMPILER_TOOL = "triton-mtia-compile"

#: The compiler optimizations that a setting (and the launch option of the
#: same name) switches off, in the order the ablation benchmark reports
#: them. Each but pipelining (``--num-stages=1``) is switched off by the
#: compiler flag ``--no-<name with dashes>``. Only our stages read them,
#: never Triton's frontend: the tests' switch runs reuse a kernel's ttir
#: across them (test/python/conftest.py).
OPTIMIZATIONS = ("pipelining", "cb_stacking", "index_math", "vector_core_sharing", "command_pipelining",
                 "dual_issue", "loop_splitting", "elementwise_splitting", "effective_shapes",
                 "vector_loop_fusion")

#: The package directory; CMake installs `_bin/`, `include/` and `_mtia_sim`
#: into it (see the install() rules in runtime/ and compiler/).
PACKAGE_DIR = Path(__file__).resolve().parent


def _source_root() -> Optional[Path]:
    """The repository root when the package is used from a source checkout
    (python/triton_mtia -> the root), else None."""
    root = PACKAGE_DIR.parent.parent
    return root if (root / "CMakeLists.txt").is_file() and (root / "compiler").is_dir() else None


def _find_compiler() -> Optional[str]:
    """The compiler executable: the installed copy, else the newest one in a
    source tree's build directory, else whatever PATH has."""
    installed = PACKAGE_DIR / "_bin" / COMPILER_TOOL
    if installed.is_file():
        return str(installed)
    root = _source_root()
    if root is not None:
        patterns = [f"build/*/bin/{COMPILER_TOOL}", f"build/*/compiler/tools/{COMPILER_TOOL}/{COMPILER_TOOL}"]
        built = [p for pattern in patterns for p in root.glob(pattern) if p.is_file()]
        if built:
            return str(max(built, key=lambda p: p.stat().st_mtime))
    return shutil.which(COMPILER_TOOL)


def _lld_flag() -> tuple:
    """("-fuse-ld=lld", ) when the kernels' compiler has lld beside it (the
    lld-22 package: scripts/setup.sh installs it), else ()."""
    cxx = shutil.which(os.environ.get("TRITON_MTIA_CXX", "clang++-22"))
    if cxx and os.path.exists(os.path.join(os.path.dirname(os.path.realpath(cxx)), "ld.lld")):
        return ("-fuse-ld=lld", )
    return ()


def _find_include_dir() -> Optional[str]:
    """The directory that holds `mtia/device.h`: the installed headers, else
    the source tree's."""
    candidates = [PACKAGE_DIR / "include"]
    root = _source_root()
    if root is not None:
        candidates.append(root / "runtime" / "include")
    for c in candidates:
        if (c / "mtia" / "device.h").is_file():
            return str(c)
    return None


@dataclass
class Settings:
    #: Path of `triton-mtia-compile`; None finds it (see `_find_compiler`)
    #: when first needed, so a tool built after import is still found.
    compiler: Optional[str] = field(default_factory=lambda: os.environ.get("TRITON_MTIA_COMPILER"))
    #: The C++ compiler that turns generated C++ into a shared object.
    cxx: str = field(default_factory=lambda: os.environ.get("TRITON_MTIA_CXX", "clang++-22"))
    #: Flags for `cxx`; -fPIC/-shared/-I are always added.
    # -fwrapv: integer arithmetic in kernels wraps, as it does in Triton.
    # -O0: a kernel's host code only issues commands, and simulating them is
    # nearly all of a launch's host time; simulated cycles do not depend on
    # it at all. -O2 takes longer to build for the same launch times
    # (bench/README.md, "Compile time").
    # -Werror=frame-larger-than: a kernel runs on a fiber of
    # fiber_stack_bytes (256 KiB, the device API's own frames on top of the
    # kernel's); a frame that would overflow it is a compile error that
    # says so, not a crash of the process. At -O0 every temporary of a
    # kernel has a stack slot of its own, and a kernel of thousands of
    # commands (a sort of 4096 elements: 318 KiB) is built again with
    # `cxx_large_frame_flags`.
    # -fno-inline (at -O1 and above): the device API's calls stay calls.
    # Inlined, each command leaves its Shape/Operand temporaries in the
    # kernel body, and clang's SROA and MemCpyOpt take time quadratic in
    # them: 45 s instead of 1 s for a 2,600-line grid_sample kernel.
    cxx_flags: tuple = ("-std=c++17", "-O0", "-fno-inline", "-fwrapv", "-Wframe-larger-than=131072",
                        "-Werror=frame-larger-than")
    #: Appended to `cxx_flags` to build again a kernel whose frame is too
    #: large: -O1 gives the temporaries of different commands one slot (the
    #: sort of 4096 elements: 0.5 KiB). Empty: no second try.
    cxx_large_frame_flags: tuple = ("-O1", )
    #: Compile kernels against a precompiled header of the device API
    #: (backend/object_cache.py), built once per compiler, flags and headers.
    precompiled_headers: bool = True
    #: How a kernel's shared object is linked (after -shared): by lld where
    #: clang has it, without the C runtime's start files (a kernel is no
    #: program), with only the libraries its code can call: the C++ runtime,
    #: libm, libc and the compiler's helpers (fp16 conversions). 0.02 s
    #: where clang's default link takes 0.05; () is that default.
    link_flags: tuple = field(default_factory=lambda: _lld_flag() + ("-nostdlib", "-lstdc++", "-lm", "-lc", "-lgcc",
                                                                     "-lgcc_s"))
    #: Code generation path (the paper's 3.5): "cpp", human-readable C++
    #: against mtia/device.h, built by `cxx` (the default: the code a user
    #: reads and edits), or "llvm", LLVM IR from MLIR's LLVM dialect, built
    #: by `cxx` as IR with the object of mtia/llvm_support.h. Both give the
    #: same results and the same simulated cycles. A launch option too
    #: (``kernel[grid](..., codegen="llvm")``); TRITON_MTIA_CODEGEN sets the
    #: default.
    codegen: str = field(default_factory=lambda: os.environ.get("TRITON_MTIA_CODEGEN", "cpp"))
    #: Directory holding `mtia/device.h`.
    include_dir: Optional[str] = field(default_factory=_find_include_dir)
    #: Simulator preset used when the process-wide simulator is first made.
    preset: str = "mtia2i"
    #: Record a Perfetto/Chrome trace of every launch (slower; for one launch
    #: use `triton_mtia.trace()` instead).
    trace_launches: bool = False
    #: Where recorded traces live until written out; None = a private
    #: temporary directory removed at exit.
    trace_dir: Optional[str] = None
    #: Report every load or store that did not become a strided DMA, and why,
    #: with its source line: printed to stderr at compile time and kept in
    #: the compiled kernel's ``metadata.dma_report``.
    dma_report: bool = False
    #: Check mode for masked loads without ``other``: masked-out lanes become
    #: NaN (floats) or the most negative integer instead of zero, so kernels
    #: that rely on them give visibly wrong results (docs/compiler.md).
    #: Both are defaults of the launch options of the same names, read when a
    #: kernel is compiled: a specialization already compiled in this process
    #: keeps its code unless the option is passed at launch
    #: (``kernel[grid](..., poison_masked_loads=True)``).
    poison_masked_loads: bool = False
    #: Charge the PE's RISC-V core for the kernel's scalar code (address
    #: arithmetic, loop control, branches, scalar math) through
    #: ``scalarCycles`` calls the compiler inserts (docs/compiler.md,
    #: "Scalar code cost"); False compiles without them
    #: (``triton-mtia-compile --no-scalar-cost``). A launch option too.
    scalar_cost: bool = True
    #: Keep a program's loads and stores in program order where they may
    #: touch the same memory: the compiler fences them (mtia-order-memory,
    #: docs/compiler.md "Memory order"), so a program reads its own writes.
    #: False (``triton-mtia-compile --no-memory-order``, a launch option
    #: too) exists to watch the simulator's sanitizer catch the hazards
    #: (``triton_mtia.configure(check_memory_order=...)``, on by default);
    #: a kernel that reads its own writes then faults.
    memory_order: bool = True
    #: Optimization switches, defaults of the launch options of the same
    #: names (bench/ablation.py measures each): loop pipelining, CBs filled
    #: inside loops holding `num_stages` tiles (False: one, no pipelining);
    #: stacking tiles in one CB when more are live than a PE has CBs (False:
    #: such kernels are rematerialized instead); Inductor's index math,
    #: ``//`` and ``%`` by constants in addresses, as the digits of an N-D
    #: DMA (False: gathers and scatters by address); elementwise commands
    #: the RISC-V vector core would finish before the busy SIMD engine go to
    #: it (mtia-share-vector-core; False: all on the SE); a loop's next
    #: iteration's loads and dots issued before this iteration's tail
    #: (mtia-pipeline-commands; False: program order); the fabric
    #: interface's commands issued by one RISC-V core and the compute units'
    #: by the other (mtia-dual-issue; False: all by the scalar core); a
    #: loop split where its masks become all true, the first part without
    #: them (tt-split-masked-loops; False: masks on every iteration); an
    #: elementwise command split by rows between the SE and the vector core
    #: where both finish sooner (mtia-share-vector-core; False: one unit
    #: per command); SE commands computing only the valid box of tiles
    #: whose load a mask bounds, where nothing reads the rest
    #: (mtia-effective-shapes; False: whole tiles); a chain of vector-core
    #: commands run as one loop, its intermediates in registers
    #: (mtia-fuse-vector-loops; False: a loop per command).
    pipelining: bool = True
    cb_stacking: bool = True
    index_math: bool = True
    vector_core_sharing: bool = True
    command_pipelining: bool = True
    dual_issue: bool = True
    loop_splitting: bool = True
    elementwise_splitting: bool = True
    effective_shapes: bool = True
    vector_loop_fusion: bool = True
    #: How a launch deals its programs to the PEs (paper 4.3.1): "linear"
    #: (PE k runs a contiguous block of program ids), "round_robin" (PE k
    #: runs k, k+64, ...), "zigzag" (rounds of 64 dealt forward, then
    #: backward: balances work that grows with the program id, such as the
    #: rows of a causal attention) or "user" (exactly one program per PE,
    #: program k on PE k in row-major order, for kernels that map their
    #: work to PEs with ``mtl.get_pe_id``: docs/extensions.md). A launch
    #: option too (``kernel[grid](..., pid_mapping="zigzag")``).
    pid_mapping: str = "linear"
    #: Where libdevice calls (``triton.language.extra.libdevice``) run, the
    #: paper's 6.1.3 directive: "auto" (the SE where it has a lookup table
    #: for the function, else the vector core; the vector-core sharing may
    #: move them), "se" (the SE, wherever it can) or "vec" (the vector
    #: core's RVV). A launch option too (``kernel[grid](...,
    #: libdevice_unit="vec")``); per call, ``mtl.unit_hint``
    #: (docs/extensions.md).
    libdevice_unit: str = "auto"
    #: torch.compile on the mtia device lowers layer norm to the Triton
    #: template of triton_mtia/inductor/layer_norm.py, into which Inductor
    #: fuses epilogues (the paper's 5.2). False: Inductor decomposes it and
    #: fuses the pieces into a kernel of its own.
    layer_norm_template: bool = True
    #: Eager ATen operators on `mtia` that no kernel of the library serves
    #: run as kernels of that operator alone, generated by Inductor and
    #: cached per call signature (aten/per_op.py; TRITON_MTIA_EAGER_KERNELS).
    #: False: they run on the host, as the device's fallback.
    eager_kernels: bool = field(default_factory=lambda: os.environ.get("TRITON_MTIA_EAGER_KERNELS", "1") != "0")
    #: Inductor's matmul template configs for mtia (max-autotune) are only
    #: those whose tiles fit a PE's local memory and, where some do, that
    #: give every PE a program (the paper's 5.3; inductor/heuristics.py).
    #: False: Inductor's GPU configs, of which those too large fail with
    #: OutOfResources after their compile.
    fit_mm_configs: bool = True
    #: Inductor's persistent reductions for mtia (a softmax, row by row)
    #: take as many rows per program as leave every PE two programs, in a
    #: tile of at most 2048 elements (inductor/heuristics.py). Off by
    #: default: 7-9% faster on softmaxes of 300 and 1200 rows of 781, but
    #: 1-8% slower on 29 small reductions of the op-coverage run
    #: (bench/README.md); False is Inductor's GPU heuristics.
    fit_reduction_blocks: bool = False
    #: The content-addressed cache of kernel shared objects
    #: (backend/object_cache.py): two compiles that generate the same C++
    #: share one clang run. Its directory, None for the default
    #: ``~/.triton/mtia_objects`` (beside Triton's cache, independent of
    #: ``TRITON_CACHE_DIR``); ``object_cache = False`` bypasses it.
    object_cache: bool = True
    object_cache_dir: Optional[str] = field(default_factory=lambda: os.environ.get("TRITON_MTIA_OBJECT_CACHE_DIR"))
    #: Compile kernels in one long-lived `triton-mtia-compile --serve`
    #: process per Python process (backend/compile_server.py) instead of a
    #: process per kernel, whose start is most of a small kernel's compile.
    #: Same output and diagnostics either way.
    compile_server: bool = field(default_factory=lambda: os.environ.get("TRITON_MTIA_COMPILE_SERVER", "1") != "0")
    #: Seconds a kernel's compile may take (TRITON_MTIA_COMPILE_TIMEOUT).
    #: The compiler stops itself past them with an error naming the kernel
    #: and the stage (`triton-mtia-compile --time-limit`); a compiler or
    #: compile server that still has not answered a little later is killed
    #: and the compile fails. 0: no limit.
    compile_timeout: float = field(default_factory=lambda: float(os.environ.get("TRITON_MTIA_COMPILE_TIMEOUT", "300")))
    #: Keep the temporary directory of a failed tool run so its command can
    #: be re-run by hand (the error message prints it either way; a crashed
    #: compiler's is kept always).
    keep_failed_temps: bool = True
    #: Edit and rebuild (docs/python.md, "Editing a kernel's C++"): a
    #: directory of edited kernels, `<kernel name>.cpp` (or `.llir` for the
    #: LLVM IR path), each built instead of what the compiler generates for
    #: a kernel of that name (its entry point and KernelInfo kept).
    #: Changing a file there recompiles.
    #: Triton's own TRITON_KERNEL_OVERRIDE cannot carry C++: its parser
    #: knows only its own stages' files.
    override_dir: Optional[str] = field(default_factory=lambda: os.environ.get("TRITON_MTIA_OVERRIDE_DIR"))

    def compiler_path(self) -> Optional[str]:
        """The compiler to run, or None if there is none."""
        if self.compiler is None:
            self.compiler = _find_compiler()
        return self.compiler

    def require_compiler(self) -> str:
        path = self.compiler_path()
        if not path or not os.path.isfile(path):
            raise FileNotFoundError(
                f"{COMPILER_TOOL} not found (looked in {PACKAGE_DIR / '_bin'}, the source tree's build/, "
                f"and PATH). Build it with `pip install --no-build-isolation .` or point "
                f"triton_mtia.settings.compiler (or TRITON_MTIA_COMPILER) at it.")
        return path

    def require_include_dir(self) -> str:
        if not self.include_dir:
            raise FileNotFoundError("mtia/device.h not found; set triton_mtia.settings.include_dir")
        return self.include_dir


settings = Settings()

