"""Operator coverage of torch.compile on the simulated MTIA-2i, over
PyTorch's own OpInfo database (the paper's Table 1 kind of figure).

    python -m triton_mtia.bench.inductor_ops [--json FILE] [--ops add,softmax]
        [--samples 1|all] [--dtype float32[,float16,bfloat16]] [--limit N] [--timeout 180]
        [--max-autotune] [--inductor-config KEY=VALUE] [--setting KEY=VALUE] [--resume] [--list]
    python -m triton_mtia.bench.inductor_ops --compare BEFORE.json AFTER.json

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db`
that supports the dtype on CPU, the first `--samples` sample inputs are
made on the `mtia` device, run through `torch.compile` there (Inductor's
MTIA path, triton_mtia.inductor) and compared with eager PyTorch on the
device, whose operators run the CPU's kernels on the host
(`torch.testing.assert_close`, the dtype's default tolerances, NaN equal
to NaN). A result outside those tolerances still counts as correct when it
is no further from the exact answer than rounding explains: PyTorch's own
accuracy rule for compiled models (`torch._dynamo.utils.same` with a
float64 reference: the compiled result's RMS error against eager PyTorch
on float64 inputs is at most 2x, in float16 and bfloat16 3x, eager's own).
Inductor computes low-precision ops in float32 and rounds once, where the
CPU's eager kernels round at every step, so at float16 the two differ in
the last bits while the compiled one is often the closer; such samples are
counted apart (`within_rounding`). An integer or bool result is judged by
the same rule on its values (`rounding_explains`): computed from floats (a
cast, a comparison), it may be off the float64 run's in no more places
than eager's is; computed from integers alone, only eager's result passes. Each op gets one status:

* ``chip``: every sample matches, and TorchInductor's Triton kernels ran on
  the simulated chip;
* ``host``: every sample matches, but no kernel ran on the chip: Inductor
  left the op to an ATen call, which the device's host fallback ran (or it
  is a view or a no-op);
* ``fail``: a sample errs or mismatches, with the reason (the construct our
  compiler does not support and the kernel source line, the mismatch, or
  the error Inductor raised);
* ``skip``: not a measurement: eager PyTorch rejects the sample, or the op
  is random (two eager runs differ) or returns uninitialized memory, or has
  no sample, or its samples cannot be made on the device (sparse layouts).

Coverage is reported as ``chip + host`` (ops that work under torch.compile
on this backend) and ``chip`` alone, both over ``chip + host + fail``; and,
as the paper's Table 1 counts it, over every op/dtype/sample combination:
success, Triton error (our compiler, Triton's frontend, a kernel fault),
Inductor error, misc (a timeout, or a wrong result, also counted alone).
Progress goes to stderr, the summary to stdout, every op with its reason to
``--json`` (rewritten after every op, with ``"complete": false`` until the
run ends). A report: the exit status is 0 whatever the results.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from . import failures

STATUSES = ("chip", "host", "fail", "skip")

#: Where the compiled ops run.
DEVICE = "mtia"

#: Ops whose results are uninitialized memory: nothing to compare (two eager
#: runs may or may not agree by chance).
UNINITIALIZED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"}


#: What one sample of an op can come to: it ran on the chip, it worked with
#: no kernel on the chip, a kind of failure (failures.CATEGORIES), or skip.
SAMPLE_OUTCOMES = ("chip", "host") + failures.CATEGORIES + ("skip",)


@dataclass
class Result:
    op: str
    status: str
    reason: str = ""
    construct: str = ""
    source: str = ""
    #: Samples compared (that eager PyTorch accepts and that are not random).
    samples: int = 0
    #: Kernel launches on the simulated chip across the op's samples that
    #: matched, each measured by a second call of the compiled function (the
    #: first also compiles and autotunes, whose benchmark runs launch too).
    launches: int = 0
    seconds: float = 0.0
    dtype: str = "float32"
    #: Outcome -> number of samples (SAMPLE_OUTCOMES): the paper's Table 1
    #: counts every op/dtype/sample combination.
    cases: Dict[str, int] = field(default_factory=dict)
    #: DMA commands of the op's launches, and those that were gathers or
    #: scatters by address instead of strided blocks.
    dma_commands: int = 0
    dma_by_address: int = 0
    #: Simulated time of those launches, in microseconds.
    simulated_us: float = 0.0
    #: Samples that matched eager only within rounding against a float64
    #: reference (counted among the successes).
    within_rounding: int = 0


def op_infos(dtype: torch.dtype, names: Optional[Sequence[str]] = None) -> list:
    """OpInfos that take `dtype` on CPU, by full name (name.variant)."""
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except ImportError as exc:  # op_db imports PyTorch's test utilities
        raise SystemExit(f"the OpInfo database needs PyTorch's test dependencies ({exc}); "
                         "pip install expecttest") from exc
    infos = [info for info in op_db if dtype in info.supported_dtypes("cpu")]
    if names:
        by_name = {full_name(info): info for info in infos}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise SystemExit(f"unknown or unsupported for {dtype}: {', '.join(unknown)}")
        infos = [by_name[n] for n in names]
    return infos


def full_name(info) -> str:
    return info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int):
    """Raises _Timeout in the block after `seconds` (the main thread's alarm)."""

    def expire(signum, frame):
        raise _Timeout(f"timed out after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _clone(value: Any, device: Optional[str] = None) -> Any:
    """A deep copy of a sample's tensors, on `device` if given."""
    if isinstance(value, torch.Tensor):
        value = value.detach()
        return value.clone() if device is None else value.to(device, copy=True)
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _clone(v, device) for k, v in value.items()}
    return value


def _compare(actual: Any, expected: Any) -> None:
    torch.testing.assert_close(actual, expected, equal_nan=True, check_device=False)


def _in_float64(value: Any) -> Any:
    """A copy of a sample with its floating tensors in double precision."""
    if isinstance(value, torch.Tensor):
        value = value.detach().clone()
        if value.is_complex():
            return value.to(torch.complex128)
        return value.to(torch.float64) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_in_float64(v) for v in value)
    if isinstance(value, dict):
        return {k: _in_float64(v) for k, v in value.items()}
    return value


