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
  Progress(std::string label, std::uint64_t total_bytes);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(std::uint64_t bytes);
  void set_label(std::string label);  // e.g. the tensor being worked on
  void finish();
  bool active() const { return active_; }

 private:
  void draw(bool force);

  bool active_;
  std::string label_;
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
