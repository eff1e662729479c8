//===- module.cpp - The `_mtia_sim` Python extension ----------------------===//
//
// Python face of the runtime:
//   Simulator(config: dict | None = None)
//     .config -> dict of every parameter
//     .launch(so_path, kernel_name, grid, args, regions, trace_path=None,
//             pid_mapping="linear") -> dict
//   Simulator.from_file(path, overrides: dict | None = None)
//   presets() -> {"mtia2i": dict, "small": dict}
//   load_config(path, base: dict | None = None) -> dict
//   KernelFault(RuntimeError): kind, pe, unit, cb, command, message, file, line
// Device prints (printTile) are written to sys.stdout.
// The GIL is released while a launch simulates.
//
//===----------------------------------------------------------------------===//

#include "mtia/runtime/simulator.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mtia;

namespace {

/// The KernelFault type object; lives as long as the interpreter.
PyObject *kernelFaultType = nullptr;

py::dict configToDict(const sim::Config &cfg) {
  py::dict d;
  for (const auto &entry : cfg.values())
    std::visit([&](auto v) { d[py::str(entry.first)] = v; }, entry.second);
  return d;
}

/// `base` (default mtia2i) with `overrides` applied; unknown keys raise
/// ValueError naming the key.
sim::Config configFromDict(const py::object &overrides, sim::Config cfg = sim::mtia2iPreset()) {
  if (overrides.is_none())
    return cfg;
  for (auto item : overrides.cast<py::dict>()) {
    const std::string key = py::str(item.first);
    py::handle v = item.second;
    if (py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v))
      cfg.set(key, v.cast<int64_t>());
    else if (py::isinstance<py::float_>(v))
      cfg.set(key, v.cast<double>());
    else
      throw py::type_error("simulator parameter '" + key + "' must be a number");
  }
  return cfg;
}

py::object statsToPython(const sim::StatNode &n) {
  if (!n.isGroup)
    return py::int_(n.value);
  py::dict d;
  for (const sim::StatNode &c : n.children)
    d[py::str(c.name)] = statsToPython(c);
  return std::move(d);
}

std::vector<Arg> parseArgs(const py::list &args) {
  std::vector<Arg> out;
  out.reserve(args.size());
  for (py::handle item : args) {
    auto t = item.cast<py::tuple>();
    if (t.size() != 2)
      throw py::value_error("each kernel argument is a (kind, value) pair");
    const std::string kind = t[0].cast<std::string>();
    Arg a;
    if (kind == "p")
      a.u = t[1].cast<uint64_t>();
    else if (kind == "i")
      a.i = t[1].cast<int64_t>();
    else if (kind == "f")
      a.f = t[1].cast<double>();
    else
      throw py::value_error("kernel argument kind must be 'p', 'i' or 'f', got '" + kind + "'");
    out.push_back(a);
  }
  return out;
}

py::dict launch(rt::Simulator &sim, const std::string &soPath, const std::string &kernel,
                const py::tuple &grid, const py::list &args, const py::list &regions,
                const py::object &tracePath, const std::string &pidMapping) {
  if (grid.size() != 3)
    throw py::value_error("grid must be a tuple of 3 ints");
  std::array<int64_t, 3> g = {grid[0].cast<int64_t>(), grid[1].cast<int64_t>(),
                              grid[2].cast<int64_t>()};
  std::vector<Arg> a = parseArgs(args);
  std::vector<sim::Region> r;
  r.reserve(regions.size());
  for (py::handle item : regions) {
    auto t = item.cast<py::tuple>();
    if (t.size() != 2 && t.size() != 3)
      throw py::value_error("each region is (address, nbytes) or (address, nbytes, 'sram')");
    sim::Region reg{t[0].cast<uint64_t>(), t[1].cast<uint64_t>()};
    if (t.size() == 3) {
      const std::string where = t[2].cast<std::string>();
      if (where != "sram" && where != "lpddr")
        throw py::value_error("a region is placed in 'sram' or 'lpddr', got '" + where + "'");
      reg.sram = where == "sram";
    }
    r.push_back(reg);
  }
  const std::string trace = tracePath.is_none() ? "" : tracePath.cast<std::string>();
  sim::PidMapping mapping = sim::PidMapping::Linear;
  if (!sim::parsePidMapping(pidMapping, mapping))
    throw py::value_error("pid_mapping must be 'linear', 'round_robin', 'zigzag' or 'user', not '" +
                          pidMapping + "'");

  sim::LaunchSummary s;
  try {
    py::gil_scoped_release unlocked;
    s = sim.launch(soPath, kernel, g, std::move(a), std::move(r), trace, mapping);
  } catch (const sim::FaultError &e) {
    // Stopped by Ctrl-C: pythonSignalPending left KeyboardInterrupt (or
    // whatever the SIGINT handler raised) set; raise that.
    if (e.fault().kind == sim::fault_kind::kInterrupted && PyErr_Occurred())
      throw py::error_already_set();
    throw;
  }
  py::dict units;
  for (size_t i = 0; i < s.busy.size(); ++i)
    units[sim::kUnitReportNames[i]] = s.busy[i];
  py::dict out;
  out["cycles"] = s.cycles;
  out["seconds"] = s.seconds;
  out["units"] = units;
  out["pes_used"] = s.pesUsed;
  out["programs"] = s.programs;
  out["stats"] = statsToPython(s.stats);
  out["trace_path"] = trace.empty() ? py::object(py::none()) : py::object(py::str(trace));
  return out;
}