def _within_rounding(fn, args, kwargs, actual: Any, expected: Any, small_tensors: bool = False) -> bool:
    """Whether `actual` is as close to the exact answer (eager PyTorch on
    float64 copies of the inputs) as rounding explains, by PyTorch's own
    accuracy rule for compiled models (see the module's docstring).
    `small_tensors`: the rule's larger error multiplier for tensors of at
    most 500 elements (the one its model benchmarks enable where a few
    elements' rounding dominates the error)."""
    from ..aten.per_op import eager_on_the_host
    try:
        with eager_on_the_host():
            exact = fn(*_in_float64(args), **_in_float64(kwargs))
    except Exception:  # the op takes no float64: nothing to judge by
        return False
    return rounding_explains(actual, expected, exact, small_tensors)


def rounding_explains(actual: Any, expected: Any, exact: Any, small_tensors: bool = False) -> bool:
    """The rule of `_within_rounding`, given the float64 results `exact`:
    PyTorch's `same` with `exact` as its fp64 reference. An integer or bool
    result is judged by the same rule on its values as float64 where the
    float64 run made one of its dtype too: computed from floats (a cast, a
    comparison), it is as discrete as rounding makes it, and it passes when
    it is off the float64 one in no more places (RMS) than rounding makes
    eager's; computed from integers alone, eager's is the exact one and
    only the same result passes."""
    from torch._dynamo.utils import same
    from torch.utils._pytree import tree_flatten

    flat = [tree_flatten(v) for v in (actual, expected, exact)]
    if not flat[0][1] == flat[1][1] == flat[2][1]:
        return False  # results of another structure than the reference's
    for a, e, x in zip(flat[0][0], flat[1][0], flat[2][0]):
        if all(isinstance(t, torch.Tensor) and not t.is_floating_point() and not t.is_complex()
               for t in (a, e, x)) and a.dtype == e.dtype == x.dtype:
            a, e, x = (t.cpu().to(torch.float64) for t in (a, e, x))
        try:
            if not same(e, a, fp64_ref=x, tol=1e-3, equal_nan=True, exact_dtype=False,
                        use_larger_multiplier_for_smaller_tensor=small_tensors):
                return False
        except Exception:  # a result of another kind than the reference's
            return False
    return True


@dataclass
class _Sample:
    """What one sample came to (see `_run_sample`)."""
    outcome: str
    within_rounding: bool = False
    #: Of a second call of the compiled function, after compiling and
    #: autotuning (whose benchmark launches the first call includes).
    launches: int = 0
    simulated_us: float = 0.0
    dma_commands: int = 0
    dma_by_address: int = 0


