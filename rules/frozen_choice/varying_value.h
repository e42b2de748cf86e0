#pragma once

// What the frozen-value rules (GS102, GS103, GS105) share: which host values they report, and
// why such a value changes between replays, in words for the message.

#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/model/value.h"

namespace graphsafe {

// A host value known to vary between replays. A value read back from a tensor (`x.item()`) is
// left out: reading it is a host synchronization, which GS401 reports on its own; so is the
// answer of a capture query, which is GS104's.
bool isFrozenHostValue(const Value& value);

// The same, where the value is read: an attribute that methods other than __init__ assign is
// known to change between replays only on the object that captures (the region's own code and
// the methods of its class, where `self` is that object). On another object the capture
// reaches (a model's layer, a library's container) nothing says the writes happen between
// replays, and unknown stays quiet.
bool variesBetweenReplays(const RegionContext& context, const Value& value);

// Is the code of `context` the region's own, or a method of the class whose method holds the
// region (its `self` is the capturing object)?
bool onCapturingObject(const RegionContext& context);

// "it is the variable of a loop around the capture, ...": why `value` (resolved in `context`)
// varies.
std::string whyItVaries(const RegionContext& context, const Value& value);

// Where the program model saw the value change (a write between replays), as a finding's note;
// empty when no one place does.
std::vector<RelatedLocation> whereItVaries(const RegionContext& context, const Value& value);

}  // namespace graphsafe
