#include "analyzer/model/model_codec.h"

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace graphsafe {

namespace {

// Bumped whenever a field of the model is added, removed or reordered: the two sides of a pipe
// are always one build, but a stale worker binary must fail loudly, not decode garbage.
constexpr std::string_view kMagic = "graphsafe-model 8\n";

class Writer {
 public:
  static constexpr bool kReading = false;

  template <typename T>
  void num(const T& value) {
    if constexpr (std::is_enum_v<T>) {
      varint(static_cast<std::uint64_t>(value));
    } else if constexpr (std::is_signed_v<T>) {
      const auto wide = static_cast<std::int64_t>(value);
      varint((static_cast<std::uint64_t>(wide) << 1) ^ static_cast<std::uint64_t>(wide >> 63));
    } else {
      varint(static_cast<std::uint64_t>(value));
    }
  }
  void str(const std::string& text) {
    varint(text.size());
    out_ += text;
  }
  // Writing never reads a count back.
  bool fits(std::size_t /*count*/) const { return true; }
  std::string take() { return std::move(out_); }

 private:
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  std::string out_;
};

class Reader {
 public:
  static constexpr bool kReading = true;
  explicit Reader(std::string_view in) : in_(in) {}

  template <typename T>
  void num(T& value) {
    const std::uint64_t raw = varint();
    if constexpr (std::is_enum_v<T>) {
      value = static_cast<T>(raw);
    } else if constexpr (std::is_signed_v<T>) {
      value =
          static_cast<T>(static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1));
    } else {
      value = static_cast<T>(raw);
    }
  }
  void str(std::string& text) {
    const std::uint64_t size = varint();
    if (size > in_.size() - pos_) {
      ok_ = false;
      return;
    }
    text.assign(in_.substr(pos_, size));
    pos_ += size;
  }
  // A count read from the bytes cannot be larger than the bytes left (every element takes at
  // least one), so that a corrupt count never allocates more than the input.
  bool fits(std::size_t count) {
    if (ok_ && count <= in_.size() - pos_) return true;
    ok_ = false;
    return false;
  }
  bool ok() const { return ok_; }
  bool atEnd() const { return pos_ == in_.size(); }

 private:
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) break;
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    ok_ = false;
    return 0;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// One field list per struct serves both directions: a field is written and read in the same
// place, so the two cannot drift apart.
template <typename Io>
void field(Io& io, std::string& value) {
  io.str(value);
}

template <typename Io, typename T>
requires(std::is_integral_v<T> || std::is_enum_v<T>) void field(Io& io, T& value) {
  io.num(value);
}

template <typename Io, typename A, typename B>
void field(Io& io, std::pair<A, B>& value) {
  field(io, value.first);
  field(io, value.second);
}

template <typename Io, typename T>
void field(Io& io, std::vector<T>& values) {
  std::size_t count = values.size();
  io.num(count);
  if constexpr (Io::kReading) {
    if (!io.fits(count)) return;
    values.resize(count);
  }
  for (T& value : values) field(io, value);
}

template <typename Io, typename... Fields>
void fields(Io& io, Fields&... values) {
  (field(io, values), ...);
}

template <typename Io>
void field(Io& io, SourcePoint& p) {
  fields(io, p.line, p.column);
}

template <typename Io>
void field(Io& io, SourceRange& r) {
  fields(io, r.begin, r.end, r.start, r.stop);
}

template <typename Io>
void field(Io& io, Value& v) {
  fields(io, v.kind, v.origin, v.param_deps, v.text, v.ref);
}

template <typename Io>
void field(Io& io, Reference& r) {
  fields(io, r.kind, r.container, r.splat, r.function, r.index, r.name, r.operands, r.names);
}

template <typename Io>
void field(Io& io, StaticTest& t) {
  fields(io, t.op, t.param, t.literal, t.parent);
}

template <typename Io>
void field(Io& io, KeywordArg& k) {
  fields(io, k.name, k.value);
}

template <typename Io>
void field(Io& io, Event& e) {
  fields(io, e.kind, e.range, e.api, e.text, e.subject, e.args, e.keywords, e.flags,
         e.arguments_complete, e.test, e.callee, e.callee_qualified, e.region, e.call, e.target,
         e.source, e.output_of, e.value, e.trips, e.operand);
}

template <typename Io>
void field(Io& io, Parameter& p) {
  fields(io, p.name, p.declared, p.default_literal, p.variadic, p.keywords, p.annotation,
         p.default_value);
}

template <typename Io>
void field(Io& io, RegionName& n) {
  fields(io, n.name, n.range, n.value);
}

template <typename Io>
void field(Io& io, ContextBlock& c) {
  fields(io, c.kind, c.site, c.span, c.subject, c.other, c.caches, c.function);
}

template <typename Io>
void field(Io& io, CacheGuard& g) {
  fields(io, g.body, g.keys);
}

template <typename Io>
void field(Io& io, StreamParameterUse& u) {
  fields(io, u.param, u.at, u.api);
}

template <typename Io>
void field(Io& io, StreamHandoff& h) {
  fields(io, h.call, h.param, h.param_name, h.from_param, h.escape);
}

template <typename Io>
void field(Io& io, FunctionModel& f) {
  fields(io, f.name, f.qualified_name, f.range, f.body, f.params, f.events, f.is_method,
         f.is_module_level, f.memoized, f.loops, f.contexts, f.tests, f.literal_params,
         f.cache_guards, f.parent, f.class_index, f.has_self, f.is_classmethod, f.is_staticmethod,
         f.is_property, f.is_lambda, f.is_generator, f.returns, f.yields, f.decorators,
         f.yield_region, f.returned_output, f.returned_output_at, f.builtin_calls, f.stream_params,
         f.stream_handoffs, f.once_blocks, f.branches);
}

template <typename Io>
void field(Io& io, ClassModel& c) {
  fields(io, c.name, c.qualified_name, c.range, c.scope, c.outer_class, c.bases, c.methods,
         c.members, c.decorators);
}

template <typename Io>
void field(Io& io, AttributeWrite& w) {
  fields(io, w.object, w.name, w.value, w.function, w.range, w.augmented);
}

template <typename Io>
void field(Io& io, ElementWrite& w) {
  fields(io, w.container, w.key, w.key_ref, w.value, w.function, w.range, w.augmented);
}

template <typename Io>
void field(Io& io, CaptureRegion& r) {
  fields(io, r.kind, r.site, r.graph, r.stream, r.pool, r.mode, r.dynamo_traced, r.full_graph,
         r.function, r.whole_function, r.target_qualified, r.param_values, r.callable,
         r.tuple_index, r.callable_ref, r.handle, r.span, r.inputs, r.outputs, r.pending,
         r.pending_ref, r.pending_scope, r.parent, r.lazy, r.cache_keys, r.guard);
}

template <typename Io>
void field(Io& io, SourceComment& c) {
  fields(io, c.line, c.column, c.text);
}

template <typename Io>
void field(Io& io, Notice& n) {
  fields(io, n.path, n.line, n.message, n.incomplete);
}

template <typename Io>
void field(Io& io, FileModel& m) {
  fields(io, m.language, m.module_name, m.functions, m.regions, m.comments, m.notices,
         m.parse_failed, m.compiler_errors, m.extension_code, m.includes, m.extension_includer,
         m.compile_database, m.includes_complete, m.flags_from, m.cpp_aliases, m.registered_ops,
         m.import_aliases, m.star_imports, m.lowered, m.references, m.classes, m.attribute_writes,
         m.element_writes, m.globals);
}

}  // namespace

std::string encodeFileModel(const FileModel& model) {
  Writer writer;
  std::string magic(kMagic);
  writer.str(magic);
  // The field lists take references to serve reading too; writing only reads through them.
  field(writer, const_cast<FileModel&>(model));
  return writer.take();
}

std::optional<FileModel> decodeFileModel(std::string_view bytes, SourceFilePtr source,
                                         std::string& error) {
  Reader reader(bytes);
  std::string magic;
  reader.str(magic);
  if (!reader.ok() || magic != kMagic) {
    error = "the model does not come from this version of graphsafe";
    return std::nullopt;
  }
  FileModel model;
  field(reader, model);
  if (!reader.ok() || !reader.atEnd()) {
    error = "the model is cut short or corrupt";
    return std::nullopt;
  }
  model.source = std::move(source);
  return model;
}

}  // namespace graphsafe
