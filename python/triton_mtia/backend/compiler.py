"""The compiler half of the MTIA backend plugin.

Triton's frontend turns a @triton.jit function into ttir; this backend runs
the standard ttir clean-up pipeline on it, hands the text to the out-of-process
compiler (`triton-mtia-compile`, C++/MLIR 22) which writes human-readable C++
or, with the `codegen="llvm"` option, LLVM IR, and builds that into a shared
object the simulator loads:

    ttir  ->  cpp   ->  so  (-> llir)   (codegen="cpp", the default)
    ttir  ->  llir  ->  so              (codegen="llvm")

Each stage's output is kept by Triton in its cache and exposed as
`compiled_kernel.asm[stage]`; `asm["cpp"]` is the code a user reads. On the
C++ path the compiler writes the same lowering as LLVM IR too, which the
last stage hands on, so `asm["llir"]` is there on both paths.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import json
import re
import sys
import shutil
import signal
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path
from types import ModuleType
from typing import Callable, Dict, List, Optional, Tuple

from triton import knobs
from triton._C.libtriton import ir, passes
from triton.backends.compiler import BaseBackend, GPUTarget, Language

from ..errors import CompilationError
from .._settings import OPTIMIZATIONS, settings
from . import compile_server, object_cache

#: `GPUTarget.backend` of our device; also the entry-point name.
BACKEND_NAME = "mtia"
#: The one chip we compile for.
MTIA_TARGET = GPUTarget(BACKEND_NAME, "mtia2i", 1)

#: The PID-to-PE mappings the simulator implements (program_map.h).
PID_MAPPINGS = ("linear", "round_robin", "zigzag", "user")
#: Where libdevice calls may be placed (settings.libdevice_unit).
LIBDEVICE_UNITS = ("auto", "se", "vec")
#: Code generation paths (settings.codegen): C++ or LLVM IR.
CODEGENS = ("cpp", "llvm")


@dataclass(frozen=True)
class MTIAOptions:
    """Compile options. Field names are the ones Triton's frontend, JIT and
    autotuner read or pass as keyword arguments (a kernel launched with
    `num_warps=8` must not raise), so several exist only to be accepted."""

    # --- accepted for portability of GPU kernels; meaningless on a PE ------
    num_warps: int = 4
    num_ctas: int = 1
    warp_size: int = 1
    maxnreg: Optional[int] = None
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    # --- read by the frontend / JIT -----------------------------------------
    #: Pipelining depth: the tiles a CB filled inside a loop holds, so that
    #: the DMAs of the next iterations run ahead of their reader
    #: (mtia-assign-cbs; where local memory allows, cheapest CBs first).
    #: 3 is Triton's GPU default too; 1 turns pipelining off.
    num_stages: int = 3
    #: Optimization switches (bench/ablation.py), defaulted from the
    #: settings of the same names: loop pipelining (False is num_stages=1)
    #: and stacking tiles in one CB when more are live than a PE has CBs
    #: (False leaves such kernels to rematerialization).
    pipelining: Optional[bool] = None
    cb_stacking: Optional[bool] = None
    #: recovering `//` / `%` index math as N-D DMAs (False: gathers), and
    #: giving elementwise commands to the idle vector core where it finishes
    #: them first (False: all on the SIMD engine), and issuing a loop's
    #: next iteration's loads and dots before this iteration's tail
    #: (False: program order), splitting command issue between the two
    #: RISC-V cores by unit (False: all on the scalar core), splitting a
    #: loop where its masks become all true (False: masks everywhere), and
    #: splitting an elementwise command by rows between the SE and the
    #: vector core (False: one unit per command), and SE commands on the
    #: valid box that a load's mask bounds (False: whole tiles).
    index_math: Optional[bool] = None
    vector_core_sharing: Optional[bool] = None
    command_pipelining: Optional[bool] = None
    dual_issue: Optional[bool] = None
    loop_splitting: Optional[bool] = None
    elementwise_splitting: Optional[bool] = None
    effective_shapes: Optional[bool] = None
    vector_loop_fusion: Optional[bool] = None
    debug: bool = False
    sanitize_overflow: bool = True
    arch: str = "mtia2i"
    #: The configured chip's parameters that the compiler plans with
    #: (runtime.COMPILER_PARAMETERS: CBs, local memory, SE and vector core
    #: throughput), as (name, value) pairs: always the simulator's, and so
    #: part of the kernel's cache key.
    chip: Tuple[Tuple[str, int], ...] = ()
    backend_name: str = BACKEND_NAME
    #: FP8 values are converted and moved by the SE (Copy to/from F8E4M3 and
    #: F8E5M2); the DPE has no FP8 inputs, so dots on them are not accepted.
    supported_fp8_dtypes: Tuple[str, ...] = ("fp8e4nv", "fp8e5")
    deprecated_fp8_dot_operand_dtypes: Tuple[str, ...] = ()
    #: The DPE accumulates FP32 at full precision; there is no TF32 mode, so
    #: TF32 requests are accepted and computed at (higher) IEEE precision.
    default_dot_input_precision: str = "ieee"
    allowed_dot_input_precisions: Tuple[str, ...] = ("ieee", "tf32", "tf32x3")
    max_num_imprecise_acc_default: int = 0
    extern_libs: Optional[tuple] = None
    enable_fp_fusion: bool = True
    instrumentation_mode: str = ""
    fpsan_homomorphic_casts: bool = False
    #: A file (`*.ttir`) that replaces a stage's output (Triton's mechanism).
    ir_override: Optional[str] = None
    #: Porting aids, defaulted from `triton_mtia.settings` (options, so that
    #: changing a setting recompiles): the DMA report and the check mode that
    #: poisons masked-out lanes of loads without `other`.
    dma_report: Optional[bool] = None
    poison_masked_loads: Optional[bool] = None
    #: Charge the core for the kernel's scalar code (mtia-scalar-cost);
    #: defaulted from `triton_mtia.settings.scalar_cost`.
    scalar_cost: Optional[bool] = None
    #: Fences between a program's loads and stores that may touch the same
    #: memory (mtia-order-memory); defaulted from
    #: `triton_mtia.settings.memory_order`. False only to watch the
    #: simulator's memory-order sanitizer catch what they prevent.
    memory_order: Optional[bool] = None
    #: How programs are dealt to the PEs: "linear", "round_robin",
    #: "zigzag" or "user" (settings.pid_mapping has the details); defaulted from
    #: `triton_mtia.settings.pid_mapping`. The launcher passes it on.
    pid_mapping: Optional[str] = None
    #: Where libdevice calls run: "auto", "se" or "vec" (settings.libdevice_unit
    #: has the details); defaulted from `triton_mtia.settings.libdevice_unit`.
    libdevice_unit: Optional[str] = None
    #: The code generation path: "cpp" or "llvm" (settings.codegen has the
    #: details); defaulted from `triton_mtia.settings.codegen`.
    codegen: Optional[str] = None

    def __post_init__(self):
        # Options must be hashable and JSON-able; Triton passes extern_libs as a dict.
        if isinstance(self.extern_libs, dict):
            object.__setattr__(self, "extern_libs", tuple(sorted(self.extern_libs.items())))

    def hash(self) -> str:
        key = "_".join(f"{name}-{val}" for name, val in sorted(self.__dict__.items()))
        return hashlib.sha256(key.encode("utf-8")).hexdigest()


def min_dot_size(lhs_type, rhs_type) -> Tuple[int, int, int]:
    """Any dot shape is legal: the compiler pads operands to DPE tiles in
    local memory; small dots only waste the engine."""
    return (1, 1, 1)


@functools.lru_cache(None)
def _file_digest(path: str, mtime_ns: int) -> str:
    # mtime_ns is part of the key so that a rebuilt file is hashed again.
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _digest(path: Optional[str]) -> str:
    if not path or not os.path.isfile(path):
        return "missing"
    return _file_digest(path, os.stat(path).st_mtime_ns)


def run_tool(stage: str, name: str, text: str, in_ext: str, out_ext: str,
             command: Callable[[str, str], List[str]], diagnostics: Optional[list] = None,
             served: bool = False, side_outputs: Optional[Dict[str, bytes]] = None,
             failure_report: Optional[str] = None) -> bytes:
    """Writes `text` to NAME.in_ext in a fresh temporary directory, runs
    `command(input, output)` there, and returns the bytes of NAME.out_ext.
    `served`: the command is `triton-mtia-compile`'s, which this process's
    compile server runs (compile_server.py). `side_outputs`: its keys are
    extensions of files NAME.<ext> the command also writes; they are read
    into it. `failure_report`: the extension of a JSON file NAME.<ext> a
    failed command may write (the compiler's --resource-report), handed to
    the error.

    On failure raises CompilationError with the tool's stderr and the command
    line, keeping the directory so that the command can be re-run by hand."""
    stem = file_stem(name)
    workdir = tempfile.mkdtemp(prefix=f"triton-mtia-{stem}-")
    src = os.path.join(workdir, f"{stem}.{in_ext}")
    out = os.path.join(workdir, f"{stem}.{out_ext}")
    Path(src).write_text(text)
    cmd = command(src, out)
    limit = _wait_limit()
    try:
        if served:
            returncode, output = compile_server.run(cmd, workdir, limit)
        else:
            returncode, output = compile_server.run_one_shot(cmd, limit)
    except TimeoutError as timeout:
        # Killed: a tool that never ends is a bug; its input stays for the report.
        raise CompilationError.from_tool(
            stage, cmd, -signal.SIGKILL,
            f"error: kernel '{name}': {timeout} (settings.compile_timeout) and was killed; this is a "
            "compiler bug: please report it with the inputs kept below", workdir) from None
    if returncode != 0:
        crashed = returncode < 0  # a signal: a compiler bug, whatever the input
        report = Path(workdir, f"{stem}.{failure_report}") if failure_report else None
        shortage = json.loads(report.read_text()) if report is not None and report.is_file() else None
        kept = workdir if settings.keep_failed_temps or crashed else None
        if kept is None:
            shutil.rmtree(workdir, ignore_errors=True)
        if crashed:
            output = (f"error: kernel '{name}': {Path(cmd[0]).name} crashed ({_signal_name(-returncode)}); this is "
                      f"a compiler bug: please report it with the inputs kept below\n{output}")
        raise CompilationError.from_tool(stage, cmd, returncode, output, kept, shortage)
    result = Path(out).read_bytes()
    # Files the command wrote beside its output, `NAME.<ext>` for each key.
    for ext in side_outputs or {}:
        side = Path(workdir, f"{stem}.{ext}")
        side_outputs[ext] = side.read_bytes() if side.is_file() else b""
    if diagnostics is not None:  # remarks of a successful run (--dma-report)
        diagnostics.extend(line for line in output.splitlines() if line.strip())
    shutil.rmtree(workdir, ignore_errors=True)
    return result


def file_stem(name: str) -> str:
    """A kernel's name as it may stand in a file name: Inductor names a
    kernel after every operator it fuses, which can pass the 255 bytes a
    file name may have; a long one is cut and made unique by its hash."""
    if len(name) <= 100:
        return name
    return f"{name[:80]}-{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def _wait_limit() -> Optional[float]:
    """Seconds to wait for a tool before killing it: the compile timeout,
    and a grace period (as long, up to 30 s) in which the compiler reports
    its own stage."""
    limit = settings.compile_timeout
    return limit + min(limit, 30) if limit > 0 else None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


#: Where the cpp stage leaves the LLVM IR of its lowering for the llir stage
#: (popped there: metadata is written out after the last stage).
_LLIR_KEY = "_mtia_llir"

#: The file extension of each code generation path's kernel source.
SOURCE_EXT = {"cpp": "cpp", "llvm": "llir"}


def _overrides() -> List[Path]:
    """The edited kernels of settings.override_dir: `<kernel name>.cpp` or
    `<kernel name>.llir` (the names of Triton's dump)."""
    if not settings.override_dir or not os.path.isdir(settings.override_dir):
        return []
    return sorted(p for ext in SOURCE_EXT.values() for p in Path(settings.override_dir).glob(f"*.{ext}"))


def _stack_limit() -> Optional[int]:
    """The frame size beyond which clang warns, from `-Wframe-larger-than=N`
    of settings.cxx_flags (for IR, the compiler marks the kernel with it)."""
    for flag in settings.cxx_flags:
        if flag.startswith("-Wframe-larger-than="):
            return int(flag.split("=", 1)[1])
    return None


def _compiler_flags(options) -> List[str]:
    """Flags of `triton-mtia-compile` chosen by options (see MTIAOptions)."""
    flags = []
    if options.dma_report:
        flags.append("--dma-report")
    if options.poison_masked_loads:
        flags.append("--poison-masked-loads")
    if options.scalar_cost is False:
        flags.append("--no-scalar-cost")
    if options.memory_order is False:
        flags.append("--no-memory-order")
    for name in OPTIMIZATIONS[1:]:
        if getattr(options, name) is False:
            flags.append("--no-" + name.replace("_", "-"))
    flags.append(f"--num-stages={options.num_stages if options.pipelining is not False else 1}")
    if settings.compile_timeout > 0:
        flags.append(f"--time-limit={max(1, math.ceil(settings.compile_timeout))}")
    if options.libdevice_unit not in (None, "auto"):
        flags.append(f"--libdevice-unit={options.libdevice_unit}")
    from ..runtime import COMPILER_PARAMETERS
    flags += [f"--{COMPILER_PARAMETERS[name]}={value}" for name, value in options.chip]
    return flags


class MTIABackend(BaseBackend):
    """Compiles Triton kernels for the simulated MTIA-2i."""

    binary_ext = "so"

    @staticmethod
    def supports_target(target: GPUTarget):
        # Inductor's MTIA path asks for GPUTarget("mtia", build_codename(),
        # warp_size): the arch that device.py's stand-in for Meta's runtime
        # names, and the warp size of the device's properties.
        return target.backend == BACKEND_NAME

    def hash(self) -> str:
        """Changes whenever something that shapes the generated code changes:
        the compiler binary, the device headers, the C++ flags, or the chip
        the compiler plans for."""
        from .. import __version__, runtime
        include = settings.include_dir
        headers = sorted(Path(include, "mtia").glob("*")) if include else []
        parts = [__version__, str(self.target.arch), _digest(settings.compiler_path()), settings.cxx,
                 *settings.cxx_flags, repr(runtime.compiler_chip())]
        parts += [f"{h.name}:{_digest(str(h))}" for h in headers]
        # Edited kernels (settings.override_dir): an edit recompiles.
        parts += [f"override {p.name}:{_digest(str(p))}" for p in _overrides()]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()

    def parse_options(self, opts: dict) -> MTIAOptions:
        args = {f.name: opts[f.name] for f in fields(MTIAOptions) if opts.get(f.name) is not None}
        args["arch"] = str(self.target.arch)
        from .. import runtime
        args["chip"] = runtime.compiler_chip()
        for name in ("dma_report", "poison_masked_loads", "scalar_cost", "memory_order") + OPTIMIZATIONS:
            args.setdefault(name, bool(getattr(settings, name)))
        args.setdefault("pid_mapping", settings.pid_mapping)
        if args["pid_mapping"] not in PID_MAPPINGS:
            raise ValueError(f"pid_mapping must be one of {', '.join(PID_MAPPINGS)}, "
                             f"not {args['pid_mapping']!r}")
        args.setdefault("codegen", settings.codegen)
        if args["codegen"] not in CODEGENS:
            raise ValueError(f"codegen must be one of {', '.join(CODEGENS)}, not {args['codegen']!r}")
        args.setdefault("libdevice_unit", settings.libdevice_unit)
        if args["libdevice_unit"] not in LIBDEVICE_UNITS:
            raise ValueError(f"libdevice_unit must be one of {', '.join(LIBDEVICE_UNITS)}, "
                             f"not {args['libdevice_unit']!r}")
        # Upstream warns when fusion is left unset because its GPU default is
        # changing; this backend has no legacy to keep, so it passes its own
        # default (fused multiply-add on the SE) and still obeys the knob that
        # forces fusion off.
        args["enable_fp_fusion"] = knobs.language.fp_fusion_enabled(
            args.get("enable_fp_fusion", MTIAOptions.enable_fp_fusion))
        return MTIAOptions(**args)

    def pack_metadata(self, metadata):
        # Handed back to our launcher untouched; it reads what it needs by name.
        return metadata

    def get_codegen_implementation(self, options):
        return {"min_dot_size": min_dot_size}

    def get_module_map(self) -> Dict[str, ModuleType]:
        from ..language import libdevice
        return {"triton.language.extra.libdevice": libdevice}

    def load_dialects(self, ctx):
        # ttir uses upstream dialects only; ours live in the out-of-process compiler.
        pass

    # ------------------------------------------------------------------ stages

    @staticmethod
    def make_ttir(mod, metadata, options: MTIAOptions):
        """The standard target-independent ttir clean-up. Tensor descriptors
        are rewritten to pointer arithmetic: the compiler recovers block
        structure from addresses, the way it does for block pointers."""
        pm = ir.pass_manager(mod.context)
        pm.enable_debug()
        passes.common.add_inliner(pm)
        passes.ttir.add_rewrite_tensor_descriptor_to_pointer(pm)
        passes.common.add_canonicalizer(pm)
        passes.ttir.add_combine(pm)
        passes.ttir.add_reorder_broadcast(pm)
        passes.common.add_cse(pm)
        passes.common.add_symbol_dce(pm)
        passes.ttir.add_loop_unroll(pm)
        passes.ttir.add_triton_licm(pm)
        pm.run(mod, "make_ttir")
        return mod

    @staticmethod
    def _make_source(mod, metadata, options: MTIAOptions, stage: str) -> str:
        """ttir text -> the kernel's source for `options.codegen` (C++ or
        LLVM IR), by `triton-mtia-compile`; an edited file of the same name
        in settings.override_dir replaces it."""
        name = mod.get_entry_func_name()
        metadata["name"] = name
        compiler = settings.require_compiler()
        ext = SOURCE_EXT[options.codegen]
        flags = _compiler_flags(options)
        if options.codegen == "llvm":
            flags.append("--emit-llvm")
            stack_limit = _stack_limit()
            if stack_limit:
                flags.append(f"--stack-limit={stack_limit}")
        # str() prints the custom form with locations, which the compiler
        # needs to point its diagnostics at the kernel's Python source.
        # On the C++ path the same lowering also writes the kernel as LLVM IR
        # (asm['llir'], read by tools and tests that look for what LLVM
        # sees, e.g. llvm.assume); the llir stage after the binary hands it
        # on (add_stages).
        side = {"ll": b""} if ext == "cpp" else None
        remarks: list = []

        def command(src, out):
            also = [f"--llvm-ir-out={Path(out).with_suffix('.ll')}"] if side is not None else []
            report = f"--resource-report={Path(out).with_suffix('.resources.json')}"
            return [compiler, src, "-o", out, *flags, *also, report]

        source = run_tool(stage, name, str(mod), "ttir", ext, command, remarks, served=True, side_outputs=side,
                          failure_report="resources.json")
        if side is not None:
            metadata[_LLIR_KEY] = side["ll"].decode()
        # An edited kernel replaces what the compiler made (settings.override_dir).
        override = Path(settings.override_dir, f"{name}.{ext}") if settings.override_dir else None
        if override is not None and override.is_file():
            what = "C++" if ext == "cpp" else "LLVM IR"
            print(f"[triton-mtia] kernel {name}: building the edited {what} {override}", file=sys.stderr)
            source = override.read_bytes()
            metadata[f"{stage}_override"] = str(override)
        # The entry point's symbol, as the code generator chose it
        # (MTIAToCpp.cpp, MTIAToLLVM.cpp: a prefix keeps kernels named `exp`
        # or `main` off libc's names).
        pattern = rb'^extern "C" void (\w+)\(Ctx \*ctx' if ext == "cpp" else rb'^define void @(\w+)\(ptr'
        entry = re.search(pattern, source, re.MULTILINE)
        if entry is None:
            raise CompilationError(f"MTIA backend: the {stage} generated for kernel {name} has no entry point")
        metadata["entry"] = entry.group(1).decode()
        if options.dma_report:
            # Loads and stores that did not become DMAs, with source lines.
            metadata["dma_report"] = [line for line in remarks if ": remark: " in line]
            for line in remarks:
                print(f"[triton-mtia] {line}", file=sys.stderr)
        return source.decode()

    @staticmethod
    def make_cpp(mod, metadata, options: MTIAOptions) -> str:
        """ttir text -> C++ for one kernel (codegen="cpp")."""
        return MTIABackend._make_source(mod, metadata, options, "cpp")

    @staticmethod
    def make_llir(mod, metadata, options: MTIAOptions) -> str:
        """ttir text -> LLVM IR for one kernel (codegen="llvm")."""
        return MTIABackend._make_source(mod, metadata, options, "llir")

    @staticmethod
    def make_so(src: str, metadata, options: MTIAOptions) -> bytes:
        """C++ or LLVM IR -> a shared object exporting ENTRY and ENTRY_info
        (metadata "entry"); the same source built the same way is built
        once (object_cache.py)."""
        include = settings.require_include_dir()
        llvm = options.codegen == "llvm"

        def build(codegen: List[str]) -> bytes:
            linked = [*codegen, "-shared", *settings.link_flags]
            toolchain, inputs = linked, []
            if llvm:
                # device.h's scalar semantics under C names, built once.
                inputs = ["-x", "none", object_cache.support_object(codegen, include)]
            else:
                pch = object_cache.precompiled_prelude(codegen, include)
                if pch:
                    toolchain = [*linked, "-include-pch", pch]
            ext = SOURCE_EXT[options.codegen]
            # The PCH only parses the same headers faster: an object is keyed
            # by the command without it (the PCH's file name changes with the
            # headers' times, the object's code does not).
            return object_cache.get_or_build(
                src, [*linked, ext], include,
                lambda: run_tool("so", metadata["name"], src, ext, "so",
                                 lambda source, so: [*toolchain, f"-I{include}", *(["-x", "ir"] if llvm else []),
                                                     source, *inputs, "-o", so]))

        codegen = [settings.cxx, *settings.cxx_flags, "-fPIC"]
        try:
            binary = build(codegen)
        except CompilationError as error:
            # A frame too large for the kernel's fiber (settings.cxx_flags):
            # built again with the flags that share stack slots.
            if "-Wframe-larger-than" not in str(error) or not settings.cxx_large_frame_flags:
                raise
            binary = build([*codegen, *settings.cxx_large_frame_flags])
        # Triton checks metadata.shared against the device limit. Local memory
        # is per CB and checked by the runtime against the kernel's KernelInfo,
        # so nothing is charged here.
        metadata["shared"] = 0
        return binary

    def add_stages(self, stages, options, language):
        if language != Language.TRITON:
            raise NotImplementedError("the MTIA backend compiles Triton kernels only (not Gluon)")
        stages["ttir"] = lambda src, metadata: self.make_ttir(src, metadata, options)
        if options.codegen == "llvm":
            stages["llir"] = lambda src, metadata: self.make_llir(src, metadata, options)
        else:
            stages["cpp"] = lambda src, metadata: self.make_cpp(src, metadata, options)
        stages["so"] = lambda src, metadata: self.make_so(src, metadata, options)
        if options.codegen != "llvm":
            # asm['llir'] on the C++ path: the LLVM IR the cpp stage's
            # lowering wrote too (after the binary, which is built from the C++).
            stages["llir"] = lambda src, metadata: metadata.pop(_LLIR_KEY, "")
        if knobs.runtime.add_stages_inspection_hook is not None:
            knobs.runtime.add_stages_inspection_hook(self, stages, options, language, None)
