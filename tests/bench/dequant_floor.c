/* The floor of scripts/bench-cli: the least work any dequantizer of one tensor must do, without
 * decoding anything. It preads the tensor's packed bytes from the .gguf file (the tensor's offset
 * and size) in chunks of 1 MiB of whole blocks, turns each chunk into as many float32 values as its
 * blocks hold elements, and writes them to OUT (created or truncated), a piece of at most 256 KiB at
 * a time (the library's chunk, 64 Ki float32 values; of pieces from 64 KiB to 8 MiB it was among the
 * fastest here), so that the output stays in cache between the stores and write(2). The values:
 *   f16, bf16  each 16-bit value widened to float32 (F16C when the compiler targets it);
 *   blocks     no decoding: element e of a block is its byte (e mod BLOCK_BYTES), as a signed
 *              integer, in float32; a block with more bytes than elements adds the rest in.
 * So the floor reads the same bytes as `onnxq dequant --format raw` and writes the same number of
 * bytes. scripts/bench_cli.py compiles it with the system cc (-O3 -march=native) at run time.
 *
 * Usage: dequant_floor FILE OFFSET BYTES f16|bf16|blocks BLOCK_ELEMENTS BLOCK_BYTES OUT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__F16C__)
#include <immintrin.h>
#endif

enum { kChunk = 1 << 20, kPiece = 1 << 18 };

static void die(const char* what) {
  fprintf(stderr, "dequant_floor: %s: %s\n", what, errno ? strerror(errno) : "failed");
  exit(1);
}

static void write_all(int fd, const void* p, size_t n) {
  const char* c = p;
  while (n > 0) {
    const ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die("write");
    c += w;
    n -= (size_t)w;
  }
}

static size_t pread_all(int fd, void* p, size_t n, off_t at) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = pread(fd, (char*)p + done, n - done, at + (off_t)done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die("pread");
    if (r == 0) break;
    done += (size_t)r;
  }
  return done;
}

/* IEEE binary16 to binary32, exact, for compilers without F16C. */
static float half_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else { /* subnormal: normalize */
    uint32_t e = 113, m = man;
    while (!(m & 0x400)) m <<= 1, --e;
    bits = sign | (e << 23) | ((m & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static void widen_f16(const uint16_t* in, float* out, size_t n) {
  size_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(in + i))));
#endif
  for (; i < n; ++i) out[i] = half_to_float(in[i]);
}

static void widen_bf16(const uint16_t* in, float* out, size_t n) {
  uint32_t* o = (uint32_t*)out;
  for (size_t i = 0; i < n; ++i) o[i] = (uint32_t)in[i] << 16;
}

static void widen_blocks(const int8_t* in, float* out, size_t blocks, size_t be, size_t bb) {
  for (size_t k = 0; k < blocks; ++k, in += bb, out += be) {
    for (size_t e0 = 0; e0 < be; e0 += bb) {
      const size_t n = be - e0 < bb ? be - e0 : bb;
      for (size_t e = 0; e < n; ++e) out[e0 + e] = (float)in[e];
    }
    for (size_t b = be; b < bb; ++b) out[b % be] += (float)in[b];
  }
}

int main(int argc, char** argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: dequant_floor FILE OFFSET BYTES f16|bf16|blocks BLOCK_ELEMENTS BLOCK_BYTES OUT\n");
    return 2;
  }
  const off_t offset = (off_t)strtoull(argv[2], NULL, 10);
  const size_t bytes = strtoull(argv[3], NULL, 10);
  const char* mode = argv[4];
  const size_t be = strtoull(argv[5], NULL, 10), bb = strtoull(argv[6], NULL, 10);
  const int f16 = !strcmp(mode, "f16"), bf16 = !strcmp(mode, "bf16");
  if ((!f16 && !bf16 && strcmp(mode, "blocks")) || be == 0 || bb == 0 || bb > kChunk || bytes % bb) {
    fprintf(stderr, "dequant_floor: bad arguments\n");
    return 2;
  }
  const int in = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (in < 0) die(argv[1]);
  const int out = open(argv[7], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) die(argv[7]);
  const size_t chunk = kChunk / bb * bb;                             /* whole blocks of input per pread */
  const size_t piece_blocks = kPiece / 4 / be ? kPiece / 4 / be : 1; /* blocks per write */
  void *buf = aligned_alloc(4096, kChunk), *obuf = aligned_alloc(4096, piece_blocks * be * 4 + 4096);
  if (!buf || !obuf) die("allocation");
  for (size_t done = 0; done < bytes;) {
    const size_t want = bytes - done < chunk ? bytes - done : chunk;
    if (pread_all(in, buf, want, offset + (off_t)done) != want) {
      errno = 0;
      die("short read");
    }
    const size_t blocks = want / bb;
    for (size_t k = 0; k < blocks; k += piece_blocks) {
      const size_t n = blocks - k < piece_blocks ? blocks - k : piece_blocks;
      const char* src = (const char*)buf + k * bb;
      if (f16)
        widen_f16((const uint16_t*)src, obuf, n * bb / 2);
      else if (bf16)
        widen_bf16((const uint16_t*)src, obuf, n * bb / 2);
      else
        widen_blocks((const int8_t*)src, obuf, n, be, bb);
      write_all(out, obuf, n * be * 4);
    }
    done += want;
  }
  if (close(out) != 0) die("close");
  return 0;
}
