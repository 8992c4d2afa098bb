// The GGUF writer, the reader's inverse: a header serialized from owned metadata and tensor
// descriptors, in either byte order, laid out exactly as ggml lays a file out (the data section
// at the end of the tensor infos padded to general.alignment, each tensor at the running padded
// offset, zeros between), and the tensors' bytes copied from the files they come from
// (copy_range.hpp: in the kernel where it can, by reads and writes where it cannot) or written by
// a producer (a tensor of a new type or shape, e.g. a quantizer's, one tensor in memory at a time).
// The writer applies the rule book (rules.hpp): it refuses to lay out a file that onnxq's reader or
// ggml's would refuse, with a one-line error naming the key or the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/file.hpp"
#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/io/atomic_file.hpp"

namespace onnxq {

// The key of the string the writer adds to keep the data section's start where it asked
// (GgufWriteOptions::data_offset_modulo_block); dropped and recomputed on every write.
inline constexpr std::string_view kGgufPaddingKey = "onnxq.header_padding";
// The file-system block the data section's position is kept modulo (reflinks share whole blocks).
inline constexpr std::uint64_t kGgufCloneBlock = 4096;

// Where a produced tensor's bytes go: the output file, at the tensor's offset, in order.
class GgufTensorSink {
 public:
  virtual ~GgufTensorSink() = default;
  // Appends the next bytes of the tensor. Throws Error(InvalidArgument) naming the tensor past its
  // byte size, Error(Io) on a write failure.
  virtual void write(std::span<const std::byte> bytes) = 0;
  virtual std::uint64_t remaining() const = 0;  // bytes still to write
};
// Writes the tensor's bytes, all of them, to the sink (in the byte order GgufWriterTensor says).
// Whatever it throws stops the write and reaches gguf_write's caller, who leaves the output
// uncommitted (nothing is named).
using GgufTensorProducer = std::function<void(GgufTensorSink&)>;

// One tensor of the file written: its descriptor, and where its bytes come from (a source range
// or a producer: exactly one).
struct GgufWriterTensor {
  std::string name;
  std::vector<std::uint64_t> ne;  // GGUF order
  std::uint32_t ggml_type = 0;
  const BlockFormat* format = nullptr;  // may be null (an unknown type): copied byte for byte
  std::uint64_t byte_size = 0;
  const GgufFile* source = nullptr;  // bytes [source_offset, source_offset + byte_size) of this file
  std::uint64_t source_offset = 0;
  bool source_big_endian = false;  // the byte order the bytes are stored in (or produced in)
  GgufTensorProducer producer;     // or the bytes come from it, when set
};

// The tensor as stored in its model's shard, to be copied as it is.
GgufWriterTensor gguf_writer_tensor(const GgufModel& model, const TensorInfo& tensor);
// A tensor of `format` and shape `ne` (GGUF order) whose little-endian bytes `producer` writes, its
// byte size from the rule book. Throws Error(InvalidArgument) naming it for a shape or name that
// breaks a rule.
GgufWriterTensor gguf_produced_tensor(std::string name, std::vector<std::uint64_t> ne, const BlockFormat& format,
                                      GgufTensorProducer producer);

struct GgufWriteOptions {
  std::uint32_t version = 3;
  bool big_endian = false;  // the header's and the tensors' byte order (tensors are swapped as needed)
  // When set, the data section starts at this value modulo kGgufCloneBlock (the source's
  // data_offset, for an edit whose tensor blocks a file system can share): a string of spaces
  // under kGgufPaddingKey is appended to the metadata to get there.
  std::optional<std::uint64_t> data_offset_modulo_block;
};

// A file's layout: its header bytes and where everything lies.
struct GgufLayoutPlan {
  std::vector<std::byte> header;  // bytes [0, data_offset): header, tensor infos, zero padding
  std::uint64_t alignment = kGgufDefaultAlignment;
  std::uint64_t data_offset = 0;
  std::vector<std::uint64_t> tensor_offsets;  // relative to data_offset, in tensor order
  std::uint64_t file_size = 0;                // data_offset + every tensor padded to the alignment
  std::uint64_t padding_bytes = 0;            // the length of the kGgufPaddingKey string added (0: none)
};

// Lays out a file. The alignment is the metadata's general.alignment (a u32 power of two, at most
// kGgufMaxAlignment), or 32. Throws Error(InvalidArgument), one line naming the key or tensor,
// for whatever breaks the rule book (rules.hpp): an empty, overlong or non-ASCII key, a string or array
// past ggml's limits, a bad general.alignment, a tensor name past 63 bytes or twice, a shape of
// no or too many dimensions, a tensor whose byte size its type and shape do not give; or for a
// file past 64 bits.
GgufLayoutPlan gguf_plan(const GgufMetadata& metadata, std::span<const GgufWriterTensor> tensors,
                         const GgufWriteOptions& options);

// The header's size before anything is laid out, counted by the serializer that writes it: the
// bytes up to the first tensor info (magic, version, counts, the metadata records), and one
// tensor-info record.
std::uint64_t gguf_metadata_bytes(const GgufMetadata& metadata);
std::uint64_t gguf_tensor_info_bytes(const GgufWriterTensor& tensor);

// What gguf_write did, for a front end's summary.
struct GgufWriteStats {
  std::uint64_t kernel_copied = 0;  // data-section bytes moved by copy_file_range
  std::uint64_t buffer_copied = 0;  // data-section bytes read and written (remote, swapped, fallback)
  std::uint64_t produced = 0;       // data-section bytes written by producers
};

// Writes the planned file into `out` (from its start; not committed: the caller commits).
// Tensors whose byte order differs from options.big_endian are swapped by their format's field
// kinds (a tensor of unknown format then throws Error(Unsupported) naming it, before anything is
// written). Produced tensors are written by their producers in file order; one that writes fewer
// or more bytes than its size throws Error(InvalidArgument) naming it. Throws Error(Io) on a read
// or write failure.
GgufWriteStats gguf_write(AtomicFile& out, const GgufLayoutPlan& plan, std::span<const GgufWriterTensor> tensors,
                          const GgufWriteOptions& options);

// The options that keep `file` as it is (edit): its version, its byte order, and its data
// section's position modulo kGgufCloneBlock, so that a file system can share its tensors' blocks.
GgufWriteOptions gguf_edit_options(const GgufFile& file);

// The tensors of `file` (one file of `model`) as the writer copies them, laid out under `metadata`
// by gguf_plan: what gguf_rewrite_file writes, refused by the same rules. A dry run makes it and
// writes nothing, so that it fails where the write would.
struct GgufRewritePlan {
  std::vector<GgufWriterTensor> tensors;
  GgufLayoutPlan layout;
};
GgufRewritePlan gguf_plan_rewrite(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                                  const GgufWriteOptions& options);

// One file of `model` rewritten (edit, convert-endian): its own tensors under `metadata`, laid out
// by `options`, to `path`, or when `path` is empty over the file itself (the file a symlink names;
// flushed to disk before it takes the name). The output is created by `create` (default:
// AtomicFile::create) and committed only when whole.
struct GgufRewrite {
  std::string path;  // the file written
  GgufLayoutPlan plan;
  GgufWriteStats stats;
};
using GgufOutputCreator = std::function<AtomicFile(const std::string& path, const AtomicFile::Options& options)>;
GgufRewrite gguf_rewrite_file(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                              const GgufWriteOptions& options, const std::string& path,
                              const GgufOutputCreator& create = {});

// The tensors whose bytes a byte-order change cannot convert (unknown type), as "NAME (type N)".
std::vector<std::string> gguf_unconvertible_tensors(std::span<const GgufWriterTensor> tensors);

}  // namespace onnxq
