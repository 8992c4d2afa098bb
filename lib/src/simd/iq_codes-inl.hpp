// AVX-512 kernels for the five grid IQ formats (iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s):
// magnitudes and signs by register permutes, no row loads. Included by iq-inl.hpp when
// __AVX512BW__ is defined, after its shared helpers; compiled twice, for avx512 and for
// avx512vbmi (byte permutes for the code lookups).
//
// Per 16 elements (a "step") the kernel broadcasts 64 bits of prepared codes, shifts each
// 64-bit lane m by 4m so that element 2m's nibble is at the bottom of lane 2m and element
// 2m + 1's at the bottom of lane 2m + 1, and permutes a 16-lane table of signed, scaled
// magnitudes. A nibble is the element's magnitude code (iq2: bits 0-1, 8 / 25 / 43; iq3:
// bits 0-2, eight values) and its sign (iq2: bit 2; iq3: bit 3), so the table holds
// db * m and -(db * m), the spec's (db * m) * -1.0 as a sign flip (GridCode). A product and
// an xor per scale make the table; per step there is nothing else but the store, which is
// what bounds these kernels.
//
// Per block the preparation turns grid indices into entry codes (permutes of the GridCodes
// tables), spreads the sign bits into the nibbles (byte lookups) and computes the scales. It
// runs one batch of blocks ahead of the steps (run_blocks), and the blocks of a batch share
// the table loads. Batch sizes and the other choices below are the fastest scripts/bench found
// (doc/design.md, "The AVX-512 grid IQ kernels").

inline const GridCodes& grid_codes_set() { return *g_codes; }

// GCC 12 reports its own _mm512_undefined_* placeholders in these kernels as uninitialized
// (GCC bug 105593, the -Wmaybe-uninitialized one lib/CMakeLists.txt silences for all files).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

inline __m512i load_words(const std::uint16_t* p) { return _mm512_load_si512(p); }

// table[idx[n][w]] for N vectors of 32 uint16 indices below 64 * Chunks. Table chunk c (64
// entries, one two-register permute) converts the lanes whose index bits 6 and 7 say c % 4:
// four masked permutes in a row per group of four chunks, each leaving the other lanes'
// indices as they are; then a select tree on index bits 8 and up picks each lane's group.
// The N vectors share each table load.
template <int Chunks, int N>
[[gnu::always_inline]] inline void lookup_words(const std::uint16_t* table, const __m512i (&idx)[N],
                                                __m512i (&out)[N]) {
  static_assert(Chunks % 4 == 0);
  __m512i r[Chunks / 4][N];
  for (int g = 0; g < Chunks / 4; ++g) {
    __m512i lo[4], hi[4];
    for (int c = 0; c < 4; ++c) {
      lo[c] = load_words(table + 64 * (4 * g + c));
      hi[c] = load_words(table + 64 * (4 * g + c) + 32);
    }
    for (int n = 0; n < N; ++n) {
      const __mmask32 b6 = _mm512_test_epi16_mask(idx[n], _mm512_set1_epi16(64));
      const __mmask32 b7 = _mm512_test_epi16_mask(idx[n], _mm512_set1_epi16(128));
      const __mmask32 in_chunk[4] = {_knot_mask32(_kor_mask32(b6, b7)), _kandn_mask32(b7, b6), _kandn_mask32(b6, b7),
                                     _kand_mask32(b6, b7)};
      r[g][n] = idx[n];
      for (int c = 0; c < 4; ++c) r[g][n] = _mm512_mask2_permutex2var_epi16(lo[c], r[g][n], in_chunk[c], hi[c]);
    }
  }
  for (int n = 0; n < N; ++n) {
    for (int groups = Chunks / 4, bit = 256; groups > 1; groups /= 2, bit *= 2) {
      const __mmask32 upper = _mm512_test_epi16_mask(idx[n], _mm512_set1_epi16(static_cast<short>(bit)));
      for (int g = 0; g < groups / 2; ++g) r[g][n] = _mm512_mask_blend_epi16(upper, r[2 * g][n], r[2 * g + 1][n]);
    }
    out[n] = r[0][n];
  }
}

