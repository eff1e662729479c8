"""ATen operators of the mtia device that run as chip kernels
(triton_mtia/aten/): the GEMM family, eager and as Inductor's extern
kernels, against the CPU; what they cannot serve runs on the host, counted."""

import pytest
import torch
import torch.nn.functional as F

import triton_mtia
from triton_mtia import device

pytestmark = pytest.mark.skipif(not device.loaded(), reason="needs torch.device('mtia')")

TOLERANCE = {torch.float32: dict(rtol=1e-4, atol=1e-4), torch.float16: dict(rtol=1e-2, atol=1e-2),
             torch.bfloat16: dict(rtol=2e-2, atol=2e-2)}


def _chip(fn):
    """fn's result, the chip launches it made, and the host fallbacks."""
    device.reset_host_fallbacks()
    launches = triton_mtia.runtime.launch_count
    result = fn()
    return result, triton_mtia.runtime.launch_count - launches, device.host_fallbacks()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_the_gemm_family_runs_on_the_chip(dtype):
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(70, 50, generator=g, dtype=dtype), torch.randn(50, 90, generator=g, dtype=dtype)
    bias = torch.randn(90, generator=g, dtype=dtype)
    x, y = torch.randn(3, 20, 30, generator=g, dtype=dtype), torch.randn(3, 30, 10, generator=g, dtype=dtype)
    m = lambda t: t.to("mtia")  # noqa: E731
    cases = {
        "mm": (lambda: m(a) @ m(b), lambda: a @ b),
        "mm of transposed operands": (lambda: m(b).t() @ m(a).t(), lambda: b.t() @ a.t()),
        "addmm": (lambda: torch.addmm(m(bias), m(a), m(b), beta=0.5, alpha=2.0),
                  lambda: torch.addmm(bias, a, b, beta=0.5, alpha=2.0)),
        "linear": (lambda: F.linear(m(a), m(b).t(), m(bias)), lambda: F.linear(a, b.t(), bias)),
        "bmm": (lambda: torch.bmm(m(x), m(y)), lambda: torch.bmm(x, y)),
        "baddbmm": (lambda: torch.baddbmm(m(y[:, :1, :]), m(x), m(y), alpha=0.5),
                    lambda: torch.baddbmm(y[:, :1, :], x, y, alpha=0.5)),
        "matmul broadcast": (lambda: torch.matmul(m(x), m(y[0])), lambda: torch.matmul(x, y[0])),
    }
    for name, (on_chip, on_cpu) in cases.items():
        result, launches, fallbacks = _chip(on_chip)
        assert result.device.type == "mtia" and result.dtype == dtype, name
        torch.testing.assert_close(result.cpu(), on_cpu(), **TOLERANCE[dtype], msg=name)
        assert launches >= 1 and fallbacks == {}, (name, launches, fallbacks)


def test_int8_mm_wraps_as_pytorch_does():
    g = torch.Generator().manual_seed(1)
    a = torch.randint(-128, 128, (33, 64), generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (64, 17), generator=g, dtype=torch.int8)
    result, launches, fallbacks = _chip(lambda: a.to("mtia") @ b.to("mtia"))
    assert torch.equal(result.cpu(), a @ b) and launches == 1 and fallbacks == {}


def test_out_forms_resize_and_write_in_place():
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(16, 8, generator=g), torch.randn(8, 12, generator=g)
    out = torch.empty(0, device="mtia")
    result, _, fallbacks = _chip(lambda: torch.mm(a.to("mtia"), b.to("mtia"), out=out))
    assert result is out and out.shape == (16, 12) and fallbacks == {}
    torch.testing.assert_close(out.cpu(), a @ b)
    # beta = 0 ignores the input, NaNs included (PyTorch's rule).
    nan = torch.full((16, 12), float("nan"), device="mtia")
    torch.testing.assert_close(torch.addmm(nan, a.to("mtia"), b.to("mtia"), beta=0).cpu(), a @ b)


def test_what_the_chip_cannot_multiply_runs_on_the_host_counted():
    a = torch.randn(8, 8, dtype=torch.float64)
    result, launches, fallbacks = _chip(lambda: a.to("mtia") @ a.to("mtia"))
    torch.testing.assert_close(result.cpu(), a @ a)
    assert result.device.type == "mtia" and launches == 0 and fallbacks == {"aten::mm": 1}
    empty = torch.zeros(4, 0)
    result, _, fallbacks = _chip(lambda: empty.to("mtia") @ empty.t().to("mtia"))
    assert torch.equal(result.cpu(), torch.zeros(4, 4)) and fallbacks == {"aten::mm": 1}


