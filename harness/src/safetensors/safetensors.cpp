#include "harness/safetensors/safetensors.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/input_file.h"
#include "base/output_file.h"

namespace harness {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian");

// A header describes tensors, a few hundred bytes each: 16 MiB is room for
// tens of thousands of them, and its JSON parses in bounded memory.
constexpr uint64_t kMaxHeaderBytes = 16u << 20;

struct DtypeCode {
  const char* code;
  at::ScalarType type;
};
constexpr DtypeCode kCodes[] = {
    {"F64", at::kDouble}, {"F32", at::kFloat}, {"F16", at::kHalf},  {"BF16", at::kBFloat16},
    {"I64", at::kLong},   {"I32", at::kInt},   {"I16", at::kShort}, {"I8", at::kChar},
    {"U8", at::kByte},    {"BOOL", at::kBool},
};

const char* CodeOf(at::ScalarType t) {
  for (const auto& c : kCodes) {
    if (c.type == t) return c.code;
  }
  return nullptr;
}

Status Bad(const std::string& where, const std::string& what) {
  return InvalidInput(where + ": malformed safetensors file: " + what);
}

// A parsed header, with where each tensor's bytes lie in the data section
// (offsets[i] belongs to header.tensors[i]).
struct ParsedHeader {
  SafetensorsHeader header;
  uint64_t header_len = 0;  // the JSON's length; data starts at 8 + header_len
  std::vector<std::pair<uint64_t, uint64_t>> offsets;
};

// Reads the 8-byte header length and checks it against the file's size.
StatusOr<uint64_t> HeaderLength(std::string_view first8, uint64_t file_size,
                                const std::string& where) {
  if (file_size < 8 || first8.size() < 8)
    return Bad(where, "shorter than the 8-byte header length");
  uint64_t header_len = 0;
  std::memcpy(&header_len, first8.data(), 8);
  if (header_len > kMaxHeaderBytes || header_len > file_size - 8) {
    return Bad(where, "header length " + std::to_string(header_len) + " runs past the end of the " +
                          std::to_string(file_size) + "-byte file (truncated?)");
  }
  return header_len;
}

// One tensor's header entry: dtype, shape and offsets, each checked against
// the `data_size` bytes that follow the header.
StatusOr<std::pair<uint64_t, uint64_t>> ParseEntry(const std::string& name,
                                                   const nlohmann::json& entry, uint64_t data_size,
                                                   const std::string& where,
                                                   SafetensorsEntry* out) {
  const std::string t = "tensor '" + name + "': ";
  if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
      !entry.contains("data_offsets")) {
    return Bad(where, t + "needs dtype, shape and data_offsets");
  }
  const nlohmann::json& dt = entry["dtype"];
  const DtypeCode* code = nullptr;
  for (const auto& c : kCodes) {
    if (dt.is_string() && dt.get<std::string>() == c.code) code = &c;
  }
  if (code == nullptr) return Bad(where, t + "unknown dtype " + dt.dump());
  const nlohmann::json& sh = entry["shape"];
  if (!sh.is_array()) return Bad(where, t + "shape is not an array");
  uint64_t numel = 1;
  for (const auto& d : sh) {
    if (!d.is_number_unsigned()) return Bad(where, t + "shape " + sh.dump() + " has a bad dim");
    const uint64_t v = d.get<uint64_t>();
    // Each dim is bounded too: after a 0 dim the product stays 0, and a dim
    // past INT64_MAX would become a negative size.
    if (v > (uint64_t{1} << 48) || (v != 0 && numel > (uint64_t{1} << 48) / v)) {
      return Bad(where, t + "shape too large");
    }
    numel *= v;
    out->shape.push_back(static_cast<int64_t>(v));
  }
  const nlohmann::json& off = entry["data_offsets"];
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
      !off[1].is_number_unsigned()) {
    return Bad(where, t + "data_offsets must be two non-negative integers");
  }
  const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
  if (begin > end || end > data_size) {
    return Bad(where, t + "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                          "] outside the " + std::to_string(data_size) + " data bytes");
  }
  const uint64_t expected = numel * c10::elementSize(code->type);
  if (end - begin != expected) {
    return Bad(where, t + "holds " + std::to_string(end - begin) + " bytes but " + code->code +
                          " " + sh.dump() + " needs " + std::to_string(expected));
  }
  out->name = name;
  out->dtype = code->type;
  return std::pair{begin, end};
}