// 32 sign bytes -> 32 words, word e holding byte e's low nibble in its low byte and its high
// nibble in its high byte: indices for 16-entry byte lookups.
inline __m512i nibble_words(__m256i sign_bytes) {
  const __m512i w = _mm512_cvtepu8_epi16(sign_bytes);
  return _mm512_and_si512(_mm512_or_si512(w, _mm512_slli_epi16(w, 4)), _mm512_set1_epi16(0x0F0F));
}
// A 16-byte lookup table in every 128-bit lane, entry x = f(x).
template <class F>
inline __m512i nibble_table(F f) {
  alignas(16) std::uint8_t t[16];
  for (int x = 0; x < 16; ++x) t[x] = static_cast<std::uint8_t>(f(x));
  return _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
}
inline int bit(int x, int k) { return (x >> k) & 1; }
// iq3: an entry's four signs (a nibble) -> bit 3 of the nibbles of elements 0 and 2 (its low
// code byte) and of elements 1 and 3 (its high code byte).
inline __m512i iq3_low_signs() {
  return nibble_table([](int x) { return bit(x, 0) << 3 | bit(x, 2) << 7; });
}
inline __m512i iq3_high_signs() {
  return nibble_table([](int x) { return bit(x, 1) << 3 | bit(x, 3) << 7; });
}

// iq2 codes of 32 entries (element k's code in bits 2k, 2k+1; one entry per 8 elements) and
// their 32 sign bytes -> the 16 steps' 64-bit words, stored at codes: the even elements'
// nibbles (code | sign << 2) in the low half, the odd elements' in the high half. Step j is
// at qword slot_after_dword_unpack(j) (the unpacks work within 128-bit lanes).
inline void store_iq2_steps(std::uint16_t* codes, __m512i entry_codes, __m256i sign_bytes) {
  const __m512i nib = nibble_words(sign_bytes);
  // A sign nibble covers elements 4h..4h+3: the even ones go to nibbles 2h, 2h+1 of the low
  // half (bits 2 and 6 of byte h), the odd ones to the same places in the high half.
  const __m512i even_signs =
      _mm512_shuffle_epi8(nibble_table([](int x) { return bit(x, 0) << 2 | bit(x, 2) << 6; }), nib);
  const __m512i odd_signs =
      _mm512_shuffle_epi8(nibble_table([](int x) { return bit(x, 1) << 2 | bit(x, 3) << 6; }), nib);
  const __m512i two_bits = _mm512_set1_epi16(0x3333);
  const __m512i even = _mm512_or_si512(_mm512_and_si512(entry_codes, two_bits), even_signs);
  const __m512i odd = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(entry_codes, 2), two_bits), odd_signs);
  _mm512_store_si512(codes, _mm512_unpacklo_epi32(even, odd));
  _mm512_store_si512(codes + 32, _mm512_unpackhi_epi32(even, odd));
}
// Where step j's word lands after dword unpacks of dword-ordered steps (qword index).
constexpr int slot_after_dword_unpack(int j) { return (j % 4 < 2) ? 2 * (j / 4) + j % 4 : 8 + 2 * (j / 4) + j % 4 - 2; }

// iq3 codes of 64 entries (two vectors; elements 0 and 2 in the low byte, 1 and 3 in the
// high byte, a nibble each) and their 32 sign bytes -> the 16 steps' 64-bit words in order:
// the sign bit in bit 3 of each nibble, then the even elements' bytes of four entries in the
// low half and the odd elements' in the high half.
inline void store_iq3_steps(std::uint16_t* codes, const __m512i (&entry_codes)[2], __m256i sign_bytes) {
  // Nibble e is entry e's four signs; lane l of the lookups gets entries 8l..8l+7 and
  // 32+8l..32+8l+7, so that the byte unpacks give words in entry order.
  const __m512i nib = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), nibble_words(sign_bytes));
  const __m512i low = _mm512_shuffle_epi8(iq3_low_signs(), nib), high = _mm512_shuffle_epi8(iq3_high_signs(), nib);
  const __m512i signs[2] = {_mm512_unpacklo_epi8(low, high), _mm512_unpackhi_epi8(low, high)};
  const __m512i even_then_odd =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15));
  for (int k = 0; k < 2; ++k)
    _mm512_store_si512(codes + 32 * k, _mm512_shuffle_epi8(_mm512_or_si512(entry_codes[k], signs[k]), even_then_odd));
}

