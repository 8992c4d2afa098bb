// SIMD conversion of plain F32/F16/BF16 values to F32/F16/BF16/F64 (spec §3.1, §3.2, §4):
// each value is exact in float32, so one rounding to the output type. Include after
// simd/kernels_common-inl.hpp.
namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

template <VF (*Load)(const std::uint8_t*), std::size_t SrcBytes, class Out>
void convert(const std::uint8_t* src, std::size_t n, void* dst) {
  if constexpr (Out::kStreaming) {  // non-temporal stores need aligned vectors
    if (reinterpret_cast<std::uintptr_t>(dst) % 64 != 0)
      return convert<Load, SrcBytes, typename Out::Regular>(src, n, dst);
  }
  const Out out(dst);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) out.put(i, Load(src + i * SrcBytes));
  out.finish();
  if (i == n) return;
  // Tail: the same vector code on a zero-padded copy, so every element takes one path.
  alignas(64) std::uint8_t in[16 * SrcBytes] = {};
  alignas(64) std::uint8_t res[16 * Out::kElementBytes];
  std::memcpy(in, src + i * SrcBytes, (n - i) * SrcBytes);
  Out(res).put(0, Load(in));
  std::memcpy(static_cast<std::uint8_t*>(dst) + i * Out::kElementBytes, res, (n - i) * Out::kElementBytes);
}

template <VF (*Load)(const std::uint8_t*), std::size_t SrcBytes, bool Stream>
constexpr void fill(FusedDecodeFn (&slots)[kOutSlots]) {
  slots[kOutF32] = &convert<Load, SrcBytes, OutF32<Stream>>;
  slots[kOutF16] = &convert<Load, SrcBytes, OutF16<Stream>>;
  slots[kOutBF16] = &convert<Load, SrcBytes, OutBF16<Stream>>;
  slots[kOutF64] = &convert<Load, SrcBytes, OutF64<Stream>>;
}

constexpr PlainConverters make_plain() {
  PlainConverters p{};
  fill<load_f32, 4, false>(p.regular[kFromF32]);
  fill<load_f16, 2, false>(p.regular[kFromF16]);
  fill<load_bf16, 2, false>(p.regular[kFromBF16]);
  fill<load_f32, 4, true>(p.streaming[kFromF32]);
  fill<load_f16, 2, true>(p.streaming[kFromF16]);
  fill<load_bf16, 2, true>(p.streaming[kFromBF16]);
  return p;
}

}  // namespace

const PlainConverters& plain_converters() {
  static constexpr PlainConverters kConverters = make_plain();
  return kConverters;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
