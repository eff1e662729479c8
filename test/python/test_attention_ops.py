"""`F.scaled_dot_product_attention` on mtia: the device's choice of backend
(runtime/torch/attention.cpp) and the fused kernels it picks
(aten/attention.py, kernels/sdpa.py), eager and compiled, forward and
backward, against PyTorch's math path on the CPU."""

import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from triton_mtia import device, runtime

pytestmark = pytest.mark.skipif(not device.loaded(), reason="needs torch.device('mtia')")

OVERRIDEABLE, MATH = SDPBackend.OVERRIDEABLE.value, SDPBackend.MATH.value


def _randn(gen, *shape, dtype=torch.float32):
    return torch.randn(*shape, generator=gen).to(dtype)


def test_the_fused_kernel_is_chosen_where_it_computes_the_math_path():
    g = torch.Generator().manual_seed(0)
    q, k, v = (_randn(g, 2, 4, 8, 16).to("mtia") for _ in range(3))
    assert torch._fused_sdp_choice(q, k, v) == OVERRIDEABLE
    assert torch._fused_sdp_choice(q, k, v, is_causal=True, dropout_p=0.1) == OVERRIDEABLE
    assert torch._fused_sdp_choice(q[0], k[0], v[0], attn_mask=torch.ones(8, 8, dtype=torch.bool)
                                   .to("mtia")) == OVERRIDEABLE
    # the math path: float64; heads wider than a PE keeps; grouped heads not asked for
    assert torch._fused_sdp_choice(q.double(), k.double(), v.double()) == MATH
    wide = _randn(g, 1, 1, 4, 512).to("mtia")
    assert torch._fused_sdp_choice(wide, wide, wide) == MATH
    assert torch._fused_sdp_choice(q, k[:, :2], v[:, :2]) == MATH
    assert torch._fused_sdp_choice(q, k[:, :2], v[:, :2], enable_gqa=True) == OVERRIDEABLE
    # and the user's choice of backends
    with sdpa_kernel([SDPBackend.MATH]):
        assert torch._fused_sdp_choice(q, k, v) == MATH


def _math_reference(q, k, v, mask, causal, scale, gqa):
    """PyTorch's math path on the CPU (the composite every device without
    a fused kernel runs), in float64; a boolean mask made additive first,
    as scaled_dot_product_attention does before it calls either."""
    if mask is not None and mask.dtype == torch.bool:
        mask = torch.zeros(mask.shape, dtype=torch.float64).masked_fill(~mask, float("-inf"))
    return torch.ops.aten._scaled_dot_product_attention_math(
        q.double(), k.double(), v.double(), None if mask is None else mask.double(), 0.0, causal, scale=scale,
        enable_gqa=gqa)[0]


