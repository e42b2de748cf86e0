#include "analyzer/program/types.h"

#include <algorithm>

namespace graphsafe::program {

namespace {

std::uint64_t mix(std::uint64_t seed, std::uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace

std::size_t TypeTable::DataHash::operator()(const Data& data) const {
  std::uint64_t seed = data.unknown ? 1 : 0;
  for (const Atom& atom : data.atoms) {
    seed = mix(seed, static_cast<std::uint64_t>(atom.kind) | (std::uint64_t{atom.sub} << 8));
    seed = mix(seed, (std::uint64_t{atom.a} << 32) | atom.b);
    seed = mix(seed, atom.c);
  }
  return static_cast<std::size_t>(seed);
}

TypeTable::TypeTable() {
  intern(Data{});                // kBottom
  intern(Data{{}, /*unknown=*/true});  // kUnknown
  names_.emplace_back();         // name id 0: ""
  name_ids_.emplace("", 0);
  entry_lists_.emplace_back();  // entries id 0: none
}

TypeId TypeTable::intern(Data data) {
  auto it = ids_.find(data);
  if (it != ids_.end()) return it->second;
  auto id = static_cast<TypeId>(types_.size());
  types_.push_back(data);
  ids_.emplace(std::move(data), id);
  return id;
}

TypeId TypeTable::atom(Atom atom) {
  Data data;
  data.atoms.push_back(atom);
  return intern(std::move(data));
}

TypeId TypeTable::join(TypeId a, TypeId b) {
  if (a == b || b == kBottom) return a;
  if (a == kBottom) return b;
  const std::uint64_t key = a < b ? (std::uint64_t{a} << 32) | b : (std::uint64_t{b} << 32) | a;
  auto cached = joins_.find(key);
  if (cached != joins_.end()) return cached->second;
  Data data;
  data.unknown = types_[a].unknown || types_[b].unknown;
  const auto& left = types_[a].atoms;
  const auto& right = types_[b].atoms;
  std::set_union(left.begin(), left.end(), right.begin(), right.end(),
                 std::back_inserter(data.atoms));
  // Literals are kept apart while there are a few (`ls[key]` with key 0 or 1); more than that
  // is a host value like any other.
  constexpr std::size_t kMaxLiterals = 4;
  auto literal = [](const Atom& atom) { return atom.kind == Atom::Kind::kHost && atom.a != 0; };
  if (static_cast<std::size_t>(std::count_if(data.atoms.begin(), data.atoms.end(), literal)) >
      kMaxLiterals) {
    std::erase_if(data.atoms, literal);
    Atom host{Atom::Kind::kHost, 0, 0, 0};
    data.atoms.insert(std::lower_bound(data.atoms.begin(), data.atoms.end(), host), host);
    data.atoms.erase(std::unique(data.atoms.begin(), data.atoms.end()), data.atoms.end());
  }
  // Instances of one class from more constructions than this are instances of the class.
  constexpr std::size_t kMaxConstructions = 4;
  for (std::size_t i = 0; i < data.atoms.size();) {
    const Atom& first = data.atoms[i];
    std::size_t end = i;
    while (end < data.atoms.size() && data.atoms[end].kind == first.kind &&
           data.atoms[end].a == first.a) {
      ++end;
    }
    if (first.kind == Atom::Kind::kInstance && end - i > kMaxConstructions) {
      Atom plain{Atom::Kind::kInstance, 0, first.a, 0};
      data.atoms.erase(data.atoms.begin() + static_cast<std::ptrdiff_t>(i),
                       data.atoms.begin() + static_cast<std::ptrdiff_t>(end));
      data.atoms.insert(data.atoms.begin() + static_cast<std::ptrdiff_t>(i), plain);
      end = i + 1;
    }
    i = end;
  }
  if (data.atoms.size() > kMaxAtoms) {
    data.atoms.clear();
    data.unknown = true;
  }
  TypeId joined = intern(std::move(data));
  joins_.emplace(key, joined);
  return joined;
}

std::uint32_t TypeTable::entries(Entries list) {
  std::string key;
  key.reserve(list.size() * 8);
  for (const auto& [index, type] : list) {
    key.append(reinterpret_cast<const char*>(&index), sizeof(index));
    key.append(reinterpret_cast<const char*>(&type), sizeof(type));
  }
  auto it = entry_ids_.find(key);
  if (it != entry_ids_.end()) return it->second;
  auto id = static_cast<std::uint32_t>(entry_lists_.size());
  entry_lists_.push_back(std::move(list));
  entry_ids_.emplace(std::move(key), id);
  return id;
}

std::uint32_t TypeTable::name(std::string_view text) {
  auto it = name_ids_.find(std::string(text));
  if (it != name_ids_.end()) return it->second;
  auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(text);
  name_ids_.emplace(std::string(text), id);
  return id;
}

}  // namespace graphsafe::program