/// Raises KernelFault with every field of the fault as an attribute
/// (absent fields are None).
void raiseKernelFault(const sim::FaultError &e) {
  const sim::Fault &f = e.fault();
  py::object type = py::reinterpret_borrow<py::object>(kernelFaultType);
  py::object exc = type(e.what());
  auto orNone = [](bool present, py::object v) { return present ? v : py::object(py::none()); };
  exc.attr("kind") = f.kind;
  exc.attr("pe") = orNone(f.pe >= 0, py::int_(f.pe));
  exc.attr("unit") = orNone(!f.unit.empty(), py::str(f.unit));
  exc.attr("cb") = orNone(f.cb >= 0, py::int_(f.cb));
  exc.attr("command") = orNone(!f.command.empty(), py::str(f.command));
  exc.attr("message") = f.message;
  exc.attr("file") = orNone(f.line >= 0 && !f.file.empty(), py::str(f.file));
  exc.attr("line") = orNone(f.line >= 0, py::int_(f.line));
  PyErr_SetObject(kernelFaultType, exc.ptr());
}

/// Device prints go to Python's sys.stdout, so pytest's capsys and
/// contextlib.redirect_stdout see them. Launches run without the GIL.
void writeToPythonStdout(const std::string &text) {
  py::gil_scoped_acquire locked;
  try {
    py::module_::import("sys").attr("stdout").attr("write")(text);
  } catch (py::error_already_set &) {
    // A closed or broken stdout must not take the launch down.
  }
}

/// Ctrl-C during a launch: the launch runs without the GIL, so Python's
/// SIGINT handler has only set a flag. Running the handlers here raises
/// KeyboardInterrupt in this thread, which `launch` re-raises once the chip
/// has stopped. Only the main thread runs them (elsewhere this is false).
bool pythonSignalPending() {
  py::gil_scoped_acquire locked;
  return PyErr_CheckSignals() != 0;
}

} // namespace

PYBIND11_MODULE(_mtia_sim, m) {
  m.doc() = "Cycle-approximate, functionally exact simulator of an MTIA-2i-class chip";

  kernelFaultType = PyErr_NewExceptionWithDoc(
      "_mtia_sim.KernelFault",
      "A fault of the simulated chip (out-of-bounds DMA, local-memory overflow, CB misuse, "
      "deadlock, a device assert, ...). Attributes: kind, pe, unit, cb, command, message, "
      "file and line (the source location of a device assert; None otherwise).",
      PyExc_RuntimeError, nullptr);
  m.attr("KernelFault") = py::handle(kernelFaultType);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const sim::FaultError &e) {
      raiseKernelFault(e);
    }
  });

  py::class_<rt::Simulator>(m, "Simulator")
      .def(py::init([](const py::object &config) {
             auto sim = std::make_unique<rt::Simulator>(configFromDict(config));
             sim->setPrintSink(writeToPythonStdout);
             sim->setInterruptCheck(pythonSignalPending);
             return sim;
           }),
           py::arg("config") = py::none(),
           "A simulated chip: mtia2i defaults with `config` overrides applied.")
      .def_static(
          "from_file",
          [](const std::string &path, const py::object &overrides) {
            sim::Config cfg = configFromDict(
                overrides, sim::loadConfigFile(path, sim::mtia2iPreset()));
            auto sim = std::make_unique<rt::Simulator>(cfg);
            sim->setPrintSink(writeToPythonStdout);
            sim->setInterruptCheck(pythonSignalPending);
            return sim;
          },
          py::arg("path"), py::arg("overrides") = py::none(),
          "A simulated chip: mtia2i defaults, then the JSON config file `path` "
          "({\"name\": number, ...}), then `overrides`. Unknown keys raise ValueError naming them.")
      .def_property_readonly(
          "config", [](const rt::Simulator &s) { return configToDict(s.config()); },
          "Every parameter of the chip, by name.")
      .def("launch", &launch, py::arg("so_path"), py::arg("kernel_name"), py::arg("grid"),
           py::arg("args"), py::arg("regions"), py::arg("trace_path") = py::none(),
           py::arg("pid_mapping") = "linear",
           "Runs kernel `kernel_name` of `so_path` over `grid`. args: [(kind, value)] with "
           "kind 'p' (address), 'i' (int) or 'f' (float); regions: [(address, nbytes)] of "
           "every tensor, optionally (address, nbytes, 'sram') to place it in SRAM scratch. Returns cycles, seconds, units, pes_used, programs, stats, "
           "trace_path; raises KernelFault.");

  m.def(
      "presets",
      [] {
        py::dict d;
        d["mtia2i"] = configToDict(sim::mtia2iPreset());
        d["small"] = configToDict(sim::smallPreset());
        return d;
      },
      "Named chip configurations.");
  m.def(
      "load_config",
      [](const std::string &path, const py::object &base) {
        return configToDict(sim::loadConfigFile(path, configFromDict(base)));
      },
      py::arg("path"), py::arg("base") = py::none(),
      "Every parameter: `base` (a dict over mtia2i; default mtia2i) with the JSON config "
      "file `path` applied. Raises ValueError naming an unknown key.");
  m.def(
      "parameter_sources",
      [] {
        py::dict d;
        for (const auto &entry : sim::Config().values())
          d[py::str(entry.first)] = sim::Config::source(entry.first);
        return d;
      },
      "Where each parameter's default comes from.");
}
