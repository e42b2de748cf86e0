#include "frontends/python/shape_arguments.h"

#include <unordered_map>

namespace graphsafe::python {

namespace {

using Table = std::unordered_map<std::string_view, ShapeArguments>;

constexpr std::uint8_t bit(int position) {
  return static_cast<std::uint8_t>(1u << position);
}

ShapeArguments varargs(std::int8_t from, std::string_view keyword) {
  ShapeArguments shape;
  shape.from_position = from;
  shape.keywords = {keyword};
  return shape;
}

ShapeArguments at(std::uint8_t positions, std::string_view keyword, std::string_view other = {}) {
  ShapeArguments shape;
  shape.positions = positions;
  shape.keywords = {keyword, other};
  return shape;
}

const Table& functions() {
  static const Table table = [] {
    Table t;
    for (std::string_view name :
         {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn"}) {
      t.emplace(name, varargs(0, "size"));
    }
    t.emplace("torch.full", at(bit(0), "size"));
    t.emplace("torch.arange", varargs(0, "end"));
    t.emplace("torch.range", varargs(0, "end"));
    t.emplace("torch.linspace", at(bit(2), "steps"));
    t.emplace("torch.logspace", at(bit(2), "steps"));
    t.emplace("torch.eye", at(bit(0) | bit(1), "n", "m"));
    t.emplace("torch.randperm", at(bit(0), "n"));
    t.emplace("torch.empty_strided", at(bit(0) | bit(1), "size", "stride"));
    t.emplace("torch.tril_indices", at(bit(0) | bit(1), "row", "col"));
    t.emplace("torch.triu_indices", at(bit(0) | bit(1), "row", "col"));
    t.emplace("torch.reshape", at(bit(1), "shape"));
    t.emplace("torch.narrow", at(bit(3), "length"));
    t.emplace("torch.split", at(bit(1), "split_size_or_sections"));
    t.emplace("torch.chunk", at(bit(1), "chunks"));
    t.emplace("torch.broadcast_to", at(bit(1), "size"));
    t.emplace("torch.tile", at(bit(1), "dims"));
    t.emplace("torch.nn.functional.pad", at(bit(1), "pad"));
    t.emplace("torch.nn.functional.interpolate", at(bit(1), "size"));
    t.emplace("torch.nn.functional.adaptive_avg_pool1d", at(bit(1), "output_size"));
    t.emplace("torch.nn.functional.adaptive_avg_pool2d", at(bit(1), "output_size"));
    ShapeArguments randint;
    randint.last_positional = true;
    randint.keywords = {"size"};
    t.emplace("torch.randint", randint);
    return t;
  }();
  return table;
}

const Table& methods() {
  static const Table table = [] {
    Table t;
    for (std::string_view name : {"view", "reshape", "expand", "repeat", "tile", "resize_"}) {
      t.emplace(name, varargs(0, name == "repeat" ? "repeats" : "size"));
    }
    t["reshape"].keywords = {"shape"};
    t["tile"].keywords = {"dims"};
    for (std::string_view name : {"new_zeros", "new_ones", "new_empty", "new_full"}) {
      t.emplace(name, at(bit(0), "size"));
    }
    t.emplace("narrow", at(bit(2), "length"));
    t.emplace("unflatten", at(bit(1), "sizes"));
    t.emplace("split", at(bit(0), "split_size"));
    t.emplace("chunk", at(bit(0), "chunks"));
    t.emplace("as_strided", at(bit(0) | bit(1), "size", "stride"));
    t.emplace("unfold", at(bit(1) | bit(2), "size", "step"));
    t.emplace("broadcast_to", at(bit(0), "size"));
    return t;
  }();
  return table;
}

}  // namespace

const ShapeArguments* functionShapeArguments(std::string_view canonical) {
  auto it = functions().find(canonical);
  return it == functions().end() ? nullptr : &it->second;
}

const ShapeArguments* methodShapeArguments(std::string_view name) {
  auto it = methods().find(name);
  return it == methods().end() ? nullptr : &it->second;
}

}  // namespace graphsafe::python
