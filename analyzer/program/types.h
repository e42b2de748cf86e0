#pragma once

// The program model's type lattice: what a name, an attribute, a call's result may hold, as a
// set of atoms (an instance of class C, function F, a method bound to its receiver, a
// container of T, a library object, a tensor, ...). Types are interned: a TypeId is a sorted
// set of atoms, compared and hashed as a number. kUnknown marks a type that may also hold
// something the model cannot name; an unknown value never decides a finding.

#include <compare>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace graphsafe::program {

using TypeId = std::uint32_t;
inline constexpr TypeId kBottom = 0;   // no value is known to reach here (yet)
inline constexpr TypeId kUnknown = 1;  // anything: the model cannot say

// What a container atom holds its elements in. Module containers call or iterate their
// elements the way torch.nn does.
enum class Holder : std::uint8_t {
  kList,
  kTuple,
  kDict,
  kSet,
  kGenerator,
  kModuleList,  // nn.ModuleList / nn.ParameterList: iterated and indexed
  kSequential,  // nn.Sequential: calling it calls every element in turn
  kModuleDict,  // nn.ModuleDict: its values
};

struct Atom {
  enum class Kind : std::uint8_t {
    kInstance,       // a: class id; c: 1 + the __init__ frame of the construction it came
                     // from (0: any), so that two Runner(model) of two models stay apart
    kClass,          // a: class id
    kFunction,       // a: function id (a plain function, or a method reached through its class)
    kBoundMethod,    // a: function id; b: the receiver's type
                     // (both: c = 1 + the frame a nested function closes over, 0 for none)
    kPartial,        // a: the wrapped callable's type; b: positional arguments it binds
    kSuper,          // a: the class whose super() this is; b: the receiver's type
    kModule,         // a: file index of the module
    kExternal,       // a: name id of a library object ("torch.nn.Linear"); b: 1 for an
                     // instance of it (a call's result), 0 for the object itself
    kLibraryMethod,  // a: name id of the method; b: the receiver's type (`model.cuda`,
                     // `d.items`): what calling it returns depends on the receiver
    kContainer,      // sub: Holder; a: the element type; b: 1 + index of its entries list
                     // (tuple positions, dict literal keys), 0 when there is none
    kTensor,         // sub: a TensorMemory (analyzer/model/reference.h), where it is known to live
    kHost,           // a number, a string, a bool: a host value
    kNone,
  };
  Kind kind = Kind::kNone;
  std::uint8_t sub = 0;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
  auto operator<=>(const Atom&) const = default;
};

// A container's entries: a tuple's positions (key = position) or a dict's literal keys (key =
// name id of the key).
using Entries = std::vector<std::pair<std::uint32_t, TypeId>>;

class TypeTable {
 public:
  // More atoms than this in one type make it unknown: a value that may be any of 40 classes
  // says too little to act on, and keeps joins cheap.
  static constexpr std::size_t kMaxAtoms = 32;

  TypeTable();

  TypeId atom(Atom atom);
  TypeId join(TypeId a, TypeId b);
  const std::vector<Atom>& atoms(TypeId type) const { return types_[type].atoms; }
  bool hasUnknown(TypeId type) const { return types_[type].unknown; }
  // Known atoms only: no unknown part.
  bool isExact(TypeId type) const { return !types_[type].unknown && !types_[type].atoms.empty(); }

  std::uint32_t entries(Entries list);
  const Entries& entriesAt(std::uint32_t id) const { return entry_lists_[id]; }

  std::uint32_t name(std::string_view text);
  const std::string& nameAt(std::uint32_t id) const { return names_[id]; }

 private:
  struct Data {
    std::vector<Atom> atoms;  // sorted, unique
    bool unknown = false;
    bool operator==(const Data&) const = default;
  };
  struct DataHash {
    std::size_t operator()(const Data& data) const;
  };
  TypeId intern(Data data);

  // Deques: a reference to a type's atoms stays valid while new types are interned.
  std::deque<Data> types_;
  std::unordered_map<Data, TypeId, DataHash> ids_;
  std::unordered_map<std::uint64_t, TypeId> joins_;
  std::deque<Entries> entry_lists_;
  std::unordered_map<std::string, std::uint32_t> entry_ids_;
  std::deque<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
};

}  // namespace graphsafe::program
