"""torch.compile onto the simulated MTIA-2i: a model on PyTorch's `mtia`
device, whose Triton kernels TorchInductor writes, unmodified, and the chip
runs.

    python examples/torch_compile.py [--max-autotune]

Without --max-autotune the matmuls stay ATen calls, which the device runs
as the kernel library's GEMM on the chip (triton_mtia/aten/), beside the
fused normalisation and activation kernels; with it, the matmuls are
Inductor's Triton templates, autotuned by simulated time.
"""

import argparse

import torch
import torch._inductor.config as inductor_config

import triton_mtia


class Block(torch.nn.Module):
    """A transformer MLP block: x + W2 gelu(W1 layer_norm(x))."""

    def __init__(self, dim=64, hidden=128):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.up = torch.nn.Linear(dim, hidden)
        self.down = torch.nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-autotune", action="store_true", help="matmuls as Triton templates too")
    args = parser.parse_args()

    if args.max_autotune:
        inductor_config.max_autotune = True
        inductor_config.max_autotune_gemm_backends = "TRITON"

    torch.manual_seed(0)
    block = Block().eval()
    x = torch.randn(32, 64)
    with torch.no_grad():
        expected = block(x)  # eager, on the CPU
        compiled = torch.compile(block.to("mtia"))
        compiled(x.to("mtia"))  # compile (and autotune)
        triton_mtia.device.reset_host_fallbacks()
        with triton_mtia.trace() as recording:
            out = compiled(x.to("mtia"))
        torch.testing.assert_close(out.cpu(), expected, rtol=1e-4, atol=1e-4)

    print(f"matches eager PyTorch; output on {out.device}; kernels that ran on the simulated MTIA-2i:")
    for launch in recording.launches:
        print(f"  {launch.kernel:48s} {launch.cycles:8,d} cycles on {launch.pes_used} PEs")
    print(f"  total {sum(l.cycles for l in recording.launches):,d} cycles")
    host = triton_mtia.device.host_fallbacks()
    print("eager operators run on the host:", ", ".join(f"{op} x{n}" for op, n in sorted(host.items())) or "none")


if __name__ == "__main__":
    main()
