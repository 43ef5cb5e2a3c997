#pragma once
// safetensors files, read and written by the project's own code: an 8-byte
// little-endian header length N, N bytes of JSON header, then the raw
// little-endian data. The header maps each tensor name to
// {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]} (offsets
// relative to the start of the data) and may hold "__metadata__", a map of
// strings. Readable by Python's safetensors and numpy.
//
// The reader trusts nothing: a header length past the end of the file, JSON
// that does not parse, an unknown dtype, a negative or non-integer dimension,
// offsets out of range or overlapping, or a byte size that disagrees with
// dtype x shape is an error naming the file and the tensor.
//
//   SafetensorsFile f;
//   f.tensors.emplace_back("out0", at::ones({2, 3}));
//   f.metadata["op"] = "add";
//   SPYRE_RETURN_IF_ERROR(WriteSafetensors("golden/ops/add.safetensors", f));
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "base/status.h"

namespace harness {

struct SafetensorsFile {
  std::vector<std::pair<std::string, at::Tensor>> tensors;  // file order on write
  std::map<std::string, std::string> metadata;              // "__metadata__"
  // The tensor named `name`, or nullptr.
  const at::Tensor* Find(const std::string& name) const;
};

// Parses a whole file's bytes; `where` (usually the path) prefixes errors.
StatusOr<SafetensorsFile> ParseSafetensors(std::string_view bytes, const std::string& where);
// Reads a regular file of at most `max_bytes` (base/input_file.h): a
// directory, FIFO or device, or a larger file, is an error before any data
// is read; each tensor's bytes are read straight into its storage.
StatusOr<SafetensorsFile> ReadSafetensors(const std::string& path,
                                          uint64_t max_bytes = uint64_t{256} << 20);

// What a file holds, without its data: for checks that run before anything
// is computed (a checkpoint's names, dtypes and shapes), where reading
// megabytes of weights per case would cost more than the check is worth.
// The header is validated exactly as ReadSafetensors does, offsets against
// the file's size; only the data bytes themselves are not read. A file
// larger than `max_bytes` is refused as ReadSafetensors refuses it (a check
// that the run will be able to read it later); the header's own limit is
// 16 MiB.
struct SafetensorsEntry {
  std::string name;
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape;
};
struct SafetensorsHeader {
  std::vector<SafetensorsEntry> tensors;  // ordered by name
  std::map<std::string, std::string> metadata;
  const SafetensorsEntry* Find(const std::string& name) const;  // nullptr when absent
};
StatusOr<SafetensorsHeader> ReadSafetensorsHeader(const std::string& path,
                                                  uint64_t max_bytes = UINT64_MAX);
// The header of a file already in memory: names, dtypes, shapes, metadata.
SafetensorsHeader HeaderOf(const SafetensorsFile& f);

// Tensors are written contiguous, in order, 8-byte aligned data start. Names
// must be unique and not "__metadata__"; dtypes F64 F32 F16 BF16 I64 I32 I16
// I8 U8 BOOL.
StatusOr<std::string> SerializeSafetensors(const SafetensorsFile& f);
// Writes atomically (temporary file + rename), creating parent directories.
Status WriteSafetensors(const std::string& path, const SafetensorsFile& f);

// A shape as messages about tensor files print it: "[7, 129]", "[]".
std::string ShapeText(at::IntArrayRef shape);

}  // namespace harness