def test_a_compiled_mlp_trains_with_its_gemms_on_the_chip():
    """Inductor leaves the GEMMs to extern kernels (aten::mm.out, addmm.out):
    forward and backward, they run on the chip."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 16))
    twin = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 16))
    twin.load_state_dict(model.state_dict())
    x = torch.randn(24, 32)
    model(x).square().sum().backward()
    twin = twin.to("mtia")
    torch._dynamo.reset()
    device.reset_host_fallbacks()
    out = torch.compile(twin)(x.to("mtia"))
    out.square().sum().backward()
    torch.testing.assert_close(out.cpu(), model(x), rtol=1e-4, atol=1e-4)
    for mine, want in zip(twin.parameters(), model.parameters()):
        torch.testing.assert_close(mine.grad.cpu(), want.grad, rtol=1e-4, atol=1e-4)
    gemms = {"aten::mm", "aten::mm.out", "aten::addmm", "aten::addmm.out"}
    assert not gemms & set(device.host_fallbacks()), device.host_fallbacks()


def test_an_out_form_the_chip_cannot_serve_runs_on_the_host():
    """addmm.out of float64 (Inductor's extern_kernels.addmm with out=): the
    host ran the out= overload without its out (a fuzzer finding)."""
    a = torch.randn(4, 4, dtype=torch.float64)
    out = torch.empty(4, 4, dtype=torch.float64, device="mtia")
    result, launches, fallbacks = _chip(lambda: torch.addmm(a.to("mtia"), a.to("mtia"), a.to("mtia"), out=out))
    assert result is out and launches == 0 and fallbacks == {"aten::addmm.out": 1}
    torch.testing.assert_close(out.cpu(), torch.addmm(a, a, a))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_softmax_over_the_last_dimension_runs_on_the_chip(dtype):
    x = torch.randn(5, 7, 300, generator=torch.Generator().manual_seed(3)).to(dtype)
    result, launches, fallbacks = _chip(lambda: torch.softmax(x.to("mtia"), -1))
    torch.testing.assert_close(result.cpu(), torch.softmax(x, -1), **TOLERANCE[dtype])
    assert result.dtype == dtype and launches == 1 and fallbacks == {}
    # Over another dimension: the host, counted.
    result, launches, fallbacks = _chip(lambda: torch.softmax(x.to("mtia"), 1))
    torch.testing.assert_close(result.cpu(), torch.softmax(x, 1), **TOLERANCE[dtype])
    assert launches == 0 and fallbacks == {"aten::_softmax": 1}


def test_embedding_gathers_rows_on_the_chip():
    g = torch.Generator().manual_seed(4)
    table, indices = torch.randn(50, 24, generator=g), torch.randint(0, 50, (4, 9), generator=g)
    result, launches, fallbacks = _chip(lambda: F.embedding(indices.to("mtia"), table.to("mtia")))
    assert torch.equal(result.cpu(), F.embedding(indices, table)) and launches == 1 and fallbacks == {}


def test_a_gemm_in_a_compiled_model_takes_the_cycles_of_the_gemm_alone():
    """Inductor's extern mm is the device's GEMM: inside a compiled model it
    is the same launch, with the same simulated cycles, as torch.mm alone."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(96, 80, bias=False).to("mtia")
    x = torch.randn(48, 96).to("mtia")
    torch._dynamo.reset()
    compiled = torch.compile(lambda t: torch.relu(layer(t)))
    compiled(x)
    with triton_mtia.trace() as recording:
        compiled(x)
    in_model = [launch.cycles for launch in recording.launches if launch.kernel == "gemm_kernel"]
    with triton_mtia.trace() as recording:
        torch.mm(x, layer.weight.t())
    alone = [launch.cycles for launch in recording.launches]
    assert len(in_model) == 1 and in_model == alone


# Every other operator: a kernel of that operator alone, generated by
# Inductor (triton_mtia/aten/per_op.py).


class _Mlp(torch.nn.Module):

    def __init__(self):
        super().__init__()
        self.fc1, self.norm, self.fc2 = torch.nn.Linear(16, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.norm(F.gelu(self.fc1(x))))


def test_an_eager_training_step_runs_every_operator_on_the_chip():
    """Forward, loss, backward and an SGD step in eager mode: the GEMMs are
    the library's, every other operator (GELU, layer norm and their
    backwards, log-softmax, NLL, the sums, the SGD update) Inductor's
    kernel of it alone; the loss and updated weights are the CPU's. Later
    steps compile nothing and launch the same kernels (the first step's
    launches include what Inductor's autotuning ran while compiling)."""
    from triton_mtia.aten import per_op
    torch.manual_seed(0)
    reference, model = _Mlp(), _Mlp()
    model.load_state_dict(reference.state_dict())
    model = model.to("mtia")
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8, ))

    def step(net, x, y):
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1, foreach=False)
        optimizer.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        optimizer.step()
        return loss

    loss, launches, host = _chip(lambda: step(model, x.to("mtia"), y.to("mtia")))
    assert host == {} and launches >= 15
    want = step(reference, x, y)
    torch.testing.assert_close(loss.cpu(), want, rtol=1e-5, atol=1e-6)
    for mine, theirs in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(mine.detach().cpu(), theirs.detach(), rtol=1e-4, atol=1e-5)
    compiled = per_op.compiled_signatures()
    _, second, host = _chip(lambda: step(model, x.to("mtia"), y.to("mtia")))
    _, third, host_third = _chip(lambda: step(model, x.to("mtia"), y.to("mtia")))
    assert (host, host_third, per_op.compiled_signatures()) == ({}, {}, compiled)
    assert second == third <= launches