// What a block's steps read back: the step words and the scales.
struct CodePrep {
  alignas(64) std::uint16_t codes[64];  // 16 steps x 64 bits
  alignas(64) float db[16];             // group ib's scale in db[ib]; with ScaleSpan::k16, that
                                        // of its first 16 elements, and of its last 16 in db[8 + ib]
};

// One scale per 32 elements (iq2_xxs, iq3_xxs, iq3_s) or per 16 (iq2_xs, iq2_s).
enum class ScaleSpan { k32, k16 };

// The steps read the prepared words back from memory, as broadcast loads on the load ports:
// without this compiler-only fence GCC turns the stores and loads into extracts and
// broadcasts on the shuffle ports the permutes need.
inline void read_back_from_memory() { asm volatile("" ::: "memory"); }

// The grid's 16-lane permute table for scale db: db * magnitude, the sign flipped where negated.
inline __m512 signed_table(__m512 magnitudes, __m512i negated, float db) {
  const __m512 product = _mm512_mul_ps(_mm512_set1_ps(db), magnitudes);
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(product), negated));
}

// The 16 steps of one block; Slot(j): the qword that holds step j's word.
template <ScaleSpan Span, int (*Slot)(int), class Out>
[[gnu::always_inline]] inline void emit_steps(const CodePrep& p, const GridCode& grid, const Out& out, std::size_t i) {
  const __m512 magnitudes = _mm512_load_ps(grid.magnitudes);
  const __m512i negated = _mm512_load_si512(grid.negated);
  read_back_from_memory();
  const __m512i shifts = _mm512_setr_epi64(0, 4, 8, 12, 16, 20, 24, 28);
#pragma GCC unroll 8
  for (int ib = 0; ib < 8; ++ib) {
    const __m512 lo = signed_table(magnitudes, negated, p.db[ib]);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const int j = 2 * ib + h;
      const __m512 table = (Span == ScaleSpan::k16 && h == 1) ? signed_table(magnitudes, negated, p.db[8 + ib]) : lo;
      const std::uint64_t word = rd64(reinterpret_cast<const std::uint8_t*>(p.codes + 4 * Slot(j)));
      const __m512i lanes = _mm512_srlv_epi64(_mm512_set1_epi64(static_cast<long long>(word)), shifts);
      out.put(i + 16 * j, VF{_mm512_permutexvar_ps(lanes, table)});
    }
  }
}

constexpr int in_order(int j) { return j; }

#if defined(__AVX512VBMI__)
// With VBMI the grid codes are looked up as bytes, 64 entries per permute and 128 per table
// chunk: half the permutes of the word lookup.

// Bits 0-7 of 64 indices as bytes, and bits 8 and 9 as masks: the lookup_bytes input.
struct ByteIndices {
  __m512i x;
  __mmask64 above[2];
};
// Byte indices that pair byte first + e of one vector with the same byte of another (e < 32).
inline __m512i interleave_bytes(int first) {
  alignas(64) std::uint8_t order[64];
  for (int e = 0; e < 32; ++e) {
    order[2 * e] = static_cast<std::uint8_t>(first + e);
    order[2 * e + 1] = static_cast<std::uint8_t>(64 + first + e);
  }
  return _mm512_load_si512(order);
}
// table[index] for the 64 byte lanes, the byte table at bytes holding Chunks x 128 entries.
// Chunk c converts the lanes whose index bits 7 and up say c, a masked permute that leaves
// the other lanes as they are (each lane is converted once).
template <int Chunks, int N>
[[gnu::always_inline]] inline void lookup_bytes(const std::uint8_t* bytes, const ByteIndices (&in)[N],
                                                __m512i (&out)[N]) {
  // Chains of at most four chunks (each a permute's latency long), joined by selects.
  constexpr int kChains = Chunks > 4 ? Chunks / 4 : 1, kLinks = Chunks / kChains;
  __m512i acc[N][kChains];
  for (int g = 0; g < kChains; ++g)
    for (int n = 0; n < N; ++n) acc[n][g] = in[n].x;
  for (int c = 0; c < Chunks; ++c) {
    const int g = c / kLinks;
    const __m512i lo = _mm512_load_si512(bytes + 128 * c), hi = _mm512_load_si512(bytes + 128 * c + 64);
    for (int n = 0; n < N; ++n) {
      const __mmask64 b7 = _mm512_movepi8_mask(in[n].x);
      __mmask64 m = (c & 1) ? b7 : _knot_mask64(b7);
      for (int k = 0; 2 << k < kLinks; ++k)
        m = _kand_mask64(m, ((c >> (k + 1)) & 1) ? in[n].above[k] : _knot_mask64(in[n].above[k]));
      acc[n][g] = _mm512_mask2_permutex2var_epi8(lo, acc[n][g], m, hi);
    }
  }
  for (int n = 0; n < N; ++n) {
    if constexpr (kChains == 2)
      out[n] = _mm512_mask_blend_epi8(in[n].above[1], acc[n][0], acc[n][1]);
    else
      out[n] = acc[n][0];
  }
}