def _steady_state(compiled, args, kwargs, sample: _Sample) -> _Sample:
    """`sample` with the launches, simulated time and DMAs of one more call
    of `compiled`."""
    from .. import runtime
    dma, by_address = runtime.dma_commands_total, runtime.dma_by_address_total
    _, ms, sample.launches = runtime.measure(lambda: compiled(*_clone(args), **_clone(kwargs)))
    sample.simulated_us = ms * 1e3
    sample.dma_commands = runtime.dma_commands_total - dma
    sample.dma_by_address = runtime.dma_by_address_total - by_address
    return sample


def _run_sample(fn, args, kwargs) -> _Sample:
    """One sample, eager and compiled on the device: its outcome ("chip" or
    "host"), whether it matched only within rounding, and what a second
    call costs on the chip; or the exception. The reference is eager on the
    device with its operators on the host (`eager_on_the_host`: the CPU's
    kernels with the device's conventions, e.g. batch norm's saved
    statistics)."""
    from .. import runtime
    from ..aten.per_op import eager_on_the_host

    try:
        with eager_on_the_host():
            expected = fn(*_clone(args), **_clone(kwargs))
            again = fn(*_clone(args), **_clone(kwargs))
    except Exception as exc:  # the sample is not valid for eager PyTorch
        raise _NotASample(f"eager: {failures.first_line(exc)}") from None
    try:
        _compare(again, expected)
    except AssertionError:
        raise _NotASample("random: two eager runs differ") from None
    torch._dynamo.reset()
    launches = runtime.launch_count
    compiled = torch.compile(fn)
    actual = compiled(*_clone(args), **_clone(kwargs))
    outcome = "chip" if runtime.launch_count != launches else "host"
    try:
        _compare(actual, expected)
    except AssertionError as mismatch:
        if _within_rounding(fn, args, kwargs, actual, expected):
            return _steady_state(compiled, args, kwargs, _Sample(outcome, within_rounding=True))
        # Inductor's own semantics may differ from eager's (an empty
        # var_mean's mean is 0, not NaN; a fused softmax rounds otherwise):
        # when Inductor's code for the CPU does not match eager either, the
        # difference is Inductor's, not the chip's.
        torch._dynamo.reset()
        try:
            on_cpu = torch.compile(fn)(*_clone(args, "cpu"), **_clone(kwargs, "cpu"))
            eager_on_cpu = fn(*_clone(args, "cpu"), **_clone(kwargs, "cpu"))
        except Exception:
            raise mismatch from None
        try:
            _compare(on_cpu, eager_on_cpu)
        except AssertionError:
            pass  # Inductor on the CPU differs from eager too
        else:
            raise mismatch from None
        raise failures.InductorDiffersFromEager(f"Inductor differs from eager, on the CPU too: "
                                       f"{failures.first_line(mismatch)}") from None
    return _steady_state(compiled, args, kwargs, _Sample(outcome))


class _NotASample(Exception):
    """A sample that measures nothing (see `skip`)."""


def run_op(info, samples: Optional[int], dtype: torch.dtype, timeout: int) -> Result:
    """Runs the first `samples` samples (all when None) of one OpInfo, eager
    and compiled, each within `timeout` seconds. The op's status is `fail` if any sample failed (the first
    failure is its reason), else `chip` if any ran on the chip."""
    name = full_name(info)
    start = time.perf_counter()
    result = Result(name, "skip", reason="no sample input", dtype=str(dtype).replace("torch.", ""))
    if info.name in UNINITIALIZED:
        result.reason = "uninitialized memory: nothing to compare"
        return result
    cases = collections.Counter()
    first_failure = None
    made = iter(info.sample_inputs(DEVICE, dtype))
    while samples is None or cases.total() - cases["skip"] < samples:
        try:
            sample = next(made)
        except StopIteration:
            break
        except Exception as exc:  # e.g. a sparse layout, which the device does not have
            cases["skip"] += 1
            result.reason = f"samples cannot be made on {DEVICE}: {failures.first_line(exc)}"
            break
        try:
            with _time_limit(timeout):
                measured = _run_sample(info.op, (sample.input, *sample.args), dict(sample.kwargs))
            cases[measured.outcome] += 1
            result.within_rounding += measured.within_rounding
            result.launches += measured.launches
            result.simulated_us += measured.simulated_us
            result.dma_commands += measured.dma_commands
            result.dma_by_address += measured.dma_by_address
        except _NotASample as why:
            cases["skip"] += 1
            result.reason = str(why)
        except _Timeout as exc:
            cases["misc"] += 1
            first_failure = first_failure or {"reason": str(exc), "construct": "timeout", "source": ""}
        except Exception as exc:
            cases[failures.category(exc)] += 1
            if first_failure is None:
                first_failure = failures.explain(exc, "torch/_inductor")
    result.cases = dict(cases)
    result.samples = cases.total() - cases["skip"]
    if first_failure is not None:
        result.status, result.reason = "fail", ""
        for key, value in first_failure.items():
            setattr(result, key, value)
    elif result.samples:
        result.status, result.reason = ("chip" if cases["chip"] else "host"), ""
    result.simulated_us = round(result.simulated_us, 3)
    result.seconds = round(time.perf_counter() - start, 2)
    return result


