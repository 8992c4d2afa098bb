#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "onnxq/core/value_text.hpp"

namespace onnxq::cli {
namespace {

std::atomic<bool> g_enabled{true};
constexpr auto kRedrawInterval = std::chrono::milliseconds(150);
constexpr int kBarWidth = 24;

std::string human_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 359999) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%02ld:%02ld", s / 60, s % 60);
  return text;
}

}  // namespace

void set_progress_enabled(bool enabled) { g_enabled = enabled; }

std::string human_bytes(double bytes) { return binary_units_text(bytes, 1, 4); }

Progress::Progress(std::string label, std::uint64_t total, Unit unit, std::string item_name)
    : active_(g_enabled && ::isatty(2) == 1),
      label_(std::move(label)),
      unit_(unit),
      item_name_(std::move(item_name)),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - kRedrawInterval) {
  if (active_) draw(true);
}

Progress::~Progress() { finish(); }

void Progress::add(std::uint64_t bytes) {
  done_ += bytes;
  if (active_) draw(false);
}

void Progress::set_label(std::string label) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  label_ = std::move(label);
}

void Progress::finish() {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  std::fputs("\r\033[K", stderr);  // erase the bar: the terminal keeps only real output
  std::fflush(stderr);
}

void Progress::clear_line() {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  if (finished_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  last_draw_ = std::chrono::steady_clock::now() - kRedrawInterval;  // redraw on the next add()
}

void Progress::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;  // another thread is drawing
  if (!force && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  const double done = static_cast<double>(done_.load());
  const double total = static_cast<double>(total_);
  const double fraction = total > 0 ? std::min(1.0, done / total) : 0.0;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? done / seconds : 0.0;
  const double eta = rate > 0 ? (total - done) / rate : -1;
  std::string bar(kBarWidth, ' ');
  for (int i = 0; i < static_cast<int>(fraction * kBarWidth); ++i) bar[i] = '#';
  std::string label = label_.size() > 32 ? "..." + label_.substr(label_.size() - 29) : label_;
  std::string amounts;
  if (unit_ == Unit::Bytes) {
    amounts = human_bytes(done) + " / " + human_bytes(total) + "  " + human_bytes(rate) + "/s";
  } else {
    char text[96];
    std::snprintf(text, sizeof text, "%.0f / %.0f%s%s  %.1f/s", done, total, item_name_.empty() ? "" : " ",
                  item_name_.c_str(), rate);
    amounts = text;
  }
  std::fprintf(stderr, "\r\033[K%s [%s] %3.0f%% %s  ETA %s", label.c_str(), bar.c_str(), fraction * 100,
               amounts.c_str(), human_duration(eta).c_str());
  std::fflush(stderr);
}

}  // namespace onnxq::cli