CASES = {
    # name: (q shape, k shape, v shape, mask shape or "bool", causal, gqa, [B, L, H, D] memory)
    "plain": ((2, 2, 16, 16), (2, 2, 16, 16), (2, 2, 16, 16), None, False, False, False),
    "causal, more keys than queries": ((1, 2, 9, 24), (1, 2, 20, 24), (1, 2, 20, 40), None, True, False, False),
    "a boolean mask broadcast over heads": ((2, 2, 7, 16), (2, 2, 12, 16), (2, 2, 12, 16), "bool", False, False,
                                            False),
    "an additive mask with its gradient": ((2, 2, 9, 16), (2, 2, 12, 16), (2, 2, 12, 16), (2, 1, 9, 12), False,
                                           False, False),
    "grouped-query": ((1, 4, 17, 16), (1, 2, 17, 16), (1, 2, 17, 16), None, True, True, False),
    "3-D": ((2, 8, 16), (2, 8, 16), (2, 8, 16), None, False, False, False),
    "heads interleaved in memory": ((2, 3, 10, 32), (2, 3, 10, 32), (2, 3, 10, 32), None, True, False, True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_attention_and_its_gradients_run_fused_on_the_chip(case):
    q_shape, k_shape, v_shape, mask_shape, causal, gqa, interleaved = CASES[case]
    g = torch.Generator().manual_seed(1)
    q, k, v = _randn(g, *q_shape), _randn(g, *k_shape), _randn(g, *v_shape)
    mask = None
    if mask_shape == "bool":
        mask = torch.rand(q_shape[0], 1, q_shape[-2], k_shape[-2], generator=g) > 0.3
    elif mask_shape is not None:
        mask = _randn(g, *mask_shape).requires_grad_()
    grad_out = _randn(g, *q_shape[:-1], v_shape[-1])
    scale = 0.3

    def on_mtia(t):
        if interleaved:  # [B, H, L, D] views of [B, L, H, D] memory
            t = t.detach().transpose(1, 2).contiguous().to("mtia").transpose(1, 2)
        else:
            t = t.detach().to("mtia")
        return t.requires_grad_()
    dq, dk, dv = on_mtia(q), on_mtia(k), on_mtia(v)
    dmask = None if mask is None else mask.detach().to("mtia").requires_grad_(mask.requires_grad)
    device.reset_host_fallbacks()
    with runtime.log_launches() as forward:
        out = F.scaled_dot_product_attention(dq, dk, dv, attn_mask=dmask, is_causal=causal, scale=scale,
                                             enable_gqa=gqa)
    with runtime.log_launches() as backward:
        out.backward(grad_out.to("mtia"))
    assert [s.kernel for s in forward][-1] == "_sdpa_forward"
    assert sorted(s.kernel for s in backward if s.kernel.startswith("_sdpa")) == ["_sdpa_backward_dkdv",
                                                                                   "_sdpa_backward_dq"]
    assert device.host_fallbacks() == {}

    cq, ck, cv = (t.double().requires_grad_() for t in (q, k, v))
    cmask = None if mask is None else mask.detach().double().requires_grad_() if mask.requires_grad else mask
    want = _math_reference(cq, ck, cv, cmask, causal, scale, gqa)
    want.backward(grad_out.double())
    close = dict(rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(out.detach().cpu().double(), want.detach(), **close)
    for got, expected in ((dq, cq), (dk, ck), (dv, cv)):
        torch.testing.assert_close(got.grad.cpu().double(), expected.grad, **close)
    if mask is not None and mask.requires_grad:
        torch.testing.assert_close(dmask.grad.cpu().double(), cmask.grad, **close)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_attention_accumulates_in_fp32(dtype):
    g = torch.Generator().manual_seed(2)
    q, k, v = (_randn(g, 1, 2, 40, 32, dtype=dtype) for _ in range(3))
    got = F.scaled_dot_product_attention(q.to("mtia"), k.to("mtia"), v.to("mtia"), is_causal=True)
    assert got.dtype == dtype
    want = _math_reference(q, k, v, None, True, None, False)
    tolerance = {torch.float16: 2e-3, torch.bfloat16: 2e-2}[dtype]
    torch.testing.assert_close(got.cpu().double(), want, rtol=tolerance, atol=tolerance)


def test_a_row_that_sees_no_key_is_zero_as_in_the_math_path():
    g = torch.Generator().manual_seed(3)
    q, k, v = (_randn(g, 1, 1, 4, 16) for _ in range(3))
    mask = torch.ones(4, 4, dtype=torch.bool)
    mask[2] = False
    got = F.scaled_dot_product_attention(q.to("mtia"), k.to("mtia"), v.to("mtia"), attn_mask=mask.to("mtia"))
    want = _math_reference(q, k, v, mask, False, None, False)
    assert torch.equal(got[0, 0, 2].cpu(), torch.zeros(16))
    torch.testing.assert_close(got.cpu().double(), want, rtol=1e-4, atol=1e-4)


def test_dropout_is_repeatable_drops_its_share_and_its_gradient_uses_the_same_mask():
    """With v the identity, the output is the dropped probabilities
    P * keep / (1 - p) themselves: the mask can be read off it, and the
    gradients checked against the math path given that mask."""
    g = torch.Generator().manual_seed(4)
    s, p = 32, 0.25
    q, k = _randn(g, 2, 2, s, 16), _randn(g, 2, 2, s, 16)
    identity = torch.eye(s).expand(2, 2, s, s).contiguous()
    grad_out = _randn(g, 2, 2, s, s)

    def run(seed):
        torch.manual_seed(seed)
        tensors = [t.to("mtia").requires_grad_() for t in (q, k, identity)]
        out = F.scaled_dot_product_attention(*tensors, dropout_p=p)
        out.backward(grad_out.to("mtia"))
        return out.detach().cpu(), [t.grad.cpu() for t in tensors]

    out, grads = run(0)
    again, grads_again = run(0)
    assert torch.equal(out, again) and all(torch.equal(a, b) for a, b in zip(grads, grads_again))
    assert not torch.equal(run(1)[0], out)
    keep = out != 0
    dropped = 1 - keep.double().mean().item()
    n = keep.numel()
    assert abs(dropped - p) < 5 * (p * (1 - p) / n) ** 0.5, dropped

    cq, ck, cv = (t.double().requires_grad_() for t in (q, k, identity))
    want = torch.ops.aten._scaled_dot_product_attention_math(cq, ck, cv, None, p, False, dropout_mask=keep)[0]
    want.backward(grad_out.double())
    torch.testing.assert_close(out.double(), want.detach(), rtol=1e-4, atol=1e-4)
    for got, expected in zip(grads, (cq, ck, cv)):
        torch.testing.assert_close(got.double(), expected.grad, rtol=1e-4, atol=1e-4)


def test_compiled_attention_keeps_the_fused_kernel_as_an_extern_kernel():
    """Dynamo traces the device's choice on fake tensors: the fused
    operator stays in the graph, Inductor calls it (and its backward) as
    an extern kernel, and the chip runs the fused kernels."""
    g = torch.Generator().manual_seed(5)
    q, k, v = (_randn(g, 2, 2, 12, 16) for _ in range(3))
    mask = torch.rand(12, 12, generator=g) > 0.2

    def attention(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.device)).sin()

    torch._dynamo.reset()
    tensors = [t.to("mtia").requires_grad_() for t in (q, k, v)]
    with runtime.log_launches() as launches:
        out = torch.compile(attention)(*tensors)
        out.sum().backward()
    kernels = [s.kernel for s in launches]
    assert "_sdpa_forward" in kernels and "_sdpa_backward_dq" in kernels and "_sdpa_backward_dkdv" in kernels
    cpu = [t.double().requires_grad_() for t in (q, k, v)]
    want = _math_reference(*cpu, mask, False, None, False).sin()
    want.sum().backward()
    torch.testing.assert_close(out.detach().cpu().double(), want.detach(), rtol=1e-4, atol=1e-4)
    for got, expected in zip(tensors, cpu):
        torch.testing.assert_close(got.grad.cpu().double(), expected.grad, rtol=1e-4, atol=1e-4)


def test_attention_written_out_compiles_to_the_fused_kernel():
    """Inductor's attention patterns (fuse_attention) turn q k^T, scale,
    an additive mask, softmax and the product with v into
    scaled_dot_product_attention, whose choice on mtia is the fused kernel:
    attention written out by hand is one launch under torch.compile."""
    g = torch.Generator().manual_seed(6)
    q, k, v = (_randn(g, 2, 4, 32, 16).to("mtia") for _ in range(3))
    mask = _randn(g, 2, 1, 32, 32).to("mtia")

    def plain(q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
        return torch.matmul(s.softmax(dim=-1), v)

    def masked(q, k, v, m):
        s = torch.matmul(q, k.transpose(-2, -1)).div(q.shape[-1] ** 0.5) + m
        return torch.matmul(s.softmax(dim=-1), v)

    for fn, args in ((plain, (q, k, v)), (masked, (q, k, v, mask))):
        torch._dynamo.reset()
        with runtime.log_launches() as launches:
            out = torch.compile(fn)(*args)
        assert [s.kernel for s in launches] == ["_sdpa_forward"]
        torch.testing.assert_close(out.cpu(), fn(*(a.cpu() for a in args)), rtol=1e-4, atol=1e-4)