// The iq3 steps of one block from its 64 entries' low code bytes (elements 0 and 2), high code
// bytes (1 and 3) and 32 sign bytes: the signs in bit 3 of each nibble, then a dword unpack
// puts four entries' low bytes and their high bytes in one word.
inline void store_iq3_steps_vbmi(std::uint16_t* codes, __m512i low, __m512i high, __m256i sign_bytes) {
  // Byte e: entry e's four signs, nibble e of the sign bytes.
  alignas(64) static constexpr std::uint8_t kNibbleOrder[64] = {
      0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39, 8,  40, 9,  41, 10, 42,
      11, 43, 12, 44, 13, 45, 14, 46, 15, 47, 16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53,
      22, 54, 23, 55, 24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
  const __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(sign_bytes), _mm256_srli_epi16(sign_bytes, 4), 1);
  const __m512i nib =
      _mm512_permutexvar_epi8(_mm512_load_si512(kNibbleOrder), _mm512_and_si512(both, _mm512_set1_epi8(15)));
  const __m512i even = _mm512_or_si512(low, _mm512_shuffle_epi8(iq3_low_signs(), nib));
  const __m512i odd = _mm512_or_si512(high, _mm512_shuffle_epi8(iq3_high_signs(), nib));
  _mm512_store_si512(codes, _mm512_unpacklo_epi32(even, odd));
  _mm512_store_si512(codes + 32, _mm512_unpackhi_epi32(even, odd));
}
#endif

