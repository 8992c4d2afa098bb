// The process-wide choice of SIMD path (onnxq/decode/isa.hpp): made once from CPUID, or forced
// by ONNXQ_ISA or select_isa(). Compiled without ISA flags.
#include "onnxq/decode/isa.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "decode/cpu_features.hpp"
#include "decode/isa_registry.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq::decode {
namespace {

std::vector<std::string> available_names() {
  std::vector<std::string> names;
  for (const IsaRow& row : isa_rows())
    if (row.runs(cpu_features())) names.emplace_back(row.name);
  return names;
}

Isa isa_from_name(const std::string& name) {
  const IsaRow* row = find_isa_row(name);
  return row ? row->isa : Isa::Scalar;
}

// The choice, made once; a bad ONNXQ_ISA is remembered and rethrown on every use so the
// error reaches whichever caller decodes first, as an onnxq::Error.
struct Choice {
  Isa isa = Isa::Scalar;
  bool failed = false;
  ErrorKind kind = ErrorKind::InvalidArgument;
  std::string message;
};

Choice make_choice(std::string_view forced) {
  Choice c;
  try {
    c.isa = isa_from_name(resolve_isa(forced, available_names()));
  } catch (const Error& e) {
    c.failed = true;
    c.kind = e.kind();
    c.message = e.what();
  }
  return c;
}

std::mutex g_mutex;
Choice g_choice;
std::atomic<bool> g_ready{false};

const Choice& choice() {
  if (!g_ready.load(std::memory_order_acquire)) {
    std::lock_guard lock(g_mutex);
    if (!g_ready.load(std::memory_order_relaxed)) {
      const char* env = std::getenv("ONNXQ_ISA");
      g_choice = make_choice(env ? env : "");
      g_ready.store(true, std::memory_order_release);
    }
  }
  return g_choice;
}

}  // namespace

const char* isa_name(Isa isa) { return isa_row(isa).name; }

Isa active_isa() {
  const Choice& c = choice();
  if (c.failed) fail(c.kind, c.message);
  return c.isa;
}

}  // namespace onnxq::decode

namespace onnxq {

std::string resolve_isa(std::string_view forced, std::span<const std::string> available) {
  if (available.empty()) return "scalar";
  if (forced.empty()) return available.back();
  if (!decode::find_isa_row(forced)) {
    std::string known;
    for (const decode::IsaRow& row : decode::isa_rows()) known += (known.empty() ? "" : ", ") + std::string(row.name);
    invalid_argument("ONNXQ_ISA is '" + std::string(forced) + "'; expected one of " + known);
  }
  for (const std::string& name : available)
    if (name == forced) return name;
  std::string have;
  for (const std::string& name : available) have += (have.empty() ? "" : ", ") + name;
  fail(ErrorKind::Unsupported, "ONNXQ_ISA is '" + std::string(forced) + "' but this CPU only runs " + have);
}

const char* active_isa() { return decode::isa_name(decode::active_isa()); }

std::vector<std::string> supported_isas() { return decode::available_names(); }

std::vector<std::string> known_isas() {
  std::vector<std::string> names;
  for (const decode::IsaRow& row : decode::isa_rows()) names.emplace_back(row.name);
  return names;
}

void select_isa(std::string_view name) {
  using namespace decode;
  Choice c;
  if (name.empty()) {
    const char* env = std::getenv("ONNXQ_ISA");
    c = make_choice(env ? env : "");
  } else {
    c = make_choice(name);
    if (c.failed) fail(c.kind, c.message);  // an explicit request fails loudly, state unchanged
  }
  std::lock_guard lock(g_mutex);
  g_choice = c;
  g_ready.store(true, std::memory_order_release);
}

}  // namespace onnxq