def run(names: Optional[Sequence[str]] = None, *, samples: Optional[int] = 1, dtype: torch.dtype = torch.float32,
        limit: Optional[int] = None, timeout: int = 180, max_autotune: bool = False,
        config_patches: Optional[Dict[str, Any]] = None, progress="stderr",
        on_result: Optional[Callable[[List[Result]], None]] = None,
        done: Sequence[Result] = ()) -> List[Result]:
    """Runs the ops on the first `samples` samples each (all when None);
    `config_patches` patches torch._inductor.config for the run
    ({"triton.prefer_nd_tiling": True}); leaves Inductor's configuration as
    it found it. `on_result` is called with the results so far after every
    op (a run of hours keeps what it measured if it is stopped); ops in
    `done` (results of an earlier run) are kept, not run again."""
    import logging
    import warnings

    import torch._inductor.config as inductor_config

    infos = op_infos(dtype, names)[:limit]
    earlier = {r.op: r for r in done}
    results = []
    if progress == "stderr":  # the stream at the call, not the one at the import (pytest swaps them)
        progress = sys.stderr
    with contextlib.ExitStack() as restore:
        if max_autotune:
            # Matmuls and convolutions as Triton templates: on the chip too.
            restore.enter_context(inductor_config.patch(max_autotune=True, max_autotune_gemm_backends="TRITON"))
        if config_patches:
            restore.enter_context(inductor_config.patch(config_patches))
        # Dynamo's and Inductor's warnings about the samples (graph breaks,
        # ...) are not this report's subject, and Inductor would log each
        # failure again with the whole kernel source.
        restore.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        for name in ("torch._inductor", "torch._dynamo"):
            logger = logging.getLogger(name)
            restore.callback(logger.setLevel, logger.level)
            logger.setLevel(logging.CRITICAL)
        for i, info in enumerate(infos, 1):
            if full_name(info) in earlier:
                results.append(earlier[full_name(info)])
                continue
            if progress:
                print(f"[{i}/{len(infos)}] {full_name(info)} {str(dtype).replace('torch.', '')} ...", end="",
                      file=progress, flush=True)
            r = run_op(info, samples, dtype, timeout)
            results.append(r)
            if on_result:
                on_result(results)
            if progress:
                print(f" {r.status} {r.samples} samples ({r.seconds:.1f}s)"
                      f"{' ' + r.reason[:100] if r.status == 'fail' else ''}", file=progress, flush=True)
    return results


def coverage(results: Sequence[Result]) -> dict:
    counts = collections.Counter(r.status for r in results)
    measured = counts["chip"] + counts["host"] + counts["fail"]
    dma = sum(r.dma_commands for r in results)
    by_address = sum(r.dma_by_address for r in results)
    return {
        "ops": len(results),
        **{status: counts[status] for status in STATUSES},
        "works_frac": round((counts["chip"] + counts["host"]) / measured, 4) if measured else 0.0,
        "on_chip_frac": round(counts["chip"] / measured, 4) if measured else 0.0,
        # Of the loads and stores the chip ran, the fraction that were
        # strided block DMAs (the rest: gathers and scatters by address).
        "dma_commands": dma,
        "dma_block_frac": round(1 - by_address / dma, 4) if dma else 0.0,
        "ops_with_gathers": sum(1 for r in results if r.dma_by_address),
    }