// The header's JSON, checked against the `data_size` bytes after it: the one
// validation shared by the whole-file and the header-only readers.
StatusOr<ParsedHeader> ParseHeader(std::string_view json, uint64_t data_size,
                                   const std::string& where) {
  nlohmann::json header = nlohmann::json::parse(json, nullptr, false);
  if (header.is_discarded() || !header.is_object())
    return Bad(where, "the header is not a JSON object");
  ParsedHeader out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) return Bad(where, "__metadata__ is not an object");
      for (const auto& [k, v] : entry.items()) {
        if (!v.is_string()) return Bad(where, "__metadata__/" + k + " is not a string");
        out.header.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    SafetensorsEntry e;
    SPYRE_ASSIGN_OR_RETURN(auto span, ParseEntry(name, entry, data_size, where, &e));
    out.header.tensors.push_back(std::move(e));
    out.offsets.push_back(span);
  }
  std::vector<size_t> order(out.offsets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return out.offsets[a] < out.offsets[b]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (out.offsets[order[i]].first < out.offsets[order[i - 1]].second) {
      return Bad(where, "tensors '" + out.header.tensors[order[i - 1]].name + "' and '" +
                            out.header.tensors[order[i]].name + "' overlap");
    }
  }
  return out;
}

// Allocates each tensor of a checked header and has `read(begin, dst, n)`
// copy its n bytes, which start at `begin` in the data section, into it.
template <typename Read>
StatusOr<SafetensorsFile> FillTensors(ParsedHeader parsed, const Read& read) {
  SafetensorsFile out;
  out.metadata = std::move(parsed.header.metadata);
  for (size_t i = 0; i < parsed.header.tensors.size(); ++i) {
    SafetensorsEntry& e = parsed.header.tensors[i];
    const auto [begin, end] = parsed.offsets[i];
    at::Tensor tensor = at::empty(e.shape, e.dtype);
    if (end > begin) SPYRE_RETURN_IF_ERROR(read(begin, tensor.data_ptr(), end - begin));
    out.tensors.emplace_back(std::move(e.name), std::move(tensor));
  }
  return out;
}

}  // namespace

