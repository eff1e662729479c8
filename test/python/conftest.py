"""Shared fixtures: every test runs with the MTIA driver active (opt-in is
process-wide; the opt-in behaviour itself is tested in a subprocess).
`--mtia-off=NAME` runs the tests with the optimization NAME switched off
(a setting of triton_mtia.settings). `--mtia-off-each=NAME` (repeatable)
runs every test once per NAME, with that one switched off
(test_optimization_switches.py); a test whose kernels need an
optimization says so with `pytest.mark.requires_optimization(NAME)`."""

import gc
import os
import re

import pytest
import torch

import triton_mtia
from triton_mtia import OPTIMIZATIONS


def pytest_addoption(parser):
    parser.addoption("--mtia-off", action="append", default=[], choices=OPTIMIZATIONS,
                     help="switch off an optimization for the whole run")
    parser.addoption("--mtia-off-each", action="append", default=[], choices=OPTIMIZATIONS,
                     help="run every test once per optimization named, with that one switched off")


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_optimization(name): the test's kernels compile only with the "
                            "optimization on; --mtia-off-each leaves it out of that optimization's runs")
    # Before anything compiles: the settings are defaults of launch options.
    for name in config.getoption("--mtia-off"):
        setattr(triton_mtia.settings, name, False)
    if config.getoption("--mtia-off-each"):
        _share_frontend_ir_across_switches(config)


def _share_frontend_ir_across_switches(config):
    """Under --mtia-off-each every kernel is compiled once per switch. The
    optimizations are options of our stages only, so Triton's frontend
    (Python AST to ttir, most of a small kernel's compile time) makes the
    same module each time: keep its text per kernel and options, the
    switches aside, and parse it again for the next compile."""
    import shutil
    import tempfile

    from triton._C.libtriton import ir
    from triton.compiler import compiler

    make_ir = compiler.ASTSource.make_ir
    texts = tempfile.mkdtemp(prefix="mtia-frontend-")
    config.add_cleanup(lambda: shutil.rmtree(texts, ignore_errors=True))
    made = {}

    def shared_make_ir(src, target, options, codegen_fns, module_map, context):
        options_key = sorted((k, repr(v)) for k, v in vars(options).items() if k not in OPTIMIZATIONS)
        key = (src.hash(), repr(options_key))
        if key not in made:
            module = make_ir(src, target, options, codegen_fns, module_map, context)
            made[key] = os.path.join(texts, f"{len(made)}.ttir")
            with open(made[key], "w") as f:
                f.write(str(module))  # with its source locations
            return module
        module = ir.parse_mlir_module(made[key], context)
        module.context = context  # as the frontend leaves it
        return module

    compiler.ASTSource.make_ir = shared_make_ir


def pytest_generate_tests(metafunc):
    names = metafunc.config.getoption("--mtia-off-each")
    if names:
        metafunc.parametrize("optimization_off", names, indirect=True, ids=[f"off={n}" for n in names])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # Under pytest-xdist's --dist loadgroup (scripts/test.sh) a test without
    # a group of its own runs on the worker of its file, so that a file's
    # kernels are compiled once; a test that is a long job by itself (a
    # subprocess run of a suite) names its own group and runs beside them.
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    if config.getoption("--mtia-off-each"):
        kept, left_out = [], []
        for item in items:
            off = item.callspec.params.get("optimization_off") if hasattr(item, "callspec") else None
            needs = {m.args[0] for m in item.iter_markers("requires_optimization")}
            (left_out if off in needs else kept).append(item)
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = kept


@pytest.fixture(scope="session", autouse=True)
def mtia_active():
    triton_mtia.activate()
    yield
    triton_mtia.deactivate()


_SWITCHED_OFF_ID = re.compile(r"[\[-]off=(\w+)[\]-]")
_switch_runs = {}  # --mtia-off-each: switch -> {"passed": n, "failed": n}


def pytest_runtest_logreport(report):
    match = _SWITCHED_OFF_ID.search(report.nodeid)
    if match:
        counts = _switch_runs.setdefault(match.group(1), {"passed": 0, "failed": 0})
        if report.failed:
            counts["failed"] += 1
        elif report.passed and report.when == "call":
            counts["passed"] += 1


def pytest_terminal_summary(terminalreporter, config):
    """Under --mtia-off-each, a line per switch: its run's tests passed and
    failed (test_optimization_switches.py reads them)."""
    for name in config.getoption("--mtia-off-each"):
        counts = _switch_runs.get(name, {"passed": 0, "failed": 0})
        terminalreporter.write_line(f"mtia-off-each {name}: {counts['passed']} passed, {counts['failed']} failed")


@pytest.fixture(autouse=True)
def optimization_off(request):
    """The optimization this run of the test switches off (--mtia-off-each),
    or None."""
    name = getattr(request, "param", None)
    if name is None:
        yield None
        return
    was = getattr(triton_mtia.settings, name)
    setattr(triton_mtia.settings, name, False)
    try:
        yield name
    finally:
        setattr(triton_mtia.settings, name, was)


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)


@pytest.fixture
def on_and_off():
    """Runs `launch(**{switch: True})`, then with the switch False; the
    results (a list of tensors) must be the same bits. Returns the first
    run's results and both runs' LaunchStats."""

    def run(launch, switch):
        on = launch(**{switch: True})
        on_stats = triton_mtia.last_launch()
        off = launch(**{switch: False})
        off_stats = triton_mtia.last_launch()
        for a, b in zip(on, off):
            assert torch.equal(a, b)
        return on, on_stats, off_stats

    return run


@pytest.fixture(scope="module")
def inductor(tmp_path_factory):
    """torch.compile with a fresh Inductor cache for the module: every
    kernel is generated and compiled by this run."""
    cache = str(tmp_path_factory.mktemp("inductor-cache"))
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    yield
    # Free the compiled kernels while a driver can still unload them.
    torch._dynamo.reset()
    gc.collect()
    if old is None:
        os.environ.pop("TORCHINDUCTOR_CACHE_DIR")
    else:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