def table1(results: Sequence[Result]) -> dict:
    """The paper's Table 1 over every op/dtype/sample combination: success
    (on the chip or not), Triton error, Inductor error, misc; wrong results
    (counted as misc by the paper) also on their own."""
    cases = collections.Counter()
    for r in results:
        cases.update(r.cases)
    within_rounding = sum(r.within_rounding for r in results)
    measured = sum(cases[o] for o in SAMPLE_OUTCOMES if o != "skip")
    success = cases["chip"] + cases["host"]
    out = {"cases": measured, "success": success, "on_chip": cases["chip"], "triton_error": cases["triton"],
           "inductor_error": cases["inductor"], "misc": cases["misc"] + cases["wrong"], "wrong": cases["wrong"],
           "skipped": cases["skip"], "within_rounding": within_rounding}
    for key in ("success", "on_chip", "triton_error", "inductor_error", "misc"):
        out[key + "_frac"] = round(out[key] / measured, 4) if measured else 0.0
    return out


def summary(results: Sequence[Result]) -> str:
    lines = []
    failed = [r for r in results if r.status == "fail"]
    if failed:
        width = max(len(r.op) for r in failed)
        lines.append("failures:")
        for r in failed:
            lines.append(f"  {r.op:<{width}}  {r.reason}" + (f"\n  {'':<{width}}    at {r.source}" if r.source else ""))
        constructs = collections.Counter(r.construct or r.reason.split(":")[0] for r in failed)
        lines.append("failures by construct: " + ", ".join(f"{c} x{n}" for c, n in constructs.most_common()))
    c = coverage(results)
    lines.append(f"{c['ops']} ops: {c['chip']} on chip, {c['host']} on host (ATen), {c['fail']} failed, "
                 f"{c['skip']} skipped; works under torch.compile {c['works_frac']:.1%}, "
                 f"runs on the chip {c['on_chip_frac']:.1%}")
    lines.append(f"loads and stores on the chip: {c['dma_commands']} DMA commands, {c['dma_block_frac']:.1%} "
                 f"strided blocks; {c['ops_with_gathers']} ops gather or scatter by address")
    lines.append(table1_line(table1(results), "op/dtype/sample cases:"))
    return "\n".join(lines)


def table1_line(t: dict, what: str) -> str:
    """One line of the Table-1 figures `t` (table1's dict)."""
    return (f"{t['cases']} {what} success {t['success_frac']:.1%} (on the chip {t['on_chip_frac']:.1%}; "
            f"{t['within_rounding']} within rounding), Triton error {t['triton_error_frac']:.1%}, Inductor error "
            f"{t['inductor_error_frac']:.1%}, misc {t['misc_frac']:.1%} ({t['wrong']} wrong results)")


def compare(before: Sequence[Result], after: Sequence[Result]) -> dict:
    """Two runs of the same ops side by side (say without and with an
    Inductor setting): over the ops on the chip in both, the geometric
    mean of the simulated-time ratio after / before, the ops faster and
    slower by more than 1%, and both runs' wall time."""
    import math
    first = {r.op: r for r in before}
    pairs = [(first[r.op], r) for r in after
             if r.op in first and r.status == first[r.op].status == "chip"
             and r.simulated_us > 0 and first[r.op].simulated_us > 0]
    ratios = {b.op: a.simulated_us / b.simulated_us for b, a in pairs}
    return {
        "ops": len(pairs),
        "geomean_after_over_before": round(math.exp(sum(map(math.log, ratios.values())) / len(ratios)), 4)
        if ratios else None,
        "faster": sum(r < 0.99 for r in ratios.values()), "slower": sum(r > 1.01 for r in ratios.values()),
        "wall_seconds_before": round(sum(r.seconds for r in before), 1),
        "wall_seconds_after": round(sum(r.seconds for r in after), 1),
        "ratios": {op: round(r, 4) for op, r in sorted(ratios.items(), key=lambda item: item[1])},
    }


def _results_by_dtype(report: dict) -> Dict[str, List[Result]]:
    """The results of a --json report, per dtype."""
    return {name: [Result(**r) for r in d["results"]] for name, d in report["by_dtype"].items()}


def _results_of(path: str) -> List[Result]:
    with open(path) as f:
        return [r for results in _results_by_dtype(json.load(f)).values() for r in results]