const at::Tensor* SafetensorsFile::Find(const std::string& name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

const SafetensorsEntry* SafetensorsHeader::Find(const std::string& name) const {
  for (const SafetensorsEntry& e : tensors) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

SafetensorsHeader HeaderOf(const SafetensorsFile& f) {
  SafetensorsHeader h;
  h.metadata = f.metadata;
  for (const auto& [name, t] : f.tensors)
    h.tensors.push_back({name, t.scalar_type(), t.sizes().vec()});
  std::sort(h.tensors.begin(), h.tensors.end(),
            [](const SafetensorsEntry& a, const SafetensorsEntry& b) { return a.name < b.name; });
  return h;
}

StatusOr<SafetensorsFile> ParseSafetensors(std::string_view bytes, const std::string& where) {
  SPYRE_ASSIGN_OR_RETURN(auto header_len, HeaderLength(bytes.substr(0, 8), bytes.size(), where));
  const std::string_view data = bytes.substr(8 + header_len);
  SPYRE_ASSIGN_OR_RETURN(auto parsed, ParseHeader(bytes.substr(8, header_len), data.size(), where));
  return FillTensors(std::move(parsed), [&](uint64_t begin, void* dst, uint64_t n) {
    std::memcpy(dst, data.data() + begin, n);
    return Status::Ok();
  });
}

namespace {

// The header of an open file: length, JSON, and the checks against the
// file's size. Only the header's bytes are read.
StatusOr<ParsedHeader> ReadHeader(const InputFile& f, const std::string& path) {
  char first8[8] = {};
  if (f.size() >= 8) SPYRE_RETURN_IF_ERROR(f.ReadAt(0, first8, 8));
  SPYRE_ASSIGN_OR_RETURN(
      auto header_len,
      HeaderLength(std::string_view(first8, f.size() >= 8 ? 8 : 0), f.size(), path));
  std::string json(header_len, '\0');
  SPYRE_RETURN_IF_ERROR(f.ReadAt(8, json.data(), json.size()));
  auto parsed = ParseHeader(json, f.size() - 8 - header_len, path);
  if (parsed.ok()) parsed->header_len = header_len;
  return parsed;
}

StatusOr<InputFile> OpenTensorFile(const std::string& path, uint64_t max_bytes) {
  StatusOr<InputFile> f = OpenInputFile(path, max_bytes, "safetensors file");
  if (!f.ok() && f.status().code() == ErrorCode::kNotFound) {
    return NotFound(path +
                    ": cannot open (missing golden file? run 'spyre-regress golden generate')");
  }
  return f;
}

}  // namespace

StatusOr<SafetensorsFile> ReadSafetensors(const std::string& path, uint64_t max_bytes) {
  SPYRE_ASSIGN_OR_RETURN(auto f, OpenTensorFile(path, max_bytes));
  SPYRE_ASSIGN_OR_RETURN(auto parsed, ReadHeader(f, path));
  // Each tensor's bytes go straight into its storage: the file is never
  // held in memory twice.
  const uint64_t data_start = 8 + parsed.header_len;
  return FillTensors(std::move(parsed), [&](uint64_t begin, void* dst, uint64_t n) {
    return f.ReadAt(data_start + begin, dst, n);
  });
}

StatusOr<SafetensorsHeader> ReadSafetensorsHeader(const std::string& path, uint64_t max_bytes) {
  SPYRE_ASSIGN_OR_RETURN(auto f, OpenTensorFile(path, max_bytes));
  SPYRE_ASSIGN_OR_RETURN(auto parsed, ReadHeader(f, path));
  return std::move(parsed.header);
}

StatusOr<std::string> SerializeSafetensors(const SafetensorsFile& f) {
  nlohmann::json header = nlohmann::json::object();
  if (!f.metadata.empty()) header["__metadata__"] = f.metadata;
  std::string data;
  std::set<std::string> names;
  for (const auto& [name, tensor] : f.tensors) {
    if (name == "__metadata__" || !names.insert(name).second) {
      return InvalidInput("safetensors: duplicate or reserved tensor name '" + name + "'");
    }
    const char* code = CodeOf(tensor.scalar_type());
    if (code == nullptr) {
      return InvalidInput("safetensors: tensor '" + name + "' has an unsupported dtype");
    }
    at::Tensor c = tensor.contiguous().cpu();
    const size_t n = static_cast<size_t>(c.numel()) * c.element_size();
    header[name] = {{"dtype", code},
                    {"shape", c.sizes().vec()},
                    {"data_offsets", {data.size(), data.size() + n}}};
    data.append(static_cast<const char*>(c.data_ptr()), n);
  }
  std::string h = header.dump();
  h.append((8 - h.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  std::string out(8, '\0');
  const uint64_t len = h.size();
  std::memcpy(out.data(), &len, 8);
  return out + h + data;
}

Status WriteSafetensors(const std::string& path, const SafetensorsFile& f) {
  StatusOr<std::string> bytes = SerializeSafetensors(f);
  if (!bytes.ok()) return bytes.status().WithContext(path);
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  OutputDirectory made;
  if (target.has_parent_path()) {
    if (Status s = made.Create(target.parent_path().string()); !s.ok()) {
      return IoError(path + ": cannot create its directory (" + s.message() +
                     "): check that the golden directory is writable");
    }
  }
  // Written aside and renamed into place: a full disk or a signal leaves
  // the previous file (or none), never a part of one.
  SPYRE_ASSIGN_OR_RETURN(auto out, OutputFile::Create(path, "golden"));
  out->stream().write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  SPYRE_RETURN_IF_ERROR(out->Commit());
  made.Keep();
  return Status::Ok();
}

std::string ShapeText(at::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace harness
