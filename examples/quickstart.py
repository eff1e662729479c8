"""The smallest complete use of triton-mtia: one ordinary Triton kernel on the
simulated MTIA-2i, with its statistics, trace and generated C++.

    python examples/quickstart.py
"""

import torch
import triton
import triton.language as tl

import triton_mtia


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, scale, shift, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * scale + shift, mask=mask)


def main():
    # torch.device("mtia") is the simulated chip, and Triton's driver is ours
    # (on a machine with a GPU too, after triton_mtia.activate()).
    n = 10_000
    x = torch.randn(n, device="mtia")
    out = torch.empty_like(x)
    with triton_mtia.trace("quickstart.trace.json"):
        compiled = scale_shift_kernel[(triton.cdiv(n, 512), )](x, out, n, 2.0, 1.0, BLOCK=512)
    torch.testing.assert_close(out.cpu(), x.cpu() * 2.0 + 1.0)

    stats = triton_mtia.last_launch()
    print(f"{stats.kernel}: {stats.cycles} cycles = {stats.microseconds:.2f} us on {stats.pes_used} PEs")
    print("utilisation:", {unit: f"{u:.1%}" for unit, u in stats.utilization().items()})
    print("trace: quickstart.trace.json (open in https://ui.perfetto.dev)")
    print("generated C++:\n" + compiled.asm["cpp"])


if __name__ == "__main__":
    main()