def test_in_place_and_out_forms_write_their_argument():
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(5, 7, generator=g), torch.randn(7, generator=g)
    da = a.to("mtia")
    result, launches, host = _chip(lambda: da.mul_(b.to("mtia")))
    assert result is da and launches >= 1 and host == {}
    torch.testing.assert_close(da.cpu(), a * b)
    out = torch.empty(0, device="mtia")
    result, _, host = _chip(lambda: torch.sigmoid(a.to("mtia"), out=out))
    assert result is out and out.shape == a.shape and host == {}
    torch.testing.assert_close(out.cpu(), torch.sigmoid(a))


def test_operators_inductor_does_not_compile_run_on_the_host_counted():
    """Inductor's code for a median along a dimension is a call of the ATen
    operator: the host runs it, counted under its name."""
    g = torch.Generator().manual_seed(2)
    a = torch.randn(6, 9, generator=g)
    (values, indices), _, host = _chip(lambda: torch.median(a.to("mtia"), dim=1))
    assert any(name.startswith("aten::median") for name in host)
    torch.testing.assert_close(values.cpu(), torch.median(a, dim=1).values)


def test_a_call_inductor_fails_to_compile_runs_on_the_host_and_says_why(monkeypatch):
    from triton_mtia.aten import per_op

    def failing(*args, **kwargs):
        raise RuntimeError("no kernel for you")

    monkeypatch.setattr(per_op, "_compile", failing)
    a = torch.randn(3, 11)  # a signature no other test compiles
    result, launches, host = _chip(lambda: torch.atan(a.to("mtia")))
    torch.testing.assert_close(result.cpu(), torch.atan(a))
    # The functional form's composite kernel calls the out= form, whose
    # compile fails too: the host runs that.
    assert launches == 0 and host == {"aten::atan.out": 1}
    assert per_op.per_op_failures()["aten.atan.default(float32[3, 11])"] == "RuntimeError: no kernel for you"


def test_eager_kernels_off_runs_operators_on_the_host(monkeypatch):
    monkeypatch.setattr(triton_mtia.settings, "eager_kernels", False)
    a = torch.randn(4, 4)
    result, launches, host = _chip(lambda: torch.tanh(a.to("mtia")))
    torch.testing.assert_close(result.cpu(), torch.tanh(a))
    assert launches == 0 and host == {"aten::tanh.out": 1}


# Convolutions: implicit GEMMs on the DPE (triton_mtia/aten/conv.py).

_CONVOLUTIONS = {
    "conv2d stride padding": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), (2, 3, 9, 9), (4, 3, 3, 3), 4),
    "conv2d groups dilation": (lambda x, w, b: F.conv2d(x, w, b, padding=2, dilation=2, groups=2), (1, 4, 8, 7),
                               (6, 2, 3, 3), 6),
    "depthwise": (lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4), (2, 4, 6, 6), (4, 1, 3, 3), 4),
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=3), (2, 3, 20), (5, 3, 4), None),
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, padding=1), (1, 2, 5, 6, 4), (3, 2, 3, 3, 3), 3),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         (2, 4, 5, 5), (4, 3, 3, 3), 3),
    "conv_transpose1d groups": (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, groups=2, dilation=2),
                                (1, 4, 7), (4, 3, 3), None),
}


