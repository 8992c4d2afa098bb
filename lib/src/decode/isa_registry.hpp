// The one list of SIMD paths. Each row names a path, says whether this CPU (and this build) runs
// it and adds its kernels; the ISA choice (isa.cpp), the dispatch tables (dispatch.cpp) and the
// Unpack sets all read these rows. Adding an ISA is one row in isa_registry.cpp, plus its folder
// under lib/src/simd/ and its flags in lib/CMakeLists.txt.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "decode/cpu_features.hpp"
#include "formats/format_rows.hpp"
#include "simd/kernel_table.hpp"
#include "simd/quantize_kernels.hpp"
#include "simd/unpack_kernels.hpp"

namespace onnxq::decode {

// The kernels of one path, indexed by BlockFormat::index; null entries use the scalar code.
struct PathKernels {
  std::array<const simd::FusedDecoders*, formats::kFormatRows.size()> blocks{};  // null: the scalar reference
  const simd::PlainConverters* plain = nullptr;                                  // null: scalar conversion
  const simd::UnpackKernels* unpack = &simd::portable::unpack_kernels();
  std::array<const simd::QuantizeKernel*, formats::kFormatRows.size()> quantize{};  // null: the scalar reference
  simd::FiniteCheckFn all_finite = nullptr;                                         // null: the scalar loop
};

struct IsaRow {
  Isa isa;
  const char* name;  // the ONNXQ_ISA value
  bool (*runs)(const CpuFeatures&);
  void (*add_kernels)(PathKernels&);  // called only when runs() is true
};

// Slowest first; row k has isa == Isa(k). Rows of ISAs this build lacks are present but never run.
std::span<const IsaRow> isa_rows();
const IsaRow& isa_row(Isa isa);
// Null for a name no row has.
const IsaRow* find_isa_row(std::string_view name);

}  // namespace onnxq::decode
