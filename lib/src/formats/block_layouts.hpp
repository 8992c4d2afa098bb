// Byte layouts of the 27 block formats (spec §5-§10). Every field is a byte array,
// so the structs have alignment 1 and no padding; decoders only use them for sizeof
// and offsetof and read the fields byte by byte (blocks are generally unaligned).
#pragma once

#include <cstdint>

namespace onnxq::dequant {

using u8 = std::uint8_t;

// §5: 32-element formats. `d`, `m`, `s` are binary16.
struct BlockQ4_0 { u8 d[2]; u8 qs[16]; };
static_assert(sizeof(BlockQ4_0) == 18);
struct BlockQ4_1 { u8 d[2]; u8 m[2]; u8 qs[16]; };
static_assert(sizeof(BlockQ4_1) == 20);
struct BlockQ5_0 { u8 d[2]; u8 qh[4]; u8 qs[16]; };
static_assert(sizeof(BlockQ5_0) == 22);
struct BlockQ5_1 { u8 d[2]; u8 m[2]; u8 qh[4]; u8 qs[16]; };
static_assert(sizeof(BlockQ5_1) == 24);
struct BlockQ8_0 { u8 d[2]; u8 qs[32]; };
static_assert(sizeof(BlockQ8_0) == 34);
struct BlockQ8_1 { u8 d[2]; u8 s[2]; u8 qs[32]; };
static_assert(sizeof(BlockQ8_1) == 36);

// §6: k-quants, 256 elements.
struct BlockQ2_K { u8 scales[16]; u8 qs[64]; u8 d[2]; u8 dmin[2]; };
static_assert(sizeof(BlockQ2_K) == 84);
struct BlockQ3_K { u8 hmask[32]; u8 qs[64]; u8 scales[12]; u8 d[2]; };
static_assert(sizeof(BlockQ3_K) == 110);
struct BlockQ4_K { u8 d[2]; u8 dmin[2]; u8 scales[12]; u8 qs[128]; };
static_assert(sizeof(BlockQ4_K) == 144);
struct BlockQ5_K { u8 d[2]; u8 dmin[2]; u8 scales[12]; u8 qh[32]; u8 qs[128]; };
static_assert(sizeof(BlockQ5_K) == 176);
struct BlockQ6_K { u8 ql[128]; u8 qh[64]; u8 scales[16]; u8 d[2]; };
static_assert(sizeof(BlockQ6_K) == 210);
struct BlockQ8_K { u8 d[4]; u8 qs[256]; u8 bsums[32]; };  // d is float32
static_assert(sizeof(BlockQ8_K) == 292);

// §7: IQ formats.
struct BlockIq2_XXS { u8 d[2]; u8 qs[64]; };
static_assert(sizeof(BlockIq2_XXS) == 66);
struct BlockIq2_XS { u8 d[2]; u8 qs[64]; u8 scales[8]; };
static_assert(sizeof(BlockIq2_XS) == 74);
struct BlockIq2_S { u8 d[2]; u8 qs[32]; u8 signs[32]; u8 qh[8]; u8 scales[8]; };
static_assert(sizeof(BlockIq2_S) == 82);
struct BlockIq3_XXS { u8 d[2]; u8 qs[64]; u8 sas[32]; };
static_assert(sizeof(BlockIq3_XXS) == 98);
struct BlockIq3_S { u8 d[2]; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4]; };
static_assert(sizeof(BlockIq3_S) == 110);
struct BlockIq1_S { u8 d[2]; u8 qs[32]; u8 qh[16]; };
static_assert(sizeof(BlockIq1_S) == 50);
struct BlockIq1_M { u8 qs[32]; u8 qh[16]; u8 scales[8]; };  // d is spread over the scales' top nibbles
static_assert(sizeof(BlockIq1_M) == 56);
struct BlockIq4_NL { u8 d[2]; u8 qs[16]; };
static_assert(sizeof(BlockIq4_NL) == 18);
struct BlockIq4_XS { u8 d[2]; u8 scales_h[2]; u8 scales_l[4]; u8 qs[128]; };
static_assert(sizeof(BlockIq4_XS) == 136);

// §8: ternary.
struct BlockTq1_0 { u8 qs[48]; u8 qh[4]; u8 d[2]; };
static_assert(sizeof(BlockTq1_0) == 54);
struct BlockTq2_0 { u8 qs[64]; u8 d[2]; };
static_assert(sizeof(BlockTq2_0) == 66);

// §9: FP4.
struct BlockMxfp4 { u8 e; u8 qs[16]; };
static_assert(sizeof(BlockMxfp4) == 17);
struct BlockNvfp4 { u8 d[4]; u8 qs[32]; };
static_assert(sizeof(BlockNvfp4) == 36);

// §10: 1- and 2-bit.
struct BlockQ1_0 { u8 d[2]; u8 qs[16]; };
static_assert(sizeof(BlockQ1_0) == 18);
struct BlockQ2_0 { u8 d[2]; u8 qs[16]; };
static_assert(sizeof(BlockQ2_0) == 18);

}  // namespace onnxq::dequant