def _literals(items: Sequence[str]) -> Dict[str, Any]:
    """{KEY: value} of command-line KEY=VALUE items, each VALUE a Python literal."""
    import ast
    return {key: ast.literal_eval(value) for key, _, value in (item.partition("=") for item in items)}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write every op with its status and reason to FILE")
    parser.add_argument("--ops", help="comma-separated OpInfo names (name or name.variant; default: all)")
    parser.add_argument("--samples", default="1", help="sample inputs per op, or 'all' (default 1)")
    parser.add_argument("--dtype", default="float32",
                        help="torch dtype names, comma-separated (default float32; the paper: "
                             "float32,float16,bfloat16)")
    parser.add_argument("--limit", type=int, help="only the first N ops")
    parser.add_argument("--timeout", type=int, default=180, help="seconds per sample before it counts as failed")
    parser.add_argument("--max-autotune", action="store_true",
                        help="max-autotune with Triton GEMM templates (matmuls on the chip too)")
    parser.add_argument("--inductor-config", action="append", default=[], metavar="KEY=VALUE",
                        help="patch torch._inductor.config for the run, e.g. triton.prefer_nd_tiling=True "
                             "(a Python literal; repeatable)")
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="set triton_mtia.settings.KEY for the run, e.g. layer_norm_template=False "
                             "(a Python literal; repeatable)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the ops already measured in --json's FILE (same settings), run the rest")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="compare two --json files of the same ops (simulated time, wall time) and exit")
    parser.add_argument("--list", action="store_true", help="list the ops and exit")
    args = parser.parse_args(argv)
    patches = _literals(args.inductor_config)
    if args.compare:
        c = compare(*(_results_of(path) for path in args.compare))
        print(f"{c['ops']} ops on the chip in both: simulated time after / before, geometric mean "
              f"{c['geomean_after_over_before']}; {c['faster']} faster, {c['slower']} slower (by over 1%); "
              f"wall time {c['wall_seconds_before']} s -> {c['wall_seconds_after']} s")
        ranked = list(c["ratios"].items())
        for op, ratio in ranked[:5] + ranked[-5:]:
            print(f"  {ratio:7.3f}  {op}")
        return 0
    dtypes = [getattr(torch, name) for name in args.dtype.split(",")]
    samples = None if args.samples == "all" else int(args.samples)
    names = args.ops.split(",") if args.ops else None
    if args.list:
        for info in op_infos(dtypes[0], names)[:args.limit]:
            print(full_name(info))
        return 0
    import triton_mtia
    triton_mtia.settings.keep_failed_temps = False  # a report: no temporaries left behind
    for key, value in _literals(args.setting).items():
        if not hasattr(triton_mtia.settings, key):
            parser.error(f"--setting: triton_mtia.settings has no {key!r}")
        setattr(triton_mtia.settings, key, value)
    by_dtype: Dict[str, List[Result]] = {}
    if args.resume:
        if not args.json or not os.path.exists(args.json):
            raise SystemExit("--resume needs --json FILE of an earlier run")
        with open(args.json) as f:
            before = json.load(f)
        settings = {"samples": args.samples, "max_autotune": args.max_autotune, "inductor_config": patches,
                    "settings": args.setting}
        # (a file from before --setting existed has no "settings": none were set)
        if {key: before.get(key, [] if key == "settings" else None) for key in settings} != settings:
            raise SystemExit(f"--resume: {args.json} was measured with other settings")
        by_dtype = _results_by_dtype(before)
    earlier = dict(by_dtype)

    def write_json(complete: bool) -> None:
        if not args.json:
            return
        per_dtype = {name: {"coverage": coverage(results), "table1": table1(results),
                            "results": [asdict(r) for r in results]} for name, results in by_dtype.items()}
        everything = [r for results in by_dtype.values() for r in results]
        with open(args.json + ".part", "w") as f:
            json.dump({"torch": torch.__version__, "device": DEVICE, "dtypes": args.dtype, "samples": args.samples,
                       "max_autotune": args.max_autotune, "inductor_config": patches, "settings": args.setting,
                       "complete": complete,
                       "table1": table1(everything), "by_dtype": per_dtype}, f, indent=1)
        os.replace(args.json + ".part", args.json)

    for dtype in dtypes:
        name = str(dtype).replace("torch.", "")

        def so_far(results, name=name):
            by_dtype[name] = list(results)
            write_json(complete=False)

        results = run(names, samples=samples, dtype=dtype, limit=args.limit, timeout=args.timeout,
                      max_autotune=args.max_autotune, config_patches=patches, on_result=so_far,
                      done=earlier.get(name, ()))
        print(f"== {name}\n{summary(results)}")
        by_dtype[name] = results
    if len(dtypes) > 1:
        everything = [r for dtype in dtypes for r in by_dtype[str(dtype).replace("torch.", "")]]
        print("== all dtypes: " + table1_line(table1(everything), "cases:"))
    write_json(complete=True)
    if args.json:
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