// prepare() and emit() for a code kernel K. K gives kEntryElements (8: iq2, 4: iq3), codes()
// (its GridCode) and, for a block: scales(block, prep), which puts its scales in prep and
// returns its 32 sign bytes; word_indices(block, idx), its grid indices as uint16 (32 per
// vector); and with VBMI index_bytes(block), bits 0-7 of its indices, and index_bit(block,
// k), bit k (8 or 9) of each as a mask. prepare() takes kBatch blocks at a time, so that they
// share the table loads: WordBatch with word lookups (chosen per format), four iq2 or one
// iq3 block with byte lookups.
template <class K, int Entries, ScaleSpan Span, std::size_t WordBatch>
struct CodeBatch {
  using Prep = CodePrep;
  static constexpr bool kIq2 = K::kEntryElements == 8;
#if defined(__AVX512VBMI__)
  // Byte vectors of 64 entries: two for iq2 (four blocks share the table loads), one for iq3
  // (a second iq3 block per batch is slower).
  static constexpr int kN = kIq2 ? 2 : 1;
  static constexpr std::size_t kBatch = kIq2 ? 2 * kN : kN;
  [[gnu::always_inline]] static void prepare(const std::uint8_t* const* blocks, CodePrep* p) {
    __m256i signs[kBatch];
    for (std::size_t k = 0; k < kBatch; ++k) signs[k] = K::scales(blocks[k], p[k]);
    ByteIndices in[kN];
    for (int n = 0; n < kN; ++n) {
      if constexpr (kIq2) {
        const std::uint8_t *first = blocks[2 * n], *second = blocks[2 * n + 1];
        in[n].x = _mm512_inserti64x4(_mm512_castsi256_si512(K::index_bytes(first)), K::index_bytes(second), 1);
        if constexpr (Entries > 256)
          for (int k = 0; 256 << k < Entries; ++k)
            in[n].above[k] = _mm512_kunpackd(K::index_bit(second, 8 + k), K::index_bit(first, 8 + k));
      } else {
        in[n].x = K::index_bytes(blocks[n]);
        if constexpr (Entries > 256) in[n].above[0] = K::index_bit(blocks[n], 8);
      }
    }
    const std::uint8_t* bytes = K::codes().code_bytes;
    __m512i low[kN], high[kN];
    lookup_bytes<Entries / 128>(bytes, in, low);
    lookup_bytes<Entries / 128>(bytes + Entries, in, high);
    if constexpr (kIq2) {
      // Each block's 32 entry codes as words: byte e of low and byte e of high.
      for (std::size_t k = 0; k < kBatch; ++k)
        store_iq2_steps(p[k].codes, _mm512_permutex2var_epi8(low[k / 2], interleave_bytes(32 * (k % 2)), high[k / 2]),
                        signs[k]);
    } else {
      for (std::size_t k = 0; k < kBatch; ++k) store_iq3_steps_vbmi(p[k].codes, low[k], high[k], signs[k]);
    }
  }
  template <class Out>
  [[gnu::always_inline]] static void emit(const CodePrep& p, const Out& out, std::size_t i) {
    emit_steps<Span, slot_after_dword_unpack>(p, K::codes(), out, i);
  }
#else
  static constexpr std::size_t kBatch = WordBatch;
  static constexpr int kVectors = kIq2 ? 1 : 2;  // index vectors per block
  [[gnu::always_inline]] static void prepare(const std::uint8_t* const* blocks, CodePrep* p) {
    __m512i idx[kBatch * kVectors], words[kBatch * kVectors];
    __m256i signs[kBatch];
    for (std::size_t k = 0; k < kBatch; ++k) {
      K::word_indices(blocks[k], idx + kVectors * k);
      signs[k] = K::scales(blocks[k], p[k]);
    }
    lookup_words<Entries / 64>(K::codes().codes, idx, words);
    for (std::size_t k = 0; k < kBatch; ++k) {
      if constexpr (kIq2)
        store_iq2_steps(p[k].codes, words[k], signs[k]);
      else
        store_iq3_steps(p[k].codes, {words[2 * k], words[2 * k + 1]}, signs[k]);
    }
  }
  template <class Out>
  [[gnu::always_inline]] static void emit(const CodePrep& p, const Out& out, std::size_t i) {
    emit_steps<Span, kIq2 ? slot_after_dword_unpack : in_order>(p, K::codes(), out, i);
  }
#endif
};

// Sign bytes from 7-bit ksigns codes (iq2_xxs, iq2_xs, iq3_xxs): with VBMI a byte permute of
// the ksigns_iq2xs table, else the parity computed per byte (ksigns_bytes, ksigns_words).
#if defined(__AVX512VBMI__)
// 32 codes, one per byte (bit 7 is ignored) -> their sign bytes.
inline __m256i ksigns_lookup(__m256i codes) {
  const std::uint8_t* table = formats::kKsignsIq2xs.data();
  return _mm512_castsi512_si256(_mm512_permutex2var_epi8(_mm512_loadu_si512(table), _mm512_castsi256_si512(codes),
                                                         _mm512_loadu_si512(table + 64)));
}
#endif
// Eight words, each four codes at bits 0, 7, 14, 21 -> 32 sign bytes in code order.
inline __m256i signs_of_code_words(__m256i w) {
#if defined(__AVX512VBMI__)
  const __m256i offsets = _mm256_set1_epi64x(0x352E2720150E0700);  // bit offsets 0, 7, 14, 21, 32, 39, 46, 53
  return ksigns_lookup(_mm256_multishift_epi64_epi8(offsets, w));
#else
  return ksigns_bytes(w);
#endif
}
// 32 uint16 at p, each a code in bits 9-15 -> 32 sign bytes.
inline __m256i signs_of_code_halves(const std::uint8_t* p) {
#if defined(__AVX512VBMI__)
  return ksigns_lookup(_mm512_cvtepi16_epi8(_mm512_srli_epi16(_mm512_loadu_si512(p), 9)));
#else
  const __m256i packed = _mm256_packus_epi16(ksigns_words(u32x8(p)), ksigns_words(u32x8(p + 32)));
  return _mm256_permute4x64_epi64(packed, 0xD8);
#endif
}

