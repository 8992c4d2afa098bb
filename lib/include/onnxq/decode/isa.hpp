// Which SIMD path the decoders use. One path is chosen per process, once, from the CPU;
// the environment variable ONNXQ_ISA=scalar|avx2|avx512|avx512vbmi|neon forces one (tests run
// every path on the same inputs and demand identical bits). avx512vbmi is avx512 with VBMI
// byte permutes where they pay (the IQ grid formats, Unpack); neon is AArch64's Advanced SIMD.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq {

// The active path: "scalar", "avx2", "avx512", "avx512vbmi" or "neon". Throws Error(InvalidArgument) when
// ONNXQ_ISA names no path, Error(Unsupported) when it names one this CPU lacks.
const char* active_isa();
// The paths this CPU (and this build) can run, slowest first; always starts with "scalar".
std::vector<std::string> supported_isas();
// Every path this library names, on any CPU (the values ONNXQ_ISA accepts), slowest first.
std::vector<std::string> known_isas();
// Forces a path for the rest of the process (tests, benchmarks). An empty name returns
// to the default choice, re-reading ONNXQ_ISA. Throws like active_isa().
void select_isa(std::string_view name);
// The choice rule itself, for tests: the path `forced` picks (empty = the best one)
// on a CPU that can run `available` (slowest first). Throws like active_isa().
std::string resolve_isa(std::string_view forced, std::span<const std::string> available);

// Decodes whose output has at least this many bytes (and a 64-byte aligned destination)
// use non-temporal stores, which bypass the caches: faster for outputs far larger than the
// caches that are not read back right away. SIZE_MAX turns them off (benchmarks compare).
std::size_t streaming_store_threshold();
void set_streaming_store_threshold(std::size_t bytes);

}  // namespace onnxq
