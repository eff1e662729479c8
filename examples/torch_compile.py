"""torch.compile onto the simulated MTIA-2i: TorchInductor writes the Triton
kernels, unmodified, and they run on the chip.

    python examples/torch_compile.py [--max-autotune]

Without --max-autotune the matmuls stay ATen calls on the host and the
fused normalisation and activation kernels run on the chip; with it, the
matmuls are Inductor's Triton templates too, autotuned by simulated time.
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

    triton_mtia.inductor.enable()
    if args.max_autotune:
        inductor_config.max_autotune = True
        inductor_config.max_autotune_gemm_backends = "TRITON"

    torch.manual_seed(0)
    block = Block().eval()
    x = torch.randn(32, 64)
    with torch.no_grad():
        compiled = torch.compile(block)
        compiled(x)  # compile (and autotune)
        with triton_mtia.trace() as recording:
            out = compiled(x)
        torch.testing.assert_close(out, block(x), rtol=1e-4, atol=1e-4)

    print("matches eager PyTorch; kernels that ran on the simulated MTIA-2i:")
    for launch in recording.launches:
        print(f"  {launch.kernel:48s} {launch.cycles:8,d} cycles on {launch.pes_used} PEs")
    print(f"  total {sum(l.cycles for l in recording.launches):,d} cycles")


if __name__ == "__main__":
    main()
