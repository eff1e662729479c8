//===- fault.cpp - Fault descriptions -------------------------------------===//

#include "mtia/sim/fault.h"

namespace mtia::sim {

std::string Fault::describe() const {
  std::string s = kind + ": " + message + " [pe " +
                  (pe >= 0 ? std::to_string(pe) : std::string("-")) +
                  ", unit " + (unit.empty() ? std::string("-") : unit) +
                  ", cb " + (cb >= 0 ? std::to_string(cb) : std::string("-")) +
                  ", command " + (command.empty() ? std::string("-") : command) +
                  "]";
  if (line >= 0)
    s += (file.empty() ? " at line " : " at " + file + ":") + std::to_string(line);
  return s;
}

} // namespace mtia::sim
