#pragma once

// What the frozen-value rules (GS102, GS103, GS105) share: which host values they report, and
// why such a value changes between replays, in words for the message.

#include <string>

#include "analyzer/model/value.h"

namespace graphsafe {

// A host value known to vary between replays. A value read back from a tensor (`x.item()`) is
// left out: reading it is a host synchronization, which GS401 reports on its own; so is the
// answer of a capture query, which is GS104's.
bool isFrozenHostValue(const Value& value);

// "it is the variable of a loop around the capture, ...": why `value` varies.
std::string whyItVaries(const Value& value);

}  // namespace graphsafe