struct Iq2_XXS_Codes : KernelFor<FormatId::iq2_xxs>, CodeBatch<Iq2_XXS_Codes, 256, ScaleSpan::k32, 2> {
  static constexpr int kEntryElements = 8;
  static const GridCode& codes() { return grid_codes_set().iq2xxs; }
  // Group ib is 8 bytes: four grid indices, then W (four sign codes, the scale in bits 28-31).
  // The first (Half 0) or second dword of every group, in group order.
  template <int Half>
  static __m256i group_dwords(const std::uint8_t* b) {
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    const __m256 a = _mm256_castsi256_ps(u32x8(qs)), c = _mm256_castsi256_ps(u32x8(qs + 32));
    const __m256 picked = Half == 0 ? _mm256_shuffle_ps(a, c, 0x88) : _mm256_shuffle_ps(a, c, 0xDD);
    return _mm256_permute4x64_epi64(_mm256_castps_si256(picked), 0xD8);
  }
  static __m256i index_bytes(const std::uint8_t* b) { return group_dwords<0>(b); }
  static void word_indices(const std::uint8_t* b, __m512i* idx) { idx[0] = _mm512_cvtepu8_epi16(index_bytes(b)); }
  static __m256i scales(const std::uint8_t* b, CodePrep& p) {
    const __m256i W = group_dwords<1>(b);
    _mm256_store_ps(p.db, iq_scales(h2f(b + offsetof(Layout, d)), _mm256_srli_epi32(W, 28), 0.25f));
    return signs_of_code_words(W);
  }
};

struct Iq2_XS_Codes : KernelFor<FormatId::iq2_xs>, CodeBatch<Iq2_XS_Codes, 512, ScaleSpan::k16, 4> {
  static constexpr int kEntryElements = 8;
  static const GridCode& codes() { return grid_codes_set().iq2xs; }
  // 32 uint16: the grid index in bits 0-8, the sign code in bits 9-15.
  static __m512i qs(const std::uint8_t* b) { return _mm512_loadu_si512(b + offsetof(Layout, qs)); }
  static __m256i index_bytes(const std::uint8_t* b) { return _mm512_cvtepi16_epi8(qs(b)); }
  static __mmask32 index_bit(const std::uint8_t* b, int k) {
    return _mm512_test_epi16_mask(qs(b), _mm512_set1_epi16(static_cast<short>(1 << k)));
  }
  static void word_indices(const std::uint8_t* b, __m512i* idx) {
    idx[0] = _mm512_and_si512(qs(b), _mm512_set1_epi16(511));
  }
  static __m256i scales(const std::uint8_t* b, CodePrep& p) {
    nibble_scales(p.db, p.db + 8, h2f(b + offsetof(Layout, d)), b + offsetof(Layout, scales));
    return signs_of_code_halves(b + offsetof(Layout, qs));
  }
};

struct Iq2_S_Codes : KernelFor<FormatId::iq2_s>, CodeBatch<Iq2_S_Codes, 1024, ScaleSpan::k16, 4> {
  static constexpr int kEntryElements = 8;
  static const GridCode& codes() { return grid_codes_set().iq2s; }
  // Index l of group ib is qs[4 ib + l] + 256 * bits 2l..2l+1 of qh[ib], so bit 8 + k of index
  // e is bit 2e + k of the 64 qh bits.
  static __m256i index_bytes(const std::uint8_t* b) { return u32x8(b + offsetof(Layout, qs)); }
#if defined(__AVX512VBMI__)
  static __mmask32 index_bit(const std::uint8_t* b, int k) {
    // Byte e: the 8 qh bits that end at bit 2e + k - 8 + 7, so that its top bit is 2e + k - 8.
    alignas(32) static constexpr std::uint8_t kStarts[2][32] = {
        {57, 59, 61, 63, 1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23,
         25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55},
        { 58,
          60,
          62,
          0,
          2,
          4,
          6,
          8,
          10,
          12,
          14,
          16,
          18,
          20,
          22,
          24,
          26,
          28,
          30,
          32,
          34,
          36,
          38,
          40,
          42,
          44,
          46,
          48,
          50,
          52,
          54,
          56 }};
    const __m256i qh = _mm256_set1_epi64x(static_cast<long long>(rd64(b + offsetof(Layout, qh))));
    return _mm256_movepi8_mask(
        _mm256_multishift_epi64_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(kStarts[k - 8])), qh));
  }
