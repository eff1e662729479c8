"""Operator coverage of torch.compile on the simulated MTIA-2i, over
PyTorch's own OpInfo database (the paper's Table 1 kind of figure).

    python -m triton_mtia.bench.inductor_ops [--json FILE] [--ops add,softmax]
        [--samples 1] [--dtype float32] [--limit N] [--timeout 180] [--max-autotune] [--list]

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db`
that supports the dtype on CPU, the first `--samples` sample inputs are
made on the `mtia` device, run through `torch.compile` there (Inductor's
MTIA path, triton_mtia.inductor) and compared with eager PyTorch on copies
of them on the CPU (`torch.testing.assert_close`, the dtype's default
tolerances, NaN equal to NaN). Each op gets one status:

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
  no sample.

Coverage is reported as ``chip + host`` (ops that work under torch.compile
on this backend) and ``chip`` alone, both over ``chip + host + fail``.
Progress goes to stderr, the summary to stdout, every op with its reason to
``--json``. A report: the exit status is 0 whatever the results.
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
from dataclasses import asdict, dataclass
from typing import Any, List, Optional, Sequence

import torch

from . import failures

STATUSES = ("chip", "host", "fail", "skip")

#: Where the compiled ops run.
DEVICE = "mtia"

#: Ops whose results are uninitialized memory: nothing to compare (two eager
#: runs may or may not agree by chance).
UNINITIALIZED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"}


@dataclass
class Result:
    op: str
    status: str
    reason: str = ""
    construct: str = ""
    source: str = ""
    samples: int = 0
    #: Kernel launches on the simulated chip across the op's samples.
    launches: int = 0
    seconds: float = 0.0


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


def run_op(info, samples: int, dtype: torch.dtype, timeout: int) -> Result:
    """Runs the first `samples` samples of one OpInfo, eager and compiled."""
    from .. import runtime

    name = full_name(info)
    start, launches = time.perf_counter(), runtime.launch_count
    if info.name in UNINITIALIZED:
        return Result(name, "skip", reason="uninitialized memory: nothing to compare")
    result = Result(name, "skip", reason="no sample input")
    try:
        with _time_limit(timeout):
            checked = 0
            for sample in info.sample_inputs(DEVICE, dtype):
                if checked == samples:
                    break
                args = (sample.input, *sample.args)
                kwargs = dict(sample.kwargs)
                fn = info.op
                try:
                    expected = fn(*_clone(args, "cpu"), **_clone(kwargs, "cpu"))
                    again = fn(*_clone(args, "cpu"), **_clone(kwargs, "cpu"))
                except Exception as exc:  # the sample is not valid for eager PyTorch
                    result.reason = f"eager: {failures.first_line(exc)}"
                    continue
                try:
                    _compare(again, expected)
                except AssertionError:
                    result.reason = "random: two eager runs differ"
                    break
                torch._dynamo.reset()
                actual = torch.compile(fn)(*_clone(args), **_clone(kwargs))
                _compare(actual, expected)
                checked += 1
            if checked:
                ran = runtime.launch_count - launches
                result = Result(name, "chip" if ran else "host", samples=checked)
    except Exception as exc:
        result = Result(name, "fail", **failures.explain(exc, "torch/_inductor"))
    result.launches = runtime.launch_count - launches
    result.seconds = round(time.perf_counter() - start, 2)
    return result


def run(names: Optional[Sequence[str]] = None, *, samples: int = 1, dtype: torch.dtype = torch.float32,
        limit: Optional[int] = None, timeout: int = 180, max_autotune: bool = False,
        progress=sys.stderr) -> List[Result]:
    """Runs the ops; leaves Inductor's configuration as it found it."""
    import logging
    import warnings

    import torch._inductor.config as inductor_config

    import triton_mtia

    infos = op_infos(dtype, names)[:limit]
    results = []
    with contextlib.ExitStack() as restore:
        if max_autotune:
            # Matmuls and convolutions as Triton templates: on the chip too.
            restore.enter_context(inductor_config.patch(max_autotune=True, max_autotune_gemm_backends="TRITON"))
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
            if progress:
                print(f"[{i}/{len(infos)}] {full_name(info)} ...", end="", file=progress, flush=True)
            r = run_op(info, samples, dtype, timeout)
            results.append(r)
            if progress:
                print(f" {r.status} ({r.seconds:.1f}s){' ' + r.reason[:100] if r.status == 'fail' else ''}",
                      file=progress, flush=True)
    return results


def coverage(results: Sequence[Result]) -> dict:
    counts = collections.Counter(r.status for r in results)
    measured = counts["chip"] + counts["host"] + counts["fail"]
    return {
        "ops": len(results),
        **{status: counts[status] for status in STATUSES},
        "works_frac": round((counts["chip"] + counts["host"]) / measured, 4) if measured else 0.0,
        "on_chip_frac": round(counts["chip"] / measured, 4) if measured else 0.0,
    }


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
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write every op with its status and reason to FILE")
    parser.add_argument("--ops", help="comma-separated OpInfo names (name or name.variant; default: all)")
    parser.add_argument("--samples", type=int, default=1, help="sample inputs per op (default 1)")
    parser.add_argument("--dtype", default="float32", help="a torch dtype name (default float32)")
    parser.add_argument("--limit", type=int, help="only the first N ops")
    parser.add_argument("--timeout", type=int, default=180, help="seconds per op before it counts as failed")
    parser.add_argument("--max-autotune", action="store_true",
                        help="max-autotune with Triton GEMM templates (matmuls on the chip too)")
    parser.add_argument("--list", action="store_true", help="list the ops and exit")
    args = parser.parse_args(argv)
    dtype = getattr(torch, args.dtype)
    names = args.ops.split(",") if args.ops else None
    if args.list:
        for info in op_infos(dtype, names)[:args.limit]:
            print(full_name(info))
        return 0
    import triton_mtia
    triton_mtia.settings.keep_failed_temps = False  # a report: no temporaries left behind
    results = run(names, samples=args.samples, dtype=dtype, limit=args.limit, timeout=args.timeout,
                  max_autotune=args.max_autotune)
    print(summary(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "dtype": args.dtype, "samples": args.samples,
                       "max_autotune": args.max_autotune,
                       "coverage": coverage(results), "results": [asdict(r) for r in results]}, f, indent=1)
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
