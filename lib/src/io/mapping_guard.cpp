#include "onnxq/io/mapping_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/changed_size.hpp"
#include "io/mapping_registry.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

// Fixed storage, read by the signal handler without locks. Past this many mappings at once, a
// mapping is unguarded: a fault in it ends the process with SIGBUS, as without the guard.
constexpr std::size_t kSlots = 1024;

struct Slot {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};  // 0: a free slot
  std::atomic<bool> changed{false};
};
std::array<Slot, kSlots> g_slots;
std::atomic<unsigned> g_live_changes{0};  // slots now listed with changed set
std::atomic<bool> g_ever_changed{false};  // any slot ever changed: most runs never scan the slots
std::uintptr_t g_page_size = 4096;
struct sigaction g_previous {};

// What only normal code touches (under the mutex). Never destroyed: MappedFiles may outlive
// static destruction. Its lists grow with the slots used, so a start-up touches no more memory
// than it maps files.
struct Registry {
  std::mutex mutex;
  std::vector<std::string> paths;  // by slot
  std::vector<std::size_t> sizes;
  std::string first_change;  // the first change's message, kept for the front end
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// For an address inside a listed mapping: zero pages over the rest of it (the read goes on, and
// the reader's next check throws). Anything else goes to the handler installed before.
extern "C" void on_sigbus(int sig, siginfo_t* info, void* context) {
  if (info && info->si_code > 0) {  // raised by the kernel for an access, not sent with kill()
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (Slot& slot : g_slots) {
      const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
      const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
      if (end == 0 || addr < begin || addr >= end) continue;
      const std::uintptr_t page = addr & ~(g_page_size - 1);
      if (::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1,
                 0) == MAP_FAILED)
        break;
      if (!slot.changed.exchange(true)) g_live_changes.fetch_add(1);
      g_ever_changed.store(true);
      return;
    }
  }
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler == SIG_DFL || g_previous.sa_handler == SIG_IGN) {
    // The default action, as without the guard: an access faults again on return; a sent
    // SIGBUS is raised again and delivered once this handler returns.
    ::signal(sig, SIG_DFL);
    if (!info || info->si_code <= 0) ::raise(sig);
    return;
  }
  g_previous.sa_handler(sig);
}

}  // namespace

namespace detail {

std::string changed_size_message(const std::string& path, std::uint64_t size_then) {
  std::string text =
      path + " changed size while it was being read (" + std::to_string(size_then) + " bytes when opened";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) text += ", " + std::to_string(st.st_size) + " now";
  return text + ")";
}

int register_mapping(const void* begin, std::size_t size, const std::string& path) {
  if (size == 0) return -1;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.end.load() != 0) continue;
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    const std::uintptr_t pages = (size + g_page_size - 1) & ~(g_page_size - 1);
    if (r.paths.size() <= i) {
      r.paths.resize(i + 1);
      r.sizes.resize(i + 1);
    }
    r.paths[i] = path;
    r.sizes[i] = size;
    slot.changed.store(false);
    slot.begin.store(b, std::memory_order_release);
    slot.end.store(b + pages, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_mapping(int index) {
  if (index < 0) return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  Slot& slot = g_slots[static_cast<std::size_t>(index)];
  slot.end.store(0, std::memory_order_release);
  slot.begin.store(0, std::memory_order_release);
  if (slot.changed.exchange(false)) {
    g_live_changes.fetch_sub(1);
    if (r.first_change.empty()) r.first_change = detail::changed_size_message(r.paths[index], r.sizes[index]);
  }
  r.paths[index].clear();
}

}  // namespace detail

void install_mapping_fault_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous);
  });
}

std::optional<std::string> mapped_file_change() {
  if (!g_ever_changed.load()) return std::nullopt;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < kSlots; ++i)
    if (g_slots[i].end.load() != 0 && g_slots[i].changed.load())
      return detail::changed_size_message(r.paths[i], r.sizes[i]);
  if (!r.first_change.empty()) return r.first_change;
  return std::nullopt;
}

void throw_if_mapped_file_changed() {
  if (g_live_changes.load(std::memory_order_relaxed) == 0) return;
  Registry& r = registry();
  std::string message;
  {
    std::lock_guard lock(r.mutex);
    for (std::size_t i = 0; i < kSlots && message.empty(); ++i)
      if (g_slots[i].end.load() != 0 && g_slots[i].changed.load())
        message = detail::changed_size_message(r.paths[i], r.sizes[i]);
    if (!message.empty() && r.first_change.empty()) r.first_change = message;
  }
  if (!message.empty()) fail(ErrorKind::Io, message);
}

}  // namespace onnxq
