// A progress bar on stderr for long work: bytes done / total, rate and ETA. It draws
// only when stderr is a terminal and -q was not given; otherwise every call is a no-op.
// add() may be called from any thread; drawing is throttled to a few times a second.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace onnxq::cli {

// Set once by main from -q; Progress objects made later honour it.
void set_progress_enabled(bool enabled);

class Progress {
 public:
  // What is counted: bytes ("1.2 MiB / 3.4 GiB  56 MiB/s") or whole items ("12 / 57 cases  8.1/s").
  enum class Unit { Bytes, Items };
  Progress(std::string label, std::uint64_t total, Unit unit = Unit::Bytes, std::string item_name = "");
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(std::uint64_t bytes);
  void set_label(std::string label);  // e.g. the tensor being worked on
  void finish();
  // Erases the bar so a line can be printed to the terminal; the next add() draws it again.
  void clear_line();
  bool active() const { return active_; }

 private:
  void draw(bool force);

  bool active_;
  std::string label_;
  Unit unit_;
  std::string item_name_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  std::mutex mutex_;
  bool finished_ = false;
};

// "1.5 GiB", "312 KiB", "17 B".
std::string human_bytes(double bytes);

}  // namespace onnxq::cli