#endif
  static void word_indices(const std::uint8_t* b, __m512i* idx) {
    const __m256i qh4 = _mm256_shuffle_epi8(_mm256_set1_epi64x(static_cast<long long>(rd64(b + offsetof(Layout, qh)))),
                                            _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                                                             5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7));
    const __m512i high = _mm512_and_si512(
        _mm512_srlv_epi16(_mm512_cvtepu8_epi16(qh4), _mm512_broadcast_i32x4(_mm_setr_epi16(0, 2, 4, 6, 0, 2, 4, 6))),
        _mm512_set1_epi16(3));
    idx[0] = _mm512_or_si512(_mm512_cvtepu8_epi16(index_bytes(b)), _mm512_slli_epi16(high, 8));
  }
  static __m256i scales(const std::uint8_t* b, CodePrep& p) {
    nibble_scales(p.db, p.db + 8, h2f(b + offsetof(Layout, d)), b + offsetof(Layout, scales));
    return u32x8(b + offsetof(Layout, signs));  // full sign bytes, no parity
  }
};

struct Iq3_XXS_Codes : KernelFor<FormatId::iq3_xxs>, CodeBatch<Iq3_XXS_Codes, 256, ScaleSpan::k32, 2> {
  static constexpr int kEntryElements = 4;
  static const GridCode& codes() { return grid_codes_set().iq3xxs; }
  static __m512i index_bytes(const std::uint8_t* b) { return _mm512_loadu_si512(b + offsetof(Layout, qs)); }
  static void word_indices(const std::uint8_t* b, __m512i* idx) {
    for (int k = 0; k < 2; ++k) idx[k] = _mm512_cvtepu8_epi16(u32x8(b + offsetof(Layout, qs) + 32 * k));
  }
  static __m256i scales(const std::uint8_t* b, CodePrep& p) {
    const __m256i W = u32x8(b + offsetof(Layout, sas));  // per group: four sign codes, the scale in bits 28-31
    _mm256_store_ps(p.db, iq_scales(h2f(b + offsetof(Layout, d)), _mm256_srli_epi32(W, 28), 0.5f));  // 0.5, not 0.25
    return signs_of_code_words(W);
  }
};

struct Iq3_S_Codes : KernelFor<FormatId::iq3_s>, CodeBatch<Iq3_S_Codes, 512, ScaleSpan::k32, 1> {
  static constexpr int kEntryElements = 4;
  static const GridCode& codes() { return grid_codes_set().iq3s; }
  // Index m of group ib is qs[8 ib + m] + 256 * bit m of qh[ib]: bit 8 ib + m of the 64 qh bits.
  static std::uint64_t qh(const std::uint8_t* b) { return rd64(b + offsetof(Layout, qh)); }
  static __m512i index_bytes(const std::uint8_t* b) { return _mm512_loadu_si512(b + offsetof(Layout, qs)); }
  static __mmask64 index_bit(const std::uint8_t* b, int) { return _cvtu64_mask64(qh(b)); }
  static void word_indices(const std::uint8_t* b, __m512i* idx) {
    for (int k = 0; k < 2; ++k) {
      const __m512i lo = _mm512_cvtepu8_epi16(u32x8(b + offsetof(Layout, qs) + 32 * k));
      idx[k] = _mm512_mask_add_epi16(lo, _cvtu32_mask32(static_cast<unsigned>(qh(b) >> (32 * k))), lo,
                                     _mm512_set1_epi16(256));
    }
  }
  static __m256i scales(const std::uint8_t* b, CodePrep& p) {
    // db = d * float(1 + 2 s), s the low nibble of scales[ib / 2] for even ib, else the high one.
    const __m256i nibbles =
        _mm256_and_si256(_mm256_srlv_epi32(_mm256_cvtepu8_epi32(_mm_shuffle_epi8(
                                               _mm_cvtsi32_si128(static_cast<int>(rd32(b + offsetof(Layout, scales)))),
                                               _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0))),
                                           _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4)),
                         set8(15));
    const __m256i odd = _mm256_add_epi32(_mm256_add_epi32(nibbles, nibbles), set8(1));
    _mm256_store_ps(p.db, _mm256_mul_ps(_mm256_set1_ps(h2f(b + offsetof(Layout, d))), _mm256_cvtepi32_ps(odd)));
    return u32x8(b + offsetof(Layout, signs));  // full sign bytes, no parity
  }
};

#pragma GCC diagnostic pop