@pytest.mark.parametrize("case", list(_CONVOLUTIONS))
def test_convolutions_and_their_gradients_run_on_the_chip(case):
    fn, x_shape, w_shape, bias = _CONVOLUTIONS[case]
    g = torch.Generator().manual_seed(3)
    inputs = [torch.randn(x_shape, generator=g), torch.randn(w_shape, generator=g)]
    inputs += [torch.randn(bias, generator=g)] if bias else []
    cpu = [t.clone().requires_grad_() for t in inputs]
    chip = [t.to("mtia").requires_grad_() for t in inputs]

    def run(tensors):
        y = fn(*tensors, *([] if bias else [None]))
        weights = torch.linspace(-1, 1, y.numel()).view_as(y).to(y.device)  # every output its own gradient
        (y * weights).sum().backward()
        return y

    want = run(cpu)
    got, launches, host = _chip(lambda: run(chip))
    assert host == {} and launches >= 3  # forward, input and weight gradients at least
    torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-4)
    for mine, theirs in zip(chip, cpu):
        torch.testing.assert_close(mine.grad.cpu(), theirs.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_a_half_precision_convolution_sums_in_fp32(dtype):
    g = torch.Generator().manual_seed(4)
    x, w = torch.randn(2, 8, 6, 6, generator=g), torch.randn(4, 8, 3, 3, generator=g)
    got, launches, host = _chip(lambda: F.conv2d(x.to(dtype).to("mtia"), w.to(dtype).to("mtia"), padding=1))
    assert got.dtype == dtype and launches == 1 and host == {}
    want = F.conv2d(x.to(dtype).float(), w.to(dtype).float(), padding=1)  # exact sums, one rounding
    torch.testing.assert_close(got.cpu().float(), want, **TOLERANCE[dtype])


def test_a_compiled_cnn_runs_its_convolutions_on_the_chip():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 4, 3, stride=2), torch.nn.Flatten(), torch.nn.Linear(36, 2))
    x = torch.randn(2, 3, 8, 8)
    want = model(x)
    torch._dynamo.reset()
    got, launches, host = _chip(lambda: torch.compile(model.to("mtia"))(x.to("mtia")))
    assert host == {}
    torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_runs_on_the_chip_and_updates_its_running_statistics(train):
    torch.manual_seed(5)
    reference = torch.nn.BatchNorm2d(3).train(train)
    reference.running_mean.uniform_(-1, 1)
    reference.running_var.uniform_(0.5, 2)
    norm = torch.nn.BatchNorm2d(3).train(train)
    norm.load_state_dict(reference.state_dict())
    norm = norm.to("mtia")
    x = torch.randn(4, 3, 5, 5)
    cpu, chip = x.clone().requires_grad_(), x.to("mtia").requires_grad_()
    want = reference(cpu)
    want.sum().backward()
    got, launches, host = _chip(lambda: norm(chip))
    got.sum().backward()
    assert host == {} and launches >= 1
    torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(chip.grad.cpu(), cpu.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(norm.running_mean.cpu(), reference.running_mean)
    torch.testing.assert_close(norm.running_var.cpu(), reference.running_var)


@pytest.mark.parametrize("mode,include_last_offset", [("sum", False), ("mean", False), ("sum", True)])
def test_embedding_bags_and_their_gradient_run_on_the_chip(mode, include_last_offset):
    """Bags of 3, 0 (empty), 4 and 5 rows, pooled by the library's kernel;
    the gradient added into the table's rows by Inductor's index_add."""
    from triton_mtia import profiler
    torch.manual_seed(6)
    reference = torch.nn.EmbeddingBag(20, 8, mode=mode, include_last_offset=include_last_offset)
    bag = torch.nn.EmbeddingBag(20, 8, mode=mode, include_last_offset=include_last_offset)
    bag.load_state_dict(reference.state_dict())
    bag = bag.to("mtia")
    indices = torch.randint(0, 20, (12, ))
    offsets = torch.tensor([0, 3, 3, 7] + ([12] if include_last_offset else []))
    want = reference(indices, offsets)
    (want * torch.arange(want.numel()).view_as(want)).sum().backward()
    with profiler.profile() as prof:
        got = bag(indices.to("mtia"), offsets.to("mtia"))
        (got * torch.arange(got.numel()).view_as(got).to("mtia")).sum().backward()
    assert [c.name for c in prof.compute_calls() if c.where != "chip"] == []
    torch.testing.assert_close(got.detach().cpu(), want.detach())
    torch.testing.assert_close(bag.weight.grad.cpu(), reference.weight.grad)


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_an_eager_gpt_training_step_runs_on_the_chip(dropout):
    """test_inductor.py's GPT-2-style step (embeddings, causal attention,
    layer norms, GELU MLP, cross entropy, SGD) in eager mode: every
    computing operator a chip kernel (dropout's random fill is a creation);
    without dropout the CPU's loss and weights."""
    from test_inductor import _a_gpt_step, _judge_gpt_step, _train_step

    from triton_mtia import profiler
    reference, model, before, idx, target = _a_gpt_step(dropout)
    with profiler.profile() as prof:
        loss = _train_step(model, torch.optim.SGD(model.parameters(), lr=0.1), idx.to("mtia"), target.to("mtia"))
    assert [c.name for c in prof.compute_calls() if c.where != "chip"] == []
    assert prof.summary()["by_class"]["gemm"]["chip_calls"] >= 10
    _judge_gpt_step(dropout, loss, reference, model, before, idx, target)


def test_a_grouped_convolutions_weight_gradient_is_one_launch_whatever_the_groups():
    """Every group of the weight gradient is a slice of one grid (a
    depthwise convolution has as many groups as channels)."""
    from triton_mtia import profiler
    launches = {}
    for groups in (1, 8):
        x = torch.randn(2, 8, 6, 6).to("mtia")
        w = torch.randn(8, 8 // groups, 3, 3).to("mtia").requires_grad_()
        y = F.conv2d(x, w, padding=1, groups=groups)
        with profiler.profile() as prof:
            y.backward(torch.ones_like(y))
        [call] = [c for c in prof.compute_calls() if c.name == "aten::convolution_backward"]
        launches[groups] = len(call.launches)
        want = torch.func.grad(lambda w_: F.conv2d(x.cpu(), w_, padding=1, groups=groups).sum())(w.detach().cpu())
        torch.testing.assert_close(w.grad.cpu(), want, rtol=1e-4, atol=1e-4)
    assert launches[1] == launches[8] == 1  # the input needs no gradient: the weights' alone


def test_convolution_gradients_are_contiguous_whatever_the_weights_layout():
    """Inductor checks an extern convolution's results against PyTorch's
    fake convolution, which for a backend it does not know says
    contiguous; a weight that is a transposed view must not leak its
    layout into its gradient (MobileNetV2's compiled step failed so)."""
    g = torch.Generator().manual_seed(7)
    x, go = torch.randn(2, 4, 6, 6, generator=g), torch.randn(2, 8, 6, 6, generator=g)
    w = torch.randn(4, 8, 3, 3, generator=g).transpose(0, 1)  # [8, 4, 3, 3], not contiguous
    grads = torch.ops.aten.convolution_backward(go.to("mtia"), x.to("mtia"), w.to("mtia").transpose(0, 1)
                                                .transpose(0, 1), [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                [True, True, True])
    want = torch.ops.aten.convolution_backward(go, x, w, [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                               [True, True, True])
    for got, expected in zip(grads, want):
        assert got.is_contiguous()
        torch.testing.assert_close(got.cpu(), expected, rtol=1e-4, atol=1e-4)


def test_a_kernel_compiled_while_torch_compile_traces_leaves_its_context_alone():
    """Fuzz seed 16391: while torch.compile compiled a graph, Inductor's
    constant folding ran an eager operator on mtia tensors, whose
    per-operator kernel was compiled inside the outer compile's tracing
    context: it took that context's fake mode, wrote its metadata, and left
    output strides the outer compile then asserted on. Compiled outside any
    context, it leaves the context as it was."""
    from torch._guards import TracingContext, tracing
    from torch._subclasses.fake_tensor import FakeTensorMode
    context = TracingContext(FakeTensorMode())
    x = torch.randn(7, 3).to("mtia")
    with tracing(context):
        y = torch.special.i1(x * 3 + 1)  # signatures no test compiled before
    assert context.fw_metadata is None and context.output_strides is None
    torch.testing.assert_close(y.cpu(), torch.special.i1(x.cpu() * 3 + 1))
